"""A submission's box on disk: made, filled, read back safely, and removed whatever it holds.

A box is a folder of its own inside the run folder::

    repo/          the students' version with the submission's files (the grader's; read-only
                   to the submission when the file systems are sealed)
    out/tables/    where the check keeps the tables it trained      } the only folders the
    tmp/           its temporary files                              } submission may write,
    home/          its HOME                                         } its account's own

``read_inside`` reads a file only when it really lies inside the box (no link leads the
grader's reading elsewhere); ``remove`` deletes a box without recursion (a submission may leave
folders thousands deep) and whatever permissions it left.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

WRITABLE = ("out", "tmp", "home")
TABLES = Path("out") / "tables"
MAX_TABLE_BYTES = 16 * 2**20      # tictactoe_rl.tables.files' own cap on a table file
MAX_TABLES = 4


def box_folders(box: Path) -> list[Path]:
    """The folders of ``box`` its submission may write."""
    return [Path(box) / name for name in WRITABLE]


def new_box(run_dir: Path, uid: int | None) -> Path:
    """A fresh box; its writable folders belong to ``uid`` when given. The run folder can be
    crossed but not listed, so a submission cannot find another's box."""
    run_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(run_dir, 0o711)
    box = Path(tempfile.mkdtemp(prefix="box-", dir=run_dir))
    os.chmod(box, 0o711)
    (box / "repo").mkdir(mode=0o755)
    (box / TABLES).mkdir(parents=True)
    for folder in box_folders(box):
        (folder).mkdir(exist_ok=True)
        os.chmod(folder, 0o700)
        if uid is not None:
            os.chown(folder, uid, uid)
    if uid is not None:
        os.chown(box / TABLES, uid, uid)
    return box


def write_tree(root: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` (relative path -> bytes) under ``root``, readable by every account
    (whatever the grader's umask) and writable by the grader's alone."""
    for name, data in files.items():
        path = root.joinpath(*name.split("/"))
        for folder in reversed(path.parents):
            if root in folder.parents and not folder.exists():
                folder.mkdir()
                os.chmod(folder, 0o755)
        path.write_bytes(data)
        os.chmod(path, 0o644)


def read_inside(box: Path, path: Path, cap: int) -> bytes | None:
    """The bytes of a regular file that really lies inside ``box``; ``None`` if there is no
    such file, or it is larger than ``cap``."""
    try:
        real = os.path.realpath(path)
        if os.path.commonpath([real, os.path.realpath(box)]) != os.path.realpath(box):
            return None
        descriptor = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except (OSError, ValueError):
        return None
    with os.fdopen(descriptor, "rb") as stream:
        info = os.fstat(stream.fileno())
        # One link only: a hard link to someone else's file is not the child's table.
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1 or info.st_size > cap:
            return None
        data = stream.read(cap + 1)
    return data if len(data) <= cap else None


def read_tables(box: Path) -> dict[str, bytes]:
    """The table files the check left in ``out/tables`` (name -> bytes), a few at most."""
    folder = box / TABLES
    tables: dict[str, bytes] = {}
    try:
        names = sorted(os.listdir(folder))[:MAX_TABLES] if not os.path.islink(folder) else []
    except OSError:
        return tables
    for name in names:
        data = read_inside(box, folder / name, MAX_TABLE_BYTES)
        if data is not None:
            tables[name] = data
    return tables


def remove(box: Path) -> None:
    """Delete ``box`` and everything in it, however deep (one descriptor open at a time, names
    relative to it: a path thousands of folders deep is longer than any the system takes),
    whatever permissions it left, never following a link out of it."""
    try:
        os.chmod(box, 0o700, follow_symlinks=False)
        current = os.open(box, _FOLDER)
    except OSError:
        return
    names: list[str] = []              # from the box down to the current folder
    skipped: list[set[str]] = [set()]  # per level: folders that cannot be removed
    try:
        while True:
            deeper = _empty_but_folders(current, skipped[-1])
            if deeper is not None:
                try:
                    os.chmod(deeper, 0o700, dir_fd=current)
                    opened = os.open(deeper, _FOLDER, dir_fd=current)
                except OSError:
                    skipped[-1].add(deeper)
                    continue
                os.close(current)
                current = opened
                names.append(deeper)
                skipped.append(set())
                continue
            if not names:
                break
            parent = os.open("..", _FOLDER, dir_fd=current)
            os.close(current)
            current = parent
            name = names.pop()
            skipped.pop()
            try:
                os.rmdir(name, dir_fd=current)
            except OSError:
                skipped[-1].add(name)
    finally:
        os.close(current)
    try:
        os.rmdir(box)
    except OSError:
        pass


_FOLDER = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)


def _empty_but_folders(folder: int, skipped: set[str]) -> str | None:
    """Delete every entry of the open ``folder`` that is not a folder; return the name of a
    folder in it still to remove, or ``None``."""
    found = None
    try:
        with os.scandir(folder) as scan:
            entries = list(scan)
    except OSError:
        return None
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if found is None and entry.name not in skipped:
                found = entry.name
        else:
            try:
                os.unlink(entry.name, dir_fd=folder)
            except OSError:
                pass
    return found
