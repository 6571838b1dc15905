"""How a submission's sandbox is sealed off: what this system allows, found once per grading run.

Contract: ``detect_isolation(run_dir)`` returns the strongest ``Isolation`` that really works
here, with a line for each stronger one that did not (the report shows them). Each candidate
runs a probe inside a sandbox of its own that must report the expected account, no network
interface but loopback, no way to write outside its box or into ``/proc/sys``, and the grader's
own Python. ``Isolation.command`` is the whole command line for one sandbox.

On Linux, with ``unshare`` (util-linux), as root or where user namespaces are allowed, the
strongest: network, PID, IPC and mount namespaces; every file system read-only but the box's
writable folders, ``/proc/sys`` too; the folders in ``Sealing.hide`` covered; ``setpriv`` takes
away every capability and, when the grader runs as root, gives each sandbox an unprivileged
account of its own (``accounts.account``: no two sandboxes running at once, of this run or
another, share one, so each gets its own process limit). Closed folders on the way to the
grader's Python (a Python under ``/root``, say) are opened for that account by
``launch.expose``, which shows only the names on the way. Where the grader could make memory
cgroups (``cgroups.py``), the root candidates put each box in one; on x86-64 and ARM64 the
sealed ones filter system calls (``launch.filter_program``): every socket but IP and netlink
(no unix socket, no vsock), the kernel keyring (kept per account: it would outlive the box) and
new user namespaces are refused.

A candidate the system refuses to make gives way to the next; one it makes but that fails its
probe raises ``SelfTestFailed`` (see ``detect_isolation``): a weaker sandbox is never chosen
silently for a failure that is this run's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

from tools.grading import launch
from tools.grading.accounts import account
from tools.grading.box import box_folders, new_box, remove
from tools.grading.cgroups import MemoryGroups
from tools.grading.limits import Limits, environment
# sealing_for: the grader and its tests find a run's sealing here, beside the isolation.
from tools.grading.sealing import Sealing, closed_folders, sealing_for  # noqa: F401

PROBE_SECONDS = 60
CORE_PATTERN = "/proc/sys/kernel/core_pattern"
# Started in the sandbox instead of ``python check.py``: the check, made undumpable first, so
# that another process of the same account can neither trace it nor open its descriptors (the
# one the verdict leaves by above all).
CHECKER = """
import runpy, sys
if sys.platform.startswith("linux"):
    import ctypes
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)          # PR_SET_DUMPABLE, 0
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
# The probe reports its account, Python, network interfaces, what it can write, whether a call
# the filter refuses got past it (a unix or vsock socket, the keyring, a user namespace: the
# numbers of keyctl and unshare are its fifth argument) and its cgroups, to confirm that what
# an isolation promises is really on.
PROBE = """
import ctypes, json, os, socket, sys
import torch
def can_write(path):
    try:
        with open(path, "a"):
            pass
        return True
    except OSError:
        return False
def unfiltered():            # whether a call the filter refuses got past it
    for family in (socket.AF_UNIX, 40):        # 40: AF_VSOCK
        try:
            socket.socket(family).close()
            return True
        except OSError as error:
            if error.errno != 13:      # EACCES is the filter's answer, before any family's own
                return True
    keyctl, unshare = json.loads(sys.argv[4])
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(keyctl, 0, -4, 0) >= 0:         # the account's keyring's number
        return True
    child = os.fork()
    if child == 0:                    # a user namespace would change this process's account
        os._exit(libc.syscall(unshare, 0x10000000) == 0)
    return os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) != 0
with open("/proc/self/cgroup") as groups:
    cgroups = groups.read()
print(json.dumps([os.getuid(), sys.version, [name for _, name in socket.if_nameindex()],
                  can_write(os.path.join(sys.argv[1], ".probe")), can_write(sys.argv[2]),
                  can_write(sys.argv[3]), unfiltered(), cgroups]))
"""


@dataclass(frozen=True)
class Isolation:
    """How a sandbox is sealed off: the namespaces ``unshare`` makes and what they give."""
    namespaces: tuple[str, ...] = ()
    network: bool = False
    pids: bool = False                         # also IPC: each sandbox's own SysV memory
    read_only: bool = False                    # every file system read-only but the box's own
    accounts: bool = False                     # an unprivileged account per sandbox
    own_count: bool = False                    # the process limit counts its processes alone
    filtered: bool = False     # seccomp: only IP and netlink sockets, no keyring, no userns
    memory: MemoryGroups | None = None         # a memory cgroup per box
    tools: dict[str, str] = field(default_factory=dict)
    sealing: Sealing = Sealing()

    def describe(self) -> str:
        parts = [f"network {'off (a namespace with no interfaces)' if self.network else 'ON'}",
                 "PID and IPC namespaces " + ("on" if self.pids else "off"),
                 "every file system read-only except its own copy's output, /proc/sys too"
                 if self.read_only else "files writable wherever the account may write",
                 "runs as an unprivileged account of its own" if self.accounts
                 else "runs as the grader's own account"]
        parts += ["no unix or vsock sockets, no kernel keyring, no new user namespaces"] \
            if self.filtered else []
        parts += ["all of a box's memory counted against its limit (a cgroup)"] \
            if self.memory else []
        return "; ".join(parts)

    def features(self) -> list[str]:
        """What it gives, one phrase each (the report lists those that were not available)."""
        found = {"no network": self.network, "PID and IPC namespaces": self.pids,
                 "read-only file systems": self.read_only,
                 "an unprivileged account per submission": self.accounts,
                 "no unix or vsock sockets": self.filtered,
                 "no kernel keyring, no new user namespaces": self.filtered,
                 "a memory limit that counts all of a box's memory (a cgroup)":
                     self.memory is not None}
        return [name for name, on in found.items() if on]

    def command(self, python: str, limits: Limits, box: Path, run: list[str], slot: int = 0,
                keep_fds: tuple[int, ...] = (), group: str | None = None
                ) -> tuple[list[str], bytes]:
        """The command line that runs ``run`` (a program and its arguments) in ``box``, and the
        config to give it on its standard input (``launch``); ``group``: the box's memory
        cgroup (``MemoryGroups.make``), when ``memory`` is on."""
        config = {"limits": limits.rlimits(self.own_count), "box": None,
                  "drop": list(self.drop(slot)), "keep_fds": list(keep_fds),
                  "cgroup": group, "filter": self.filtered}
        if self.read_only:
            config.update(box=os.path.realpath(box), mount=self.tools["mount"],
                          hide=list(self.sealing.hide),
                          writable=[os.path.realpath(path) for path in box_folders(box)],
                          expose=self.exposed(box))
        prefix = [self.tools["unshare"], *self.namespaces, "--"] if self.namespaces else []
        source = Path(launch.__file__).read_text(encoding="utf-8")
        return [*prefix, python, "-I", "-B", "-c", source, *run], json.dumps(config).encode()

    def exposed(self, box: Path) -> list[list]:
        """The folders covered but for some names (``launch.expose``), shallowest first: the
        veiled ones, the run folder, and for an account of its own the closed folders on its
        way."""
        names: dict[str, set[str]] = {folder: set(shown) for folder, shown in self.sealing.veil}
        # The run folder shows this box alone: not the others beside it, nor the grader's own
        # files there (the shipped tables), whoever owns the folder inside the sandbox.
        names.setdefault(os.path.realpath(Path(box).parent), set()).add(Path(box).name)
        if self.accounts:
            for folder, shown in closed_folders([*self.sealing.reach, str(box)]):
                names.setdefault(folder, set()).update(shown)
        return [[folder, sorted(names[folder])] for folder in
                sorted(names, key=lambda folder: (len(Path(folder).parts), folder))]

    def drop(self, slot: int) -> tuple[str, ...]:
        if not self.read_only:
            return ()
        drop = (self.tools["setpriv"], "--no-new-privs", "--bounding-set=-all", "--inh-caps=-all")
        if self.accounts:
            uid = account(slot)
            drop += (f"--reuid={uid}", f"--regid={uid}", "--clear-groups")
        return (*drop, "--")


USER_NAMESPACE = ("--user", "--map-root-user")


def candidates(sealing: Sealing, memory: MemoryGroups | None = None) -> list[Isolation]:
    """The isolations to try, strongest first (the last one always works); ``memory`` is given
    to those whose first process is really root (only root moves a process into a cgroup)."""
    tools = {name: shutil.which(name) for name in ("unshare", "setpriv", "mount")}
    if not sys.platform.startswith("linux") or tools["unshare"] is None:
        return [Isolation()]
    root = os.geteuid() == 0
    # A user namespace lets an ordinary account make the others (as root inside it), and gives
    # its processes a count of their own. Root makes them without one -- unless it runs without
    # the capabilities (a container): then a user namespace may still be allowed.
    users = ((), USER_NAMESPACE) if root else (USER_NAMESPACE,)
    counted = not root          # a user namespace's count; root's holds all its processes

    def spaces(user: tuple[str, ...]) -> tuple[str, ...]:
        return (*user, "--net", "--ipc", "--pid", "--fork", "--kill-child", "--mount-proc")

    filtered = launch.filter_closable()
    sealed = [Isolation((*spaces(user), "--mount"), True, True, True, False, counted, filtered,
                        None if user else memory, tools, sealing)
              for user in users] if all(tools.values()) else []
    if sealed and root:         # strongest: root's own namespaces and an account per box
        sealed.insert(0, replace(sealed[0], accounts=True, own_count=True))
    # sealed ones first, then namespaces without the read-only mounts, then the network alone
    return (sealed + [Isolation(spaces(user), True, True, own_count=counted, tools=tools)
                      for user in users]
            + [Isolation((*user, "--net"), True, own_count=counted, tools=tools)
               for user in users] + [Isolation()])


class SelfTestFailed(Exception):
    """A sandbox this system allows failed its self-test for this run: what it promises did not
    hold, or it works only without this run's covered folders. The message is one line."""


class Contradiction(str):
    """A probe's problem when the probe ran and found a promise broken (not a refusal by the
    system to make the sandbox at all)."""


def detect_isolation(run_dir: Path, sealing: Sealing = Sealing(), python: str = sys.executable,
                     weaker: bool = False, memory: MemoryGroups | None = None
                     ) -> tuple[Isolation, list[str]]:
    """The strongest isolation that really works here, and each protection it lacks that a
    stronger one would have given, with why that one did not work. A candidate this system
    refuses to make (no namespaces, no capability) gives way to the next; one it makes but
    that fails its self-test -- a broken promise, or a failure that goes away without this
    run's covered and veiled folders and its memory cgroup (``_bare``) -- raises
    ``SelfTestFailed``, unless ``weaker``: then it too gives way."""
    refused: list[tuple[Isolation, str]] = []
    chosen = Isolation()
    for candidate in candidates(sealing, memory):
        problem = probe(candidate, run_dir, python)
        if problem is None:
            chosen = candidate
            break
        bare = _bare(candidate)
        if not weaker and (isinstance(problem, Contradiction) or (
                bare != candidate and probe(bare, run_dir, python) is None)):
            raise SelfTestFailed(f"the sandbox failed its self-test ({problem})")
        refused.append((candidate, problem))
    missing: dict[str, str] = {}
    for candidate, problem in refused:
        for feature in candidate.features():
            if feature not in chosen.features():
                missing.setdefault(feature, problem)
    return chosen, [f"{feature} ({problem})" for feature, problem in missing.items()]


def _bare(candidate: Isolation) -> Isolation:
    """``candidate`` without what one run adds to it: the folders it covers and veils, its
    memory cgroup."""
    reach = Sealing(reach=candidate.sealing.reach)
    return replace(candidate, sealing=reach if candidate.read_only else candidate.sealing,
                   memory=None)


def probe(candidate: Isolation, run_dir: Path, python: str) -> str | None:
    """``None`` when ``candidate`` works, else what went wrong (one line)."""
    box = new_box(run_dir, account(0) if candidate.accounts else None)
    try:
        group = candidate.memory.make(box.name) if candidate.memory else None
        command, config = candidate.command(python, Limits(), box, [
            python, "-c", PROBE, str(run_dir), str(box / "out" / ".probe"), CORE_PATTERN,
            json.dumps(launch.call_numbers("keyctl", "unshare"))], group=group)
        done = subprocess.run(command, cwd=box / "repo", env=environment(box),
                              capture_output=True, text=True, timeout=PROBE_SECONDS,
                              input=config.decode())
    except (OSError, subprocess.SubprocessError) as error:
        return f"{type(error).__name__}: {error}"
    finally:
        remove(box)
        if candidate.memory:
            candidate.memory.remove(os.path.join(candidate.memory.folder, box.name))
    try:
        uid, version, interfaces, outside, inside, knob, past, cgroups = json.loads(done.stdout)
    except (ValueError, TypeError):
        lines = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
        return lines[-1]
    if done.returncode != 0 or not inside:
        return Contradiction(f"the probe exited with status {done.returncode} or could not "
                             "write its box")
    if candidate.network and set(interfaces) - {"lo"}:
        return Contradiction("the network namespace still has interfaces")
    if candidate.read_only and (outside or knob):
        return Contradiction("the probe could write outside its box or into /proc/sys")
    if candidate.filtered and past:
        return Contradiction("the probe could make a unix or vsock socket, use the keyring or "
                             "make a user namespace")
    if candidate.memory and f"/{box.name}\n" not in cgroups:
        return Contradiction("the probe is not in its box's memory cgroup")
    if candidate.accounts and uid != account(0):
        return Contradiction(f"the probe ran as uid {uid}")
    if version != sys.version:
        return Contradiction(f"the account cannot run this Python as it is (it got Python "
                             f"{version.split()[0]})")
    return None
