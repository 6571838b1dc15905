"""Q-table files: saved atomically with ``torch.save``, read back as plain data only.

A file holds one dict::

    {"format": "tictactoe-q-table", "version": 1, "side": 1 or -1,
     "meta": {"algorithm": ..., "epochs": ..., "episodes_done": ..., ...},
     "Q": {(State, (row, col)): float}}

Files written by the course's original code (a bare ``{(State, action): float}`` dict whose states
carry a numpy board) load too; their side is read off the states.

Loading never runs code from the file. It goes through ``torch.load(weights_only=True)``, whose
unpickler calls only allowlisted names; the allowlist here holds our own classes alone. A pickle
names the functions and classes it wants called to rebuild its objects; each name a Q-table needs
(``State.State``, and the numpy pieces that rebuild a board or an integer in the course's files)
is mapped to a small checked stand-in of ours, never to numpy itself, and every other name is
refused before anything is called. Then every entry is checked: a position of a game still going,
one of its empty cells, a finite value, one side for the whole table. Anything wrong is one
``TableError`` naming the file, the problem and what to do.
"""

from __future__ import annotations

import _compat_pickle
import contextlib
import io
import math
import os
import pickle
import re
import secrets
import struct
import sys
import warnings
from numbers import Integral, Real

import numpy as np

from State import ALL_CELLS, O, ONGOING, X, State, symbol

FORMAT_NAME = "tictactoe-q-table"
FORMAT_VERSION = 1
# A complete table in the course's bulky format is about 5 MB; a file far larger is not a table,
# and reading it could exhaust memory.
MAX_FILE_BYTES = 16 * 2**20
# torch.save files are zip archives (holding ``<name>/data.pkl``).
_ZIP_SIGNATURE = b"PK\x03\x04"
_PLAIN_METADATA = (str, int, float, bool, type(None))

QTable = dict  # {(State, (row, col)): float}


class TableError(ValueError):
    """A Q-table file that cannot be used; the message says which file, what is wrong, what to do."""


# --- saving ------------------------------------------------------------------------------------

def save_table(path: str, Q: QTable, side: int, meta: dict | None = None) -> None:
    """Write ``Q`` for ``side`` (1 X, -1 O) with its training ``meta`` to ``path`` atomically.

    The table is checked first (a ``ValueError`` and nothing written if an entry could not be
    loaded back); ``meta`` is a record for people, so values other than text, numbers, booleans
    and ``None`` are stored as their text. The data then goes to a temporary file in the same folder, is flushed to disk,
    and only then replaces ``path``: a crash or a full disk mid-save leaves the previous file as it
    was and no temporary file behind.
    """
    meta = _plain_meta(meta or {})
    problem = _side_problem(side) or _meta_problem(meta)
    entries = {}
    for key, value in ([] if problem else dict(Q).items()):
        problem = _key_problem(key, State) or _entry_problem(key[0], key[1], value, side)
        if problem:
            break
        entries[(key[0], _as_action(key[1]))] = float(value)
    if problem:
        raise ValueError(f"not saving {path}: {problem}")
    import torch  # only saving needs torch (a second or two to import); loading reads files itself

    payload = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "side": int(side),
               "meta": meta, "Q": entries}
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    temporary = _temporary_path(folder)
    try:
        # The usual permissions for a new file (0o666 less the umask), unlike tempfile's 0o600.
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                         0o666)
        with os.fdopen(handle, "wb") as stream:
            torch.save(payload, stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        raise
    _sync_folder(folder)


def check_writable(path: str) -> None:
    """Raise ``TableError`` unless a table can be saved at ``path`` (creating its folder if needed).

    Trainers call this before training, so a mistyped ``--out`` is reported at once instead of
    after the work is done.
    """
    if os.path.isdir(path):
        raise TableError(f"{path}: is a folder; give the path of a .pth file to save the table to")
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
        probe = _temporary_path(folder)
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        os.remove(probe)
    except OSError as error:
        raise TableError(f"{path}: cannot save here ({error.strerror or error}); "
                         "choose another --out path") from None


def _temporary_path(folder: str) -> str:
    return os.path.join(folder, f".tmp-{secrets.token_hex(6)}.pth")


def _sync_folder(folder: str) -> None:
    """Flush the folder entry too, so the replaced name survives a power cut (where supported)."""
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


# --- loading -----------------------------------------------------------------------------------

def load_table(path: str, side: int | None = None) -> tuple[QTable, int, dict]:
    """Read a table file; return ``(Q, side, meta)``. Raise ``TableError`` for any unusable file.

    With ``side`` given, a table for the other side is refused.
    """
    path = os.fspath(path)
    payload = _read(path)
    if isinstance(payload, dict) and payload.get("format") == FORMAT_NAME:
        if payload.get("version") != FORMAT_VERSION:
            raise TableError(f"{path}: table format version {_short(payload.get('version'))} is "
                             f"not supported (this code reads version {FORMAT_VERSION}); retrain it")
        raw_q, file_side, meta = payload.get("Q"), payload.get("side"), payload.get("meta")
        if not isinstance(raw_q, dict) or _side_problem(file_side) or not isinstance(meta, dict):
            raise TableError(f"{path}: damaged table (its Q, side or meta is missing or wrong); "
                             "retrain it")
        problem = _meta_problem(meta)
        if problem:
            raise TableError(f"{path}: damaged table ({problem}); retrain it")
    elif isinstance(payload, dict):
        raw_q, file_side, meta = payload, None, {"algorithm": "course original"}
    else:
        raise TableError(f"{path}: holds a {type(payload).__name__}, not a Q-table dict; "
                         "use a file saved by AI_Agent.save_Q")
    Q, states_side = _clean(path, raw_q)
    if file_side is None:
        file_side = states_side
    elif states_side not in (None, int(file_side)):
        raise TableError(f"{path}: says it plays {symbol(file_side)} but its positions are "
                         f"{symbol(states_side)} to move; retrain it")
    if file_side is None:
        raise TableError(f"{path}: empty Q-table (no state-action values); train one first")
    if side is not None and file_side != side:
        raise TableError(f"{path}: is a table for {symbol(file_side)}, not for {symbol(side)}; "
                         f"use a table made for {symbol(side)} (e.g. Data/Q_MC_{symbol(side)}.pth)")
    return Q, int(file_side), meta


def _read(path: str):
    """The object a table file holds, rebuilt from allowlisted pieces only."""
    if os.path.isdir(path):
        raise TableError(f"{path}: is a folder, not a Q-table file; give the path of a .pth file")
    if os.path.exists(path) and not os.path.isfile(path):
        raise TableError(f"{path}: is not a regular file (a device or a pipe?); give the path of "
                         "a .pth file")
    try:
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            raise TableError(f"{path}: {size:,} bytes is far too large for a Q-table (at most "
                             f"{MAX_FILE_BYTES:,}); use a table saved by AI_Agent.save_Q")
        with open(path, "rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise TableError(f"{path}: no such file; check the path or train a table first "
                         "(python MC_Trainer.py)") from None
    except OSError as error:
        raise TableError(f"{path}: cannot be read ({error.strerror or error}); "
                         "check the file and its permissions") from None
    if not data:
        raise TableError(f"{path}: the file is empty (0 bytes), e.g. from an interrupted copy; "
                         "copy it again or retrain it")
    try:
        import torch  # imported here: only reading and writing files needs it

        with torch.serialization.safe_globals(_SAFE_GLOBALS), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's notes on unusual pickle protocols
            return torch.load(io.BytesIO(data), weights_only=True, map_location="cpu")
    except _Refused as refusal:
        raise _refused(path, str(refusal)) from None
    except pickle.UnpicklingError as error:
        refusal = _torch_refusal(str(error))
        if refusal:
            raise _refused(path, refusal) from None
        raise _unreadable(path, data, error) from None
    except Exception as error:  # any failure to parse untrusted bytes means the same to the user
        raise _unreadable(path, data, error) from None


def _refused(path: str, what: str) -> TableError:
    return TableError(f"{path}: refused to load: it asks for {what}, which no Q-table holds "
                      "(loading never runs code from a file); use a table saved by "
                      "AI_Agent.save_Q")


def _unreadable(path: str, data: bytes, error: Exception) -> TableError:
    kind = "an incomplete zip archive" if data.startswith(_ZIP_SIGNATURE) \
        else f"{type(error).__name__}: {_short(str(error))}"
    return TableError(f"{path}: not a readable Q-table file ({kind}); it may be cut short or "
                      "not a torch.save file -- copy it again or retrain it")


def _python3_name(dotted: str) -> str:
    """A global's name as Python 3 knows it (protocol-2 pickles may use Python 2's names, e.g.
    ``commands.call`` for ``subprocess.call``)."""
    module, _, name = dotted.rpartition(".")
    module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
    return f"{_compat_pickle.IMPORT_MAPPING.get(module, module)}.{name}"


def _torch_refusal(message: str) -> str | None:
    """What a file asked for, from torch's refusal message; ``None`` for other errors."""
    found = re.search(r"GLOBAL ([\w.]+) was not an allowed global|unsupported GLOBAL ([\w.]+)|"
                      r"reduce for unrecognized function ([^\s]+)|new object for .* but got ([^\n]+)|"
                      r"types allowlisted via `add_safe_globals`, but got ([^\n]+)", message)
    if found:
        return _short(_python3_name(next(group for group in found.groups() if group)))
    return None


class _Refused(pickle.UnpicklingError):
    """The pickle asked for something that is not on the allowlist."""


# A file gets stand-ins, never numpy itself: numpy's own pickle hooks would let crafted bytes set
# the internal flags of a dtype (and so make numpy treat numbers as object pointers). The stand-ins
# accept only what a board or an integer needs and decode the numbers with ``struct``.
# Room for other games' boards too (Connect Four has 42 cells), so that their tables are named as
# such rather than refused as odd arrays; nothing a file describes gets larger than this.
_MAX_ARRAY_CELLS = 64
# numpy dtype code -> struct format letter, for the plain number types a board or an index can have.
_NUMBER_DTYPES = {"f2": "e", "f4": "f", "f8": "d", "i1": "b", "i2": "h", "i4": "i", "i8": "q",
                  "u1": "B", "u2": "H", "u4": "I", "u8": "Q"}
_BYTE_ORDERS = {"<": "<", ">": ">", "=": "<" if sys.byteorder == "little" else ">", "|": "<"}


class _StoredState:
    """A position as a file describes it, before it is checked and turned into a ``State``.

    Files name the class ``State.State``; reading them into this plain holder (never into a real,
    shared ``State``) means nothing in a file can alter a position the program already uses.
    Our files pickle ``State(cells, player)``; the course's files pickle a board and a player.
    """

    __slots__ = ("board", "player")

    def __init__(self, board=None, player=None) -> None:
        self.board, self.player = board, player

    def __setstate__(self, data) -> None:
        if not isinstance(data, dict):
            raise _Refused("a State whose stored data is not a dict")
        self.board, self.player = data.get("board"), data.get("player")

    def to_state(self) -> State:
        board = self.board.cells if isinstance(self.board, _StoredArray) else self.board
        return State(board, self.player)


class _StoredDtype:
    """numpy's ``dtype(code)`` as a file describes it: a plain number type and a byte order."""

    __slots__ = ("letter", "order")

    def __init__(self, code: str) -> None:
        self.letter, self.order = _NUMBER_DTYPES[code], _BYTE_ORDERS["="]

    def __setstate__(self, state) -> None:
        order = state[1] if isinstance(state, tuple) and len(state) > 1 else None
        if not isinstance(order, str) or order not in _BYTE_ORDERS:
            raise _Refused("a numpy dtype with unusual settings")
        self.order = _BYTE_ORDERS[order]

    def unpack(self, raw: bytes, count: int) -> tuple:
        """``count`` numbers from ``raw`` (which must hold exactly that many) as Python numbers."""
        return struct.unpack(f"{self.order}{count}{self.letter}", raw)


class _StoredArray:
    """numpy's array as a file describes it: a few plain numbers, kept as the row-major tuple
    ``cells`` (a ``State`` takes a flat board)."""

    __slots__ = ("cells",)

    def __init__(self) -> None:
        self.cells = None

    def __setstate__(self, state) -> None:
        if not (isinstance(state, tuple) and len(state) == 5):
            raise _Refused("a numpy array with unusual settings")
        _, shape, dtype, fortran, raw = state
        if not (isinstance(dtype, _StoredDtype) and isinstance(raw, bytes)
                and isinstance(shape, tuple) and len(shape) <= 2
                and all(type(n) is int and 0 <= n <= _MAX_ARRAY_CELLS for n in shape)
                and math.prod(shape) <= _MAX_ARRAY_CELLS):
            raise _Refused("a numpy array that is not a small array of numbers")
        numbers = dtype.unpack(raw, math.prod(shape))
        if fortran and len(shape) == 2:  # stored column by column: read it back row by row
            rows, cols = shape
            numbers = tuple(numbers[r + c * rows] for r in range(rows) for c in range(cols))
        self.cells = numbers


class _Global:
    """What a file gets for an allowlisted name: calling it runs a checked builder; it has no
    attributes a pickle could set."""

    __slots__ = ("_name", "_build")

    def __init__(self, name: str, build=None) -> None:
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_build", build)

    def __setattr__(self, attribute, value):
        raise _Refused(f"changing {self._name}")

    def __call__(self, *args):
        if self._build is None:
            raise _Refused(f"calling {self._name}")
        return self._build(*args)


_NDARRAY = _Global("numpy.ndarray")  # only passed to _reconstruct, never called


def _empty_array(cls, shape=None, typecode=None) -> _StoredArray:
    """numpy's ``_reconstruct``: an empty array that the pickle then fills with its bytes."""
    if cls is not _NDARRAY:
        raise _Refused("an array of an unexpected class")
    return _StoredArray()


def _number_dtype(code, align=False, copy=True) -> _StoredDtype:
    """numpy's ``dtype``, for plain numbers only."""
    if not isinstance(code, str) or code not in _NUMBER_DTYPES:
        raise _Refused(f"numpy dtype {_short(code)}")
    return _StoredDtype(code)


def _number_scalar(dtype, data):
    """numpy's ``scalar``: one number from its bytes, as a Python int or float."""
    if not isinstance(dtype, _StoredDtype) or not isinstance(data, bytes):
        raise _Refused("a numpy scalar that is not a plain number")
    return dtype.unpack(data, 1)[0]


_ALLOWED = {("State", "State"): _StoredState, ("numpy", "ndarray"): _NDARRAY,
            ("numpy", "dtype"): _Global("numpy.dtype", _number_dtype)}
for _module in ("numpy.core.multiarray", "numpy._core.multiarray"):  # numpy 1.x and 2.x names
    _ALLOWED[(_module, "_reconstruct")] = _Global(f"{_module}._reconstruct", _empty_array)
    _ALLOWED[(_module, "scalar")] = _Global(f"{_module}.scalar", _number_scalar)


# What torch.load may build: each name a file can use, mapped to our stand-in; the stand-in
# classes themselves too, because the unpickler fills in (BUILD) only allowlisted types.
_SAFE_GLOBALS = [(builder, f"{module}.{name}") for (module, name), builder in _ALLOWED.items()]
_SAFE_GLOBALS += [(cls, f"Q_Table.{cls.__name__}") for cls in (_StoredArray, _StoredDtype)]


# --- checking entries --------------------------------------------------------------------------

def _clean(path: str, raw_q: dict) -> tuple[QTable, int | None]:
    """Check every entry and return the table with shared ``State`` keys and int actions."""
    Q: QTable = {}
    side = None
    for key, value in raw_q.items():
        problem = _key_problem(key, _StoredState)
        if problem:
            raise TableError(f"{path}: not a Tic-Tac-Toe Q-table: {problem} (another game's "
                             "table?); use a table saved by AI_Agent.save_Q")
        try:
            state = key[0].to_state()
        except ValueError as error:
            raise TableError(f"{path}: not a Tic-Tac-Toe position: {error} (another game's "
                             "table?); use a table saved by AI_Agent.save_Q") from None
        side = state.player if side is None else side
        problem = _entry_problem(state, key[1], value, side)
        if problem:
            raise TableError(f"{path}: damaged or not a Tic-Tac-Toe table: {problem}; retrain it")
        Q[(state, _as_action(key[1]))] = float(value)
    return Q, side


def _key_problem(key, state_class: type) -> str | None:
    if not (isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], state_class)):
        return f"key {_short(key)} is not a (State, (row, col)) pair"
    return None


def _entry_problem(state: State, action, value, side: int) -> str | None:
    """What is wrong with one table entry, in a few words; ``None`` when it is fine."""
    if not (isinstance(action, tuple) and len(action) == 2 and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in action)):
        return f"action {_short(action)} is not a (row, col) pair of ints"
    if _as_action(action) not in ALL_CELLS:
        return f"action {_as_action(action)} is off the board"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.number)):
        return f"the value for {_as_action(action)} is a {type(value).__name__}, not a number"
    try:
        finite = math.isfinite(float(value))
    except (OverflowError, TypeError, ValueError):
        finite = False
    if not finite:
        return f"the value {_short(value)} for {_as_action(action)} is not a finite number"
    if state.player != side:
        return f"position {list(state.cells)} has {symbol(state.player)} to move, but the table " \
               f"plays {symbol(side)} (one table plays one side)"
    if not _can_occur(state):
        return f"position {list(state.cells)} with {symbol(state.player)} to move cannot occur " \
               "in a game that is still going"
    if _as_action(action) not in state.legal_actions():
        return f"action {_as_action(action)} is an occupied cell in position {list(state.cells)}"
    return None


def _can_occur(state: State) -> bool:
    """Whether ``state`` arises in some game that is not yet over. Marks alternate from X, so X has
    as many marks as O (X to move) or one more (O to move); without a line of three, any such
    board can be reached by placing the marks in turn."""
    x_marks, o_marks = state.cells.count(X), state.cells.count(O)
    mover = X if x_marks == o_marks else O if x_marks == o_marks + 1 else None
    return state.player == mover and state.end_of_game == ONGOING


def _as_action(action) -> tuple[int, int]:
    return int(action[0]), int(action[1])


def _side_problem(side) -> str | None:
    if isinstance(side, bool) or side not in (X, O):
        return f"side must be 1 (X) or -1 (O), got {_short(side)}"
    return None


def _plain_meta(meta: dict) -> dict:
    """``meta`` with text keys and plain values (numpy numbers become Python numbers, anything
    else its text), so that the file can always be read back."""
    plain = {}
    for key, value in dict(meta).items():
        if not isinstance(value, _PLAIN_METADATA):
            value = int(value) if isinstance(value, Integral) else \
                float(value) if isinstance(value, Real) else str(value)
        plain[str(key)] = value
    return plain


def _meta_problem(meta) -> str | None:
    """Meta must be a dict of names to plain values, and an episode count must be a count."""
    if not isinstance(meta, dict):
        return f"meta must be a dict, got a {type(meta).__name__}"
    for key, value in meta.items():
        if not isinstance(key, str) or not isinstance(value, _PLAIN_METADATA):
            return f"meta entry {_short(key)} is not a name with a plain value"
    done = meta.get("episodes_done")
    if done is not None and (isinstance(done, bool) or not isinstance(done, int) or done < 0):
        return f"meta episodes_done {_short(done)} is not a count of episodes"
    return None


def _short(thing) -> str:
    text = repr(thing)
    return text if len(text) <= 60 else text[:57] + "..."
