"""Piece 5 (bonus): ``Episode.learning_steps``, the SARSA and Q-learning updates, and Nim.

``learning_steps`` is held to seeded random games (as ``Generate_episode`` is); the two updates
to hand-made episodes whose values after the update are written out below, and a wrong table is
compared with what each common mistake gives, so that its hint names the mistake; Nim to the AI
course's four ``NimAI`` functions (``nim_piece``). The check is written as ``check(ask)``: the
student's process answers its questions (``gather``), the judging process judges the answers
(``judge``, ``tictactoe_rl.selfcheck.asked``) and never runs the student's code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from Random_Agent import Random_Agent
from tictactoe_rl.selfcheck import asked, draw, nim_piece, piece_episode
from tictactoe_rl.selfcheck.asked import Asking, Replaying
from tictactoe_rl.selfcheck.common import Failure, call, close, fmt
from tictactoe_rl.selfcheck.td_cases import (ALPHA, CASES, GAMMA, Q_LEARNING, RULES,
                                             SARSA, case_of, final_of)
from State import O, ONGOING, X, State, symbol
from TicTacToe import TicTacToe

if TYPE_CHECKING:
    from tictactoe_rl.selfcheck.student import Student

# The ways an update goes wrong that the cases tell apart, and what to say about each.
CORRECT = "correct"
MISTAKES = {
    "reversed": "the steps must be updated first to last: walked from the last step, each "
                "target reads a next value that this episode's update has already changed",
    "own pair": "the next value is read from the step's own (state, action): it belongs to the "
                "next step, steps[k + 1] (an index off by one)",
    "no negation": "the learner plays O here: its reward is side times X's reward (negate it)",
    "negated target": "only the reward is negated for O (side * reward): the Q-values are "
                      "already the learner's own, so gamma * Q(next) is added as it is",
    "discounted end": "the last step's target is the learner's reward alone: no gamma there "
                      "(there is no next step to discount)",
    "other rule": {SARSA: "that is Q-learning's target (the best next move): SARSA uses Q of "
                          "the move the learner really played next, steps[k + 1]'s (state, "
                          "action)",
                   Q_LEARNING: "that is SARSA's target (the move played next): Q-learning takes "
                               "the largest Q over the legal actions of the next state"},
    "illegal moves": "the max counted a move that is not legal in the next state (an occupied "
                     "cell): take it over next_state.legal_actions() only",
    "max from 0": "the max gave 0, but every legal move of the next state is known and worth "
                  "less: did the search for the largest value start at 0? Start from the first "
                  "move's value (or -infinity)",
}


def check(ask: Callable[[list], dict]) -> str:
    """The verdict on piece 5, asking the student's code through ``ask``."""
    check_learning_steps(ask)
    for rule in RULES:
        check_update(ask, rule)
    nim_piece.judge_nim(ask)
    return "learning_steps, SARSA, Q-learning and Nim"


def gather(student: Student) -> list:
    """In the student's process: ``check`` with the student's code answering; its answers."""
    asking = Asking(lambda question: answer(student, question))
    check(asking)
    return asking.answers


def judge(answers: object) -> str:
    """In the judging process: ``check`` on the answers the student's process sent."""
    return check(Replaying(answers))


def answer(student: Student, question: list) -> object:
    """The student's code on one question of ``check`` (in the student's process only)."""
    if question[0] == "learning_steps":
        _, game, side = question
        moves, _ = seeded_game(game)
        episode = student.module("Episode")
        return call("Episode.learning_steps", episode.learning_steps, list(moves), side)
    if question[0] == "update":
        _, rule, case = question
        side, steps, Q = case_of(case)
        call(f"{rule}.update", student.module(rule).update, Q, list(steps),
             final_of(case), side, GAMMA, ALPHA)
        return [Q.get((state, action), 0.0) for state, action, _ in steps]
    return nim_piece.answer(student.module("nim.nim"), question)


def seeded_game(game: int) -> tuple[list, State]:
    """Seeded random game ``game``: its moves ``(state before, action, X's reward)`` and its
    final position (played here, by the rules, with the project's random agents)."""
    env = TicTacToe()
    agents = {X: Random_Agent(X, env, seed=f"check:steps:{game}:{draw.RUN}"),
              O: Random_Agent(O, env, seed=f"check:steps:{-game}:{draw.RUN}")}
    state, moves = State(), []
    while state.end_of_game == ONGOING:
        action = agents[state.player].get_action(state)
        after, reward = env.next_state(state, action)
        moves.append((state, action, reward))
        state = after
    return moves, state


def check_learning_steps(ask) -> None:
    for game in range(piece_episode.GAMES):
        moves, final = seeded_game(game)
        for side in (X, O):
            log = [(piece_episode.LEARNER if state.player == side else piece_episode.OPPONENT,
                    state, action, None) for state, action, _ in moves]
            steps = asked.value(ask(["learning_steps", game, side]))
            if not isinstance(steps, list):
                got = repr(steps) if isinstance(steps, asked.Shown) else type(steps).__name__
                raise Failure(f"Episode.learning_steps must return a list of steps, got {got}")
            if steps and isinstance(steps[-1], tuple) and len(steps[-1]) == 1:
                raise Failure("Episode.learning_steps returns the steps alone: the final "
                              "position is not one of them (Generate_episode adds (final,))")
            try:
                piece_episode.compare(steps + [(final,)], log, side, None,
                                      what="Episode.learning_steps")
            except Failure as failure:
                raise Failure(f"Episode.learning_steps(moves, side={side}), the learner playing "
                              f"{symbol(side)}: {failure}") from None


def check_update(ask, rule: str) -> None:
    from tictactoe_rl.selfcheck.reference import td_values   # loaded by the judge, never by the student
    name = f"{rule}.update"
    for case, (side, *_) in enumerate(CASES):
        wanted = td_values(rule, CORRECT, case)      # this run's case: drawn, not the listed one
        got = asked.value(ask(["update", rule, case]))
        if not (isinstance(got, list) and len(got) == len(wanted)):
            raise asked.not_an_answer()
        wrong = [number for number, (value, want) in enumerate(zip(got, wanted), 1)
                 if not close(value, want)]
        if not wrong:
            continue
        number = wrong[0]
        shown = fmt(got[number - 1])
        found = mistake(rule, case, got)
        if found is not None:
            why = MISTAKES[found] if isinstance(MISTAKES[found], str) else MISTAKES[found][rule]
        elif wrong == [len(wanted)]:
            why = MISTAKES["discounted end"]
        else:
            why = (f"the target is {RULES[rule]} (just r at the last step), the rewards are "
                   "X's (negated for O), and the steps are updated in order")
        raise Failure(f"{name} on a hand-made {len(wanted)}-step episode ({symbol(side)} "
                      f"learns, gamma {GAMMA}, alpha {ALPHA}): Q of step {number} should "
                      f"be {wanted[number - 1]:.6g}, got {shown} -- {why}")


def mistake(rule: str, case: int, got: list) -> str | None:
    """The mistake whose update gives the values ``got`` on ``case``, among those that give the
    right values on the cases before it (which the student's update passed)."""
    from tictactoe_rl.selfcheck.reference import td_values   # only once the student's code has run

    def same(a: list, b: list) -> bool:
        return all(close(x, y) for x, y in zip(a, b))

    return next((model for model in MISTAKES
                 if all(same(td_values(rule, model, earlier), td_values(rule, CORRECT, earlier))
                        for earlier in range(case))
                 and not same(td_values(rule, model, case), td_values(rule, CORRECT, case))
                 and same(got, td_values(rule, model, case))), None)
