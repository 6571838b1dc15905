"""The project's m,n,k game as an OpenSpiel Python game (needs ``open_spiel``, see the README).

Importing this module registers the game ``tictactoe_rl_mnk`` with ``pyspiel``, so OpenSpiel's own
algorithms play it like any of its games -- its Python ones: the C++ bots (``pyspiel.MCTSBot``)
crash on every Python game, OpenSpiel's own ``python_tic_tac_toe`` too::

    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts
    import tictactoe_rl.envs.openspiel_game
    game = pyspiel.load_game("tictactoe_rl_mnk(rows=4,cols=4,k=4)")   # default: 3x3, k=3
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 2.0, 100, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = game.new_initial_state()
    state.apply_action(bot.step(state))                 # the bot's first move, for X

The rules are the repository's (``TicTacToe.next_state`` on ``State`` positions, any board of
``tictactoe_rl/geometry.py``); the encodings are the Gymnasium environment's
(``tictactoe_rl/envs/board.py``). OpenSpiel's conventions, which match its ``mnk`` game with
``m = cols``, ``n = rows``:

- players ``0`` (X, moves first) and ``1`` (O); returns ``+1``/``-1`` for a win and a loss,
  ``0`` for a draw, given when the game ends;
- an action is a cell index, row-major (``row = action // cols``, ``col = action % cols``);
- the observation tensor is the board's planes (``board.planes``) from the observing player's
  side: its marks, the other's marks, a plane of ones when X is to move, flattened; the
  observation string is the board drawn in ``x``, ``o`` and ``.``.
"""

from __future__ import annotations

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from tictactoe_rl.envs import board
from tictactoe_rl.envs.board import PLANES, board_shape, cell_of
from tictactoe_rl.positions import start_position
from State import EMPTY, ONGOING, X
from TicTacToe import REWARD, TicTacToe

SHORT_NAME = "tictactoe_rl_mnk"
DEFAULTS = {"rows": 3, "cols": 3, "k": 3}
PLAYER_SIDES = (X, -X)        # player 0 plays X, player 1 plays O
MARKS = {X: "x", -X: "o", EMPTY: "."}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="tictactoe_rl m,n,k game",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS)


class MnkGame(pyspiel.Game):
    """``rows`` x ``cols``, ``k`` in a row wins (any board up to 5x5; a board that is not one is a
    one-line ``ValueError``)."""

    def __init__(self, params: dict | None = None) -> None:
        given = {**DEFAULTS, **(params or {})}
        self.shape = board_shape(f"{given['rows']}x{given['cols']}", int(given["k"]))
        size = self.shape.size
        info = pyspiel.GameInfo(num_distinct_actions=size, max_chance_outcomes=0, num_players=2,
                                min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
                                max_game_length=size)
        super().__init__(GAME_TYPE, info, given)
        self.rules = TicTacToe(board=self.shape)

    def new_initial_state(self) -> "MnkState":
        """The empty board, X (player 0) to move."""
        return MnkState(self)

    def make_py_observer(self, iig_obs_type: pyspiel.IIGObservationType | None = None,
                         params: dict | None = None) -> object:
        """A ``BoardObserver`` for an observation; OpenSpiel's history observer for a
        perfect-recall information state."""
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return BoardObserver(self)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class MnkState(pyspiel.State):
    """A position of the game: the repository's ``State`` (``BoardState`` off 3x3) inside."""

    def __init__(self, game: MnkGame) -> None:
        super().__init__(game)
        self._rules = game.rules
        self.position = start_position(game.shape)

    def current_player(self) -> int:
        """``0`` (X) or ``1`` (O) to move, or OpenSpiel's terminal id once the game is over."""
        if self.position.end_of_game != ONGOING:
            return pyspiel.PlayerId.TERMINAL
        return PLAYER_SIDES.index(self.position.player)

    def _legal_actions(self, player: int) -> list[int]:
        """The empty cells' indices, ascending (none once the game is over)."""
        return [int(cell) for cell in np.flatnonzero(board.action_mask(self.position))]

    def _apply_action(self, action: int) -> None:
        self.position, _ = self._rules.next_state(self.position,
                                                  cell_of(action, self._rules.shape))

    def _action_to_string(self, player: int, action: int) -> str:
        row, col = cell_of(action, self._rules.shape)
        return f"{MARKS[PLAYER_SIDES[player]]}({row},{col})"

    def is_terminal(self) -> bool:
        return self.position.end_of_game != ONGOING

    def returns(self) -> list[float]:
        """X's and O's results so far: ``0`` until the game ends."""
        x_result = float(REWARD[self.position.end_of_game])
        return [x_result, -x_result]

    def __str__(self) -> str:
        shape = self._rules.shape
        marks = [MARKS[cell] for cell in self.position.cells]
        return "\n".join("".join(marks[row * shape.cols:(row + 1) * shape.cols])
                         for row in range(shape.rows))


class BoardObserver:
    """OpenSpiel's observer of the board: ``tensor`` (and ``dict["planes"]``, the same numbers as
    ``(3, rows, cols)``) set from a state for one player, and the board as text."""

    def __init__(self, game: MnkGame) -> None:
        shape = game.shape
        self.tensor = np.zeros(PLANES * shape.size, np.float32)
        self.dict = {"planes": self.tensor.reshape(PLANES, shape.rows, shape.cols)}

    def set_from(self, state: MnkState, player: int) -> None:
        self.dict["planes"][:] = board.planes(state.position, PLAYER_SIDES[player])

    def string_from(self, state: MnkState, player: int) -> str:
        return str(state)


if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(GAME_TYPE, MnkGame)
