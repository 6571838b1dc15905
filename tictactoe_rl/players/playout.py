"""Primitive Monte Carlo: judge each move by random games played from the position after it.

For every legal move the agent plays ``pnum`` games from the position after that move in which both
sides move uniformly at random (a *playout*), counts how often the mover wins, draws and loses, and
plays the move with the best record. No knowledge of the game goes in besides its rules.

What the numbers mean: a playout assumes that *both* sides play at random from then on, so a
move's score is its value against a random opponent, not against a good one. A move that wins
often but allows one refutation scores well -- which is why this agent draws as X against a
perfect player but loses as O (see the README).
"""

from __future__ import annotations

import random
from time import perf_counter
from typing import NamedTuple

from tictactoe_rl.players.search import SearchAgent, check_count, check_seconds, playout
from State import DRAW, State
from TicTacToe import Action, TicTacToe

DEFAULT_PNUM = 10_000
SCORINGS = ("ratio", "score")


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


class PlayoutAgent(SearchAgent):
    """Primitive Monte Carlo (spec ``playout``).

    pnum       random playouts per legal move (default 10,000).
    timelimit  seconds per move instead of ``pnum``: rounds of one playout per legal move go on
               until the time is up (checked after each round; at least one round).
    scoring    "ratio": the best win rate, then the best draw rate among equal win rates;
               "score": the best win + 0.5 * draw. Equal moves are chosen between at random.
    seed       makes the agent repeatable (see ``SearchAgent``).
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
