"""What the two environments share: the board they play on, how a position becomes an
observation, and an action a cell.

Only numpy and the repository's rules here, so this module imports quickly and without the
optional packages.

- The *board* is a ``Board.BoardShape``: Tic-Tac-Toe's 3x3 k=3 unless the environment was made
  with ``board="ROWSxCOLS"`` and ``k`` (``board_shape`` reads them as ``--board`` and ``--k``).
- An *action* is a cell index ``0`` to ``shape.size - 1``, row-major with the board's columns:
  ``row = action // cols``, ``col = action % cols``. On 3x3::

      0 | 1 | 2
      3 | 4 | 5
      6 | 7 | 8

- An *observation* is the board as ``shape.size`` ``int8`` cells seen by one side: ``+1`` its own
  mark, ``-1`` the other side's, ``0`` empty. X and O learners see the same kind of board, so a
  network or a table can learn both sides with one encoding.
- The *planes* are the same board for convolutional networks: ``float32`` ``(3, rows, cols)``,
  own marks, the other side's marks, and a plane of ones when X is to move.
- An *action mask* is ``shape.size`` ``int8`` flags, ``1`` where the cell is empty (a legal move).

Every helper takes the board from the position it is given, or from ``shape`` (3x3 by default)
where it has none, so the 3x3 callers are unchanged.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape

from tictactoe_rl.positions import BoardState, shape_of
from State import SIZE, X, State

CELLS = SIZE * SIZE   # Tic-Tac-Toe's nine; any board has shape.size
SIDE_NAMES = {"X": 1, "O": -1}
MAX_BOARD_TEXT = 20    # longer is no board: not echoed whole
PLANES = 3             # of ``planes``: own marks, the other side's marks, X to move


def board_shape(board: str = "3x3", k: int | str | None = None) -> BoardShape:
    """The board of an environment's ``board`` (``"ROWSxCOLS"``, 1 to 5 a side) and ``k`` (a whole
    number or its text; ``None``: the shorter side), read as ``--board`` and ``--k`` are. A
    one-line ``ValueError`` for anything else."""
    if not isinstance(board, str) or len(board) > MAX_BOARD_TEXT:
        raise ValueError(f"board must be text such as '4x4', got {shown_action(board)}")
    if isinstance(k, bool) or not isinstance(k, (Integral, str, type(None))):
        raise ValueError(f"k must be a whole number such as 4, got {k!r}")
    if isinstance(k, Integral):   # numpy's integers too
        # An int goes to BoardShape itself, whose range check names the board (parse's text
        # check would call -1 "not a whole number").
        found = BoardShape.parse(board)
        return BoardShape(found.rows, found.cols, int(k))
    return BoardShape.parse(board, k)


def cell_of(action: int, shape: BoardShape = TIC_TAC_TOE) -> tuple[int, int]:
    """The ``(row, col)`` of cell index ``action`` on ``shape``; ``ValueError`` outside the
    board."""
    index = int(action)
    if not 0 <= index < shape.size:
        raise ValueError(f"action {action!r} is not a cell index 0-{shape.size - 1}")
    return divmod(index, shape.cols)


def action_of(cell: tuple[int, int], shape: BoardShape = TIC_TAC_TOE) -> int:
    """The cell index of ``(row, col)`` on ``shape`` (not checked to be on the board)."""
    return int(cell[0]) * shape.cols + int(cell[1])


def cell_index(action) -> int | None:
    """The whole number ``action`` stands for, as ``Discrete(n).contains`` reads it: a Python
    int, a numpy integer scalar (``np.int64(4)``) or a 0-d integer array (``np.array(4)``, what
    ``model.predict`` returns); ``None`` for anything else. A bool is refused although
    ``Discrete.contains(True)`` holds (Python's ``True`` is the int 1): a bool action is a bug."""
    if isinstance(action, bool):
        return None
    if isinstance(action, Integral):   # numpy's integer scalars are Integral
        return int(action)
    if isinstance(action, np.ndarray) and action.shape == () \
            and np.issubdtype(action.dtype, np.integer):
        return int(action)
    return None


def check_one(action) -> None:
    """A one-line ``ValueError`` for an array with dimensions, such as ``np.array([4])`` (what
    vectorised code passes): a step takes one action, so a batch is the caller's bug, not a move
    to lose the game by. A 0-d array (``np.array(4)``) is one action."""
    if isinstance(action, np.ndarray) and action.ndim > 0:
        raise ValueError(f"action {shown_action(action)} has shape {action.shape}: a step takes "
                         f"one cell index, such as 4 or np.array(4) (action.item() of a batch "
                         f"of one)")


def legal_cell(position: State, action) -> tuple[int, int] | None:
    """The ``(row, col)`` that ``action`` names when it is a whole number (see ``cell_index``)
    naming an empty cell of ``position`` (on its own board); ``None`` for anything else."""
    index = cell_index(action)
    shape = shape_of(position)
    if index is None or not 0 <= index < shape.size:
        return None
    cell = divmod(index, shape.cols)
    return cell if cell in position.children() else None


def cell_ranges(indices) -> str:
    """Cell indices in one short line: ``0-4, 6, 8-24`` (``none`` for none)."""
    runs: list[list[int]] = []
    for index in sorted(int(i) for i in indices):
        if runs and index == runs[-1][1] + 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs) or "none"


def shown_action(action, limit: int = 40) -> str:
    """``action`` as one short line (an array's repr spans lines, a long one is cut)."""
    text = " ".join(repr(action).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def illegal_problem(action, position: State) -> str:
    """Why ``action`` is not a legal move of ``position``, and what is, in one line: ``illegal
    action 25: not an empty cell 0-24 (off the board); the empty cells: 0-22, 24``."""
    shape, index = shape_of(position), cell_index(action)
    if index is None:
        why = "not a whole number"
    elif not 0 <= index < shape.size:
        why = f"off the {shape.rows}x{shape.cols} board"
    else:
        why = "taken"
    legal = np.flatnonzero(action_mask(position))
    allowed = f"the empty cells: {cell_ranges(legal)}" if len(legal) else "the game is over"
    return (f"illegal action {shown_action(action)}: not an empty cell 0-{shape.size - 1} "
            f"({why}); {allowed}")


def observation(position: State, side: int) -> np.ndarray:
    """The cells of ``position`` (its board's ``size``) as ``side`` (1 X, -1 O) sees them: a new
    ``int8`` array."""
    return np.array(position.cells, dtype=np.int8) * np.int8(side)


def planes(position: State, side: int) -> np.ndarray:
    """``position`` as ``PLANES`` ``float32`` planes ``(3, rows, cols)`` that ``side`` (1 X, -1 O)
    sees: ``1.0`` on its marks, ``1.0`` on the other side's marks, and ``1.0`` everywhere when X
    is to move (so a network that plays both sides knows which it plays): a new array."""
    shape = shape_of(position)
    seen = observation(position, side).reshape(shape.rows, shape.cols)
    stack = np.empty((PLANES, shape.rows, shape.cols), np.float32)
    stack[0] = seen == 1
    stack[1] = seen == -1
    stack[2] = position.player == X
    return stack


def position_of(seen: np.ndarray, side: int, shape: BoardShape = TIC_TAC_TOE) -> State:
    """The position on ``shape`` behind an observation of ``side`` when ``side`` is to move (the
    inverse of ``observation`` for every position a learner is asked to move in): a ``State`` on
    3x3 k=3, a ``BoardState`` on any other board. ``ValueError`` when the sizes differ."""
    cells = [int(v) * side for v in np.asarray(seen).reshape(-1)]
    if shape == TIC_TAC_TOE:
        return State(cells, side)
    return BoardState(shape, cells, side)


def action_mask(position: State) -> np.ndarray:
    """``1`` for each legal move of ``position`` (none once the game is over), one flag per cell
    of its board: a new ``int8`` array."""
    shape = shape_of(position)
    mask = np.zeros(shape.size, dtype=np.int8)
    for row, col in position.legal_actions():
        mask[row * shape.cols + col] = 1
    return mask


def side_number(side: str) -> int:
    """``1`` for ``"X"``, ``-1`` for ``"O"`` (any case); ``ValueError`` otherwise."""
    number = SIDE_NAMES.get(side.upper()) if isinstance(side, str) else None
    if number is None:
        raise ValueError(f"side must be 'X' or 'O', got {side!r}")
    return number
