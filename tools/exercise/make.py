"""Write the students' version of this repository: the exercise, generated from the solved code.

    python tools/exercise/make.py --out exercise            # (make exercise)
    python tools/exercise/make.py --out exercise --force    # write over an earlier one

Every file that git tracks is copied (the tables in Data/ too, so that Game.py plays the trained
agent at once), except the teachers' own tools. In the Python files every marked solution (the
markers and the contracts are described in tools/exercise/contracts.py) becomes its contract as a
few comment lines and a ``raise NotImplementedError`` naming the piece (``tools/exercise/stubs``);
an import that only the solutions used goes as well, so that it gives no hint. Solved code that
no piece holds is left out (``tools/exercise/withheld``), so the students' version has none a
student could call. It gets a README of its own (what they write, how to check, train, measure
and play), a hook in tests/conftest.py that skips rather than fails a test that needs a piece not
written yet, a .gitignore for their hint progress, and GitHub Classroom under .github/: one
autograding test per piece, with points, a workflow that runs the self-check as issued, and a
manifest of the issued files (``tools/exercise/classroom``).
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)
from tictactoe_rl.selfcheck.guard import PIECE_FILES  # noqa: E402
from tools.exercise.stubs import ExerciseError, Stub, replace_solutions  # noqa: E402
from tictactoe_rl.training.registry import trainer_scripts  # noqa: E402
from tools.exercise.withheld import WITHHELD, stand_in  # noqa: E402
from tools.exercise.students import (  # noqa: E402
    CONFTEST, STUDENTS_OWN, compressed_module, students_conftest, write_students_files)

# Teachers' tools that make no sense in the students' version (a name ending in "/" is a folder):
# this generator, the class grader, and the tests of both and of the self-check (which hold
# solutions, and import the generator).
# The course-compatibility tests and the book's files hold whole solutions (the course's scripts,
# the book's program), and the project's own CI is not the students'. The classroom notebook
# draws learning curves, which only the solved trainer records. The benchmark times the solved
# trainers (`make bench` is a teachers' target). Every other trainer and the tests that import
# it stay out too (``unused_trainers``).
TEACHERS_ONLY = ("tools/exercise/", "tests/test_exercise.py",
                 "tests/test_selfcheck.py", "tests/test_selfcheck_verdicts.py",
                 "tests/test_selfcheck_forgery.py", "tests/test_selfcheck_styles.py",
                 "tests/test_selfcheck_judged.py", "tests/test_selfcheck_setup.py",
                 "tests/test_selfcheck_mistakes.py", "tests/test_selfcheck_witnessed.py",
                 "tests/test_classroom.py",
                 "tools/grade.py", "tools/grading/", "tests/test_grade.py", "docs/GRADING.md",
                 "tests/test_grade_sandbox.py", "tests/test_grade_hostile.py",
                 "tests/test_grade_report.py", "tools/benchmarks/grading.py",
                 "tools/benchmarks/handins.py", "tools/benchmarks/cheats.py",
                 "tests/test_selfcheck_cheats.py",
                 "tests/test_grade_cheats.py",
                 "tests/test_course.py", "tests/course_scripts/", "book/", "tests/test_book.py",
                 "tools/benchmarks/book.py", ".ci/", "notebooks/", "tests/test_notebook.py",
                 "tools/bench.py", "tools/benchmarks/course.py", "tools/course/original_design.py",
                 "tools/benchmarks/dqn.py", "tests/test_bench.py", "tests/test_course_design.py",
                 # its update is a Monte Carlo one, close to the answer of piece 3
                 "Adversarial_Trainer.py", "tests/test_adversarial.py")
# The trainers whose pieces the students write; the registry's others are teachers' only.
EXERCISE_TRAINERS = tuple(name for name in PIECE_FILES if name.endswith("_Trainer.py"))
# The self-check's answer key: it answers only the check's own hand-made episodes (no update a
# student could call), and is carried compressed, out of plain sight while a student reads the
# checks.
COMPRESSED = ("tictactoe_rl/selfcheck/reference.py",)


# --- the whole repository ---------------------------------------------------------------------

def unused_trainers(root: Path) -> set[str]:
    """The trainers of the registry that the exercise does not use (e.g. Expected SARSA: with
    epsilon 0 it is Q-learning, the answer to piece 5), and the tests that import one: a new
    algorithm stays out of the students' version without being listed here."""
    scripts = set(trainer_scripts(root)) - set(EXERCISE_TRAINERS)
    modules = {script[:-len(".py")] for script in scripts}
    tests = {f"tests/{path.name}" for path in (root / "tests").glob("test_*.py")
             if modules & imported_names(path, among=modules)}
    return scripts | tests


def imported_names(path: Path, among: set[str] | None = None) -> set[str]:
    """The top-level names of the modules that the file ``path`` imports anywhere; with
    ``among``, a file that names none of those modules is not parsed (none of them is there)."""
    text = path.read_text(encoding="utf-8")
    if among is not None and not any(name in text for name in among):
        return set()
    names = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def teachers_only(name: str, unused: set[str]) -> bool:
    """Whether the tracked file ``name`` stays out of the students' version; ``unused``: the
    trainers and tests of ``unused_trainers``."""
    return name in unused or any(name == entry or (entry.endswith("/") and name.startswith(entry))
                                 for entry in TEACHERS_ONLY)


def tracked_files(root: Path) -> list[str]:
    """The files git tracks in ``root`` (so .venv, caches and untracked files stay out); in an
    unpacked sdist, which has no git, the files it was made of (``sdist_files``)."""
    try:
        listing = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True,
                                 check=True).stdout
        names = listing.decode("utf-8").split("\0")
    except (OSError, subprocess.CalledProcessError) as error:
        names = sdist_files(root)
        if names is None:
            raise ExerciseError(f"cannot list the tracked files of {root} with git ({error}); "
                                "run this in a git clone of the solved repository") from None
    return sorted(name for name in names if name and (root / name).is_file())


def sdist_files(root: Path) -> list[str] | None:
    """The files of the unpacked sdist ``root`` (its ``PKG-INFO`` says it is one), from the
    ``SOURCES.txt`` setuptools wrote: MANIFEST.in makes them the clone's tracked files, plus the
    sdist's own metadata, left out here. None when ``root`` is no sdist."""
    sources = sorted(root.glob("*.egg-info/SOURCES.txt"))
    if not (root / "PKG-INFO").is_file() or not sources:
        return None
    listed = {os.path.normpath(line) for line in
              sources[0].read_text(encoding="utf-8").splitlines() if line.strip()}
    return [name for name in listed if name not in ("PKG-INFO", "setup.cfg")
            and not name.split("/")[0].endswith(".egg-info")]


def build(root: Path, target: Path) -> list[Stub]:
    """Write the students' version of the repository ``root`` into the empty folder ``target``;
    return the stubs it made."""
    stubs: list[Stub] = []
    unused = unused_trainers(root)
    files = [name for name in tracked_files(root) if not teachers_only(name, unused)]
    for name in files:
        source, destination = root / name, target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith(".py"):
            text, made = replace_solutions(name, source.read_text(encoding="utf-8"))
            if name == CONFTEST:
                text = students_conftest(text)
            elif name in COMPRESSED:
                text = compressed_module(text)
            elif name in WITHHELD:
                text = stand_in(name, text)
            destination.write_text(text, encoding="utf-8")
            shutil.copymode(source, destination)
            stubs += made
        elif name not in STUDENTS_OWN:
            shutil.copy2(source, destination)
    write_students_files(root, target, stubs)
    return stubs


def check_target(root: Path, out: Path, files: list[str], force: bool) -> None:
    """Refuse a target that is a file, a non-empty folder (without ``force``), or one where the
    students' files would land on the solved repository's own files."""
    if out.exists() and not out.is_dir():
        raise ExerciseError(f"--out {out}: is a file, not a folder")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise ExerciseError(f"--out {out}: the folder is not empty; choose an empty or new "
                            # how to force: the Makefile names its own FORCE=1
                            f"folder, or {os.environ.get('EXERCISE_FORCE_HOW', 'add --force')} "
                            "to write over it")
    solved = {(root / name).resolve() for name in files}
    if any((out / name).resolve() in solved for name in files):
        raise ExerciseError(f"--out {out}: would write over the solved repository's own files; "
                            "choose a folder outside it or a new subfolder")


def main(argv: list[str] | None = None) -> int:
    """The command line: check the target, build the exercise in a scratch folder, copy it."""
    parser = cli.Parser(prog="tools/exercise/make.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=cli.path, metavar="DIR",
                        help="the folder to write the students' version into (new or empty)")
    parser.add_argument("--force", action="store_true",
                        help="write into a folder that is not empty (files of the same name are "
                             "replaced, other files stay)")
    args = parser.parse_args(argv)
    out = Path(args.out).expanduser().absolute()
    try:
        check_target(ROOT, out, tracked_files(ROOT), args.force)
        with tempfile.TemporaryDirectory(prefix="exercise-") as scratch:
            stubs = build(ROOT, Path(scratch))
            for made in sorted(Path(scratch).rglob("*")):
                if made.is_file():
                    destination = out / made.relative_to(scratch)
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(made, destination)
    except OSError as error:
        raise ExerciseError(f"--out {args.out}: cannot write the exercise there "
                            f"({error.strerror or error}: {error.filename})") from None
    print(f"Wrote the students' version to {args.out} ({len(stubs)} stubs):")
    for stub in stubs:
        print(f"  piece {stub.instructions.piece}: {stub.instructions.function} "
              f"({stub.path}:{stub.line})")
    print("Students fill in the stubs and check them with: python check.py")
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
