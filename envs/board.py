"""What the two environments share: how a position becomes an observation, and an action a cell.

Only numpy and the repository's rules here, so this module imports quickly and without the
optional packages.

- An *action* is a cell index 0-8, row-major: ``row = action // 3``, ``col = action % 3``::

      0 | 1 | 2
      3 | 4 | 5
      6 | 7 | 8

- An *observation* is the board as nine ``int8`` cells seen by one side: ``+1`` its own mark,
  ``-1`` the other side's, ``0`` empty. X and O learners see the same kind of board, so a network
  or a table can learn both sides with one encoding.
- An *action mask* is nine ``int8`` flags, ``1`` where the cell is empty (a legal move).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from State import SIZE, State

CELLS = SIZE * SIZE
SIDE_NAMES = {"X": 1, "O": -1}


def cell_of(action: int) -> tuple[int, int]:
    """The ``(row, col)`` of cell index ``action`` (0-8); ``ValueError`` outside the board."""
    index = int(action)
    if not 0 <= index < CELLS:
        raise ValueError(f"action {action!r} is not a cell index 0-{CELLS - 1}")
    return divmod(index, SIZE)


def action_of(cell: tuple[int, int]) -> int:
    """The cell index (0-8) of ``(row, col)``."""
    return int(cell[0]) * SIZE + int(cell[1])


def cell_index(action) -> int | None:
    """The whole number ``action`` stands for, as ``Discrete(9).contains`` reads it: a Python
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


def legal_cell(position: State, action) -> tuple[int, int] | None:
    """The ``(row, col)`` that ``action`` names when it is a whole number (see ``cell_index``)
    naming an empty cell of ``position``; ``None`` for anything else."""
    index = cell_index(action)
    if index is None or not 0 <= index < CELLS:
        return None
    cell = divmod(index, SIZE)
    return cell if cell in position.children() else None


def observation(position: State, side: int) -> np.ndarray:
    """The nine cells of ``position`` as ``side`` (1 X, -1 O) sees them: a new ``int8`` array."""
    return np.array(position.cells, dtype=np.int8) * np.int8(side)


def position_of(seen: np.ndarray, side: int) -> State:
    """The position behind an observation of ``side`` when ``side`` is to move (the inverse of
    ``observation`` for every position a learner is asked to move in)."""
    return State([int(v) * side for v in np.asarray(seen).reshape(-1)], side)


def action_mask(position: State) -> np.ndarray:
    """``1`` for each legal move of ``position`` (none once the game is over): a new ``int8``
    array."""
    mask = np.zeros(CELLS, dtype=np.int8)
    for row, col in position.legal_actions():
        mask[row * SIZE + col] = 1
    return mask


def side_number(side: str) -> int:
    """``1`` for ``"X"``, ``-1`` for ``"O"`` (any case); ``ValueError`` otherwise."""
    number = SIDE_NAMES.get(side.upper()) if isinstance(side, str) else None
    if number is None:
        raise ValueError(f"side must be 'X' or 'O', got {side!r}")
    return number
