"""The self-check's own processes sealed off from the student's code that runs beside them.

On Linux, a process of the check is made undumpable (no other process of the same account can
trace it, read its memory or open its descriptors under ``/proc``), ends when the process that
started it ends, and has a limit on its CPU time, so that nothing it leaves runs on for ever.
``check.py`` is also a subreaper: whatever a piece's code starts, however it leaves its session
(a double fork, ``setsid``), becomes its child when its parent ends, so ``check.py`` can end it.
Elsewhere these do nothing. This module imports only the standard library, so a process can
seal itself before it imports anything else.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36
# A piece's process and its children: far more CPU than any piece or the training takes.
PIECE_CPU_SECONDS = 300


def _prctl(option: int, value: int) -> None:
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def undumpable() -> None:
    """Keep processes of the same account out of this one's memory and descriptors."""
    _prctl(PR_SET_DUMPABLE, 0)


def end_with_parent() -> None:
    """Be killed when the process that started this one ends (even by SIGKILL)."""
    parent = os.getppid()
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if sys.platform.startswith("linux") and os.getppid() != parent:
        os._exit(1)              # it ended before the signal was asked for


def limit_cpu(seconds: int) -> None:
    """At most ``seconds`` of CPU time for this process (and each child it forks)."""
    try:
        import resource
    except ImportError:          # Windows
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard == resource.RLIM_INFINITY or hard > seconds:
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds))


def piece_process() -> None:
    """What a piece's process does first of all: undumpable, ends with check.py, CPU limited."""
    undumpable()
    end_with_parent()
    limit_cpu(PIECE_CPU_SECONDS)


def become_subreaper() -> None:
    """Become the parent of every process this one's descendants leave behind (Linux)."""
    _prctl(PR_SET_CHILD_SUBREAPER, 1)


def end_descendants() -> None:
    """Kill and reap every process left under this one (a subreaper's: see the docstring).
    Only for a process whose every child is one of the check's (check.py)."""
    if not sys.platform.startswith("linux"):
        return
    while True:
        for pid in children(os.getpid()):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.waitpid(-1, 0)         # a dead child's own children are ours by then
        except ChildProcessError:
            return


def children(parent: int) -> list[int]:
    """The processes whose parent is ``parent``, from ``/proc``."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stream:
                fields = stream.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and int(fields[1]) == parent:
            found.append(int(name))
    return found
