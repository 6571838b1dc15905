"""Running one submission: its own box, the trusted check as a child process, limits, a verdict.

Contract: ``run_submission(submission, pristine, settings)`` writes a fresh box (``box.py``)
whose ``repo/`` holds the students' version (``pristine``: relative path -> bytes, read into
memory once, the shipped tables left out) with the submission's editable files written over it
and its own modules (a helper that MC_Trainer.py imports) beside them,
runs the trusted self-check there in the sandbox that ``settings.isolation`` describes::

    python check.py --all --json /proc/self/fd/N --tables ../out/tables --stream HEX   (cwd: repo/)

and returns an ``Outcome``: exit status, whether the time limit stopped it, the first and last
bytes of its output, the verdict, the trained tables' bytes with the games each was trained on,
and the seed of the opponent's stream the grader drew for them (``Outcome.stream``: the grader
plays those games again itself, ``measure.py``). The box is deleted before it returns.

The verdict travels over a pipe the grader opened: its write end ``N`` is handed to the check
alone (the check's own children, which run the student's code, never inherit it; the check is
undumpable, so another process of its account cannot open it through ``/proc``), and its read
end stays in the grader. Nothing in the box is ever read as a verdict, and the verdict counts
only when the check ended by itself with its own exit status (0 or 1): a check that was killed,
or that a submission stopped, has none (``Outcome.verdict``).

The child runs in a session of its own with limits on memory (address space; and, where the
isolation has memory cgroups, all of the box's memory together: ``cgroups.py``), CPU time, the
size of any file it writes, open files and processes; it is killed, with its whole process
group (and, in a PID namespace, everything it started), when the wall-clock limit passes. Its
environment holds only what the check needs, with ``HOME`` in its box.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tictactoe_rl.selfcheck.streams import Tail, kill_group
from tools.grading.box import TABLES, new_box, read_tables, remove, write_tree
from tools.grading.handin import Submission
from tools.grading.accounts import account
from tools.grading.isolation import CHECKER, Isolation
from tools.grading.limits import Limits, environment

MAX_RESULT_BYTES = 1 * 2**20
CHECK_STATUSES = (0, 1)          # check.py's own: every piece counted passed / one did not
SHIPPED_TABLES = (".pth", ".pt")  # in Data/: the course's trained tables stay out of every box
# The children running now (their process groups), so that an interrupted grader ends them.
_RUNNING: set[int] = set()
_RUNNING_LOCK = threading.Lock()
_STOPPED = threading.Event()


@dataclass
class Settings:
    """One grading run's fixed choices, and the free sandbox slots (one account each)."""
    run_dir: Path
    limits: Limits = Limits()
    isolation: Isolation = Isolation()
    python: str = sys.executable
    jobs: int = 1
    editable: tuple[str, ...] = ()          # the only issued files a submission may replace
    slots: queue.Queue = field(default_factory=queue.Queue)

    def __post_init__(self) -> None:
        for slot in range(self.jobs):
            self.slots.put(slot)


@dataclass
class Outcome:
    """What a child left behind."""
    returncode: int | None
    timed_out: bool
    seconds: float
    stdout: str
    stderr: str
    result: bytes | None               # what the check sent over its verdict pipe
    tables: dict[str, bytes] = field(default_factory=dict)   # file name in out/tables -> bytes
    box: str = ""          # where the box was (to read the paths the result names)
    out_of_memory: bool = False     # the box's memory cgroup had a process killed
    stream: str = ""       # the seed of the training opponent's stream, the grader's own

    @property
    def verdict(self) -> bytes | None:
        """The check's verdict, when it ended by itself; ``None`` otherwise."""
        ended = not self.timed_out and self.returncode in CHECK_STATUSES
        return self.result if ended else None


def box_files(pristine: dict[str, bytes], submission: Submission,
              editable: tuple[str, ...]) -> dict[str, bytes]:
    """The box's repository: the students' version without the shipped tables, with the
    submission's ``editable`` files written over it and its own modules beside them (no other
    file of the students' version is ever replaced)."""
    files = {name: data for name, data in pristine.items()
             if not (name.startswith("Data/") and name.endswith(SHIPPED_TABLES))}
    files.update({name: data for name, data in submission.files.items()
                  if name in editable or name not in pristine})
    return files


def run_submission(submission: Submission, pristine: dict[str, bytes],
                   settings: Settings) -> Outcome:
    """Grade ``submission`` in a box of its own; see the module's docstring."""
    slot = settings.slots.get()
    try:
        uid = account(slot) if settings.isolation.accounts else None
        box = new_box(settings.run_dir, uid)
        try:
            write_tree(box / "repo", box_files(pristine, submission, settings.editable))
            return _check(box, settings, slot, uid)
        finally:
            remove(box)
            memory = settings.isolation.memory
            if memory:
                memory.remove(os.path.join(memory.folder, box.name))
    finally:
        settings.slots.put(slot)


def _check(box: Path, settings: Settings, slot: int, uid: int | None) -> Outcome:
    memory = settings.isolation.memory
    group = memory.make(box.name) if memory else None      # removed with the box
    reading, writing = os.pipe()
    try:
        if uid is not None:      # the check reopens it by its path: it must be the account's
            os.fchown(writing, uid, uid)
        python = settings.python
        stream = os.urandom(16).hex()     # the grader plays the training's games again with it
        command, config = settings.isolation.command(python, settings.limits, box, [
            python, "-I", "-B", "-c", CHECKER, "check.py", "--all", "--json",
            descriptor_path(writing), "--tables", str(box / TABLES), "--stream", stream], slot,
            (writing,), group)
        verdict = Tail(os.fdopen(reading, "rb", closefd=False), MAX_RESULT_BYTES, whole=True)
        outcome = run_program(command, box / "repo", environment(box), settings.limits, writing,
                              config)
        outcome.out_of_memory = bool(memory and memory.out_of_memory(group))
        verdict.join()
        outcome.result = verdict.whole()
    finally:
        os.close(reading)
    outcome.box, outcome.stream = str(box), stream
    outcome.tables = read_tables(box)
    return outcome


def descriptor_path(descriptor: int) -> str:
    folder = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"
    return f"{folder}/{descriptor}"


def run_program(command: list[str], cwd: Path, env: dict[str, str], limits: Limits,
                keep: int | None = None, config: bytes = b"") -> Outcome:
    """Start ``command`` in a session of its own (handing it descriptor ``keep`` and closing
    the grader's copy, and ``config`` on its standard input), wait at most
    ``limits.seconds``, then kill its group."""
    start = time.monotonic()
    with _RUNNING_LOCK:
        try:
            if _STOPPED.is_set():        # a worker that was about to start when Ctrl-C came
                raise RuntimeError("the grading was stopped")
            child = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     start_new_session=True, close_fds=True,
                                     pass_fds=() if keep is None else (keep,))
        finally:
            if keep is not None:
                os.close(keep)
        _RUNNING.add(child.pid)
    tails = [Tail(child.stdout, limits.output), Tail(child.stderr, limits.output)]
    feed = threading.Thread(target=_feed, args=(child.stdin, config), daemon=True)
    feed.start()
    timed_out = False
    try:
        child.wait(timeout=limits.seconds)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        kill_group(child.pid)
        child.wait()
        with _RUNNING_LOCK:
            _RUNNING.discard(child.pid)
    feed.join()
    for tail in tails:
        tail.join()
    return Outcome(child.returncode, timed_out, time.monotonic() - start,
                   tails[0].text(), tails[1].text(), None)


def _feed(stream, data: bytes) -> None:
    """Write ``data`` to a child's standard input and close it (a child that never reads it,
    or is gone, takes nothing)."""
    try:
        with stream:
            stream.write(data)
    except OSError:
        pass


def stop_all() -> None:
    """Kill every child running now (Ctrl-C, SIGTERM: a child has a session of its own, so the
    terminal's interrupt never reaches it), and start no more. Everything a check started in its
    session goes too (in a PID namespace, even what left the session: the namespace dies with
    its first process)."""
    with _RUNNING_LOCK:
        _STOPPED.set()
        for group in list(_RUNNING):
            kill_group(group)
