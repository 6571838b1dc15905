"""The class grader against every cheat of tests/test_selfcheck_cheats.py, handed in as a class
beside honest hand-ins in several styles: each cheat earns nothing for the piece it cheated and
is named in the ``flags`` column; each honest hand-in gets every point and no flag. Also the
grader's own flags: a file named like a needed module, and two tables that are the same."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.test_grade import GRADE, exercise, verdicts  # noqa: F401  (exercise: a fixture)
from tests.test_grade_hostile import read_rows
from tools.benchmarks.handins import CHEATS, HONEST, write_hand_in
from tools.grading.submissions import read_submission

EPOCHS = 3_000
FULL_MARKS = "120"


def name_of(kind: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in kind)


def test_a_file_named_like_a_needed_module_is_flagged_and_not_used(tmp_path):
    folder = tmp_path / "hand-in"
    (folder / "random").mkdir(parents=True)
    (folder / "json.py").write_text("x = 1\n", encoding="utf-8")
    (folder / "random" / "__init__.py").write_text("x = 1\n", encoding="utf-8")
    (folder / "helpers.py").write_text("x = 1\n", encoding="utf-8")
    submission = read_submission(folder, ("MC_Trainer.py",), {})
    assert sorted(submission.flags) == [
        "json.py is named like the module json that Python or the check needs (it would be "
        "imported in its place): not used",
        "random/__init__.py is named like the module random that Python or the check needs (it "
        "would be imported in its place): not used"]
    assert submission.files == {}


@pytest.fixture(scope="module")
def graded(tmp_path_factory, exercise):  # noqa: F811  (the fixture, by name)
    """The class: every cheat, and every honest style twice (two runs of the same code train
    tables of their own), graded in one run."""
    base = tmp_path_factory.mktemp("grade-cheats")
    friend = base / "friend"
    write_hand_in(friend, "solution", EPOCHS, exercise, whole=True)
    done = subprocess.run([sys.executable, "check.py", "--tables", str(base / "tables")],
                          cwd=friend, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    paths = []
    for kind in [*CHEATS, *HONEST, *(f"{kind} again" for kind in HONEST)]:
        paths.append(write_hand_in(base / "class" / name_of(kind), kind.removesuffix(" again"),
                                   EPOCHS, exercise,
                                   friend=(base / "tables" / "X.pth").read_bytes()))
    done = subprocess.run([sys.executable, str(GRADE), *map(str, paths), "--out",
                           str(base / "report"), "--jobs", "2"], capture_output=True,
                          text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    return read_rows(base / "report")


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(CHEATS))
def test_every_cheat_is_refused_and_flagged_with_its_reason(graded, kind):
    row = graded[name_of(kind)]
    assert row["total"] != FULL_MARKS and "passed" != row["piece 3"], row
    assert CHEATS[kind][3] in row["flags"], row


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(HONEST))
def test_honest_hand_ins_get_every_point_and_no_flag(graded, kind):
    for name in (name_of(kind), name_of(f"{kind} again")):
        row = graded[name]
        assert verdicts(row) == ["passed"] * 5 and row["total"] == FULL_MARKS, row
        assert row["flags"] == "", row
