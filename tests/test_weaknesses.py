"""``weaknesses`` and ``reachable`` against a plain walk written here.

On 3x3, 3x4 k=3 and 4x4 k=3, for a table of each side whose greedy moves are drawn at random: the
weak spots are exactly the positions of the table's reach, the table to move, from which a plain
minimax over the opponent's every move beats it, each with the plies to its nearest loss, nearest
first; from each, the exploiter beats the table in that many plies; ``reachable`` is the reach.
"""

import random

import pytest

from AI_Agent import AI_Agent
from State import O, X
from TicTacToe import TicTacToe
from tests.test_exact_boards import PLIES, SQUARE, WIDE, Plain
from tictactoe_rl.exact.sides import position
from tictactoe_rl.exact.worst import reachable, weaknesses, worst_case
from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape


class Walk(Plain):
    """The plain walk, asking the agents about positions as the game makes them (a 3x3 table is
    keyed by ``State``)."""

    def probs(self, agent, cells: tuple, player: int) -> dict[int, float]:
        asked = agent.action_probs(position(self.shape, cells, player))
        return {row * self.shape.cols + col: p for (row, col), p in asked.items() if p > 0}


def random_table(shape: BoardShape, side: int, seed: int) -> tuple[AI_Agent, set]:
    """A table for ``side`` with a random value for every move of every position its greedy play
    can reach (so its greedy moves are random but fixed), and that reach: the boards (cells) where
    it is to move."""
    agent = AI_Agent(side, TicTacToe(board=shape), train=False)
    rng, plain, reach = random.Random(seed), Walk(shape), set()
    boards, seen = [((0,) * shape.size, X)], set()
    while boards:
        cells, player = boards.pop()
        if (cells, player) in seen or plain.result(cells) is not None:
            continue
        seen.add((cells, player))
        state = position(shape, cells, player)
        if player == side:
            reach.add(cells)
            for action in state.legal_actions():
                agent.Q[(state, action)] = rng.uniform(-1, 1)
            moves = [cell for cell in plain.probs(agent, cells, player)]
        else:
            moves = [cell for cell in range(shape.size) if cells[cell] == 0]
        boards.extend((plain.play(cells, cell, player), -player) for cell in moves)
    return agent, reach


# Both sides on 3x3 and 3x4; on 4x4 k=3 X only (O's walk there is two minutes of the same code).
@pytest.mark.slow
@pytest.mark.parametrize("side, shape", [(X, TIC_TAC_TOE), (O, TIC_TAC_TOE), (X, WIDE), (O, WIDE),
                                         (X, SQUARE)],
                         ids=lambda value: value.name if isinstance(value, BoardShape) else
                         {X: "X", O: "O"}[value])
def test_the_weak_spots_are_the_plain_walks(shape, side):
    agent, reach = random_table(shape, side, seed=shape.size + side)
    plain = Walk(shape)
    score = plain.worst_walk(agent)
    spots, exploiter = weaknesses(agent)
    expected = {cells: score(cells, side) + PLIES for cells in reach if score(cells, side) < 0}
    found = {state.cells: plies for state, plies in spots}
    assert len(found) == len(spots) and found == expected and expected
    assert [plies for _, plies in spots] == sorted(plies for _, plies in spots)
    assert {state.cells for state in reachable(agent)} == reach
    assert (worst_case(agent)[0] < 0) == bool(spots)
    for state, plies in spots:
        cells, player, played = state.cells, side, 0
        while plain.result(cells) is None:
            if player == side:
                cell, = plain.probs(agent, cells, player)
            else:
                row, col = exploiter[position(shape, cells, player)]
                cell = row * shape.cols + col
            cells, player, played = plain.play(cells, cell, player), -player, played + 1
        assert plain.result(cells) == -side and played == plies


def test_a_table_of_perfect_moves_has_no_weak_spot():
    plain, agent = Walk(TIC_TAC_TOE), AI_Agent(O, TicTacToe(), train=False)
    boards, seen = [((0,) * 9, X)], set()
    while boards:                       # every position of the game: O's moves valued by minimax
        cells, player = boards.pop()
        if cells in seen or plain.result(cells) is not None:
            continue
        seen.add(cells)
        moves = [cell for cell in range(9) if cells[cell] == 0]
        for cell in moves if player == O else ():
            action = position(TIC_TAC_TOE, cells, O).legal_actions()[moves.index(cell)]
            agent.Q[(position(TIC_TAC_TOE, cells, O), action)] = \
                -plain.value(plain.play(cells, cell, O), X)
        boards.extend((plain.play(cells, cell, player), -player) for cell in moves)
    spots, exploiter = weaknesses(agent)
    assert spots == [] and worst_case(agent) == (0, None) and len(exploiter) > 0
