"""The network's level policy gives exactly what its ``action_probs`` gives, and the walks use it."""

import numpy as np
import pytest
import torch

from State import O, ONGOING, X, all_states
from TicTacToe import TicTacToe
from tictactoe_rl.exact.arena import arena_of
from tictactoe_rl.exact.levels import reach
from tictactoe_rl.exact.sides import StatedPolicy, every_move, side_of
from tictactoe_rl.exact.solver import exact_outcome
from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from tictactoe_rl.neural.agent import BoardDQNAgent, DQNAgent
from tictactoe_rl.neural.network import QNetwork
from tictactoe_rl.positions import result_of
from Random_Agent import Random_Agent

FOUR = BoardShape(4, 4, 4)


def network(shape: BoardShape, seed: int, flat: bool = False) -> QNetwork:
    """A network of random weights (``flat``: every weight 0, so every move ties)."""
    torch.manual_seed(seed)
    made = QNetwork(board=shape).eval()
    if flat:
        with torch.no_grad():
            for weight in made.parameters():
                weight.zero_()
    return made


def agent_of(shape: BoardShape, player: int, seed: int, flat: bool = False) -> DQNAgent:
    kind = DQNAgent if shape == TIC_TAC_TOE else BoardDQNAgent
    return kind(player, TicTacToe(board=shape), network=network(shape, seed, flat))


def ongoing_positions(shape: BoardShape, player: int, count: int, seed: int) -> list[tuple]:
    """Boards of random games, X first, stopped at a random ply with ``player`` to move and the
    game still going."""
    rng, boards = np.random.default_rng(seed), []
    while len(boards) < count:
        cells, order = [0] * shape.size, rng.permutation(shape.size)
        for ply in range(rng.integers(0, shape.size)):
            cells[order[ply]] = X if ply % 2 == 0 else O
        mover = X if sum(1 for v in cells if v) % 2 == 0 else O
        if mover == player and result_of(shape, tuple(cells)) == ONGOING:
            boards.append(tuple(cells))
    return boards


def level_and_stated(agent: DQNAgent, keys: np.ndarray) -> tuple[tuple, tuple]:
    arena = arena_of(agent.env.shape)
    side = side_of(agent, arena)
    assert not isinstance(side, StatedPolicy)
    return side(keys), StatedPolicy(agent, arena)(keys)


@pytest.mark.parametrize("player", [X, O])
@pytest.mark.parametrize("flat", [False, True], ids=["random weights", "all tied"])
def test_3x3_every_position_of_the_side_gets_the_agent_s_own_move(player, flat):
    agent = agent_of(TIC_TAC_TOE, player, seed=3, flat=flat)
    arena = arena_of(TIC_TAC_TOE)
    every = [s for s in all_states() if s.player == player and s.end_of_game == ONGOING]
    keys = np.array([arena.key(state.cells) for state in every], dtype=np.uint64)
    (probs, illegal), (stated, stated_illegal) = level_and_stated(agent, keys)
    assert np.array_equal(probs, stated) and not illegal.any() and not stated_illegal.any()
    levels = reach(arena, 0, X, {player: side_of(agent, arena), -player: every_move(arena)})
    walked = np.concatenate([level.keys[level.going] for level in levels
                             if level.mover == player])
    assert 0 < len(walked) < len(keys) and np.isin(walked, keys).all()


@pytest.mark.parametrize("player", [X, O])
@pytest.mark.parametrize("flat", [False, True], ids=["random weights", "all tied"])
def test_4x4_positions_get_the_agent_s_own_move(player, flat):
    agent = agent_of(FOUR, player, seed=5, flat=flat)
    arena = arena_of(FOUR)
    boards = ongoing_positions(FOUR, player, 400, seed=7 + player)
    keys = np.array([arena.key(cells) for cells in boards], dtype=np.uint64)
    (probs, _), (stated, _) = level_and_stated(agent, keys)
    assert np.array_equal(probs, stated)
    if flat:        # every value tied: the first empty cell, row-major
        assert probs.argmax(1).tolist() == [cells.index(0) for cells in boards]


def test_a_level_larger_than_a_pass_is_cut_into_passes(monkeypatch):
    from tictactoe_rl.neural import level_side
    agent = agent_of(FOUR, X, seed=2)
    arena = arena_of(FOUR)
    keys = np.array([arena.key(cells) for cells in ongoing_positions(FOUR, X, 50, seed=1)],
                    dtype=np.uint64)
    whole = side_of(agent, arena)(keys)[0]
    monkeypatch.setattr(level_side, "CHUNK", 7)
    assert np.array_equal(side_of(agent, arena)(keys)[0], whole)


def test_a_subclass_is_asked_position_by_position():
    class Other(DQNAgent):
        pass

    assert isinstance(side_of(Other(X, network=network(TIC_TAC_TOE, 1)), arena_of(TIC_TAC_TOE)),
                      StatedPolicy)


def test_the_exact_outcome_is_the_one_of_the_stated_policy(monkeypatch):
    agent = agent_of(TIC_TAC_TOE, X, seed=4)
    fast = exact_outcome(agent, Random_Agent(O))
    monkeypatch.setattr(DQNAgent, "level_side", lambda self, arena: None)
    assert exact_outcome(agent, Random_Agent(O)) == fast
