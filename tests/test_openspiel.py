"""The m,n,k game as an OpenSpiel Python game: move for move OpenSpiel's own ``mnk`` (and
``tic_tac_toe``), and OpenSpiel's algorithms (MCTS, tabular Q-learning, CFR) run on it."""

import textwrap

import numpy as np
import pytest

try:
    import pyspiel
    import tictactoe_rl.envs.openspiel_game  # noqa: F401 (registers tictactoe_rl_mnk)
except ModuleNotFoundError as missing:
    if missing.name not in ("pyspiel", "open_spiel"):
        raise
    pyspiel = None

# Skipped test by test, not the module: the suite counts the same tests with or without it.
pytestmark = pytest.mark.skipif(
    pyspiel is None, reason="open_spiel is not installed (pip install -r requirements-extra.txt)")

# (rows, cols, k, random games): OpenSpiel's mnk names the columns m and the rows n
BOARDS = [(3, 3, 3, 300), (3, 4, 3, 150), (4, 4, 4, 100), (5, 5, 4, 60), (4, 5, 4, 60)]


def ours(rows, cols, k):
    return pyspiel.load_game(f"tictactoe_rl_mnk(rows={rows},cols={cols},k={k})")


def play_in_lock_step(mine, theirs, rng):
    """One random game on both; asserts they agree at every step; returns X's result."""
    a, b = mine.new_initial_state(), theirs.new_initial_state()
    while True:
        assert a.is_terminal() == b.is_terminal()
        assert a.current_player() == b.current_player()
        assert a.legal_actions() == b.legal_actions()
        assert str(a) == str(b).strip()
        if a.is_terminal():
            assert a.returns() == b.returns()
            return a.returns()[0]
        assert a.returns() == b.returns() == [0.0, 0.0]
        action = int(rng.choice(a.legal_actions()))
        assert a.action_to_string(a.current_player(), action) == \
            b.action_to_string(b.current_player(), action)
        a.apply_action(action)
        b.apply_action(action)


@pytest.mark.parametrize("rows,cols,k,games", BOARDS)
def test_random_games_are_move_for_move_openspiels_mnk(rows, cols, k, games):
    mine, theirs = ours(rows, cols, k), pyspiel.load_game(f"mnk(m={cols},n={rows},k={k})")
    assert mine.num_distinct_actions() == theirs.num_distinct_actions() == rows * cols
    assert mine.max_game_length() == rows * cols
    rng = np.random.default_rng(rows * 100 + cols * 10 + k)
    results = [play_in_lock_step(mine, theirs, rng) for _ in range(games)]
    # random play ends every way on these boards: the lock step covered wins, losses and draws
    assert set(results) == {-1.0, 0.0, 1.0}


def test_the_default_game_is_openspiels_tic_tac_toe():
    rng = np.random.default_rng(7)
    game = pyspiel.load_game("tictactoe_rl_mnk")
    assert game.get_parameters() == {"rows": 3, "cols": 3, "k": 3}
    for _ in range(200):
        play_in_lock_step(game, pyspiel.load_game("tic_tac_toe"), rng)


def test_the_observation_is_the_planes_from_the_players_side():
    state = ours(3, 4, 3).new_initial_state()
    for action in (5, 0, 11):      # x(1,1) o(0,0) x(2,3): O to move
        state.apply_action(action)
    planes = np.array(state.observation_tensor(1)).reshape(3, 3, 4)
    assert np.flatnonzero(planes[0]).tolist() == [0]          # O's own mark
    assert np.flatnonzero(planes[1]).tolist() == [5, 11]      # X's
    assert planes[2].sum() == 0                               # O, not X, to move
    assert np.array(state.observation_tensor(0)).reshape(3, 3, 4)[0].sum() == 2
    assert state.observation_string(0) == "o...\n.x..\n...x"
    assert state.information_state_string(1) == "5, 0, 11"    # perfect recall: the moves


def test_a_board_that_is_not_one_is_refused_in_one_line():
    with pytest.raises(ValueError) as caught:
        ours(4, 4, 7)
    assert "\n" not in str(caught.value) and "7" in str(caught.value)


@pytest.mark.slow
def test_openspiels_mcts_bot_beats_random_play_as_x():
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("tictactoe_rl_mnk")
    bot = mcts.MCTSBot(game, 2.0, 300, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                       random_state=np.random.RandomState(1))
    rng = np.random.default_rng(2)
    results = []
    for _ in range(4):
        state = game.new_initial_state()
        while not state.is_terminal():
            move = bot.step(state) if state.current_player() == 0 else \
                int(rng.choice(state.legal_actions()))
            assert move in state.legal_actions()
            state.apply_action(move)
        results.append(state.returns()[0])
    assert results.count(-1.0) == 0 and results.count(1.0) >= 3


def test_openspiels_tabular_q_learning_learns_from_its_environment():
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import tabular_qlearner

    env = rl_environment.Environment(pyspiel.load_game("tictactoe_rl_mnk(rows=3,cols=3,k=3)"),
                                     seed=0)
    actions = env.action_spec()["num_actions"]
    assert actions == 9
    learners = [tabular_qlearner.QLearner(player_id=p, num_actions=actions) for p in (0, 1)]
    for _ in range(300):
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            choice = learners[player].step(step).action
            assert choice in step.observations["legal_actions"][player]
            step = env.step([choice])
        for learner in learners:
            learner.step(step)
    # one Q entry per position X met: the empty board and then more
    assert len(learners[0]._q_values) > 50 and len(learners[1]._q_values) > 50


@pytest.mark.slow
def test_openspiels_alpha_beta_finds_the_values_of_the_games():
    from open_spiel.python.algorithms import minimax

    assert minimax.alpha_beta_search(pyspiel.load_game("tictactoe_rl_mnk"))[0] == 0.0  # a draw
    # two in a row on 2x3: X's first mark mid-row has five lines to finish, O blocks one
    assert minimax.alpha_beta_search(ours(2, 3, 2))[0] == 1.0
    assert minimax.alpha_beta_search(ours(2, 3, 3))[0] == 0.0   # O blocks the only line


@pytest.mark.slow
def test_openspiels_cfr_comes_close_to_an_equilibrium_on_a_small_board():
    from open_spiel.python.algorithms import cfr, exploitability

    game = ours(2, 3, 3)
    solver = cfr.CFRSolver(game)
    solver.evaluate_and_update_policy()
    first = exploitability.nash_conv(game, solver.average_policy())
    for _ in range(4):
        solver.evaluate_and_update_policy()
    assert exploitability.nash_conv(game, solver.average_policy()) < min(0.1, first / 4)


@pytest.mark.slow
def test_the_modules_docstring_example_runs_as_written():
    """The example that ``tictactoe_rl/envs/openspiel_game.py`` opens with, run as it stands."""
    example = tictactoe_rl.envs.openspiel_game.__doc__.split("::\n", 1)[1].split("\n\n")[0]
    namespace: dict = {}
    exec(compile(textwrap.dedent(example), "openspiel_game.py", "exec"), namespace)
    state = namespace["state"]
    assert namespace["game"].num_distinct_actions() == 16
    assert str(state).count("x") == 1 and str(state).count(".") == 15
    assert state.current_player() == 1
