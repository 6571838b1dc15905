"""The game in the field's environment APIs: Gymnasium (one learner against an opponent) and
PettingZoo (two agents taking turns).

Both need the optional extras (``pip install -r requirements-extra.txt``); this package itself
imports neither, so ``import envs`` always works and says nothing heavy is there yet:

- ``envs.register()`` registers ``TicTacToe-v0`` with Gymnasium (``tictactoe_rl/envs/gymnasium_env.py``);
- ``tictactoe_rl.envs.pettingzoo_env.env()`` makes the PettingZoo AEC environment.

``tictactoe_rl/envs/board.py`` holds what both share: observation, action and mask encodings.
"""

from __future__ import annotations

import importlib

ENV_ID = "TicTacToe-v0"


def register() -> str:
    """Register ``TicTacToe-v0`` with Gymnasium's registry (once) and return its id.

    Raises ``ModuleNotFoundError`` naming the extras when Gymnasium is not installed.
    """
    try:
        importlib.import_module("tictactoe_rl.envs.gymnasium_env")   # importing it registers the environment
    except ModuleNotFoundError as missing:
        if missing.name != "gymnasium":
            raise
        raise ModuleNotFoundError("TicTacToe-v0 needs gymnasium: pip install -r "
                                  "requirements-extra.txt", name="gymnasium") from None
    return ENV_ID
