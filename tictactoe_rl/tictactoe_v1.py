"""The two-agent game under a versioned name, as PettingZoo's own games are handed out (needs
pettingzoo)::

    from tictactoe_rl import tictactoe_v1
    game = tictactoe_v1.env()             # AEC, order enforced
    game = tictactoe_v1.raw_env()         # AEC, unwrapped
    game = tictactoe_v1.parallel_env()    # ParallelEnv: one move per step, the mover's

The number goes up when the environment changes in a way that changes results.
"""

from tictactoe_rl.envs.parallel import TurnsInParallel
from tictactoe_rl.envs.pettingzoo_env import env, raw_env


def parallel_env(**kwargs) -> TurnsInParallel:
    """The game as a ``ParallelEnv``; ``kwargs`` as ``raw_env``'s."""
    return TurnsInParallel(**kwargs)


__all__ = ["env", "parallel_env", "raw_env"]
