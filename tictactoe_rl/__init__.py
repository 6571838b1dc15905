"""The course's Tic-Tac-Toe as one package: ``pip install .`` (or ``pip install -e .`` in a
clone), then from any folder::

    import gymnasium, tictactoe_rl
    env = gymnasium.make("tictactoe_rl/TicTacToe-v0", opponent="advanced")
    from tictactoe_rl import State, TicTacToe, AI_Agent, make_agent, exact_outcome
    print(tictactoe_rl.measure_policy(model))   # an SB3 model, a torch module, a function
    from tictactoe_rl.tictactoe_v1 import env, parallel_env

The machinery lives in this package's subpackages (``tictactoe_rl.tables``, ``.training``,
``.envs``, ...); importing it adds none of their names to the top level, so PyTables' ``tables``
or a module of yours called ``envs`` or ``cli`` is never touched.

The course's own files keep their flat names -- its scripts, the chapter and the students' version
import ``State``, ``Agent``, ``TicTacToe`` -- because that is the course's public API. In a clone
they are the repository's root; installed they sit in this package's ``course`` folder. From this
import on, those names load that folder's files whatever the current folder and ``sys.path``
become (``tictactoe_rl.home``), so ``from tictactoe_rl import State`` and ``from State import
State`` are one module. A module of someone else's under one of those names is never silently
mixed in: if one is imported already, or would be found first, this import stops with an
``ImportError`` that names it (in either order of imports).

Importing this package is light (the course's modules import its lower parts): the names above
are loaded on first use, and the Gymnasium environments are registered when Gymnasium is loaded
(before or after this package); ``gymnasium.make("tictactoe_rl:tictactoe_rl/TicTacToe-v0")``
works in a fresh process too.
"""

from __future__ import annotations

import importlib
from typing import Any

from tictactoe_rl.home import COURSE, COURSE_MODULES, INSTALLED, course_modules, load_by_location

# what ``from tictactoe_rl import NAME`` gives, loaded on first use: NAME -> (module, attribute)
_EXPORTS = {
    "AI_Agent": ("AI_Agent", "AI_Agent"), "Random_Agent": ("Random_Agent", "Random_Agent"),
    "Random_Agent_Advanced": ("Random_Agent_Advanced", "Random_Agent_Advanced"),
    "State": ("State", "State"), "TicTacToe": ("TicTacToe", "TicTacToe"),
    "make_agent": ("tictactoe_rl.players.specs", "make_agent"),
    "__version__": ("tictactoe_rl.cli", "VERSION"), "ENV_ID": ("tictactoe_rl.envs", "ENV_ID"),
    **{name: ("tictactoe_rl.envs.measure", name) for name in (
        "measure_policy", "from_sb3", "from_torch")},
    **{name: ("tictactoe_rl.exact.solver", name) for name in (
        "best_response", "exact_outcome", "exact_result", "minimax_value")},
    "worst_case": ("tictactoe_rl.exact.worst", "worst_case"),
    "exploiter": ("tictactoe_rl.envs.exploiter", "exploiter"),
}

load_by_location()      # before anything of the course is loaded


def __getattr__(name: str) -> Any:
    """``from tictactoe_rl import State`` (and the rest of ``__all__``), loaded on first use."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'tictactoe_rl' has no attribute {name!r}")
    module, attribute = _EXPORTS[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = ["COURSE", "COURSE_MODULES", "INSTALLED", "course_modules", *sorted(_EXPORTS)]

# Gymnasium 1.x has no plugins: the environments are registered when both are loaded. The
# registration names its entry point by string, so it imports nothing of the course here.
importlib.import_module("tictactoe_rl.envs").register_when_gymnasium_loads()
