"""Whether the Python that runs a course script is the project's: one with the packages of
``requirements.txt``. A script run by another Python (``python3 check.py`` outside the virtual
environment, what most students type first) would fail somewhere inside with "No module named
'tqdm'", a traceback in code the student never wrote; instead it stops before anything runs,
with one line that says what to run, and exit status 2.

``State`` and ``cli`` call ``check_running_script`` when they are imported, so every script of the
course -- the students' trainers too, whatever header they typed -- checks before the first
package it needs is imported. Only the standard library is used here.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from tictactoe_rl.home import COURSE

FOLDER = Path(COURSE).resolve()      # the course's folder: the clone, or the installed copy
# The packages of requirements.txt that the course's scripts import (by their import names; the
# test tools, pytest and hypothesis, are not needed to run a script).
NEEDED = ("numpy", "torch", "tqdm", "pygame", "matplotlib")
SETUP_ERROR = 2


def missing() -> list[str]:
    """The packages of ``NEEDED`` that this Python cannot import (found, not imported)."""
    return [name for name in NEEDED if importlib.util.find_spec(name) is None]


def setup_line(script: str, absent: list[str]) -> str:
    """The one line that tells a user of the wrong Python what to run instead."""
    venv_python = FOLDER / ".venv" / ("Scripts" if os.name == "nt" else "bin") / "python"
    return (f"{script}: this Python ({sys.executable}) is not the project's: it lacks "
            f"{', '.join(absent)}. Run `make venv`, then `{_shown(venv_python)} "
            f"{_shown(FOLDER / script)}` (or install the packages into this Python: "
            f"`pip install -r {_shown(FOLDER / 'requirements.txt')}`)")


def _shown(path: Path) -> str:
    """``path`` as the user can type it here: relative to the current folder when inside it."""
    try:
        return os.path.relpath(path)
    except ValueError:           # another drive (Windows)
        return str(path)


def require(script: str) -> None:
    """Exit with status 2 and the set-up line when this Python lacks a package of ``NEEDED``."""
    absent = missing()
    if absent:
        print(setup_line(script, absent), file=sys.stderr, flush=True)
        sys.exit(SETUP_ERROR)


def check_running_script() -> None:
    """``require`` for the program being run, when it is a script in the course's folder (run
    as ``python NAME.py``); nothing for anything else (the tests, ``python -m``, a program of
    the user's that imports the course)."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path and getattr(main, "__spec__", None) is None \
            and Path(path).resolve().parent == FOLDER:
        require(Path(path).name)
