"""Benchmark the book chapter's four files (book/): the whole ``python mc_tictactoe.py`` process,
as a student runs it, for our program and for the chapter's own program on our three modules
(target: at most 15 s each, printing no losses and at least 980 wins of 1,000).

    python tools/benchmarks/book.py            # 3 runs of each program, median wall-clock seconds
    python tools/benchmarks/book.py --runs 5

Each program runs in a fresh temporary folder holding only the four files, with PYTHONPATH and
the like removed from its environment, so nothing of the project can help it. The chapter's
program is a course fixture read from ../shared/fixtures/chapter/ beside the project; without it,
that line says so.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from time import perf_counter

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)

BOOK = ROOT / "book"
MODULES = ("ttt_env.py", "tabular_agent.py", "ttt_training.py")
PROGRAM = "mc_tictactoe.py"
PROGRAMS = {"ours": BOOK / PROGRAM,
            "the chapter's": ROOT.parent / "shared" / "fixtures" / "chapter" / "book_mc_tictactoe.py"}
DEFAULT_RUNS = 3
TARGET_SECONDS = 15.0


def clean_environment() -> dict[str, str]:
    """This process's environment without the variables that would let Python find the project."""
    return {name: value for name, value in os.environ.items()
            if not name.startswith("PYTHON") and name != "VIRTUAL_ENV"}


def run_once(folder: Path) -> tuple[float, str]:
    """Run ``python mc_tictactoe.py`` in ``folder``; return its wall-clock seconds and last line."""
    start = perf_counter()
    done = subprocess.run([sys.executable, PROGRAM], cwd=folder, env=clean_environment(),
                          capture_output=True, text=True)
    seconds = perf_counter() - start
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"exit status {done.returncode}: {last}")
    return seconds, (done.stdout.strip().splitlines() or [""])[-1]


def bench(program: Path, runs: int) -> tuple[list[float], list[str]]:
    """Time ``runs`` whole runs of ``program`` beside our three modules in a fresh folder."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        for name in MODULES:
            shutil.copy(BOOK / name, folder / name)
        shutil.copy(program, folder / PROGRAM)
        results = [run_once(folder) for _ in range(runs)]
    return [seconds for seconds, _ in results], [printed for _, printed in results]


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="tools/benchmarks/book.py", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=cli.count, default=DEFAULT_RUNS,
                        help=f"whole runs of each program; the median is printed "
                             f"(default {DEFAULT_RUNS})")
    args = parser.parse_args(argv)
    status = 0
    for name, program in PROGRAMS.items():
        label = f"book {PROGRAM} ({name})"
        if not program.is_file():
            print(f"{label}: skipped, {program.name} not found in {program.parent}")
            continue
        try:
            times, printed = bench(program, args.runs)
        except RuntimeError as error:
            print(f"{label}: failed, {error}")
            status = 1
            continue
        shown = printed[0] if len(set(printed)) == 1 else " / ".join(printed)
        print(f"{label}: {statistics.median(times):.2f} s, median of {args.runs} whole runs "
              f"({', '.join(f'{t:.2f}' for t in times)} s; target <= {TARGET_SECONDS:.0f} s), "
              f"printed {shown}", flush=True)
    return status


if __name__ == "__main__":
    cli.run(main)
