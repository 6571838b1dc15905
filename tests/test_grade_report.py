"""The class report's parts, quickly: points and totals, flags, the page at 1280 pixels, the
"not available here" line and the defaults a teacher gets."""

from __future__ import annotations

import csv
import hashlib
import json
import sys

from pathlib import Path

import pytest

from tests.test_grade import exercise  # noqa: F401  (a fixture, used by name)
from tools import grade
from tools.grading import isolation, results
from tools.grading.handin import Submission
from tools.grading.limits import Limits
from tools.grading.measure import Measure
from tools.grading.page import FOLD_AT, Context, html_page
from tools.grading.cells import table
from tools.grading.report import csv_text
from tools.grading.sandbox import Outcome
from tools.grading.submissions import changed_checks

ROOT = Path(__file__).resolve().parent.parent
ALL_PASSED = {"format": 1, "tables": {"X": None, "O": None},
              "pieces": [{"number": n, "verdict": "passed", "message": ""} for n in range(1, 6)]}


def row_of(verdict: dict, measure_tables=None, weights=results.CLASSROOM_WEIGHTS,
           box: str = "") -> results.Row:
    outcome = Outcome(0, False, 1.0, "", "", json.dumps(verdict).encode(), box=box)
    return results.make_row(Submission("s", "s"), outcome, Limits(), measure_tables, weights)


def cells_of(row: results.Row) -> dict[str, str]:
    [cells] = list(csv.DictReader(csv_text(table([row])).splitlines()))
    return cells


def test_the_total_is_the_classroom_points_of_the_pieces_passed():
    verdict = {**ALL_PASSED, "pieces": [{**piece, "verdict": "failed", "message": "no"}
                                        if piece["number"] == 2 else piece
                                        for piece in ALL_PASSED["pieces"]]}
    cells = cells_of(row_of(verdict))
    assert [cells[f"points {n}"] for n in range(1, 6)] == ["30", "0", "40", "10", "10"]
    assert cells["total"] == "90"


def test_weights_can_be_set_on_the_command_line():
    args = grade.parse_args(["somewhere", "--weights", "1,2,3,4,5"])
    assert cells_of(row_of(ALL_PASSED, weights=args.weights))["total"] == "15"


@pytest.mark.parametrize("judged", [b"the table the check judged", None])
def test_a_table_that_is_not_the_one_the_check_judged_is_flagged(tmp_path, judged):
    verdict = {**ALL_PASSED, "tables": {"X": str(tmp_path / "out" / "tables" / "X.pth")},
               "training": {"X": {} if judged is None else
                            {"sha256": hashlib.sha256(judged).hexdigest()}}}
    outcome = Outcome(0, False, 1.0, "", "", json.dumps(verdict).encode(),
                      tables={"X.pth": b"another table"}, box=str(tmp_path))
    measured = []
    row = results.make_row(Submission("s", "s"), outcome, Limits(),
                           lambda tables: measured.append(tables) or {})
    cells = cells_of(row)
    assert measured == [] and row.measures == {}
    assert cells["piece 3"] == "flagged" and cells["points 3"] == "0" and cells["total"] == "80"
    assert cells["flags"] == "the X table is not the one the check judged"


def test_changed_check_files_are_named_and_line_endings_are_no_change():
    issued = {"check.py": b"a\nb\n", "tictactoe_rl/selfcheck/run.py": b"run\n", "AI_Agent.py": b"stub\n"}
    assert changed_checks({"check.py": b"a\r\nb\r\n", "tictactoe_rl/selfcheck/run.py": b"run\n"}, issued) == []
    [flag] = changed_checks({"check.py": b"exit(0)\n", ".github/workflows/x.yml": b"on: push\n",
                             "tictactoe_rl/selfcheck/run.py": b"run\n"}, issued)
    assert flag == ("check files differ from the issued ones: .github/workflows/x.yml, "
                    "check.py")


def test_long_notes_fold_and_the_page_keeps_to_the_screen():
    row = results.Row("s", "graded", verdicts={1: "failed"}, messages={1: "why " * 400})
    page = html_page(table([row]), Context("t", "now", "isolation", "limits"), b"")
    assert "<details><summary>" in page and "max-width: 1260px" in page
    summary = page.split("<summary>")[1].split("</summary>")[0]
    assert len(summary) <= FOLD_AT + 3
    assert page.count("<th>") < 20      # one cell per piece and per opponent, not per number


def test_the_page_is_the_teachers_every_column_labelled_and_the_legend_in_column_order():
    """docs/images/grading_report_1280.png and _800.png show it in a browser."""
    import re
    from tools.grading.page import LEGEND, headers
    x_only = Measure((0.9, 0.04, 0.06), (0.7, 0.1, 0.2), False)
    rows = [results.Row("a-very-long-name_with-parts", "graded",
                        {1: "passed", 2: "failed"}, {2: "your Generate_episode returns None"},
                        {1: 30, 2: 0}, {"X": x_only}, flags=["check.py changed"],
                        notes=["Episode.py missing"])]
    page = html_page(table(rows), Context("t", "now", "isolation", "limits"), b"")
    assert "overflow-wrap: anywhere" not in page and "word-break: break-all" not in page
    heads = re.findall(r"<th>(.*?)</th>", page)
    assert heads == headers(("X",)) and "O vs random" not in page     # no O measured: no O columns
    cells = re.findall(r'<td data-label="([^"]*)"', page)
    assert cells == heads                                            # every cell labelled, in order
    assert "X vs random: % wins / draws / losses" in heads
    assert "90.0 / 6.0 / 4.0" in page                      # wins / draws / losses, as labelled
    legend = [term for term, _ in LEGEND]
    order = [next(i for i, head in enumerate(heads) if head.startswith(term.split(" ...")[0])
                  or term.split(" ...")[0] in head) for term in legend]
    assert order == sorted(order), legend
    assert "Piece 2: the check told the student: \u201cyour Generate_episode returns None\u201d" \
        in page and "<li>Episode.py missing</li>" in page
    assert "a-<wbr>very-<wbr>long-<wbr>name_<wbr>with-<wbr>parts" in page
    assert "<li>check.py changed</li>" in page and "X can be beaten?" in heads


def test_not_available_lists_only_the_protections_that_were_missing(monkeypatch, tmp_path):
    def probe(candidate, run_dir, python):
        return "no such account here" if candidate.accounts else None

    monkeypatch.setattr(isolation, "probe", probe)
    monkeypatch.setattr(isolation.os, "geteuid", lambda: 0)
    monkeypatch.setattr(isolation.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(isolation.sys, "platform", "linux")
    chosen, missing = isolation.detect_isolation(tmp_path)
    assert chosen.read_only and not chosen.accounts
    assert missing == ["an unprivileged account per submission (no such account here)"]


def test_root_without_capabilities_falls_back_to_a_user_namespace(monkeypatch, tmp_path):
    """Root in a container may not make namespaces of its own (no CAP_SYS_ADMIN) and yet be
    allowed a user namespace: the sandbox then keeps the network, PID and IPC namespaces and the
    read-only file systems, though not the accounts nor a process count of its own."""
    def probe(candidate, run_dir, python):
        return None if "--user" in candidate.namespaces else "unshare: Operation not permitted"

    monkeypatch.setattr(isolation, "probe", probe)
    monkeypatch.setattr(isolation.os, "geteuid", lambda: 0)
    monkeypatch.setattr(isolation.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(isolation.sys, "platform", "linux")
    chosen, missing = isolation.detect_isolation(tmp_path)
    assert chosen.namespaces[:2] == isolation.USER_NAMESPACE
    assert chosen.network and chosen.pids and chosen.read_only and not chosen.own_count
    assert missing == ["an unprivileged account per submission (unshare: Operation not "
                       "permitted)"]


def test_jobs_default_to_the_cores():
    assert grade.parse_args(["somewhere"]).jobs == min(grade.CORES, grade.MAX_JOBS)


def test_a_piece_left_as_the_issued_stub_is_named_and_a_pass_on_it_is_flagged(exercise):
    from tools.grade import read_tree
    from tools.grading.stubs import untouched
    from tools.grading.submissions import editable_files

    issued = read_tree(exercise)
    editable = editable_files(issued)
    solved = {name: (ROOT / name).read_bytes() for name in editable}
    assert untouched(issued, solved, editable) == {}
    commented = {**solved, "MC_Trainer.py": issued["MC_Trainer.py"] + b"\n# only a comment\n"}
    assert untouched(issued, commented, editable) == {
        2: "MC_Trainer.py: Generate_episode", 3: "MC_Trainer.py: main",
        4: "MC_Trainer.py: Generate_episode"}
    submission = Submission("s", "s", untouched={1: "AI_Agent.py: AI_Agent.epsilon_greedy"})
    outcome = Outcome(0, False, 1.0, "", "", json.dumps(ALL_PASSED).encode())
    row = results.make_row(submission, outcome, Limits(), None)
    assert row.verdicts[1] == "flagged" and row.total == 90


@pytest.mark.slow
def test_the_csv_is_written_again_after_each_row_and_the_rest_is_marked_at_the_end(tmp_path):
    from tools.grading.report import STOPPED, Report

    report = Report(tmp_path, [(name, f"hand-ins/{name}") for name in ("first", "second", "third")],
                    Context("t", "now", "i", "l"))
    report.add(1, results.Row("second", "graded", verdicts={1: "passed"}, points={1: 30},
                              output="what it printed"))
    with open(tmp_path / "report.csv", newline="", encoding="utf-8") as stream:
        assert [row["name"] for row in csv.DictReader(stream)] == ["second"]
    assert (tmp_path / "logs" / "02-second.txt").read_text() == "what it printed"
    report.finish(stopped=True)
    with open(tmp_path / "report.csv", newline="", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    assert [(row["name"], row["status"]) for row in rows] == [
        ("first", STOPPED), ("second", "graded"), ("third", STOPPED)]
    assert (tmp_path / "report.html").is_file() and (tmp_path / "results.png").is_file()


@pytest.mark.slow
def test_with_no_room_anywhere_the_grades_are_kept_to_be_printed(tmp_path, monkeypatch):
    import matplotlib.figure  # noqa: F401  (its first import reads the home and temporary
    # folders patched below: failing there, it would leave half a matplotlib for later tests)
    from tools.grading import report as report_module

    (tmp_path / "taken").write_text("a file where the report folder should be")
    monkeypatch.setattr(report_module.tempfile, "gettempdir", lambda: str(tmp_path / "no"))
    monkeypatch.setattr(report_module.os.path, "expanduser", lambda path: str(tmp_path / "no"))
    report = report_module.Report(tmp_path / "taken", [("a", "a.zip")], Context("t", "now", "i", "l"))
    report.add(0, results.Row("a", "graded", verdicts={1: "passed"}, points={1: 30}))
    assert report.finish() == [] and report.problem and report.fallback is None
    [row] = list(csv.DictReader(report.grades.decode("utf-8").splitlines()))
    assert row["name"] == "a" and row["total"] == "30"


def test_the_box_gets_no_shipped_table_and_no_file_of_the_hand_in_but_its_own(exercise):
    from tools.grade import read_tree
    from tools.grading.sandbox import box_files

    issued = read_tree(exercise)
    assert "Data/Q_MC_X.pth" in issued and "Data/Q_MC_O.pth" in issued
    handed = Submission("s", "s", files={"AI_Agent.py": b"# mine\n",
                                         "tictactoe_rl/selfcheck/run.py": b"# always passed\n"})
    files = box_files(issued, handed, ("AI_Agent.py",))
    assert not [name for name in files if name.startswith("Data/") and name.endswith(".pth")]
    assert files["AI_Agent.py"] == b"# mine\n"
    assert files["tictactoe_rl/selfcheck/run.py"] == issued["tictactoe_rl/selfcheck/run.py"]


def test_planted_bytecode_and_startup_files_are_flagged_but_not_pythons_own(tmp_path):
    import importlib.util
    import py_compile

    from tools.grading.submissions import read_submission

    folder = tmp_path / "hand-in"
    (folder / "tictactoe_rl" / "selfcheck").mkdir(parents=True)
    issued = {"check.py": b"print('check')\n", "tictactoe_rl/selfcheck/run.py": b"print('run')\n",
              "tictactoe_rl/selfcheck/common.py": b"x = 1\n", "AI_Agent.py": b"stub\n"}
    for name, data in issued.items():
        (folder / name).write_bytes(data)
    (folder / "forged.py").write_text("print('passed')\n")
    for name, mode in (("run", py_compile.PycInvalidationMode.UNCHECKED_HASH),
                       ("common", py_compile.PycInvalidationMode.TIMESTAMP)):
        checks = folder / "tictactoe_rl" / "selfcheck"
        py_compile.compile(str(folder / "forged.py" if name == "run" else checks / "common.py"),
                           cfile=importlib.util.cache_from_source(str(checks / f"{name}.py")),
                           doraise=True, invalidation_mode=mode)
    (folder / "forged.py").unlink()
    (folder / "sitecustomize.py").write_text("import os\n")
    (folder / "zz.pth").write_text("import os\n")
    [flag] = read_submission(folder, ("AI_Agent.py",), issued).flags
    tag = sys.implementation.cache_tag
    assert flag == ("check files differ from the issued ones: sitecustomize.py, "
                    f"tictactoe_rl/selfcheck/__pycache__/run.{tag}.pyc, zz.pth")


@pytest.mark.slow
def test_a_note_cut_short_links_to_the_log_that_holds_it_whole(tmp_path):
    """The check's message is cut at 300 characters in the report; the note that was cut links
    to the hand-in's log, which holds what the check printed, and the CSV names that log."""
    from tools.grading.report import CSV_NAME, HTML_NAME, Report
    from tools.grading.text import one_line

    whole = "your main " + "went wrong " * 60
    row = results.Row("alice", "graded", verdicts={3: "failed"}, messages={3: one_line(whole)},
                      output=f"piece 3 -- main: FAILED -- {whole}\n", notes=["short"],
                      origin="hand-ins/alice")
    report = Report(tmp_path, [("alice", "hand-ins/alice")], Context("t", "now", "i", "l"))
    report.add(0, row)
    report.finish()
    page = (tmp_path / HTML_NAME).read_text(encoding="utf-8")
    assert page.count('<a href="logs/01-alice.txt">') == 1, page      # the cut note alone
    assert whole in (tmp_path / "logs" / "01-alice.txt").read_text(encoding="utf-8")
    with open(tmp_path / CSV_NAME, newline="", encoding="utf-8") as stream:
        [cells] = list(csv.DictReader(stream))
    assert cells["log"] == "logs/01-alice.txt" and cells["origin"] == "hand-ins/alice"


@pytest.mark.slow
def test_on_a_phone_the_grades_come_first_and_the_plot_stacks_its_panels(tmp_path):
    from tools.grading.page import NARROW, plot_png

    rows = [results.Row(name, "graded", measures={"X": Measure((0.9, 0.04, 0.06),
                                                               (0.7, 0.1, 0.2), False)})
            for name in ("alice", "bob")]
    wide, narrow = plot_png(rows), plot_png(rows, narrow=True)
    size = (lambda png: (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")))
    assert size(wide)[0] > 1000 and size(narrow)[0] <= 400 < size(narrow)[1], (size(wide),
                                                                                 size(narrow))
    page = html_page(table(rows), Context("t", "now", "i", "l"), wide, narrow)
    assert page.index("<table>") < page.index('id="legend"') < page.index("Isolation:")
    assert f'<source media="(max-width: {NARROW}px)"' in page
