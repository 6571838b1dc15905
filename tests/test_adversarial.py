"""Adversarial_Trainer.py: the table it trains is proven unbeatable by the exact judge, on 3x3 for
each side, and its command line refuses bad input in one line."""

import subprocess
import sys
from pathlib import Path

import pytest

import Adversarial_Trainer
from AI_Agent import AI_Agent
from TicTacToe import TicTacToe
from State import O, X
from tictactoe_rl.exact.solver import worst_case

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.exercise_piece(1)     # epsilon_greedy
@pytest.mark.exercise_piece(5)     # learning_steps
@pytest.mark.parametrize("side, player", [("X", X), ("O", O)])
def test_the_trained_table_is_proven_unbeatable(tmp_path, capsys, side, player):
    out = tmp_path / f"adv_{side}.pth"
    status = Adversarial_Trainer.run(["--side", side, "--seed", "1", "--games", "2000",
                                      "--out", str(out), "--no-progress"])
    printed = capsys.readouterr().out
    assert status == 0
    assert "round 0: 0 games" in printed and "beaten in" in printed   # the empty table loses
    assert f"Proven: no line of play beats {side}" in printed
    agent = AI_Agent(player, TicTacToe(), Q_table_PATH=str(out), train=False)
    assert agent.meta["unbeatable"] is True and agent.meta["episodes_done"] > 0
    assert worst_case(agent) == (0, None)       # 3x3: perfect play draws, so at best a draw


@pytest.mark.exercise_piece(1)
@pytest.mark.exercise_piece(5)
def test_a_spent_time_budget_saves_the_table_unproven_on_4x4(tmp_path, capsys):
    out = tmp_path / "adv.pth"
    status = Adversarial_Trainer.run(["--board", "4x4", "--k", "4", "--seed", "1", "--games",
                                      "10", "--minutes", "0", "--out", str(out), "--no-progress"])
    printed = capsys.readouterr().out
    assert status == 1
    assert "X on 4x4 k=4" in printed and "round 0: 0 games" in printed
    assert "Not proven: stopped after 0 rounds" in printed
    assert out.exists()          # an empty table: no game was played before the time ran out


@pytest.mark.parametrize("flags", [["--games", "-3"], ["--random", "2"], ["--side", "Z"],
                                   ["--board", "9x9"]])
def test_bad_input_is_one_line_and_status_2(flags):
    done = subprocess.run([sys.executable, "Adversarial_Trainer.py", *flags], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and done.stderr.strip()
