"""Where a table may be written: the checks made before any training, temporary files, fallbacks.

Each check returns the problem in a few words (``None`` when all is well); ``tictactoe_rl.tables.files`` turns
it into a one-line ``TableError`` naming the path and what to do.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
import tempfile
import time
from dataclasses import dataclass

from State import symbol
from tictactoe_rl.home import COURSE

SUFFIX = ".pth"
MAX_NAME_BYTES = 255            # the longest file name the usual file systems allow
# The repository: missing folders are created under it (Data/, a run's own folder) or under the
# current folder, never elsewhere, so that a mistyped absolute path is reported, not created.
REPOSITORY = COURSE     # the repository (installed: tictactoe_rl/course/)
# A temporary file is ".tmp-<process id>-<random>.pth"; one whose process is gone (a killed save)
# or older than an hour is removed by the next save in its folder. (Earlier saves had no process
# id in the name.)
_TEMPORARY = re.compile(r"\.tmp-(?:(\d+)-)?[0-9a-f]{12}\.pth\Z")
_ORPHAN_SECONDS = 3600


@dataclass(frozen=True)
class Kind:
    """What kind of file is written, as the messages name it: its suffix, what it holds, and
    what an existing file of that kind is called."""
    suffix: str
    holds: str
    called: str
    short: str           # in the name of a fallback file: unsaved_<short>_X_1a2b3c<suffix>


TABLE = Kind(SUFFIX, "table", "Q-table file", "Q")


def target_problem(path: str, kind: Kind = TABLE) -> str | None:
    """What keeps a file of ``kind`` from being written at ``path`` at all: a name that can only
    be a folder, a name too long for a file system, or an existing thing that is not a regular
    file (a device, a pipe, a socket), which is never replaced."""
    if not path:
        return f"no file name given; give the path of a {kind.suffix} file to save the " \
               f"{kind.holds} to"
    if path.endswith(("/", os.sep)):
        return "ends with a slash, so it names a folder; add a file name, e.g. " \
               f"{os.path.join(path, 'Q' + kind.suffix)}"
    if os.path.isdir(path):
        return f"is a folder; give the path of a {kind.suffix} file to save the {kind.holds} to"
    for part in path.split(os.sep):
        if len(os.fsencode(part)) > MAX_NAME_BYTES:
            return f"a name in it is {len(os.fsencode(part)):,} bytes long, more than the " \
                   f"{MAX_NAME_BYTES} a file system allows; choose a shorter name"
    with contextlib.suppress(OSError):
        if not stat.S_ISREG(os.stat(path).st_mode):
            return "exists and is not a regular file (a device, a pipe or a socket?); a " \
                   f"{kind.holds} is never written over one: choose another path"
    return None


def destination_problem(path: str, is_kind, force: bool, kind: Kind = TABLE) -> str | None:
    """Everything ``target_problem`` checks, and: the name ends in the kind's suffix; an existing
    file is of that kind (``is_kind(path)``) unless ``force``; the folder exists, or is created
    here when it lies under the repository or the current folder; a file can be created in it."""
    problem = target_problem(path, kind)
    if problem:
        return problem
    if not path.endswith(kind.suffix):
        return f"a {kind.holds} file's name must end in {kind.suffix} (so that no other file is " \
               "overwritten by mistake); choose a name like " \
               f"{os.path.splitext(path)[0]}{kind.suffix}"
    if os.path.isfile(path) and not force and not is_kind(path):
        return f"exists and is not a {kind.called}; choose another path, or force it (--force) " \
               "to replace that file"
    problem = missing_folder_problem(path)
    if problem:
        return problem
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
        probe = temporary_path(folder)
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        os.remove(probe)
    except OSError as error:
        return f"cannot save here ({error.strerror or error}); choose another path"
    return None


def missing_folder_problem(path: str) -> str | None:
    """A missing folder of ``path`` outside the repository and the current folder: reported, not
    created, since a mistyped absolute path would otherwise make folders anywhere."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder) and not any(_inside(folder, root)
                                             for root in (REPOSITORY, os.getcwd())):
        return f"the folder {folder} does not exist; create it first (mkdir -p {folder}) or " \
               "choose another path"
    return None


def _inside(folder: str, root: str) -> bool:
    try:
        return os.path.commonpath([folder, os.path.abspath(root)]) == os.path.abspath(root)
    except ValueError:    # another drive (Windows)
        return False


def temporary_path(folder: str) -> str:
    """A fresh name for a temporary file in ``folder`` (it starts with a dot: hidden)."""
    return os.path.join(folder, f".tmp-{os.getpid()}-{secrets.token_hex(6)}{SUFFIX}")


def remove_orphans(folder: str) -> None:
    """Remove the temporary files that saves killed mid-write left in ``folder`` (only names of
    ours, and only those whose process is gone or that are older than an hour)."""
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            found = _TEMPORARY.match(entry.name)
            if found and entry.is_file(follow_symlinks=False) and _orphaned(entry, found[1]):
                with contextlib.suppress(OSError):
                    os.remove(entry.path)


def _orphaned(entry: os.DirEntry, pid: str | None) -> bool:
    if time.time() - entry.stat(follow_symlinks=False).st_mtime > _ORPHAN_SECONDS:
        return True
    if pid is None or os.name != "posix":   # no process id to ask about (or no way to ask)
        return False
    if int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)     # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):   # another user's process, or no such number
        return False
    return False


def fallback_paths(path: str, side: int, kind: Kind = TABLE) -> list[str]:
    """Where to keep a file of ``kind`` that could not be saved at ``path``: beside it, else in
    the temporary folder; short names that say which side, of no file that exists."""
    folders = dict.fromkeys([os.path.dirname(os.path.abspath(path)), tempfile.gettempdir()])
    return [_fresh_name(folder, side, kind) for folder in folders]


def _fresh_name(folder: str, side: int, kind: Kind) -> str:
    while True:
        name = os.path.join(folder, f"unsaved_{kind.short}_{symbol(side)}_{secrets.token_hex(3)}"
                                    f"{kind.suffix}")
        if not os.path.lexists(name):
            return name
