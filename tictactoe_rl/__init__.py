"""The course's Tic-Tac-Toe as an installed package: ``pip install .`` (or ``pip install -e .``
in a clone), then from any folder::

    import gymnasium, tictactoe_rl
    env = gymnasium.make("tictactoe_rl:TicTacToe-v0", opponent="advanced")
    from tictactoe_rl import State, TicTacToe, AI_Agent, make_agent, exact_outcome
    from tictactoe_rl.pettingzoo_env import env

``gymnasium.make("tictactoe_rl:TicTacToe-v0")`` imports this package first, so it works in any
process, a ``spawn`` worker of ``AsyncVectorEnv`` too; after ``import tictactoe_rl`` the plain
``"TicTacToe-v0"`` works as well. (Gymnasium 1.x has no entry-point plugins: a package registers
its environments when it is imported.)

The course's own files keep their flat names -- its scripts and the chapter import ``State``,
``Agent``, ``TicTacToe`` -- but they are not installed as top-level modules, where such generic
names would clash with everyone else's. They sit in this package's ``course`` folder (in a clone,
the repository itself), which importing the package puts first on ``sys.path``: from then on, in
that process, ``import State`` is the course's, and a module of the user's with one of those names
is hidden; one already imported makes this import stop with an ``ImportError`` that names it.
"""

from __future__ import annotations

import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
# Installed from a wheel the course's files are in course/ inside this package; in a clone (and
# an editable install) they are the repository, the folder above it.
COURSE = os.path.join(_HERE, "course") if os.path.isdir(os.path.join(_HERE, "course")) \
    else os.path.dirname(_HERE)


def _below(path: str, folder: str) -> bool:
    try:
        return os.path.commonpath([folder, path]) == folder
    except ValueError:      # another drive (Windows)
        return False


def _clashes() -> list[str]:
    """Modules already imported under a name of the course's own top-level modules or packages,
    but from somewhere else (a user's own ``envs`` or ``State.py``)."""
    names = {entry[:-3] if entry.endswith(".py") else entry for entry in os.listdir(COURSE)
             if entry.endswith(".py") or os.path.isfile(os.path.join(COURSE, entry, "__init__.py"))}
    course, found = os.path.realpath(COURSE), []
    for name in sorted(names & set(sys.modules)):
        module = sys.modules[name]
        where = getattr(module, "__file__", None) or next(iter(getattr(module, "__path__", [])), "")
        if not where or not _below(os.path.realpath(where), course):
            found.append(f"{name} ({where or 'built in'})")
    return found


_CLASHES = _clashes()
if _CLASHES:
    raise ImportError(f"tictactoe_rl: the course's modules keep their flat names, and these are "
                      f"already imported from elsewhere: {', '.join(_CLASHES)}; rename yours "
                      f"or import tictactoe_rl first")
if COURSE in sys.path:      # first, before the current folder too
    sys.path.remove(COURSE)
sys.path.insert(0, COURSE)

from tictactoe_rl import envs  # noqa: E402  (the imports below need COURSE on the path)
from AI_Agent import AI_Agent  # noqa: E402
from tictactoe_rl.cli import VERSION as __version__  # noqa: E402
from tictactoe_rl.exact.solver import (best_response, exact_outcome, exact_result, minimax_value,  # noqa: E402
                          worst_case)
from tictactoe_rl.players.specs import make_agent  # noqa: E402
from Random_Agent import Random_Agent  # noqa: E402
from Random_Agent_Advanced import Random_Agent_Advanced  # noqa: E402
from State import State  # noqa: E402
from TicTacToe import TicTacToe  # noqa: E402

ENV_ID = envs.ENV_ID
if importlib.util.find_spec("gymnasium") is not None:   # an optional extra
    envs.register()

__all__ = ["AI_Agent", "COURSE", "ENV_ID", "Random_Agent", "Random_Agent_Advanced", "State",
           "TicTacToe", "__version__", "best_response", "exact_outcome", "exact_result",
           "make_agent", "minimax_value", "worst_case"]
