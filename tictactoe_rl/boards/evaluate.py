"""How well an agent plays its board: exactly where the whole game fits, sampled where it does not.

On 3x3 (5,478 positions) and other small boards the exact tools (``tictactoe_rl.exact.solver``) walk every
position an agent can reach. Past ``tictactoe_rl.boards.reach.EXACT_LIMIT`` reachable positions (4x4 has about
ten million) that walk would not fit, so these tools say so in one line and play ``games`` games
against each opponent instead, giving each share with its 95% confidence interval (Wilson's).
The opponents are ``random``, ``advanced`` and, where the solver can answer (up to 16 cells),
the perfect player: perfect play draws 4x4 k=4, so any loss to it is a mistake of the agent's.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from functools import lru_cache

from Agent import Agent, seats
from tictactoe_rl.geometry import BoardShape
from tictactoe_rl.boards.reach import EXACT_LIMIT, exact_fits
from Episode import play_games
from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced
from tictactoe_rl.boards.perfect import PerfectAgent

SAMPLE_GAMES = 2_000      # games against each opponent where the exact tools stop
Z_95 = 1.959964           # the normal quantile of a two-sided 95% interval
PERFECT_CELLS = 16        # the perfect player's solver answers in seconds up to 4x4

Shares = tuple[float, float, float]   # (wins, losses, draws) of the agent, each in [0, 1]


@dataclass(frozen=True)
class Sampled:
    """The agent's wins, losses and draws in ``games`` games."""
    wins: int
    losses: int
    draws: int

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    def shares(self) -> Shares:
        return self.wins / self.games, self.losses / self.games, self.draws / self.games

    def interval(self, count: int) -> tuple[float, float]:
        """Wilson's 95% interval of the share ``count / games`` (sound near 0 and 1 too)."""
        n, p = self.games, count / self.games
        centre = (p + Z_95 ** 2 / (2 * n)) / (1 + Z_95 ** 2 / n)
        half = Z_95 * math.sqrt(p * (1 - p) / n + Z_95 ** 2 / (4 * n * n)) / (1 + Z_95 ** 2 / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def describe(self, count: int) -> str:
        """``97.10% (96.3-97.7)``: a share and its interval."""
        low, high = self.interval(count)
        return f"{count / self.games:.2%} ({low:.1%}-{high:.1%})"

    def summary(self, separator: str = ", ") -> str:
        """``wins 97.10% (96.3%-97.7%), losses ..., draws ...``: all three shares."""
        return separator.join(f"{name} {self.describe(count)}" for name, count in
                              (("wins", self.wins), ("losses", self.losses), ("draws", self.draws)))


@lru_cache(maxsize=16)
def is_exact(shape: BoardShape) -> bool:
    """Whether the exact tools can walk ``shape``'s game (counted once per board)."""
    return exact_fits(shape)


def too_large(shape: BoardShape, instead: str) -> str:
    """The one line that says the exact tools stop at ``shape``, and what is done ``instead``."""
    return (f"{shape.name} has more than {EXACT_LIMIT:,} reachable positions, too many to walk "
            f"exactly: {instead}")


def opponents_of(agent: Agent) -> dict[str, Agent]:
    """The evaluation opponents of ``agent`` on its board, each with its own seeded stream."""
    side, env = -agent.player, agent.env
    found = {"random": Random_Agent(side, env, seed="evaluate:random"),
             "advanced": Random_Agent_Advanced(side, env, seed="evaluate:advanced")}
    if env.shape.size <= PERFECT_CELLS:
        found["perfect"] = PerfectAgent(side, env, seed="evaluate:perfect")
    return found


@contextlib.contextmanager
def greedy(agent: Agent):
    """``agent`` plays its greedy policy inside the block (a learner stops exploring)."""
    was, agent.train = agent.train, False
    try:
        yield agent
    finally:
        agent.train = was


def sampled_result(agent: Agent, opponent: Agent, games: int = SAMPLE_GAMES) -> Sampled:
    """``games`` games of ``agent``'s greedy policy against ``opponent``, counted from the
    agent's side."""
    with greedy(agent):
        x_wins, o_wins, draws = play_games(*seats(agent, opponent), agent.env, games)
    wins, losses = (x_wins, o_wins) if agent.player == 1 else (o_wins, x_wins)
    return Sampled(wins, losses, draws)


def sampled_results(agent: Agent, games: int = SAMPLE_GAMES) -> dict[str, Sampled]:
    """``{opponent name: Sampled}`` of ``agent`` against each of ``opponents_of(agent)``."""
    return {name: sampled_result(agent, opponent, games)
            for name, opponent in opponents_of(agent).items()}


def sampled_report(agent: Agent, games: int = SAMPLE_GAMES) -> str:
    """The lines a trainer prints where the exact tools stop: why, then each opponent's shares
    with their 95% intervals."""
    lines = [too_large(agent.env.shape, f"{games:,} games against each opponent, 95% intervals "
                                         "in brackets")]
    for name, result in sampled_results(agent, games).items():
        lines.append(f"sampled vs {name:<8}: {result.summary('  ')}")
    return "\n".join(lines)
