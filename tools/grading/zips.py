"""Reading a hand-in that is a ``.zip``: only the members that matter, never unpacked to disk.

Contract: ``read_zip(path, editable, submission, own)`` fills ``submission`` (``handin.py``)
with the editable files, the student's own modules and the check files found under the folder
that holds most of them. A
damaged archive of any kind (bad deflate data, an unknown version or method, a name flagged
UTF-8 that is not, random damage), one with more than ``MAX_MEMBERS`` members and one with two
members of the same name are refused whole (``submission.refused``, one line); single members
that are links, leave the folder or are too large are refused and noted.

A member's name is read the same whoever wrote the archive (``member_name``): ``\\`` is a
separator as ``/`` is (PowerShell's ``Compress-Archive`` writes ``nim\\nim.py``), and ``.``
parts and repeated separators are dropped, so that a zip made on Windows grades exactly like the
same folder zipped on Linux, and two spellings of one name are two members of the same name.
"""

from __future__ import annotations

import re
import stat
import zipfile
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Callable

from tools.grading.handin import (
    MAX_CHECK_FILES, MAX_FILE_BYTES, MAX_MEMBERS, MAX_OWN_FILES, NOTED_NAMES, Submission,
    is_check_file)
from tools.grading.text import one_line, shown

_DRIVE = re.compile(r"^[A-Za-z]:")


def read_zip(path: Path, editable: tuple[str, ...], submission: Submission,
             own: Callable[[str], bool] = lambda name: False) -> None:
    """Fill ``submission`` from the zip ``path``: ``editable`` files, the student's own
    modules (the names ``own`` accepts, ``MAX_OWN_FILES`` at most) and the check files."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            if len(members) > MAX_MEMBERS:
                submission.refused = f"the archive has more than {MAX_MEMBERS:,} members"
                return
            twice = [name for name, count in Counter(
                member_name(member) for member in members).items()
                     if count > 1 and not name.endswith("/")]
            if twice:
                submission.refused = (f"the archive holds two members named {shown(twice[0])}: "
                                      "which one is meant cannot be told")
                return
            usable = _usable_members(members, submission)
            prefix = _prefix(list(usable), editable)
            mine = [name[len(prefix):] for name in sorted(usable)
                    if name.startswith(prefix) and own(name[len(prefix):])][:MAX_OWN_FILES]
            for name in [*editable, *mine]:
                member = usable.get(prefix + name)
                if member is not None:
                    _read_member(archive, member, name, submission)
            for name, member in usable.items():
                if name.startswith(prefix) and is_check_file(name[len(prefix):]) \
                        and len(submission.checks) < MAX_CHECK_FILES:
                    data = _unpacked(archive, member)
                    submission.checks[name[len(prefix):]] = data if isinstance(data, bytes) \
                        else b"(cannot be unpacked)"
    except Exception as error:  # noqa: BLE001  (a damaged archive may raise anything)
        submission.refused = f"the archive cannot be read ({_problem(error)})"


def _problem(error: BaseException) -> str:
    return one_line(f"{type(error).__name__}: {error}", 160)


def member_name(member: zipfile.ZipInfo) -> str:
    """The member's path with ``/`` alone between its parts, ending in ``/`` for a folder; an
    absolute one keeps its leading ``/`` (refused by ``_member_problem``)."""
    raw = member.filename.replace("\\", "/")
    parts = [part for part in raw.split("/") if part not in ("", ".")]
    lead = "/" if raw.startswith("/") else ""
    tail = "/" if raw.endswith("/") and parts else ""
    return lead + "/".join(parts) + tail


def _member_problem(member: zipfile.ZipInfo) -> str | None:
    name = member_name(member)
    if name.startswith("/") or _DRIVE.match(name):
        return "an absolute path"
    if ".." in PurePosixPath(name).parts:
        return "a path that leaves the folder (..)"
    if stat.S_ISLNK(member.external_attr >> 16):
        return "a symbolic link"
    return None


def _usable_members(members: list[zipfile.ZipInfo],
                    submission: Submission) -> dict[str, zipfile.ZipInfo]:
    """The regular file members by name; the ones refused for their path or kind are noted."""
    usable, refused = {}, []
    for member in members:
        problem = _member_problem(member)
        if problem:
            refused.append(f"{member.filename!r} ({problem})")
        elif not member_name(member).endswith("/"):
            usable[member_name(member)] = member
    if refused:
        more = f" and {len(refused) - NOTED_NAMES} more" if len(refused) > NOTED_NAMES else ""
        submission.notes.append(f"refused zip members: {', '.join(refused[:NOTED_NAMES])}{more}")
    return usable


def _prefix(names: list[str], editable: tuple[str, ...]) -> str:
    """The folder inside the archive that holds the submission: the one where most of the files
    to grade are (a zip of the folder itself has them under ``folder/``)."""
    found: dict[str, int] = {}
    for name in names:
        for wanted in editable:
            if name == wanted or name.endswith("/" + wanted):
                prefix = name[:len(name) - len(wanted)]
                if not prefix.startswith("__MACOSX/"):
                    found[prefix] = found.get(prefix, 0) + 1
    if not found:
        return ""
    return min(found, key=lambda prefix: (-found[prefix], len(prefix), prefix))


def _read_member(archive: zipfile.ZipFile, member: zipfile.ZipInfo, name: str,
                 submission: Submission) -> None:
    data = _unpacked(archive, member)
    if isinstance(data, bytes):
        submission.files[name] = data
    else:
        submission.notes.append(f"refused {name}: {data}")


def _unpacked(archive: zipfile.ZipFile, member: zipfile.ZipInfo) -> bytes | str:
    """The member's bytes, or why not (too large, damaged, encrypted, an unknown method...)."""
    if member.file_size > MAX_FILE_BYTES:
        return f"larger than {MAX_FILE_BYTES:,} bytes"
    try:
        with archive.open(member) as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except Exception as error:  # noqa: BLE001  (bad deflate data, version 10.0, a bad CRC...)
        return f"cannot be unpacked ({_problem(error)})"
    if len(data) > MAX_FILE_BYTES:      # the stated size was a lie
        return f"larger than {MAX_FILE_BYTES:,} bytes"
    return data
