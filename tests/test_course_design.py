"""The rebuild of the course's original design (tools/course/original_design.py), the bench's
reference: it must play by the same rules as the project and its Monte Carlo trainer must
learn, or the ratio tools/bench.py prints would compare against something broken."""

import random

import numpy as np
import pytest

from Random_Agent_Advanced import completing_cell
from State import State as Our_State
from tools.course import original_design as Course


def random_game(rng: random.Random) -> list[Course.State]:
    """The positions of one game of uniformly random moves in the course design, in order."""
    env = Course.TicTacToe()
    state, seen = Course.State(), []
    while not env.end_of_game(state):
        seen.append(state)
        legal = env.legal_actions(state)
        action = rng.choice(legal)
        assert state.board[action] == 0
        state, _ = env.next_state(state, action)
    seen.append(state)
    return seen


def ours(state: Course.State) -> Our_State:
    return Our_State(state.board.astype(int), state.player)


def test_rules_agree_with_the_project_on_random_games():
    rng, env = random.Random(3), Course.TicTacToe()
    for _ in range(300):
        *going, final = random_game(rng)
        env.end_of_game(final)
        assert final.end_of_game == ours(final).end_of_game != 0
        for state in going:
            assert not env.end_of_game(state) and state.end_of_game == 0 == ours(state).end_of_game
            assert [(int(r), int(c)) for r, c in env.legal_actions(state)] == list(
                ours(state).legal_actions())


def test_next_state_leaves_its_state_alone_and_rewards_from_x_view():
    env = Course.TicTacToe()
    state = Course.State(np.array([[1., 1., 0.], [-1., -1., 0.], [0., 0., 0.]]), 1)
    after, reward = env.next_state(state, (0, 2))
    assert (reward, after.end_of_game, after.player) == (1, 1, -1)
    assert state.board[0, 2] == 0 and state.player == 1
    blocked, reward = env.next_state(Course.State(state.board.copy(), -1), (1, 2))
    assert (reward, blocked.end_of_game) == (-1, -1)


def test_states_are_keys_by_board_and_player():
    a = Course.State(np.array([[1., 0., 0.], [0., 0., 0.], [0., 0., 0.]]), -1)
    b = a.copy()
    assert a == b and hash(a) == hash(b) and {a: 1}[b] == 1
    assert a != Course.State(a.board.copy(), 1)


def test_advanced_finds_the_same_cell_as_the_project():
    rng = random.Random(5)
    for _ in range(300):
        for state in random_game(rng)[:-1]:
            for mark in (1, -1):
                cell = Course.Random_Agent_Advanced.line_cell(state.board, mark)
                expected = completing_cell(ours(state), mark)
                assert (None if cell is None else (int(cell[0]), int(cell[1]))) == expected


def test_episode_format_is_the_chapters():
    env = Course.TicTacToe()
    rng = random.Random(1)
    player = Course.AI_Agent(1, env, rng, decay=10)
    episode = Course.Generate_episode(player, Course.Random_Agent(-1, env, rng), env, 0)
    *steps, (final,) = episode
    assert all(state.player == 1 for state, _, _ in steps)
    assert all(reward == 0 for _, _, reward in steps[:-1])
    assert steps[-1][2] == {1: 1, -1: -1, 2: 0}[final.end_of_game]


def test_epsilon_is_linear_over_the_decay_window():
    player = Course.AI_Agent(1, Course.TicTacToe(), random.Random(0), decay=100)
    assert [player.epsilon_greedy(e) for e in (0, 50, 100, 101)] == pytest.approx(
        [1.0, 0.505, 0.01, 0.01])


@pytest.mark.slow
def test_monte_carlo_learns():
    player, _, seconds = Course.train(20_000, "random", seed=4)
    rival = Course.Random_Agent(-1, player.env, random.Random(9))
    x_wins, o_wins, ties = Course.test(player, rival, 200)
    # Playing the first empty cell every time (no learning) gives about 153 wins and 32 losses.
    assert x_wins >= 175 and o_wins <= 10 and x_wins + o_wins + ties == 200
    assert seconds > 0
