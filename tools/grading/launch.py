"""The trusted first program of a submission's sandbox: seal the file systems, set limits, run.

    unshare ... -- python -I -B -c "<this file's source>" '<config as JSON>' PROGRAM ARGS...

The grader passes this file's source with ``-c`` (the sandbox never needs to read the grader's
folder) and a config (``Isolation.command`` in ``isolation.py`` writes it)::

    {"limits": {"RLIMIT_AS": [soft, hard], ...}, "mount": the path of mount(8),
     "box": the submission's folder or null, "writable": [folders inside the box],
     "expose": [[closed folder, [names inside it]], ...], "hide": [folders],
     "drop": [a command prefix, e.g. setpriv ...], "keep_fds": [descriptors]}

When ``box`` is set (this process then runs in mount, PID and IPC namespaces of its own, as root
there), in order: each closed folder on the way to the Python the account must run (``/root``,
mode 0700, say) is covered by an empty file system that shows only the names the account needs,
so that an unprivileged account can run it while the rest stays out of sight; each folder of
``hide`` (the grader's shipped tables, the hand-ins, the report) is covered by an empty,
read-only file system; every mount becomes read-only except the ``writable`` folders, and
``/proc/sys`` and ``/proc/sysrq-trigger`` are made read-only as well (the kernel would run a
program named in ``/proc/sys/kernel/core_pattern`` as full root outside every namespace). Then
the resource limits are lowered, new files are made private (umask 077), and the program runs
behind ``drop`` (which takes away every capability and changes the account), as a child of this
process that inherits only ``keep_fds``, whose exit status becomes this program's: the child's
own, or 128 + N when signal N killed it. A separate process, not an ``exec``, so that in a PID
namespace the program does not run as the namespace's first process (which ignores the signals
a resource limit sends); when this program ends, the kernel kills every process left in the
namespace. A failure to seal exits with ``SEAL_FAILED``.
"""

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


def mount_points() -> list:
    """Every mount point of this mount namespace, deepest first."""
    with open("/proc/self/mountinfo", encoding="utf-8") as stream:
        points = {_ESCAPED.sub(lambda found: chr(int(found[1], 8)), line.split()[4])
                  for line in stream if line.strip()}
    return sorted(points, reverse=True)


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


def main(argv: list) -> int:
    config, command = json.loads(argv[0]), argv[1:]
    try:
        if config.get("box"):
            seal(config)
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"launch: cannot seal the file systems: {error}", file=sys.stderr)
        return SEAL_FAILED
    refused = apply_limits(config.get("limits", {}))
    if refused:
        print(f"launch: limits not available here: {', '.join(refused)}", file=sys.stderr)
    os.umask(0o077)
    keep = tuple(config.get("keep_fds", []))
    child = subprocess.Popen([*config.get("drop", []), *command], pass_fds=keep)
    for descriptor in keep:      # the child's copy alone: its end tells the grader it ended
        os.close(descriptor)
    status = child.wait()
    return status if status >= 0 else SIGNAL_BASE - status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
