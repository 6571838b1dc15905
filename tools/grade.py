"""Grade a class: every submission's pieces, each in a sandbox of its own, then one report.

    python tools/grade.py SUBMISSION [SUBMISSION ...]      # students' folders or .zip files
    python tools/grade.py hand-ins/*.zip --out grading-report --timeout 300 --jobs 2

Every submission is read into memory first, before any student code runs, taking only the files
a student was meant to edit (the ones that hold a stub in the students' version). Each is then
graded in a fresh copy of the students' version generated from this repository, by the trusted
``check.py --all`` run as a child process with limits on time, memory, file size and processes,
and without network where the system allows. The trained tables the check leaves are measured
exactly by the grader itself. The report goes to ``--out`` (default ``grading-report/``):
``report.csv`` (one row per submission), ``report.html`` (the same table and the plot) and
``results.png``. Exit status 0 when the grading ran, whatever the grades; 2 for bad arguments.
What the sandbox protects against, and what not: docs/GRADING.md.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor, as_completed
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cli  # noqa: E402  (the project root must be on the path first)
from tools import make_exercise  # noqa: E402
from tools.grading.report import Context, plural, write_report  # noqa: E402
from tools.grading.results import Row, make_row  # noqa: E402
from tools.grading.sandbox import (  # noqa: E402
    Limits, Settings, detect_isolation, run_submission, stop_all)
from tools.grading.submissions import (  # noqa: E402
    Submission, editable_files, read_submission, unique_names)

DEFAULT_OUT = "grading-report"
DEFAULT_SECONDS = 600.0
DEFAULT_MEMORY_MB = 2048
MIN_MEMORY_MB = 256
MAX_JOBS = 8
# Never part of a students' version handed in with --exercise.
SKIPPED_FOLDERS = {".git", "__pycache__", ".venv", ".pytest_cache", ".hypothesis"}


def parse_args(argv: list[str] | None):
    parser = cli.Parser(prog="grade.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("submissions", nargs="+", type=cli.path, metavar="SUBMISSION",
                        help="a student's folder, or a .zip of one")
    parser.add_argument("--out", default=DEFAULT_OUT, type=cli.path, metavar="DIR",
                        help=f"the folder for the report (default: {DEFAULT_OUT}/)")
    parser.add_argument("--timeout", default=DEFAULT_SECONDS, type=cli.seconds, metavar="S",
                        help=f"wall-clock seconds per submission (default {DEFAULT_SECONDS:g})")
    parser.add_argument("--memory", default=DEFAULT_MEMORY_MB, type=cli.count, metavar="MB",
                        help=f"memory per process, in MiB (default {DEFAULT_MEMORY_MB})")
    parser.add_argument("--jobs", default=1, type=cli.count, metavar="N",
                        help="submissions graded at the same time (default 1)")
    parser.add_argument("--exercise", type=cli.path, metavar="DIR",
                        help="the students' version as handed out (default: generate it from "
                             "this repository)")
    args = parser.parse_args(argv)
    if args.timeout <= 0:
        parser.error("--timeout must be more than 0 seconds")
    if args.memory < MIN_MEMORY_MB:
        parser.error(f"--memory must be at least {MIN_MEMORY_MB} MiB")
    if args.jobs > MAX_JOBS:
        parser.error(f"--jobs must be at most {MAX_JOBS}")
    return args


def check_submissions(paths: list[str]) -> list[Path]:
    """The submissions as paths; a missing path or a file that is not a zip stops everything."""
    checked = []
    for text in paths:
        path = Path(text).expanduser()
        if not path.exists():
            cli.fail(f"grade.py: {text}: no such file or folder")
        if path.is_file() and not zipfile.is_zipfile(path):
            cli.fail(f"grade.py: {text}: not a folder and not a zip archive")
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
        cli.fail(f"grade.py: --out {text}: cannot write the report there "
                 f"({error.strerror or error})")
    return out


def read_tree(folder: Path) -> dict[str, bytes]:
    """Every regular file under ``folder`` (relative path -> bytes), links and caches left out."""
    files = {}
    for top, folders, names in os.walk(folder):
        folders[:] = sorted(name for name in folders if name not in SKIPPED_FOLDERS
                            and not os.path.islink(os.path.join(top, name)))
        for name in names:
            path = os.path.join(top, name)
            if os.path.isfile(path) and not os.path.islink(path):
                files[Path(path).relative_to(folder).as_posix()] = Path(path).read_bytes()
    return files


def pristine_files(exercise: str | None) -> dict[str, bytes]:
    """The students' version in memory: the one given, or generated now from this repository."""
    if exercise is not None:
        folder = Path(exercise).expanduser()
        if not (folder / "check.py").is_file():
            cli.fail(f"grade.py: --exercise {exercise}: not a students' version (no check.py)")
        return read_tree(folder)
    with tempfile.TemporaryDirectory(prefix="grade-pristine-") as scratch:
        try:
            make_exercise.build(ROOT, Path(scratch))
        except make_exercise.ExerciseError as error:
            cli.fail(f"grade.py: cannot generate the students' version: {error}")
        return read_tree(Path(scratch))


def grade_all(submissions: list[Submission], pristine: dict[str, bytes], settings: Settings,
              jobs: int) -> list[Row]:
    """Grade every submission (``jobs`` at a time) under a progress bar; rows in input order."""
    from tqdm import tqdm

    def grade(submission: Submission) -> Row:
        return make_row(submission, run_submission(submission, pristine, settings),
                        settings.limits)

    rows: dict[int, Row] = {}
    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        with tqdm(total=len(submissions), desc="grading", unit="submission") as bar:
            futures = {pool.submit(grade, submission): index
                       for index, submission in enumerate(submissions)}
            for future in as_completed(futures):
                index = futures[future]
                rows[index] = future.result()
                bar.set_postfix_str(submissions[index].name[:30], refresh=False)
                bar.update()
    except BaseException:        # Ctrl-C above all: no child may go on running
        pool.shutdown(wait=False, cancel_futures=True)
        stop_all()
        raise
    pool.shutdown()
    return [rows[index] for index in range(len(submissions))]


def describe_limits(limits: Limits) -> str:
    return (f"{limits.seconds:g} s wall clock per submission; {limits.memory // 2**20:,} MiB of "
            f"memory and {limits.seconds + 5:g} s of CPU per process; files up to "
            f"{limits.file_size // 2**20} MiB; {limits.processes} processes when it runs as an "
            f"account of its own; the first and last {limits.output:,} bytes of its output kept")


def main(argv: list[str] | None = None) -> int:
    """The command line: check the arguments, read everything, grade, write the report."""
    args = parse_args(argv)
    if os.name != "posix":
        cli.fail("grade.py: grading needs Linux or macOS (process groups and resource limits)")
    paths = check_submissions(args.submissions)
    out = prepare_out(args.out)
    pristine = pristine_files(args.exercise)
    editable = editable_files(pristine)
    if not editable:
        cli.fail("grade.py: the students' version has no stubs: nothing to grade")
    submissions = [read_submission(path, editable) for path in paths]    # all before any runs
    unique_names(submissions)
    limits = Limits(seconds=args.timeout, memory=args.memory * 2**20)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="grade-run-", ignore_cleanup_errors=True) as run_dir:
        isolation, unavailable = detect_isolation(Path(run_dir))
        settings = Settings(Path(run_dir), limits, isolation)
        rows = grade_all(submissions, pristine, settings, args.jobs)
    context = Context("Exercise grades", datetime.now().strftime("%Y-%m-%d %H:%M"),
                      isolation.describe(), describe_limits(limits), tuple(unavailable))
    written = write_report(rows, out, context)
    print(f"Graded {plural(len(rows), 'submission')} in {time.monotonic() - started:.0f} s; "
          "the report: " + ", ".join(str(path) for path in written))
    print(f"Isolation: {isolation.describe()}.")
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
