"""The tables that ship with the course (``SHIPPED``), the one that plays X on a board when no
player is named (``DEFAULT_X_TABLES``), and their names, read the same way from any folder.

In a clone they are files of the repository. Installed (``pip install .``) they sit in the
package's ``course/Data/``: a path such as ``Data/Q_MC_X.pth`` that names no file in the current
folder but names one there is read from the installed copy, and the program says so on stderr.
A file in the current folder always comes first.
"""

from __future__ import annotations

import os
import sys

from tictactoe_rl.home import COURSE, INSTALLED
from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape

# Never replaced by a run (the 3x3 two are also those the self-check guards,
# tictactoe_rl.selfcheck.saved).
SHIPPED = ("Data/Q_MC_X.pth", "Data/Q_MC_O.pth",
           "Data/Q_ADV_X_4x4k4.pth", "Data/Q_ADV_O_4x4k4.pth")
# X's player by board when none is named: Monte Carlo's table on 3x3, the proven one on 4x4 k=4.
DEFAULT_X_TABLES = {TIC_TAC_TOE: "Data/Q_MC_X.pth", BoardShape(4, 4, 4): "Data/Q_ADV_X_4x4k4.pth"}


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
