"""Property-based tests (hypothesis) of the game model: random sequences of legal and illegal
moves, immutable states, every game ending by the rules, and the eight symmetries of the board.

Each property states its number of examples (``max_examples``); the winner is recomputed here from
the eight lines, independently of ``State``.
"""

import copy
import math
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from Random_Agent import Random_Agent
from tictactoe_rl.exact.solver import exact_outcome, minimax_value, safe_actions
from State import DRAW, O, O_WON, ONGOING, X, X_WON, State
from TicTacToe import TicTacToe

CELLS = [(r, c) for r in range(3) for c in range(3)]
LINES = [[(r, 0), (r, 1), (r, 2)] for r in range(3)] + [[(0, c), (1, c), (2, c)] for c in range(3)] \
    + [[(0, 0), (1, 1), (2, 2)], [(0, 2), (1, 1), (2, 0)]]
REASONS = ("pair of ints", "off the board", "already over", "already taken")

# The eight symmetries of the square, as maps of (row, col).
SYMMETRIES = {
    "identity": lambda r, c: (r, c),
    "rotate 90": lambda r, c: (c, 2 - r),
    "rotate 180": lambda r, c: (2 - r, 2 - c),
    "rotate 270": lambda r, c: (2 - c, r),
    "mirror left-right": lambda r, c: (r, 2 - c),
    "mirror top-bottom": lambda r, c: (2 - r, c),
    "main diagonal": lambda r, c: (c, r),
    "anti-diagonal": lambda r, c: (2 - c, 2 - r),
}

EXAMPLES_MOVES = 300
EXAMPLES_IMMUTABLE = 150
EXAMPLES_GAMES = 500
EXAMPLES_SYMMETRY = 150
EXAMPLES_BOARDS = 300
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def winner_of(cells: dict) -> int | None:
    """1 or -1 when that side has a line of three; ``None`` otherwise (computed from LINES)."""
    winners = {cells[line[0]] for line in LINES if cells[line[0]] != 0
               and cells[line[0]] == cells[line[1]] == cells[line[2]]}
    assert len(winners) <= 1, "both sides cannot have a line"
    return winners.pop() if winners else None


def cell_map(state: State) -> dict:
    return {(r, c): int(state.board[r, c]) for r, c in CELLS}


def expected_result(state: State) -> int:
    winner = winner_of(cell_map(state))
    if winner is not None:
        return X_WON if winner == X else O_WON
    return DRAW if 0 not in state.cells else ONGOING


def transformed(state: State, symmetry) -> State:
    board = [[0] * 3 for _ in range(3)]
    for (r, c), value in cell_map(state).items():
        tr, tc = symmetry(r, c)
        board[tr][tc] = value
    return State(board, state.player)


# --- strategies -------------------------------------------------------------------------------

def positions(max_moves: int = 9):
    """Positions reached by random legal play from the empty board (some finished)."""
    @st.composite
    def build(draw):
        state = State()
        for choice in draw(st.lists(st.integers(0, 8), max_size=max_moves)):
            legal = state.legal_actions()
            if not legal:
                break
            state = state.children()[legal[choice % len(legal)]]
        return state
    return build()


ints = st.integers(-3, 5)
weird_actions = st.one_of(
    st.tuples(ints, ints),                                    # on or off the board
    st.tuples(ints.map(np.int64), ints.map(np.int64)),        # numpy ints (the course's actions)
    st.tuples(st.floats(allow_nan=True), ints),               # a float
    st.tuples(st.booleans(), st.booleans()),                  # bools are not ints
    st.tuples(ints), st.tuples(ints, ints, ints),             # wrong length
    st.text(max_size=3), st.none(), st.integers(),            # not a pair at all
)


def move_sequences():
    """Random mixes of legal moves (by index into the legal list) and arbitrary actions."""
    return st.lists(st.one_of(st.integers(0, 8).map(lambda i: ("legal", i)),
                              weird_actions.map(lambda a: ("any", a))), max_size=25)


def independently_legal(state: State, action) -> bool:
    """The rules, from the cells: a tuple of two ints (not bools) on the board, on an empty cell,
    in a game that is still going."""
    if not (isinstance(action, tuple) and len(action) == 2):
        return False
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
               for v in action):
        return False
    row, col = int(action[0]), int(action[1])
    on_board = 0 <= row < 3 and 0 <= col < 3
    return on_board and expected_result(state) == ONGOING and cell_map(state)[(row, col)] == 0


# --- legal and illegal moves ----------------------------------------------------------------

@pytest.mark.slow      # the rules' quick tests are in test_core.py
@settings(max_examples=EXAMPLES_MOVES, **SETTINGS)
@given(move_sequences())
def test_illegal_moves_raise_and_change_nothing_legal_moves_play(sequence):
    env = TicTacToe()
    for kind, value in sequence:
        before, before_cells = env.position, env.position.cells
        legal = env.legal_actions(before)
        action = legal[value % len(legal)] if kind == "legal" and legal else value
        if independently_legal(before, action):
            assert env.legal(before, action)
            after, reward = env.move(action)
            cells = cell_map(before)
            cells[(int(action[0]), int(action[1]))] = before.player
            assert cell_map(after) == cells and after.player == -before.player
            assert reward == {X_WON: 1, O_WON: -1}.get(expected_result(after), 0)
            assert env.position is after
        else:
            assert not env.legal(before, action)
            with pytest.raises(ValueError) as caught:
                env.move(action)
            message = str(caught.value)
            assert repr(action) in message and any(reason in message for reason in REASONS)
            with pytest.raises(ValueError):
                env.next_state(before, action)
            assert env.position is before and before.cells == before_cells


# --- states never change ---------------------------------------------------------------------

@settings(max_examples=EXAMPLES_IMMUTABLE, **SETTINGS)
@given(positions(), st.sampled_from(["cells", "player", "end_of_game", "board", "_hash", "new"]))
def test_states_never_change(state, attribute):
    table = {state: "value", (state, (0, 0)): 1.0}
    cells, player, result, key_hash = state.cells, state.player, state.end_of_game, hash(state)
    with pytest.raises(AttributeError):
        setattr(state, attribute, 0)
    with pytest.raises(AttributeError):
        delattr(state, attribute)
    with pytest.raises(ValueError):
        state.board[0, 0] = X
    for twin in (copy.copy(state), copy.deepcopy(state), pickle.loads(pickle.dumps(state)),
                 State(state.board, state.player), State(list(state.cells), state.player)):
        assert twin == state and hash(twin) == key_hash and twin in table
    state.children()
    assert (state.cells, state.player, state.end_of_game, hash(state)) == \
           (cells, player, result, key_hash)
    assert table[state] == "value" and table[(state, (0, 0))] == 1.0


def test_the_board_cannot_be_made_writeable_again():
    state = State([1, 0, 0, 0, 0, 0, 0, 0, 0], O)
    with pytest.raises(ValueError):
        state.board.flags.writeable = True
    with pytest.raises(ValueError):
        state.board.base[4] = O
    assert state.board.tolist() == [[1, 0, 0], [0, 0, 0], [0, 0, 0]]


# --- every game ends, by the rules -----------------------------------------------------------

@pytest.mark.slow
@settings(max_examples=EXAMPLES_GAMES, **SETTINGS)
@given(st.lists(st.integers(0, 8), min_size=9, max_size=9))
def test_every_game_ends_within_nine_moves_with_the_result_the_board_shows(choices):
    env = TicTacToe()
    state, moves = env.reset(), 0
    for choice in choices:
        assert state.end_of_game == expected_result(state) == ONGOING
        legal = env.legal_actions(state)
        assert legal == [cell for cell in CELLS if cell_map(state)[cell] == 0]
        state, reward = env.next_state(state, legal[choice % len(legal)])
        moves += 1
        if env.end_of_game(state):
            break
    assert env.end_of_game(state) and moves <= 9
    result = expected_result(state)
    assert state.end_of_game == result != ONGOING
    assert env.legal_actions(state) == []
    assert reward == {X_WON: 1, O_WON: -1, DRAW: 0}[result]
    marks = list(state.cells)
    assert marks.count(X) - marks.count(O) in (0, 1)
    if result == DRAW:
        assert moves == 9


# --- the eight symmetries ---------------------------------------------------------------------

def test_the_symmetries_are_the_eight_distinct_maps_of_the_square():
    images = {tuple(symmetry(r, c) for r, c in CELLS) for symmetry in SYMMETRIES.values()}
    assert len(images) == 8
    assert all(sorted(image) == CELLS for image in images)
    lines = {frozenset(line) for line in LINES}
    for symmetry in SYMMETRIES.values():
        assert {frozenset(symmetry(r, c) for r, c in line) for line in lines} == lines


@pytest.mark.slow
@settings(max_examples=EXAMPLES_SYMMETRY, **SETTINGS)
@given(positions(), st.sampled_from(sorted(SYMMETRIES)))
def test_symmetries_map_moves_results_and_exact_values_onto_each_other(state, name):
    symmetry = SYMMETRIES[name]
    image = transformed(state, symmetry)
    env = TicTacToe()
    assert image.end_of_game == state.end_of_game
    assert set(env.legal_actions(image)) == {symmetry(*a) for a in env.legal_actions(state)}
    for action in env.legal_actions(state):
        after, reward = env.next_state(state, action)
        assert env.next_state(image, symmetry(*action)) == (transformed(after, symmetry), reward)
    assert minimax_value(image) == minimax_value(state)
    if state.end_of_game == ONGOING:
        assert set(safe_actions(image)) == {symmetry(*a) for a in safe_actions(state)}
    randoms = Random_Agent(X), Random_Agent(O)
    original, mirrored = exact_outcome(*randoms, state=state), exact_outcome(*randoms, state=image)
    assert all(math.isclose(original[k], mirrored[k], abs_tol=1e-12) for k in original)


# --- building states -------------------------------------------------------------------------

boards = st.lists(st.sampled_from([X, O, 0]), min_size=9, max_size=9)


@settings(max_examples=EXAMPLES_BOARDS, **SETTINGS)
@given(boards, st.sampled_from([X, O]))
def test_a_board_in_any_accepted_form_gives_the_same_state(cells, player):
    nested = [cells[0:3], cells[3:6], cells[6:9]]
    forms = [cells, tuple(cells), nested, np.array(nested), np.array(nested, dtype=float),
             np.array(cells, dtype=np.int8), [float(v) for v in cells]]
    states = [State(form, player) for form in forms]
    assert all(s is states[0] for s in states)
    assert states[0].cells == tuple(cells) and states[0].player == player
    assert states[0].board.tolist() == nested


BAD_VALUES = [2, -2, 0.5, float("nan"), float("inf"), "1", "X", True, False, np.bool_(True),
              None, [1], complex(1, 0), b"\x01"]


@settings(max_examples=EXAMPLES_BOARDS, **SETTINGS)
@given(boards, st.integers(0, 8), st.sampled_from(BAD_VALUES))
def test_a_board_with_a_bad_cell_is_refused(cells, where, bad):
    cells = list(cells)
    cells[where] = bad
    with pytest.raises(ValueError, match="board"):
        State(cells)


@pytest.mark.parametrize("board", [
    [0] * 8, [0] * 10, [], [[0, 0], [0, 0]], [[0] * 4] * 3, [[0] * 3] * 2, np.zeros((3, 4)),
    np.zeros((9, 1, 1, 2)), [[0, 0, 0], [0, 0], [0, 0, 0, 0]], "000000000", b"\x00" * 9, 0, {},
    {"board": [0] * 9}, range(1, 10),
], ids=repr)
def test_a_board_of_the_wrong_size_or_kind_is_refused(board):
    with pytest.raises(ValueError, match="board"):
        State(board)


@pytest.mark.parametrize("player", [0, 2, -2, True, False, "X", None, 0.5, [1]])
def test_a_bad_side_to_move_is_refused(player):
    with pytest.raises(ValueError, match="player"):
        State(None, player)
