"""Rebuilding a checked table pickle from stand-ins: our files and the course's original ones.

A pickle names the functions and classes it wants called to rebuild its objects. Our files name
one, ``State.State``, called with a position's nine cells and the side to move. The course's
files name ``State.State`` too (an object whose ``board`` is a 3x3 numpy array of floats) and the
numpy pieces that rebuild a board or an integer, plus ``_codecs.encode`` (protocol 2 writes
bytes as latin-1 text). ``rebuild`` maps each such name to a small stand-in of ours, never to
numpy or to the real ``State``: numpy's own pickle hooks would let crafted bytes set the internal
flags of a dtype (and so make numpy treat numbers as object pointers), and a real ``State`` is
shared by the whole program. The stand-ins accept only what a board or an integer needs, decode
numbers with ``struct``, and raise ``Unusual`` for anything else; ``position`` turns a stored
state into the real, checked ``State``.

``tictactoe_rl.tables.guard`` has already walked the pickle (only these names, a table's shape, every size
bounded) before ``rebuild`` runs it.
"""

from __future__ import annotations

import io
import math
import pickle
import struct
import sys

from State import EMPTY, O, X, State

# Room for other games' boards too (Connect Four has 42 cells), so that their tables are named as
# such rather than refused as odd arrays; nothing a file describes gets larger than this.
MAX_ARRAY_CELLS = 64
# numpy dtype code -> struct format letter, for the plain number types a board or an index can have.
_NUMBER_DTYPES = {"f2": "e", "f4": "f", "f8": "d", "i1": "b", "i2": "h", "i4": "i", "i8": "q",
                  "u1": "B", "u2": "H", "u4": "I", "u8": "Q"}
_BYTE_ORDERS = {"<": "<", ">": ">", "=": "<" if sys.byteorder == "little" else ">", "|": "<"}


class Unusual(ValueError):
    """A piece of a file that no table has; the text says what it is."""


class StoredState:
    """A position as a file describes it, before it is checked and turned into a ``State``.

    Our files build it as ``State(cells, player)``; the course's build an empty one (NEWOBJ) and
    then give it a dict with a board and a player (BUILD). One built empty and never given its
    state keeps the defaults below and is refused by ``position``.
    """

    board = None
    player = None

    def __init__(self, board=None, player=None) -> None:
        self.board, self.player = board, player

    def __setstate__(self, data) -> None:
        if not isinstance(data, dict):
            raise Unusual("a State whose stored data is not a dict")
        self.board, self.player = data.get("board"), data.get("player")


def position(stored: StoredState) -> State:
    """The shared ``State`` a stored one describes; ``ValueError`` saying why if none."""
    board = stored.board.cells if isinstance(stored.board, StoredArray) else stored.board
    if board is None or stored.player is None:
        raise ValueError("a State without its board or player")
    if type(board) is not tuple or not all(type(cell) in (int, float) for cell in board):
        raise ValueError(f"the board is a {type(board).__name__}, not a tuple of numbers")
    if len(board) != 9:
        raise ValueError(f"board must be 3x3 or 9 cells, got {len(board)} values")
    if type(stored.player) is not int or stored.player not in (X, O):
        raise ValueError(f"player must be 1 (X) or -1 (O), got {stored.player!r}")
    for cell in board:
        if cell not in (X, O, EMPTY):   # the check State(board, player) makes, on plain numbers
            raise ValueError(f"board cells must be 1 (X), -1 (O) or 0 (empty), got {cell!r}")
    return State.from_valid_cells(tuple(int(cell) for cell in board), stored.player)


class _StoredDtype:
    """numpy's ``dtype(code)`` as a file describes it: a plain number type and a byte order."""

    __slots__ = ("letter", "order")

    def __init__(self, code: str) -> None:
        self.letter, self.order = _NUMBER_DTYPES[code], _BYTE_ORDERS["="]

    def __setstate__(self, state) -> None:
        order = state[1] if isinstance(state, tuple) and len(state) > 1 else None
        if not isinstance(order, str) or order not in _BYTE_ORDERS:
            raise Unusual("a numpy dtype with unusual settings")
        self.order = _BYTE_ORDERS[order]

    def unpack(self, raw: bytes, count: int) -> tuple:
        """``count`` numbers from ``raw`` (which must hold exactly that many) as Python numbers."""
        if len(raw) != count * struct.calcsize(self.letter):
            raise Unusual("a numpy array whose data does not match its shape")
        return struct.unpack(f"{self.order}{count}{self.letter}", raw)


class StoredArray:
    """numpy's array as a file describes it: a few plain numbers, kept as the row-major tuple
    ``cells`` (a ``State`` takes a flat board)."""

    __slots__ = ("cells",)

    def __init__(self) -> None:
        self.cells = None

    def __setstate__(self, state) -> None:
        if not (isinstance(state, tuple) and len(state) == 5):
            raise Unusual("a numpy array with unusual settings")
        _, shape, dtype, fortran, raw = state
        if not (isinstance(dtype, _StoredDtype) and isinstance(raw, bytes)
                and isinstance(shape, tuple) and len(shape) <= 2
                and all(type(n) is int and 0 <= n <= MAX_ARRAY_CELLS for n in shape)
                and math.prod(shape) <= MAX_ARRAY_CELLS):
            raise Unusual("a numpy array that is not a small array of numbers")
        numbers = dtype.unpack(raw, math.prod(shape))
        if fortran and len(shape) == 2:  # stored column by column: read it back row by row
            rows, cols = shape
            numbers = tuple(numbers[r + c * rows] for r in range(rows) for c in range(cols))
        self.cells = numbers


class _Global:
    """What a file gets for an allowed name: calling it runs a checked builder; it has no
    attributes a pickle could set."""

    __slots__ = ("_name", "_build")

    def __init__(self, name: str, build=None) -> None:
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_build", build)

    def __setattr__(self, attribute, value):
        raise Unusual(f"a change to {self._name}")

    def __call__(self, *args):
        if self._build is None:
            raise Unusual(f"a call of {self._name}")
        return self._build(*args)


_NDARRAY = _Global("numpy.ndarray")  # only passed to _reconstruct, never called


def _empty_array(cls, shape=None, typecode=None) -> StoredArray:
    """numpy's ``_reconstruct``: an empty array that the pickle then fills with its bytes."""
    if cls is not _NDARRAY:
        raise Unusual("an array of an unexpected class")
    return StoredArray()


def _number_dtype(code, align=False, copy=True) -> _StoredDtype:
    """numpy's ``dtype``, for plain numbers only."""
    if not isinstance(code, str) or code not in _NUMBER_DTYPES:
        raise Unusual("a numpy dtype other than a plain number type")
    return _StoredDtype(code)


def _number_scalar(dtype, data):
    """numpy's ``scalar``: one number from its bytes, as a Python int or float."""
    if not isinstance(dtype, _StoredDtype) or not isinstance(data, bytes):
        raise Unusual("a numpy scalar that is not a plain number")
    return dtype.unpack(data, 1)[0]


def _latin1_bytes(text, encoding="latin1") -> bytes:
    """``_codecs.encode``, as protocol 2 writes bytes: latin-1 text only (other codecs would
    look up, and so import, codec modules)."""
    if type(text) is not str or encoding not in ("latin1", "latin-1"):
        raise Unusual("text encoded other than as latin-1 bytes")
    return text.encode("latin1")


_STAND_INS = {("State", "State"): StoredState, ("numpy", "ndarray"): _NDARRAY,
              ("numpy", "dtype"): _Global("numpy.dtype", _number_dtype),
              ("_codecs", "encode"): _Global("_codecs.encode", _latin1_bytes)}
for _module in ("numpy.core.multiarray", "numpy._core.multiarray"):  # numpy 1.x and 2.x names
    _STAND_INS[(_module, "_reconstruct")] = _Global(f"{_module}._reconstruct", _empty_array)
    _STAND_INS[(_module, "scalar")] = _Global(f"{_module}.scalar", _number_scalar)

NAMES = frozenset(_STAND_INS)    # every (module, name) a table's pickle may ask for
CLASSES = frozenset(f"{module}.{name}" for (module, name), stand_in in _STAND_INS.items()
                    if isinstance(stand_in, type))    # those that NEWOBJ may make an object of


class _Unpickler(pickle.Unpickler):
    """The C unpickler, with each allowed name mapped to its stand-in and every other refused."""

    def find_class(self, module: str, name: str):
        try:
            return _STAND_INS[(module, name)]
        except KeyError:
            raise Unusual(f"the name {module}.{name}") from None


def rebuild(pickled: bytes):
    """The object a (checked) pickle describes, built from stand-ins."""
    return _Unpickler(io.BytesIO(pickled)).load()
