"""The board of an m,n,k-game -- ``rows`` x ``cols`` cells, won by ``k`` in a row -- and its
positions.

``BoardShape(3, 3, 3)`` is Tic-Tac-Toe. A shape is immutable and holds everything the rules, the
exact tools, the network and the window need to know about the board:

- its cells ``(row, col)`` in row-major order, and the flat index of each (``index``/``cell``);
- its win lines (every run of ``k`` cells in a row, a column or a diagonal), as flat indices and
  as bit masks;
- its symmetries: the eight turns and mirrors of a square board, four (identity, two mirrors,
  half turn) of any other;
- a compact position: two bitboards, ``(x_bits, o_bits)``, bit ``i`` standing for flat cell ``i``.

``BoardShape.parse("4x4", None)`` reads the command line's ``--board ROWSxCOLS`` and ``--k K``
(``k`` defaults to the shorter side); bad text is a one-line ``ValueError``.

Positions: 3x3 k=3 keeps the course's ``State``; every other board has ``BoardState`` s, a
``State`` that carries its ``shape`` -- immutable, one shared object per position, the same
methods -- so everything written against ``State`` (the agents, the episodes, the tables) plays
on them unchanged. ``start_position(shape)`` is the empty board, ``shape_of(state)`` the board of
any position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from State import ALL_CELLS, DRAW, EMPTY, O, O_WON, ONGOING, X, X_WON, Live_State, State, position_of

if TYPE_CHECKING:
    import numpy as np

MIN_SIDE, MAX_SIDE = 1, 5

Cell = tuple[int, int]
Permutation = tuple[int, ...]  # position i says where cell i goes
Position = tuple[int, int]     # (x_bits, o_bits)

# ASCII digits only: str.isdigit and int() also accept other scripts' digits, which no board has.
# One tuple object per cell of the largest board, shared by every shape: an action a position
# handed out is one of these very objects, which lets the rules skip checking its form.
# (3x3's are the course's ``State.ALL_CELLS``.)
SHARED_CELLS: dict[Cell, Cell] = {
    (row, col): ALL_CELLS[row * 3 + col] if row < 3 and col < 3 else (row, col)
    for row in range(MAX_SIDE) for col in range(MAX_SIDE)}

_BOARD_TEXT = re.compile(r"([0-9]{1,2})[xX]([0-9]{1,2})", re.ASCII)
_K_TEXT = re.compile(r"[0-9]{1,2}", re.ASCII)


@dataclass(frozen=True)
class BoardShape:
    """An m,n,k board: ``rows`` x ``cols`` cells (1 to 5 each), won by ``k`` marks in a row
    (1 to the longer side). A ``ValueError`` of one line if any of them is out of range."""

    rows: int = 3
    cols: int = 3
    k: int = 3
    _derived: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("rows", "cols", "k"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{name} must be a whole number, got {value!r}")
        for name, word in (("rows", "rows"), ("cols", "columns")):
            if not MIN_SIDE <= getattr(self, name) <= MAX_SIDE:
                raise ValueError(f"a board has {MIN_SIDE} to {MAX_SIDE} {word}, "
                                 f"got {getattr(self, name)}")
        if not 1 <= self.k <= max(self.rows, self.cols):
            raise ValueError(f"k must be between 1 and {max(self.rows, self.cols)} on a "
                             f"{self.rows}x{self.cols} board (a longer line never fits), "
                             f"got {self.k}")

    # --- reading the command line --------------------------------------------------------------

    @classmethod
    def parse(cls, board: str = "3x3", k: str | None = None) -> "BoardShape":
        """The shape of ``--board ROWSxCOLS`` (e.g. ``"4x4"``) and ``--k K`` (``None``: the
        shorter side). A one-line ``ValueError`` for text that is not such a board."""
        match = _BOARD_TEXT.fullmatch(board)
        if match is None:
            raise ValueError(f"--board must be ROWSxCOLS such as 4x4, got {board!r}")
        rows, cols = int(match[1]), int(match[2])
        if k is None:
            return cls(rows, cols, min(rows, cols))
        if _K_TEXT.fullmatch(k) is None:
            raise ValueError(f"--k must be a whole number such as 4, got {k!r}")
        return cls(rows, cols, int(k))

    @property
    def name(self) -> str:
        """``"4x4 k=4"``: how messages and file names show the board."""
        return f"{self.rows}x{self.cols} k={self.k}"

    # --- cells and actions ---------------------------------------------------------------------

    @property
    def size(self) -> int:
        """The number of cells."""
        return self.rows * self.cols

    @property
    def cells(self) -> tuple[Cell, ...]:
        """Every cell ``(row, col)`` in row-major order: the actions of the empty board."""
        return self._cached("cells", lambda: tuple(
            SHARED_CELLS[row, col] for row in range(self.rows) for col in range(self.cols)))

    def index(self, row: int, col: int) -> int:
        """The flat index of cell ``(row, col)``; a ``ValueError`` for a cell off the board."""
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise ValueError(f"cell {(row, col)!r} is off the {self.rows}x{self.cols} board")
        return row * self.cols + col

    def cell(self, index: int) -> Cell:
        """The cell ``(row, col)`` of flat ``index``."""
        if not 0 <= index < self.size:
            raise ValueError(f"index {index} is off the {self.rows}x{self.cols} board")
        return divmod(index, self.cols)

    # --- win lines -----------------------------------------------------------------------------

    @property
    def win_lines(self) -> tuple[tuple[int, ...], ...]:
        """Every run of ``k`` cells, as flat indices: rows (top to bottom, then left to right),
        columns (left to right, then top to bottom), diagonals going down to the right, then
        those going down to the left, each listed from its top end. On 3x3 this is the course's
        scanning order (``State.WIN_LINES``)."""
        return self._cached("win_lines", self._find_lines)

    def _find_lines(self) -> tuple[tuple[int, ...], ...]:
        k, lines = self.k, []
        for row_step, col_step in ((0, 1), (1, 0), (1, 1), (1, -1)):
            starts = [(r, c) for r in range(self.rows) for c in range(self.cols)]
            if (row_step, col_step) == (1, 0):  # columns are read left to right
                starts.sort(key=lambda cell: (cell[1], cell[0]))
            for row, col in starts:
                end_row, end_col = row + row_step * (k - 1), col + col_step * (k - 1)
                if 0 <= end_row < self.rows and 0 <= end_col < self.cols:
                    lines.append(tuple((row + row_step * i) * self.cols + col + col_step * i
                                       for i in range(k)))
        return tuple(dict.fromkeys(lines))  # k = 1: a cell is its own line once, not four times

    @property
    def line_masks(self) -> tuple[int, ...]:
        """The win lines as bit masks (bit ``i`` = flat cell ``i``), in ``win_lines`` order."""
        return self._cached("line_masks", lambda: tuple(
            sum(1 << cell for cell in line) for line in self.win_lines))

    # --- symmetries ----------------------------------------------------------------------------

    @property
    def symmetries(self) -> tuple[Permutation, ...]:
        """The board's symmetries as permutations of flat indices (position ``i`` says where cell
        ``i`` goes), the identity first. A square board: the four quarter turns (clockwise), then
        each after a left-right mirror, in ``exact.symmetry.TRANSFORMS`` order. Any other: the
        identity, the left-right mirror, the top-bottom mirror and the half turn. Copies are left
        out (one row or column has two symmetries, a single cell one)."""
        return self._cached("symmetries", self._find_symmetries)

    def _find_symmetries(self) -> tuple[Permutation, ...]:
        rows, cols = self.rows, self.cols
        if rows != cols:
            maps = [lambda r, c: (r, c), lambda r, c: (r, cols - 1 - c),
                    lambda r, c: (rows - 1 - r, c), lambda r, c: (rows - 1 - r, cols - 1 - c)]
            found = [tuple(self.index(*move(r, c)) for r, c in self.cells) for move in maps]
            return tuple(dict.fromkeys(found))  # one row or column: its mirrors coincide
        found = []
        for mirrored in (False, True):
            for quarter_turns in range(4):
                image = []
                for r, c in self.cells:
                    if mirrored:
                        c = cols - 1 - c
                    for _ in range(quarter_turns):  # clockwise: (r, c) -> (c, n - 1 - r)
                        r, c = c, rows - 1 - r
                    image.append(self.index(r, c))
                found.append(tuple(image))
        return tuple(dict.fromkeys(found))  # 1x1: all eight are one

    # --- positions as bitboards ----------------------------------------------------------------

    def encode(self, cells) -> Position:
        """``(x_bits, o_bits)`` of a flat sequence of ``size`` cells holding 1 (X), -1 (O) or 0;
        a ``ValueError`` for any other length or value."""
        cells = tuple(cells)
        if len(cells) != self.size:
            raise ValueError(f"a {self.rows}x{self.cols} board has {self.size} cells, "
                             f"got {len(cells)}")
        x_bits = o_bits = 0
        for i, value in enumerate(cells):
            if isinstance(value, bool) or value not in (X, O, EMPTY):
                raise ValueError(f"cells hold 1 (X), -1 (O) or 0 (empty), got {value!r}")
            if value == X:
                x_bits |= 1 << i
            elif value == O:
                o_bits |= 1 << i
        return x_bits, o_bits

    def decode(self, position: Position) -> tuple[int, ...]:
        """The flat cells (1, -1, 0) of ``(x_bits, o_bits)``."""
        x_bits, o_bits = position
        return tuple(X if x_bits >> i & 1 else O if o_bits >> i & 1 else EMPTY
                     for i in range(self.size))

    def has_line(self, bits: int) -> bool:
        """Whether the marks ``bits`` fill a whole win line."""
        return any(bits & mask == mask for mask in self.line_masks)

    def _cached(self, name: str, compute):
        # Derived tuples are worked out once per shape; the dataclass stays frozen for its fields.
        found = self._derived.get(name)
        if found is None:
            found = self._derived[name] = compute()
        return found


TIC_TAC_TOE = BoardShape(3, 3, 3)


_INTERNED: dict[tuple[BoardShape, tuple[int, ...], int], "BoardState"] = {}


class BoardState(State):
    """An immutable position of ``shape`` (any board but 3x3 k=3): ``BoardState(shape, board=None,
    player=1)``, where ``board`` is a rows x cols array, a nested or a flat sequence of 1 (X),
    -1 (O) and 0 (empty). A ``ValueError`` of one line for anything else."""

    __slots__ = ("shape",)

    def __new__(cls, shape: BoardShape, board=None, player: int = X) -> "BoardState":
        if player not in (X, O) or isinstance(player, bool):
            raise ValueError(f"player must be 1 (X) or -1 (O), got {player!r}")
        if board is None:
            cells = (EMPTY,) * shape.size
        else:
            import numpy as np   # only a board given as an array needs it
            try:
                values = np.asarray(board, dtype=object).reshape(-1).tolist()
            except (TypeError, ValueError):
                raise ValueError(f"board must be {shape.rows}x{shape.cols} cells") from None
            cells = shape.decode(shape.encode(values))   # encode checks the length and values
        return intern(shape, cells, int(player))

    def _fill_shape(self, shape: BoardShape, cells: tuple[int, ...], player: int) -> None:
        setter = object.__setattr__
        setter(self, "shape", shape)
        for name, value in (("cells", cells), ("player", player), ("_board", None),
                            ("_legal", None), ("_children", None), ("_q_keys", None)):
            setter(self, name, value)
        setter(self, "end_of_game", result_of(shape, cells))

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        if not isinstance(other, State):
            return NotImplemented
        return (self.shape == other.shape and self.cells == other.cells
                and self.player == other.player)

    __hash__ = State.__hash__   # each position is one object (see State)

    def __reduce__(self):
        return (BoardState, (self.shape, self.cells, self.player))

    def reset(self) -> State:
        """The empty board of this shape (a position never changes; see ``State.reset``)."""
        return start_position(self.shape)

    @property
    def board(self) -> np.ndarray:
        if self._board is None:
            import numpy as np
            array = np.frombuffer(np.array(self.cells, dtype=np.int64).tobytes(),
                                  dtype=np.int64).reshape(self.shape.rows, self.shape.cols)
            object.__setattr__(self, "_board", array)
        return self._board

    def legal_actions(self) -> tuple[tuple[int, int], ...]:
        if self._legal is None:
            cells = self.shape.cells
            legal = () if self.end_of_game else tuple(
                cells[i] for i, value in enumerate(self.cells) if value == EMPTY)
            object.__setattr__(self, "_legal", legal)
        return self._legal

    def children(self) -> dict[tuple[int, int], "BoardState"]:
        if self._children is None:
            shape, kids = self.shape, {}
            for action in self.legal_actions():
                cells = list(self.cells)
                cells[action[0] * shape.cols + action[1]] = self.player
                kids[action] = intern(shape, tuple(cells), -self.player)
            object.__setattr__(self, "_children", kids)
        return self._children

    def __repr__(self) -> str:
        return f"BoardState({self.shape.name}, {list(self.cells)}, player={self.player})"

    def __str__(self) -> str:
        symbols, cols = {X: "X", O: "O", EMPTY: "."}, self.shape.cols
        return "\n".join(" ".join(symbols[v] for v in self.cells[r * cols:(r + 1) * cols])
                         for r in range(self.shape.rows))


def result_of(shape: BoardShape, cells: tuple[int, ...]) -> int:
    """The result code of ``cells`` on ``shape``: a line of ``k`` wins, a full board draws."""
    for line in shape.win_lines:
        first = cells[line[0]]
        if first != EMPTY and all(cells[i] == first for i in line):
            return X_WON if first == X else O_WON
    return DRAW if EMPTY not in cells else ONGOING


def intern(shape: BoardShape, cells: tuple[int, ...], player: int) -> BoardState:
    """The one shared ``BoardState`` of these (already valid) cells and side to move."""
    key = (shape, cells, player)
    state = _INTERNED.get(key)
    if state is None:
        state = object.__new__(BoardState)
        state._fill_shape(shape, cells, player)
        _INTERNED[key] = state
    return state


def start_position(shape: BoardShape = TIC_TAC_TOE) -> State:
    """The empty board of ``shape``, X to move: the course's ``State()`` on 3x3 k=3."""
    if shape is TIC_TAC_TOE or shape == TIC_TAC_TOE:   # "is": the common case, without a compare
        return State()
    return intern(shape, (EMPTY,) * shape.size, X)


def shape_of(state: State | Live_State) -> BoardShape:
    """The board of ``state`` (a position or the live game): 3x3 k=3 for the course's ``State``."""
    position = position_of(state)
    return position.shape if isinstance(position, BoardState) else TIC_TAC_TOE
