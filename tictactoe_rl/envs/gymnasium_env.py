"""``TicTacToe-v0``: the game as a Gymnasium environment, one learner against a chosen opponent.

Importing ``tictactoe_rl`` registers ``tictactoe_rl/TicTacToe-v0`` (and the older
``TicTacToe-v0``) with Gymnasium, so any of these works::

    import tictactoe_rl; env = gymnasium.make("tictactoe_rl/TicTacToe-v0", opponent="advanced")
    env = gymnasium.make("tictactoe_rl.envs.gymnasium_env:TicTacToe-v0", side="O")
    env = gymnasium.make("tictactoe_rl:tictactoe_rl/TicTacToe-v0")   # a fresh process too
    env = gymnasium.make("TicTacToe-v0", board="4x4", k=4)   # four in a row on 4x4

The ``module:id`` forms import the module first, so they work in a fresh process too, such as a
``spawn`` worker of ``AsyncVectorEnv`` (Gymnasium 1.x has no entry-point plugins).

The rules are the repository's (``TicTacToe.next_state`` on ``State`` positions) and the
opponent is any agent spec of ``tictactoe_rl/players/specs.py``, so whatever learns here can be measured
exactly afterwards (``Tester.py --exact``).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from Agent import Agent, PolicyUnknown
from tictactoe_rl.envs import register
from tictactoe_rl.geometry import BoardShape
from tictactoe_rl.positions import start_position
from tictactoe_rl.envs import board, observations, render
# (__init__'s argument "board" hides the module)
from tictactoe_rl.envs.board import board_shape, shown_action, side_number
from tictactoe_rl.players.specs import MixtureAgent, make_agent
from State import ONGOING, State, symbol
from TicTacToe import REWARD, TicTacToe

ILLEGAL_CHOICES = ("lose", "raise")
SEED_LIMIT = 2**63   # an opponent's own generator is seeded with a draw below this


def opponent_of(opponent: str | Agent, player: int, game: TicTacToe) -> Agent:
    """The agent ``opponent`` names (a spec) or is (an ``Agent`` already made, such as
    ``tictactoe_rl.exploiter(model)``), playing ``player`` on ``game``'s board; a one-line
    ``ValueError`` for anything else, or an agent of the wrong side or board."""
    if isinstance(opponent, str):
        return make_agent(opponent, player, game)
    if not isinstance(opponent, Agent):
        raise ValueError(f"opponent must be an agent spec such as 'random', or an Agent, got "
                         f"{shown_action(opponent)}")
    if opponent.player != player:
        raise ValueError(f"the opponent {type(opponent).__name__} plays {symbol(opponent.player)}"
                         f", the same side as the learner")
    if opponent.env.shape != game.shape:
        raise ValueError(f"the opponent {type(opponent).__name__} plays on "
                         f"{opponent.env.shape.name}, the environment on {game.shape.name}")
    return opponent


class TicTacToeEnv(gymnasium.Env):
    """## Description

    Tic-Tac-Toe on a 3x3 board against a fixed opponent that is part of the environment. The
    learner plays one side, X (who moves first) or O; after each of its moves the opponent replies
    at once, so every step the learner takes starts from a position where it is to move.

    A bigger board (``board="4x4", k=4``: any ``ROWSxCOLS`` up to 5x5, ``k`` in a row wins) plays
    the m,n,k-game of ``tictactoe_rl/geometry.py`` by the same rules; below, ``N = rows * cols`` is its number of
    cells (9 on 3x3) and ``env.unwrapped.shape`` the board (a ``Board.BoardShape``).

    ## Action Space

    ``Discrete(N)``: the cell to mark, row-major (``row = action // cols``,
    ``col = action % cols``). On 3x3::

        0 | 1 | 2
        3 | 4 | 5
        6 | 7 | 8

    and on 4x4 the first row is ``0 1 2 3``, the second ``4 5 6 7``, and so on.

    An action is whatever ``Discrete(N).contains`` accepts, bools aside: a Python int, a numpy
    integer scalar, or a 0-d integer array (``model.predict(obs)`` of Stable-Baselines3 returns
    ``array(4)``); an array of one or more dimensions (``np.array([4])``, a batch) is a one-line
    ``ValueError``. Only empty cells are legal; ``info["action_mask"]`` (``int8``, 1 = legal) and
    ``env.unwrapped.action_masks()`` (``bool``, what sb3-contrib's ``MaskablePPO`` calls; reach it
    through wrappers with ``env.get_wrapper_attr("action_masks")()``) say which they are.

    ## Observation Space

    Chosen by ``observation`` (``tictactoe_rl/envs/observations.py``); all three are from the
    learner's point of view, so an X learner and an O learner see the same kind of board:

    - ``"board"`` (the default): ``Box(-1, 1, (N,), int8)``, the ``N`` cells in the action's
      order, flat: ``+1`` the learner's mark, ``-1`` the opponent's, ``0`` empty.
      (``tictactoe_rl.envs.board.position_of(obs, side, shape)`` gives the repository's position
      back -- a ``State`` on 3x3, a ``BoardState`` on any other board -- and
      ``env.unwrapped.position`` is the position itself.)
    - ``"planes"``: ``Box(0, 1, (3, rows, cols), float32)``, image planes for convolutional
      networks, channels first: plane 0 is ``1.0`` on the learner's marks, plane 1 on the
      opponent's, plane 2 is ``1.0`` everywhere when X is to move, ``0.0`` when O is. (SB3's
      ``CnnPolicy`` wants images of 36 pixels a side or more: give it a small feature extractor
      of its own, or use ``MlpPolicy``, which flattens the planes.)
    - ``"dict"``: ``Dict({"observation": <the "board" Box>, "action_mask": Box(0, 1, (N,),
      int8)})``, PettingZoo's convention: the mask (``1`` = legal, all ``0`` once the episode is
      over) inside the observation, for policies that read it there (SB3's ``MultiInputPolicy``).

    ## Starting State

    The empty board when the learner plays X; when it plays O, the board after the opponent's
    first move.

    ## Rewards

    From the learner's point of view, on the step that ends the game: ``+1`` a win, ``-1`` a loss,
    ``0`` a draw; ``0`` on every other step. An illegal move counts as a loss (``-1``; see below).
    They are the same on every board; only what wins changes (``k`` in a row).

    ## Episode End

    The episode terminates when a side has ``k`` in a row (three on 3x3) or the board is full --
    at most ``ceil(N / 2)`` learner steps, five on 3x3, eight on 4x4 -- and (with
    ``illegal="lose"``) when the learner plays an illegal move: the board is left as it was and
    ``info["illegal_action"]`` is ``True``. It is never truncated.
    Stepping an ended episode raises ``RuntimeError``: call ``reset()``.

    ## Information

    ``info["action_mask"]``: ``int8`` array of ``N`` flags, ``1`` for each legal move (all ``0``
    once the episode is over). ``info["illegal_action"]``: present and ``True`` after an illegal
    move.

    ## Arguments

    - ``opponent`` (default ``"random"``): an agent spec of ``tictactoe_rl/players/specs.py`` -- ``random``,
      ``advanced``, ``minimax``, ``playout``, ``mcts``, a mixture such as ``random+minimax``, or
      the path of a saved Q-table for the other side (``Data/Q_MC_O.pth`` against an X learner);
      or an ``Agent`` of the other side on the same board, such as ``tictactoe_rl.exploiter(model)``,
      the opponent that beats a trained policy (``tictactoe_rl/envs/exploiter.py``).
    - ``side`` (default ``"X"``): the side the learner plays, ``"X"`` or ``"O"``.
    - ``illegal`` (default ``"lose"``): ``"lose"`` ends the episode with reward ``-1``; ``"raise"``
      raises ``ValueError`` instead (for code that should never try one).
    - ``render_mode``: ``None``, ``"ansi"`` (the board as text), ``"rgb_array"`` (a frame of the
      repository's game window, drawn off screen) or ``"human"`` (that window, updated every step).
      Any board is drawn as it is; the text and the frame's header name it when it is not 3x3.
    - ``board`` (default ``"3x3"``) and ``k`` (default ``None``: the shorter side): the board, read
      as the scripts read ``--board ROWSxCOLS`` and ``--k K`` (``k`` may be an int or its text). A
      board that is not one (``"4by4"``, ``"6x6"``, ``k=7`` on 4x4) is a one-line ``ValueError``
      when the environment is made. The opponent plays on that board (``random``, ``advanced``
      and ``mcts`` play any; ``minimax`` there is the perfect player of ``tictactoe_rl/boards/``).
    - ``observation`` (default ``"board"``): ``"board"``, ``"planes"`` or ``"dict"``, the
      observation above; anything else is a one-line ``ValueError`` naming them.

    ``reset(seed=...)`` seeds the environment's generator, from which the opponent's moves are
    drawn (its ``action_probs``; an opponent that cannot state them, such as ``mcts``, has its own
    generator seeded from it): the same seed and actions give the same game -- except against an
    opponent that searches for a time budget (``mcts:time=...``, ``playout:timelimit=...``),
    whose moves depend on the machine's speed; give those a count (``mcts:iterations=200``).

    ## Version History

    - v0: first version; later given ``board`` and ``k``, then ``observation`` (the default game
      and its observation are unchanged).
    """

    metadata = {"render_modes": list(render.RENDER_MODES), "render_fps": 4}

    def __init__(self, opponent: str | Agent = "random", side: str = "X", illegal: str = "lose",
                 render_mode: str | None = None, board: str = "3x3",
                 k: int | str | None = None, observation: str = "board") -> None:
        self.shape: BoardShape = board_shape(board, k)
        self.observation_kind = observations.check_kind(observation)
        if illegal not in ILLEGAL_CHOICES:
            raise ValueError(f"illegal must be one of {', '.join(ILLEGAL_CHOICES)}, "
                             f"got {illegal!r}")
        render.check_mode(render_mode)
        self.side = side_number(side)
        self.illegal = illegal
        self.render_mode = render_mode
        self._game = TicTacToe(board=self.shape)
        self._opponent = opponent_of(opponent, -self.side, self._game)
        self.opponent_spec = opponent if isinstance(opponent, str) else type(opponent).__name__
        self.observation_space = observations.space(self.observation_kind, self.shape)
        self.action_space = spaces.Discrete(self.shape.size)
        self._position = start_position(self.shape)
        self._last_move: tuple[int, int] | None = None
        self._over = True
        self._pictures: render.Pictures | None = None

    @property
    def position(self) -> State:
        """The position now (a ``State``, on a bigger board a ``BoardState``): the learner to move,
        or the game over."""
        return self._position

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray | dict, dict]:
        """Start a new game (the opponent moves first when the learner plays O)."""
        super().reset(seed=seed)
        self._reseed_opponent()
        self._position, self._last_move, self._over = start_position(self.shape), None, False
        if self.side != self._position.player:
            self._play(self._opponent_move())
        self._show()
        info = self._info()
        return self._observation(info), info

    def step(self, action) -> tuple[np.ndarray | dict, float, bool, bool, dict]:
        """The learner marks cell ``action``, then the opponent replies unless the game is over."""
        if self._over:
            raise RuntimeError("the episode is over: call reset() before step()")
        board.check_one(action)
        cell = board.legal_cell(self._position, action)
        if cell is None:
            if self.illegal == "raise":
                raise ValueError(board.illegal_problem(action, self._position))
            self._over = True
            self._show()
            return self._result(-1.0, illegal_action=True)
        self._play(cell)
        if self._position.end_of_game == ONGOING:
            self._play(self._opponent_move())
        self._over = self._position.end_of_game != ONGOING
        self._show()
        return self._result(float(REWARD[self._position.end_of_game] * self.side))

    def action_masks(self) -> np.ndarray:
        """``True`` for each legal move now (all ``False`` once the episode is over): a new
        ``bool`` array, the mask sb3-contrib's ``MaskablePPO`` asks every environment for."""
        return self._info()["action_mask"].astype(bool)

    def render(self) -> str | np.ndarray | None:
        """The picture ``render_mode`` asks for: text, a frame array, or ``None`` (a window)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode: make the "
                                  "environment with render_mode='ansi', 'rgb_array' or 'human'")
            return None
        if self.render_mode == render.TEXT_MODE:
            return render.text(self._position, self.side)
        if self._pictures is None:
            self._pictures = render.Pictures(self.render_mode)
        frame = self._pictures.draw(self._position, self._last_move,
                                    f"learner {symbol(self.side)} vs {self.opponent_spec}"
                                    f"{render.board_note(self._position)}")
        return None if self.render_mode == render.WINDOW_MODE else frame

    def close(self) -> None:
        """Close the window, if one was opened (safe to call again)."""
        if self._pictures is not None:
            self._pictures.close()
            self._pictures = None

    # --- the parts of a step -----------------------------------------------------------------
    def _play(self, cell: tuple[int, int]) -> None:
        self._position, _ = self._game.next_state(self._position, cell)
        self._last_move = cell

    def _opponent_move(self) -> tuple[int, int]:
        """The opponent's reply: drawn from its stated policy with the environment's generator, or
        its own choice when it cannot state one."""
        try:
            probs = self._opponent.action_probs(self._position)
        except PolicyUnknown:
            return self._opponent.get_action(self._position)
        moves = list(probs)
        if len(moves) == 1:
            return moves[0]
        weights = np.array(list(probs.values()))
        pick = self.np_random.choice(len(moves), p=weights / weights.sum())
        return moves[int(pick)]

    def _reseed_opponent(self) -> None:
        """Seed the opponent's own generators (used only by opponents without stated policies)."""
        agents = [self._opponent]
        if isinstance(self._opponent, MixtureAgent):
            agents += self._opponent.members
        for agent in agents:
            agent.rng.seed(int(self.np_random.integers(SEED_LIMIT)))

    def _info(self, **extra) -> dict:
        if self._over:
            return {"action_mask": np.zeros(self.shape.size, np.int8), **extra}
        mask = board.action_mask(self._position)
        return {"action_mask": mask, **extra}

    def _observation(self, info: dict) -> np.ndarray | dict:
        return observations.encode(self.observation_kind, self._position, self.side,
                                   info["action_mask"])

    def _result(self, reward: float, **extra) -> tuple[np.ndarray | dict, float, bool, bool, dict]:
        info = self._info(**extra)
        return self._observation(info), reward, self._over, False, info

    def _show(self) -> None:
        if self.render_mode == render.WINDOW_MODE:
            self.render()


register()     # for the ``tictactoe_rl.envs.gymnasium_env:TicTacToe-v0`` form of gymnasium.make
