"""Q-table files: written atomically in torch.save's format, read back as plain data only.

A file holds one dict::

    {"format": "tictactoe-q-table", "version": 1, "side": 1 or -1,
     "meta": {"algorithm": ..., "epochs": ..., "episodes_done": ..., ...},
     "Q": {(State, (row, col)): float}}

The course's original files (a bare ``{(State, action): float}`` dict) load too; side from states.

Saving writes exactly the bytes ``torch.save`` would (``tictactoe_rl.tables.torch_format``, without importing
torch), so the bytes depend on the table alone. Loading never runs code from the file:
``tictactoe_rl.tables.guard`` checks the archive and walks the pickle's instructions first (only the names a
table needs, a table's shape, every size bounded), then ``tictactoe_rl.tables.course_files`` rebuilds it from
small checked stand-ins, and every entry is checked here: a position of a game still going, one
of its empty cells, a finite value, one side for the whole table. Anything wrong is one
``TableError`` naming the file, the problem and what to do.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, MutableMapping

from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from State import State, symbol
from tictactoe_rl.tables import (board_files, course_files, destinations, guard, opcodes,
                                 shipped)
from tictactoe_rl.tables.checks import (as_action, clip, entry_problem, key_problem, meta_problem,
                                        plain_meta, short, side_problem)
from tictactoe_rl.tables.torch_format import torch_save_bytes

FORMAT_NAME = "tictactoe-q-table"
FORMAT_VERSION = 1
MAX_FILE_BYTES = guard.MAX_FILE_BYTES

QTable = MutableMapping  # {(State, (row, col)): float}: a dict, or a loaded BoardTable

# How the pickles of a table begin: ours (a dict whose first entry is the format name) and the
# course's (a dict whose first key holds a State).
_OUR_START = b"X\x06\x00\x00\x00formatq\x01X\x11\x00\x00\x00" + FORMAT_NAME.encode()
_COURSE_START = b"\x80\x02}q\x00(cState\nState\n"


class TableError(ValueError):
    """A Q-table file that cannot be used; the message says which file, what is wrong and what
    to do."""


class NotSaved(TableError):
    """A table that could not be saved where asked; ``fallback`` is where it was kept instead
    (``None`` if nowhere)."""

    def __init__(self, message: str, fallback: str | None) -> None:
        super().__init__(message)
        self.fallback = fallback


# --- saving ------------------------------------------------------------------------------------

def save_table(path: str, Q: QTable, side: int, meta: dict | None = None) -> bytes:
    """Write ``Q`` for ``side`` (1 X, -1 O) with its training ``meta`` to ``path`` atomically.

    The table is checked first (a ``ValueError`` and nothing written if an entry could not be
    loaded back); ``meta`` is a record for people, so values other than text, numbers, booleans
    and ``None`` are stored as their text. A ``TableError`` if ``path`` can never hold a file
    (see ``check_writable``). The bytes go to a temporary file in the same folder (its missing
    folders are created), are flushed to disk, and only then replace ``path``: a crash or a full
    disk mid-save (``OSError``) leaves the previous file as it was and no temporary file behind;
    temporary files that killed saves left in the folder are removed. Returns the bytes written.
    """
    path = os.fspath(path)
    meta = plain_meta(meta or {})
    problem = side_problem(side) or meta_problem(meta)
    entries = {}
    for key, value in ([] if problem else dict(Q).items()):
        problem = key_problem(key, State) or entry_problem(key[0], key[1], value, side)
        if problem:
            break
        entries[(key[0], as_action(key[1]))] = float(value)
    if problem:
        raise ValueError(f"not saving {path}: {problem}")
    return _write_checked(path, torch_save_bytes({
        "format": sys.intern(FORMAT_NAME), "version": FORMAT_VERSION, "side": int(side),
        "meta": meta, "Q": entries}))


def save_board_table(path: str, Q: QTable, side: int, meta: dict | None,
                     board: BoardShape) -> bytes:
    """``save_table`` for a table of a bigger ``board``, in its format (``tictactoe_rl.tables.board_files``)."""
    path = os.fspath(path)
    meta = plain_meta(meta or {})
    problem = side_problem(side) or meta_problem(meta)
    try:
        data = None if problem else board_files.encode(board, Q, int(side), meta)
    except ValueError as error:    # an entry that loading would refuse
        problem = str(error)
    if problem:
        raise ValueError(f"not saving {path}: {problem}")
    return _write_checked(path, data)


def _write_checked(path: str, data: bytes) -> bytes:
    problem = destinations.target_problem(path)
    if problem:
        raise TableError(f"{path}: {problem}")
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    destinations.remove_orphans(folder)
    write_atomically(path, folder, data)
    return data


def write_atomically(path: str, folder: str, data: bytes) -> None:
    temporary = destinations.temporary_path(folder)
    try:
        # The usual permissions for a new file (0o666 less the umask), unlike tempfile's 0o600.
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        handle = os.open(temporary, flags, 0o666)
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        raise
    with contextlib.suppress(OSError):  # flush the folder entry too, so the new name survives a
        handle = os.open(folder, os.O_RDONLY)   # power cut (where the system supports it)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def save_or_keep(path: str, Q: QTable, side: int, meta: dict | None = None,
                 board: BoardShape = TIC_TAC_TOE) -> str:
    """``save_table``, and if writing at ``path`` fails (a full disk, a folder gone, no
    permission), keep the table in a fallback file instead -- beside ``path``, else in the
    temporary folder -- and raise ``NotSaved``, whose one line names that file. Returns ``path``.

    A table that is itself invalid is still a ``ValueError`` (it could not be kept either).
    """
    if board == TIC_TAC_TOE:
        return keep_safely(os.fspath(path), side, lambda where: save_table(where, Q, side, meta))
    return keep_safely(os.fspath(path), side,
                       lambda where: save_board_table(where, Q, side, meta, board))


def keep_safely(path: str, side: int, save: Callable[[str], None],
                kind: destinations.Kind = destinations.TABLE) -> str:
    """``save(path)``; if that fails with an ``OSError`` or a ``TableError``, ``save`` into a
    fallback file of ``kind`` for ``side`` (``destinations.fallback_paths``) and raise
    ``NotSaved`` naming it. Returns ``path``. Tables and networks are kept alike."""
    try:
        save(path)
        return path
    except (OSError, TableError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else \
            str(error).removeprefix(f"{path}: ")
    for fallback in destinations.fallback_paths(path, side, kind):
        try:
            save(fallback)
        except (OSError, TableError):
            continue
        raise NotSaved(f"{path}: could not save the {kind.holds} ({clip(reason)}); kept it in "
                       f"{fallback} instead -- move it into place, or go on training with "
                       f"--resume {fallback}", fallback)
    raise NotSaved(f"{path}: could not save the {kind.holds} ({clip(reason)}), nor keep it "
                   "anywhere else; free some disk space and train again", None)


def check_writable(path: str, force: bool = False) -> None:
    """Raise ``TableError`` unless a table can be saved at ``path``; call it before training, so a
    mistyped ``--out`` is reported at once instead of after the work is done.

    Refused: a name ending in a slash, a name over 255 bytes, a name not ending in ``.pth``, a
    folder, a device, pipe or socket (never replaced), an existing file that is not a Q-table
    (unless ``force``), a missing folder outside the repository and the current folder (missing
    folders inside them are created), a folder where no file can be created.
    """
    path = os.fspath(path)
    problem = destinations.destination_problem(path, is_table_file, force)
    if problem:
        raise TableError(f"{path}: {problem}")


def is_table_file(path: str) -> bool:
    """Whether ``path`` was written as a Q-table (ours or the course's): a quick look at how its
    pickle begins, not a full check."""
    if board_files.is_board_file(path):
        return True
    try:
        pickled = guard.archive_pickle(_file_bytes(path))
    except ValueError:   # an unreadable file (TableError) or not a torch.save archive
        return False
    return _OUR_START in pickled[:64] or pickled.startswith(_COURSE_START)


# --- loading -----------------------------------------------------------------------------------

def load_table(path: str, side: int | None = None,
               board: BoardShape = TIC_TAC_TOE) -> tuple[QTable, int, dict]:
    """Read a table file of ``board``: ``(Q, side, meta)``, ``Q`` a dict (a lazy ``BoardTable`` off
    3x3). ``TableError`` for any unusable file: another board's, another ``side``'s if given."""
    sys.audit("tictactoe_rl.tables.load", os.fspath(path))   # even a missing file: the check watches
    path = shipped.resolve(os.fspath(path))
    try:
        if board_files.is_board_file(path):
            board_files.notice_if_large(path)
            data = read_bounded(path, board_files.MAX_FILE_BYTES, TableError, "a Q-table",
                                "give the path of a table its trainer saved")
            try:
                return board_files.decode(data, board, side)[:3]
            except ValueError as error:
                raise TableError(f"{path}: {error}") from None
        if board != TIC_TAC_TOE:
            _file_bytes(path)    # a missing, empty or unreadable file: what is wrong with it
            what = "is a table for the 3x3 k=3 board" if is_table_file(path) else \
                "is not a Q-table"
            raise TableError(f"{path}: {what}, not for {board.name}; train one with --board "
                             f"{board.rows}x{board.cols} --k {board.k}")
        return _checked(path, _read(path), side)
    except TableError:
        raise
    except Exception as error:  # a value no check foresaw: still one line about the file
        raise _unreadable(path, f"{type(error).__name__}: {clip(str(error))}") from None


def _checked(path: str, payload, side: int | None) -> tuple[QTable, int, dict]:
    """``load_table``'s result from the object the file holds, or a ``TableError``."""
    if isinstance(payload, dict) and payload.get("format") == FORMAT_NAME:
        if payload.get("version") != FORMAT_VERSION:
            raise TableError(f"{path}: table format version {short(payload.get('version'))} is "
                             f"not supported (this code reads version {FORMAT_VERSION}); "
                             "retrain it")
        raw_q, file_side, meta = payload.get("Q"), payload.get("side"), payload.get("meta")
        if type(raw_q) is not dict or side_problem(file_side) or type(meta) is not dict:
            raise TableError(f"{path}: damaged table (its Q, side or meta is missing or wrong); "
                             "retrain it")
        problem = meta_problem(meta)
        if problem:
            raise TableError(f"{path}: damaged table ({problem}); retrain it")
    elif isinstance(payload, dict):
        raw_q, file_side, meta = payload, None, {"algorithm": "course original"}
    else:
        raise TableError(f"{path}: holds a {type(payload).__name__}, not a Q-table dict; "
                         "use a file saved by AI_Agent.save_Q")
    Q, states_side = _clean(path, raw_q)
    if not Q:    # whatever side its header names: there is nothing to play with
        raise TableError(f"{path}: empty Q-table (no state-action values); train one first, or "
                         "use a table saved by AI_Agent.save_Q")
    if file_side is None:
        file_side = states_side
    elif states_side != file_side:
        raise TableError(f"{path}: says it plays {symbol(file_side)} but its positions are "
                         f"{symbol(states_side)} to move; retrain it")
    if side is not None and file_side != side:
        raise TableError(f"{path}: is a table for {symbol(file_side)}, not for {symbol(side)}; "
                         f"use a table made for {symbol(side)} (e.g. Data/Q_MC_{symbol(side)}.pth)")
    return Q, file_side, meta


def _read(path: str):
    """The object a table file holds, checked (``tictactoe_rl.tables.guard``) and rebuilt from stand-ins."""
    data = _file_bytes(path)
    try:
        return course_files.rebuild(guard.table_pickle(data))
    except opcodes.Refused as refusal:
        name = guard.python3_name(str(refusal))
        if name.startswith("torch."):
            raise TableError(f"{path}: holds torch tensors ({clip(name)}), not a Q-table; use "
                             "a file saved by AI_Agent.save_Q") from None
        raise TableError(f"{path}: refused to load: it asks for {clip(name)}, which no Q-table "
                         "holds (loading never runs code from a file); use a table saved by "
                         "AI_Agent.save_Q") from None
    except (opcodes.Unlike, course_files.Unusual) as error:
        raise TableError(f"{path}: not a Q-table: it holds {error}; use a table saved by "
                         "AI_Agent.save_Q") from None
    except opcodes.Unreadable as error:
        raise _unreadable(path, str(error)) from None
    except Exception as error:  # any failure to rebuild untrusted bytes (MemoryError too)
        raise _unreadable(path, f"{type(error).__name__}: {clip(str(error))}") from None


def _file_bytes(path: str) -> bytes:
    return read_bounded(path, MAX_FILE_BYTES, TableError, "a Q-table",
                        "give the path of a table saved by AI_Agent.save_Q (a .pth file), or "
                        "train one (python MC_Trainer.py, with --side O for O)")


def read_bounded(path: str, limit: int, error: type[ValueError], kind: str, hint: str) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them. A path that is missing,
    a folder, a device or pipe, larger than ``limit``, unreadable or empty raises ``error`` in one
    line: the path, what is wrong, then ``hint`` (what to give instead). ``kind`` says what the
    file should be ("a Q-table")."""
    if os.path.isdir(path):
        raise error(f"{path}: is a folder, not {kind} file; {hint}")
    if os.path.exists(path) and not os.path.isfile(path):
        raise error(f"{path}: is not a regular file (a device or a pipe?); {hint}")
    try:
        size = os.path.getsize(path)
        if size > limit:
            raise error(f"{path}: {size:,} bytes is far too large for {kind} (at most {limit:,}); "
                        f"{hint}")
        with open(path, "rb") as stream:
            data = stream.read(size + 1)   # not read(limit): that sets the limit's bytes aside
            if len(data) > size:           # it has grown since its size was read
                data += stream.read(limit + 1 - len(data))
    except FileNotFoundError:
        raise error(f"{path}: no such file; check the path, or {hint}") from None
    except OSError as error_of_os:
        raise error(f"{path}: cannot be read ({error_of_os.strerror or error_of_os}); check the "
                    "file and its permissions") from None
    if not data:
        raise error(f"{path}: the file is empty (0 bytes), e.g. from an interrupted copy; copy it "
                    "again or make it anew")
    if len(data) > limit:
        raise error(f"{path}: grew past {limit:,} bytes while it was read; {hint}")
    return data


def _unreadable(path: str, what: str) -> TableError:
    return TableError(f"{path}: not a readable Q-table file ({what}); it may be cut short or "
                      "not a torch.save file -- copy it again or retrain it")


def _clean(path: str, raw_q: dict) -> tuple[QTable, int | None]:
    """Check every entry and return the table with shared ``State`` keys and int actions."""
    Q: QTable = {}
    side = None
    for key, value in raw_q.items():
        problem = key_problem(key, course_files.StoredState)
        if problem:
            raise TableError(f"{path}: not a Tic-Tac-Toe Q-table: {problem} (another game's "
                             "table?); use a table saved by AI_Agent.save_Q")
        try:
            state = course_files.position(key[0])
        except ValueError as error:
            raise TableError(f"{path}: not a Tic-Tac-Toe position: {error} (another game's "
                             "table?); use a table saved by AI_Agent.save_Q") from None
        side = state.player if side is None else side
        problem = entry_problem(state, key[1], value, side)
        if problem:
            raise TableError(f"{path}: damaged or not a Tic-Tac-Toe table: {problem}; retrain it")
        Q[(state, as_action(key[1]))] = float(value)
    return Q, side
