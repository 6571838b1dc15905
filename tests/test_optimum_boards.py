"""The best replies on bigger boards (``Tester.py --optimum --board``) against a brute force.

The brute force here is written over plain tuples of cells, apart from the engine: a recursive
minimax for perfect play, and a recursive expectimax in which the responder maximises
P(win) - P(loss) (when unbeatable, only among the moves that keep its perfect-play result) and
the opponent plays as its own ``action_probs`` says. ``best_response`` must reach the same result
to 1e-12, on whole boards small enough to brute-force (3x3, 3x4 k=3) and from positions part of
the way into 4x4 k=3 and 4x4 k=4; its policy must get that result when it plays, and its
unbeatable policy must keep perfect play's result against every opponent (``worst_case``)."""

from functools import lru_cache

import pytest

from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced
from State import EMPTY, O, X, State
from TicTacToe import TicTacToe
from tictactoe_rl.exact.optimum import optimum_report
from tictactoe_rl.exact.solver import best_response
from tictactoe_rl.exact.worst import worst_case
from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from tictactoe_rl.positions import intern, start_position

OPPONENTS = {"random": Random_Agent, "advanced": Random_Agent_Advanced}
TIE = 1e-9      # scores this close are one score: the first move in row-major order is taken


class Brute:
    """Perfect play and best replies on ``shape`` by plain recursion over tuples of cells."""

    def __init__(self, shape: BoardShape) -> None:
        self.shape = shape
        self.value = lru_cache(maxsize=None)(self._value)

    def position(self, cells: tuple, player: int) -> State:
        return State(cells, player) if self.shape == TIC_TAC_TOE else \
            intern(self.shape, cells, player)

    def winner(self, cells: tuple) -> int | None:
        """X or O when one of them holds a whole line, 0 for a full board, else None."""
        for line in self.shape.win_lines:
            mark = cells[line[0]]
            if mark != EMPTY and all(cells[i] == mark for i in line):
                return mark
        return None if EMPTY in cells else 0

    def moves(self, cells: tuple, player: int) -> list[tuple[int, tuple]]:
        """``(cell index, cells after it)`` for every empty cell, in row-major order."""
        return [(i, cells[:i] + (player,) + cells[i + 1:])
                for i, mark in enumerate(cells) if mark == EMPTY]

    def _value(self, cells: tuple, player: int) -> int:
        """Perfect play's result from X's view: plain minimax."""
        end = self.winner(cells)
        if end is not None:
            return end
        values = [self.value(after, -player) for _, after in self.moves(cells, player)]
        return max(values) if player == X else min(values)

    def reply(self, opponent, cells: tuple, choose) -> tuple[float, float, float]:
        """(P(win), P(loss), P(draw)) of the responder (``-opponent.player``) from ``cells``
        with the side to move that the number of marks says; ``choose(cells, moves, walk)``
        gives the outcome of the responder's choice among ``moves`` (index, cells after),
        ``walk(cells after, side to move)`` giving the outcome of one."""
        me, memo = -opponent.player, {}
        index = {cell: i for i, cell in enumerate(self.shape.cells)}

        def walk(cells: tuple, player: int) -> tuple[float, float, float]:
            if cells in memo:
                return memo[cells]
            end = self.winner(cells)
            if end is not None:
                result = (float(end == me), float(end == -me), float(end == 0))
            elif player == me:
                result = choose(cells, self.moves(cells, player), walk)
            else:
                probs = opponent.action_probs(self.position(cells, player))
                result = (0.0, 0.0, 0.0)
                for action, p in probs.items():
                    i = index[action]
                    after = walk(cells[:i] + (player,) + cells[i + 1:], -player)
                    result = tuple(r + p * a for r, a in zip(result, after))
            memo[cells] = result
            return result
        return walk(cells, self.to_move(cells))

    @staticmethod
    def to_move(cells: tuple) -> int:
        return X if cells.count(X) == cells.count(O) else O

    def best(self, opponent, cells: tuple, unbeatable: bool) -> tuple[float, float, float]:
        """The best reply's outcome: the highest P(win) - P(loss), the first such move."""
        me = -opponent.player

        def choose(cells, moves, walk):
            if unbeatable:
                keep = self.value(cells, me) * me
                moves = [m for m in moves if self.value(m[1], -me) * me == keep]
            options = [(i, after, walk(after, -me)) for i, after in moves]
            top = max(win - loss for _, _, (win, loss, _) in options)
            return next(out for _, _, out in options if out[0] - out[1] >= top - TIE)
        return self.reply(opponent, cells, choose)

    def following(self, opponent, cells: tuple, policy) -> tuple[float, float, float]:
        """The outcome when the responder plays ``policy``'s move, and only it, everywhere."""
        me, index = -opponent.player, {cell: i for i, cell in enumerate(self.shape.cells)}

        def choose(cells, moves, walk):
            move = index[policy[self.position(cells, me)]]
            return walk(next(after for i, after in moves if i == move), -me)
        return self.reply(opponent, cells, choose)


class Policy_Player:
    """A ``{position: move}`` policy as an agent: only the positions it covers."""

    def __init__(self, player: int, policy) -> None:
        self.player, self.policy = player, policy

    def action_probs(self, state) -> dict:
        return {self.policy[state]: 1.0}


def played(shape: BoardShape, moves: str) -> State:
    """The position after ``moves`` ("r,c r,c ...") from the empty board of ``shape``."""
    state = start_position(shape)
    for move in moves.split():
        state = state.children()[tuple(int(n) for n in move.split(","))]
    return state


def check_against_brute_force(shape: BoardShape, moves: str, side: int, opponent_name: str,
                              unbeatable: bool) -> None:
    start = played(shape, moves)
    brute = Brute(shape)
    opponent = OPPONENTS[opponent_name](-side, TicTacToe(board=shape))
    outcome, policy = best_response(opponent, unbeatable=unbeatable, state=start)
    wins, losses = (outcome["x_wins"], outcome["o_wins"]) if side == X else \
        (outcome["o_wins"], outcome["x_wins"])
    engine = (wins, losses, outcome["draws"])
    expected = brute.best(opponent, start.cells, unbeatable)
    assert engine == pytest.approx(expected, abs=1e-12, rel=0)
    # the policy returned gets that result when it plays, and covers every position it meets
    assert brute.following(opponent, start.cells, policy) == pytest.approx(expected, abs=1e-12,
                                                                             rel=0)
    if unbeatable:   # no opponent gets more from it than perfect play's result allows
        keep = brute.value(start.cells, start.player) * side
        assert worst_case(Policy_Player(side, policy), state=start)[0] == keep


CASES = [(side, opponent, unbeatable) for opponent in OPPONENTS for side in (X, O)
         for unbeatable in (False, True)]


@pytest.mark.parametrize("side, opponent, unbeatable", CASES)
def test_3x3_from_the_empty_board(side, opponent, unbeatable):
    check_against_brute_force(TIC_TAC_TOE, "", side, opponent, unbeatable)


@pytest.mark.slow
def test_the_report_on_3x4_is_the_brute_force():
    shape = BoardShape(3, 4, 3)
    brute, start = Brute(shape), start_position(shape)
    words = {1: "X wins", 0: "draw", -1: "O wins"}[brute.value(start.cells, X)]
    printed = optimum_report(shape).splitlines()
    assert printed[0] == f"perfect play from the empty board of 3x4 k=3: {words}"
    rows = {line[:28].strip(): tuple(float(n) for n in line[28:].split()) for line in printed[2:]}
    assert len(rows) == len(CASES)
    for side, opponent, unbeatable in CASES:
        label = f"{'X' if side == X else 'O'} vs {opponent}" + (", unbeatable" if unbeatable else "")
        expected = brute.best(OPPONENTS[opponent](-side, TicTacToe(board=shape)), start.cells,
                              unbeatable)
        assert rows[label] == tuple(round(share, 6) for share in expected), label


@pytest.mark.slow
@pytest.mark.parametrize("side, opponent, unbeatable", CASES)
def test_3x4_from_the_empty_board(side, opponent, unbeatable):
    check_against_brute_force(BoardShape(3, 4, 3), "", side, opponent, unbeatable)


# Positions part of the way into the 4x4 games (the whole of them is too much for a brute force),
# with X to move and with O to move
MIDGAMES = [(BoardShape(4, 4, 3), "1,1 2,2 0,3 3,0 1,2"), (BoardShape(4, 4, 3), "0,0 1,1 3,3 2,1"),
            (BoardShape(4, 4, 4), "0,0 1,1 0,1 1,2 2,1 0,2"),
            (BoardShape(4, 4, 4), "1,1 2,2 1,2 2,1 0,3")]


@pytest.mark.slow
@pytest.mark.parametrize("shape, moves", MIDGAMES)
@pytest.mark.parametrize("side, opponent, unbeatable", CASES)
def test_4x4_from_a_position_part_of_the_way_in(shape, moves, side, opponent, unbeatable):
    check_against_brute_force(shape, moves, side, opponent, unbeatable)
