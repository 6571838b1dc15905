"""Exploration schedules as objects (tictactoe_rl/exploration/schedules.py): their windows, the one default,
and that the table trainers' and the network's decay windows come from them."""

import pytest

from AI_Agent import AI_Agent
from tictactoe_rl.exploration.schedules import DEFAULT_SCHEDULE, EPSILON_DECAY_EPOCHS, Schedule
from tictactoe_rl.training.options import Defaults


def test_the_table_trainers_window_is_the_first_half_of_the_run():
    assert Schedule().window(200_000) == EPSILON_DECAY_EPOCHS == 100_000   # the course's
    assert Schedule("exp").window(100_001) == 50_000
    assert Schedule().window(1) == 1                  # never an empty window


def test_a_span_sets_the_window_in_runs():
    assert Schedule("linear", span=2.0).window(20_000) == 40_000
    assert Schedule("linear", span=1.0).window(10_000) == 10_000


def test_the_default_schedule_is_named_once():
    assert Schedule().kind == DEFAULT_SCHEDULE == "linear"
    assert AI_Agent(1).epsilon_schedule == DEFAULT_SCHEDULE
    assert Defaults(1, 0.9, 0.1, "t_{side}.pth").epsilon == DEFAULT_SCHEDULE


def test_an_unknown_schedule_is_one_clear_error():
    with pytest.raises(ValueError, match="epsilon schedule must be one of"):
        Schedule("cosine")


def test_a_learner_falls_over_its_schedules_window():
    """(What epsilon is at each episode is piece 1's, tested with it in test_core.)"""
    from TicTacToe import TicTacToe
    from tictactoe_rl.training.run import make_learner
    learner = make_learner(1, TicTacToe(), 1, "exp", 3_000)
    assert (learner.epsilon_schedule, learner.decay_epochs) == ("exp", 1_500)
