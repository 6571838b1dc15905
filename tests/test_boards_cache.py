"""Solved boards on disk (``tictactoe_rl.boards.cache``) and the command that prints them (``tictactoe_rl.boards.solve``)."""

import json
import subprocess
import sys

import pytest

import tictactoe_rl.boards.cache
import tictactoe_rl.boards.solver
from tictactoe_rl.boards.cache import cache_path, solve_board
from tictactoe_rl.geometry import BoardShape
from tests.conftest import ROOT

SHAPE = BoardShape(3, 4, 3)


def forbid_solving(monkeypatch):
    """From here on, a solve fails the test: what comes back must have been read from disk."""
    def refuse(*args, **kwargs):
        raise AssertionError("solved again instead of reading the cache")
    monkeypatch.setattr(tictactoe_rl.boards.cache, "Solver", refuse)


def test_a_second_call_reads_the_cache(tmp_path, monkeypatch):
    first = solve_board(SHAPE, str(tmp_path))
    assert (first.value, first.from_cache, first.notes) == (1, False, ())
    assert first.nodes > 0 and len(first.move_values) == 12 and max(first.move_values) == 1
    forbid_solving(monkeypatch)
    second = solve_board(SHAPE, str(tmp_path))
    assert second.from_cache and second.notes == ()
    assert (second.value, second.move_values, second.nodes) == \
        (first.value, first.move_values, first.nodes)


def test_each_board_has_its_own_file(tmp_path):
    solve_board(SHAPE, str(tmp_path))
    tic_tac_toe = solve_board(BoardShape(3, 3, 3), str(tmp_path))
    assert (tic_tac_toe.value, tic_tac_toe.from_cache) == (0, False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["3x3_k3.json", "3x4_k3.json"]


def edit_record(path, **changes):
    record = json.loads(open(path).read())
    record.update(changes)
    open(path, "w").write(json.dumps(record))


def rechecksum(path):
    record = json.loads(open(path).read())
    edit_record(path, checksum=tictactoe_rl.boards.cache._checksum(record))


DAMAGE = {
    "cut short": lambda path: open(path, "r+").truncate(40),
    "empty": lambda path: open(path, "w").close(),
    "binary junk": lambda path: open(path, "wb").write(b"\x80\x00\xff" * 50),
    "a changed value": lambda path: edit_record(path, value=-1),
    "a changed first move": lambda path: edit_record(path, move_values=[0] * 12),
    "values that disagree, summed again": lambda path: (edit_record(path, value=0),
                                                        rechecksum(path)),
    "a value out of range, summed again": lambda path: (edit_record(path, value=7),
                                                        rechecksum(path)),
    "a bool for a value, summed again": lambda path: (edit_record(path, value=True),
                                                      rechecksum(path)),
    "another board's file": lambda path: (edit_record(path, rows=4), rechecksum(path)),
    "a missing field": lambda path: open(path, "w").write('{"format": "mnk-perfect-play"}'),
    "a list": lambda path: open(path, "w").write("[1, 2, 3]"),
    "a huge file": lambda path: open(path, "w").write(" " * (tictactoe_rl.boards.cache.MAX_CACHE_BYTES + 1)),
}


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
def test_a_damaged_cache_is_refused_in_one_line_and_solved_again(tmp_path, damage):
    path = cache_path(SHAPE, str(tmp_path))
    good = solve_board(SHAPE, str(tmp_path))
    DAMAGE[damage](path)
    again = solve_board(SHAPE, str(tmp_path))
    assert not again.from_cache
    assert (again.value, again.move_values) == (good.value, good.move_values)
    [note] = again.notes
    assert note.startswith(f"{path}: refused the cached solution (") and "\n" not in note
    assert note.endswith("solving again")
    # ... and the file is good again: the next call reads it.
    assert solve_board(SHAPE, str(tmp_path)).from_cache


def test_a_folder_in_place_of_the_file_is_refused(tmp_path):
    (tmp_path / "3x4_k3.json").mkdir()
    solution = solve_board(SHAPE, str(tmp_path))
    assert solution.value == 1 and not solution.from_cache
    assert len(solution.notes) == 2 and "refused" in solution.notes[0]
    assert "could not keep the solution" in solution.notes[1]


def test_a_cache_that_cannot_be_written_still_gives_the_answer(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    solution = solve_board(SHAPE, str(blocker / "solved"))
    assert (solution.value, solution.from_cache) == (1, False)
    [note] = solution.notes
    assert "could not keep the solution" in note
    assert blocker.read_text() == "a file where the cache folder should be"


def test_progress_is_reported_while_solving_only(tmp_path, monkeypatch):
    monkeypatch.setattr(tictactoe_rl.boards.solver, "PROGRESS_EVERY", 1000)
    calls = []
    solution = solve_board(BoardShape(4, 4, 4), str(tmp_path), progress=calls.append)
    assert calls == [0] + list(range(1000, solution.nodes + 1, 1000))
    calls.clear()
    solve_board(BoardShape(4, 4, 4), str(tmp_path), progress=calls.append)
    assert calls == []


def test_no_progress_bar_before_the_first_count(tmp_path, monkeypatch):
    """The start (0 positions) draws nothing: no stray "0.00 positions" line."""
    import tictactoe_rl.boards.solve
    bars = []
    monkeypatch.setattr(tictactoe_rl.boards.solver, "PROGRESS_EVERY", 10**9)     # only the call with 0
    monkeypatch.setattr(tictactoe_rl.boards.solve, "tqdm", lambda **kwargs: bars.append(kwargs))
    lines = tictactoe_rl.boards.solve.board_report(BoardShape(3, 4, 3), str(tmp_path))
    assert bars == [] and lines[0] == "3x4 k=3: win for X under perfect play"


# --- the command -------------------------------------------------------------------------------

def run(*args):
    return subprocess.run([sys.executable, "-m", "tictactoe_rl.boards.solve", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_the_command_prints_the_value_then_reads_it_from_the_cache(tmp_path):
    first = run("--board", "4x4", "--k", "3", "--cache", str(tmp_path))
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0] == "4x4 k=3: win for X under perfect play"
    assert lines[2:6] == ["  W W W W"] * 4
    assert lines[6].startswith("solved in ") and str(tmp_path) in lines[6]
    second = run("--board", "4x4", "--k", "3", "--cache", str(tmp_path))
    assert second.returncode == 0 and second.stdout.splitlines()[:6] == lines[:6]
    assert second.stdout.splitlines()[6].startswith(
        f"from the cache {tmp_path}/4x4_k3.json in ")


@pytest.mark.slow
def test_the_command_solves_4x4_k4_to_a_draw(tmp_path):
    result = run("--board", "4x4", "--k", "4", "--cache", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "4x4 k=4: draw under perfect play"
    assert run("--board", "4x4", "--cache", str(tmp_path)).stdout.splitlines()[-1].startswith(
        "from the cache")   # --k defaults to the shorter side: the same board


def test_the_command_says_when_it_refuses_a_damaged_cache(tmp_path):
    run("--cache", str(tmp_path))
    (tmp_path / "3x3_k3.json").write_text("{damaged")
    result = run("--cache", str(tmp_path))
    assert result.returncode == 0
    assert result.stdout.splitlines()[0] == "3x3 k=3: draw under perfect play"
    refused = [line for line in result.stderr.splitlines() if "refused" in line]
    assert refused == [f"{tmp_path}/3x3_k3.json: refused the cached solution (not a JSON file "
                       f"(damaged or cut short)); solving again"]


@pytest.mark.parametrize("args, words", [
    (["--board", "4by4"], "--board must be ROWSxCOLS"),
    (["--board", "6x6"], "1 to 5 rows"),
    (["--board", "4x4", "--k", "five"], "--k must be a whole number"),
    (["--board", "3x3", "--k", "4"], "k must be between 1 and 3"),
    (["--cache", ""], "expected a file path"),
    (["--bored", "4x4"], "unrecognized arguments"),
])
def test_bad_input_is_one_line_and_status_2(args, words):
    result = run(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and words in result.stderr
