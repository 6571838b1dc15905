"""Piece 5 (bonus): ``Episode.learning_steps``, the SARSA and Q-learning updates, and Nim.

``learning_steps`` is held to seeded random games (as ``Generate_episode`` is); the two updates
to hand-made episodes whose values after the update are written out below; Nim to the AI
course's four ``NimAI`` functions (``nim_piece``).
"""

from __future__ import annotations

from Random_Agent import Random_Agent
from selfcheck import nim_piece, piece_episode
from selfcheck.common import Failure, call, close, fmt
from selfcheck.episodes import board
from State import O, X, symbol
from TicTacToe import TicTacToe

GAMMA, ALPHA = 0.9, 0.5
# side, episode, values before, values after for SARSA, values after for Q-learning
CASES = [
    (X, [(".O....X..", (2, 2), 0), (".O..O.X.X", (1, 2), 0), ("OO..OXX.X", (0, 2), 1), "OOX.OXX.X"],
     {(".O..O.X.X", (1, 2)): 0.3, (".O..O.X.X", (2, 1)): 0.6, ("OO..OXX.X", (0, 2)): 0.5,
      (".O....X..", (2, 2)): -0.2},
     [0.035, 0.375, 0.75], [0.17, 0.375, 0.75]),
    (O, [("....X.OX.", (1, 0), 0), ("..XOX.OX.", (0, 0), -1), "O.XOX.OX."],
     {("..XOX.OX.", (0, 0)): 0.1, ("..XOX.OX.", (2, 2)): 0.4, ("....X.OX.", (1, 0)): 0.2},
     [0.145, 0.55], [0.28, 0.55]),
    (O, [("..X..OX..", (0, 1), 0), ("XOX..OX..", (2, 2), 1), "XOX.XOX.O"],
     {("XOX..OX..", (2, 2)): -0.3, ("XOX..OX..", (1, 0)): 0.25},
     [-0.135, -0.65], [0.1125, -0.65]),
]
RULES = {"SARSA_Trainer": "r + gamma * Q(s', a') with a' the move played next",
         "Q_Trainer": "r + gamma * max over b of Q(s', b)"}


def check(student) -> str:
    check_learning_steps(student)
    for column, module_name in enumerate(RULES):
        check_update(student, module_name, column)
    nim_piece.check_nim(student.module("nim.nim"))
    return "learning_steps, SARSA, Q-learning and Nim"


def check_learning_steps(student) -> None:
    episode = student.module("Episode")
    for game in range(piece_episode.GAMES):
        env = TicTacToe()
        x_agent = Random_Agent(X, env, seed=f"check:steps:{game}")
        o_agent = Random_Agent(O, env, seed=f"check:steps:{-game}")
        moves, final = episode.play_game(x_agent, o_agent, env)
        for side in (X, O):
            log = [(piece_episode.LEARNER if state.player == side else piece_episode.OPPONENT,
                    state, action, None) for state, action, _ in moves]
            steps = call("Episode.learning_steps", episode.learning_steps, list(moves), side)
            if not isinstance(steps, list):
                raise Failure("Episode.learning_steps must return a list of steps, got "
                              f"{type(steps).__name__}")
            if steps and isinstance(steps[-1], tuple) and len(steps[-1]) == 1:
                raise Failure("Episode.learning_steps returns the steps alone: the final "
                              "position is not one of them (Generate_episode adds (final,))")
            try:
                piece_episode.compare(steps + [(final,)], log, side, None,
                                      what="Episode.learning_steps")
            except Failure as failure:
                raise Failure(f"Episode.learning_steps(moves, side={side}), the learner playing "
                              f"{symbol(side)}: {failure}") from None


def check_update(student, module_name: str, column: int) -> None:
    name = f"{module_name}.update"
    update = student.module(module_name).update
    for side, raw, before, *after in CASES:
        *steps, final = raw
        episode = [(board(cells, side), action, reward) for cells, action, reward in steps]
        Q = {(board(cells, side), action): value for (cells, action), value in before.items()}
        call(name, update, Q, list(episode), board(final), side, GAMMA, ALPHA)
        for number, ((state, action, _), value) in enumerate(zip(episode, after[column]), 1):
            got = Q.get((state, action), 0.0)
            if not close(got, value):
                raise Failure(f"{name} on a hand-made {len(steps)}-step episode ({symbol(side)} "
                              f"learns, gamma {GAMMA}, alpha {ALPHA}): Q of step {number} should "
                              f"be {value:.6g}, got {fmt(got)} -- the target is "
                              f"{RULES[module_name]} (just r at the last step), the rewards are "
                              "X's (negated for O), and the steps are updated in order")
