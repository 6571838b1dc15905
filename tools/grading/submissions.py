"""Reading submissions: a student's folder, or a ``.zip`` of one, read into memory once.

Contract: ``editable_files(pristine)`` names the files of the students' version that hold a stub
(``raise NotImplementedError("Exercise piece ...")``); those are taken from a submission, and
so are the student's own modules (``handin.is_own_file``: Python files the students' version
does not have, such as a helper that MC_Trainer.py imports) -- a student's own ``check.py``,
``tictactoe_rl/``, tests or any other issued file are never used. ``read_submission(path,
editable)`` returns a ``Submission`` with the bytes of each of those files that it found, and
notes on what it refused or missed. Nothing is read lazily: once
every submission has been read, what is on disk no longer matters, so a submission that rewrites
another's folder while it runs cannot change what is graded.

Refused (and noted): symbolic links, anything that is not a regular file, files larger than
``MAX_FILE_BYTES``; in a zip also members with an absolute path or a ``..`` part, symbolic-link
members, and archives with more than ``MAX_MEMBERS`` members. A hand-in that is neither a folder
nor a regular file (a FIFO, a device), a file that is not a zip, a damaged zip of any kind and a
zip with two members of the same name are refused whole: ``Submission.refused`` says why, in
one line, and nothing of it is graded. So is a hand-in that lies in a system folder (``/proc``,
``/sys``, ``/dev``) or right under ``/``: its folder cannot be covered without taking from every
box what it needs, so it never reaches ``Submission.folders`` (the folders every box covers).
A hand-in given as a symbolic link is read through it, once, into memory, like any other; its
``folders`` name both the link's folder and the target's.

The check files (``check.py``, ``tictactoe_rl/selfcheck/``, ``.github/``) are never used either, but they are
compared with the issued ones (``issued``: path -> bytes, those of the students' version): a
hand-in that changed, added or emptied one is flagged (``Submission.flags``), line endings
aside; so is one that added a file Python runs by itself (``STARTUP_FILES``, a ``.pth``) or
bytecode under them that Python did not write itself (a hash-based ``.pyc``, which GitHub
Classroom would run in place of the issued source). A file the hand-in left out is no change.
"""

from __future__ import annotations

import ast
import os
import stat
import zipfile
from pathlib import Path

from tictactoe_rl.selfcheck.pieces import STUB_PREFIX
from tools.grading.handin import (
    CHECK_FILES, MAX_CHECK_FILES, MAX_FILE_BYTES, MAX_OWN_FILES, NOTED_NAMES, TRUSTED, Submission,
    is_check_file, is_own_file, shadowing_name)
from tools.grading.stubs import untouched
from tools.grading.text import shown
from tools.grading.zips import read_zip

def editable_files(pristine: dict[str, bytes]) -> tuple[str, ...]:
    """The files of the students' version (relative path -> bytes) that hold an exercise stub."""
    found = []
    for name, data in sorted(pristine.items()):
        if name.endswith(".py") and not name.startswith(TRUSTED) and _has_stub(data):
            found.append(name)
    return tuple(found)


def _has_stub(source: bytes) -> bool:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        call = node.exc if isinstance(node, ast.Raise) else None
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id == "NotImplementedError" and call.args
                and isinstance(call.args[0], ast.Constant)
                and str(call.args[0].value).startswith(STUB_PREFIX)):
            return True
    return False


def read_submission(path: Path, editable: tuple[str, ...],
                    issued: dict[str, bytes] | None = None) -> Submission:
    """Read a hand-in (a folder or a zip; ``path`` must exist, the caller checked it) into a
    ``Submission``; ``issued``: the students' version's check files, to compare with."""
    path = Path(path)
    try:
        info = os.stat(path)          # follows a link given on the command line, on purpose
    except OSError as error:
        return Submission(name=shown(path.name or path), origin=str(path), refused=(
            "a link to nothing" if os.path.islink(path) else
            f"cannot be read ({error.strerror or error})"))
    name = path.absolute().name if stat.S_ISDIR(info.st_mode) else path.stem
    submission = Submission(name=shown(name or path), origin=str(path))
    problem = _place_problem(path, info.st_mode)
    if problem:
        submission.refused = problem
        return submission
    submission.folders = _holding_folders(path)
    if stat.S_ISDIR(info.st_mode):
        _read_folder(path, editable, submission)
        _read_folder(path, own_files(path, issued or {}), submission)
        _read_folder_checks(path, submission)
    elif not _is_zip(path):
        submission.refused = "not a folder and not a zip archive"
    else:
        read_zip(path, editable, submission, lambda name: is_own_file(name, issued or {}))
    if submission.refused:
        submission.files.clear()
        return submission
    submission.flags += changed_checks(submission.checks, issued or {})
    if issued:
        submission.untouched = untouched(issued, submission.files, editable)
    missing = [name for name in editable if name not in submission.files]
    if len(missing) == len(editable):
        submission.notes.append("none of the files to grade was found (every piece keeps its "
                                "stub)")
    elif missing:
        submission.notes.append(f"missing (kept the stub): {', '.join(missing)}")
    return submission


# Kinds of file that are no hand-in, named as the row says them.
_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
SYSTEM_FOLDERS = ("/proc", "/sys", "/dev")


def _place_problem(path: Path, mode: int) -> str | None:
    """Why a hand-in cannot be graded for what it is or where it lies, before any reading."""
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
        kind = next((name for test, name in _KINDS if test(mode)), "a special file")
        return f"neither a folder nor a regular file ({kind})"
    real = os.path.realpath(path)
    system = next((folder for folder in SYSTEM_FOLDERS
                   if real == folder or real.startswith(folder + "/")), None)
    if system:
        return f"lies in the system folder {system}, not a student's hand-in"
    if os.path.dirname(real) == "/":
        return "lies right under /: move it into a folder of hand-ins"
    return None


def _holding_folders(path: Path) -> tuple[str, ...]:
    """The folder holding ``path`` as given, and the one holding what it resolves to."""
    return tuple(sorted({os.path.dirname(os.path.abspath(path)),
                         os.path.dirname(os.path.realpath(path))}))


def _is_zip(path: Path) -> bool:
    try:
        return zipfile.is_zipfile(path)
    except Exception:  # noqa: BLE001  (a damaged file may raise anything: it is not a zip)
        return False


def written_by_python(name: str, data: bytes) -> bool:
    """Whether ``name`` is bytecode as Python writes it when it runs the check (a ``.pyc`` of
    a ``__pycache__`` checked against its source's time stamp). A hash-based one is made on
    purpose, and an unchecked one runs in place of its source whatever the source says."""
    return ("__pycache__/" in name and name.endswith(".pyc") and len(data) >= 16
            and data[4:8] == b"\0\0\0\0")


def changed_checks(found: dict[str, bytes], issued: dict[str, bytes]) -> list[str]:
    """A flag naming the check files in ``found`` that differ from the ``issued`` ones."""
    def same(a: bytes, b: bytes) -> bool:
        return a.replace(b"\r\n", b"\n") == b.replace(b"\r\n", b"\n")

    issued = {name: data for name, data in issued.items() if is_check_file(name)}
    changed = sorted(name for name, data in found.items()
                     if (name not in issued or not same(data, issued[name]))
                     and not written_by_python(name, data))
    shadows = [name for name in changed if shadowing_name(name)]
    changed = [name for name in changed if name not in shadows]
    flags = [f"{shown(name)} is named like the module {shadowing_name(name)} that Python or the "
             "check needs (it would be imported in its place): not used" for name in shadows]
    if not changed:
        return flags
    more = f" and {len(changed) - NOTED_NAMES} more" if len(changed) > NOTED_NAMES else ""
    return flags + [f"check files differ from the issued ones: "
                    f"{', '.join(map(shown, changed[:NOTED_NAMES]))}{more}"]


def unique_names(submissions: list[Submission]) -> None:
    """Give each submission whose name an earlier one has the first number that makes it no
    other's, whatever the others are called (a hand-in may itself be named ``alice (2)``)."""
    taken = {submission.name for submission in submissions}
    seen: set[str] = set()
    for submission in submissions:
        if submission.name in seen:
            count = 2
            while f"{submission.name} ({count})" in taken:
                count += 1
            submission.name = f"{submission.name} ({count})"
            taken.add(submission.name)
        seen.add(submission.name)


# --- folders ------------------------------------------------------------------------------------

def own_files(folder: Path, issued: dict[str, bytes]) -> tuple[str, ...]:
    """The student's own modules in ``folder`` (``is_own_file``), the first ``MAX_OWN_FILES``
    of them in a walk that follows no link."""
    found, pending = [], [""]
    while pending and len(found) < MAX_OWN_FILES:
        relative = pending.pop()
        try:
            with os.scandir(folder / relative) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            name = f"{relative}{entry.name}"
            if entry.is_dir(follow_symlinks=False) and not name.startswith(TRUSTED) \
                    and not entry.name.startswith(".") and entry.name != "__pycache__":
                pending.append(name + "/")
            elif entry.is_file(follow_symlinks=False) and is_own_file(name, issued):
                found.append(name)
    return tuple(found[:MAX_OWN_FILES])


def _read_folder(folder: Path, editable: tuple[str, ...], submission: Submission) -> None:
    base = os.path.realpath(folder)
    for name in editable:
        path = os.path.join(folder, *name.split("/"))
        if not os.path.lexists(path):
            continue
        problem = _folder_problem(path, base)
        if problem:
            submission.notes.append(f"refused {name}: {problem}")
            continue
        try:
            data = _read_capped(path)
        except OSError as error:
            submission.notes.append(f"refused {name}: cannot be read ({error.strerror})")
            continue
        if data is None:
            submission.notes.append(f"refused {name}: larger than {MAX_FILE_BYTES:,} bytes")
        else:
            submission.files[name] = data


def _read_folder_checks(folder: Path, submission: Submission) -> None:
    """The hand-in's check files (regular files only, a few hundred at most, no link followed,
    however deep: no recursion)."""
    try:
        with os.scandir(folder) as scan:
            beside = [entry for entry in scan if is_check_file(entry.name)
                      or is_check_file(f"{entry.name}/__init__.py")]
    except OSError:
        beside = []
    for entry in beside:
        if entry.is_file(follow_symlinks=False):
            _take_check(Path(entry.path), entry.name, submission)
        elif entry.is_dir(follow_symlinks=False):        # a package named like a needed module
            _take_check(Path(entry.path, "__init__.py"), f"{entry.name}/__init__.py", submission)
    pending = [name.rstrip("/") for name in CHECK_FILES[1:]]
    while pending and len(submission.checks) < MAX_CHECK_FILES:
        relative = pending.pop()
        try:
            with os.scandir(folder / relative) as scan:
                entries = list(scan)
        except OSError:
            continue
        for entry in entries:
            name = f"{relative}/{entry.name}"
            if entry.is_symlink():
                continue
            if entry.is_dir(follow_symlinks=False):
                pending.append(name)
            elif entry.is_file(follow_symlinks=False):
                _take_check(Path(entry.path), name, submission)


def _take_check(path: Path, name: str, submission: Submission) -> None:
    try:
        data = _read_capped(str(path))
    except OSError:
        return
    submission.checks[name] = data if data is not None else b"(larger than the cap)"


def _folder_problem(path: str, base: str) -> str | None:
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        return "a symbolic link"
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    # A link on the way (nim/ itself, say) could point into another student's folder.
    if os.path.commonpath([os.path.realpath(path), base]) != base:
        return "lies outside the submission's folder (through a link)"
    return None


def _read_capped(path: str) -> bytes | None:
    """The file's bytes, or ``None`` when it is larger than the cap; never follows a link."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(descriptor, "rb") as stream:
        data = stream.read(MAX_FILE_BYTES + 1)
    return None if len(data) > MAX_FILE_BYTES else data
