"""The game in the field's environment APIs: Gymnasium (one learner against an opponent) and
PettingZoo (two agents taking turns).

Both need the optional extras (``pip install -r requirements-extra.txt``); this package itself
imports neither, so ``import tictactoe_rl.envs`` always works and loads nothing heavy:

- ``register()`` registers ``tictactoe_rl/TicTacToe-v0`` (and the older ``TicTacToe-v0``) with
  Gymnasium by the entry point ``tictactoe_rl.envs.gymnasium_env:TicTacToeEnv``; importing
  ``tictactoe_rl`` does it as soon as Gymnasium is loaded;
- ``tictactoe_rl.tictactoe_v1`` is the PettingZoo environment (``env``, ``raw_env``,
  ``parallel_env``);
- importing ``tictactoe_rl.envs.openspiel_game`` registers the game with OpenSpiel
  (``pyspiel.load_game("tictactoe_rl_mnk(rows=4,cols=4,k=4)")``).

``tictactoe_rl/envs/board.py`` holds what both share: observation, action and mask encodings.
``tictactoe_rl.envs.measure.measure_policy`` measures what was trained on them (an SB3 model, a
torch module, a function of the observation and mask) exactly.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from importlib.machinery import ModuleSpec
from types import ModuleType

from tictactoe_rl.geometry import MAX_SIDE

# The id to use: namespaced, so that no other package's TicTacToe-v0 is ever made instead.
ENV_ID = "tictactoe_rl/TicTacToe-v0"
BARE_ID = "TicTacToe-v0"       # the first id, kept working where no one else registered it first
ENTRY_POINT = "tictactoe_rl.envs.gymnasium_env:TicTacToeEnv"
# The learner moves at most once per cell of the biggest board: the limit never cuts a game short,
# and tells Gymnasium (and the wrappers that read the spec) that every episode ends.
MAX_EPISODE_STEPS = MAX_SIDE * MAX_SIDE


def register() -> str:
    """Register the environment with Gymnasium's registry under both ids (once each; an id that
    another package registered first stays theirs); return ``ENV_ID``.

    Raises ``ModuleNotFoundError`` naming the extras when Gymnasium is not installed.
    """
    try:
        import gymnasium
    except ModuleNotFoundError as missing:
        if missing.name != "gymnasium":
            raise
        raise ModuleNotFoundError("TicTacToe-v0 needs gymnasium: pip install "
                                  "'tictactoe-rl-course[envs]'", name="gymnasium") from None
    for env_id in (ENV_ID, BARE_ID):
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=ENTRY_POINT,
                               max_episode_steps=MAX_EPISODE_STEPS)
    return ENV_ID


class _ThenRegister(importlib.abc.Loader):
    """Gymnasium's own loader, which registers the environments once Gymnasium has loaded."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self._loader = loader

    def __getattr__(self, name: str) -> object:       # resources, source: the real loader's
        return getattr(self._loader, name)

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        register()


class _WhenGymnasiumLoads(importlib.abc.MetaPathFinder):
    """Asked first for every import until Gymnasium's: then steps aside, finds Gymnasium as Python
    would, and hands its spec a loader that registers the environments afterwards."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        if name != "gymnasium":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenRegister(spec.loader)
        return spec


def register_when_gymnasium_loads() -> None:
    """Register the environments as soon as Gymnasium is imported (at once if it is), in any order
    of imports; nothing happens where Gymnasium is not installed."""
    if "gymnasium" in sys.modules:
        register()
    elif importlib.util.find_spec("gymnasium") is not None and \
            not any(isinstance(finder, _WhenGymnasiumLoads) for finder in sys.meta_path):
        sys.meta_path.insert(0, _WhenGymnasiumLoads())
