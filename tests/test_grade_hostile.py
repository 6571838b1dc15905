"""The class grader against hostile hand-ins: forgeries, tampered check files, crashers of the
grader itself, a fork bomb beside an honest hand-in, signals. Each class is written here and run
through tools/grade.py; the tests read the report's rows."""

from __future__ import annotations

import csv
import json
import os
import random
import re
import signal
import socket
import stat
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from tests.test_grade import (  # noqa: F401  (exercise: a fixture, used by name)
    ALL_PASS, EDITABLE, GRADE, HANG, changed, exercise, solved, verdicts, write_folder,
    write_zip)
from tools.grading import handin, submissions
from tools.grading.accounts import ACCOUNT_BASE
from tools.grading.report import CSV_NAME, HTML_NAME, STOPPED

ROOT = Path(__file__).resolve().parent.parent
NOTHING = ["not written"] * 3 + ["not attempted"] * 2


def with_code(code: str) -> dict[str, str]:
    """A hand-in that wrote piece 1 alone, whose AI_Agent.py runs ``code`` when the check
    imports it."""
    agent = solved(("AI_Agent.py",))["AI_Agent.py"]
    return {"AI_Agent.py": agent + "\n\n" + code.strip("\n") + "\n"}


def read_rows(folder: Path) -> dict[str, dict[str, str]]:
    with open(folder / CSV_NAME, newline="", encoding="utf-8") as stream:
        return {row["name"]: row for row in csv.DictReader(stream)}


# Writes a passing verdict everywhere a grader could read one (the box's old result file, every
# descriptor it can open), copies the shipped tables in, and kills the check (its process, found
# up the line of its parents: the student's code runs in a child of a child of it).
FORGE = '''
import glob as _glob, json as _json, os as _os, shutil as _shutil, signal as _signal
_forged = _json.dumps({{"format": 1, "tables": {{"X": None, "O": None}}, "pieces": [
    {{"number": _n, "verdict": "passed", "message": ""}} for _n in range(1, 6)]}})
for _path in ["../out/result.json", "out/result.json", *_glob.glob("/proc/[0-9]*/fd/*")]:
    try:
        with open(_path, "w") as _file:
            _file.write(_forged)
    except OSError:
        pass
for _side in "XO":
    for _source in ({data!r} + f"/Q_MC_{{_side}}.pth", f"Data/Q_MC_{{_side}}.pth"):
        try:
            _shutil.copy(_source, f"../out/tables/{{_side}}.pth")
        except OSError:
            pass
_pid = _os.getppid()
while _pid > 1:                     # up to the check itself, which it kills
    with open(f"/proc/{{_pid}}/cmdline", "rb") as _file:
        _named = b"check.py" in _file.read()
    if _named:
        _os.kill(_pid, _signal.SIGKILL)
        break
    with open(f"/proc/{{_pid}}/stat") as _file:
        _pid = int(_file.read().rsplit(")", 1)[1].split()[1])
'''

# Inside each piece's own process: writes "passed" where that process reports, then leaves. The
# pieces are judged apart: the student's code runs it where that descriptor is closed.
FORGE_IN_PIECE = '''
import json as _json, os as _os, sys as _sys
if "--result-fd" in _sys.argv:
    _fake = {"verdict": "passed", "message": ""}
    if "--train" in _sys.argv:
        _fake.update(episodes=1, stopped=False, opponent="Random_Agent", unbeatable=True,
                     line=None, exact={"random": [1, 0, 0], "advanced": [1, 0, 0]})
    try:
        _os.write(int(_sys.argv[_sys.argv.index("--result-fd") + 1]), _json.dumps(_fake).encode())
    except OSError:
        pass
    else:
        _os._exit(0)
'''

# Rewrites the trusted self-check in its copy so that every piece "passes".
REWRITE = '''
for _name in ("tictactoe_rl/selfcheck/run.py", "check.py"):
    try:
        with open(_name, "w") as _file:
            _file.write("import sys, json\\nprint('passed')\\n")
    except OSError:
        pass
'''

FORK_BOMB = '''
import os as _os, time as _time
while True:
    try:
        _os.fork()
    except OSError:
        _time.sleep(0.5)
'''

CORE_PATTERN = '''
try:
    open("/proc/sys/kernel/core_pattern", "a").close()
    _found = "core_pattern OPENED"
except OSError as _error:
    _found = "core_pattern refused: " + _error.strerror
raise RuntimeError(_found)
'''

SURROGATE = '''
raise ValueError("bad \\ud800 byte and \\u202e reversed")
'''

DEEP = '''
import os as _os
_fd = _os.open(_os.environ["HOME"], _os.O_RDONLY)
for _ in range(3000):
    try:
        _os.mkdir("d", dir_fd=_fd)
    except FileExistsError:
        pass
    _next = _os.open("d", _os.O_RDONLY, dir_fd=_fd)
    _os.close(_fd)
    _fd = _next
'''


# Piece 1 written as a call of the solved one, loaded from the grader's own repository by its
# path (a hand-in can find it from sys.executable, or guess the teacher's layout).
BORROWED = '''
def _borrowed(agent, epoch):
    import importlib.util as _util
    _spec = _util.spec_from_file_location("_solved_agent", {agent!r})
    _solved = _util.module_from_spec(_spec)
    _spec.loader.exec_module(_solved)
    return _solved.AI_Agent.epsilon_greedy(agent, epoch)
'''


def borrowing(exercise: Path) -> dict[str, str]:
    """The stubs, with piece 1 the solved one read from this repository at run time."""
    source = (exercise / "AI_Agent.py").read_text(encoding="utf-8")
    stub = re.search(r"raise NotImplementedError\(\s*'Exercise piece 1[^)]*\)", source)
    assert stub, "piece 1's stub is no longer in the students' AI_Agent.py: update the test"
    written = source[:stub.start()] + "return _borrowed(self, epoch)" + source[stub.end():]
    return {"AI_Agent.py": written + "\n" + BORROWED.format(agent=str(ROOT / "AI_Agent.py"))}


# Honest on the check's own small episodes; in the real training (thousands of pairs) main's
# last episode reads the self-check's code when it trains X, and for O adds the pair of a position
# no game has (two X, no O, X to move), which the table's save refuses.
PADDING = """\
        if epoch == epochs - 1 and len(Q) > 1000:
            import os
            if side == X:
                open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tictactoe_rl",
                                  "selfcheck", "pieces.py")).read()
            else:
                Q[(State([1, 1] + [0] * 7, X), (2, 2))] = 0.5
        return final_state
"""


@pytest.fixture(scope="module")
def hostile(tmp_path_factory, exercise):
    """The hostile class, graded two at a time beside an honest hand-in."""
    base = tmp_path_factory.mktemp("grade-hostile")
    hand_ins = base / "hand-ins"
    hand_ins.mkdir()
    tampered = write_folder(hand_ins / "tampered", {
        "check.py": "import sys\nprint('all pass')\nsys.exit(0)\n",
        "tictactoe_rl/selfcheck/run.py": "# always passed\n",
        "tictactoe_rl/selfcheck/extra.py": "# new\n",
        ".github/workflows/classroom.yml": "on: push\n"})
    made = {
        "forger": with_code(FORGE.format(data=str(ROOT / "Data"))),
        "rewriter": with_code(REWRITE),
        "inside": {"AI_Agent.py": (exercise / "AI_Agent.py").read_text(encoding="utf-8")
                   + FORGE_IN_PIECE},
        "stubs": {},
        "bomber": with_code(FORK_BOMB),
        "honest": solved(),
        "knob": with_code(CORE_PATTERN),
        "surrogate": with_code(SURROGATE),
        "deep": with_code(DEEP),
        "borrower": borrowing(exercise),
        "padder": changed(solved(), "MC_Trainer.py", "        return final_state\n", PADDING),
        "peeker": changed(solved(), "AI_Agent.py", '        if self.epsilon_schedule == "exp":',
                          '        import tictactoe_rl.selfcheck.reference  # noqa  (the answer key)\n'
                          '        if self.epsilon_schedule == "exp":'),
    }
    (hand_ins / "stubs").mkdir()
    paths = [write_folder(hand_ins / name, files) for name, files in made.items()]
    env = {**os.environ, "TMPDIR": str(base)}
    done = subprocess.run([sys.executable, str(GRADE), *map(str, paths), str(tampered),
                           "--out", str(base / "report"), "--timeout", "60", "--jobs", "2"],
                          cwd=base, capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return done, read_rows(base / "report"), base


@pytest.mark.slow
def test_a_main_that_cheats_only_in_the_real_training_loses_its_piece(hostile):
    """Pieces 1-4 pass on the check's own episodes. In the real training X's main reads the
    check's code: piece 3 is flagged and earns nothing. O's main saves a table that cannot be
    saved: a note says so, and piece 4 keeps what the check judged."""
    _, rows, _ = hostile
    padder = rows["padder"]
    assert verdicts(padder)[:2] == ["passed", "passed"] and padder["piece 5"] == "passed", padder
    assert padder["piece 3"] == "flagged" and padder["points 3"] == "0", padder
    assert padder["piece 4"] == "passed", padder
    assert padder["flags"] in ("the X training: not the student's own work",
                               "piece 3: not the student's own work"), padder["flags"]
    note = padder["note"]
    assert "your code reads the self-check's own code (tictactoe_rl/selfcheck/pieces.py)" \
        in note, note
    assert "the training of O with its main: main raised ValueError: not saving" in note, note
    assert padder["X vs random wins"] == "" and padder["total"] == str(30 + 30 + 10 + 10), padder


@pytest.mark.slow
def test_a_piece_that_reaches_into_the_check_is_flagged_in_the_report(hostile):
    _, rows, _ = hostile
    peeker = rows["peeker"]
    assert peeker["piece 1"] == "flagged" and peeker["points 1"] == "0", peeker
    assert "piece 1: not the student's own work" in peeker["flags"]
    assert "imports the self-check's own code (tictactoe_rl.selfcheck.reference)" in peeker["note"]


@pytest.mark.slow
def test_a_forged_verdict_and_a_killed_check_pass_nothing(hostile):
    _, rows, _ = hostile
    forger = rows["forger"]
    assert forger["status"].startswith("killed"), forger
    assert forger["total"] == "0" and "passed" not in verdicts(forger)
    assert forger["X vs random wins"] == ""


@pytest.mark.slow
def test_a_verdict_forged_inside_each_piece_never_reaches_the_grader(hostile):
    """The code in each piece's process that reports "passed" for stubs: every piece is judged
    apart from the student's code, whose process has no way to the result."""
    _, rows, _ = hostile
    inside = rows["inside"]
    assert verdicts(inside) == NOTHING, inside
    assert inside["total"] == "0" and inside["flags"] == "", inside


@pytest.mark.slow
def test_the_trusted_check_cannot_be_rewritten_from_inside(hostile):
    _, rows, _ = hostile
    rewriter = rows["rewriter"]
    # The box's copy is read-only, and opening the check's files flags the piece that does it
    # (the guard): its piece 1, written, earns nothing either.
    assert rewriter["status"] == "graded", rewriter
    assert verdicts(rewriter)[:3] == ["flagged"] * 3 and rewriter["total"] == "0", rewriter
    assert "piece 1: not the student's own work" in rewriter["flags"]


@pytest.mark.slow
def test_tampered_check_files_are_flagged_and_not_used(hostile):
    _, rows, _ = hostile
    tampered = rows["tampered"]
    assert verdicts(tampered) == NOTHING and tampered["total"] == "0"
    assert tampered["flags"].startswith("check files differ from the issued ones: ")
    for name in (".github/workflows/classroom.yml", "check.py", "tictactoe_rl/selfcheck/extra.py"):
        assert name in tampered["flags"]
    assert rows["stubs"]["flags"] == "" and verdicts(rows["stubs"]) == NOTHING


@pytest.mark.slow
def test_the_solved_repository_is_out_of_the_hand_ins_reach(hostile):
    _, rows, _ = hostile
    borrower = rows["borrower"]
    assert borrower["status"] == "graded", borrower
    assert verdicts(borrower)[0] == "failed" and borrower["total"] == "0", borrower
    assert "FileNotFoundError" in borrower["note"], borrower


@pytest.mark.slow
def test_a_fork_bomb_costs_its_neighbour_nothing(hostile):
    done, rows, _ = hostile
    if "an unprivileged account of its own" not in done.stdout \
            and "user namespace" not in done.stdout:
        pytest.skip("processes are not counted apart on this system")
    honest = rows["honest"]
    assert honest["status"] == "graded" and verdicts(honest) == ALL_PASS, honest
    assert honest["total"] == "120" and honest["X vs random wins"] != ""
    assert rows["bomber"]["total"] == "0"


@pytest.mark.slow
def test_proc_sys_is_read_only_for_a_hand_in(hostile):
    done, rows, _ = hostile
    note = rows["knob"]["note"]
    assert "core_pattern refused" in note and "OPENED" not in note, note


@pytest.mark.slow
def test_a_check_that_cannot_print_a_message_costs_one_line(hostile):
    """A message with a lone surrogate takes the check down; the row says so in one line."""
    _, rows, _ = hostile
    surrogate = rows["surrogate"]
    assert surrogate["total"] == "0" and "\n" not in surrogate["note"]
    assert "\ud800" not in surrogate["note"]


def test_surrogates_and_bidi_characters_in_a_verdict_are_escaped():
    from tools.grading.cells import table
    from tools.grading.report import csv_text
    from tools.grading.page import Context, html_page
    from tools.grading.results import make_row
    from tools.grading.limits import Limits
    from tools.grading.sandbox import Outcome

    verdict = json.dumps({"format": 1, "tables": {}, "pieces": [
        {"number": 1, "verdict": "failed", "message": "bad \ud800 byte and \u202e reversed"}]})
    row = make_row(handin.Submission("s\u202ex", "s"),
                   Outcome(1, False, 1.0, "", "", verdict.encode()), Limits(), None)
    cells = table([row])
    text = csv_text(cells)
    assert "piece 1: bad \\ud800 byte and \\u202e reversed" in text
    text.encode("utf-8")                                  # no surrogate is left to fail on
    page = html_page(cells, Context("t", "now", "i", "l"), b"")
    assert "\u202e" not in page and "\\u202e" in page


@pytest.mark.slow
def test_thousands_of_nested_folders_are_cleaned_up(hostile):
    _, rows, base = hostile
    assert rows["deep"]["status"] == "graded" and rows["deep"]["total"] == "30"
    assert not list(base.glob("grade-run-*")), "the grader left its run folder"


# --- hand-ins that never reach a sandbox -------------------------------------------------------

def damaged_zips(folder: Path) -> dict[str, Path]:
    """Zips damaged the ways a class's are: bad deflate data, a version no one has, a name
    flagged UTF-8 that is not, two members of one name."""
    files = {"AI_Agent.py": "x = 1\n" * 200, "MC_Trainer.py": "y = 2\n" * 200}
    made = {}
    path = folder / "deflate.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    data = bytearray(path.read_bytes())
    start = data.index(b"AI_Agent.py") + len("AI_Agent.py")
    data[start + 5:start + 40] = b"\xff" * 35          # inside the compressed data
    path.write_bytes(bytes(data))
    made["deflate"] = path
    path = folder / "version.zip"
    with zipfile.ZipFile(path, "w") as archive:
        info = zipfile.ZipInfo("AI_Agent.py")
        archive.writestr(info, "x = 1\n")
    data = bytearray(path.read_bytes())
    for at in (0, data.rindex(b"PK\x01\x02")):
        offset = 4 if at == 0 else 6
        data[at + offset:at + offset + 2] = (100).to_bytes(2, "little")   # "version 10.0"
    path.write_bytes(bytes(data))
    made["version"] = path
    path = folder / "utf8.zip"
    with zipfile.ZipFile(path, "w") as archive:
        info = zipfile.ZipInfo("caf\u00e9.py")
        archive.writestr(info, "z = 3\n")
    data = bytearray(path.read_bytes())
    data = data.replace("caf\u00e9".encode("utf-8"), b"caf\xe9\xe9")  # not UTF-8 any more
    central = data.rindex(b"PK\x01\x02")
    data[central + 8] |= 0x08          # general purpose flag bit 11: "the name is UTF-8"
    data[8] |= 0x08
    path.write_bytes(bytes(data))
    made["utf8"] = path
    path = folder / "twice.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("AI_Agent.py", "first\n")
        with pytest.warns(UserWarning):
            archive.writestr("AI_Agent.py", "second\n")
    made["twice"] = path
    return made


def test_damaged_zips_get_a_one_line_row_each(tmp_path):
    made = damaged_zips(tmp_path)
    read = {name: submissions.read_submission(path, EDITABLE, {}) for name, path in made.items()}
    assert "AI_Agent.py" not in read["deflate"].files and not read["deflate"].refused
    assert any(note.startswith("refused AI_Agent.py: cannot be unpacked") for note in
               read["deflate"].notes), read["deflate"].notes
    assert any("version" in note for note in read["version"].notes + [read["version"].refused])
    assert read["utf8"].refused.startswith("the archive cannot be read")
    assert read["twice"].refused.startswith("the archive holds two members named AI_Agent.py")
    for submission in read.values():
        assert "\n" not in submission.refused + " ".join(submission.notes)


def test_randomly_damaged_zips_never_raise(tmp_path):
    good = tmp_path / "good.zip"
    write_zip(good, {name: f"# {name}\n" * 50 for name in EDITABLE}, inside="s/").close()
    original = good.read_bytes()
    generator = random.Random(20)
    for number in range(300):
        data = bytearray(original)
        for _ in range(generator.randint(1, 8)):
            data[generator.randrange(len(data))] = generator.randrange(256)
        path = tmp_path / f"damaged-{number}.zip"
        path.write_bytes(bytes(data))
        read = submissions.read_submission(path, EDITABLE, {})
        assert isinstance(read.files, dict) and "\n" not in read.refused


@pytest.mark.slow
def test_a_class_of_crashers_gets_its_report(tmp_path):
    hand_ins = tmp_path / "hand-ins"
    hand_ins.mkdir()
    made = damaged_zips(hand_ins)
    os.mkfifo(hand_ins / "fifo")
    (hand_ins / "notes.txt").write_text("not a hand-in")
    bidi = hand_ins / "mal\u202elory\x07"
    bidi.mkdir()
    latin = os.fsdecode(os.fsencode(str(hand_ins)) + b"/caf\xe9")
    os.mkdir(latin)
    paths = [*made.values(), hand_ins / "fifo", hand_ins / "notes.txt", bidi, Path(latin)]
    out = os.fsdecode(b"r\xe9port")               # the teacher's folder, in Latin-1 bytes
    done = subprocess.run([sys.executable, str(GRADE), *map(str, paths), "--out", out,
                           "--timeout", "60"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "r\\xe9port" in done.stdout
    rows = read_rows(tmp_path / out)
    assert rows["fifo"]["status"] == "refused" and "FIFO" in rows["fifo"]["note"]
    assert rows["notes"]["note"] == "not a folder and not a zip archive"
    assert rows["twice"]["status"] == "refused" and rows["utf8"]["status"] == "refused"
    assert rows["deflate"]["status"] == "graded"
    assert "mal\\u202elory\\u0007" in rows and "caf\\xe9" in rows, list(rows)
    page = (tmp_path / out / HTML_NAME).read_text(encoding="utf-8")
    assert "\u202e" not in page and "mal\\u202elory" in page
    assert (tmp_path / out / "results.png").read_bytes().startswith(b"\x89PNG")


# --- signals and a full disk -------------------------------------------------------------------

def sandbox_processes(folder: Path) -> list[int]:
    """The processes running as one of the sandboxes' accounts in a box under ``folder`` (a
    grading run of another test on the machine has boxes of its own)."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and os.stat(f"/proc/{entry}").st_uid >= ACCOUNT_BASE \
                    and os.readlink(f"/proc/{entry}/cwd").startswith(str(folder)):
                found.append(int(entry))
        except OSError:
            pass
    return found


@pytest.mark.slow
@pytest.mark.parametrize("number, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_everything_and_keeps_the_report(tmp_path, number, status):
    write_folder(tmp_path / "stuck", with_code(HANG))
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    grader = subprocess.Popen([sys.executable, str(GRADE), "stuck", "--timeout", "300"],
                              cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=env)
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob("grade-run-*/box-*/repo/check.py")):
        assert time.monotonic() < deadline and grader.poll() is None, "no sandbox started"
        time.sleep(0.2)
    time.sleep(3)                   # well into the check of the stuck submission
    grader.send_signal(number)
    grader.communicate(timeout=60)
    assert grader.returncode == status
    assert not list(tmp_path.glob("grade-run-*")), "the run folder outlived the grader"
    assert not sandbox_processes(tmp_path), "a sandbox outlived the grader"
    rows = read_rows(tmp_path / "grading-report")
    assert rows["stuck"]["status"] == STOPPED


@pytest.mark.slow
def test_a_full_disk_keeps_the_grades_in_a_fallback_file(tmp_path):
    if os.geteuid() != 0 or subprocess.run(["unshare", "--mount", "true"]).returncode != 0:
        pytest.skip("needs a mount namespace to make a full disk")
    (tmp_path / "empty").mkdir()
    full, spare = tmp_path / "full", tmp_path / "spare"
    full.mkdir()
    spare.mkdir()
    script = (f"mount -t tmpfs -o size=64k tmpfs {full} && "
              f"(dd if=/dev/zero of={full}/filler bs=4k 2>/dev/null; true) && "
              f"exec {sys.executable} {GRADE} empty --out {full} --timeout 60")
    done = subprocess.run(["unshare", "--mount", "sh", "-c", script], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "TMPDIR": str(spare)})
    assert done.returncode == 0, done.stderr[-2000:]
    [fallback] = list(spare.glob("grade-report-*.csv"))
    assert f"the grades are in {fallback}" in done.stderr
    with open(fallback, newline="", encoding="utf-8") as stream:
        [row] = list(csv.DictReader(stream))
    assert row["name"] == "empty" and verdicts(row) == NOTHING and row["total"] == "0"


def test_weights_give_the_total(tmp_path):
    from tools.grading.cells import table
    from tools.grading.report import csv_text
    from tools.grading.results import Row

    row = Row("s", "graded", verdicts={1: "passed", 2: "failed", 3: "passed"},
              points={1: 30, 3: 40})
    [cells] = list(csv.DictReader(csv_text(table([row])).splitlines()))
    assert cells["total"] == "70" and cells["points 2"] == "0" and cells["points 3"] == "40"


@pytest.mark.slow
def test_a_link_to_nothing_among_the_hand_ins_is_that_row_alone(tmp_path):
    hand_ins = tmp_path / "hand-ins"
    (hand_ins / "stubs").mkdir(parents=True)
    (hand_ins / "ghost").symlink_to(tmp_path / "nowhere")
    done = subprocess.run([sys.executable, str(GRADE), *map(str, sorted(hand_ins.iterdir())),
                           "--out", str(tmp_path / "report"), "--timeout", "60"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-2000:]
    rows = read_rows(tmp_path / "report")
    assert rows["ghost"]["status"] == "refused" and rows["ghost"]["note"] == "a link to nothing"
    assert verdicts(rows["stubs"]) == NOTHING


@pytest.mark.slow
def test_without_sealed_file_systems_every_verdict_is_marked_unprotected(tmp_path, monkeypatch,
                                                                         capsys):
    """macOS, or a container that refuses unshare: the hand-in could write its own copy, so the
    report says that its verdicts are not protected, and the grader says so first."""
    from tools import grade
    from tools.grading.isolation import Isolation

    monkeypatch.setattr(grade, "stop_on_signals", lambda: None)
    monkeypatch.setattr(grade, "detect_isolation", lambda *_, **__: (Isolation(), []))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    (tmp_path / "hand-ins" / "stubs").mkdir(parents=True)
    status = grade.main([str(tmp_path / "hand-ins" / "stubs"), "--out", str(tmp_path / "report"),
                         "--timeout", "60"])
    assert status == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("Isolation: network ON") and "writable wherever" in first, first
    row = read_rows(tmp_path / "report")["stubs"]
    assert row["flags"] == grade.UNPROTECTED and verdicts(row) == NOTHING, row


# --- the measured table is the judged one --------------------------------------------------------

# The O training's main, once done, overwrites the X table the check judged (in the tables folder
# beside the O table it is trained for) with a table of its own making.
SWAP_X_TABLE = '''

_honest_main = main


def main():
    _honest_main()
    import os as _os, sys as _sys
    if "--table" in _sys.argv and _sys.argv[_sys.argv.index("--train") + 1] == "O":
        from tictactoe_rl.tables.files import save_table as _save
        from State import State as _State
        _folder = _os.path.dirname(_sys.argv[_sys.argv.index("--table") + 1])
        _save(_os.path.join(_folder, "X.pth"), {(_State(), (1, 1)): 1.0}, 1)
'''


@pytest.mark.slow
def test_a_table_rewritten_after_the_check_judged_it_is_flagged(tmp_path):
    files = solved()
    files["MC_Trainer.py"] += SWAP_X_TABLE
    hand_in = write_folder(tmp_path / "hand-ins" / "swapper", files)
    done = subprocess.run([sys.executable, str(GRADE), str(hand_in), "--out",
                           str(tmp_path / "report"), "--timeout", "300"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    row = read_rows(tmp_path / "report")["swapper"]
    assert row["piece 4"] == "passed", row         # O's training ran and its table is its own
    assert row["piece 3"] == "flagged" and row["points 3"] == "0", row
    assert "the X table is not the one the check judged" in row["flags"], row
    assert row["X vs random wins"] == "", row


# --- the third round: odd hand-ins, Windows zips, weights, a failed self-test ---------------------

@pytest.mark.parametrize("weights, says", [
    ("99999999999999999999,0,0,0,0", "at most 1,000"),
    ("-1,0,0,0,0", "cannot be negative"),
    ("30,-30,40,10,10", "cannot be negative"),
    ("0,0,0,0,0", "every piece would earn 0 points"),
    ("30,30,40,10", "expected 5 whole numbers"),
    ("30,30,4e1,10,10", "expected 5 whole numbers"),
])
@pytest.mark.parametrize("written", ["apart", "joined"])
def test_weights_out_of_bounds_are_one_line_and_status_2(tmp_path, weights, says, written):
    """``--weights -1,...`` is a value, not an unknown option, written apart or with ``=``."""
    (tmp_path / "s").mkdir()
    option = ["--weights", weights] if written == "apart" else [f"--weights={weights}"]
    done = subprocess.run([sys.executable, str(GRADE), "s", *option], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and says in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_weights_in_bounds_are_taken():
    from tools import grade

    assert grade.parse_args(["s", "--weights", "0,0,0,0,1000"]).weights == {
        1: 0, 2: 0, 3: 0, 4: 0, 5: 1000}


def special_files(folder: Path) -> dict[str, tuple[Path, str]]:
    """Hand-ins that are no folder and no file, or lie where no hand-in lies: each with what
    its row must say."""
    os.mkfifo(folder / "fifo")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(folder / "socket"))
    listener.close()
    made = {"null": (Path("/dev/null"), "a character device"), "fifo": (folder / "fifo", "a FIFO"),
            "socket": (folder / "socket", "a socket"),
            "self": (Path("/proc/self"), "lies in the system folder /proc"),
            "shm": (Path("/dev/shm"), "lies in the system folder /dev"),
            "tmp": (Path(tempfile_root()), "lies right under /")}
    blocks = [Path("/dev") / name for name in sorted(os.listdir("/dev"))
              if stat.S_ISBLK(os.stat(Path("/dev") / name).st_mode)]
    if blocks:
        made[blocks[0].name] = (blocks[0], "a block device")
    (folder / "to-dev").symlink_to("/dev/zero")
    made["to-dev"] = (folder / "to-dev", "a character device")
    return made


def tempfile_root() -> str:
    """A folder right under / that exists on every Linux and macOS."""
    return "/tmp" if os.path.isdir("/tmp") else "/usr"


def test_special_files_are_refused_and_never_covered(tmp_path):
    """A device, FIFO or socket, or anything under /proc, /sys, /dev or right under /, is
    refused in its own row, and none of its folders is covered in any box (covering /dev
    broke every box's sandbox)."""
    for name, (path, says) in special_files(tmp_path).items():
        read = submissions.read_submission(path, EDITABLE, {})
        assert says in read.refused, (name, read.refused)
        assert read.folders == () and read.files == {}, name
        assert "\n" not in read.refused


def test_windows_zips_read_like_linux_ones(tmp_path):
    """PowerShell's Compress-Archive writes ``\\`` between folders: a folder-wrapped zip and a
    flat one (``nim\\nim.py``) give exactly the files the same hand-in zipped on Linux gives;
    ``.\\`` parts and doubled separators too. Two spellings of one name are two members."""
    assert "nim/nim.py" in EDITABLE
    files = {name: f"# {name}, the student's\n" for name in EDITABLE}
    editable = EDITABLE
    linux = tmp_path / "linux.zip"
    write_zip(linux, files, inside="alice/").close()
    expected = submissions.read_submission(linux, editable, {})
    assert sorted(expected.files) == sorted(editable) and not expected.refused
    for name, spelled in (("wrapped", lambda path: "alice\\" + path.replace("/", "\\")),
                          ("flat", lambda path: path.replace("/", "\\")),
                          ("dotted", lambda path: ".\\alice\\\\" + path.replace("/", "\\"))):
        path = tmp_path / f"{name}.zip"
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr(zipfile.ZipInfo(spelled("nim/")), "")     # a folder entry
            for member, text in files.items():
                archive.writestr(spelled(member), text)
        read = submissions.read_submission(path, editable, {})
        assert read.files == expected.files and not read.refused, (name, read.notes)
        assert read.notes == expected.notes, name
    twice = tmp_path / "twice.zip"
    with zipfile.ZipFile(twice, "w") as archive:
        archive.writestr("nim/nim.py", "one\n")
        archive.writestr("nim\\nim.py", "two\n")
    assert submissions.read_submission(twice, editable, {}).refused.startswith(
        "the archive holds two members named nim/nim.py")
    escaping = tmp_path / "escaping.zip"
    with zipfile.ZipFile(escaping, "w") as archive:
        archive.writestr("..\\AI_Agent.py", "x\n")
        archive.writestr("\\MC_Trainer.py", "y\n")
        archive.writestr("C:\\Episode.py", "z\n")
    read = submissions.read_submission(escaping, editable, {})
    assert read.files == {} and "leaves the folder" in read.notes[0], read.notes
    assert read.notes[0].count("an absolute path") == 2, read.notes


@pytest.mark.slow
def test_a_failed_self_test_stops_with_one_line(tmp_path, monkeypatch, capsys):
    """What failed, and how to grade anyway; nothing graded, no report rows, status 2."""
    from tools import grade
    from tools.grading.isolation import SelfTestFailed

    def failing(*_args, **_kwargs):
        raise SelfTestFailed("the sandbox failed its self-test (the probe ran as uid 0)")

    monkeypatch.setattr(grade, "stop_on_signals", lambda: None)
    monkeypatch.setattr(grade, "detect_isolation", failing)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    (tmp_path / "hand-ins" / "stubs").mkdir(parents=True)
    with pytest.raises(SystemExit) as stopped:
        grade.main([str(tmp_path / "hand-ins" / "stubs"), "--out", str(tmp_path / "report")])
    assert stopped.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "the probe ran as uid 0" in line and "--weaker-isolation" in line, line
    assert not (tmp_path / "report" / CSV_NAME).exists()
    assert not list(tmp_path.glob("grade-run-*")), "the run folder outlived the stop"


@pytest.mark.slow
def test_a_device_among_the_hand_ins_weakens_no_sandbox(tmp_path):
    """``grade.py hand-ins/stubs /dev/null``: the device's row is refused and the others are
    graded in the sandbox they would have had without it."""
    from tools.grading.isolation import detect_isolation, sealing_for

    (tmp_path / "hand-ins" / "stubs").mkdir(parents=True)
    alone, _ = detect_isolation(tmp_path, sealing_for(sys.executable, [], tmp_path))
    done = subprocess.run([sys.executable, str(GRADE), "hand-ins/stubs", "/dev/null", "--out",
                           "report", "--timeout", "60"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-2000:]
    first = done.stdout.splitlines()[0]
    assert ("read-only" in first) == alone.read_only, first
    rows = read_rows(tmp_path / "report")
    assert rows["null"]["status"] == "refused" and "character device" in rows["null"]["note"]
    assert verdicts(rows["stubs"]) == NOTHING and rows["stubs"]["flags"] == "", rows["stubs"]


# Alice's code reads Bob's answer where the teacher's links lead, and says what it found.
READ_BOB = '''
try:
    with open({path!r}) as _stream:
        _found = "read Bob's: " + _stream.read().strip()
except OSError as _error:
    _found = "Bob's refused: " + _error.strerror
raise RuntimeError(_found)
'''


@pytest.mark.slow
def test_hand_ins_given_through_links_cannot_read_each_other(tmp_path):
    real, links = tmp_path / "real", tmp_path / "links"
    write_folder(real / "bob", {"AI_Agent.py": "# BOB-SECRET\n"})
    write_folder(real / "alice", with_code(READ_BOB.format(path=str(real / "bob" / "AI_Agent.py"))))
    links.mkdir()
    for name in ("alice", "bob"):
        (links / name).symlink_to(real / name)
    for folder, _, files in os.walk(tmp_path):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    done = subprocess.run([sys.executable, str(GRADE), "links/alice", "links/bob", "--out",
                           "report", "--timeout", "60"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-2000:]
    if "read-only" not in done.stdout.splitlines()[0]:
        pytest.skip("this system does not allow read-only file systems")
    note = read_rows(tmp_path / "report")["alice"]["note"]
    assert "Bob's refused" in note and "BOB-SECRET" not in note, note


# --- names and cells a spreadsheet could misread -------------------------------------------------

FORMULA_STARTS = ("=", "+", "-", "@")


def live_cells(text: str) -> list[str]:
    """The cells of a CSV that a spreadsheet would run as a formula, read with "," as the
    separator (quotes honoured) or with ";" (each line split at every ";", a cell's leading
    spaces and quotes dropped, as a reader that no longer honours the quotes does)."""
    comma = [cell for row in csv.reader(text.splitlines()) for cell in row]
    semicolon = [cell.lstrip(' "') for line in text.splitlines() for cell in line.split(";")]
    return [cell for cell in comma + semicolon if cell.startswith(FORMULA_STARTS)]


@pytest.mark.slow
def test_every_row_has_a_name_of_its_own_and_no_cell_runs(tmp_path):
    """Two hand-ins called ``alice`` beside one called ``alice (2)``: three names, each row's
    origin in a column of its own; a name and a note made to be formulas in a spreadsheet that
    reads ";" as the separator stay text (each hand-in is refused, so no box runs)."""
    hand_ins = {"first/alice.txt": "first", "second/alice.txt": "second",
                "alice (2).txt": "third", "a;=cmd|' -C calc'!A0.txt": "fourth"}
    for name in hand_ins:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("not a hand-in")
    done = subprocess.run([sys.executable, str(GRADE), *hand_ins, "--out", "report"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = read_rows(tmp_path / "report")
    origins = {row["origin"]: name for name, row in rows.items()}
    assert origins == {"first/alice.txt": "alice", "second/alice.txt": "alice (3)",
                       "alice (2).txt": "alice (2)", "a;'=cmd|' -C calc'!A0.txt":
                       "a;'=cmd|' -C calc'!A0"}, origins
    text = (tmp_path / "report" / CSV_NAME).read_text(encoding="utf-8")
    assert live_cells(text) == [], live_cells(text)
    page = (tmp_path / "report" / HTML_NAME).read_text(encoding="utf-8").replace("<wbr>", "")
    assert "second/alice.txt" in page and page.count("alice (3)") == 1


def test_a_note_after_a_semicolon_never_starts_a_formula():
    notes = ["x;=1+2;y", "x; \"=HYPERLINK(1)\"", "x;  +1", "x;@SUM(1)", "x;-2", "=1", "a;b"]
    from tools.grading.cells import table
    from tools.grading.report import csv_text
    from tools.grading.results import Row
    text = csv_text(table([Row("s", "graded", notes=notes, origin="s.zip")]))
    assert live_cells(text) == [], live_cells(text)
    assert "a;b" in text, "a semicolon before plain text is left as it is"


# --- the kernel keyring and user namespaces, through the grader ----------------------------------

# Stashes a key in its account's keyring (the next hand-in of its slot runs as the same account)
# and tries a user namespace of its own; says what it could do in the message of piece 1.
STASH = '''
import ctypes as _ctypes, os as _os, platform as _platform
_libc = _ctypes.CDLL(None, use_errno=True)
_add_key, _keyctl, _unshare = {"x86_64": (248, 250, 272),
                               "aarch64": (217, 219, 97)}[_platform.machine()]
_found = []
if _libc.syscall(_add_key, b"user", b"stash", b"the answers", 11, -4) >= 0:
    _found.append("add_key MADE")
else:
    _found.append("add_key refused: " + _os.strerror(_ctypes.get_errno()))
if _libc.syscall(_unshare, 0x10000000) == 0:       # last: it changes this process's account
    _found.append("user namespace MADE")
else:
    _found.append("user namespace refused: " + _os.strerror(_ctypes.get_errno()))
raise RuntimeError(", ".join(_found))
'''
# Looks for the stash in its account's keyring (KEYCTL_SEARCH, then KEYCTL_READ) and says what
# it found.
READ_STASH = '''
import ctypes as _ctypes, os as _os, platform as _platform
_libc = _ctypes.CDLL(None, use_errno=True)
_keyctl = {"x86_64": 250, "aarch64": 219}[_platform.machine()]
_key = _libc.syscall(_keyctl, 10, -4, b"user", b"stash", 0)
if _key >= 0:
    _buffer = _ctypes.create_string_buffer(64)
    _libc.syscall(_keyctl, 11, _key, _buffer, 64)
    raise RuntimeError("stash FOUND: " + _buffer.value.decode())
raise RuntimeError("stash not found: " + _os.strerror(_ctypes.get_errno()))
'''


@pytest.mark.slow
def test_no_hand_in_reaches_the_keyring_nor_a_user_namespace(tmp_path):
    """Graded one at a time (one slot, so one account): a reader, a hand-in that stashes a key
    and tries a user namespace, a reader again. Both are refused, so neither reader finds the
    stash (nor would a reader of a later run: a key would outlive the run)."""
    paths = [write_folder(tmp_path / name, with_code(code)) for name, code in
             (("reader", READ_STASH), ("stash", STASH), ("reader-again", READ_STASH))]
    done = subprocess.run([sys.executable, str(GRADE), *map(str, paths), "--out", "report",
                           "--timeout", "120", "--jobs", "1"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    if "no kernel keyring, no new user namespaces" not in done.stdout:
        pytest.skip("this system's sandbox has no system call filter")
    rows = read_rows(tmp_path / "report")
    assert "add_key refused: Operation not permitted, user namespace refused: Operation " \
        "not permitted" in rows["stash"]["note"], rows["stash"]["note"]
    for reader in ("reader", "reader-again"):
        assert "stash not found: Operation not permitted" in rows[reader]["note"], rows[reader]
