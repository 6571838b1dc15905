"""Shared test set-up: run from the project root, no real window, and the course's fixtures."""

import contextlib
import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
# One thread per process for torch and BLAS, the scripts the tests start too: make test-all runs a
# worker on each core, and an operation split over threads waits for a core the other worker holds
# (a DQN test took 8 minutes for 2 minutes of work).
os.environ.setdefault("OMP_NUM_THREADS", "1")

# The course's original tables live beside the project (never copied into it); a user's clone has
# no such folder, CI has.
FIXTURES = ROOT.parent / "shared" / "fixtures" / "original-course"


@pytest.fixture(scope="session", autouse=True)
def sb3_logs_kept_in_the_tests_folder(tmp_path_factory):
    """Stable-Baselines3 makes a log folder in the system's temp folder for every model it
    trains, unless SB3_LOGDIR names one: the tests' go where pytest keeps its own files."""
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3-logs"))


@pytest.fixture
def fixture_path():
    """Path of a course fixture by file name; skips the test when the fixtures are absent."""
    def find(name: str) -> str:
        path = FIXTURES / name
        if not path.is_file():
            pytest.skip(f"course fixture {name} not found beside the project ({FIXTURES})")
        return str(path)
    return find


@pytest.fixture
def chapter():
    """The chapter's code (``tools/course/chapter_code``); skips the test when its listings are
    absent."""
    from tools.course import chapter_code
    try:
        chapter_code.listing("README.md")
    except chapter_code.ListingMissing as missing:
        pytest.skip(str(missing))
    return chapter_code


@contextlib.contextmanager
def shared_by_the_workers(tmp_path_factory, name: str):
    """A folder ``name`` of the whole run's, and the right to make it: pytest-xdist's workers
    take turns (the folder holds ``done`` once a worker made it); without xdist, the run's own."""
    base = tmp_path_factory.getbasetemp()
    if "PYTEST_XDIST_WORKER" not in os.environ:
        yield base / name
        return
    import fcntl           # POSIX: make test-all's workers (xdist) run on Linux and macOS
    with open(base.parent / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield base.parent / name


@pytest.fixture(scope="session")
def students_built(tmp_path_factory) -> Path:
    """The students' version as ``make exercise`` writes it, built once per run (by the first
    worker to need it); never handed to a test as it is (``students_copy`` gives each module a
    copy of its own to run and change)."""
    from tools.exercise import make as make_exercise
    with shared_by_the_workers(tmp_path_factory, "students-built") as folder:
        if not (folder / "done").is_file():
            shutil.rmtree(folder, ignore_errors=True)          # a build cut short
            make_exercise.main(["--out", str(folder / "exercise")])
            (folder / "done").touch()
    return folder / "exercise"


@pytest.fixture(scope="module")
def students_copy(students_built, tmp_path_factory) -> Path:
    """A copy of the students' version of this module's own."""
    return Path(shutil.copytree(students_built, tmp_path_factory.mktemp("students") / "exercise"))


# The order the workers take the modules in (make test-all runs them in collection order): the
# longest first, the documented commands' two halves one on each worker, then the rest as
# collected. (Graders run side by side: each grading run holds accounts of its own,
# tools/grading/accounts.py.)
FIRST = ("test_commands", "test_commands_docs", "test_exercise", "test_selfcheck_verdicts",
         "test_notebook_boards", "test_docs", "test_dqn", "test_grade_hostile",
         "test_selfcheck_cheats", "test_grade_cheats", "test_grade_report", "test_grade",
         "test_selfcheck_forgery", "test_selfcheck_mistakes", "test_grade_sandbox",
         "test_optimum_boards")


def pytest_collection_modifyitems(config, items):
    """Put the modules of ``FIRST`` first, in that order (the others keep theirs)."""
    def rank(item) -> int:
        module = item.module.__name__.rpartition(".")[2]
        return FIRST.index(module) if module in FIRST else len(FIRST)
    items.sort(key=rank)
