"""Time the class grader on a class of 30 hand-ins made from this repository's own solution.

    python tools/benchmarks/grading.py                    # 30 hand-ins, --jobs as grade.py chooses
    python tools/benchmarks/grading.py --count 12 --jobs 1 --epochs 20000

The class: two thirds correct (the solved files, training ``--epochs`` episodes in their main),
one sixth with a wrong Monte Carlo return, one sixth that wrote nothing. It is graded once by
``tools/grade.py`` as a teacher runs it, and the wall-clock time of the whole run is printed with
the time per hand-in, and a check that every correct hand-in got every point.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import cli  # noqa: E402  (the project root must be on the path first)

EDITABLE = ("AI_Agent.py", "Episode.py", "MC_Trainer.py", "Q_Trainer.py", "SARSA_Trainer.py",
            "nim/nim.py")
DEFAULT_COUNT, DEFAULT_EPOCHS = 30, 3_000
FULL_MARKS = "120"


def hand_in(folder: Path, kind: str, epochs: int) -> None:
    """One hand-in of ``kind`` (correct, wrong, empty) in ``folder``."""
    folder.mkdir(parents=True)
    if kind == "empty":
        return
    for name in EDITABLE:
        text = (ROOT / name).read_text(encoding="utf-8")
        if name == "MC_Trainer.py":
            text = text.replace("\nepochs = 200_000\n", f"\nepochs = {epochs}\n", 1)
            if kind == "wrong":
                text = text.replace("G = gamma * G + side * reward", "G = side * reward", 1)
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")


def kinds(count: int) -> list[str]:
    return ["wrong" if number % 6 == 4 else "empty" if number % 6 == 5 else "correct"
            for number in range(count)]


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="tools/benchmarks/grading.py", description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=cli.count, default=DEFAULT_COUNT,
                        help=f"hand-ins in the class (default {DEFAULT_COUNT})")
    parser.add_argument("--epochs", type=cli.count, default=DEFAULT_EPOCHS,
                        help=f"episodes in each correct main (default {DEFAULT_EPOCHS:,})")
    parser.add_argument("--jobs", type=cli.count, help="passed on to grade.py (default: its own)")
    args: argparse.Namespace = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as scratch:
        base = Path(scratch)
        paths = []
        for number, kind in enumerate(kinds(args.count)):
            path = base / "hand-ins" / f"{number:02d}-{kind}"
            hand_in(path, kind, args.epochs)
            paths.append(str(path))
        jobs = ["--jobs", str(args.jobs)] if args.jobs else []
        started = time.perf_counter()
        done = subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"), *paths,
                               "--out", str(base / "report"), *jobs],
                              capture_output=True, text=True)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            print(done.stderr[-2000:], file=sys.stderr)
            return 1
        with open(base / "report" / "report.csv", newline="", encoding="utf-8") as stream:
            rows = list(csv.DictReader(stream))
    correct = [row for row in rows if row["name"].endswith("-correct")]
    right = sum(row["total"] == FULL_MARKS for row in correct)
    used = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    print(f"grade.py on {args.count} hand-ins ({len(correct)} correct, {args.epochs:,} "
          f"episodes each; {' '.join(jobs) or 'default --jobs'}): {seconds:.0f} s, "
          f"{seconds / args.count:.1f} s per hand-in; {right}/{len(correct)} correct ones got "
          f"{FULL_MARKS} points")
    print(used)
    return 0 if right == len(correct) else 1


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
