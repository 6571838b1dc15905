"""Shared test set-up: run from the project root, no real window, and the course's fixtures."""

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


@pytest.fixture(scope="session")
def students_built(tmp_path_factory) -> Path:
    """The students' version as ``make exercise`` writes it, built once per run; never handed to a
    test as it is (``students_copy`` gives each module its own copy to run and change)."""
    from tools.exercise import make as make_exercise
    target = tmp_path_factory.mktemp("students-built") / "exercise"
    make_exercise.main(["--out", str(target)])
    return target


@pytest.fixture(scope="module")
def students_copy(students_built, tmp_path_factory) -> Path:
    """A copy of the students' version of this module's own."""
    return Path(shutil.copytree(students_built, tmp_path_factory.mktemp("students") / "exercise"))


# The modules whose tests run the class grader's boxes: a box of slot n runs as account n of
# tools/grading/isolation.py, so two graders at once would share accounts (and their process
# limits). Under pytest-xdist (make test-all: each worker runs whole modules) they take turns.
BOX_MODULES = {"test_grade", "test_grade_cheats", "test_grade_hostile", "test_grade_report",
               "test_grade_sandbox", "test_selfcheck_forgery", "test_selfcheck_mistakes",
               "test_selfcheck_verdicts"}


@pytest.fixture(scope="module", autouse=True)
def one_grader_at_a_time(request, tmp_path_factory):
    """A module of ``BOX_MODULES`` holds a lock shared by the xdist workers while it runs."""
    if "PYTEST_XDIST_WORKER" not in os.environ or \
            request.module.__name__.rpartition(".")[2] not in BOX_MODULES:
        yield
        return
    import fcntl
    # the workers' temporary folders are beside each other, in the run's own folder
    with open(tmp_path_factory.getbasetemp().parent / "boxes.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


# The order the workers take the modules in (make test-all runs them in collection order): the
# longest first, the documented commands' two halves, one on each worker; then the grader's
# modules, which take turns at their lock, between long modules of other kinds so that a worker
# seldom waits; then the rest as collected.
GRADERS = sorted(BOX_MODULES)
FIRST = ("test_commands", "test_commands_docs", "test_exercise", GRADERS[0], "test_dqn",
         *GRADERS[1:4], "test_selfcheck_cheats", *GRADERS[4:], "test_optimum_boards")


def pytest_collection_modifyitems(config, items):
    """Put the modules of ``FIRST`` first, in that order (the others keep theirs)."""
    def rank(item) -> int:
        module = item.module.__name__.rpartition(".")[2]
        return FIRST.index(module) if module in FIRST else len(FIRST)
    items.sort(key=rank)
