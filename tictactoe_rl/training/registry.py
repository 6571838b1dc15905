"""The table trainers, found rather than listed: every top-level ``*_Trainer.py`` that defines
a ``TRAINER`` (a ``tictactoe_rl.training.command.Trainer``). A new algorithm is one such file;
``tools/compare.py``, the bench and every trainer's ``--help`` then know it.

``trainer_scripts`` reads the files without running them (``ast``), for ``--help``; ``trainers``
imports them, for the tools that need their defaults.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from tictactoe_rl.home import COURSE

ROOT = Path(COURSE).resolve()    # where the course's trainers are
PATTERN = "*_Trainer.py"
NAME = "TRAINER"


def defines_trainer(path: Path) -> bool:
    """Whether the module ``path`` assigns ``TRAINER`` at its top level."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return any(isinstance(node, ast.Assign)
               and any(isinstance(target, ast.Name) and target.id == NAME
                       for target in node.targets)
               for node in tree.body)


def trainer_scripts(root: Path = ROOT) -> list[str]:
    """The file names of the table trainers in ``root``, sorted: ``["MC_Trainer.py", ...]``."""
    return sorted(path.name for path in root.glob(PATTERN) if defines_trainer(path))


def trainers(root: Path = ROOT) -> list:
    """The ``TRAINER`` of every table trainer in ``root`` (imported; ``root`` must be on
    ``sys.path``), in the order of ``trainer_scripts``."""
    return [importlib.import_module(script[:-len(".py")]).TRAINER
            for script in trainer_scripts(root)]
