"""Deep Q-learning at its target, seed by seed: ``python DQN_Trainer.py --seed S`` run exactly as a
user runs it, for X against random and for self-play, with its exact results and its times.

    python tools/benchmarks/dqn.py                     # seeds 1-10, both modes (about 15 minutes)
    python tools/benchmarks/dqn.py --seeds 1-3 --modes x
    python tools/benchmarks/dqn.py -- --batch 512      # the same with other trainer flags

The target (every seed): X against random wins at least 99 % of all games with no losses and is
unbeatable; in self-play X and O are both unbeatable; each run takes at most 120 s, the median at
most 45 s. Each run is a separate process, one after the other (``--threads 1``); its wall time
and its CPU time (user + system, from the operating system) are printed, so that a machine busy
with other work shows as wall time above CPU time. One line per run as it ends, then the medians.
"""

from __future__ import annotations

import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import cli  # noqa: E402  (the project root must be on the path first)

ROOT = Path(__file__).resolve().parents[2]
TARGET_WINS = 99.0              # % of all games, X against random
MAX_SECONDS = 120.0             # every run
MEDIAN_SECONDS = 45.0           # the median run
MODES = {"x": ("X vs random", []), "self": ("self-play", ["--opponent", "self"])}
_WINS = re.compile(r"exact vs random\s*: wins ([\d.]+)%\s+losses ([\d.]+)%")


def seed_range(text: str) -> list[int]:
    """Seeds written as ``1-10`` or ``1,4,7``."""
    try:
        if re.fullmatch(r"\d+-\d+", text, re.ASCII):
            first, last = map(int, text.split("-"))
            seeds = list(range(first, last + 1))
        else:
            seeds = [int(part) for part in text.split(",") if re.fullmatch(r"\d+", part, re.ASCII)]
            if len(seeds) != len(text.split(",")):
                raise ValueError
    except ValueError:
        seeds = []
    if not seeds or len(seeds) > 100:
        raise cli.argparse.ArgumentTypeError(f"expected seeds like 1-10 or 1,4,7, got {text!r}")
    return seeds


def side_reports(printed: str) -> list[dict]:
    """What the trainer's exact report says of each side it trained (X, then O in self-play):
    wins and losses against random (%), and whether it is unbeatable."""
    blocks = re.split(r"^[XO] network:$", printed, flags=re.MULTILINE)[1:] or [printed]
    reports = []
    for block in blocks:
        found = _WINS.search(block)
        if not found:
            raise RuntimeError(f"no exact report in the trainer's output:\n{printed}")
        reports.append({"wins": float(found[1]), "losses": float(found[2]),
                        "unbeatable": "unbeatable: no sequence" in block})
    return reports


def one_run(mode: str, seed: int, extra: list[str], folder: str) -> dict:
    """``DQN_Trainer.py --seed seed`` in ``mode``: its sides' reports, wall and CPU seconds."""
    command = [sys.executable, str(ROOT / "DQN_Trainer.py"), "--seed", str(seed), *MODES[mode][1],
               "--out", f"{folder}/{mode}-{seed}.pt", "--threads", "1", *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} ended with status {done.returncode}:\n"
                           f"{done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    sides = side_reports(done.stdout)
    met = all(side["unbeatable"] for side in sides) and wall <= MAX_SECONDS
    if mode == "x":
        met = met and sides[0]["wins"] >= TARGET_WINS and sides[0]["losses"] == 0
    return {"seed": seed, "sides": sides, "wall": wall, "cpu": cpu, "met": met}


def run_line(name: str, run: dict) -> str:
    sides = run["sides"]
    verdict = "ok" if run["met"] else "MISSED"
    beaten = "/".join("unbeatable" if side["unbeatable"] else "BEATABLE" for side in sides)
    return (f"{name} seed {run['seed']:>2}: X vs random wins {sides[0]['wins']:.4f} % losses "
            f"{sides[0]['losses']:.4f} %, {'X/O ' if len(sides) > 1 else ''}{beaten}; "
            f"wall {run['wall']:.1f} s, CPU {run['cpu']:.1f} s: {verdict}")


def summary(name: str, runs: list[dict]) -> str:
    walls = [run["wall"] for run in runs]
    median = statistics.median(walls)
    met = sum(run["met"] for run in runs)
    quality = "quality ok" if met == len(runs) else "quality MISSED"
    speed = ("time ok" if median <= MEDIAN_SECONDS and max(walls) <= MAX_SECONDS
             else "time TOO SLOW")
    verdict = f"{quality}, {speed}"
    return (f"{name}: target met in {met} of {len(runs)} seeds; lowest X wins vs random "
            f"{min(run['sides'][0]['wins'] for run in runs):.4f} %; wall median {median:.1f} s, "
            f"max {max(walls):.1f} s; CPU median {statistics.median(r['cpu'] for r in runs):.1f} "
            f"s, max {max(r['cpu'] for r in runs):.1f} s (target: every seed, each <= "
            f"{MAX_SECONDS:.0f} s, median <= {MEDIAN_SECONDS:.0f} s): {verdict}")


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="tools/benchmarks/dqn.py", description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=seed_range, default=list(range(1, 11)),
                        help="the seeds to run, e.g. 1-10 or 1,4 (default: 1-10)")
    parser.add_argument("--modes", choices=("x", "self", "both"), default="both",
                        help="x: X against random; self: self-play; both (default)")
    parser.add_argument("trainer", nargs="*", metavar="-- FLAGS",
                        help="more DQN_Trainer.py flags, after --, for every run")
    args = parser.parse_args(argv)
    modes = list(MODES) if args.modes == "both" else [args.modes]
    print(f"DQN_Trainer.py {' '.join(args.trainer) or 'defaults'}: {len(modes) * len(args.seeds)} "
          "runs, one after the other", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        for mode in modes:
            name = MODES[mode][0]
            runs = []
            for seed in args.seeds:
                runs.append(one_run(mode, seed, args.trainer, folder))
                print(run_line(name, runs[-1]), flush=True)
            print(summary(name, runs), flush=True)
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
