"""The tables that ship with the course (``Data/Q_MC_X.pth``, ``Data/Q_MC_O.pth``), named the
same way from any folder.

In a clone they are files of the repository. Installed (``pip install .``) they sit in the
package's ``course/Data/``: a path such as ``Data/Q_MC_X.pth`` that names no file in the current
folder but names one there is read from the installed copy, and the program says so on stderr.
A file in the current folder always comes first.
"""

from __future__ import annotations

import os
import sys

from tictactoe_rl import COURSE, INSTALLED


def resolve(path: str) -> str:
    """``path`` itself when it exists or is not relative (or in a clone); else the installed
    copy of the same relative path, when there is one, with a line on stderr saying which."""
    if not INSTALLED or os.path.isabs(path) or os.path.lexists(path):
        return path
    copy = os.path.join(COURSE, os.path.normpath(path))
    if os.path.commonpath([COURSE, copy]) != COURSE or not os.path.isfile(copy):
        return path         # outside the course's folder, or not there either: the path's error
    print(f"{path}: not in this folder; using the installed copy {copy}", file=sys.stderr)
    return copy
