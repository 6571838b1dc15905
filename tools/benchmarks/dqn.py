"""Deep Q-learning at its target, seed by seed and kernel by kernel: ``python DQN_Trainer.py --seed
S`` run exactly as a user runs it, for X against random and for self-play, under each level of
torch's CPU kernels that this processor offers, with its exact results and its times.

    python tools/benchmarks/dqn.py                     # seeds 1-10, both modes, every level
    python tools/benchmarks/dqn.py --seeds 1-3 --modes x --kernels native
    python tools/benchmarks/dqn.py -- --batch 512      # the same with other trainer flags
    python tools/benchmarks/dqn.py --seeds 1-4 --kernels default -- --threads 2
                                                       # the rounding changed twice over

torch picks its CPU kernels by the processor (``ATEN_CPU_CAPABILITY``: the plain ``default``
ones, ``avx2``, ``avx512``), and they round differently, so one seed trains another network on
another processor. The levels run here: ``default``, ``avx2`` and this processor's own
(``native``), each once (on an AVX2 processor native is avx2); a level the processor lacks is left
out with a line that says so. Another thread count (``-- --threads 2``) rounds differently again.

The target (every seed): X against random wins at least 99 % of all games with no losses and is
unbeatable; in self-play X and O are both unbeatable; each run takes at most 120 s, the median at
most 45 s. Each run is a separate process, one after the other (``--threads 1``); its wall time
and its CPU time (user + system, from the operating system) are printed, so that a machine busy
with other work shows as wall time above CPU time. Each run's margin is printed too: how many of
the networks it checked exactly were, alone, as good as the one it kept (docs/ALGORITHMS.md,
"Which network a run ends with"); a margin of a few means the result nearly hung on the rounding.
One line per run as it ends, then the medians and the lowest margin.
"""

from __future__ import annotations

import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)
from tools.benchmarks.machine import machine  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "Data" / "bench-dqn.txt"
KERNEL_LEVELS = ("default", "avx2", "native")  # ATEN_CPU_CAPABILITY; native: torch's own choice
TARGET_WINS = 99.0              # % of all games, X against random
MAX_SECONDS = 120.0             # every run
MEDIAN_SECONDS = 45.0           # the median run
MODES = {"x": ("X vs random", []), "self": ("self-play", ["--opponent", "self"])}
_WINS = re.compile(r"exact vs random\s*: wins ([\d.]+)%\s+losses ([\d.]+)%")
_MARGIN = re.compile(r"\((\d+) of the (\d+) were as good alone"
                     r"|\(better than each of the (\d+) alone")


def kernel_names(text: str) -> tuple[str, ...]:
    """Kernel levels written as ``default,avx2,native``."""
    names = tuple(text.split(","))
    if not names or not set(names) <= {"default", "avx2", "avx512", "native"}:
        raise cli.argparse.ArgumentTypeError("expected kernel levels among default, avx2, avx512 "
                                             f"and native, like default,native; got {text!r}")
    return names


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


def kernel_in_use(level: str) -> str | None:
    """The kernels torch runs under ``ATEN_CPU_CAPABILITY=level`` (``native``: unset), as torch
    names them (``DEFAULT``, ``AVX2``, ``AVX512``); None when this processor cannot run them."""
    done = subprocess.run([sys.executable, "-c", "import torch; "
                           "print(torch.backends.cpu.get_cpu_capability())"],
                          capture_output=True, text=True, env=kernel_env(level), check=True)
    taken = done.stdout.strip()
    return taken if level == "native" or taken.lower() == level else None


def kernel_levels(asked: tuple[str, ...] = KERNEL_LEVELS) -> tuple[dict[str, str], list[str]]:
    """``({level: torch's name of its kernels}, [why a level is left out])`` for ``asked``: each
    set of kernels runs once (native is left out where it is one of the others)."""
    found: dict[str, str] = {}
    left_out = []
    for level in asked:
        taken = kernel_in_use(level)
        if taken is None:
            left_out.append(f"kernels {level}: left out (not on this processor)")
        elif taken in found.values():
            left_out.append(f"kernels {level}: left out (the same kernels, {taken}, as another "
                            "level)")
        else:
            found[level] = taken
    return found, left_out


def kernel_env(level: str) -> dict[str, str]:
    """The environment of a run under ``level`` (``native``: as torch chooses)."""
    env = {key: value for key, value in os.environ.items() if key != "ATEN_CPU_CAPABILITY"}
    if level != "native":
        env["ATEN_CPU_CAPABILITY"] = level
    return env


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


def one_run(mode: str, seed: int, extra: list[str], folder: str, level: str = "native") -> dict:
    """``DQN_Trainer.py --seed seed`` in ``mode`` under the kernels of ``level``: its sides'
    reports, wall and CPU seconds."""
    command = [sys.executable, str(ROOT / "DQN_Trainer.py"), "--seed", str(seed), *MODES[mode][1],
               "--out", f"{folder}/{mode}-{seed}.pt", "--threads", "1", *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=kernel_env(level))
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} ended with status {done.returncode}:\n"
                           f"{done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    sides = side_reports(done.stdout)
    margin = _MARGIN.search(done.stdout)
    met = all(side["unbeatable"] for side in sides) and wall <= MAX_SECONDS
    if mode == "x":
        met = met and sides[0]["wins"] >= TARGET_WINS and sides[0]["losses"] == 0
    return {"seed": seed, "sides": sides, "wall": wall, "cpu": cpu, "met": met,
            "margin": margin_of(margin)}


def margin_of(found: re.Match | None) -> tuple[int, int] | None:
    """``(checked networks as good alone, checks)`` from the kept-network line; None when the
    run kept its last network."""
    if found is None:
        return None
    as_good, checks, better = found.groups()
    return (int(as_good), int(checks)) if better is None else (0, int(better))


def run_line(name: str, run: dict) -> str:
    sides = run["sides"]
    verdict = "ok" if run["met"] else "MISSED"
    beaten = "/".join("unbeatable" if side["unbeatable"] else "BEATABLE" for side in sides)
    margin = run["margin"]
    alone = f"as good alone {margin[0]} of {margin[1]}; " if margin else ""
    return (f"{name} seed {run['seed']:>2}: X vs random wins {sides[0]['wins']:.4f} % losses "
            f"{sides[0]['losses']:.4f} %, {'X/O ' if len(sides) > 1 else ''}{beaten}; {alone}"
            f"wall {run['wall']:.1f} s, CPU {run['cpu']:.1f} s: {verdict}")


def summary(name: str, runs: list[dict]) -> str:
    walls = [run["wall"] for run in runs]
    median = statistics.median(walls)
    met = sum(run["met"] for run in runs)
    quality = "quality ok" if met == len(runs) else "quality MISSED"
    speed = ("time ok" if median <= MEDIAN_SECONDS and max(walls) <= MAX_SECONDS
             else "time TOO SLOW")
    verdict = f"{quality}, {speed}"
    margins = [run["margin"] for run in runs if run["margin"]]
    lowest = (f"lowest margin {min(margins)[0]} of {min(margins)[1]}; " if margins else "")
    return (f"{name}: target met in {met} of {len(runs)} seeds; lowest X wins vs random "
            f"{min(run['sides'][0]['wins'] for run in runs):.4f} %; {lowest}"
            f"wall median {median:.1f} s, "
            f"max {max(walls):.1f} s; CPU median {statistics.median(r['cpu'] for r in runs):.1f} "
            f"s, max {max(r['cpu'] for r in runs):.1f} s (target: every seed, each <= "
            f"{MAX_SECONDS:.0f} s, median <= {MEDIAN_SECONDS:.0f} s): {verdict}")


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="tools/benchmarks/dqn.py", description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=seed_range, default=list(range(1, 11)),
                        help="the seeds to run, e.g. 1-10 or 1,4 (default: 1-10)")
    parser.add_argument("--modes", choices=("x", "self", "both"), default="both",
                        help="x: X against random; self: self-play; both (default)")
    parser.add_argument("--kernels", type=kernel_names, default=KERNEL_LEVELS,
                        help="the kernel levels to run, e.g. default,native (default: "
                             f"{','.join(KERNEL_LEVELS)}, each one this processor has)")
    parser.add_argument("trainer", nargs="*", metavar="-- FLAGS",
                        help="more DQN_Trainer.py flags, after --, for every run")
    args = parser.parse_args(argv)
    modes = list(MODES) if args.modes == "both" else [args.modes]
    levels, left_out = kernel_levels(args.kernels)
    printed: list[str] = []

    def say(line: str) -> None:
        print(line, flush=True)
        printed.append(line)

    import torch   # only for its version: each run is a process of its own
    header = (f"tools/benchmarks/dqn.py, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, on "
              f"{machine()} ({platform.machine()}), torch {torch.__version__}, "
              f"load average {os.getloadavg()[0]:.1f} at the start")
    for line in left_out:
        say(line)
    runs_in_all = len(modes) * len(args.seeds) * len(levels)
    say(f"DQN_Trainer.py {' '.join(args.trainer) or 'defaults'}: {runs_in_all} runs, one after "
        "the other")
    missed = 0
    with tempfile.TemporaryDirectory() as folder:
        for level, taken in levels.items():
            for mode in modes:
                name = f"{MODES[mode][0]}, kernels {level} ({taken})"
                runs = []
                for seed in args.seeds:
                    runs.append(one_run(mode, seed, args.trainer, folder, level))
                    say(run_line(name, runs[-1]))
                say(summary(name, runs))
                missed += sum(not run["met"] for run in runs)
    say(f"all levels: target met in {runs_in_all - missed} of {runs_in_all} runs "
        f"(load average {os.getloadavg()[0]:.1f} at the end)")
    whole = (args.seeds, args.modes, args.kernels, args.trainer) == \
        (list(range(1, 11)), "both", KERNEL_LEVELS, [])
    if whole:
        RECORD.parent.mkdir(exist_ok=True)
        RECORD.write_text("\n".join([header, *printed]) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
