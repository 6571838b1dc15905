"""The exact theory of Nim (whoever takes the last object loses), and a judge for a trained AI.

Nim is small enough to solve completely: every position is either a win or a loss for the side to
move, and a winning move is one that leaves the opponent a loss. ``is_win`` finds out by searching
the whole game tree (each position once), so the answer does not rest on any formula; the tests
check it against Bouton's rule for this "misère" game: the mover loses exactly when the nim-sum
(XOR) of the piles is 0 — except when every pile has at most one object, where the mover loses
exactly when the number of single objects is odd.

``judge(ai, piles)`` holds a ``NimAI`` to that theory over every position the game can reach; its
greedy moves are those of ``better.greedy_moves``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from better import greedy_moves

Action = tuple[int, int]  # (pile index, how many objects to take)

MAX_JUDGED_POSITIONS = 200_000  # beyond this the exact report takes too long to be worth waiting


@lru_cache(maxsize=None)
def _mover_wins(piles: tuple[int, ...]) -> bool:
    # piles: sorted, no empty piles, so that equal positions share one answer.
    if not piles:
        return True  # the opponent took the last object
    for i, pile in enumerate(piles):
        for take in range(1, pile + 1):
            rest = piles[:i] + ((pile - take,) if take < pile else ()) + piles[i + 1:]
            if not _mover_wins(tuple(sorted(rest))):
                return True
    return False


def is_win(piles: Sequence[int]) -> bool:
    """True when the side to move wins ``piles`` under perfect play (False: it loses whatever it
    does). A position with no objects left counts as a win: the other side took the last one."""
    return _mover_wins(tuple(sorted(pile for pile in piles if pile)))


def after(piles: Sequence[int], action: Action) -> tuple[int, ...]:
    """The piles after taking ``action[1]`` objects from pile ``action[0]`` (no checks)."""
    pile, count = action
    result = list(piles)
    result[pile] -= count
    return tuple(result)


def moves(piles: Sequence[int]) -> list[Action]:
    """Every legal move in ``piles``: ``(i, j)`` takes j >= 1 objects from pile i."""
    return [(i, j) for i, pile in enumerate(piles) for j in range(1, pile + 1)]


def winning_moves(piles: Sequence[int]) -> set[Action]:
    """The moves that leave the opponent a lost position (empty when ``piles`` is itself lost)."""
    return {action for action in moves(piles) if not is_win(after(piles, action))}


def positions(initial: Sequence[int]) -> list[tuple[int, ...]]:
    """Every position with at least one object that a game starting from ``initial`` can reach
    (each pile anywhere from 0 to its starting size), in a fixed order."""
    if math.prod(pile + 1 for pile in initial) > MAX_JUDGED_POSITIONS:
        raise ValueError(f"piles {' '.join(map(str, initial))} have more than "
                         f"{MAX_JUDGED_POSITIONS:,} positions, too many to judge exactly")
    return [p for p in itertools.product(*(range(pile + 1) for pile in initial)) if any(p)]


@dataclass(frozen=True)
class Judgement:
    """How a trained AI compares with perfect play over every reachable position."""

    piles: tuple[int, ...]
    positions: int            # non-empty positions reachable from ``piles``
    winning: int              # of them, wins for the side to move
    greedy_winning: int       # winning positions where every greedy choice of the AI wins
    wins_vs_perfect: int      # positions (AI to move) it wins whatever a perfect opponent does
    start_is_win: bool        # whether the first player wins from ``piles`` under perfect play

    @property
    def losing(self) -> int:
        """Positions the side to move loses under perfect play."""
        return self.positions - self.winning

    @property
    def share(self) -> float:
        """The share of winning positions in which the AI's greedy move is a winning move."""
        return self.greedy_winning / self.winning if self.winning else 1.0

    def __str__(self) -> str:
        piles = " ".join(map(str, self.piles))
        first = "wins" if self.start_is_win else "loses"
        return "\n".join([
            f"Piles {piles}: {self.positions} non-empty positions, {self.winning} of them wins "
            f"for the side to move, {self.losing} losses; the first player {first} under "
            f"perfect play.",
            f"Winning move: the AI's greedy move wins in {self.greedy_winning} of "
            f"{self.winning} winning positions ({100 * self.share:.1f} %).",
            f"Against a perfect player, AI to move: it wins from {self.wins_vs_perfect} positions "
            f"and loses from {self.positions - self.wins_vs_perfect} "
            f"(perfect play: wins from {self.winning}, loses from {self.losing}).",
        ])


def judge(ai, initial: Sequence[int]) -> Judgement:
    """Hold ``ai`` (a ``NimAI``) to perfect play in every non-empty position reachable from
    ``initial``: count the winning positions where each of its greedy moves is a winning move, and
    the positions from which it beats a perfect opponent whatever that opponent chooses."""
    initial = tuple(initial)
    everywhere = positions(initial)
    winning = [p for p in everywhere if is_win(p)]
    greedy_winning = sum(all(not is_win(after(p, m)) for m in greedy_moves(ai, p))
                         for p in winning)

    @lru_cache(maxsize=None)
    def ai_wins(piles: tuple[int, ...]) -> bool:
        # AI to move. A perfect opponent answers a lost position with a winning move (after which
        # the AI cannot win); in a lost position it may play anything, so every reply must fail.
        for move in greedy_moves(ai, piles):
            mid = after(piles, move)
            if not any(mid) or is_win(mid):
                return False
            if not all(not any(reply) or ai_wins(reply)
                       for reply in (after(mid, m) for m in moves(mid))):
                return False
        return True

    wins_vs_perfect = sum(ai_wins(p) for p in everywhere)
    return Judgement(initial, len(everywhere), len(winning), greedy_winning, wins_vs_perfect,
                     is_win(initial))
