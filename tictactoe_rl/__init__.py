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
they are the repository's root, already on ``sys.path`` where the course runs; installed they sit
in this package's ``course`` folder, which this import appends to ``sys.path`` (last, so it hides
nothing). A module of someone else's under one of those names is never silently mixed in: if one
is imported already, or would be found first, this import stops with an ``ImportError`` that names
it (in either order of imports).

Importing this package is light (the course's modules import its lower parts): the names above
are loaded on first use, and the Gymnasium environments are registered when Gymnasium is loaded
(before or after this package); ``gymnasium.make("tictactoe_rl:tictactoe_rl/TicTacToe-v0")``
works in a fresh process too.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
from typing import Any

_HERE = os.path.dirname(os.path.abspath(__file__))
# Installed from a wheel the course's files are in course/ inside this package; in a clone (and
# an editable install) they are the repository, the folder above it.
COURSE = os.path.join(_HERE, "course") if os.path.isdir(os.path.join(_HERE, "course")) \
    else os.path.dirname(_HERE)
INSTALLED = COURSE != os.path.dirname(_HERE)     # from a wheel, not a clone
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




# The course's flat modules. A fixed list, not the folder's files: a student's own file beside
# them (a json.py, say) is not one of the course's, and the check deals with it. The self-check,
# check.py, is a script no course file imports: a user's module named ``check`` simply wins.
COURSE_MODULES = (
    "AI_Agent", "Adversarial_Trainer", "Agent", "DQN_Trainer", "Episode", "ExpectedSARSA_Trainer",
    "Game", "Graphics", "Human_Agent", "MC_Trainer", "Q_Trainer", "Random_Agent",
    "Random_Agent_Advanced", "SARSA_Trainer", "State", "Tester", "TicTacToe")


def course_modules() -> list[str]:
    """The flat names of the course's modules (``State``, ``AI_Agent``, ...) that the course's
    files import from one another and that this folder holds (the students' version has fewer):
    what this package makes importable, and keeps its own."""
    return [name for name in COURSE_MODULES if os.path.isfile(os.path.join(COURSE, name + ".py"))]


def _same(path: str, folder: str) -> bool:
    return os.path.dirname(os.path.realpath(path)) == os.path.realpath(folder)


def _where(name: str) -> str | None:
    """The file of the module ``name`` that is imported, or that ``import name`` would find."""
    module = sys.modules.get(name)
    if module is not None:
        return getattr(module, "__file__", None) or "built in"
    spec = importlib.machinery.PathFinder.find_spec(name)
    return spec.origin if spec is not None else None


def _clashes() -> list[str]:
    """Modules of the course's names that are, or would be, someone else's."""
    found = []
    for name in course_modules():
        where = _where(name)
        if where is not None and (where == "built in" or not _same(where, COURSE)):
            found.append(f"{name} ({where})")
    return found


_CLASHES = _clashes()      # before the course joins the path: what would be found without it
if _CLASHES:
    raise ImportError(f"tictactoe_rl: the course's modules keep their flat names, and these are "
                      f"someone else's: {', '.join(_CLASHES)}; rename yours")
if not any(os.path.realpath(entry or os.curdir) == os.path.realpath(COURSE)
           for entry in sys.path):
    sys.path.append(COURSE)


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
