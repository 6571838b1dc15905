"""The class grader against every cheat of tests/test_selfcheck_cheats.py, handed in as a class
beside honest hand-ins in several styles (one with a helper module of its own): each cheat earns
nothing for the piece it cheated and is named in the ``flags`` column; each honest hand-in gets
every point and no flag. Also the grader's own flags: a file named like a needed module, and two
tables that are the same; and which of a hand-in's files its box gets."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import zipfile

import pytest

from tests.test_grade import GRADE, exercise, verdicts  # noqa: F401  (exercise: a fixture)
from tests.test_grade_hostile import read_rows
from tools.benchmarks.handins import CHEATS, HONEST, write_hand_in
from tools.grading.handin import MAX_OWN_FILES, Submission
from tools.grading.limits import Limits
from tools.grading.measure import Measure, Trained
from tools.grading.results import make_row
from tools.grading.sandbox import Outcome, box_files
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
    assert submission.files == {"helpers.py": b"x = 1\n"}     # a module of its own is used


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


# --- the student's own modules ----------------------------------------------------------------

ISSUED = {"MC_Trainer.py": b"raise NotImplementedError('Exercise piece 3')\n",
          "State.py": b"class State: ...\n", "check.py": b"# the check\n"}
OWN_FILES = {"MC_Trainer.py": b"from mc_tools import walk_back\n",
             "mc_tools.py": b"def walk_back(): ...\n", "helpers/board.py": b"SIZE = 3\n",
             "State.py": b"class State: 'changed'\n", "check.py": b"# changed\n",
             "tictactoe_rl/selfcheck/reference.py": b"KEY = 1\n", "tools/grade.py": b"\n",
             ".venv/lib/site.py": b"\n", "__pycache__/mc_tools.cpython-311.py": b"\n",
             "notes.txt": b"mine\n", "sitecustomize.py": b"import os\n"}


def hand_in_with_own_modules(tmp_path):
    folder = tmp_path / "hand-in"
    for name, data in OWN_FILES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    archive = tmp_path / "hand-in.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for name, data in OWN_FILES.items():
            zipped.writestr(f"hand-in/{name}", data)
    return folder, archive


def test_a_hand_in_s_own_modules_go_into_its_box_and_no_issued_file_is_replaced(tmp_path):
    for path in hand_in_with_own_modules(tmp_path):
        submission = read_submission(path, ("MC_Trainer.py",), ISSUED)
        assert sorted(submission.files) == ["MC_Trainer.py", "helpers/board.py", "mc_tools.py"]
        box = box_files(ISSUED, submission, ("MC_Trainer.py",))
        assert box["mc_tools.py"] == OWN_FILES["mc_tools.py"]
        assert box["MC_Trainer.py"] == OWN_FILES["MC_Trainer.py"]
        assert box["State.py"] == ISSUED["State.py"] and box["check.py"] == ISSUED["check.py"]
        assert sorted(box) == ["MC_Trainer.py", "State.py", "check.py", "helpers/board.py",
                               "mc_tools.py"]


def test_own_modules_are_counted_out_up_to_a_cap(tmp_path):
    folder = tmp_path / "many"
    folder.mkdir()
    for number in range(MAX_OWN_FILES + 10):
        (folder / f"helper_{number:03}.py").write_text("x = 1\n", encoding="utf-8")
    assert len(read_submission(folder, ("MC_Trainer.py",), ISSUED).files) == MAX_OWN_FILES


# --- the grader plays the training's games again ----------------------------------------------

def test_a_table_the_games_of_its_training_do_not_explain_is_flagged_whatever_the_check_said(
        tmp_path):
    """The box's check passed everything, but the grader, playing the training's games again on
    its own stream, finds the X table unexplained: piece 3 earns nothing and is flagged."""
    tables = tmp_path / "out" / "tables"
    tables.mkdir(parents=True)
    verdict = {"format": 1, "tables": {"X": str(tables / "X.pth"), "O": None},
               "pieces": [{"number": n, "verdict": "passed", "message": ""} for n in range(1, 6)],
               "training": {"X": {"sha256": hashlib.sha256(b"table").hexdigest()}}}
    outcome = Outcome(0, False, 1.0, "", "", json.dumps(verdict).encode(),
                      tables={"X.pth": b"table", "X.games": b"games"}, box=str(tmp_path),
                      stream="5eed")
    given = []

    def measure_tables(trained):
        given.append(trained)
        return {"X": Measure((1, 0, 0), (1, 0, 0), True, unexplained="12 pairs of the table its "
                             "main saved hold values that no game of your run gave")}

    row = make_row(Submission("s", "s"), outcome, Limits(), measure_tables)
    assert given == [{"X": Trained(b"table", b"games", "5eed")}]
    assert row.verdicts[3] == "flagged" and 3 not in row.points and row.total == 80
    assert row.flags == ["the X training: not the student's own work"]
    assert row.messages[3] == ("the training of X with its main: 12 pairs of the table its main "
                               "saved hold values that no game of your run gave")
