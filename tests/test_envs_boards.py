"""The environments on a bigger board (``board="4x4", k=4`` and friends): spaces sized by the
board, its rules (four in a row on 4x4 k=4), masks, illegal moves as on 3x3, and both checkers."""

import warnings

import numpy as np
import pytest

from tictactoe_rl.geometry import BoardShape

from tictactoe_rl.positions import BoardState
from State import O, X, X_WON, State
from tictactoe_rl.envs import board

EXTRAS = "the optional extras are not installed (pip install -r requirements-extra.txt)"
FOUR = {"board": "4x4", "k": 4}


@pytest.fixture(scope="module")
def gym():
    gymnasium = pytest.importorskip("gymnasium", reason=f"gymnasium: {EXTRAS}")
    from tictactoe_rl import envs

    envs.register()
    return gymnasium


@pytest.fixture(scope="module")
def aec():
    pytest.importorskip("pettingzoo", reason=f"pettingzoo: {EXTRAS}")
    from tictactoe_rl.envs import pettingzoo_env

    return pettingzoo_env


# --- the shared encodings (no optional package needed) ---------------------------------------

def test_the_helpers_use_the_boards_columns_and_keep_3x3_as_it_was():
    wide = BoardShape(3, 5, 3)
    assert board.cell_of(7, wide) == (1, 2) and board.action_of((1, 2), wide) == 7
    assert [board.action_of(board.cell_of(i, wide), wide) for i in range(15)] == list(range(15))
    with pytest.raises(ValueError, match="not a cell index 0-14"):
        board.cell_of(15, wide)
    assert board.cell_of(7) == (2, 1) and board.action_of((2, 1)) == 7 and board.CELLS == 9
    position = BoardState(wide, [0] * 7 + [1] + [0] * 7, O)
    assert board.observation(position, O).tolist() == [0] * 7 + [-1] + [0] * 7
    assert board.action_mask(position).tolist() == [1] * 7 + [0] + [1] * 7
    assert board.legal_cell(position, 8) == (1, 3) and board.legal_cell(position, 7) is None
    assert board.legal_cell(position, 15) is None
    assert board.position_of(board.observation(position, O), O, wide) is position
    assert type(board.position_of(np.zeros(9, np.int8), X)) is State


def test_board_and_k_are_read_like_the_flags():
    assert board.board_shape() == BoardShape(3, 3, 3)
    assert board.board_shape("3x5") == BoardShape(3, 5, 3)     # k: the shorter side
    assert board.board_shape("4x4", 3) == board.board_shape("4x4", "3") == BoardShape(4, 4, 3)
    assert board.board_shape("4x4", np.int64(4)) == BoardShape(4, 4, 4)


# --- spaces ----------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [("4x4", 4, 16), ("3x5", 3, 15)], ids=["4x4 k=4", "3x5 k=3"])
def test_spaces_are_sized_by_the_board(gym, aec, shape):
    text, k, cells = shape
    env = gym.make("TicTacToe-v0", board=text, k=k)
    assert env.observation_space.shape == (cells,) and env.observation_space.dtype == np.int8
    assert env.action_space.n == cells
    assert env.unwrapped.shape == BoardShape.parse(text, str(k))
    observation, info = env.reset(seed=0)
    assert observation.shape == (cells,) and info["action_mask"].shape == (cells,)
    for kind in ("dict", "box"):
        game = aec.env(board=text, k=k, observation=kind)
        game.reset(seed=0)
        space = game.observation_space("player_2")
        assert (space if kind == "box" else space["observation"]).shape == (cells,)
        assert game.action_space("player_1").n == cells
        seen = game.observe("player_1")
        assert (seen if kind == "box" else seen["observation"]).shape == (cells,)


def test_an_action_is_row_major_with_the_boards_columns(gym):
    env = gym.make("tictactoe_rl.envs.gymnasium_env:TicTacToe-v0", board="3x5", opponent="advanced").unwrapped
    env.reset(seed=1)
    env.step(7)
    assert env.position.board[1, 2] == X and len(env.position.cells) == 15


# --- a whole game on 4x4 k=4 -----------------------------------------------------------------

def open_line_move(observation, shape):
    """A cell of the line of four that holds the learner's marks most and no opponent's."""
    open_lines = [line for line in shape.win_lines if all(observation[i] >= 0 for i in line)]
    best = max(open_lines, key=lambda line: sum(observation[i] for i in line))
    return next(i for i in best if observation[i] == 0)


def test_a_line_of_four_wins_the_game_and_ends_the_episode(gym):
    env = gym.make("TicTacToe-v0", opponent="random", **FOUR).unwrapped
    shape = env.shape
    for seed in range(50):   # a random opponent blocks now and then; most games are won
        observation, info = env.reset(seed=seed)
        terminated, steps = False, 0
        while not terminated:
            assert info["action_mask"].sum() == (observation == 0).sum()
            observation, reward, terminated, truncated, info = env.step(
                open_line_move(observation, shape))
            steps += 1
            assert not truncated
            if not terminated:
                assert reward == 0.0 and env.position.end_of_game == 0
        if reward == 1.0:
            break
    else:
        pytest.fail("the learner won none of 50 games against a random opponent")
    assert env.position.end_of_game == X_WON and steps >= 4
    assert any(all(observation[i] == 1 for i in line) for line in shape.win_lines)
    assert {len(line) for line in shape.win_lines} == {4}   # three in a row is not one
    assert info["action_mask"].sum() == 0 and env.action_masks().sum() == 0
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


def test_three_in_a_row_plays_on_and_four_wins_in_pettingzoo(aec):
    game = aec.env(render_mode="ansi", **FOUR)
    game.reset(seed=0)
    for cell in (0, 4, 1, 5, 2, 6):   # X: 0 1 2, O: 4 5 6 -- both have three in a row
        game.step(cell)
    assert not any(game.terminations.values()) and game.rewards == {"player_1": 0.0,
                                                                     "player_2": 0.0}
    assert game.observe("player_1")["action_mask"].tolist() == [0, 0, 0, 1, 0, 0, 0, 1] + [1] * 8
    game.step(3)                      # the fourth X: the top row
    assert game.rewards == {"player_1": 1.0, "player_2": -1.0}
    assert all(game.terminations.values()) and not any(game.truncations.values())
    assert game.agent_selection == "player_2" and game.last()[1] == -1.0
    assert game.unwrapped.position.end_of_game == X_WON
    assert all(game.observe(agent)["action_mask"].sum() == 0 for agent in game.agents)
    assert game.render() == "X X X X\nO O O .\n. . . .\n. . . .\nX wins on 4x4 k=4\n"


def test_masks_follow_the_game(gym, aec):
    env = gym.make("TicTacToe-v0", side="O", opponent="advanced", **FOUR)
    observation, info = env.reset(seed=3)
    masks = env.get_wrapper_attr("action_masks")
    assert info["action_mask"].sum() == 15 and info["action_mask"][observation == -1] == 0
    assert (masks() == (observation == 0)).all()
    game = aec.env(observation="box", board="3x5")
    game.reset()
    game.step(np.int64(14))
    assert game.infos["player_2"]["action_mask"].tolist() == [1] * 14 + [0]
    assert game.infos["player_1"]["action_mask"].sum() == 0
    assert game.action_masks().tolist() == [True] * 14 + [False]


# --- illegal moves, as on 3x3 ----------------------------------------------------------------

def test_an_illegal_move_loses_or_raises_as_on_3x3(gym, aec):
    env = gym.make("TicTacToe-v0", side="O", opponent="advanced", **FOUR).unwrapped
    observation, _ = env.reset(seed=0)
    taken = int(np.flatnonzero(observation)[0])
    before = env.position
    observation, reward, terminated, truncated, info = env.step(taken)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert env.position is before and info["action_mask"].sum() == 0
    for bad in (16, -1, True, 2.0):
        env.reset(seed=0)
        assert env.step(bad)[1:3] == (-1.0, True)
    env.reset(seed=0)
    assert "illegal_action" not in env.step(9)[4]   # off a 3x3 board, but on this one
    strict = gym.make("TicTacToe-v0", illegal="raise", **FOUR).unwrapped
    strict.reset(seed=0)
    strict.step(15)
    with pytest.raises(ValueError, match="illegal action 15: not an empty cell 0-15"):
        strict.step(15)
    game = aec.env(**FOUR)
    game.reset()
    game.step(10)
    game.step(10)
    assert game.rewards == {"player_1": 0.0, "player_2": -1.0}
    assert game.infos["player_2"] == {"illegal_action": True}
    assert all(game.terminations.values())


# --- the libraries' own checkers -------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"side": "O", "opponent": "advanced"}])
def test_gymnasium_checker_passes_on_4x4(gym, kwargs):
    from gymnasium.utils.env_checker import check_env

    env = gym.make("TicTacToe-v0", **FOUR, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # any complaint of the checker fails the test
        assert check_env(env.unwrapped) is None


# What api_test says of every dict observation with an action mask and of the empty board.
DICT_OBSERVATION_ADVICE = {
    "Observation is not a NumPy array",
    "Observation numpy array is all zeros.",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
}


@pytest.mark.filterwarnings("ignore:The old environment creation API:DeprecationWarning")
@pytest.mark.parametrize("kind", ["dict", "box"])
def test_pettingzoo_api_test_passes_on_4x4(aec, capsys, kind):
    from functools import partial

    from pettingzoo.test import api_test, seed_test

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(aec.env(observation=kind, **FOUR), num_cycles=1000)
        seed_test(partial(aec.env, observation=kind, **FOUR), num_cycles=100)
    assert "Passed API test" in capsys.readouterr().out
    assert {str(warning.message) for warning in caught} <= DICT_OBSERVATION_ADVICE


# --- construction and pictures ---------------------------------------------------------------

@pytest.mark.parametrize("bad", [{"board": "4by4"}, {"board": "6x6"}, {"board": "4x4", "k": 7},
                                 {"board": "4x4", "k": "four"}, {"board": 44},
                                 {"board": "3x3", "k": True}], ids=repr)
def test_a_bad_board_is_one_line_when_the_env_is_made(gym, aec, bad):
    for make in (lambda: gym.make("TicTacToe-v0", **bad), lambda: aec.env(**bad),
                 lambda: aec.raw_env(**bad)):
        with pytest.raises(ValueError) as error:
            make()
        assert str(error.value) and "\n" not in str(error.value)


def test_the_default_board_is_still_tic_tac_toe(gym, aec):
    env = gym.make("TicTacToe-v0")
    assert env.unwrapped.shape == BoardShape(3, 3, 3) and env.action_space.n == 9
    assert type(env.unwrapped.position) is State
    assert aec.env().action_space("player_1").n == 9


def test_renders_any_board(gym):
    env = gym.make("TicTacToe-v0", opponent="advanced", render_mode="ansi", board="3x5")
    env.reset(seed=0)
    env.step(7)
    rows = env.render().splitlines()
    assert len(rows) == 4 and all(len(row.split()) == 5 for row in rows[:3])
    assert rows[1].split()[2] == "X" and rows[3] == "X to move on 3x5 k=3 (the learner plays X)"
    for text, inner_lines in (("4x4", (3, 3)), ("3x5", (2, 4))):
        pictures = gym.make("TicTacToe-v0", render_mode="rgb_array", board=text)
        pictures.reset(seed=0)
        frame = pictures.render()
        pictures.close()
        assert frame.shape == (600, 480, 3) and frame.dtype == np.uint8
        assert grid_lines(frame) == inner_lines


def grid_lines(frame):
    """How many horizontal and vertical grid lines an empty board's frame shows: the most common
    number of grid-coloured runs a column (a row) of pixels crosses, where it crosses any."""
    from collections import Counter

    from tictactoe_rl.gui import paint

    grid = (frame == np.array(paint.GRID)).all(axis=2)

    def crossings(scanlines):
        counts = Counter(int(np.count_nonzero(np.diff(line.astype(int)) == 1))
                         for line in scanlines)
        counts.pop(0, None)   # the margins and the header cross none
        return counts.most_common(1)[0][0]

    return crossings(grid.T), crossings(grid)
