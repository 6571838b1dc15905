"""The game as a PettingZoo AEC environment: two agents take turns on one board.

    from tictactoe_rl.envs.pettingzoo_env import env
    game = env(render_mode="ansi")
    game.reset(seed=0)
    for agent in game.agent_iter():
        observation, reward, terminated, truncated, info = game.last()
        move = None if terminated or truncated else pick(observation)   # your policy
        game.step(move)

The rules are the repository's (``TicTacToe.next_state`` on ``State`` positions); the encodings
are those of the Gymnasium environment (``tictactoe_rl/envs/board.py``), and so is the choice of board:
``env(board="4x4", k=4)`` plays four in a row on 4x4.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from tictactoe_rl.geometry import BoardShape

from tictactoe_rl.positions import start_position
from tictactoe_rl.envs import board, render
from tictactoe_rl.envs.board import board_shape   # __init__'s argument "board" hides the module
from State import O, ONGOING, State, X
from TicTacToe import REWARD, TicTacToe

AGENTS = ("player_1", "player_2")   # PettingZoo's naming; player_1 plays X and moves first
SIDES = {"player_1": X, "player_2": O}


class UnknownAgent(KeyError):
    """An agent name the game does not have; its message is one line naming the agents that
    exist (a ``KeyError``, as a dict of agents would raise, without the quoted repr)."""

    def __str__(self) -> str:
        return str(self.args[0])


def known(agent) -> str:
    """``agent`` if it is one of ``AGENTS``, else ``UnknownAgent``."""
    if isinstance(agent, str) and agent in AGENTS:
        return agent
    raise UnknownAgent(f"no agent {board.shown_action(agent)} in this game; its agents are "
                       f"{' and '.join(AGENTS)}")
OBSERVATIONS = ("dict", "box")


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's name for the unwrapped environment)
    """Tic-Tac-Toe for two agents, ``player_1`` (X, moves first) and ``player_2`` (O).

    Board: ``board`` (default ``"3x3"``) and ``k`` (default ``None``: the shorter side), read as
    the scripts read ``--board ROWSxCOLS`` and ``--k K``: ``board="4x4", k=4`` is four in a row on
    4x4, any board up to 5x5 (``tictactoe_rl/geometry.py``); a board that is not one is a one-line ``ValueError``
    when the environment is made. Below, ``N = rows * cols`` is its number of cells (9 on 3x3)
    and ``env.unwrapped.shape`` the board.

    Observation (``observation="dict"``, the default): a dict, as PettingZoo's classic games give
    it -- ``"observation"``: ``int8`` array of the ``N`` cells (row-major, flat) from the
    observing agent's point of view, ``+1`` its own mark, ``-1`` the other's, ``0`` empty;
    ``"action_mask"``: ``int8`` array of ``N`` flags, ``1`` for each legal move of the agent to
    move (all ``0`` for the other agent and once the game is over). With ``observation="box"``
    the observation is that ``int8`` array alone, a flat ``Box(-1, 1, (N,), int8)`` that
    SuperSuit's observation wrappers (``dtype_v0``, ``flatten_v0``, ``frame_stack_v1``) take,
    and the mask moves to ``infos[agent]["action_mask"]``. In both, ``action_mask(agent)`` and
    ``action_masks()`` (the agent to move, ``bool``) give it too.

    Action: ``Discrete(N)``, the cell to mark, ``row = action // cols``, ``col = action % cols``
    (``// 3`` and ``% 3`` on 3x3): a Python int, a numpy integer scalar or a 0-d integer array
    (what ``Discrete.contains`` accepts, bools aside); an array of one or more dimensions
    (``np.array([4])``, a batch) is a one-line ``ValueError``.

    Rewards, on the move that ends the game (``k`` in a row, or a full board): ``+1`` the winner,
    ``-1`` the loser, ``0`` both for a draw, on every board. An illegal move (an occupied cell,
    or not a cell index) ends the game with ``-1`` for the agent that made it, ``0`` for the
    other, and ``info["illegal_action"]`` set for it. Once the game is over ``agent_selection``
    moves on to the other agent, as in PettingZoo's own ``tictactoe_v3``, so each agent sees its
    final reward in ``last()``.

    Where this game differs from PettingZoo's ``tictactoe_v3`` (the rules and rewards agree):

    - an illegal move sets ``terminations`` only; ``tictactoe_v3`` sets ``truncations`` too. The
      game ended by its rules, so a learner must not bootstrap past it as it would past a time
      limit (Gymnasium's meaning of truncated);
    - after the end every mask is all ``0``; ``tictactoe_v3`` still lists the loser's empty
      cells, moves that cannot be played;
    - the observation is nine cells of ``+1``/``-1``/``0`` seen by the observer, not
      ``tictactoe_v3``'s two ``3x3`` planes;
    - there is no ``max_cycles``: a game ends by itself within ``N`` moves, nine on 3x3
      (PettingZoo's ``max_cycles_test`` is for environments that need a cut-off);
    - ``tictactoe_v3`` is 3x3 only.

    ``render_mode``: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (as in
    ``TicTacToe-v0``; any board is drawn as it is). ``reset(seed=...)`` seeds the action spaces'
    ``sample``; the game itself has no chance in it.
    """

    metadata = {"name": "tictactoe_v1", "render_modes": list(render.RENDER_MODES),
                "render_fps": 4, "is_parallelizable": False}

    def __init__(self, render_mode: str | None = None, observation: str = "dict",
                 board: str = "3x3", k: int | str | None = None) -> None:
        super().__init__()
        self.shape: BoardShape = board_shape(board, k)
        render.check_mode(render_mode)
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {', '.join(OBSERVATIONS)}, "
                             f"got {observation!r}")
        self.render_mode = render_mode
        self.observation_kind = observation
        self.possible_agents = list(AGENTS)
        cells = spaces.Box(-1, 1, (self.shape.size,), np.int8)
        mask = spaces.Box(0, 1, (self.shape.size,), np.int8)
        seen = cells if observation == "box" else spaces.Dict({"observation": cells,
                                                               "action_mask": mask})
        self._observation_spaces = {agent: seen for agent in AGENTS}
        self._action_spaces = {agent: spaces.Discrete(self.shape.size) for agent in AGENTS}
        self._game = TicTacToe(board=self.shape)
        self._position = start_position(self.shape)
        self._last_move: tuple[int, int] | None = None
        self._pictures: render.Pictures | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[known(agent)]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[known(agent)]

    @property
    def position(self) -> State:
        """The position now (a ``State``, on a bigger board a ``BoardState``)."""
        return self._position

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game: the empty board, ``player_1`` (X) to move."""
        if seed is not None:
            for offset, agent in enumerate(AGENTS):
                self._action_spaces[agent].seed(seed + offset)
        self.agents = list(AGENTS)
        self.rewards = {agent: 0.0 for agent in AGENTS}
        self._cumulative_rewards = {agent: 0.0 for agent in AGENTS}
        self.terminations = {agent: False for agent in AGENTS}
        self.truncations = {agent: False for agent in AGENTS}
        self.agent_selection = AGENTS[0]
        self._position, self._last_move = start_position(self.shape), None
        self.infos: dict[str, dict] = {agent: self._info(agent) for agent in AGENTS}
        self._show()

    def observe(self, agent: str) -> dict[str, np.ndarray] | np.ndarray:
        """``agent``'s view of the board, with its legal moves unless ``observation="box"``
        (new arrays every call)."""
        cells = board.observation(self._position, SIDES[known(agent)])
        if self.observation_kind == "box":
            return cells
        return {"observation": cells, "action_mask": self.action_mask(agent)}

    def action_mask(self, agent: str) -> np.ndarray:
        """``1`` for each legal move of ``agent``: all ``0`` unless it is to move in a game that
        goes on (a new ``int8`` array)."""
        known(agent)
        to_move = (agent == self.agent_selection and self._position.end_of_game == ONGOING
                   and not self.terminations.get(agent, True))
        if not to_move:
            return np.zeros(self.shape.size, np.int8)
        return board.action_mask(self._position)

    def action_masks(self) -> np.ndarray:
        """The legal moves of the agent to move as ``bool`` flags (sb3-contrib's convention)."""
        return self.action_mask(self.agent_selection).astype(bool)

    def step(self, action) -> None:
        """The agent to move marks cell ``action`` (``None`` once it is terminated)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        board.check_one(action)
        self._cumulative_rewards[agent] = 0.0
        other = AGENTS[1 - AGENTS.index(agent)]
        cell = board.legal_cell(self._position, action)
        if cell is None:
            self._end({agent: -1.0, other: 0.0})
        else:
            self._position, _ = self._game.next_state(self._position, cell)
            self._last_move = cell
            if self._position.end_of_game != ONGOING:
                x_reward = float(REWARD[self._position.end_of_game])
                self._end({name: x_reward * SIDES[name] for name in AGENTS})
            else:
                self._clear_rewards()
        self.agent_selection = other
        self.infos = {name: self._info(name) for name in self.agents}
        if cell is None:
            self.infos[agent]["illegal_action"] = True
        self._accumulate_rewards()
        self._show()

    def render(self) -> str | np.ndarray | None:
        """The picture ``render_mode`` asks for: text, a frame array, or ``None`` (a window)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode: make the "
                                  "environment with render_mode='ansi', 'rgb_array' or 'human'")
            return None
        if self.render_mode == render.TEXT_MODE:
            return render.text(self._position)
        if self._pictures is None:
            self._pictures = render.Pictures(self.render_mode)
        frame = self._pictures.draw(self._position, self._last_move,
                                    f"player_1 X, player_2 O{render.board_note(self._position)}")
        return None if self.render_mode == render.WINDOW_MODE else frame

    def close(self) -> None:
        """Close the window, if one was opened (safe to call again)."""
        if self._pictures is not None:
            self._pictures.close()
            self._pictures = None

    def _end(self, rewards: dict[str, float]) -> None:
        self.rewards = rewards
        self.terminations = {agent: True for agent in self.agents}

    def _info(self, agent: str) -> dict:
        """What ``infos[agent]`` holds: nothing with the dict observation (its mask is in it),
        the mask with the flat one."""
        return {"action_mask": self.action_mask(agent)} if self.observation_kind == "box" else {}

    def _show(self) -> None:
        if self.render_mode == render.WINDOW_MODE:
            self.render()


def env(render_mode: str | None = None, observation: str = "dict", board: str = "3x3",
        k: int | str | None = None) -> AECEnv:
    """The environment as PettingZoo's classic games hand it out: wrapped so that calling
    ``step`` or ``observe`` before ``reset`` is a clear error. The arguments are ``raw_env``'s."""
    return OrderEnforcingWrapper(raw_env(render_mode=render_mode, observation=observation,
                                         board=board, k=k))
