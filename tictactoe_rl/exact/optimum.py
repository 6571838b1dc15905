"""The best results any policy can reach against ``random`` and ``advanced``, exactly
(``python Tester.py --optimum``, on any board whose whole game fits in memory)."""

from __future__ import annotations

import numpy as np

from State import O, X, symbol
from TicTacToe import TicTacToe
from tictactoe_rl.exact.arena import arena_of
from tictactoe_rl.exact.levels import TooLarge
from tictactoe_rl.exact.opponents import OPPONENTS
from tictactoe_rl.exact.progress import walk_progress
from tictactoe_rl.exact.sides import solved
from tictactoe_rl.exact.solver import best_response, side_result
from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from tictactoe_rl.positions import start_position

RANDOM_OPPONENTS = ("random", "advanced")   # the perfect player's best reply is perfect play
VALUE_WORDS = {1: "X wins", 0: "draw", -1: "O wins"}


def perfect_value(board: BoardShape) -> int:
    """Perfect play's result from the empty board of ``board``, from X's view (1, 0, -1)."""
    start = start_position(board)
    key = arena_of(board).key(start.cells)
    return int(solved(board).value(np.array([key], dtype=np.uint64))[0])


def optimum_report(board: BoardShape = TIC_TAC_TOE) -> str:
    """Perfect play's result on ``board``, then the best possible results against ``random``
    and ``advanced`` for X and for O, with and without the restriction to policies that can
    never lose (they keep perfect play's result in every position), exactly. A walk longer than a
    second shows its progress on standard error; a board whose game does not fit in memory is a
    one-line ``ValueError``. (3x3's figures are pinned in tests/test_solver.py.)"""
    try:
        return "\n".join(report_lines(board))
    except TooLarge as error:
        raise ValueError(f"--optimum: {error}") from None


def report_lines(board: BoardShape) -> list[str]:
    """``optimum_report``'s lines."""
    on = "" if board == TIC_TAC_TOE else f" of {board.name}"
    lines = [f"perfect play from the empty board{on}: {VALUE_WORDS[perfect_value(board)]}",
             f"{'best reply':28}{'wins':>10}{'losses':>10}{'draws':>10}"]
    env = TicTacToe(board=board)
    for name in RANDOM_OPPONENTS:
        for side in (X, O):
            for unbeatable in (False, True):
                label = f"{symbol(side)} vs {name}" + (", unbeatable" if unbeatable else "")
                with walk_progress(label) as progress:
                    outcome, _ = best_response(OPPONENTS[name](-side, env),
                                               unbeatable=unbeatable, progress=progress)
                wins, losses, draws = side_result(outcome, side)
                lines.append(f"{label:28}{wins:>10.6f}{losses:>10.6f}{draws:>10.6f}")
    return lines
