"""Expected SARSA, the trainer that proves the kernel: its rule on a hand-made episode, the step
context the loop hands every rule, the registry that lists it, and (slow) that it learns."""

import subprocess
import sys
from pathlib import Path

import pytest

import ExpectedSARSA_Trainer
from AI_Agent import AI_Agent
from tictactoe_rl.exact.worst import is_unbeatable
from State import O, X, X_WON, State, parse_moves
from tictactoe_rl.training.loop import learn_from_episodes
from tictactoe_rl.training.registry import trainer_scripts, trainers
from tictactoe_rl.training.rules import Step, exploring_policy
from tictactoe_rl.training.run import build_run

ROOT = Path(__file__).resolve().parent.parent
ALPHA, GAMMA, EPSILON = 0.5, 0.5, 0.25


@pytest.fixture
def episode():
    """X: centre, O a corner; X 0,1, O 2,2; X wins at 2,1 (the steps, then the final position)."""
    s0, s1, s2 = State(), parse_moves("1,1 0,0"), parse_moves("1,1 0,0 0,1 2,2")
    final = parse_moves("1,1 0,0 0,1 2,2 2,1")
    assert final.end_of_game == X_WON
    return [(s0, (1, 1), 0), (s1, (0, 1), 0), (s2, (2, 1), 1)], final


def step_of(Q, final, side):
    return Step(final, side, GAMMA, ALPHA, 7, EPSILON, exploring_policy(Q, EPSILON))


def test_the_rule_pulls_towards_the_policys_expected_value(episode):
    steps, final = episode
    s0, s1, s2 = (state for state, _, _ in steps)
    # s1 has 7 legal moves; its greedy move is 2,0 (0.8), 0,1 was played (0.4), the rest are 0.
    # s2 has 5 legal moves; its greedy move is 2,1 (0.6).
    Q = {(s1, (2, 0)): 0.8, (s1, (0, 1)): 0.4, (s2, (2, 1)): 0.6}
    ExpectedSARSA_Trainer.update(Q, steps, step_of(Q, final, X))
    expected_s1 = (0.75 + 0.25 / 7) * 0.8 + 0.25 / 7 * 0.4      # before s1's own update
    q0 = ALPHA * GAMMA * expected_s1
    expected_s2 = (0.75 + 0.25 / 5) * 0.6                      # s2's values, none updated yet
    q1 = 0.4 + ALPHA * (GAMMA * expected_s2 - 0.4)
    q2 = 0.6 + ALPHA * (1 - 0.6)                                # the last step: just its reward
    assert Q[s0, (1, 1)] == pytest.approx(q0, abs=1e-12)
    assert Q[s1, (0, 1)] == pytest.approx(q1, abs=1e-12)
    assert Q[s2, (2, 1)] == pytest.approx(q2, abs=1e-12)
    assert len(Q) == 4


def test_the_rule_negates_x_rewards_for_o(episode):
    steps, final = episode
    Q = {}
    ExpectedSARSA_Trainer.update(Q, steps, step_of(Q, final, O))
    assert Q[steps[-1][0], steps[-1][1]] == -ALPHA
    assert Q[steps[0][0], steps[0][1]] == 0.0


def test_exploring_policy_is_epsilon_greedy():
    state = parse_moves("1,1 0,0")
    policy = exploring_policy({(state, (2, 2)): 1.0}, EPSILON)(state)
    assert sum(policy.values()) == pytest.approx(1.0)
    assert policy[(2, 2)] == pytest.approx(0.75 + 0.25 / 7)
    others = [p for action, p in policy.items() if action != (2, 2)]
    assert others == [pytest.approx(0.25 / 7)] * 6


def test_the_loop_hands_every_rule_the_episodes_context(tmp_path):
    """The step context is the learner's: its side, the run's gamma and alpha, the episode's
    number and the exploration rate its moves were chosen with."""
    seen = []
    args = ExpectedSARSA_Trainer.TRAINER.parse(["--side", "O", "--epochs", "10", "--seed", "3",
                                                 "--gamma", "0.5", "--alpha", "0.25",
                                                 "--out", str(tmp_path / "t.pth")])
    run = build_run("Expected SARSA", "Expected SARSA", args, "t.pth", announce=False)
    run.learners[0].rule = lambda Q, steps, step: seen.append((Q, steps, step))
    learn = learn_from_episodes(run)
    final = learn(4)
    (Q, steps, step), = seen
    learner = run.agents[0]
    assert isinstance(learner, AI_Agent) and Q is learner.Q
    assert (step.final, step.side, step.gamma, step.alpha, step.epoch) == (final, O, 0.5, 0.25, 4)
    assert step.epsilon == learner.exploration_rate(4) == pytest.approx(1 - 0.99 * 4 / 5)
    assert all(state.player == O for state, _, _ in steps)


def test_the_registry_lists_every_table_trainer_and_no_other_file():
    scripts = trainer_scripts()
    assert scripts == sorted(scripts)
    assert {"ExpectedSARSA_Trainer.py", "MC_Trainer.py", "Q_Trainer.py",
            "SARSA_Trainer.py"} <= set(scripts)
    assert "DQN_Trainer.py" not in scripts          # a network trainer: no table TRAINER
    found = trainers()
    assert ExpectedSARSA_Trainer.TRAINER in found
    assert [trainer.prog for trainer in found] == scripts
    from tools import compare
    from tools.benchmarks import course as bench_course
    assert ("Expected SARSA", "ExpectedSARSA_Trainer.py") in compare.TRAINERS
    assert ("ExpectedSARSA_Trainer.py", "--out", "{out}") in bench_course.README_COMMANDS


@pytest.mark.parametrize("script", ["SARSA_Trainer.py",
                                    pytest.param("DQN_Trainer.py", marks=pytest.mark.slow)])
def test_every_trainers_help_names_the_registered_trainers(script):
    done = subprocess.run([sys.executable, script, "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "ExpectedSARSA_Trainer.py" in done.stdout
    assert "The table trainers: " + ", ".join(trainer_scripts()) + "." in \
        " ".join(done.stdout.split())


def test_the_file_is_short():
    assert len((ROOT / "ExpectedSARSA_Trainer.py").read_text().splitlines()) <= 80


@pytest.mark.slow
def test_100k_seed_1_episodes_learn_an_unbeatable_x(tmp_path):
    out = tmp_path / "es.pth"
    assert ExpectedSARSA_Trainer.run(["--seed", "1", "--out", str(out)]) == 0
    assert is_unbeatable(AI_Agent(X, Q_table_PATH=str(out), train=False))
