"""The sandbox accounts of a grading run: none shared with another run on the same machine.

When the grader runs as root, slot n of its sandboxes runs as an unprivileged account of its own,
``account(n)``. Two grading runs at once (two courses, two teachers, a test suite's two workers)
must not share an account: its process limit and its kernel keyring are per account. The first
time a run asks for a slot's account it claims a free number: an exclusive lock on a file of its
own in a folder only root writes, held until the run ends (the kernel lets it go however the run
ends, even killed). Numbers of accounts no one has: ``ACCOUNT_BASE`` and up.
"""

from __future__ import annotations

import fcntl
import os
import stat
import threading
from pathlib import Path

ACCOUNT_BASE = 1_900_000_000
MOST_ACCOUNTS = 4096            # far more than the sandboxes of every run a machine holds at once
# /run is root's own and emptied at boot; the lock files live there.
LOCKS = Path("/run/tictactoe-grading")

_claimed: list[int] = []        # slot n -> the number of its account
_held: list[int] = []           # the locks' descriptors, open for the run's lifetime
_lock = threading.Lock()


def account(slot: int) -> int:
    """The account slot ``slot`` of this run runs as (claimed the first time it is asked)."""
    with _lock:
        while len(_claimed) <= slot:
            _claimed.append(_claim(_claimed[-1] + 1 if _claimed else 0))
        return ACCOUNT_BASE + _claimed[slot]


def _claim(first: int) -> int:
    """The first number from ``first`` that no other run holds, now held by this one."""
    folder = _lock_folder()
    for number in range(first, MOST_ACCOUNTS):
        descriptor = os.open(folder / f"{number}.lock",
                             os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            continue
        _held.append(descriptor)
        return number
    raise RuntimeError(f"every sandbox account is held by another grading run ({MOST_ACCOUNTS})")


def _lock_folder() -> Path:
    """``LOCKS``, made if missing; refused unless it is root's own folder that only root
    writes (anyone else could hold every account's lock, or point the files elsewhere)."""
    try:
        LOCKS.mkdir(mode=0o700)
    except FileExistsError:
        pass
    found = os.lstat(LOCKS)
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.geteuid() or found.st_mode & 0o022:
        raise RuntimeError(f"{LOCKS} is not a folder of the grader's own account that only it "
                           "writes: remove it, and grade again")
    return LOCKS
