"""A table's moves for a whole level at once (``tictactoe_rl.exact.greedy_tables``) are the moves
its agent's ``action_probs`` gives position by position: ties, missing values and negative zeros
included, for a table read from its file. An agent that may play otherwise, and a table being
trained, are asked position by position."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from AI_Agent import AI_Agent
from Random_Agent import Random_Agent
from State import O, X
from TicTacToe import TicTacToe
from tests.test_exact_arena import random_positions
from tictactoe_rl.exact.arena import arena_of
from tictactoe_rl.exact.greedy_tables import greedy_table_side
from tictactoe_rl.exact.sides import StatedPolicy, side_of
from tictactoe_rl.exact.solver import exact_outcome
from tictactoe_rl.geometry import BoardShape
from tictactoe_rl.positions import intern

ROOT = Path(__file__).resolve().parent.parent
SHAPES = [BoardShape(3, 4, 3), BoardShape(4, 4, 4), BoardShape(4, 5, 4)]
# few values, so that ties are common; -0.0 ties with a missing value's 0
VALUES = (-1.0, -0.5, -0.0, 0.0, 0.5, 1.0)


def going(shape: BoardShape, side: int, seed: int) -> list[tuple[int, ...]]:
    """Positions of a game still going with ``side`` to move."""
    boards = random_positions(shape, 600, seed)
    arena = arena_of(shape)
    results = arena.results(np.array([arena.key(cells) for cells in boards], dtype=np.uint64))
    return sorted({cells for cells, result in zip(boards, results)
                   if result == 0 and (sum(cells) == 0) == (side == X)})


def random_table(shape: BoardShape, side: int, boards, seed: int) -> dict:
    """Values for some of the legal moves of most of ``boards`` (none for the others)."""
    rng, table = np.random.default_rng(seed), {}
    for cells in boards:
        if rng.random() < 0.2:
            continue
        state = intern(shape, cells, side)
        moves = state.legal_actions()
        for at in rng.choice(len(moves), rng.integers(0, len(moves) + 1), replace=False):
            table[state, moves[at]] = float(rng.choice(VALUES))
    return table


def loaded(table: dict, shape: BoardShape, side: int, folder) -> AI_Agent:
    """The agent of ``table`` after a save and a load, as Tester.py plays a file."""
    saving = AI_Agent(side, TicTacToe(board=shape), train=False)
    saving.Q = table
    path = str(folder / f"{shape.name}-{side}.pth".replace(" ", ""))
    saving.save_Q(path)
    return AI_Agent(side, TicTacToe(board=shape), Q_table_PATH=path, train=False)


def keys_of(shape: BoardShape, boards) -> np.ndarray:
    arena = arena_of(shape)
    return np.array(sorted(arena.key(cells) for cells in boards), dtype=np.uint64)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.name)
@pytest.mark.parametrize("side", [X, O], ids=["X", "O"])
def test_a_tables_moves_are_its_agents_moves(shape, side, tmp_path):
    boards = going(shape, side, seed=shape.size + side)
    agent = loaded(random_table(shape, side, boards, seed=shape.size), shape, side, tmp_path)
    assert type(agent.Q) is not dict       # the file's table, read when asked
    arena, keys = arena_of(shape), keys_of(shape, boards)
    probs, illegal = greedy_table_side(agent, arena)(keys)
    expected, expected_illegal = StatedPolicy(agent, arena)(keys)
    assert len(boards) > 50 and np.array_equal(probs, expected)
    assert not illegal.any() and not expected_illegal.any()


def test_a_whole_walk_gives_what_the_walk_position_by_position_gives(tmp_path):
    shape = BoardShape(3, 4, 3)
    fast = loaded(random_table(shape, X, going(shape, X, seed=11), seed=5), shape, X, tmp_path)

    class AskedOneByOne(AI_Agent):
        """The same agent, which the level side leaves to ``StatedPolicy``."""

    env = TicTacToe(board=shape)
    slow = AskedOneByOne(X, env, train=False)
    slow.Q = fast.Q
    assert greedy_table_side(slow, arena_of(shape)) is None
    assert exact_outcome(fast, Random_Agent(O, env)) == exact_outcome(slow, Random_Agent(O, env))


def test_an_agent_that_may_play_otherwise_is_asked_position_by_position(tmp_path):
    shape = BoardShape(4, 4, 4)
    arena = arena_of(shape)
    table = random_table(shape, X, going(shape, X, seed=2), seed=2)
    agent = loaded(table, shape, X, tmp_path)
    assert greedy_table_side(agent, arena) is not None
    agent.action_probs = lambda state: AI_Agent.action_probs(agent, state)   # a wrapper
    assert isinstance(side_of(agent, arena), StatedPolicy)

    agent = loaded(table, shape, X, tmp_path)
    agent.Q[next(iter(table))] = 0.25                 # changed since the file was read
    assert greedy_table_side(agent, arena) is None
    training = AI_Agent(X, TicTacToe(board=shape))
    training.Q = dict(table)                          # a table being trained
    assert isinstance(side_of(training, arena), StatedPolicy)
    other = loaded(table, shape, X, tmp_path)
    assert greedy_table_side(other, arena_of(BoardShape(4, 4, 3))) is None   # another board's


def test_the_exact_tools_never_import_the_chapters_agent():
    """In the students' version AI_Agent.py is the student's own file: the self-check's judge,
    which walks with these tools, must not run it by importing them."""
    done = subprocess.run([sys.executable, "-c", "import sys, tictactoe_rl.exact.solver, "
                           "tictactoe_rl.exact.worst, tictactoe_rl.exact.opponents; "
                           "print(sorted({'AI_Agent', 'MC_Trainer'} & set(sys.modules)))"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr
