"""Where a run saves, checked before it trains: no file is ever lost.

A file already at the destination is replaced only when it is what the run makes -- the same kind
(table or network), board and side -- and is not one of the tables shipped with the course;
anything else needs ``--force``. Whatever is replaced is kept first as ``<name>.bak`` (one
generation), and the run says so: a rerun never silently takes a student's own table away. A run
that resumes a file and saves back into it replaces nothing of value (the new file holds the old
one's training), so it keeps no copy.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import zipfile
from dataclasses import dataclass
from typing import Callable

from tictactoe_rl import cli
from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from State import symbol
from tictactoe_rl.tables import board_files, destinations
from tictactoe_rl.tables.files import is_table_file, load_table
from tictactoe_rl.tables.shipped import SHIPPED

BACKUP_SUFFIX = ".bak"
_HEADER_MEMBERS = ("rows", "cols", "k", "side")    # a bigger board's table: what it is for
_MAX_HEADER_MEMBER = 1024                           # bytes; each is a single number


@dataclass(frozen=True)
class Purpose:
    """What a file is for: its kind (``table`` or ``network``), board and the sides it plays."""
    kind: str
    board: BoardShape
    sides: tuple[int, ...]

    def __str__(self) -> str:
        """``a table for X on the 3x3 k=3 board``."""
        return (f"a {self.kind} for {' and '.join(symbol(side) for side in self.sides)} on the "
                f"{self.board.name} board")


def purpose_of(path: str) -> Purpose | None:
    """What the file ``path`` is for, read from its header (a bigger board's table is not read
    whole: it may be millions of entries); None for a file that is none of ours or cannot be
    read."""
    with contextlib.suppress(Exception):    # whatever a damaged file raises: none of ours
        if board_files.is_board_file(path):
            rows, cols, k, side = _board_header(path)
            return Purpose("table", BoardShape(rows, cols, k), (side,))
        if is_table_file(path):
            return Purpose("table", TIC_TAC_TOE, (load_table(path)[1],))
        if _is_zip(path):    # torch.save's archive, as a network file is (torch loads slowly)
            from tictactoe_rl.neural.files import load_network
            saved = load_network(path)
            return Purpose("network", saved.network.board, saved.sides)
    return None


def _board_header(path: str) -> tuple[int, ...]:
    import numpy as np   # only for a bigger board's table
    with zipfile.ZipFile(path) as archive:
        found = []
        for name in _HEADER_MEMBERS:
            info = archive.getinfo(name + ".npy")
            if info.file_size > _MAX_HEADER_MEMBER:
                raise ValueError(f"member {name} is too large for a number")
            with archive.open(info) as stream:
                found.append(int(np.lib.format.read_array(stream, allow_pickle=False)))
    return tuple(found)


def _is_zip(path: str) -> bool:
    with open(path, "rb") as stream:
        return stream.read(4) == board_files.NPZ_START


def is_shipped(path: str) -> bool:
    """Whether ``path`` is one of the tables that ship with the course (by any name or link)."""
    for relative in SHIPPED:
        with contextlib.suppress(OSError):
            if os.path.samefile(path, os.path.join(cli.REPOSITORY, relative)):
                return True
    return False


def backup_path(path: str) -> str:
    """Where the file replaced at ``path`` is kept: ``path`` + ``.bak``."""
    return path + BACKUP_SUFFIX


def replacing_problem(path: str, purpose: Purpose) -> str | None:
    """Why the existing file ``path`` must not be replaced by a file for ``purpose`` without
    ``--force`` (None: it may be)."""
    found = purpose_of(path)
    if is_shipped(path):
        return f"is {found or 'a table'} shipped with the course, which no run replaces"
    if found is not None and found != purpose:
        return f"is {found}, and this run saves {purpose}"
    return None


def check_destination(path: str, purpose: Purpose, force: bool, check: Callable[[str, bool], None],
                      resumed: str | None = None) -> None:
    """Before training: ``ValueError`` (one line naming the file, what it is for and
    ``--force``) if the existing file ``path`` may not be replaced by a file for ``purpose``
    (``replacing_problem``); then the kind's own checks, ``check(path, force)`` (the name's
    suffix, a folder, a device, a file not of the kind, a folder where nothing can be written);
    then, if a file is there and is not the one the run resumes (``resumed``), keep it as
    ``<path>.bak`` now and say so."""
    exists = os.path.isfile(path) and not (resumed is not None and _same_file(path, resumed))
    problem = replacing_problem(path, purpose) if exists else None
    if problem and not force:
        raise ValueError(f"{cli.shown(path)}: {problem}; choose another --out, or add --force to "
                         f"replace it (the file is then kept as {cli.shown(backup_path(path))})")
    check(path, force)
    if exists:
        keep_previous(path)


def keep_previous(path: str) -> None:
    """Copy the existing file ``path`` to ``<path>.bak`` (whole, or not at all) and say so; a
    ``ValueError`` (one line) when it cannot be kept, before anything replaces it."""
    backup = backup_path(path)
    temporary = destinations.temporary_path(os.path.dirname(os.path.abspath(backup)))
    try:
        shutil.copyfile(path, temporary)     # whole, then renamed: never half a backup
        os.replace(temporary, backup)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        raise ValueError(f"{cli.shown(path)}: exists, and it cannot be kept as "
                         f"{cli.shown(backup)} before it is replaced ({error.strerror or error}); "
                         "free some disk space or choose another --out") from None
    print(f"note: {cli.shown(path)} exists and will be replaced; the previous file is kept as "
          f"{cli.shown(backup)}")


def _same_file(path: str, other: str) -> bool:
    try:
        return os.path.samefile(path, other)
    except OSError:
        return False
