"""The value of perfect play on any m,n,k board: negamax with alpha-beta over bitboards.

``Solver(shape).value(position)`` is the result of perfect play from ``position`` (default: the
empty board), from X's view: 1 X wins, 0 draw, -1 O wins. What makes it fast enough in plain
Python (4x4 k=4 in well under a minute, where a plain negamax needs about 83 s of CPU):

- **Threats instead of search.** One pass over the win lines finds the cells where either side
  would complete a line. A mover with such a cell wins; a mover facing two loses; a mover facing
  one must block it. So no move ever needs a win check of its own, and forced lines cost one node.
- **Dead lines.** A line holding both marks can never be won: with no line open to either side the
  game is a draw, and with none open to the mover it can at best draw (a bound that cuts search).
- **A transposition table keyed by the canonical position**: the smallest image of the position
  under the board's symmetries, so the eight (or four) copies of a position are searched once. It
  stores an interval ``[low, high]`` that the value is known to lie in, which alpha-beta narrows.
- **Move ordering**: moves that make a double threat, then those that make a threat or stop one
  of the opponent's, then the cells on most lines first.

The search works in the mover's view (``me``, ``opp`` bitboards) and is only ever called on
positions where nobody has a full line yet.
"""

from __future__ import annotations

from collections.abc import Callable

from tictactoe_rl.boards.keys import canonical_of
from tictactoe_rl.geometry import BoardShape, Position

PROGRESS_EVERY = 1 << 16  # positions searched between calls of the progress callback


class Solver:
    """A perfect-play solver for one board; its table of searched positions grows with each call,
    so later calls on positions near earlier ones are quick. ``progress(nodes)`` (optional) is
    called every ``PROGRESS_EVERY`` searched positions."""

    def __init__(self, shape: BoardShape, progress: Callable[[int], None] | None = None) -> None:
        self.shape = shape
        self.nodes = 0  # positions searched so far (the figure benchmarks report)
        # canonical key -> the interval [low, high] holding its value, as (low + 1) * 3 + high + 1
        self.table: dict[int, int] = {}
        self._progress = progress
        self._size = shape.size
        self._full = (1 << shape.size) - 1
        self._masks = shape.line_masks
        lines_through = [sum(1 for line in shape.win_lines if cell in line)
                         for cell in range(shape.size)]
        # Central cells lie on most lines: they come first among moves that are otherwise equal.
        self._order = tuple(1 << cell for cell in sorted(range(shape.size),
                                                          key=lambda cell: -lines_through[cell]))
        self._canonical = canonical_of(shape)

    # --- the public questions ------------------------------------------------------------------

    def value(self, position: Position = (0, 0)) -> int:
        """The result of perfect play from ``position`` (``(x_bits, o_bits)``, default the empty
        board), from X's view: 1, 0 or -1. A finished position is worth its result. A
        ``ValueError`` for a position no game reaches (marks off the board or on one cell, the
        wrong number of marks for the side to move, both sides with a line, a move after a
        line)."""
        x_bits, o_bits = position
        mover = self._check(x_bits, o_bits)
        x_won, o_won = self.shape.has_line(x_bits), self.shape.has_line(o_bits)
        if x_won or o_won:
            return 1 if x_won else -1
        me, opp = (x_bits, o_bits) if mover == 1 else (o_bits, x_bits)
        return mover * self._search(me, opp, -1, 1)

    def move_values(self, position: Position = (0, 0)) -> dict[int, int]:
        """The perfect-play value (X's view) after each legal move of ``position``, by the flat
        index of the move's cell; empty when the game is over."""
        x_bits, o_bits = position
        mover = self._check(x_bits, o_bits)
        if self.shape.has_line(x_bits) or self.shape.has_line(o_bits):
            return {}
        empty = self._full & ~(x_bits | o_bits)
        return {cell: self.value((x_bits | 1 << cell, o_bits) if mover == 1
                                 else (x_bits, o_bits | 1 << cell))
                for cell in range(self._size) if empty >> cell & 1}

    def _check(self, x_bits: int, o_bits: int) -> int:
        """The side to move (1 X, -1 O) of a position, or a ``ValueError`` if none reaches it."""
        if x_bits < 0 or o_bits < 0 or (x_bits | o_bits) > self._full or x_bits & o_bits:
            raise ValueError(f"not a {self.shape.name} position: marks off the board or on "
                             f"the same cell")
        x_count, o_count = x_bits.bit_count(), o_bits.bit_count()
        if x_count - o_count not in (0, 1):
            raise ValueError(f"not a reachable position: X has {x_count} marks, O {o_count} "
                             f"(X moves first, so X has as many as O or one more)")
        x_won, o_won = self.shape.has_line(x_bits), self.shape.has_line(o_bits)
        if x_won and o_won:
            raise ValueError("not a reachable position: both sides have a line")
        mover = 1 if x_count == o_count else -1
        if (x_won and mover == 1) or (o_won and mover == -1):
            raise ValueError("not a reachable position: the side that lost moved after the game "
                             "ended")
        return mover

    # --- the search ----------------------------------------------------------------------------

    def _search(self, me: int, opp: int, alpha: int, beta: int) -> int:
        """The value for the mover (``me``) within the window: a result ``<= alpha`` is an upper
        bound of the true value, one ``>= beta`` a lower bound, any other the value itself."""
        self.nodes += 1
        if self._progress is not None and self.nodes % PROGRESS_EVERY == 0:
            self._progress(self.nodes)
        empty = self._full & ~(me | opp)
        if not empty:
            return 0
        # One pass over the lines: the mover's winning cell, the opponent's, the cells that make
        # a threat (to order moves by), and whether any line is still open to either side.
        opp_wins = my_makers = my_doubles = opp_makers = 0
        open_me = open_opp = False
        for mask in self._masks:
            if not mask & opp:
                open_me = True
                rest = mask & ~me               # the line's empty cells
                if not rest & (rest - 1):
                    return 1                    # the mover completes this line now
                pair = rest & (rest - 1)
                if not pair & (pair - 1):       # two empty cells: either makes a threat
                    my_doubles |= my_makers & rest
                    my_makers |= rest
            elif not mask & me:
                open_opp = True
                rest = mask & ~opp
                if not rest & (rest - 1):
                    opp_wins |= rest
                else:
                    pair = rest & (rest - 1)
                    if not pair & (pair - 1):
                        opp_makers |= rest
        if opp_wins:
            if opp_wins & (opp_wins - 1):      # two threats: one block leaves the other
                return -1
            return -self._search(opp, me | opp_wins, -beta, -alpha)  # the only move not losing
        if not open_me and not open_opp:
            return 0
        low, high = (-1 if open_opp else 0), (1 if open_me else 0)

        key = self._canonical(me | opp << self._size)
        known = self.table.get(key)
        if known is not None:
            low, high = max(low, known // 3 - 1), min(high, known % 3 - 1)
        if low == high or low >= beta:
            return low
        if high <= alpha:
            return high
        alpha, beta = max(alpha, low), min(beta, high)

        best = -2
        for move in self._ordered(empty, my_doubles, my_makers, opp_makers):
            best = max(best, -self._search(opp, me | move, -beta, -max(alpha, best)))
            if best >= beta:
                break
        if best <= alpha:
            high = best
        elif best >= beta:
            low = best
        else:
            low = high = best
        self.table[key] = (low + 1) * 3 + high + 1
        return best

    def _ordered(self, empty: int, doubles: int, makers: int, blocks: int) -> list[int]:
        """The empty cells as single-bit masks, the most promising first."""
        first, second, rest = [], [], []
        for move in self._order:
            if move & empty:
                if move & doubles:
                    first.append(move)
                elif move & (makers | blocks):
                    second.append(move)
                else:
                    rest.append(move)
        return first + second + rest
