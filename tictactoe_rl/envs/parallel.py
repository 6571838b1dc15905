"""The two-agent game as a PettingZoo ``ParallelEnv``: every step takes an action from each live
agent, and the one whose turn it is moves (the other's action is read by no one: its mask is all
``0``, so a masked sampler hands in ``0``). The game is the AEC environment's
(``tictactoe_rl.envs.pettingzoo_env.raw_env``): the same observations, masks, rewards, boards.

    from tictactoe_rl.tictactoe_v1 import parallel_env
    game = parallel_env()
    observations, infos = game.reset(seed=0)
    while game.agents:
        actions = {agent: pick(observations[agent]) for agent in game.agents}   # your policy
        observations, rewards, terminations, truncations, infos = game.step(actions)
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces
from pettingzoo import ParallelEnv

from tictactoe_rl.envs.pettingzoo_env import AGENTS, raw_env


class TurnsInParallel(ParallelEnv):
    """``raw_env``'s game, one move per ``step``: that of the agent to move."""

    metadata = {**raw_env.metadata, "is_parallelizable": True}
    possible_agents = list(AGENTS)

    def __init__(self, **kwargs: Any) -> None:
        """``kwargs``: ``raw_env``'s (``render_mode``, ``observation``, ``board``, ``k``)."""
        self.game = raw_env(**kwargs)
        self.render_mode = self.game.render_mode
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self.game.observation_space(agent)

    def action_space(self, agent: str) -> spaces.Space:
        return self.game.action_space(agent)

    def reset(self, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """A new game; each agent's observation and info."""
        self.game.reset(seed=seed, options=options)
        self.agents = list(self.game.agents)
        return self._observations(), {agent: dict(self.game.infos[agent]) for agent in AGENTS}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """The agent to move plays its action from ``actions``; once the game is over no agent is
        left (``agents`` is empty)."""
        mover = self.game.agent_selection
        self.game.step(actions[mover])
        observations = self._observations()
        rewards = {agent: float(self.game.rewards[agent]) for agent in self.agents}
        terminations = {agent: self.game.terminations[agent] for agent in self.agents}
        truncations = {agent: self.game.truncations[agent] for agent in self.agents}
        infos = {agent: dict(self.game.infos[agent]) for agent in self.agents}
        if any(terminations.values()) or any(truncations.values()):
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self) -> Any:
        return self.game.render()

    def close(self) -> None:
        self.game.close()

    def _observations(self) -> dict:
        return {agent: self.game.observe(agent) for agent in self.agents}
