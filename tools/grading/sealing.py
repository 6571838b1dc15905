"""What a grading run's sandboxes cover and must reach (``Sealing``), found once per run by
``sealing_for``: the folders to cover wholly, the ones to veil (covered but for the names on
the way to what a sandbox needs), and the paths its account must reach (``closed_folders``
finds the closed folders on the way, which ``launch.expose`` opens for it)."""

from __future__ import annotations

import os
import site
import stat
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Sealing:
    """What the sandboxes of one run cover and must reach (found by ``sealing_for``)."""
    hide: tuple[str, ...] = ()                          # folders covered by an empty one
    reach: tuple[str, ...] = ()                         # paths the account must reach
    # Folders to cover that hold something the sandbox needs (this repository holds the
    # grader's Python environment, say): covered all the same, showing only the names on the
    # way to it: ((folder, (name, ...)), ...).
    veil: tuple[tuple[str, tuple[str, ...]], ...] = ()


def closed_folders(paths: list[str]) -> list[list]:
    """Each folder on the way to ``paths`` that others may not enter, with the names inside it
    that lead on, shallowest first: ``[[folder, [name, ...]], ...]``."""
    closed: dict[str, set[str]] = {}
    for path in paths:
        for form in {os.path.abspath(path), os.path.realpath(path)}:
            parts = Path(form).parts
            for depth in range(1, len(parts)):
                folder = os.path.join(*parts[:depth])
                try:
                    mode = os.stat(folder).st_mode
                except OSError:
                    break
                if not mode & stat.S_IXOTH:
                    closed.setdefault(folder, set()).add(parts[depth])
    return [[folder, sorted(names)] for folder, names in
            sorted(closed.items(), key=lambda item: (len(Path(item[0]).parts), item[0]))]


def sealing_for(python: str, hide: list[Path], run_dir: Path) -> Sealing:
    """The folders of ``hide`` that exist, covered: wholly when they hold nothing a sandbox
    needs, else veiled (only the names on the way to what it needs are left); and the paths
    the account must reach: this Python's own (never the grader's ``sys.path``: this
    repository's folder is on it, and the solved code with it)."""
    reach = {python, os.path.realpath(python), sys.prefix, sys.base_prefix, sys.exec_prefix,
             *site.getsitepackages()}
    needed = [form for path in [*reach, str(run_dir)]
              for form in {os.path.abspath(path), os.path.realpath(path)}]
    folders = sorted({os.path.realpath(path) for path in hide if os.path.isdir(path)} - {"/"})
    covered, veil = [], []
    for folder in folders:
        if any(other != folder and folder.startswith(other.rstrip("/") + "/")
               for other in covered):
            continue                    # already out of sight under a covered folder
        inside = sorted({Path(os.path.relpath(path, folder)).parts[0] for path in needed
                         if os.path.commonpath([folder, path]) == folder and path != folder})
        if any(os.path.commonpath([path, folder]) == path for path in needed):
            continue                    # the folder is itself on the way to what is needed
        if inside:
            veil.append((folder, tuple(inside)))
        else:
            covered.append(folder)
    return Sealing(tuple(covered), tuple(sorted(reach)), tuple(veil))
