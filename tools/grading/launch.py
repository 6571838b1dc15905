"""The trusted first program of a submission's child process: set the limits, run the check.

    python -c "<this file's source>" '{"RLIMIT_AS": [n, n], ...}' python check.py ...

The grader passes this file's source with ``-c`` (the child never needs to read the grader's
folder). It lowers each named resource limit (``resource.RLIMIT_*``: the soft and hard values),
makes new files private to the child's account (umask 077), runs the command as its own child and
exits with that child's status, or 128 + N when signal N killed it. It is a separate process, not
an ``exec``, so that in a PID namespace the check does not run as the namespace's first process
(which ignores the signals a resource limit sends); when this program ends, the kernel kills
every process left in the namespace.
"""

import json
import os
import resource
import subprocess
import sys

SIGNAL_BASE = 128


def apply_limits(limits: dict) -> None:
    """Lower every limit named in ``limits`` ({"RLIMIT_AS": [soft, hard], ...})."""
    for name, (soft, hard) in limits.items():
        resource.setrlimit(getattr(resource, name), (soft, hard))


def main(argv: list) -> int:
    apply_limits(json.loads(argv[0]))
    os.umask(0o077)
    child = subprocess.Popen(argv[1:])
    status = child.wait()
    return status if status >= 0 else SIGNAL_BASE - status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
