"""Monte Carlo tree search (UCT): random playouts, spent where they matter most.

Primitive Monte Carlo (``tictactoe_rl/players/playout.py``) gives every move the same number of random playouts
and assumes random play after it. Tree search grows a tree of positions from the current one and
repeats four steps, each time adding one position:

1. selection  -- from the root, walk down positions whose moves have all been tried, each time to
                 the child with the best upper confidence bound (UCB1): its mean result plus an
                 exploration bonus that shrinks as the child is visited more;
2. expansion  -- at the first position with an untried move, try it: add its child to the tree;
3. simulation -- a random playout from that child (the same playout as ``PlayoutAgent``);
4. backup     -- every position on the path counts the visit and the result, each from the side
                 that moved into it.

Because selection follows the best-looking moves, most playouts go below good moves, and the
statistics of the moves deep in the tree approach the values of good play on both sides; in the
limit the choice is the minimax move. The tree is a dict keyed by position: positions are shared
objects, so two move orders that reach the same position share its statistics.

One addition makes the small budget safe: *proofs* (the "MCTS-Solver" of Winands, Bjornsson and
Saito, 2008). A position is proven when one of its children is a won final or proven position for
the side to move, or when all its children are final or proven; then its exact result is backed up
instead of a playout, a move proven to lose is never played if there is another, and the search
stops once the current position itself is proven. Without proofs, 2,000 playouts a move were not
always enough to see the traps a good opponent sets after the first move.
"""

from __future__ import annotations

import math
import random
from time import perf_counter
from typing import NamedTuple

from tictactoe_rl.players.search import (SearchAgent, check_count, check_seconds, playout,
                                         successors)
from State import DRAW, ONGOING, State
from TicTacToe import Action, TicTacToe

# About 0.02-0.04 s a move from the empty board on a 2-core machine
# (tools/benchmarks/playout.py). With it the seeded agent could not be beaten on any line for
# any of 100 seeds checked, on either side; half of it was beaten for some seeds.
DEFAULT_ITERATIONS = 2_000
# UCB1's constant for results in [0, 1]: sqrt(2), the textbook choice.
DEFAULT_EXPLORATION = math.sqrt(2)
SHOWS = ("value", "visits")
# A playout's result from the side that moved into a position: win 1, draw 1/2, loss 0.
WIN, HALF, LOSS = 1.0, 0.5, 0.0
# How a proven result ranks a move before its visits count (a proven draw ranks as unproven).
PROOF_RANK = {WIN: 2, LOSS: 0}
UNPROVEN_RANK = 1


class Edge(NamedTuple):
    """What the search learned about one move: how often it was tried, its mean result for the
    mover (win 1, draw 1/2, loss 0) and, once the tree proves it, its exact result (else None)."""

    visits: int
    value: float
    proven: float | None


def settled_result(state: State, proven: dict[State, int]) -> int | None:
    """The result code of ``state`` under perfect play if known: the game is over, or the tree
    proved it; ``None`` otherwise."""
    return state.end_of_game if state.end_of_game != ONGOING else proven.get(state)


def proven_result(state: State, proven: dict[State, int]) -> int | None:
    """The result code of ``state`` under perfect play if its children show it: one of them is a
    won (final or proven) position for the side to move, or all of them are final or proven;
    else ``None``. A final child counts even before the search tries it: a win in one move is
    seen at once."""
    mover = state.player
    unknown = drawn = False
    for child in successors(state):
        result = settled_result(child, proven)
        if result == mover:
            return mover
        if result is None:
            unknown = True
        elif result == DRAW:
            drawn = True
    if unknown:
        return None
    return DRAW if drawn else -mover


def prove(path: list[State], proven: dict[State, int]) -> None:
    """Record, deepest first, the positions on ``path`` whose result the tree now proves."""
    for node in reversed(path):
        if node.end_of_game != ONGOING or node in proven:
            continue
        result = proven_result(node, proven)
        if result is None:
            return
        proven[node] = result


def root_statistics(root: State, visits: dict[State, int], totals: dict[State, float],
                    proven: dict[State, int]) -> dict[Action, Edge]:
    """Every root move the search tried, or whose result it knows, as the mover sees it."""
    as_mover = {root.player: WIN, DRAW: HALF, -root.player: LOSS, None: None}
    statistics = {}
    for action, child in root.children().items():
        known = as_mover[settled_result(child, proven)]
        tries = visits.get(child, 0)
        if tries:
            statistics[action] = Edge(tries, totals[child] / tries, known)
        elif known is not None:
            statistics[action] = Edge(0, known, known)
    return statistics


class MCTSAgent(SearchAgent):
    """UCT tree search with random playouts (spec ``mcts``).

    iterations   playouts per move (default 2,000); fewer once the tree proves the result;
    time         seconds per move instead (``mcts:time=0.05``); give one or the other;
    exploration  UCB1's constant c in  mean + c * sqrt(ln N(parent) / N(child))  (default sqrt 2);
    show         what ``analyse`` reports per move: "value" (mean result, win 1, draw 1/2) or
                 "visits" (how often the search tried it);
    seed         makes it repeatable; seeded with an iterations budget it is a fixed policy
                 (see ``SearchAgent``).

    It plays a move the tree proves to win if there is one, never one it proves to lose if it has
    another, and otherwise the move the search tried most (the "robust child"); equal counts go
    to the better mean, then at random.
    """

    def __init__(self, player: int, env: TicTacToe | None = None, graphics=None,
                 iterations: int | None = None, time: float | None = None,
                 exploration: float = DEFAULT_EXPLORATION, show: str = "value",
                 seed=None) -> None:
        super().__init__(player, env, graphics, seed=seed)
        if iterations is not None and time is not None:
            raise ValueError("give iterations or time, not both")
        self.iterations = check_count(DEFAULT_ITERATIONS if iterations is None else iterations,
                                      "iterations")
        self.time = check_seconds(time, "time")
        if isinstance(exploration, bool) or not isinstance(exploration, (int, float)) \
                or not 0 <= exploration < math.inf:
            raise ValueError(f"exploration must be a number >= 0, got {exploration!r}")
        self.exploration = float(exploration)
        if show not in SHOWS:
            raise ValueError(f"show must be one of {', '.join(SHOWS)}, got {show!r}")
        self.show = show
        self.timed = self.time is not None

    def search(self, root: State, rng: random.Random) -> dict[Action, Edge]:
        """Grow a tree from ``root`` for the budget, or until the tree proves the result; return
        every tried root move's statistics, from the side to move."""
        visits = {root: 0}
        totals = {root: 0.0}  # sum of results, from the side that moved into the position
        untried: dict[State, list[State]] = {}
        proven: dict[State, int] = {}  # result code under perfect play, once the tree shows it
        uniform = rng.random
        deadline = None if self.time is None else perf_counter() + self.time
        done = 0
        while root not in proven:
            path = [root]
            state = root
            # selection: descend while every move of the position has been tried
            while settled_result(state, proven) is None:
                if state not in untried:
                    untried[state] = list(successors(state))
                    rng.shuffle(untried[state])
                if untried[state]:
                    break
                state = self.best_child(state, visits, totals)
                path.append(state)
            # expansion: add one untried child to the tree
            if settled_result(state, proven) is None:
                state = untried[state].pop()
                visits.setdefault(state, 0)
                totals.setdefault(state, 0.0)
                path.append(state)
            # simulation (none needed once the result is known) and backup
            result = settled_result(state, proven)
            if result is None:
                result = playout(state, uniform).end_of_game
            for node in path:
                visits[node] += 1
                totals[node] += HALF if result == DRAW else WIN if result == -node.player else LOSS
            prove(path, proven)
            done += 1
            if deadline is None:
                if done == self.iterations:
                    break
            elif perf_counter() >= deadline:
                break
        return root_statistics(root, visits, totals, proven)

    def best_child(self, state: State, visits: dict[State, int],
                   totals: dict[State, float]) -> State:
        """The child of ``state`` with the largest UCB1 (all of them have been visited)."""
        spread = self.exploration * math.sqrt(math.log(visits[state]))
        best, best_bound = None, -math.inf
        for child in successors(state):
            n = visits[child]
            bound = totals[child] / n + spread / math.sqrt(n)
            if bound > best_bound:
                best, best_bound = child, bound
        return best

    def choose(self, statistics: dict[Action, Edge], rng: random.Random) -> Action:
        # a proven win first, a proven loss last; then the most visits, then the better mean
        ranked = {action: (PROOF_RANK.get(edge.proven, UNPROVEN_RANK), edge.visits, edge.value)
                  for action, edge in statistics.items()}
        best = max(ranked.values())
        tied = [action for action, rank in ranked.items() if rank == best]
        return tied[0] if len(tied) == 1 else rng.choice(tied)

    def analyse(self, state: State) -> dict[Action, float]:
        """``{(row, col): number}`` for every move the search tried (with a budget below the number
        of legal moves some are not tried): its mean result for the side to move (win 1, draw
        1/2, loss 0) or, with ``show="visits"``, how often it was tried."""
        statistics = self.analysed_statistics(state)
        if self.show == "visits":
            return {action: edge.visits for action, edge in statistics.items()}
        return {action: edge.value for action, edge in statistics.items()}
