"""A student's file named like a module that the check or Python needs.

The student's folder comes first on ``sys.path`` of the check's processes, so a ``json.py`` (or a
``random/`` package, a ``numpy.py``) beside ``check.py`` would be imported in place of the real
module, by the check's own code as much as by the student's, and could decide its verdicts. A
name counts when it is one of Python's own modules (``sys.stdlib_module_names``) or the top-level
module of a package the course requires (``requirements.txt``), and a file or package of that
name sits at the top of the folder. This module imports only the standard library, so
``check.py`` can use it before the folder is on ``sys.path``.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys

# The top-level modules of the packages in requirements.txt (the names they are imported by).
REQUIRED = ("torch", "numpy", "pygame", "tqdm", "matplotlib", "pytest", "hypothesis")
SUFFIXES = tuple(importlib.machinery.all_suffixes())


def needed_names() -> frozenset[str]:
    """The module names no file of the student's may take."""
    return frozenset(sys.stdlib_module_names) | frozenset(REQUIRED)


def shadowing(names: list[str], needed: frozenset[str] | None = None) -> list[str]:
    """The entries among ``names`` (a folder's top-level file and folder names; a folder's as
    ``name/`` when it holds an ``__init__.py``) that Python would import in place of a needed
    module, sorted."""
    needed = needed_names() if needed is None else needed
    found = []
    for name in names:
        stem = name[:-1] if name.endswith("/") else next(
            (name[:-len(suffix)] for suffix in SUFFIXES if name.endswith(suffix)), None)
        if stem is not None and stem in needed:
            found.append(name)
    return sorted(found)


def shadowing_in(folder: str) -> list[str]:
    """``shadowing`` of the files and packages at the top of ``folder`` (none if unreadable)."""
    try:
        entries = os.listdir(folder)
    except OSError:
        return []
    names = [f"{name}/" if os.path.isfile(os.path.join(folder, name, "__init__.py")) else name
             for name in entries]
    return shadowing(names)


def message(found: list[str]) -> str:
    """One line naming what shadows what, and what to do."""
    names = ", ".join(found)
    modules = ", ".join(dict.fromkeys(name.rstrip("/").split(".")[0] for name in found))
    return (f"{names} in your folder has the name of a module that Python or the check needs "
            f"({modules}), so it would be imported instead of it: rename it")
