"""Cheats that passed the self-check, each refused now as not the student's own work: the answer
key run in a child process, answers typed in, the solver's values, a shipped or a classmate's
table loaded, a json.py beside check.py, a daemon writing "passed" on every descriptor. First
the parts that see them, one by one; then (slow) each cheat as a student writes it, through
check.py. The grader's side: tests/test_grade_cheats.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tictactoe_rl.selfcheck import apart, draw, episodes, guard, reference, shadow
from tictactoe_rl.selfcheck.common import NotOwnWork
from State import O, X
from tictactoe_rl.tables.files import load_table
from tools.benchmarks.handins import CHEATS, HONEST, write_hand_in
from tools.grading.measure import Measure
from tools.grading.results import Row
from tools.grading.twins import alike, flag_twins, signature

ROOT = Path(__file__).resolve().parent.parent
EPOCHS = 3_000


# --- a file named like a needed module --------------------------------------------------------

def test_a_file_named_like_a_needed_module_is_found_and_named():
    assert shadow.shadowing(["json.py", "random/", "numpy.py", "tqdm.pyc", "State.py", "nim/",
                             "MC_Trainer.py", "json.txt"]) == \
        ["json.py", "numpy.py", "random/", "tqdm.pyc"]
    line = shadow.message(["json.py"])
    assert "json.py" in line and "rename it" in line and "\n" not in line


def test_no_file_of_the_course_shadows_a_needed_module():
    names = [f"{path.name}/" if (path / "__init__.py").is_file() else path.name
             for path in ROOT.iterdir()]
    assert shadow.shadowing(names) == []


@pytest.fixture(scope="module")
def students(students_copy) -> Path:
    return students_copy


def check(folder: Path, *args: str) -> tuple[int, str, str]:
    done = subprocess.run([sys.executable, "check.py", *args], cwd=folder, capture_output=True,
                          text=True, timeout=600)
    return done.returncode, done.stdout, done.stderr


def test_check_py_refuses_to_run_beside_a_json_py_in_one_line(students, tmp_path):
    folder = write_hand_in(tmp_path / "hand-in", "json.py beside the check", EPOCHS, students,
                           whole=True)
    status, out, err = check(folder)
    assert status == 2 and out == "", (out, err)
    assert err.strip().splitlines() == [err.strip()] and "json.py" in err and "(json)" in err


# --- cases drawn afresh -----------------------------------------------------------------------

def drawn_with(monkeypatch, run: str, side: int) -> list:
    monkeypatch.setattr(draw, "RUN", run)
    episodes.drawn.cache_clear()
    reference._episodes.cache_clear()
    return episodes.hand_made(side)


@pytest.mark.parametrize("side", [X, O])
def test_the_episodes_are_new_on_every_run_in_the_shape_of_the_templates(monkeypatch, side):
    first = drawn_with(monkeypatch, "run one", side)
    again = drawn_with(monkeypatch, "run one", side)
    other = drawn_with(monkeypatch, "run two", side)
    template = episodes.HAND_MADE[side]
    assert first == again and first != other
    for drawn in (first, other):
        assert [len(episode) for episode in drawn] == [len(raw) for raw in template]
        assert [[step[2] for step in episode[:-1]] for episode in drawn] == \
            [[step[2] for step in raw[:-1]] for raw in template]
        pairs = [(step[0], step[1]) for episode in drawn for step in episode[:-1]]
        written = [(step[0], step[1]) for raw in template for step in raw[:-1]]
        assert len(set(pairs)) == len(set(written))        # a pair repeated where it was
        assert all(state.player == side for state, _ in pairs)
        assert all(state.cells[3 * row + column] == 0 for state, (row, column) in pairs)
        assert not set(pairs) & {(episodes.board(cells, side), action)
                                 for cells, action, _ in (s for r in template for s in r[:-1])}
    episodes.drawn.cache_clear()
    reference._episodes.cache_clear()


@pytest.mark.parametrize("run", range(6))
def test_every_update_mistake_shows_on_the_drawn_episodes(monkeypatch, run):
    for side in (X, O):
        drawn_with(monkeypatch, f"mistakes {run}", side)
        right = reference.expected(side, episodes.CORRECT, 0.01, 0.95)
        for model in episodes.MODELS[1:]:
            if model == episodes.NO_NEGATION and side == X:
                continue                       # X's rewards are its own: nothing to negate
            wrong = reference.expected(side, model, 0.01, 0.95)
            assert any(abs(wrong[key] - right[key]) > 1e-9 for key in right), (side, model)
    episodes.drawn.cache_clear()
    reference._episodes.cache_clear()


# --- what the watch in the student's process sees ---------------------------------------------

def test_a_python_started_or_a_fork_is_seen_and_another_program_is_not():
    python = guard.started("subprocess.Popen", (sys.executable, [sys.executable, "-c", "1"],
                                                None, None))
    assert python is not None and "Python" in python and "'python" in python.lower()
    assert guard.started("os.system", ("python3 -c 'import selfcheck'",)) is not None
    assert guard.started("os.posix_spawn", ("/usr/bin/env", ["env", "python3"], {})) is not None
    assert guard.started("os.fork", ()) is not None
    assert guard.started("subprocess.Popen", ("/usr/bin/clear", ["clear"], None, None)) is None


def test_reading_a_table_outside_the_check_s_folders_is_seen(tmp_path):
    own = tmp_path / "own"
    own.mkdir()
    guard.allow(str(own))
    assert guard.read_table((str(tmp_path / "friend_X.pth"), "rb", 0)) is not None
    assert guard.read_table((str(tmp_path / "friend_X.pth"), None, os.O_RDONLY)) is not None
    assert guard.read_table((str(own / "q.pth"), "rb", 0)) is None        # its own save
    assert guard.read_table((str(tmp_path / "out.pth"), "wb", 0)) is None  # a save, not a load
    assert guard.read_table((str(tmp_path / "notes.txt"), "r", 0)) is None


def test_a_daemon_writing_on_the_check_s_channel_is_not_own_work(monkeypatch):
    pipes = []
    real_pipe = os.pipe
    monkeypatch.setattr(os, "pipe", lambda: pipes.append(real_pipe()) or pipes[-1])

    def forge() -> dict:          # what a thread that writes on every descriptor leaves there
        os.write(pipes[-1][1], b'{"verdict": "passed", "data": null}')
        return {"verdict": "passed", "data": 1}

    with pytest.raises(NotOwnWork, match="channel"):
        apart.in_child(forge, closed=())
    assert apart.in_child(lambda: {"verdict": "passed", "data": 1}, closed=()) == \
        {"verdict": "passed", "data": 1}


# --- tables that no training makes, and twins -------------------------------------------------

def shipped_x() -> dict:
    """The course's trained table of X (ships in Data/)."""
    return load_table(str(ROOT / "Data" / "Q_MC_X.pth"))[0]


def row_with(name: str, table: dict) -> Row:
    row = Row(name, "graded")
    row.measures["X"] = Measure((1, 0, 0), (1, 0, 0), False, signature(table))
    return row


def test_two_tables_alike_are_flagged_and_two_apart_are_not():
    table = shipped_x()
    nudged = {pair: value + 1e-8 for pair, value in table.items()}
    retrained = {pair: value * 0.9 + 0.001 for pair, value in table.items()}
    rows = [row_with("ann", table), row_with("bob", nudged), row_with("cy", retrained)]
    flag_twins(rows)
    assert rows[0].flags == ["the X table is the same as bob's"]
    assert rows[1].flags == ["the X table is the same as ann's"]
    assert rows[2].flags == []
    assert len(json.dumps(signature(table))) < 1200     # fits the measuring child's one line


# --- every cheat through check.py -------------------------------------------------------------

@pytest.fixture(scope="module")
def friend(students, tmp_path_factory) -> bytes:
    """An honest classmate's trained table of X."""
    folder = write_hand_in(tmp_path_factory.mktemp("friend") / "hand-in", "solution", EPOCHS,
                           students, whole=True)
    status, out, err = check(folder, "--tables", str(folder / "tables-out"))
    assert status == 0, out + err
    return (folder / "tables-out" / "X.pth").read_bytes()


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(set(CHEATS) - {"json.py beside the check"}))
def test_every_cheat_fails_a_piece_as_not_own_work_through_check_py(students, friend, tmp_path,
                                                                     kind):
    folder = write_hand_in(tmp_path / "hand-in", kind, EPOCHS, students, whole=True,
                           friend=friend)
    status, out, err = check(folder, "--json", str(tmp_path / "result.json"))
    assert status == 1, out + err
    result = json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))
    pieces = {piece["number"]: piece for piece in result["pieces"]}
    refused = [n for n in (2, 3) if pieces[n]["verdict"] != "passed"]
    assert refused and all(pieces[n]["not_own"] for n in refused), out


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(HONEST))
def test_honest_hand_ins_in_every_style_pass_with_tables_of_their_own(students, tmp_path, kind):
    tables = []
    for run in range(2):
        folder = write_hand_in(tmp_path / f"hand-in-{run}", kind, EPOCHS, students, whole=True)
        status, out, err = check(folder, "--tables", str(tmp_path / f"tables-{run}"))
        assert status == 0, out + err
        tables.append(load_table(str(tmp_path / f"tables-{run}" / "X.pth"))[0])
    assert tables[0] != tables[1]           # each run trains with a seed of its own
    assert not alike(signature(tables[0]), signature(tables[1]))


SAVE_AT_3000 = """
_generate = Generate_episode


def Generate_episode(player, epoch):
    if epoch == 3000:
        _friends_save(PATH)
    return _generate(player, epoch)
"""


@pytest.mark.slow
def test_a_training_stopped_by_the_clock_is_judged_on_the_games_it_played(students, friend,
                                                                          tmp_path):
    """The learner's table as it stands when the time is up is explained by the games main
    played so far (cut between two episodes); a cheat's is not."""
    for kind, passed in (("plain loop", True), ("classmate's table embedded", False)):
        folder = write_hand_in(tmp_path / kind.replace(" ", "-"), kind, 10_000_000, students,
                               whole=True, friend=friend)
        if not passed:     # its cheat runs on a save: make it run before the clock stops it
            with open(folder / "MC_Trainer.py", "a", encoding="utf-8") as trainer:
                trainer.write(SAVE_AT_3000)
        done = subprocess.run([sys.executable, "-m", "tictactoe_rl.selfcheck.run", "--train",
                               "X", "--table", str(tmp_path / "X.pth"), "--seconds", "2",
                               "--result", str(tmp_path / "result.json")], cwd=folder,
                              capture_output=True, text=True, timeout=300)
        result = json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))
        assert done.returncode == 0, done.stderr
        if passed:
            assert result["verdict"] == "passed" and result["stopped"], result
            assert result["episodes"] > 3000, result
        else:
            assert result["verdict"] == "failed" and result["not_own"], result
            assert "of the table your learner saved hold values that no game of your run gave" \
                in result["message"], result
