"""Every hostile file refused in bounded time and memory: the CPU time and peak memory of each
refusal, measured in a fresh process that reads the file as a user's command does.

    python tools/benchmarks/hostile.py            # every file of tools/hostile/tables.py and
                                             # tools/hostile/networks.py (several minutes:
                                             # the 4.4 GB bomb is deflated first)
    python tools/benchmarks/hostile.py --only zip64,stride

Tables are read by ``Tester.py --show-q PATH``, networks by ``Tester.py --show-q dqn:PATH``,
changed optimiser states by ``DQN_Trainer.py --resume PATH``. For each: whether it was refused
with exit 2 and one line and left as it was, the CPU seconds of the refusal (after the imports),
and the process's peak memory above that of the same process reading nothing. Target: at most
2 s of CPU and 300 MB each.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)
from tools.hostile.networks import NETWORKS, RESUME, RESUMES, good_network  # noqa: E402
from tools.hostile.tables import HOSTILE, ZIPPED, as_torch_zip  # noqa: E402

MAX_CPU = 2.0                   # seconds
MAX_MEMORY = 300 * 2**20        # bytes above the interpreter

# In the fresh process: import what the commands import, then run one (or none) and report.
PROBE = """
import contextlib, io, json, resource, signal, sys
sys.path.insert(0, sys.argv[1])
import DQN_Trainer, Tester
from tictactoe_rl import cli
def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
mains = {"tester": Tester.main, "trainer": DQN_Trainer.run}
status, err, before = None, io.StringIO(), cpu()
if len(sys.argv) > 2:
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            cli.run_main(lambda: mains[sys.argv[2]](sys.argv[3:]))
        except SystemExit as ended:
            status = ended.code
used = cpu() - before
with open("/proc/self/status") as lines:    # this process's peak resident memory (VmHWM), kB
    peak = next(int(line.split()[1]) for line in lines if line.startswith("VmHWM:"))
print(json.dumps({"status": status, "err": err.getvalue(), "cpu": used, "peak": peak * 1024}))
"""


def probe(*command: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, str(ROOT), *command],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"the probe failed: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def hostile_files(folder: Path) -> list[tuple[str, Path, list[str], str]]:
    """``(name, path, command, words)`` for every hostile file, written into ``folder``."""
    found = []
    for number, (name, (build, words)) in enumerate({**HOSTILE, **ZIPPED}.items()):
        path = folder / f"table{number}.pth"
        path.write_bytes(build() if name in ZIPPED else as_torch_zip(build()))
        found.append((name, path, ["tester", "--show-q", str(path)], words))
    good = good_network(str(folder / "good.pt"))
    for number, (name, (build, words)) in enumerate({**NETWORKS, **RESUMES}.items()):
        path = folder / f"network{number}.pt"
        path.write_bytes(build(good))
        command = ["trainer", "--resume", str(path), *RESUME] if name in RESUMES else \
            ["tester", "--show-q", f"dqn:{path}"]
        found.append((name, path, command, words))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="tools/benchmarks/hostile.py", description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", metavar="WORDS",
                        help="only the files whose names contain one of these comma-separated "
                             "words (default: all)")
    args = parser.parse_args(argv)
    words = [word for word in args.only.split(",") if word]
    interpreter = probe()["peak"]
    print(f"the interpreter with the readers imported: {interpreter / 2**20:.0f} MB", flush=True)
    worst_cpu = worst_memory = 0.0
    failed = 0
    with tempfile.TemporaryDirectory() as folder:
        print("writing the hostile files ...", flush=True)
        for name, path, command, expected in hostile_files(Path(folder)):
            if words and not any(word in name for word in words):
                continue
            before = path.read_bytes()
            result = probe(*command)
            lines = result["err"].strip().splitlines()
            refused = result["status"] == 2 and len(lines) == 1 and expected in lines[0] \
                and path.read_bytes() == before
            above = max(0.0, (result["peak"] - interpreter) / 2**20)   # noise can make it < 0
            ok = refused and result["cpu"] <= MAX_CPU and above <= MAX_MEMORY / 2**20
            failed += not ok
            worst_cpu, worst_memory = max(worst_cpu, result["cpu"]), max(worst_memory, above)
            print(f"{'ok  ' if ok else 'FAIL'} {name} ({path.stat().st_size:,} bytes, "
                  f"{command[0]}): {'refused in one line' if refused else 'NOT REFUSED'}, "
                  f"CPU {result['cpu']:.2f} s, peak {above:+.0f} MB", flush=True)
    print(f"worst: CPU {worst_cpu:.2f} s (target <= {MAX_CPU:g} s), peak +{worst_memory:.0f} MB "
          f"(target <= {MAX_MEMORY // 2**20} MB); {failed} file(s) outside the target")
    return 1 if failed else 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
