"""Adversarial_Trainer.py: the table it trains is proven unbeatable by the exact judge, on 3x3 for
each side and on two bigger boards, and its command line refuses bad input in one line. (The 4x4 k=4
runs, minutes each, are in tools/benchmarks/adversarial.py.)"""

import signal
import subprocess
import sys
from pathlib import Path

import pytest

import Adversarial_Trainer
from AI_Agent import AI_Agent
from TicTacToe import TicTacToe
from State import O, X, State
from tictactoe_rl.exact.worst import reachable, weaknesses, worst_case
from tictactoe_rl.geometry import BoardShape

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
@pytest.mark.exercise_piece(5)     # learning_steps
@pytest.mark.parametrize("board, side, player", [("3x3", "X", X), ("3x3", "O", O),
                                                 ("3x4", "X", X), ("4x4", "X", X)])
def test_the_trained_table_is_proven_unbeatable(tmp_path, capsys, board, side, player):
    """On 3x3 for each side, and on the boards where X wins (3x4 and 4x4, k=3): the saved table,
    loaded again, is what the judge proves, and it keeps only the positions its play reaches."""
    out = tmp_path / f"adv_{side}.pth"
    status = Adversarial_Trainer.run(["--board", board, "--k", "3", "--side", side, "--seed",
                                      "1", "--out", str(out), "--no-progress"])
    printed = capsys.readouterr().out
    assert status == 0
    assert "round 0: 0 games" in printed and "weak spots, the nearest loss" in printed
    assert f"Proven: no line of play beats {side}" in printed
    shape = BoardShape.parse(board, "3")
    agent = AI_Agent(player, TicTacToe(board=shape), Q_table_PATH=str(out), train=False)
    assert agent.meta["unbeatable"] is True and agent.meta["episodes_done"] > 0
    value, line = worst_case(agent)
    assert line is None and value >= 0 and (value == 0 or board != "3x3")   # 3x3 draws at best
    assert {state for state, _ in agent.Q} <= set(reachable(agent))
    assert weaknesses(agent)[0] == []


@pytest.mark.exercise_piece(5)
def test_a_spent_time_budget_saves_the_table_unproven_after_a_round_of_games(tmp_path, capsys):
    """Six milliseconds are spent before the first round of games ends, and not before it
    begins: the table saved has played (it once saved an empty one over --out)."""
    out = tmp_path / "adv.pth"
    status = Adversarial_Trainer.run(["--seed", "1", "--minutes", "0.0001", "--out", str(out),
                                      "--no-progress"])
    printed = capsys.readouterr().out
    assert status == 1
    assert "X on 3x3 k=3" in printed and "round 0: 0 games" in printed
    assert "Not proven: stopped after 1 rounds" in printed
    agent = AI_Agent(X, TicTacToe(), Q_table_PATH=str(out), train=False)
    assert agent.meta["episodes_done"] > 0 and len(agent.Q) > 0


def test_no_time_at_all_is_refused_and_the_file_at_out_is_left_alone(tmp_path):
    """A table for X on 3x3 at --out, which a run with time would replace: with none, the run
    once replaced it with an empty table."""
    out = tmp_path / "mine.pth"
    mine = AI_Agent(X, TicTacToe(), train=False)
    mine.Q[(State(), (1, 1))] = 0.5
    mine.save_Q(str(out))
    before = out.read_bytes()
    done = subprocess.run([sys.executable, "Adversarial_Trainer.py", "--minutes", "0", "--out",
                           str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert "--minutes: must be more than 0" in done.stderr
    assert out.read_bytes() == before and sorted(tmp_path.iterdir()) == [out]


@pytest.mark.parametrize("flags, words", [
    (["--alpha", "2"], "--alpha"), (["--side", "Z"], "--side"),
    (["--board", "9x9"], "a board has 1 to 5 rows"),
    (["--minutes", "soon"], "--minutes"), (["--minutes", "nan"], "--minutes"),
    (["--games", "10"], "--games"), (["--board", "5x5", "--k", "4"], "it needs about"),
    (["--board", "3x4", "--k", "3", "--side", "O"], "no O can be unbeatable on 3x4 k=3"),
    (["--board", "4x4", "--k", "4", "--out", "Data/Q_ADV_X_4x4k4.pth"], "shipped with the course")])
def test_bad_input_is_one_line_and_status_2(flags, words):
    done = subprocess.run([sys.executable, "Adversarial_Trainer.py", *flags], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and words in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("side, player", [("X", X), ("O", O)])
def test_the_shipped_4x4_tables_are_proven_unbeatable(side, player):
    """The two tables Data/ ships for 4x4 k=4 (make data): no line of play beats either, and
    each keeps only the positions its play reaches."""
    path = ROOT / "Data" / f"Q_ADV_{side}_4x4k4.pth"
    agent = AI_Agent(player, TicTacToe(board=BoardShape(4, 4, 4)), Q_table_PATH=str(path),
                     train=False)
    assert agent.meta["unbeatable"] is True and agent.meta["trainer"] == "adversarial"
    assert worst_case(agent) == (0, None)       # perfect play draws 4x4 k=4
    assert {state for state, _ in agent.Q} <= set(reachable(agent))


@pytest.mark.slow
def test_ctrl_c_stops_after_the_current_spot_and_saves(tmp_path):
    out = tmp_path / "adv_X.pth"
    run = subprocess.Popen([sys.executable, "Adversarial_Trainer.py", "--board", "4x4", "--k",
                            "4", "--out", str(out), "--no-progress"], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = ""
    while "round 1:" not in line:       # a round of games played, the judge walking again
        line = run.stdout.readline()
        assert line, run.stderr.read()
    run.send_signal(signal.SIGINT)
    printed, err = run.communicate(timeout=120)
    assert run.returncode == 130 and err == ""
    assert "Interrupted: not proven: stopped after 2 rounds" in printed
    agent = AI_Agent(X, TicTacToe(board=BoardShape(4, 4, 4)), Q_table_PATH=str(out), train=False)
    assert agent.meta["unbeatable"] is False and len(agent.Q) > 0
