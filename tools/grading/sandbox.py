"""Running one submission: its own throw-away copy, a child process, limits, isolation.

(Longer than the other modules on purpose: it is the grader's one security boundary, kept in
one file so that it can be reviewed in one reading.)

Contract: ``run_submission(submission, pristine, settings)`` writes a fresh folder ("box") inside
``settings.run_dir`` holding ``repo/`` -- the students' version as generated from this repository
(``pristine``: relative path -> bytes, read into memory once) with the submission's editable
files written over it -- and ``out/`` for the check's result. It runs the trusted self-check
there as a child process::

    python check.py --all --json out/result.json --tables out/tables      (cwd: repo/)

and returns an ``Outcome``: exit status, whether the time limit stopped it, the first and last
bytes of its output, the result file's bytes and the trained tables' bytes (each read without
following links and only from inside the box). The box is deleted before it returns.

The child runs in a session of its own with limits on memory (address space), CPU time, the
size of any file it writes, open files and (when it runs as an account of its own) processes;
it is killed, with its whole process group, when the wall-clock limit passes. Its environment
holds only what the check needs, with ``HOME`` in its own copy. ``detect_isolation`` finds once
per grading run what the operating system allows on top of that; on Linux, with ``unshare``
(as root, or as any account where user namespaces are allowed): a network namespace with no
interfaces, a PID namespace (nothing the submission starts outlives it), a mount namespace in
which every file system but its own box is read-only (with ``setpriv`` taking away the
capabilities that could undo that) and, when the grader runs as root and the account can run
the grader's Python, the unprivileged account ``nobody``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tools.grading import launch
from tools.grading.submissions import Submission

RESULT_NAME = "result.json"
TABLES_NAME = "tables"
MAX_RESULT_BYTES = 1 * 2**20
MAX_TABLE_BYTES = 16 * 2**20      # tables.files' own cap on a table file
MAX_TABLES = 4
UNPRIVILEGED = "nobody"
PROBE_SECONDS = 30
# The children running now (their process groups), so that an interrupted grader ends them.
_RUNNING: set[int] = set()
_RUNNING_LOCK = threading.Lock()
_STOPPED = threading.Event()
# The probe reports the child's account, Python, network interfaces and whether it can write
# outside and inside its box, to confirm that what an isolation promises is really on (and that
# the child runs the grader's own Python, not whatever another account finds under that name).
PROBE = """
import json, os, socket, sys
def can_write(folder):
    try:
        with open(os.path.join(folder, ".probe"), "w"):
            pass
        os.unlink(os.path.join(folder, ".probe"))
        return True
    except OSError:
        return False
print(json.dumps([os.getuid(), sys.version, [name for _, name in socket.if_nameindex()],
                  can_write(sys.argv[1]), can_write(".")]))
"""


@dataclass(frozen=True)
class Limits:
    """What one submission may use."""
    seconds: float = 600.0                 # wall clock, for the whole check
    memory: int = 2 * 2**30                # bytes of address space, per process
    file_size: int = 64 * 2**20            # bytes, largest file it may write
    processes: int = 64                    # only enforced when it runs as its own account
    open_files: int = 256
    output: int = 4096                     # bytes kept from each end of stdout and of stderr

    def rlimits(self, own_account: bool) -> dict[str, list[int]]:
        cpu = int(self.seconds) + 5        # the wall clock normally stops it first
        limits = {"RLIMIT_AS": [self.memory] * 2, "RLIMIT_CPU": [cpu, cpu + 5],
                  "RLIMIT_FSIZE": [self.file_size] * 2, "RLIMIT_CORE": [0, 0],
                  "RLIMIT_NOFILE": [self.open_files] * 2}
        if own_account:    # the process limit counts every process of the account
            limits["RLIMIT_NPROC"] = [self.processes] * 2
        return limits


@dataclass(frozen=True)
class Isolation:
    """How a child is sealed off: the namespaces ``unshare`` makes, what they give, and the
    prefix (``setpriv ...``) that drops the capabilities and maybe the account."""
    namespaces: tuple[str, ...] = ()
    network: bool = False
    pids: bool = False
    read_only: bool = False                    # every file system but the box read-only
    account: tuple[int, int] | None = None     # (uid, gid) the child runs as; None: ours
    drop: tuple[str, ...] = ()
    tools: tuple[str, str] = ("unshare", "mount")

    def describe(self) -> str:
        parts = [f"network {'off (a namespace with no interfaces)' if self.network else 'ON'}",
                 f"PID namespace {'on' if self.pids else 'off'}",
                 "every file system read-only except its own copy" if self.read_only
                 else "files writable wherever the account may write",
                 ("runs as the unprivileged account " + UNPRIVILEGED) if self.account
                 else "runs as the grader's own account"]
        return "; ".join(parts)

    def command(self, python: str, limits: Limits, box: Path, run: list[str]) -> list[str]:
        """The whole command line that runs ``run`` (a program and its arguments) for ``box``."""
        config = {"limits": limits.rlimits(own_account=self.account is not None),
                  "read_only_except": os.path.realpath(box) if self.read_only else None,
                  "mount": self.tools[1], "drop": list(self.drop)}
        prefix = [self.tools[0], *self.namespaces, "--"] if self.namespaces else []
        source = Path(launch.__file__).read_text(encoding="utf-8")
        return [*prefix, python, "-I", "-B", "-c", source, json.dumps(config), *run]


@dataclass(frozen=True)
class Settings:
    """One grading run's fixed choices."""
    run_dir: Path
    limits: Limits = Limits()
    isolation: Isolation = Isolation()
    python: str = sys.executable


@dataclass
class Outcome:
    """What a child left behind."""
    returncode: int | None
    timed_out: bool
    seconds: float
    stdout: str
    stderr: str
    result: bytes | None
    tables: dict[str, bytes] = field(default_factory=dict)   # file name in out/tables -> bytes
    box: str = ""          # where the box was (to read the paths the result names)


# --- isolation ----------------------------------------------------------------------------------

def _candidates() -> list[Isolation]:
    """The isolations to try, strongest first (the last one always works)."""
    unshare, setpriv, mount = (shutil.which(name) for name in ("unshare", "setpriv", "mount"))
    if not sys.platform.startswith("linux") or unshare is None:
        return [Isolation()]
    tools = (unshare, mount or "mount")
    pid = ("--pid", "--fork", "--kill-child", "--mount-proc")
    # A user namespace lets an ordinary account make the others (as root inside it).
    net = ("--net",) if os.geteuid() == 0 else ("--map-root-user", "--net")
    no_caps = (setpriv, "--no-new-privs", "--bounding-set=-all", "--inh-caps=-all")
    found = []
    if setpriv and mount:
        sealed = (*net, *pid, "--mount")
        user = _unprivileged() if os.geteuid() == 0 else None
        if user:
            found.append(Isolation(sealed, True, True, True, user, (
                *no_caps, f"--reuid={user[0]}", f"--regid={user[1]}", "--clear-groups", "--"),
                tools))
        found.append(Isolation(sealed, True, True, True, None, (*no_caps, "--"), tools))
    return found + [Isolation((*net, *pid), True, True, tools=tools),
                    Isolation(net, True, tools=tools), Isolation()]


def _unprivileged() -> tuple[int, int] | None:
    import pwd  # POSIX only, like everything here that needs it

    try:
        user = pwd.getpwnam(UNPRIVILEGED)
    except KeyError:
        return None
    return user.pw_uid, user.pw_gid


def detect_isolation(run_dir: Path, python: str = sys.executable) -> tuple[Isolation, list[str]]:
    """The strongest isolation that really works here, and why each stronger one did not: each
    candidate runs a probe that must report the expected account and, for a network namespace,
    no interface but loopback."""
    refused = []
    for candidate in _candidates():
        problem = _probe(candidate, run_dir, python)
        if problem is None:
            return candidate, refused
        refused.append(f"{candidate.describe()}: {problem}")
    return Isolation(), refused


def _probe(candidate: Isolation, run_dir: Path, python: str) -> str | None:
    """``None`` when ``candidate`` works, else what went wrong (one line)."""
    box = _new_box(run_dir, candidate)
    command = candidate.command(python, Limits(), box, [python, "-c", PROBE, str(run_dir)])
    try:
        done = subprocess.run(command, cwd=box, env=_environment(box, box), capture_output=True,
                              text=True, timeout=PROBE_SECONDS, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as error:
        return f"{type(error).__name__}: {error}"
    finally:
        _remove(box)
    try:
        uid, version, interfaces, outside, inside = json.loads(done.stdout)
    except (ValueError, TypeError):
        lines = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
        return lines[-1]
    if done.returncode != 0 or not inside:
        return f"the probe exited with status {done.returncode} or could not write its box"
    if candidate.network and set(interfaces) - {"lo"}:
        return "the network namespace still has interfaces"
    if (candidate.read_only or candidate.account) and outside:
        return "the probe could write outside its box"
    if candidate.account is not None and uid != candidate.account[0]:
        return f"the probe ran as uid {uid}"
    if version != sys.version:
        return f"the account cannot run this Python as it is (it got Python {version.split()[0]})"
    return None


# --- one submission ------------------------------------------------------------------------------

def run_submission(submission: Submission, pristine: dict[str, bytes],
                   settings: Settings) -> Outcome:
    """Grade ``submission`` in a box of its own; see the module's docstring."""
    box = _new_box(settings.run_dir, settings.isolation)
    try:
        repo, out = box / "repo", box / "out"
        # Only files the students' version has can come from a submission.
        _write_tree(repo, {**pristine, **{name: data for name, data in submission.files.items()
                                          if name in pristine}})
        (out / TABLES_NAME).mkdir(parents=True)
        (box / "tmp").mkdir()
        _hand_over(box, settings.isolation)
        command = settings.isolation.command(settings.python, settings.limits, box, [
            settings.python, "-B", "-s", "check.py", "--all",
            "--json", str(out / RESULT_NAME), "--tables", str(out / TABLES_NAME)])
        outcome = _run(command, repo, _environment(repo, box), settings.limits)
        outcome.box = str(box)
        outcome.result = _read_inside(box, out / RESULT_NAME, MAX_RESULT_BYTES)
        outcome.tables = _read_tables(box, out / TABLES_NAME)
        return outcome
    finally:
        _remove(box)


def _environment(home: Path, box: Path) -> dict[str, str]:
    """Only what the check needs: no variable of the grader's reaches the submission."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "TMPDIR": str(box / "tmp"),
            "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8",
            "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "MPLBACKEND": "Agg",
            "PYGAME_HIDE_SUPPORT_PROMPT": "1"}


def _run(command: list[str], cwd: Path, env: dict[str, str], limits: Limits) -> Outcome:
    start = time.monotonic()
    with _RUNNING_LOCK:
        if _STOPPED.is_set():            # a worker that was about to start when Ctrl-C came
            raise RuntimeError("the grading was stopped")
        child = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 start_new_session=True, close_fds=True)
        _RUNNING.add(child.pid)
    tails = [_Tail(child.stdout, limits.output), _Tail(child.stderr, limits.output)]
    timed_out = False
    try:
        child.wait(timeout=limits.seconds)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        _kill_group(child.pid)
        child.wait()
        with _RUNNING_LOCK:
            _RUNNING.discard(child.pid)
    for tail in tails:
        tail.join()
    return Outcome(child.returncode, timed_out, time.monotonic() - start,
                   tails[0].text(), tails[1].text(), None)


def stop_all() -> None:
    """Kill every child running now (Ctrl-C: a child has a session of its own, so the terminal's
    interrupt never reaches it)."""
    with _RUNNING_LOCK:
        _STOPPED.set()
        for group in list(_RUNNING):
            _kill_group(group)


def _kill_group(group: int) -> None:
    # Everything the check started in its session goes too (in a PID namespace, even what left
    # the session: the namespace dies with its first process).
    try:
        os.killpg(group, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class _Tail:
    """Reads a child's output as it comes, keeping its first and last ``keep`` bytes (a
    submission that prints megabytes costs neither memory nor disk)."""

    def __init__(self, stream, keep: int) -> None:
        self.stream, self.keep = stream, keep
        self.head, self.last, self.dropped = b"", b"", 0
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while chunk := self.stream.read1(65536):
            if len(self.head) < self.keep:
                room = self.keep - len(self.head)
                self.head, chunk = self.head + chunk[:room], chunk[room:]
            joined = self.last + chunk
            self.dropped += max(0, len(joined) - self.keep)
            self.last = joined[-self.keep:] if len(joined) > self.keep else joined

    def join(self) -> None:
        # A process that escaped (no PID namespace) may hold the pipe open: stop waiting then.
        self.thread.join(timeout=5)
        if not self.thread.is_alive():
            self.stream.close()

    def text(self) -> str:
        gap = f"\n[... {self.dropped:,} bytes left out ...]\n" if self.dropped else ""
        return (self.head + gap.encode() + self.last).decode("utf-8", "replace")


# --- the box ------------------------------------------------------------------------------------

def _new_box(run_dir: Path, isolation: Isolation) -> Path:
    # The run folder can be crossed but not listed, so a child cannot find another's box; a
    # child that deleted it does not stop the next one.
    run_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(run_dir, 0o711)
    box = Path(tempfile.mkdtemp(prefix="box-", dir=run_dir))
    _hand_over(box, isolation)
    return box


def _hand_over(box: Path, isolation: Isolation) -> None:
    """Give the box to the child's account, so that it can write only there."""
    if isolation.account is None:
        return
    uid, gid = isolation.account
    for folder, folders, files in os.walk(box):
        for name in [folder, *(os.path.join(folder, f) for f in folders + files)]:
            os.lchown(name, uid, gid)


def _write_tree(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        path = root.joinpath(*name.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _read_inside(box: Path, path: Path, cap: int) -> bytes | None:
    """The bytes of a regular file that really lies inside ``box`` (no link, on the way or at
    the end, can lead the grader's reading elsewhere); ``None`` if there is no such file."""
    try:
        real = os.path.realpath(path)
        if os.path.commonpath([real, os.path.realpath(box)]) != os.path.realpath(box):
            return None
        descriptor = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except (OSError, ValueError):
        return None
    with os.fdopen(descriptor, "rb") as stream:
        info = os.fstat(stream.fileno())
        # One link only: a hard link to someone else's file is not the child's result.
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1 or info.st_size > cap:
            return None
        data = stream.read(cap + 1)
    return data if len(data) <= cap else None


def _read_tables(box: Path, folder: Path) -> dict[str, bytes]:
    tables: dict[str, bytes] = {}
    try:
        names = sorted(os.listdir(folder))[:MAX_TABLES] if not os.path.islink(folder) else []
    except OSError:
        return tables
    for name in names:
        data = _read_inside(box, folder / name, MAX_TABLE_BYTES)
        if data is not None:
            tables[name] = data
    return tables


def _remove(box: Path) -> None:
    def allow(function, path, _):       # a child may leave folders without permissions
        os.chmod(os.path.dirname(path), 0o700)
        if not os.path.islink(path):
            os.chmod(path, 0o700)
        function(path)

    try:
        shutil.rmtree(box, onerror=allow)
    except OSError:
        pass
