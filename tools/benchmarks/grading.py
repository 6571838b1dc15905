"""Time the class grader on a class of hand-ins made from this repository's own solution.

    python tools/benchmarks/grading.py                    # 30 hand-ins, --jobs as grade.py chooses
    python tools/benchmarks/grading.py --count 12 --jobs 1 --epochs 20000
    python tools/benchmarks/grading.py --mixed --jobs 2   # 40 honest, mistaken and cheating ones

The class: two thirds correct (the solved files, training ``--epochs`` episodes in their main),
one sixth with a wrong Monte Carlo return, one sixth that wrote nothing. With ``--mixed``, the
class of ``tools/benchmarks/handins.py`` instead: every cheat once, every mistake three times,
honest hand-ins in every style for the rest (40 in all by default). It is graded once by
``tools/grade.py`` as a teacher runs it, and the wall-clock time of the whole run is printed with
the time per hand-in and the load of the machine, and a check that every correct hand-in got
every point (without a flag), every mistake lost points and every cheat was refused and flagged.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)
from tools.benchmarks.handins import (  # noqa: E402
    CHEATS, EDITABLE, HONEST, MISTAKES, write_hand_in)
from tools.exercise import make as make_exercise  # noqa: E402

DEFAULT_COUNT, MIXED_COUNT, DEFAULT_EPOCHS = 30, 40, 3_000
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


def mixed_kinds(count: int) -> list[str]:
    """The mixed class: every cheat, every mistake three times, honest styles for the rest."""
    fixed = [*CHEATS, *[kind for kind in MISTAKES for _ in range(3)]]
    honest = list(HONEST)
    return fixed + [honest[number % len(honest)] for number in range(count - len(fixed))]


def write_mixed(base: Path, count: int, epochs: int) -> list[str]:
    """Write the mixed class under ``base``; the classmate's table is trained first by one run
    of ``check.py`` on an honest hand-in (not timed)."""
    students = base / "students"
    make_exercise.build(ROOT, students)
    friend = write_hand_in(base / "friend", "solution", epochs, students, whole=True)
    subprocess.run([sys.executable, "check.py", "--tables", str(base / "friend-tables")],
                   cwd=friend, capture_output=True, check=True)
    table = (base / "friend-tables" / "X.pth").read_bytes()
    paths = []
    for number, kind in enumerate(mixed_kinds(count)):
        name = f"{number:02d}-" + "".join(c if c.isalnum() else "-" for c in kind)
        paths.append(str(write_hand_in(base / "hand-ins" / name, kind, epochs, students,
                                       friend=table)))
    return paths


def judged_right(row: dict, kind: str) -> bool:
    """Whether the row of a mixed hand-in of ``kind`` is what it must be."""
    if kind in HONEST:
        return row["total"] == FULL_MARKS and row["flags"] == ""
    if kind in MISTAKES:
        return row["total"] != FULL_MARKS and row["note"] != ""
    return row["piece 3"] != "passed" and CHEATS[kind][3] in row["flags"]


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="tools/benchmarks/grading.py", description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=cli.count,
                        help=f"hand-ins in the class (default {DEFAULT_COUNT}; {MIXED_COUNT} "
                             "with --mixed)")
    parser.add_argument("--epochs", type=cli.count, default=DEFAULT_EPOCHS,
                        help=f"episodes in each correct main (default {DEFAULT_EPOCHS:,})")
    parser.add_argument("--jobs", type=cli.count, help="passed on to grade.py (default: its own)")
    parser.add_argument("--mixed", action="store_true",
                        help="honest hand-ins in several styles, mistakes and every cheat")
    args: argparse.Namespace = parser.parse_args(argv)
    count = args.count or (MIXED_COUNT if args.mixed else DEFAULT_COUNT)
    if args.mixed and count < len(mixed_kinds(0)) + len(HONEST):
        parser.error(f"--mixed needs --count {len(mixed_kinds(0)) + len(HONEST)} at least")
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as scratch:
        base = Path(scratch)
        if args.mixed:
            paths, named = write_mixed(base, count, args.epochs), mixed_kinds(count)
        else:
            paths, named = [], kinds(count)
            for number, kind in enumerate(named):
                path = base / "hand-ins" / f"{number:02d}-{kind}"
                hand_in(path, kind, args.epochs)
                paths.append(str(path))
        jobs = ["--jobs", str(args.jobs)] if args.jobs else []
        load = os.getloadavg()[0]
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
    used = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    timing = (f"{' '.join(jobs) or 'default --jobs'}): {seconds:.0f} s, {seconds / count:.1f} s "
              f"per hand-in (load average {load:.1f} before, {os.getloadavg()[0]:.1f} after)")
    if args.mixed:
        wrong = [f"{row['name']} ({kind}: {row['status']}, {row['total']} points, flags "
                 f"{row['flags'][:120]!r}, note {row['note'][:200]!r})"
                 for row, kind in zip(rows, named) if not judged_right(row, kind)]
        print(f"grade.py on {count} mixed hand-ins ({sum(k in HONEST for k in named)} honest, "
              f"{sum(k in MISTAKES for k in named)} mistakes, {len(CHEATS)} cheats; "
              f"{args.epochs:,} episodes each; {timing}; "
              + (f"judged wrong: {', '.join(wrong)}" if wrong else
                 "every honest one got every point, every mistake lost points, every cheat "
                 "was refused and flagged"))
        print(used)
        return 1 if wrong else 0
    correct = [row for row in rows if row["name"].endswith("-correct")]
    right = sum(row["total"] == FULL_MARKS for row in correct)
    print(f"grade.py on {count} hand-ins ({len(correct)} correct, {args.epochs:,} episodes each; "
          f"{timing}; {right}/{len(correct)} correct ones got {FULL_MARKS} points")
    print(used)
    return 0 if right == len(correct) else 1


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
