"""``TicTacToe-v0`` (needs gymnasium): ``from tictactoe_rl.gymnasium_env import TicTacToeEnv``."""

from envs.gymnasium_env import TicTacToeEnv

__all__ = ["TicTacToeEnv"]
