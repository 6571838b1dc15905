"""The two-agent game (needs pettingzoo): ``from tictactoe_rl.pettingzoo_env import env``."""

from tictactoe_rl.envs.pettingzoo_env import env, raw_env

__all__ = ["env", "raw_env"]
