"""Which boards the exact tools measure: every board whose game fits this machine's memory.

There is no sampled road: 3x3, 3x4, 4x4 k=3 and 4x4 k=4 are walked exactly, and a board whose
game could not fit (4x5, 5x5: hundreds of millions of positions and more) is refused in one line
that says how much memory it would need (``tictactoe_rl.exact.levels.check_fits``).
"""

from __future__ import annotations

from tictactoe_rl.exact.levels import TooLarge, check_fits
from tictactoe_rl.geometry import BoardShape


def refusal(shape: BoardShape) -> str | None:
    """The one line refusing an exact walk of ``shape``'s whole game for two agents that are
    not symmetric (the largest walk: a learned agent against another), or ``None`` where it
    fits. Asked afresh each time: the free memory changes."""
    try:
        check_fits(shape, symmetric=False)
    except TooLarge as error:
        return str(error)
    return None


def is_exact(shape: BoardShape) -> bool:
    """Whether the exact tools can measure any agent on ``shape`` (see ``refusal``)."""
    return refusal(shape) is None
