"""Grade a class: every submission's pieces, each in a sandbox of its own, then one report.

    python tools/grade.py SUBMISSION [SUBMISSION ...]      # students' folders or .zip files
    python tools/grade.py hand-ins/*.zip --out grading-report --timeout 300 --jobs 2

Every submission is read into memory first, before any student code runs, taking only the files
a student was meant to edit (the ones that hold a stub in the students' version); its check
files are compared with the issued ones and flagged when they differ. Each is then graded in a
fresh copy of the students' version (without the shipped tables), by the trusted ``check.py
--all`` run as a child process with limits on time, memory, file size and processes, and sealed
off as far as the system allows; its verdict counts only when it comes over the grader's own
pipe from a check that ended by itself. The tables it trained are measured exactly in a limited
child. The report goes to ``--out`` (default ``grading-report/``), row by row as they are done:
``report.csv``, ``report.html`` (the same table and the plot) and ``results.png``. Exit status 0
when the grading ran, whatever the grades; 2 for bad arguments; 130 after Ctrl-C and 143 after
SIGTERM (the rows done so far are kept). What the sandbox protects against: docs/GRADING.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)
from tools.exercise import make as make_exercise  # noqa: E402
from tools.grading.box import remove  # noqa: E402
from tools.grading.cgroups import memory_groups  # noqa: E402
from tools.grading.isolation import (  # noqa: E402
    SelfTestFailed, detect_isolation, sealing_for)
from tools.grading.measure import measure_all  # noqa: E402
from tools.grading.page import Context  # noqa: E402
from tools.grading.pool import Stopped, grade_all, stop_on_signals  # noqa: E402
from tools.grading.report import Report  # noqa: E402
from tools.grading.results import CLASSROOM_WEIGHTS, PIECE_NUMBERS  # noqa: E402
from tools.grading.limits import Limits  # noqa: E402
from tools.grading.sandbox import Settings  # noqa: E402
from tools.grading.submissions import (  # noqa: E402
    editable_files, read_submission, unique_names)
from tools.grading.text import shown  # noqa: E402
from tools.grading.twins import flag_twins  # noqa: E402

DEFAULT_OUT = "grading-report"
DEFAULT_SECONDS = 600.0
DEFAULT_MEMORY_MB = 2048
MIN_MEMORY_MB = 256
MAX_JOBS = 32
MAX_WEIGHT = 1_000              # a piece's points: more is a typo, not a weighting
CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
# Never part of a students' version handed in with --exercise.
SKIPPED_FOLDERS = {".git", "__pycache__", ".venv", ".pytest_cache", ".hypothesis"}
MAX_TREE_FILES = 5_000
# Every row's flag when the file systems could not be sealed here (no mount namespace: macOS, a
# container that refuses unshare): the hand-in's code could write its own copy of the check.
UNPROTECTED = ("verdict unprotected: this system could not make the hand-in's copy read-only, "
               "so its code could have rewritten the check there (grade on Linux with unshare)")


def weights(text: str) -> dict[int, int]:
    """``--weights 30,30,40,10,10``: each piece's points, in order, each from 0 to
    ``MAX_WEIGHT``, not all 0."""
    parts = [part.strip() for part in text.split(",")]
    if len(parts) != len(PIECE_NUMBERS) or not all(
            part.lstrip("+-").isascii() and part.lstrip("+-").isdigit() for part in parts):
        raise argparse.ArgumentTypeError(
            f"expected {len(PIECE_NUMBERS)} whole numbers separated by commas, got {text!r}")
    values = [int(part) for part in parts]
    if any(value < 0 for value in values):
        raise argparse.ArgumentTypeError(f"a piece's points cannot be negative, got {text!r}")
    if any(value > MAX_WEIGHT for value in values):
        raise argparse.ArgumentTypeError(
            f"a piece's points must be at most {MAX_WEIGHT:,}, got {text!r}")
    if not any(values):
        raise argparse.ArgumentTypeError(f"every piece would earn 0 points, got {text!r}")
    return dict(zip(PIECE_NUMBERS, values))


def joined_values(argv: list[str], options: tuple[str, ...]) -> list[str]:
    """``--weights -1,2`` as ``--weights=-1,2``: argparse takes a value that starts with a
    dash for an option, and would only say that one was expected."""
    joined: list[str] = []
    for text in argv:
        if joined and joined[-1] in options and text.startswith("-") and text[1:2].isdigit():
            joined[-1] = f"{joined[-1]}={text}"
        else:
            joined.append(text)
    return joined


def parse_args(argv: list[str] | None):
    parser = cli.Parser(prog="grade.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("submissions", nargs="+", type=cli.path, metavar="SUBMISSION",
                        help="a student's folder, or a .zip of one")
    parser.add_argument("--out", default=DEFAULT_OUT, type=cli.path, metavar="DIR",
                        help=f"the folder for the report (default: {DEFAULT_OUT}/)")
    parser.add_argument("--timeout", default=DEFAULT_SECONDS, type=cli.seconds, metavar="S",
                        help=f"wall-clock seconds per submission (default {DEFAULT_SECONDS:g})")
    parser.add_argument("--memory", default=DEFAULT_MEMORY_MB, type=cli.count, metavar="MB",
                        help="memory per process, and for a whole hand-in where a cgroup "
                             f"can be made, in MiB (default {DEFAULT_MEMORY_MB})")
    parser.add_argument("--jobs", default=min(CORES or 1, MAX_JOBS), type=cli.count,
                        metavar="N", help="submissions graded at the same time (default: the "
                                          f"cores, here {min(CORES or 1, MAX_JOBS)})")
    parser.add_argument("--weights", default=CLASSROOM_WEIGHTS, type=weights, metavar="P,P,...",
                        help="each piece's points, for the total (default: GitHub Classroom's, "
                             + ",".join(map(str, CLASSROOM_WEIGHTS.values())) + ")")
    parser.add_argument("--exercise", type=cli.path, metavar="DIR",
                        help="the students' version as handed out (default: generate it from "
                             "this repository)")
    parser.add_argument("--weaker-isolation", action="store_true",
                        help="grade even when the strongest sandbox this system allows fails "
                             "its self-test (the report says what was given up)")
    args = parser.parse_args(joined_values(sys.argv[1:] if argv is None else argv,
                                           ("--weights",)))
    if args.timeout <= 0:
        parser.error("--timeout must be more than 0 seconds")
    if args.memory < MIN_MEMORY_MB:
        parser.error(f"--memory must be at least {MIN_MEMORY_MB} MiB")
    if args.jobs > MAX_JOBS:
        parser.error(f"--jobs must be at most {MAX_JOBS}")
    return args


def check_submissions(paths: list[str]) -> list[Path]:
    """The submissions as paths; one that does not exist is a typo that stops everything (a
    file that is not a hand-in gets a row that says so)."""
    checked = []
    for text in paths:
        path = Path(text).expanduser()
        if not os.path.lexists(path):      # a link to nothing is that hand-in's row
            cli.fail(f"grade.py: {shown(text)}: no such file or folder")
        checked.append(path)
    return checked


def prepare_out(text: str) -> Path:
    """The report's folder, created if need be and checked to be writable."""
    out = Path(text).expanduser().absolute()
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as error:
        cli.fail(f"grade.py: --out {shown(text)}: cannot write the report there "
                 f"({error.strerror or error})")
    return out


def read_tree(folder: Path) -> dict[str, bytes]:
    """Every regular file under ``folder`` (relative path -> bytes), links and caches left out;
    no recursion, and a few thousand files at most."""
    files: dict[str, bytes] = {}
    pending = [Path(folder)]
    while pending and len(files) < MAX_TREE_FILES:
        with os.scandir(pending.pop()) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
        for entry in entries:
            if entry.is_symlink() or entry.name in SKIPPED_FOLDERS:
                continue
            if entry.is_dir():
                pending.append(Path(entry.path))
            elif entry.is_file():
                files[Path(entry.path).relative_to(folder).as_posix()] = \
                    Path(entry.path).read_bytes()
    return files


def pristine_files(exercise: str | None) -> dict[str, bytes]:
    """The students' version in memory: the one given, or generated now from this repository."""
    if exercise is not None:
        folder = Path(exercise).expanduser()
        if not (folder / "check.py").is_file():
            cli.fail(f"grade.py: --exercise {shown(exercise)}: not a students' version (no "
                     "check.py)")
        return read_tree(folder)
    with tempfile.TemporaryDirectory(prefix="grade-pristine-") as scratch:
        try:
            make_exercise.build(ROOT, Path(scratch))
        except make_exercise.ExerciseError as error:
            cli.fail(f"grade.py: cannot generate the students' version: {error}")
        return read_tree(Path(scratch))


def describe_limits(limits: Limits, own_count: bool, whole_box: bool) -> str:
    processes = (f"{limits.processes} processes and threads of its own" if own_count
                 else "processes not limited (they are not counted apart here)")
    mebibytes = f"{limits.memory // 2**20:,} MiB"
    memory = (f"{mebibytes} of memory per submission, all its processes together; {mebibytes} of "
              "address space" if whole_box else f"{mebibytes} of memory")
    return (f"{limits.seconds:g} s wall clock per submission; {memory} and "
            f"{limits.seconds + 5:g} s of CPU per process; files up to "
            f"{limits.file_size // 2**20} MiB; {processes}; the first and last "
            f"{limits.output:,} bytes of its output kept")


def main(argv: list[str] | None = None) -> int:
    """The command line: check the arguments, read everything, grade, write the report."""
    started = time.monotonic()      # the time printed at the end is the whole run's
    args = parse_args(argv)
    if os.name != "posix":
        cli.fail("grade.py: grading needs Linux or macOS (process groups and resource limits)")
    stop_on_signals()        # from here on, every ending signal cleans up what it made
    try:
        paths = check_submissions(args.submissions)
        out = prepare_out(args.out)
        pristine = pristine_files(args.exercise)
        editable = editable_files(pristine)
        if not editable:
            cli.fail("grade.py: the students' version has no stubs: nothing to grade")
        submissions = [read_submission(path, editable, pristine)      # all before any runs
                       for path in paths]
        unique_names(submissions)
        grade_class(args, out, pristine, submissions, started)
    except Stopped as stop:
        print(f"\n{stop}.", file=sys.stderr)
        return 128 + stop.number
    return 0


def grade_class(args, out: Path, pristine: dict[str, bytes], submissions: list,
                started: float) -> None:
    """Seal, grade and report, in a run folder removed at the end whatever happens; ``started``:
    when the run began (``time.monotonic``)."""
    limits = Limits(seconds=args.timeout, memory=args.memory * 2**20)
    run_dir = Path(tempfile.mkdtemp(prefix="grade-run-"))
    # This repository (the solved code, its history, the shipped tables) but its Python, and
    # the folders holding every hand-in, as given and as resolved (never those of a hand-in
    # refused for its kind: /dev for /dev/null).
    hide = [ROOT, out, *(Path(folder) for submission in submissions
                         for folder in submission.folders)]
    hide += [Path(args.exercise).expanduser()] if args.exercise else []
    memory, no_memory = memory_groups(limits.memory) if sys.platform.startswith("linux") \
        else (None, "no cgroups on this system")
    try:
        try:
            isolation, unavailable = detect_isolation(
                run_dir, sealing_for(sys.executable, hide, run_dir),
                weaker=args.weaker_isolation, memory=memory)
        except SelfTestFailed as failed:
            cli.fail(f"grade.py: {failed}; nothing was graded. To grade anyway under a weaker "
                     "isolation (the report names what it gives up), add --weaker-isolation")
        if memory is None:
            unavailable.append(f"a memory limit that counts all of a box's memory ({no_memory}"
                               "): --memory holds each process's address space alone")
        print(f"Isolation: {isolation.describe()}.", flush=True)
        if not isolation.read_only:         # the hand-in could rewrite its own copy's check
            for submission in submissions:
                submission.flags.append(UNPROTECTED)
        settings = Settings(run_dir, limits, isolation, jobs=args.jobs,
                            editable=editable_files(pristine))
        limited = describe_limits(limits, isolation.own_count, isolation.memory is not None)
        context = Context("Exercise grades", datetime.now().strftime("%Y-%m-%d %H:%M"),
                          isolation.describe(), limited, tuple(unavailable))
        report = Report(out, [(submission.name, submission.origin)
                              for submission in submissions], context)
        try:
            grade_all(submissions, pristine, settings, report,
                      lambda tables: measure_all(tables, run_dir, limits),
                      args.weights)
        except (KeyboardInterrupt, Stopped):
            closing(report, report.finish(stopped=True), started)
            raise
    finally:
        remove(run_dir)
        if memory:
            memory.close()
    flag_twins(report.done())       # a classmate's table, copied: seen only across the class
    closing(report, report.finish(), started)


def closing(report: Report, written: list[Path], started: float) -> None:
    """Say where the report is (or, when its folder was full, where the grades went)."""
    if report.problem:
        where = (f"the grades are in {shown(report.fallback)}" if report.fallback else
                 "nowhere has room: the grades follow")
        print(f"grade.py: the report could not be written in {shown(report.folder)} "
              f"({report.problem}); {where}", file=sys.stderr)
        if not report.fallback:
            print(report.grades.decode("utf-8"))
    done = len(report.rows)
    print(f"Graded {done} submission{'' if done == 1 else 's'} in "
          f"{time.monotonic() - started:.0f} s; the report: "
          + ", ".join(shown(path) for path in written))


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
