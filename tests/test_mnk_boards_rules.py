"""m,n,k boards: their positions, rules, the advanced and perfect players, and board symmetries,
each checked against a plain reimplementation where one fits.
The table files and the trainers are in test_mnk_boards_files.py."""

import copy
import math
import pickle
import random

import numpy as np
import pytest

from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from tictactoe_rl.positions import BoardState, PositionCache, shape_of, start_position
from tictactoe_rl.boards.perfect import PerfectAgent, solver_of
from Episode import play_games
from tictactoe_rl.exact import symmetry
from tictactoe_rl.exact.symmetry import board_images, images
from tictactoe_rl.players import search
from tictactoe_rl.players.mcts import MCTSAgent
from tictactoe_rl.players.playout import PlayoutAgent
from tictactoe_rl.players.search import successors
from Random_Agent import Random_Agent
import Random_Agent_Advanced as advanced
from Random_Agent_Advanced import Random_Agent_Advanced, completing_cell, forced_move
from State import DRAW, O, O_WON, ONGOING, X, X_WON, State, all_states
from TicTacToe import TicTacToe
from tests.test_boards import reference_lines
from tests.test_mnk_tables import negamax

FOUR = BoardShape(4, 4, 4)
WIDE = BoardShape(3, 4, 3)


def after(shape: BoardShape, moves: list[tuple[int, int]]):
    """The position after ``moves`` from the empty board of ``shape`` (with their rewards)."""
    env = TicTacToe(board=shape)
    state, rewards = env.reset(), []
    for move in moves:
        state, reward = env.next_state(state, move)
        rewards.append(reward)
    return state, rewards


def one_line_value_error(call, *args) -> str:
    with pytest.raises(ValueError) as caught:
        call(*args)
    message = str(caught.value)
    assert message and "\n" not in message
    return message


# --- positions -----------------------------------------------------------------------------------

def test_each_position_is_a_single_object_whatever_form_its_board_is_given_in():
    cells = [1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    flat = BoardState(FOUR, cells, X)
    assert BoardState(FOUR, np.array(cells).reshape(4, 4), X) is flat
    assert BoardState(FOUR, [cells[i:i + 4] for i in range(0, 16, 4)], X) is flat
    assert BoardState(BoardShape(4, 4, 4), tuple(cells), X) is flat     # an equal shape object
    assert after(FOUR, [(0, 0), (1, 1)])[0] is flat
    assert flat.cells == tuple(cells) and flat.player == X and flat.end_of_game == ONGOING
    assert BoardState(FOUR, cells, O) is not flat and BoardState(FOUR, cells, O) != flat


def test_a_3x3_k2_position_is_not_the_3x3_k3_state_of_the_same_cells():
    two = BoardShape(3, 3, 2)
    cells = [1, 0, 0, 0, -1, 0, 0, 0, 0]
    small, course = BoardState(two, cells, X), State(cells, X)
    assert small != course and course != small
    assert not small == course and not course == small
    assert len({small, course}) == 2
    assert shape_of(small) == two and shape_of(course) is TIC_TAC_TOE
    assert small.cells == course.cells              # the cells alone do not tell them apart
    # and k matters to the rules: two in a row win on k=2, not on k=3
    line = [1, 1, 0, -1, 0, 0, 0, 0, 0]
    assert BoardState(two, line, O).end_of_game == X_WON
    assert State(line, O).end_of_game == ONGOING


def test_pickling_and_copying_give_back_the_same_object():
    position = after(FOUR, [(3, 3), (0, 1), (2, 2)])[0]
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(position, protocol)) is position
    assert copy.copy(position) is position and copy.deepcopy(position) is position
    pair = pickle.loads(pickle.dumps({(position, (1, 1)): 0.5}))
    assert list(pair) == [(position, (1, 1))] and next(iter(pair))[0] is position


@pytest.mark.parametrize("shape", [FOUR, WIDE, BoardShape(2, 5, 2), BoardShape(5, 5, 4)])
def test_the_board_array_is_rows_by_cols_and_cannot_be_written(shape):
    position = start_position(shape).children()[(1, 1)]
    board = position.board
    assert board.shape == (shape.rows, shape.cols)
    assert board[1, 1] == X and int(np.count_nonzero(board)) == 1
    assert board.tolist() == [list(position.cells[r * shape.cols:(r + 1) * shape.cols])
                              for r in range(shape.rows)]
    with pytest.raises(ValueError):
        board[0, 0] = O
    with pytest.raises(ValueError):
        board.flags.writeable = True
    assert position.board[0, 0] == 0
    with pytest.raises(AttributeError):
        position.player = O


def test_reset_gives_the_empty_position_of_the_same_board():
    for shape in (FOUR, WIDE, BoardShape(3, 3, 2)):
        position = after(shape, [(0, 0), (1, 2)])[0]
        empty = position.reset()
        assert empty is start_position(shape) and shape_of(empty) == shape
        assert empty.cells == (0,) * shape.size and empty.player == X
        assert position.cells.count(0) == shape.size - 2          # the position itself is kept


@pytest.mark.parametrize("board, player, words", [
    ([0] * 15, X, "16 cells, got 15"),
    ([0] * 17, X, "16 cells, got 17"),
    ([[0] * 4] * 3, X, "16 cells, got 12"),
    ([2] + [0] * 15, X, "got 2"),
    ([None] * 16, X, "got None"),
    ([True] + [0] * 15, X, "got True"),
    ("x" * 16, X, "16 cells"),
    ([0] * 16, 0, "player must be 1 (X) or -1 (O)"),
    ([0] * 16, 2, "player must be 1 (X) or -1 (O)"),
    ([0] * 16, True, "player must be 1 (X) or -1 (O)"),
])
def test_bad_boards_and_players_are_one_line_value_errors(board, player, words):
    assert words in one_line_value_error(BoardState, FOUR, board, player)


@pytest.mark.parametrize("rows, cols, k, words", [
    (0, 4, 1, "1 to 5 rows"), (6, 4, 4, "1 to 5 rows"), (4, 9, 4, "1 to 5 columns"),
    (4, 4, 5, "k must be between 1 and 4"), (3, 4, 0, "k must be between 1 and 4"),
    (4, 4, 2.0, "k must be a whole number")])
def test_bad_board_shapes_are_one_line_value_errors(rows, cols, k, words):
    assert words in one_line_value_error(BoardShape, rows, cols, k)


def test_a_bigger_board_position_cannot_pose_as_a_3x3_state():
    """BoardState is for every board but 3x3 k=3, whose positions are the course's States: an
    equal position of another class would hash apart from the State it equals."""
    message = one_line_value_error(BoardState, TIC_TAC_TOE, [0] * 9, X)
    assert "State" in message


# --- the rules on 4x4, four in a row --------------------------------------------------------------

LINES_OF_FOUR = {
    "row": ([(2, 0), (0, 0), (2, 1), (0, 1), (2, 2), (0, 2), (2, 3)], X_WON),
    "column": ([(0, 0), (0, 1), (1, 0), (1, 1), (3, 3), (2, 1), (2, 0), (3, 1)], O_WON),
    "diagonal": ([(0, 0), (0, 1), (1, 1), (0, 2), (2, 2), (0, 3), (3, 3)], X_WON),
    "anti-diagonal": ([(0, 0), (0, 3), (0, 1), (1, 2), (3, 3), (2, 1), (1, 1), (3, 0)], O_WON),
}


@pytest.mark.parametrize("name", sorted(LINES_OF_FOUR))
def test_a_line_of_four_wins_and_a_line_of_three_does_not(name):
    moves, result = LINES_OF_FOUR[name]
    state, rewards = after(FOUR, moves)
    assert state.end_of_game == result
    assert rewards == [0] * (len(moves) - 1) + [1 if result == X_WON else -1]
    assert state.legal_actions() == () and len(state.children()) == 0
    three, _ = after(FOUR, moves[:-1])           # the same line one mark short
    assert three.end_of_game == ONGOING and moves[-1] in three.legal_actions()


def test_a_full_board_without_four_in_a_row_is_a_draw():
    # X: rows "X X O O" / "O O X X" alternate with "X X O O" shifted, no line of four anywhere
    pattern = [[1, 1, -1, -1], [-1, -1, 1, 1], [1, 1, -1, -1], [-1, -1, 1, 1]]
    xs = [(r, c) for r in range(4) for c in range(4) if pattern[r][c] == 1]
    os_ = [(r, c) for r in range(4) for c in range(4) if pattern[r][c] == -1]
    moves = [cell for pair in zip(xs, os_) for cell in pair]
    state, rewards = after(FOUR, moves)
    assert state.end_of_game == DRAW and rewards == [0] * 16
    assert state.board.tolist() == pattern and state.legal_actions() == ()


def test_three_in_a_row_on_4x4_k3_does_win():
    state, rewards = after(BoardShape(4, 4, 3), [(1, 0), (0, 0), (1, 1), (0, 1), (1, 2)])
    assert state.end_of_game == X_WON and rewards[-1] == 1


def test_illegal_moves_are_one_line_value_errors_naming_the_reason():
    env = TicTacToe(board=FOUR)
    state = env.next_state(env.reset(), (1, 1))[0]
    for action, words in (((4, 0), "off the board (row and col go from 0 to 3)"),
                          ((0, -1), "off the board"),
                          ((1, 1), "already taken"),
                          ((0.0, 1), "pair of ints")):
        message = one_line_value_error(env.next_state, state, action)
        assert words in message and repr(action) in message
        assert env.illegal_reason(state, action) in message
    won, _ = after(FOUR, LINES_OF_FOUR["row"][0])
    assert "already over" in one_line_value_error(env.next_state, won, (3, 3))
    assert env.legal(state, (3, 3)) and env.legal(state, [3, 3])
    assert env.legal(state, (np.int64(3), np.int64(3)))
    wide = TicTacToe(board=WIDE)
    assert "col from 0 to 3" in wide.illegal_reason(wide.reset(), (0, 4))
    assert wide.legal(wide.reset(), (2, 3)) and not wide.legal(wide.reset(), (3, 0))


def test_a_position_of_another_board_cannot_be_set_on_the_game():
    env = TicTacToe(board=FOUR)
    for foreign in (State(), start_position(BoardShape(4, 4, 3)), start_position(WIDE)):
        message = one_line_value_error(setattr, env, "state", foreign)
        assert shape_of(foreign).name in message and "4x4 k=4" in message
    assert env.position is start_position(FOUR)
    with pytest.raises(ValueError, match="4x4 k=3 board, not 4x4 k=4"):
        TicTacToe(start_position(BoardShape(4, 4, 3)), board=FOUR)


def test_the_live_game_plays_and_resets_on_its_own_board():
    env = TicTacToe(board=FOUR)
    assert env.shape == FOUR and env.state.board.shape == (4, 4)
    env.move((2, 3))
    env.move((0, 0))
    assert env.state.cells.count(0) == 14 and env.position.player == X
    assert env.state.reset() is start_position(FOUR)
    assert env.position is start_position(FOUR) and env.state.board.shape == (4, 4)
    env.state = after(FOUR, [(3, 3)])[0]
    assert env.reset() is start_position(FOUR)


def test_3x3_stays_the_course_game():
    assert TicTacToe().shape == BoardShape(3, 3, 3) == TIC_TAC_TOE
    assert start_position(TIC_TAC_TOE) is State() and start_position() is State()
    assert start_position(BoardShape(3, 3, 3)) is State()          # equal, not the same object
    assert TicTacToe(board=BoardShape(3, 3, 3)).position is State()
    assert type(TicTacToe().next_state(State(), (1, 1))[0]) is State
    assert shape_of(State()) is TIC_TAC_TOE and shape_of(TicTacToe().state) is TIC_TAC_TOE
    assert State().reset() is State()


# --- the advanced player: k - 1 marks ----------------------------------------------------------

def test_the_advanced_player_completes_its_own_three_of_four():
    state = after(FOUR, [(3, 0), (0, 0), (3, 1), (1, 1), (3, 3), (0, 3)])[0]   # X: 3,0 3,1 3,3
    assert completing_cell(state, X) == (3, 2) and forced_move(state) == (3, 2)
    agent = Random_Agent_Advanced(X, TicTacToe(board=FOUR), random_step=5)
    probs = agent.action_probs(state)
    assert math.isclose(probs[(3, 2)], 0.8 + 0.2 / 10) and math.isclose(sum(probs.values()), 1)
    assert all(math.isclose(p, 0.02) for cell, p in probs.items() if cell != (3, 2))


def test_the_advanced_player_blocks_the_opponents_three_and_prefers_its_own_win():
    block = after(FOUR, [(0, 0), (1, 1), (3, 3), (2, 2), (0, 3)])[0]    # O holds 1,1 2,2; O to move
    assert completing_cell(block, O) is None                            # two of four: no threat
    block = after(FOUR, [(0, 0), (1, 1), (0, 1), (2, 2), (0, 3), (3, 3)])[0]   # X to move
    assert completing_cell(block, X) == (0, 2)                          # X wins first ...
    only_block = after(FOUR, [(1, 0), (1, 1), (3, 0), (2, 2), (0, 3), (3, 3)])[0]
    assert completing_cell(only_block, X) is None
    assert completing_cell(only_block, O) == (0, 0) == forced_move(only_block)  # ... else blocks
    agent = Random_Agent_Advanced(X, TicTacToe(board=FOUR), random_step=10 ** 6, seed=4)
    assert agent.get_action(only_block) == (0, 0) and agent.get_action(block) == (0, 2)


def test_a_line_holding_both_marks_is_no_threat():
    state = after(FOUR, [(0, 0), (0, 3), (0, 1), (3, 3), (0, 2)])[0]   # X X X O on the top row
    assert completing_cell(state, X) is None and completing_cell(state, O) is None


# --- caches keyed by positions ---------------------------------------------------------------------

def test_a_position_cache_starts_again_when_full_and_keeps_its_newest_entry():
    cache = PositionCache(limit=3)
    for n in range(10):
        cache[n] = n * n
        assert len(cache) <= 3 and cache[n] == n * n
    assert dict(cache) == {9: 81}       # 9 came when 6, 7, 8 filled it


@pytest.mark.slow
def test_every_3x3_cache_holds_the_whole_game_without_starting_again():
    caches = (advanced._FORCED_MOVE_CACHE, symmetry._IMAGE_CACHE, symmetry._STATE_IMAGES,
              search._SUCCESSORS)
    for cache in caches:
        cache.clear()       # earlier tests may have left bigger boards' positions in them
    states = all_states()
    for state in states:
        forced_move(state)
        successors(state)
        for action in state.legal_actions():
            images(state, action)
    moving = [state for state in states if state.legal_actions()]
    pairs = sum(len(state.legal_actions()) for state in states)
    assert (len(states), len(moving), pairs) == (5478, 4520, 16167)
    assert len(symmetry._IMAGE_CACHE) == pairs and len(symmetry._STATE_IMAGES) == len(moving)
    assert len(advanced._FORCED_MOVE_CACHE) == len(search._SUCCESSORS) == len(states)


def test_long_runs_on_a_bigger_board_keep_the_caches_bounded_and_the_answers_right(monkeypatch):
    caches = (advanced._FORCED_MOVE_CACHE, symmetry._IMAGE_CACHE, search._SUCCESSORS)
    for cache in caches:
        monkeypatch.setattr(cache, "limit", 50)
    env = TicTacToe(board=FOUR)
    rng = random.Random(3)
    for _ in range(40):
        state = env.reset()
        while state.end_of_game == ONGOING:
            assert forced_move(state) == (completing_cell(state, state.player)
                                          or completing_cell(state, -state.player))
            assert successors(state) == tuple(state.children().values())
            action = rng.choice(state.legal_actions())
            assert images(state, action) == board_images(state, action)
            state = env.next_state(state, action)[0]
    assert all(0 < len(cache) <= 50 for cache in caches)


# --- the searching players -----------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("make", [lambda env, seed: PlayoutAgent(X, env, pnum=30, seed=seed),
                                  lambda env, seed: MCTSAgent(X, env, iterations=200, seed=seed)],
                         ids=["playout", "mcts"])
def test_the_searching_players_take_a_win_of_four_and_play_whole_4x4_games(make):
    env = TicTacToe(board=FOUR)
    state = after(FOUR, [(3, 0), (0, 0), (3, 1), (1, 1), (3, 3), (0, 3)])[0]   # X: 3,0 3,1 3,3
    assert make(env, 1).get_action(state) == (3, 2)
    x_wins, o_wins, draws = play_games(make(env, 2), Random_Agent(O, env, seed=3), env, 3)
    assert x_wins + o_wins + draws == 3 and x_wins >= 2


# --- the perfect player ---------------------------------------------------------------------------

WIDE_LINES = sorted(tuple(sorted(line)) for line in reference_lines(3, 4, 3))


def test_wide_board_lines_are_the_plain_ones():
    assert len(WIDE_LINES) == 14        # 6 in rows, 4 in columns, 4 diagonal
    assert sorted(WIDE.win_lines) == WIDE_LINES


@pytest.mark.slow
def test_the_perfect_player_keeps_exactly_the_moves_a_plain_negamax_keeps():
    rng = random.Random(11)
    env = TicTacToe(board=WIDE)
    players = {X: PerfectAgent(X, env, seed=1), O: PerfectAgent(O, env, seed=2)}
    seen = set()
    while len(seen) < 36:
        state = start_position(WIDE)
        for _ in range(rng.randrange(0, 8)):
            state = state.children()[rng.choice(state.legal_actions())]
            if state.end_of_game:
                break
        if state.end_of_game or state in seen:
            continue
        seen.add(state)
        mover = state.player
        values = {}
        for (r, c) in state.legal_actions():
            i = r * 4 + c
            values[(r, c)] = -negamax(state.cells[:i] + (mover,) + state.cells[i + 1:], -mover)
        best = max(values.values())
        expected = {move for move, value in values.items() if value == best}
        assert set(players[mover].best_actions(state)) == expected, state
        probs = players[mover].action_probs(state)
        assert set(probs) == expected and math.isclose(sum(probs.values()), 1)
    assert negamax((0,) * 12, X) == solver_of(WIDE).value()


def test_the_perfect_player_wins_every_game_of_4x4_k3_as_x():
    three = BoardShape(4, 4, 3)
    assert solver_of(three).value() == 1            # the first player wins
    env = TicTacToe(board=three)
    assert play_games(PerfectAgent(X, env, seed=5), Random_Agent(O, env, seed=6), env,
                      40) == (40, 0, 0)
    assert play_games(PerfectAgent(X, env, seed=7),
                      Random_Agent_Advanced(O, env, seed=8), env, 20) == (20, 0, 0)


@pytest.mark.slow
def test_two_perfect_players_always_draw_4x4_k4():
    env = TicTacToe(board=FOUR)
    assert solver_of(FOUR).value() == 0
    assert play_games(PerfectAgent(X, env, seed=9), PerfectAgent(O, env, seed=10), env,
                      12) == (0, 0, 12)


# --- board symmetries ----------------------------------------------------------------------------

def plain_images(state, action, square: bool):
    """``(cells, action)`` of each image by numpy's rotations and flips (no project code)."""
    board = np.array(state.cells).reshape(state.shape.rows, state.shape.cols)
    marker = np.zeros_like(board)
    marker[action] = 1
    moves = [lambda a, t=t: np.rot90(a, t) for t in range(4)] + \
        [lambda a, t=t: np.rot90(np.fliplr(a), t) for t in range(4)] if square else \
        [lambda a: a, np.fliplr, np.flipud, lambda a: np.rot90(a, 2)]
    found = set()
    for move in moves:
        image, where = move(board), move(marker)
        cell = tuple(int(v) for v in np.argwhere(where == 1)[0])
        found.add((tuple(int(v) for v in image.reshape(-1)), cell))
    return found


@pytest.mark.parametrize("shape, square", [(FOUR, True), (WIDE, False), (BoardShape(5, 5, 4), True)])
def test_board_images_are_the_boards_rotations_and_mirrors(shape, square):
    rng = random.Random(shape.size)
    for _ in range(20):
        state = start_position(shape)
        for _ in range(rng.randrange(0, 5)):
            state = state.children()[rng.choice(state.legal_actions())]
        if state.end_of_game:
            continue
        action = rng.choice(state.legal_actions())
        found = board_images(state, action)
        assert found[0] == (state, action)
        assert {(image.cells, cell) for image, cell in found} == plain_images(state, action,
                                                                                square)
        assert len(found) == len(set(found))
        for image, cell in found:
            assert shape_of(image) == shape and image.player == state.player
            assert cell in image.legal_actions()
        assert images(state, action) == found


def test_the_empty_4x4_board_has_three_kinds_of_first_move():
    empty = start_position(FOUR)
    assert len(board_images(empty, (0, 0))) == 4       # the corners
    assert len(board_images(empty, (1, 1))) == 4       # the centre cells
    assert len(board_images(empty, (0, 1))) == 8       # the edge cells
    assert len(board_images(start_position(WIDE), (1, 1))) == 2
