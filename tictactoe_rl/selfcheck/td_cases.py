"""Piece 5's hand-made episodes for the SARSA and Q-learning updates, and the values each rule
leaves in them: read by the check (``tictactoe_rl.selfcheck.piece_td``) and by its answer key
(``tictactoe_rl.selfcheck.reference``), which works out what each common mistake would leave."""

from __future__ import annotations

from tictactoe_rl.selfcheck.draw import SYMMETRIES, rng, turned, turned_action
from tictactoe_rl.selfcheck.episodes import board
from State import O, X, State

GAMMA, ALPHA = 0.9, 0.5
# side, episode, values before, values after for SARSA, values after for Q-learning. The first
# table holds a value for a move that is not legal in the next position (an occupied cell): a
# max over every cell, not the legal actions, shows there; in the last, every legal move of the
# next position has a value below 0: a max that starts at 0 shows there.
CASES = [
    (X, [(".O....X..", (2, 2), 0), (".O..O.X.X", (1, 2), 0), ("OO..OXX.X", (0, 2), 1), "OOX.OXX.X"],
     {(".O..O.X.X", (1, 2)): 0.3, (".O..O.X.X", (2, 1)): 0.6, ("OO..OXX.X", (0, 2)): 0.5,
      (".O....X..", (2, 2)): -0.2, (".O..O.X.X", (0, 1)): 0.9},
     [0.035, 0.375, 0.75], [0.17, 0.375, 0.75]),
    (O, [("....X.OX.", (1, 0), 0), ("..XOX.OX.", (0, 0), -1), "O.XOX.OX."],
     {("..XOX.OX.", (0, 0)): 0.1, ("..XOX.OX.", (2, 2)): 0.4, ("....X.OX.", (1, 0)): 0.2},
     [0.145, 0.55], [0.28, 0.55]),
    (O, [("..X..OX..", (0, 1), 0), ("XOX..OX..", (2, 2), 1), "XOX.XOX.O"],
     {("XOX..OX..", (2, 2)): -0.3, ("XOX..OX..", (1, 0)): 0.25},
     [-0.135, -0.65], [0.1125, -0.65]),
    (X, [(".O....X..", (2, 2), 0), (".O..O.X.X", (2, 1), 1), ".O..O.XXX"],
     {(".O....X..", (2, 2)): 0.1, (".O..O.X.X", (0, 0)): -0.2, (".O..O.X.X", (0, 2)): -0.4,
      (".O..O.X.X", (1, 0)): -0.1, (".O..O.X.X", (1, 2)): -0.3, (".O..O.X.X", (2, 1)): -0.5},
     [-0.175, 0.25], [0.005, 0.25]),
]
SARSA, Q_LEARNING = "SARSA_Trainer", "Q_Trainer"
RULES = {SARSA: "r + gamma * Q(s', a') with a' the move played next",
         Q_LEARNING: "r + gamma * max over b of Q(s', b)"}
ALL_CELLS = [(row, column) for row in range(3) for column in range(3)]


def case_of(case: int) -> tuple[int, list, dict]:
    """Hand-made case ``case`` as this run draws it: the learner's side, its steps and the table
    before, turned or mirrored and the values before scaled (``drawn``), so that the values after
    differ from run to run (the listed ones are those of the case as written)."""
    side, raw, before, *_ = CASES[case]
    symmetry, scale = drawn(case)
    steps = [(board(turned(cells, symmetry), side), turned_action(action, symmetry), reward)
             for cells, action, reward in raw[:-1]]
    Q = {(board(turned(cells, symmetry), side), turned_action(action, symmetry)): value * scale
         for (cells, action), value in before.items()}
    return side, steps, Q


def final_of(case: int) -> State:
    """The final position of hand-made case ``case``, as this run draws it."""
    return board(turned(CASES[case][1][-1], drawn(case)[0]))


def drawn(case: int) -> tuple[tuple[int, ...], float]:
    """This run's symmetry of case ``case`` and the factor of its values before (0.8 to 1.25: a
    value below 0 stays below 0, and the order of the values stays as written)."""
    chance = rng(f"td:{case}")
    return chance.choice(SYMMETRIES), round(chance.uniform(0.8, 1.25), 3)
