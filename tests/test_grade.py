"""The class grader (tools/grade.py): a generated class graded end to end, and its parts.

The class is made here from the solved repository's own files (a correct submission is the
solved files themselves) with the changes a class brings: a wrong update, a missing file, code
that crashes, hangs, prints megabytes, deletes files, or attacks another submission and the
report; zips with and without a folder inside, one with members that try to leave it.
"""

from __future__ import annotations

import csv
import json
import stat
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from AI_Agent import AI_Agent
from tictactoe_rl.training.curves import exact_results
from tictactoe_rl.exact.worst import worst_case
from State import O, X
from tools.grade import read_tree
from tools.grading import cells, handin, report, results, submissions
from tools.grading.limits import Limits
from tools.grading.sandbox import Outcome
from tools.grading.text import one_line

ROOT = Path(__file__).resolve().parent.parent
GRADE = ROOT / "tools" / "grade.py"
EDITABLE = ("AI_Agent.py", "Episode.py", "MC_Trainer.py", "Q_Trainer.py", "SARSA_Trainer.py",
            "nim/nim.py")
CLASS_TIMEOUT = 45           # --timeout for the class: the hanging one must stop by then
EPOCHS = 3_000               # the training episodes of the class's MC_Trainer.py
ALL_PASS = ["passed"] * 5
PIECES = [f"piece {n}" for n in range(1, 6)]

def run_grader(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(GRADE), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def exercise(students_copy) -> Path:
    """The students' version, as make exercise writes it."""
    return students_copy


# --- making the class ----------------------------------------------------------------------------

def solved(names: tuple[str, ...] = EDITABLE) -> dict[str, str]:
    """The solved files, with a short training: the check trains with the student's own
    ``epochs``, and a student may well choose fewer than the course's 200,000."""
    files = {name: (ROOT / name).read_text(encoding="utf-8") for name in names}
    return changed(files, "MC_Trainer.py", "\nepochs = 200_000\n", f"\nepochs = {EPOCHS}\n") \
        if "MC_Trainer.py" in files else files


def changed(files: dict[str, str], name: str, old: str, new: str) -> dict[str, str]:
    """``files`` with the first ``old`` of file ``name`` replaced by ``new``."""
    assert old in files[name], f"{old!r} is no longer in the solved {name}: update the test"
    return {**files, name: files[name].replace(old, new, 1)}


def appended(files: dict[str, str], name: str, code: str) -> dict[str, str]:
    """``files`` with ``code`` run at the end of importing ``name``."""
    return {**files, name: files[name] + "\n\n" + code.strip("\n") + "\n"}


def write_folder(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def write_zip(path: Path, files: dict[str, str], inside: str = "") -> zipfile.ZipFile:
    archive = zipfile.ZipFile(path, "w")
    for name, text in files.items():
        archive.writestr(inside + name, text)
    return archive


HOSTILE = '''
import os as _os, subprocess as _subprocess, sys as _sys
for _name in ("AI_Agent.py", "MC_Trainer.py"):
    try:
        with open(_os.path.join({victim!r}, _name), "w") as _file:
            _file.write("raise SystemExit('overwritten by another submission')\\n")
    except OSError:
        pass
try:
    with open({report!r}, "w") as _file:
        _file.write("hacked\\n")
except OSError:
    pass
# A process of its own session that keeps writing the report (and a mark) for a minute.
_subprocess.Popen([_sys.executable, "-c", """
import time
for _ in range(120):
    time.sleep(0.5)
    for path, text in (({report!r}, "hacked later"), ({mark!r}, "x")):
        try:
            with open(path, "a") as file:
                file.write(text)
        except OSError:
            pass
"""], start_new_session=True, stdout=_subprocess.DEVNULL, stderr=_subprocess.DEVNULL)
'''

DELETER = '''
import os as _os, shutil as _shutil
_shutil.rmtree(_os.getcwd(), ignore_errors=True)
_shutil.rmtree(_os.path.expanduser("~"), ignore_errors=True)
_shutil.rmtree({canary!r}, ignore_errors=True)
'''

# The check runs each piece in a process of its own; this takes the check's own process down
# (it imports AI_Agent itself to measure the trained table).
CRASH_THE_CHECK = '''
import os as _os
_os._exit(3)
'''

# Forever, but asleep: a hang that leaves the machine to the rest of the class.
HANG = '''
import time as _time
while True:
    _time.sleep(0.1)
'''

LOUD = '''
import os as _os
for _ in range(160):                      # 10 MiB on each of stdout and stderr
    _os.write(1, b"x" * 65536)
    _os.write(2, b"y" * 65536)
'''


def make_class(hand_ins: Path, report_dir: Path, canary: Path, mark: Path) -> list[Path]:
    """The class, in the order graded: the hostile one before the submission it attacks."""
    hand_ins.mkdir()
    alice = hand_ins / "alice"
    mc = "MC_Trainer.py"
    made = {
        "mallory": appended(solved(), "AI_Agent.py", HOSTILE.format(
            victim=str(alice), report=str(report_dir / report.CSV_NAME), mark=str(mark))),
        "oscar": appended(solved(), "AI_Agent.py", DELETER.format(canary=str(canary))),
        "alice": solved(),
        "bob": changed(solved(), mc, "G = gamma * G + side * reward", "G = side * reward"),
        "carol": changed(solved(), mc, "G = gamma * G + side * reward", "G = gamma * G + reward"),
        "frank": solved(("AI_Agent.py", "Episode.py", mc)),
        "grace": appended(solved(), "AI_Agent.py", "raise RuntimeError('broken at import')"),
        "heidi": appended(solved(), "AI_Agent.py", CRASH_THE_CHECK),
        "ivan": appended(solved(), "AI_Agent.py", HANG),
        "judy<script>": appended(solved(), "AI_Agent.py", LOUD),
    }
    paths = [write_folder(hand_ins / name, files) for name, files in made.items()]
    write_zip(hand_ins / "erin.zip", solved()).close()
    with write_zip(hand_ins / "dave.zip", solved(), inside="dave/") as archive:
        archive.writestr("../evil.py", "print('outside')")
        archive.writestr("/abs/evil.py", "print('absolute')")
        link = zipfile.ZipInfo("dave/nim/nim.py.link")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
    return paths + [hand_ins / "erin.zip", hand_ins / "dave.zip"]


@dataclass
class Graded:
    """The grader's run over the class and what the tests look at afterwards."""
    done: subprocess.CompletedProcess
    rows: dict[str, dict[str, str]]           # by name, as the CSV has them
    report: Path
    canary: Path                              # a folder of the teacher's that one tries to delete
    mark: Path                                # written by a process that must die with its check
    attacked: Path                            # the hand-in folder the hostile one overwrites
    attacked_before: dict[str, bytes]


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Graded:
    """The class, graded once (two at a time)."""
    base = tmp_path_factory.mktemp("grade-class")
    report_dir, canary, mark = base / "report", base / "canary", base / "mark"
    canary.mkdir()
    (canary / "keep.txt").write_text("the teacher's file")
    paths = make_class(base / "hand-ins", report_dir, canary, mark)
    attacked = read_tree(base / "hand-ins" / "alice")
    done = run_grader([*map(str, paths), "--out", str(report_dir), "--timeout",
                       str(CLASS_TIMEOUT), "--jobs", "2"], base)
    assert done.returncode == 0, done.stderr[-3000:]
    time.sleep(1.5)                 # a survivor of the hostile one would write by now
    with open(report_dir / report.CSV_NAME, newline="", encoding="utf-8") as stream:
        rows = {row["name"]: row for row in csv.DictReader(stream)}
    return Graded(done, rows, report_dir, canary, mark, base / "hand-ins" / "alice", attacked)


# --- the class -----------------------------------------------------------------------------------

def verdicts(row: dict) -> list[str]:
    return [row[piece] for piece in PIECES]


def sealed(done: subprocess.CompletedProcess) -> bool:
    """Whether the grader said that a submission could write nowhere but in its own copy."""
    return "read-only except its own copy" in done.stdout or "unprivileged account" in done.stdout


@pytest.mark.slow
def test_every_submission_has_its_row(graded):
    assert list(graded.rows) == ["mallory", "oscar", "alice", "bob", "carol", "frank", "grace",
                                 "heidi", "ivan", "judy<script>", "erin", "dave"]
    assert "Isolation:" in graded.done.stdout


@pytest.mark.slow
def test_correct_submissions_pass_every_piece_with_the_exact_numbers_of_their_tables(graded):
    rows, report_dir = graded.rows, graded.report
    for number, name in ((3, "alice"), (11, "erin"), (12, "dave")):
        row = rows[name]
        assert row["status"] == "graded" and verdicts(row) == ALL_PASS, row
        for side, player in (("X", X), ("O", O)):
            agent = AI_Agent(player, Q_table_PATH=str(
                report_dir / "tables" / f"{number:02d}-{name}-{side}.pth"), train=False)
            exact = exact_results(agent)
            for opponent in ("random", "advanced"):
                for outcome, value in zip(("wins", "losses", "draws"), exact[opponent]):
                    assert row[f"{side} vs {opponent} {outcome}"] == f"{value:.6f}"
            unbeatable = "yes" if worst_case(agent)[0] >= 0 else "no"
            assert row[f"{side} unbeatable"] == unbeatable


@pytest.mark.slow
def test_wrong_updates_fail_their_pieces_and_o_is_measured_only_when_piece_4_passes(graded):
    rows = graded.rows
    bob, carol = rows["bob"], rows["carol"]
    assert verdicts(bob) == ["passed", "passed", "failed", "failed", "passed"], bob
    assert bob["X vs random wins"] == "" and "piece 3:" in bob["note"]
    assert verdicts(carol) == ["passed", "passed", "passed", "failed", "passed"], carol
    assert carol["X vs random wins"] != "" and carol["O vs random wins"] == ""


@pytest.mark.slow
def test_a_missing_file_keeps_its_stub(graded):
    rows = graded.rows
    frank = rows["frank"]
    assert verdicts(frank) == ["passed"] * 4 + ["not written"], frank
    assert "missing (kept the stub): Q_Trainer.py, SARSA_Trainer.py, nim/nim.py" in frank["note"]


@pytest.mark.slow
def test_crashing_submissions_get_their_rows(graded):
    rows = graded.rows
    grace, heidi = rows["grace"], rows["heidi"]
    assert grace["status"] == "graded" and verdicts(grace)[:4] == ["failed"] * 4, grace
    assert "broken at import" in grace["note"]
    # check.py itself never runs a student's code, so each piece ends alone and is failed
    assert heidi["status"] == "graded" and verdicts(heidi) == ["failed"] * 5, heidi
    assert "ended the check's run of it before it sent what it found (exit status 3" \
        in heidi["note"], heidi["note"]


@pytest.mark.slow
def test_the_hanging_one_is_stopped_at_the_time_limit(graded):
    rows = graded.rows
    ivan = rows["ivan"]
    assert ivan["status"] == "timed out", ivan
    assert CLASS_TIMEOUT <= float(ivan["seconds"]) < CLASS_TIMEOUT + 30   # a loaded machine too
    assert f"still running after {CLASS_TIMEOUT} s" in ivan["note"]


@pytest.mark.slow
def test_megabytes_of_output_change_nothing(graded):
    rows = graded.rows
    assert verdicts(rows["judy<script>"]) == ALL_PASS
    log = (graded.report / "logs" / "10-judy_script_.txt").read_text(encoding="utf-8")
    assert len(log) < 20_000     # the check swallows what a piece prints; the grader caps the rest


@pytest.mark.slow
def test_files_deleted_by_a_submission_change_no_other_row(graded):
    oscar = graded.rows["oscar"]
    assert oscar["status"] == "graded", oscar
    if sealed(graded.done):      # its own copy is read-only to it too: it deletes nothing
        assert (graded.canary / "keep.txt").is_file(), "a submission deleted a teacher's folder"
    # Its code walks into the check's folders to delete them: the guard fails each piece for it
    # (the folders are opened while the student's code runs), the grader flags them as not its
    # own work, and no other row changes.
    assert set(verdicts(oscar)) == {"flagged"}, oscar
    assert "not the student's own work" in oscar["flags"] and oscar["total"] == "0"
    assert verdicts(graded.rows["alice"]) == ALL_PASS


@pytest.mark.slow
def test_a_hostile_submission_changes_neither_another_row_nor_the_report(graded):
    assert verdicts(graded.rows["alice"]) == ALL_PASS       # graded after mallory attacked it
    if sealed(graded.done):
        assert read_tree(graded.attacked) == graded.attacked_before
    text = (graded.report / report.CSV_NAME).read_text(encoding="utf-8")
    assert text.startswith("name,origin,status,piece 1") and "hacked" not in text
    mark = graded.mark
    if "PID namespace on" in graded.done.stdout:
        size = mark.stat().st_size if mark.exists() else 0
        time.sleep(1.5)
        assert (mark.stat().st_size if mark.exists() else 0) == size, \
            "a process of the hostile submission outlived it"


@pytest.mark.slow
def test_zip_members_that_leave_the_folder_are_refused(graded):
    note = graded.rows["dave"]["note"]
    assert "'../evil.py' (a path that leaves the folder (..))" in note
    assert "'/abs/evil.py' (an absolute path)" in note and "a symbolic link" in note
    assert not (graded.report.parent / "evil.py").exists()


@pytest.mark.slow
def test_the_page_escapes_what_students_control_and_holds_the_plot(graded):
    report_dir = graded.report
    page = (report_dir / report.HTML_NAME).read_text(encoding="utf-8")
    assert "judy&lt;script&gt;" in page and "<script>" not in page
    assert 'src="data:image/png;base64,' in page
    assert (report_dir / report.PLOT_NAME).read_bytes().startswith(b"\x89PNG")


# --- the parts -----------------------------------------------------------------------------------

def test_the_files_to_grade_are_the_ones_with_stubs(exercise):
    assert submissions.editable_files(read_tree(exercise)) == EDITABLE


@pytest.mark.slow
def test_an_empty_folder_against_the_version_handed_out(exercise, tmp_path):
    (tmp_path / "nobody-wrote-anything").mkdir()
    done = run_grader(["nobody-wrote-anything", "--exercise", str(exercise), "--out", "out"],
                      tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    with open(tmp_path / "out" / report.CSV_NAME, newline="", encoding="utf-8") as stream:
        [row] = list(csv.DictReader(stream))
    assert row["status"] == "graded" and verdicts(row)[:3] == ["not written"] * 3, row
    assert verdicts(row)[3:] == ["not attempted"] * 2
    assert row["note"].startswith("none of the files to grade was found")


@pytest.mark.slow
def test_bad_arguments_are_one_line_and_status_2(tmp_path):
    (tmp_path / "taken").write_text("a file where the report folder should go")
    (tmp_path / "s").mkdir()
    for args, says in ((["missing"], "no such file or folder"),
                       (["s", "--weights", "1,2"], "expected 5 whole numbers"),
                       (["s", "--out", "taken"], "cannot write the report there"),
                       (["s", "--timeout", "0"], "--timeout must be more than 0")):
        done = run_grader(args, tmp_path)
        assert done.returncode == 2 and says in done.stderr, (args, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_a_linked_file_in_a_folder_is_refused(tmp_path):
    other = write_folder(tmp_path / "other", {"AI_Agent.py": "# someone else's\n"})
    (tmp_path / "mine" / "nim").mkdir(parents=True)
    (tmp_path / "mine" / "AI_Agent.py").symlink_to(other / "AI_Agent.py")
    (tmp_path / "mine" / "MC_Trainer.py").write_text("# mine\n")
    (tmp_path / "mine" / "nim" / "nim.py").write_text("# mine too\n")
    read = submissions.read_submission(tmp_path / "mine", EDITABLE)
    assert sorted(read.files) == ["MC_Trainer.py", "nim/nim.py"]
    assert "refused AI_Agent.py: a symbolic link" in read.notes


def test_a_zip_member_larger_than_the_cap_is_refused(tmp_path):
    with write_zip(tmp_path / "big.zip", {"MC_Trainer.py": "#" * (handin.MAX_FILE_BYTES + 1),
                                          "AI_Agent.py": "# fine\n"}):
        pass
    read = submissions.read_submission(tmp_path / "big.zip", EDITABLE)
    assert list(read.files) == ["AI_Agent.py"]
    assert any(note.startswith("refused MC_Trainer.py: larger than") for note in read.notes)


def never_measured(tables: dict[str, bytes]) -> dict:
    assert not tables, "no table should be measured here"
    return {}


def outcome(**fields) -> Outcome:
    values = {"returncode": 1, "timed_out": False, "seconds": 1.0, "stdout": "", "stderr": "",
              "result": None}
    return Outcome(**{**values, **fields})


@pytest.mark.parametrize("fields, status", [
    ({"returncode": 128 + 9, "stderr": "MemoryError\n"}, "killed (memory)"),
    ({"returncode": 128 + 24}, "killed (CPU time)"),
    ({"returncode": 128 + 11}, "killed (SIGSEGV)"),
    ({"returncode": 1, "stderr": "Traceback...\nMemoryError\n"}, "killed (memory)"),
    ({"returncode": 5}, "crashed (exit status 5)"),
    ({"timed_out": True, "returncode": 128 + 9}, "timed out"),
])
def test_a_child_without_a_result_gets_a_status_that_says_why(fields, status):
    row = results.make_row(handin.Submission("s", "s"), outcome(**fields), Limits(seconds=9),
                           never_measured)
    assert row.status == status and not row.verdicts


@pytest.mark.parametrize("data", [b"", b"\xff", b"[]", b'{"format": 2, "pieces": []}',
                                  b'{"format": 1, "pieces": [{"number": 9, "verdict": "passed"}]}',
                                  b'{"format": 1, "pieces": [{"number": 1, "verdict": "great"}]}'])
def test_a_garbled_result_is_refused(data):
    with pytest.raises(results.ResultError):
        results.parse_result(data)


def test_a_result_naming_a_table_outside_its_folder_is_ignored(tmp_path):
    result = {"format": 1, "pieces": [{"number": n, "verdict": "passed", "message": ""}
                                      for n in range(1, 6)],
              "tables": {"X": "/etc/passwd", "O": "../../elsewhere.pth"}}
    row = results.make_row(handin.Submission("s", "s"),
                           outcome(returncode=0, result=json.dumps(result).encode(),
                                   box=str(tmp_path)), Limits(), never_measured)
    assert row.verdicts == {n: "passed" for n in range(1, 6)} and not row.measures
    assert sum("not in the tables folder" in note for note in row.notes) == 2


def test_messages_from_a_child_become_one_line_with_hidden_characters_escaped():
    assert one_line("a\nb\x1b[31m\u202ec" + "d" * 500, 30) == "a b\\u001b[31m\\u202ecddddddd..."


@pytest.mark.parametrize("data", [b"[" * 100_000 + b"]" * 100_000,
                                  b'{"format": 1, "pieces": ' + b"[" * 100_000 + b"]" * 100_000
                                  + b"}"])
def test_a_verdict_nested_100000_deep_is_refused_not_a_crash(data):
    with pytest.raises(results.ResultError):
        results.parse_result(data)


def test_a_verdict_from_a_check_that_did_not_end_by_itself_is_not_read():
    forged = {"format": 1, "pieces": [{"number": n, "verdict": "passed", "message": ""}
                                      for n in range(1, 6)], "tables": {}}
    for code in (137, 2, 130, None):
        row = results.make_row(handin.Submission("s", "s"),
                               outcome(returncode=code, result=json.dumps(forged).encode()),
                               Limits(), never_measured)
        assert not row.verdicts and row.total == 0, code


def test_a_spreadsheet_cannot_run_a_cell_of_the_report():
    row = results.Row("=HYPERLINK(\"http://x\")", "graded", notes=["-1+1"])
    text = report.csv_text(cells.table([row]))
    assert "'=HYPERLINK" in text and "'-1+1" in text


def test_piece_three_passed_beside_a_failed_piece_two_says_it_was_judged_alone():
    """A Generate_episode that crashes costs piece 2 alone: main is judged on the check's own
    episodes. The row says so, so that 70 points beside a crash reads as meant."""
    pieces = [{"number": 1, "verdict": "passed", "message": ""},
              {"number": 2, "verdict": "failed",
               "message": "Generate_episode raised AttributeError: no attribute 'choose_move'"},
              {"number": 3, "verdict": "passed", "message": "as X: 200,000 episodes"}]
    verdict = json.dumps({"format": 1, "pieces": pieces, "tables": {}}).encode()
    row = results.make_row(handin.Submission("s", "s"), outcome(result=verdict), Limits(),
                           never_measured)
    assert row.total == 70 and results.OWN_EPISODES in row.notes, row
    note = cells.table([row])[0][cells.COLUMNS.index("note")]
    assert "the check judges main on episodes of its own" in note
    pieces[1]["verdict"] = "passed"
    row = results.make_row(handin.Submission("s", "s"), outcome(
        result=json.dumps({"format": 1, "pieces": pieces, "tables": {}}).encode()), Limits(),
        never_measured)
    assert results.OWN_EPISODES not in row.notes
