"""The trusted first program of a submission's child process: seal it off, set limits, run.

    python -I -c "<this file's source>" '<config as JSON>' python check.py ...

The grader passes this file's source with ``-c`` (the child never needs to read the grader's
folder) and a config: ``{"limits": {"RLIMIT_AS": [soft, hard], ...}, "read_only_except": box
or null, "mount": path of mount(8), "drop": [a command prefix, e.g. setpriv ...]}``.

In order: when ``read_only_except`` names the box (this process then runs in a mount namespace
of its own, as root there), every mount becomes read-only except the box, bound onto itself;
the resource limits are lowered; new files are made private (umask 077). Then the command runs,
behind ``drop`` (which takes away the capabilities that could undo the read-only mounts, and
changes the account if asked), as a child of this process, whose exit status becomes this
program's: the child's own, or 128 + N when signal N killed it. A separate process, not an
``exec``, so that in a PID namespace the check does not run as the namespace's first process
(which ignores the signals a resource limit sends); when this program ends, the kernel kills
every process left in the namespace. A failure to seal exits with ``SEAL_FAILED``.
"""

import json
import os
import re
import resource
import subprocess
import sys

SIGNAL_BASE = 128
SEAL_FAILED = 125
_ESCAPED = re.compile(r"\\([0-7]{3})")      # mountinfo writes a space as \040


def mount_points() -> list:
    """Every mount point of this mount namespace, deepest first."""
    with open("/proc/self/mountinfo", encoding="utf-8") as stream:
        points = {_ESCAPED.sub(lambda found: chr(int(found[1], 8)), line.split()[4])
                  for line in stream if line.strip()}
    return sorted(points, reverse=True)


def make_read_only(box: str, mount: str) -> None:
    """Bind ``box`` onto itself (a mount of its own, left writable), then remount every other
    mount read-only (the namespace's own /proc stays as it is)."""
    quiet = {"check": True, "stdout": subprocess.DEVNULL}
    subprocess.run([mount, "--bind", box, box], **quiet)
    for point in mount_points():
        if point != box and point != "/proc" and not point.startswith("/proc/"):
            subprocess.run([mount, "-o", "remount,bind,ro", point], **quiet)
    # The working folder was entered before the bind: enter it again, through the new mount.
    os.chdir(os.getcwd())


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
        if config.get("read_only_except"):
            make_read_only(config["read_only_except"], config["mount"])
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"launch: cannot make the file system read-only: {error}", file=sys.stderr)
        return SEAL_FAILED
    refused = apply_limits(config.get("limits", {}))
    if refused:
        print(f"launch: limits not available here: {', '.join(refused)}", file=sys.stderr)
    os.umask(0o077)
    status = subprocess.Popen([*config.get("drop", []), *command]).wait()
    return status if status >= 0 else SIGNAL_BASE - status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
