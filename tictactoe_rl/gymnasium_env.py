"""``TicTacToe-v0`` (needs gymnasium): ``from tictactoe_rl.gymnasium_env import TicTacToeEnv``."""

from tictactoe_rl.envs.gymnasium_env import TicTacToeEnv

__all__ = ["TicTacToeEnv"]
