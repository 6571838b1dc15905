"""How large a board's game is, and whether the exact tools can walk all of it.

The exact evaluation of two agents (``tictactoe_rl.exact.solver.exact_outcome``) and the search for an agent's
worst case visit every position the agents can reach, remembering each: on 3x3 that is 5,478
positions, on 4x4 k=4 about ten million. ``count_reachable(shape)`` counts them (every position
reachable from the empty board by legal play, finished ones included, a game ending at its first
line), and ``exact_fits(shape)`` says whether that is at most ``EXACT_LIMIT``; past it the exact
tools must sample instead.

The count walks the game a ply at a time, one position per symmetry class (each counted with the
number of its distinct copies), so it holds two plies of canonical positions at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from tictactoe_rl.boards.keys import canonical_of
from tictactoe_rl.geometry import BoardShape

# The exact tools remember every position they walk: on 3x3 a State with its children takes about
# 600 bytes and a cold exact evaluation about 15 microseconds a position, more on larger boards.
# A million positions is then about a gigabyte and tens of seconds, the most a class should wait
# for one exact figure.
EXACT_LIMIT = 1_000_000


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


def exact_fits(shape: BoardShape, limit: int = EXACT_LIMIT) -> bool:
    """Whether every reachable position of ``shape`` can be walked exactly: at most ``limit`` of
    them. It stops counting as soon as the answer is no, so it costs at most about ``limit``
    positions' work."""
    return count_reachable(shape, limit).complete
