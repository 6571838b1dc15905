"""The board of an m,n,k-game: ``rows`` x ``cols`` cells, won by ``k`` in a row.

``BoardShape(3, 3, 3)`` is Tic-Tac-Toe. A shape is immutable and holds what the rules, the exact
tools, the network and the window need to know: its cells ``(row, col)`` row-major and their flat
indices, its win lines (every run of ``k`` in a row, column or diagonal) as indices and bit masks,
its symmetries (eight on a square board, four on another), and a compact position as two
bitboards ``(x_bits, o_bits)``. ``BoardShape.parse("4x4", None)`` reads ``--board`` and ``--k``.

Its positions are in ``tictactoe_rl/positions.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

X, O, EMPTY = 1, -1, 0         # as in State.py, which this module does not import
MIN_SIDE, MAX_SIDE = 1, 5

Cell = tuple[int, int]
Permutation = tuple[int, ...]  # position i says where cell i goes
Position = tuple[int, int]     # (x_bits, o_bits)

# One tuple object per cell of the largest board, shared by every shape: an action a position
# handed out is one of these very objects, which lets the rules skip checking its form.
SHARED_CELLS: dict[Cell, Cell] = {(row, col): (row, col)
                                  for row in range(MAX_SIDE) for col in range(MAX_SIDE)}

# ASCII digits only: str.isdigit and int() also accept other scripts' digits, which no board has.
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
        each after a left-right mirror, in ``tictactoe_rl.exact.symmetry.TRANSFORMS`` order. Any other: the
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
