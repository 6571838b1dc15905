"""What the two searching agents (``PlayoutAgent`` and ``MCTSAgent``) share: the fast random
playout, checks of their budgets, and ``SearchAgent``, the plumbing that makes a seeded agent a
fixed policy that the exact tools can measure."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import Callable

from Agent import Agent, PolicyUnknown
from tictactoe_rl.positions import PositionCache
from State import ONGOING, State, position_of
from TicTacToe import Action, TicTacToe

MAX_SECONDS = 3600.0  # a longer think per move is a typo

# Position -> the positions after each of its legal moves, as a tuple (made once per position).
# States are shared objects with a cached hash, so this lookup is one fast dict access.
_SUCCESSORS: dict[State, tuple[State, ...]] = PositionCache()


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


class SearchAgent(Agent, ABC):
    """An agent that runs a randomised search before each move (base of the playout agents).

    A subclass gives ``search(state, rng)`` -> ``{action: statistics}`` and ``choose(statistics,
    rng)`` -> the move, and says whether its budget is a time limit (``timed``).

    Randomness: without a seed the search draws from the agent's own generator, so the same
    position can get a different move each time. With a seed, the search in each position draws
    from its own generator, seeded by the seed and the position. If the budget is also a count
    (not a time, which depends on the machine's speed), the agent is then a fixed function of the
    position: a deterministic policy, which ``action_probs`` states as one move with
    probability 1 (so the exact tools in ``tictactoe_rl/exact/solver.py`` can check it), and which is worked out once
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

    @abstractmethod
    def analyse(self, state: State) -> dict[Action, float]:
        """``{(row, col): number}``: what the search thinks of each move it tried (``Tester.py
        --analyse`` and the game's overlay show it)."""

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
