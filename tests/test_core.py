"""The game model: State, the rules, and the two fixed opponents."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced, forced_move
from State import DRAW, O, O_WON, ONGOING, WIN_LINES, X, X_WON, State, all_states
from TicTacToe import TicTacToe

ROOT = Path(__file__).resolve().parent.parent


def board_with(line, mark):
    """A board with ``mark`` on the three flat cells of ``line`` and the other side elsewhere,
    without giving the other side a line of its own."""
    cells = [0] * 9
    for i in line:
        cells[i] = mark
    return cells


@pytest.mark.parametrize("line", WIN_LINES)
@pytest.mark.parametrize("mark, code", [(X, X_WON), (O, O_WON)])
def test_every_line_wins(line, mark, code):
    state = State(board_with(line, mark), player=-mark)
    env = TicTacToe()
    assert state.end_of_game == code
    assert env.end_of_game(state)
    assert env.legal_actions(state) == []


def test_full_board_without_line_is_a_draw():
    state = State([[1, -1, 1], [1, -1, -1], [-1, 1, 1]], player=-1)
    assert state.end_of_game == DRAW


def test_winning_move_gives_reward_from_x_view():
    env = TicTacToe()
    x_almost = State([[1, 1, 0], [-1, -1, 0], [0, 0, 0]], player=X)
    after, reward = env.next_state(x_almost, (0, 2))
    assert (after.end_of_game, reward) == (X_WON, 1)
    o_almost = State([[1, 1, 0], [-1, -1, 0], [1, 0, 0]], player=O)
    after, reward = env.next_state(o_almost, (1, 2))
    assert (after.end_of_game, reward) == (O_WON, -1)
    ongoing, reward = env.next_state(State(), (1, 1))
    assert (ongoing.end_of_game, reward, ongoing.player) == (ONGOING, 0, O)


def test_legal_actions_are_empty_cells_row_major():
    state = State([[1, 0, -1], [0, 1, 0], [0, 0, -1]], player=X)
    assert TicTacToe().legal_actions(state) == [(0, 1), (1, 0), (1, 2), (2, 0), (2, 1)]


@pytest.mark.parametrize("action, reason", [
    ((1, 1), "already taken"),
    ((3, 0), "off the board"),
    ((0, -1), "off the board"),
    ((1.0, 2.0), "pair of ints"),
    ("1,1", "pair of ints"),
    ((1, 2, 3), "pair of ints"),
    (None, "pair of ints"),
])
def test_illegal_actions_raise_and_change_nothing(action, reason):
    env = TicTacToe(State([[0, 0, 0], [0, 1, 0], [0, 0, 0]], player=O))
    before = env.position
    with pytest.raises(ValueError, match=reason) as error:
        env.move(action)
    assert repr(action) in str(error.value)
    assert env.position is before and not env.legal(before, action)


def test_moves_after_the_end_are_illegal():
    won = State(board_with(WIN_LINES[0], X), player=O)
    with pytest.raises(ValueError, match="already over"):
        TicTacToe().next_state(won, (2, 2))


def test_numpy_ints_are_accepted_as_actions():
    after, _ = TicTacToe().next_state(State(), (np.int64(0), np.int64(2)))
    assert after.board[0, 2] == X


def test_next_state_leaves_the_state_alone_and_move_plays_on_env():
    env = TicTacToe()
    start = env.position
    env.next_state(start, (0, 0))
    assert start == State() and env.position is start
    env.move((0, 0))
    assert env.state.board[0, 0] == X and env.state.player == O


def test_state_keys_never_change():
    state = State([[1, 0, 0], [0, -1, 0], [0, 0, 0]], player=X)
    table = {(state, (0, 1)): 0.5}
    with pytest.raises(AttributeError):
        state.player = O
    with pytest.raises(ValueError):
        state.board[0, 1] = 1
    assert table[(State(state.board, X), (0, 1))] == 0.5
    assert state.copy() == state and hash(state.copy()) == hash(state)


def test_state_equality_includes_side_to_move():
    assert State(player=X) != State(player=O)
    assert State(np.zeros((3, 3))) == State([0] * 9) == State([[0] * 3] * 3)


def test_the_unchecked_constructor_gives_the_same_shared_states():
    # from_valid_cells skips the checks of State(board, player) for cells known to be valid;
    # it must give the very same object, with the same result, moves and successors.
    for state in all_states():
        made = State.from_valid_cells(tuple(state.cells), state.player)
        assert made is state is State(list(state.cells), state.player)
    fresh = State.from_valid_cells((1, 1, 1, -1, -1, 0, 0, 0, 0), O)
    assert fresh.end_of_game == X_WON and fresh.legal_actions() == () and fresh.children() == {}
    assert fresh is State([[1, 1, 1], [-1, -1, 0], [0, 0, 0]], O)


def test_hashing_follows_equality_and_orders_nothing():
    # A state hashes by identity (each position exists once), so equal states share one hash;
    # all_states keeps the same order from one process to the next all the same (the start
    # first), whatever the addresses.
    state = State([[1, 0, 0], [0, -1, 0], [0, 0, 0]], X)
    assert hash(state) == hash(State([1, 0, 0, 0, -1, 0, 0, 0, 0], X)) == hash(state.copy())
    code = "from State import all_states; print([s.cells + (s.player,) for s in all_states()])"
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, cwd=ROOT, env={**os.environ, "PYTHONHASHSEED": seed}).stdout
            for seed in ("1", "2")}
    assert len(runs) == 1 and runs.pop().startswith("[(0, 0, 0, 0, 0, 0, 0, 0, 0, 1), ")


@pytest.mark.parametrize("board", [[0] * 8, [[0, 0], [0, 0]], [2] + [0] * 8, ["x"] * 9,
                                   [True] + [0] * 8, [0.5] + [0] * 8])
def test_bad_boards_are_refused(board):
    with pytest.raises(ValueError):
        State(board)


def test_state_draws_the_board():
    text = str(State([[1, 0, -1], [0, 0, 0], [0, 0, 0]], player=X))
    assert text.splitlines() == ["X . O", ". . .", ". . ."]


def test_position_counts_match_the_spec():
    states = all_states()
    ongoing = [s for s in states if s.end_of_game == ONGOING]
    x_to_move = [s for s in ongoing if s.player == X]
    o_to_move = [s for s in ongoing if s.player == O]
    assert (len(states), len(ongoing)) == (5478, 4520)
    assert (len(x_to_move), sum(len(s.legal_actions()) for s in x_to_move)) == (2423, 8631)
    assert (len(o_to_move), sum(len(s.legal_actions()) for s in o_to_move)) == (2097, 7536)


def test_random_agent_is_uniform_and_seeded():
    state = State([[1, 0, 0], [0, -1, 0], [0, 0, 0]], player=X)
    probs = Random_Agent(X).action_probs(state)
    assert probs == {a: pytest.approx(1 / 7) for a in state.legal_actions()}
    draws = [Random_Agent(X, seed=5).get_action(state) for _ in range(3)]
    assert len(set(draws)) == 1


def test_advanced_takes_first_winning_line_in_scan_order():
    # X can win on row 0 (cell 0,2) and on column 0 (cell 2,0): rows are scanned first.
    state = State([[1, 1, 0], [1, -1, -1], [0, -1, 0]], player=X)
    assert forced_move(state) == (0, 2)
    probs = Random_Agent_Advanced(X).action_probs(state)
    legal = state.legal_actions()
    assert probs[(0, 2)] == pytest.approx(0.8 + 0.2 / len(legal))
    assert all(probs[a] == pytest.approx(0.2 / len(legal)) for a in legal if a != (0, 2))


def test_advanced_prefers_winning_to_blocking():
    # O to move: O can win on column 2 while X threatens row 0.
    state = State([[1, 1, 0], [0, 1, -1], [0, 0, -1]], player=O)
    assert forced_move(state) == (0, 2)
    # Here O cannot win; it must block X's diagonal at (2, 2).
    block = State([[1, 0, -1], [0, 1, 0], [0, 0, 0]], player=O)
    assert forced_move(block) == (2, 2)


def test_advanced_is_uniform_without_threats_and_obeys_random_step():
    quiet = State([[1, 0, 0], [0, 0, 0], [0, 0, 0]], player=O)
    assert list(Random_Agent_Advanced(O).action_probs(quiet).values()) == [pytest.approx(1 / 8)] * 8
    state = State([[1, 1, 0], [0, -1, 0], [0, 0, 0]], player=O)
    probs = Random_Agent_Advanced(O, random_step=2).action_probs(state)
    assert probs[(0, 2)] == pytest.approx(0.5 + 0.5 / 6)
    assert sum(probs.values()) == pytest.approx(1)


def test_advanced_samples_match_its_probabilities():
    state = State([[1, 1, 0], [0, -1, 0], [0, 0, 0]], player=O)
    agent = Random_Agent_Advanced(O, seed=11)
    games = 6000
    hits = sum(agent.get_action(state) == (0, 2) for _ in range(games))
    expected = agent.action_probs(state)[(0, 2)]
    standard_error = (expected * (1 - expected) / games) ** 0.5
    assert abs(hits / games - expected) < 4 * standard_error


def test_a_learner_asks_its_schedule_once_per_episode_and_explores_at_that_rate():
    """epsilon_greedy (the exercise's piece 1) is asked once per episode, however many moves the
    learner makes in it; outside training episodes (epoch None) the rate is the final 0.01."""
    from AI_Agent import AI_Agent
    from Episode import play_game
    from tictactoe_rl.exploration.schedules import EPSILON_FINAL

    class Counting(AI_Agent):
        asked: list[int] = []

        def epsilon_greedy(self, epoch):
            self.asked.append(epoch)
            return 0.25

    env = TicTacToe()
    learner = Counting(X, env, seed=3)
    for epoch in range(200):
        moves, _ = play_game(learner, Random_Agent(O, env, seed=epoch), env, epoch=epoch)
        assert sum(state.player == X for state, _, _ in moves) >= 3
    assert learner.asked == list(range(200))
    assert learner.exploration_rate(None) == EPSILON_FINAL and learner.asked == list(range(200))
    # 0.25 of the learner's moves are random: with an empty table every greedy move is the first
    # legal cell, so the share of other cells estimates it (seeded: the same count every run)
    learner.Q.clear()
    learner.rng.seed(5)
    state = State()
    others = sum(learner.get_action(state, 1_000) != (0, 0) for _ in range(4_000))
    assert abs(others / 4_000 - 0.25 * 8 / 9) < 0.02
