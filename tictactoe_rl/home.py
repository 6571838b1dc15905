"""Where the course's files are, and their flat module names, loaded from there and nowhere else.

The course's files import one another by plain name (``from State import State``): that is the
course's public API. In a clone they are the repository's root; installed from a wheel they sit
in this package's ``course`` folder. ``load_by_location`` (which importing ``tictactoe_rl``
calls) puts a finder first on ``sys.meta_path`` that answers those names with the files of that
folder, so the current folder and ``sys.path`` can change afterwards (an ``os.chdir``, a
``sys.path.insert``, a notebook that writes a ``State.py``) without another ``State`` being
mixed in, and ``from tictactoe_rl import State`` and ``from State import State`` are one module.

This is the package's ground floor: it imports only the standard library, and whatever inside
the package needs the course's folder takes it from here, never from the package's face.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
# Installed from a wheel the course's files are in course/ inside this package; in a clone (and
# an editable install) they are the repository, the folder above it.
COURSE = os.path.join(_HERE, "course") if os.path.isdir(os.path.join(_HERE, "course")) \
    else os.path.dirname(_HERE)
INSTALLED = COURSE != os.path.dirname(_HERE)     # from a wheel, not a clone

# The course's flat modules. A fixed list, not the folder's files: a student's own file beside
# them (a json.py, say) is not one of the course's, and the check deals with it. The self-check,
# check.py, is a script no course file imports: a user's module named ``check`` simply wins.
COURSE_MODULES = (
    "AI_Agent", "Adversarial_Trainer", "Agent", "DQN_Trainer", "Episode", "ExpectedSARSA_Trainer",
    "Game", "Graphics", "Human_Agent", "MC_Trainer", "Q_Trainer", "Random_Agent",
    "Random_Agent_Advanced", "SARSA_Trainer", "State", "Tester", "TicTacToe")


def course_file(name: str) -> str | None:
    """The file of the course's module ``name`` in the course's folder, or None when ``name`` is
    none of them or the folder lacks it (the students' version has fewer)."""
    if name not in COURSE_MODULES:       # asked for every import: the common answer at once
        return None
    path = os.path.join(COURSE, name + ".py")
    return path if os.path.isfile(path) else None


def course_modules() -> list[str]:
    """The flat names of the course's modules (``State``, ``AI_Agent``, ...) that the course's
    files import from one another and that this folder holds: what this package makes
    importable, and keeps its own."""
    return [name for name in COURSE_MODULES if course_file(name)]


def _where(name: str) -> str | None:
    """The file of the module ``name`` that is imported, or that ``sys.path`` would give."""
    module = sys.modules.get(name)
    if module is not None:
        return getattr(module, "__file__", None) or "built in"
    spec = importlib.machinery.PathFinder.find_spec(name)
    return spec.origin if spec is not None else None


def clashes() -> list[str]:
    """The course's names whose module is, or would be found as, someone else's."""
    found = []
    for name in course_modules():
        where = _where(name)
        if where is not None and (where == "built in" or
                                  os.path.realpath(where) != os.path.realpath(course_file(name))):
            found.append(f"{name} ({where})")
    return found


class CourseFinder(importlib.abc.MetaPathFinder):
    """Finds each of the course's modules as its file in the course's folder, before
    ``sys.path`` is looked at."""

    def find_spec(self, name: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        file = course_file(name) if path is None else None     # a top-level name only
        return importlib.util.spec_from_file_location(name, file) if file else None


def load_by_location() -> None:
    """Make the course's names load from the course's folder, from now on; raise ``ImportError``
    naming any of them that is already, or would be found as, someone else's module (which
    would otherwise be silently mixed in, or silently hidden)."""
    found = clashes()
    if found:
        raise ImportError(f"tictactoe_rl: the course's modules keep their flat names, and these "
                          f"are someone else's: {', '.join(found)}; rename yours")
    if not any(isinstance(finder, CourseFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, CourseFinder())
    # Also on the path (last, hiding nothing) for the processes this one starts with spawn: they
    # get its sys.path, and may unpickle a State before they import this package.
    if not any(entry and os.path.realpath(entry) == os.path.realpath(COURSE)
               for entry in sys.path):
        sys.path.append(COURSE)
