"""The trusted first program of a submission's sandbox: seal the file systems, set limits, run.

    unshare ... -- python -I -B -c "<this file's source>" PROGRAM ARGS...  < config as JSON

The grader passes this file's source with ``-c`` (the sandbox never needs to read the grader's
folder) and a config on its standard input, never on its command line, which every process
of the box could read in ``/proc/1/cmdline`` (``Isolation.command`` in ``isolation.py`` writes
it)::

    {"limits": {"RLIMIT_AS": [soft, hard], ...}, "mount": the path of mount(8),
     "box": the submission's folder or null, "writable": [folders inside the box],
     "expose": [[closed folder, [names inside it]], ...], "hide": [folders],
     "drop": [a command prefix, e.g. setpriv ...], "keep_fds": [descriptors],
     "cgroup": the box's memory cgroup or null, "filter": true or false}

First of all, when ``cgroup`` is set, this process joins that cgroup, so that everything the
box runs counts against its memory limit.

When ``box`` is set (this process then runs in mount, PID and IPC namespaces of its own, as root
there), in order: each closed folder on the way to the Python the account must run (``/root``,
mode 0700, say) is covered by an empty file system that shows only the names the account needs,
so that an unprivileged account can run it while the rest stays out of sight; each folder of
``hide`` (the grader's shipped tables, the hand-ins, the report) is covered by an empty,
read-only file system; every mount becomes read-only except the ``writable`` folders, and
``/proc/sys`` and ``/proc/sysrq-trigger`` are made read-only as well (the kernel would run a
program named in ``/proc/sys/kernel/core_pattern`` as full root outside every namespace). Then
with ``filter`` a seccomp filter, from here on, refuses every socket but IP and netlink (no unix
socket, no vsock), the kernel keyring and new user namespaces; the resource limits are lowered,
new files are made private (umask 077), and the program runs (its standard input
``/dev/null``) behind ``drop`` (which takes away every capability and changes the account), as
a child of this process that inherits only ``keep_fds``, whose exit status becomes this
program's: the child's own, or 128 + N when signal N killed it. A separate process, not an
``exec``, so that in a PID namespace the program does not run as the namespace's first process
(which ignores the signals a resource limit sends); when this program ends, the kernel kills
every process left in the namespace. A failure to seal exits with ``SEAL_FAILED``.
"""

import collections
import ctypes          # now: once a closed folder is covered, the standard library may be too
import json
import os
import re
import resource
import subprocess
import sys

SIGNAL_BASE = 128
SEAL_FAILED = 125
KERNEL_KNOBS = ("/proc/sys", "/proc/sysrq-trigger")
MS_BIND, MS_REC = 4096, 16384
_ESCAPED = re.compile(r"\\([0-7]{3})")      # mountinfo writes a space as \040


Mount = collections.namedtuple("Mount", "root point fstype options")


def mount_table() -> list:
    """Every mount of this mount namespace (``Mount``: its root in its file system, where it is
    mounted, its type, its options), read as the file system's bytes: a path may hold any."""
    with open("/proc/self/mountinfo", encoding=sys.getfilesystemencoding(),
              errors="surrogateescape") as stream:
        lines = stream.read().splitlines()
    table = []
    for line in lines:
        fields = line.split(" ")
        if "-" not in fields[6:]:
            continue
        tail = fields.index("-", 6)
        table.append(Mount(_unescaped(fields[3]), _unescaped(fields[4]), fields[tail + 1],
                           set(fields[5].split(",")) | set(fields[tail + 3].split(","))))
    return table


def _unescaped(field: str) -> str:
    return _ESCAPED.sub(lambda found: chr(int(found[1], 8)), field)


def mount_points() -> list:
    """Every mount point of this mount namespace, deepest first."""
    return sorted({mount.point for mount in mount_table()}, reverse=True)


def join_group(group: str) -> None:
    """Move this process (and so all it starts) into the box's memory cgroup."""
    with open(os.path.join(group, "cgroup.procs"), "w", encoding="ascii") as procs:
        procs.write("0")


def _mount(mount: str, *args: str) -> None:
    subprocess.run([mount, *args], check=True, stdout=subprocess.DEVNULL)


def expose(mount: str, closed: list) -> None:
    """Cover each closed folder with an empty file system holding only the given names, each
    bound to what it was (shallowest folder first: a deeper one is then reached through it).
    What a name was is held open while its folder is covered, and bound from there."""
    for folder, names in closed:
        held = [(name, os.open(os.path.join(folder, name), os.O_PATH)) for name in names]
        _mount(mount, "-t", "tmpfs", "-o", "mode=0711,size=64k", "tmpfs", folder)
        for name, descriptor in held:
            place = os.path.join(folder, name)
            if os.path.isdir(f"/proc/self/fd/{descriptor}"):
                os.mkdir(place)
            else:
                open(place, "a").close()
            _bind(f"/proc/self/fd/{descriptor}", place)
            os.close(descriptor)


def _bind(source: str, target: str) -> None:
    """mount(2) itself: mount(8) would look the source up by its name, now covered."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(source.encode(), target.encode(), None, MS_BIND | MS_REC, None) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"cannot bind {source} on {target}: {os.strerror(number)}")


def make_read_only(mount: str, writable: list) -> None:
    """Bind each writable folder onto itself (a mount of its own, left writable), then remount
    every other mount read-only; the kernel's knobs in /proc go read-only too."""
    for folder in writable:
        _mount(mount, "--bind", folder, folder)
    for knob in KERNEL_KNOBS:
        if os.path.exists(knob):
            _mount(mount, "--bind", knob, knob)
    for point in mount_points():
        if point in writable or point == "/proc":
            continue
        if point.startswith("/proc/") and not point.startswith(KERNEL_KNOBS):
            continue
        if not os.path.lexists(point):     # under a covered folder now: out of every path's reach
            continue
        _mount(mount, "-o", "remount,bind,ro", point)
    # The working folder was entered before the binds: enter it again, through the new mounts.
    os.chdir(os.getcwd())


def seal(config: dict) -> None:
    mount = config["mount"]
    expose(mount, config.get("expose", []))
    for folder in config.get("hide", []):
        if os.path.isdir(folder):        # not already out of sight under a covered folder
            _mount(mount, "-t", "tmpfs", "-o", "ro,mode=0555,size=4k", "tmpfs", folder)
    make_read_only(mount, config.get("writable", []))


# The seccomp filter: what no namespace covers. A unix socket file left open to all (mode 0777)
# accepts a connection through any read-only mount, and a vsock reaches the virtual machine's
# host: socket(2) is refused for every family but IP (loopback alone in the box's network
# namespace) and netlink (which asks that namespace for its interfaces); socketpair, which
# reaches nothing, is not filtered. The kernel keyring is kept per account, not per box, and
# outlives it: add_key, request_key and keyctl are refused. A user namespace of its own would
# give the box every capability there, over the kernel's largest surface: unshare and clone
# are refused with CLONE_NEWUSER, and clone3, whose flags lie in memory a filter cannot read,
# answers ENOSYS, on which the C library falls back to clone. Refused too: io_uring (which can
# open sockets where no filter sees it) and the machine's other system call ABIs.
_CALLS = {"x86_64": dict(arch=0xC000003E, socket=41, add_key=248, request_key=249, keyctl=250,
                         unshare=272, clone=56),
          "aarch64": dict(arch=0xC00000B7, socket=198, add_key=217, request_key=218, keyctl=219,
                          unshare=97, clone=220)}
_IO_URING_SETUP, _CLONE3, _X32_BIT = 425, 435, 0x40000000
_CLONE_NEWUSER = 0x10000000
_AF_INET, _AF_INET6, _AF_NETLINK = 2, 10, 16
_ALLOW, _ERRNO = 0x7FFF0000, 0x00050000
_EPERM, _EACCES, _ENOSYS = 1, 13, 38
# BPF: load a word of the call's data (0: its number, 4: the ABI, 16: its first argument's low
# half), return, and the jumps: equal, at least, any bit in common.
_LOAD, _RETURN, _EQUAL, _ABOVE, _BITS = 0x20, 6, 0x15, 0x35, 0x45
_NUMBER, _ABI, _FIRST = 0, 4, 16


def filter_closable() -> bool:
    """Whether ``install_filter`` knows this machine's system calls."""
    return sys.platform.startswith("linux") and os.uname().machine in _CALLS


def call_numbers(*names: str) -> list:
    """The numbers of the system calls ``names`` on this machine (-1 where it has no filter:
    a call that never exists, to the probe)."""
    calls = _CALLS.get(os.uname().machine, {})
    return [calls.get(name, -1) for name in names]


def _answer(errno: int) -> tuple:
    return (_RETURN, 0, 0, _ERRNO | errno)


def filter_program(machine: str) -> list:
    """The filter's instructions (code, jump if true, jump if false, constant)."""
    calls, refuse, allow = _CALLS[machine], _answer(_EPERM), (_RETURN, 0, 0, _ALLOW)
    program = [(_LOAD, 0, 0, _ABI), (_EQUAL, 1, 0, calls["arch"]), refuse,
               (_LOAD, 0, 0, _NUMBER), (_ABOVE, 0, 1, _X32_BIT), refuse,
               (_EQUAL, 0, 1, _CLONE3), _answer(_ENOSYS)]
    for number in (_IO_URING_SETUP, calls["add_key"], calls["request_key"], calls["keyctl"]):
        program += [(_EQUAL, 0, 1, number), refuse]
    for number in (calls["unshare"], calls["clone"]):      # their flags: the first argument
        program += [(_EQUAL, 0, 4, number), (_LOAD, 0, 0, _FIRST),
                    (_BITS, 0, 1, _CLONE_NEWUSER), refuse, allow]
    return program + [(_EQUAL, 0, 5, calls["socket"]), (_LOAD, 0, 0, _FIRST),
                      (_EQUAL, 3, 0, _AF_INET), (_EQUAL, 2, 0, _AF_INET6),
                      (_EQUAL, 1, 0, _AF_NETLINK), _answer(_EACCES), allow]


def install_filter() -> None:
    """Install the filter (see above) for this process and everything it starts."""
    program = filter_program(os.uname().machine)

    class Instruction(ctypes.Structure):
        _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte),
                    ("k", ctypes.c_uint)]

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Instruction))]

    instructions = (Instruction * len(program))(*[Instruction(*step) for step in program])
    libc = ctypes.CDLL(None, use_errno=True)
    fprog = Program(len(program), instructions)
    # PR_SET_NO_NEW_PRIVS, then PR_SET_SECCOMP with SECCOMP_MODE_FILTER
    if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"cannot install the system call filter: {os.strerror(number)}")


def apply_limits(limits: dict) -> list:
    """Lower every limit named in ``limits`` ({"RLIMIT_AS": [soft, hard], ...}); return the
    names of those this system does not have or refused (macOS, for one, refuses some)."""
    refused = []
    for name, (soft, hard) in limits.items():
        try:
            resource.setrlimit(getattr(resource, name), (soft, hard))
        except (AttributeError, ValueError, OSError):
            refused.append(name)
    return refused


def main(command: list) -> int:
    config = json.loads(sys.stdin.buffer.read() or b"{}")
    try:
        if config.get("cgroup"):
            join_group(config["cgroup"])
        if config.get("box"):
            seal(config)
        if config.get("filter"):
            install_filter()
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"launch: cannot seal the sandbox: {error}", file=sys.stderr)
        return SEAL_FAILED
    refused = apply_limits(config.get("limits", {}))
    if refused:
        print(f"launch: limits not available here: {', '.join(refused)}", file=sys.stderr)
    os.umask(0o077)
    keep = tuple(config.get("keep_fds", []))
    child = subprocess.Popen([*config.get("drop", []), *command], pass_fds=keep,
                             stdin=subprocess.DEVNULL)
    for descriptor in keep:      # the child's copy alone: its end tells the grader it ended
        os.close(descriptor)
    status = child.wait()
    return status if status >= 0 else SIGNAL_BASE - status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
