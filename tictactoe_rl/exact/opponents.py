"""The opponents an agent is measured against on its board, and its exact results against them.

``random``, ``advanced`` and the perfect player (what ``minimax`` names on any board: perfect
play draws 3x3 and 4x4 k=4, so every loss to it there is the agent's mistake). Every result is
exact (``tictactoe_rl.exact.solver``), on 3x3 and on the bigger boards alike; a walk of more than
a second shows a progress line on stderr (``tictactoe_rl.exact.progress``).
"""

from __future__ import annotations

from Agent import Agent
from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced
from tictactoe_rl.boards.perfect import PerfectAgent
from tictactoe_rl.exact.progress import walk_progress
from tictactoe_rl.exact.solver import exact_result

OPPONENTS = {"random": Random_Agent, "advanced": Random_Agent_Advanced, "perfect": PerfectAgent}
Shares = tuple[float, float, float]   # (wins, losses, draws) of the agent, each in [0, 1]


def opponents_of(agent: Agent, names: tuple[str, ...] = tuple(OPPONENTS)) -> dict[str, Agent]:
    """The opponents ``names`` (keys of ``OPPONENTS``) of ``agent`` on its board, on the other
    side, each with a seed of its own (their moves are drawn only when they play games)."""
    return {name: OPPONENTS[name](-agent.player, agent.env, seed=f"evaluate:{name}")
            for name in names}


def exact_results(agent: Agent, names: tuple[str, ...] = tuple(OPPONENTS)) -> dict[str, Shares]:
    """``{opponent name: (P(win), P(loss), P(draw))}`` of ``agent`` against each of
    ``opponents_of(agent, names)``, exactly, from the agent's side. ``TooLarge`` (one line) on a
    board whose game does not fit in memory."""
    results = {}
    for name, opponent in opponents_of(agent, names).items():
        with walk_progress(f"exact vs {name}") as progress:
            results[name] = exact_result(agent, opponent, progress=progress)
    return results
