"""Primitive Monte Carlo: judge each move by random games played from the position after it.

For every legal move the agent plays ``pnum`` games from the position after that move in which both
sides move uniformly at random (a *playout*), counts how often the mover wins, draws and loses, and
plays the move with the best record. No knowledge of the game goes in besides its rules.

What the numbers mean: a playout assumes that *both* sides play at random from then on, so a
move's score is its value against a random opponent, not against a good one. A move that wins
often but allows one refutation scores well -- which is why this agent draws as X against a
perfect player but loses as O (see the README).

The module also holds what the two searching agents (this one and ``MCTS_Agent``) share: the fast
random playout and ``Search_Agent``, the plumbing that makes a seeded agent a fixed policy.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from time import perf_counter
from typing import Callable, NamedTuple

from Agent import Agent, PolicyUnknown
from State import DRAW, ONGOING, State, position_of
from TicTacToe import Action, TicTacToe

DEFAULT_PNUM = 10_000
SCORINGS = ("ratio", "score")
MAX_SECONDS = 3600.0  # a longer think per move is a typo

# Position -> the positions after each of its legal moves, as a tuple (made once per position).
# States are shared objects with a cached hash, so this lookup is one fast dict access.
_SUCCESSORS: dict[State, tuple[State, ...]] = {}


def successors(state: State) -> tuple[State, ...]:
    """The positions reachable by one legal move from ``state`` (empty once the game is over)."""
    found = _SUCCESSORS.get(state)
    if found is None:
        found = _SUCCESSORS[state] = tuple(state.children().values())
    return found


def playout(state: State, uniform: Callable[[], float]) -> State:
    """Play uniformly random moves for both sides from ``state`` until the game ends and return
    the final position (``state`` itself when the game is already over; ``state`` never changes).

    ``uniform`` gives floats in [0, 1), e.g. ``rng.random``; the result is ``final.end_of_game``.
    """
    lookup = _SUCCESSORS.get
    while state.end_of_game == ONGOING:
        options = lookup(state) or successors(state)
        state = options[int(uniform() * len(options))]
    return state


class Tally(NamedTuple):
    """How the playouts after one move ended, counted from the mover's side."""

    wins: int
    draws: int
    losses: int

    @property
    def playouts(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        return self.wins / self.playouts

    @property
    def score(self) -> float:
        """Wins count 1, draws 1/2: the expected result against a random opponent, from 0 to 1."""
        return (self.wins + 0.5 * self.draws) / self.playouts


def check_seconds(value, name: str) -> float | None:
    """``value`` as a number of seconds in (0, 3600], or ``None`` if it is ``None``; else ValueError."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_SECONDS:
        raise ValueError(f"{name} must be a number of seconds in (0, {MAX_SECONDS:g}], got {value!r}")
    return float(value)


def check_count(value, name: str) -> int:
    """``value`` as a whole number >= 1, else ValueError."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")
    return value


class Search_Agent(Agent, ABC):
    """An agent that runs a randomised search before each move (base of the playout agents).

    A subclass gives ``search(state, rng)`` -> ``{action: statistics}`` and ``choose(statistics,
    rng)`` -> the move, and says whether its budget is a time limit (``timed``).

    Randomness: without a seed the search draws from the agent's own generator, so the same
    position can get a different move each time. With a seed, the search in each position draws
    from its own generator, seeded by the seed and the position. If the budget is also a count
    (not a time, which depends on the machine's speed), the agent is then a fixed function of the
    position: a deterministic policy, which ``action_probs`` states as one move with
    probability 1 (so the exact tools in ``Solver.py`` can check it), and which is worked out once
    per position and remembered. In every other case the agent's move is a random variable whose
    distribution it does not know, and ``action_probs`` says so by raising ``PolicyUnknown``.
    """

    timed = False

    def __init__(self, player: int, env: TicTacToe | None = None, graphics=None,
                 seed=None) -> None:
        super().__init__(player, env, graphics, seed=seed)
        self.seed = seed
        self._decisions: dict[State, tuple[dict, Action]] = {}  # a fixed policy's, per position
        self._analysed: tuple[State, tuple[dict, Action]] | None = None

    @property
    def fixed_policy(self) -> bool:
        """Whether every position always gets the same move (seeded, budget by count)."""
        return self.seed is not None and not self.timed

    @abstractmethod
    def search(self, state: State, rng: random.Random) -> dict:
        """``{action: statistics}`` for every legal action of ``state``."""

    @abstractmethod
    def choose(self, statistics: dict, rng: random.Random) -> Action:
        """The move to play, given the statistics of a search."""

    def decide(self, state: State) -> tuple[dict, Action]:
        """Search ``state`` and return the statistics per move and the chosen move.
        Raises ValueError when the game is over."""
        if not state.legal_actions():
            raise ValueError("no legal move: the game is over")
        if state in self._decisions:
            return self._decisions[state]
        rng = self.rng if self.seed is None else random.Random(
            f"{self.seed}/{state.cells}/{state.player}")
        statistics = self.search(state, rng)
        decision = statistics, self.choose(statistics, rng)
        if self.fixed_policy:
            self._decisions[state] = decision
        return decision

    def get_action(self, state: State, epoch: int | None = None) -> Action:
        """The chosen move for ``state`` (a forced move is played without searching). Right after
        ``analyse(state)`` it is the move of that same search, so the numbers shown are the
        numbers the move was chosen by."""
        state = position_of(state)  # the live game (env.state): the position it shows
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        analysed, self._analysed = self._analysed, None
        if analysed is not None and analysed[0] == state:
            return analysed[1][1]
        return self.decide(state)[1]

    def analysed_statistics(self, state: State) -> dict:
        """The statistics of a search of ``state``, kept for the next ``get_action(state)``."""
        decision = self.decide(state)
        self._analysed = state, decision
        return decision[0]

    def action_probs(self, state: State) -> dict[Action, float]:
        """The chosen move with probability 1 -- only for a fixed policy (see the class doc)."""
        if not self.fixed_policy:
            raise PolicyUnknown(
                f"{type(self).__name__} can state its move probabilities only when seeded and "
                "with a budget by count, not by time: otherwise its moves are random draws "
                "whose probabilities it does not know")
        legal = state.legal_actions()
        return {legal[0] if len(legal) == 1 else self.decide(state)[1]: 1.0}


class Playout_Agent(Search_Agent):
    """Primitive Monte Carlo (spec ``playout``).

    pnum       random playouts per legal move (default 10,000).
    timelimit  seconds per move instead of ``pnum``: rounds of one playout per legal move go on
               until the time is up (checked after each round; at least one round).
    scoring    "ratio": the best win rate, then the best draw rate among equal win rates;
               "score": the best win + 0.5 * draw. Equal moves are chosen between at random.
    seed       makes the agent repeatable (see ``Search_Agent``).
    """

    def __init__(self, player: int, env: TicTacToe | None = None, graphics=None,
                 pnum: int = DEFAULT_PNUM, timelimit: float | None = None,
                 scoring: str = "ratio", seed=None) -> None:
        super().__init__(player, env, graphics, seed=seed)
        self.pnum = check_count(pnum, "pnum")
        self.timelimit = check_seconds(timelimit, "timelimit")
        if scoring not in SCORINGS:
            raise ValueError(f"scoring must be one of {', '.join(SCORINGS)}, got {scoring!r}")
        self.scoring = scoring
        self.timed = self.timelimit is not None

    def search(self, state: State, rng: random.Random) -> dict[Action, Tally]:
        """Playouts from the position after every legal move, in rounds of one per move."""
        actions = state.legal_actions()
        children = [state.children()[action] for action in actions]
        # a result code names the winner by its side (1 X won, -1 O won), or is DRAW
        counts = [{state.player: 0, -state.player: 0, DRAW: 0} for _ in actions]
        uniform = rng.random
        deadline = None if self.timelimit is None else perf_counter() + self.timelimit
        rounds = 0
        while True:
            for child, count in zip(children, counts):
                count[playout(child, uniform).end_of_game] += 1
            rounds += 1
            if deadline is None:
                if rounds == self.pnum:
                    break
            elif perf_counter() >= deadline:
                break
        return {action: Tally(count[state.player], count[DRAW], count[-state.player])
                for action, count in zip(actions, counts)}

    def rank(self, tally: Tally) -> tuple[int, ...]:
        """Sort key of a move under ``scoring`` (whole numbers, so equal moves compare equal)."""
        if self.scoring == "ratio":
            return tally.wins, tally.draws
        return (2 * tally.wins + tally.draws,)

    def choose(self, statistics: dict[Action, Tally], rng: random.Random) -> Action:
        best = max(self.rank(tally) for tally in statistics.values())
        tied = [action for action, tally in statistics.items() if self.rank(tally) == best]
        return tied[0] if len(tied) == 1 else rng.choice(tied)

    def analyse(self, state: State) -> dict[Action, float]:
        """``{(row, col): number}`` for every legal move, from the side to move: the win rate of
        its playouts (scoring "ratio") or win + 0.5 * draw (scoring "score"). These are the
        numbers the agent chooses by (the draw rate that breaks "ratio" ties is not shown)."""
        statistics = self.analysed_statistics(state)
        if self.scoring == "ratio":
            return {action: tally.win_rate for action, tally in statistics.items()}
        return {action: tally.score for action, tally in statistics.items()}
