"""How large a board's game is: every position reachable by legal play, counted.

``count_reachable(shape)`` counts them (every position reachable from the empty board by legal
play, finished ones included, a game ending at its first line): 5,478 on 3x3, about ten million on
4x4 k=4. It is a figure for the docs and the benchmarks; what the exact tools can walk is decided
by the memory a walk needs (``tictactoe_rl.exact.fits``).

The count walks the game a ply at a time, one position per symmetry class (each counted with the
number of its distinct copies), so it holds two plies of canonical positions at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from tictactoe_rl.boards.keys import canonical_of
from tictactoe_rl.geometry import BoardShape


@dataclass(frozen=True)
class Reach:
    """The positions of ``shape``'s game: ``positions`` (all of them), ``canonical`` (up to
    symmetry) and ``finished`` (won or full). With ``complete`` false the walk stopped once more
    than its limit were found, so the figures are only lower bounds."""

    shape: BoardShape
    positions: int
    canonical: int
    finished: int
    complete: bool


def count_reachable(shape: BoardShape, limit: int | None = None) -> Reach:
    """Count the positions reachable on ``shape`` (see ``Reach``), stopping after the ply where
    the count first passes ``limit`` (``None``: never)."""
    n, full = shape.size, (1 << shape.size) - 1
    canonical = canonical_of(shape)
    # The lines through each cell: only those can be completed by a mark placed there.
    through = [tuple(mask for mask in shape.line_masks if mask >> cell & 1) for cell in range(n)]
    layer = {0}                              # the unfinished positions of this ply (X | O << n)
    positions, classes, finished = 1, 1, 0   # the empty board
    for ply in range(n):
        shift = 0 if ply % 2 == 0 else n     # the mover's bits: X's low, O's high
        going, over = set(), set()
        for key in layer:
            mine = key >> shift & full
            free = full & ~(key | key >> n)
            while free:
                move = free & -free
                free ^= move
                child = canonical(key | move << shift)
                if child in going or child in over:
                    continue
                placed = mine | move
                won = any(mask & placed == mask for mask in through[move.bit_length() - 1])
                (over if won or ply + 1 == n else going).add(child)
        ended = sum(len(set(canonical.images(key))) for key in over)  # copies of each class
        positions += ended + sum(len(set(canonical.images(key))) for key in going)
        classes += len(going) + len(over)
        finished += ended
        if limit is not None and positions > limit:
            return Reach(shape, positions, classes, finished, complete=False)
        layer = going
    return Reach(shape, positions, classes, finished, complete=True)

