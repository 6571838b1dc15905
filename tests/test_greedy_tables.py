"""A Q-table's moves for a whole level at once (``tictactoe_rl.exact.greedy_tables``) are the
moves its agent's ``action_probs`` gives position by position: ties, missing values, negative
zeros and entries of the other side included, from a dict or a table read from its file. An agent
that may play otherwise is asked position by position."""

import numpy as np
import pytest

from AI_Agent import AI_Agent
from State import O, X
from TicTacToe import TicTacToe
from tests.test_exact_arena import random_positions
from tictactoe_rl.exact.arena import arena_of
from tictactoe_rl.exact.greedy_tables import greedy_table_side
from tictactoe_rl.exact.sides import StatedPolicy, side_of
from tictactoe_rl.exact.solver import exact_outcome
from tictactoe_rl.geometry import BoardShape
from tictactoe_rl.positions import intern
from Random_Agent import Random_Agent

SHAPES = [BoardShape(3, 4, 3), BoardShape(4, 4, 4), BoardShape(4, 5, 4)]
# few values, so that ties are common; -0.0 ties with a missing value's 0
VALUES = (-1.0, -0.5, -0.0, 0.0, 0.5, 1.0)


def going(shape: BoardShape, side: int, seed: int) -> list[tuple[int, ...]]:
    """Positions of a game still going with ``side`` to move."""
    boards = random_positions(shape, 600, seed)
    arena = arena_of(shape)
    keys = np.array([arena.key(cells) for cells in boards], dtype=np.uint64)
    results = arena.results(keys)
    return sorted({cells for cells, result in zip(boards, results)
                   if result == 0 and (sum(cells) == 0) == (side == X)})


def random_table(shape: BoardShape, side: int, boards, seed: int) -> dict:
    """Values for some legal moves of most ``boards`` (none for the others), a few for occupied
    cells (never asked), and entries of the other side's positions."""
    rng, table = np.random.default_rng(seed), {}
    for cells in boards:
        for player in (side, -side):
            if rng.random() < 0.2 or player != side and rng.random() < 0.7:
                continue
            state = intern(shape, cells, player)
            for cell in rng.choice(shape.size, rng.integers(0, shape.size + 1), replace=False):
                table[state, shape.cell(int(cell))] = float(rng.choice(VALUES))
    return table


def savable(table: dict, side: int) -> dict:
    """The entries a file may hold: legal moves of ``side``'s positions."""
    return {(state, move): value for (state, move), value in table.items()
            if state.player == side and move in state.legal_actions()}


def agent_with(table: dict, shape: BoardShape, side: int) -> AI_Agent:
    agent = AI_Agent(side, TicTacToe(board=shape), train=False)
    agent.Q = table
    return agent


def asked(agent, shape: BoardShape, boards) -> tuple[np.ndarray, np.ndarray]:
    """The level side's answer and the position-by-position one, for ``boards``."""
    arena = arena_of(shape)
    keys = np.array(sorted(arena.key(cells) for cells in boards), dtype=np.uint64)
    side = greedy_table_side(agent, arena)
    assert side is not None
    return side(keys), StatedPolicy(agent, arena)(keys)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.name)
@pytest.mark.parametrize("side", [X, O], ids=["X", "O"])
def test_a_dicts_moves_are_its_agents_moves(shape, side):
    boards = going(shape, side, seed=shape.size + side)
    agent = agent_with(random_table(shape, side, boards, seed=shape.size), shape, side)
    (probs, illegal), (expected, expected_illegal) = asked(agent, shape, boards)
    assert len(boards) > 50 and np.array_equal(probs, expected)
    assert not illegal.any() and not expected_illegal.any()


@pytest.mark.parametrize("side", [X, O], ids=["X", "O"])
def test_a_table_read_from_its_file_plays_as_the_dict_did(side, tmp_path):
    shape = BoardShape(4, 4, 4)
    boards = going(shape, side, seed=7 + side)
    saved = agent_with(savable(random_table(shape, side, boards, seed=3), side), shape, side)
    saved.save_Q(str(tmp_path / "t.pth"))
    loaded = AI_Agent(side, TicTacToe(board=shape), Q_table_PATH=str(tmp_path / "t.pth"),
                      train=False)
    assert type(loaded.Q) is not dict      # the file's table, read when asked
    (probs, _), (expected, _) = asked(loaded, shape, boards)
    assert np.array_equal(probs, expected)
    assert np.array_equal(asked(saved, shape, boards)[0][0], probs)


def test_a_whole_walk_gives_what_the_walk_position_by_position_gives():
    shape = BoardShape(3, 4, 3)
    boards = going(shape, X, seed=11)
    table = random_table(shape, X, boards, seed=5)

    class AskedOneByOne(AI_Agent):
        """The same agent, which the level side leaves to ``StatedPolicy``."""

    env = TicTacToe(board=shape)
    fast, slow = agent_with(table, shape, X), AskedOneByOne(X, env, train=False)
    slow.Q = table
    assert greedy_table_side(slow, arena_of(shape)) is None
    assert exact_outcome(fast, Random_Agent(O, env)) == exact_outcome(slow, Random_Agent(O, env))


def test_an_agent_that_may_play_otherwise_is_asked_position_by_position(tmp_path):
    shape = BoardShape(4, 4, 4)
    arena = arena_of(shape)
    table = random_table(shape, X, going(shape, X, seed=2), seed=2)
    counted = agent_with(dict(table), shape, X)
    counted.action_probs = lambda state: AI_Agent.action_probs(counted, state)  # a wrapper
    assert isinstance(side_of(counted, arena), StatedPolicy)
    first = next(iter(table))
    for odd in (1, float("nan"), float("inf")):       # a lookup compares these as they are
        assert greedy_table_side(agent_with({**table, first: odd}, shape, X), arena) is None
    assert greedy_table_side(agent_with({"not a key": 1.0}, shape, X), arena) is None
    assert greedy_table_side(agent_with(table, BoardShape(4, 4, 3), X),
                             arena_of(BoardShape(4, 4, 3))) is None      # another board's
    agent_with(savable(table, X), shape, X).save_Q(str(tmp_path / "t.pth"))
    loaded = AI_Agent(X, TicTacToe(board=shape), Q_table_PATH=str(tmp_path / "t.pth"),
                      train=False)
    assert greedy_table_side(loaded, arena) is not None
    loaded.Q[first] = 0.25                             # changed since the file was read
    assert greedy_table_side(loaded, arena) is None
    assert greedy_table_side(agent_with({}, BoardShape(3, 3, 3), X),
                             arena_of(BoardShape(3, 3, 3))) is None      # 3x3: milliseconds
