"""Piece 5's Nim part: the four ``NimAI`` functions the AI course's students write
(``get_q_value``, ``update_q_value``, ``best_future_reward``, ``choose_action``), checked on
hand-made cases whose answers are written out below. Each check asks the student's code its
questions through ``ask`` (``tictactoe_rl.selfcheck.asked``: answered in the student's process, judged in
another) and raises ``Failure`` with a hint that names the mistake."""

from __future__ import annotations

import random
from types import ModuleType
from typing import Callable

from tictactoe_rl.selfcheck import asked
from tictactoe_rl.selfcheck.common import Failure, call, close, fmt

START = (1, 3, 5, 7)
START_MOVES = 16           # the moves available in 1 3 5 7

# --- get_q_value -------------------------------------------------------------------------------
KNOWN = {((1, 3, 5, 7), (3, 2)): 0.7, ((0, 2, 5, 7), (1, 1)): -0.3}

# --- update_q_value ----------------------------------------------------------------------------
# What a wrong update stores instead, and what that says about it.
FUTURE_LEFT_OUT = "future_rewards is missing: the new estimate is reward + future_rewards"
FUTURE_SUBTRACTED = "future_rewards was subtracted: the new estimate is reward PLUS future_rewards"
OLD_LEFT_OUT = ("old_q is missing, or was read from self.q instead of taken from the argument "
                "old_q: the step starts from old_q")
OLD_NOT_SUBTRACTED = ("the step is alpha times (the new estimate MINUS old_q); here old_q was "
                      "not subtracted")
ALPHA_LEFT_OUT = ("the value jumped all the way to reward + future_rewards: the step goes only a "
                  "share alpha of the way")
ALPHA_FIXED = "that is what alpha 0.5 gives: use self.alpha, this AI's own learning rate"
ONE_MINUS_ALPHA = "that is a step of 1 - alpha of the way instead of alpha"
OTHER_KEY = ((1, 3, 5, 7), (0, 1))     # already in self.q: it must stay as it is
OTHER_VALUE = 0.9
UPDATE_STATE, UPDATE_ACTION = [0, 2, 5, 7], (2, 4)
UPDATE_KEY = ((0, 2, 5, 7), (2, 4))
# (alpha, old_q, reward, future_rewards) -> the value to store, and the wrong values we know.
UPDATES = [
    ((0.5, 0.0, 1, 0), 0.5, {1.0: ALPHA_LEFT_OUT}),
    ((0.5, 0.2, 0, 0.6), 0.4, {0.1: FUTURE_LEFT_OUT, -0.2: FUTURE_SUBTRACTED, 0.3: OLD_LEFT_OUT,
                               0.5: OLD_NOT_SUBTRACTED, 0.6: ALPHA_LEFT_OUT}),
    ((0.25, -0.4, -1, 0), -0.55, {-0.25: OLD_LEFT_OUT, -0.65: OLD_NOT_SUBTRACTED,
                                  -1.0: ALPHA_LEFT_OUT, -0.7: ALPHA_FIXED,
                                  -0.85: ONE_MINUS_ALPHA}),
    ((0.5, 0.3, 1, 0.5), 0.9, {0.65: FUTURE_LEFT_OUT, 0.4: FUTURE_SUBTRACTED, 0.75: OLD_LEFT_OUT,
                               1.05: OLD_NOT_SUBTRACTED, 1.5: ALPHA_LEFT_OUT}),
    ((0.1, 0.7, 0, -0.2), 0.61, {0.63: FUTURE_LEFT_OUT, 0.65: FUTURE_SUBTRACTED,
                                 -0.02: OLD_LEFT_OUT, 0.68: OLD_NOT_SUBTRACTED,
                                 -0.2: ALPHA_LEFT_OUT, 0.25: ALPHA_FIXED, -0.11: ONE_MINUS_ALPHA}),
]

# --- best_future_reward ------------------------------------------------------------------------
VALUES = {((1, 3, 5, 7), (3, 2)): 0.4, ((1, 3, 5, 7), (2, 1)): -0.2,
          ((0, 0, 1, 0), (2, 1)): -1.0,
          ((0, 1, 1, 0), (1, 1)): -0.5, ((0, 1, 1, 0), (2, 1)): -0.25,
          ((0, 0, 2, 0), (2, 1)): -0.5}
LOWEST = "that is the lowest value; the answer is the highest"
# state -> the answer, why, and the wrong answers we know.
BEST_FUTURE = [
    ([1, 3, 5, 7], 0.4, "(3, 2) is worth 0.4, more than any other move", {-0.2: LOWEST}),
    ((1, 3, 5, 7), 0.4, "the same position as a tuple", {}),
    ([0, 0, 1, 0], -1.0, "the only move, (2, 1), is worth -1",
     {0: "there is a move, and it is worth -1: 0 is no move's value here (did the search for the "
         "highest value start at 0?)"}),
    ([0, 1, 1, 0], -0.25, "both moves are known, -0.5 and -0.25",
     {-0.5: LOWEST, 0: "both moves here are known (-0.5 and -0.25): 0 is no move's value here"}),
    ([0, 0, 2, 0], 0, "(2, 2) has no Q-value yet, so it counts 0, more than (2, 1)'s -0.5",
     {-0.5: "a move with no Q-value yet counts 0: consider every available action, not only "
            "those in self.q"}),
    ([1, 0, 0, 1], 0, "no move of this position has a Q-value yet", {}),
    ([0, 0, 0, 0], 0, "no move is left (the game is over), and then the answer is 0", {}),
]

# --- choose_action -----------------------------------------------------------------------------
BEST = (3, 2)
CHOICES = {(START, BEST): 0.9, (START, (2, 1)): 0.5, (START, (0, 1)): -0.4}
EXPLORE = 0.2
DRAWS = 2_000
SEED = 2024
BEST_SHARE = 0.8125        # 1 - 0.2 * 15/16: the best move, unless a random move is another one
SHARE_TOLERANCE = 0.04     # about 4.5 standard deviations of the share over 2,000 draws
# The best move's share that a wrong choose_action gives, and what that says about it.
WRONG_SHARES = [
    (1.0, "it never explores: with epsilon true it must play a random available move with "
          "probability self.epsilon"),
    (0.0625, "it explores every time: a random move only with probability self.epsilon, the best "
             "move otherwise"),
    (0.25, "it explores with probability 1 - self.epsilon instead of self.epsilon"),
    (0.90625, "that is what epsilon 0.1 gives: use self.epsilon, this AI's own exploration rate"),
]
UNKNOWN_STATE = [0, 0, 2, 0]
UNKNOWN_BEST = (2, 2)      # no Q-value: 0, more than (2, 1)'s -0.5
UNKNOWN_VALUES = {((0, 0, 2, 0), (2, 1)): -0.5}
TIED = {(3, 2), (1, 3)}
TIED_VALUES = {(START, (3, 2)): 0.5, (START, (1, 3)): 0.5, (START, (0, 1)): 0.25}


GETS = [((1, 3, 5, 7), (3, 2), 0.7), ((1, 3, 5, 7), (0, 1), 0), ([0, 2, 5, 7], (1, 1), -0.3)]
# name -> (the AI's epsilon, its self.q, the state, how many calls, the argument epsilon or
# None for the default): the choose_action questions.
CHOOSING = {
    "greedy": (1.0, CHOICES, START, 50, False),   # must not explore, however high epsilon is
    "unknown": (1.0, UNKNOWN_VALUES, UNKNOWN_STATE, 20, False),
    "exploring": (EXPLORE, CHOICES, START, DRAWS, None),
    "ties": (EXPLORE, TIED_VALUES, START, 50, False),
    "no move left": (EXPLORE, {}, [0, 0, 0, 0], 2, False),
    "no move left, exploring": (EXPLORE, {}, [0, 0, 0, 0], 2, True),
}


def check_nim(nim: ModuleType) -> None:
    """Check the four functions of ``nim.NimAI`` (``nim`` is the student's ``nim/nim.py``,
    imported), all in this process; the first wrong one raises ``Failure``, a stub
    ``NotWritten``. ``random`` is left as it was."""
    saved = random.getstate()
    try:
        judge_nim(asked.Asking(lambda question: answer(nim, question)))
    finally:
        random.setstate(saved)


def judge_nim(ask: Callable[[list], dict]) -> None:
    """Check the four functions of the student's ``NimAI`` through ``ask`` (``tictactoe_rl.selfcheck.asked``)
    in the order the student writes them; the first wrong one raises ``Failure``."""
    check_get_q_value(ask)
    check_update_q_value(ask)
    check_best_future_reward(ask)
    check_choose_action(ask)


def answer(nim: ModuleType, question: list) -> object:
    """In the student's process: the student's ``nim`` (``nim/nim.py``, imported) on one of the
    questions the checks below ask."""
    _, function, case = question
    if function == "get_q_value":
        state, action, _ = GETS[case]
        ai = new_ai(nim)
        ai.q = dict(KNOWN)
        return call("get_q_value", ai.get_q_value, state, action)
    if function == "update_q_value":
        (alpha, old, reward, future), _, _ = UPDATES[case]
        ai = new_ai(nim, alpha=alpha)
        ai.q = {OTHER_KEY: OTHER_VALUE}
        call("update_q_value", ai.update_q_value, list(UPDATE_STATE), UPDATE_ACTION, old,
             reward, future)
        if not isinstance(ai.q, dict):
            raise Failure(f"update_q_value made self.q a {type(ai.q).__name__}: it stays the "
                          "dict it is, with one entry changed")
        return dict(ai.q)
    if function == "best_future_reward":
        ai = new_ai(nim)
        ai.q = dict(VALUES)
        return call("best_future_reward", ai.best_future_reward, BEST_FUTURE[case][0])
    epsilon, values, state, draws, argument = CHOOSING[case]
    ai = new_ai(nim, epsilon=epsilon)
    ai.q = dict(values)
    given = {} if argument is None else {"epsilon": argument}
    random.seed(f"{SEED}:{case}")
    return [call("choose_action", ai.choose_action, list(state), **given) for _ in range(draws)]


def new_ai(nim: ModuleType, **parameters: float) -> object:
    """A fresh ``nim.NimAI(**parameters)``; an error in the constructor is a ``Failure`` too."""
    return call("NimAI()", nim.NimAI, **parameters)


def check_get_q_value(ask) -> None:
    """A known pair gives its value, an unknown one 0, and a state given as a list is found under
    its tuple."""
    for case, (state, action, value) in enumerate(GETS):
        what = f"get_q_value({state}, {action})"
        try:
            got = asked.value(ask(["nim", "get_q_value", case]))
        except Failure as failure:
            if "KeyError" in str(failure):
                raise Failure(f"{what} raised KeyError: a pair that self.q does not hold yet "
                              "is worth 0") from None
            if "unhashable" in str(failure):
                raise Failure(f"{what} raised TypeError (a list cannot be part of a dict key): "
                              "the keys of self.q are (tuple(state), action), and the state may "
                              "come as a list") from None
            raise
        if close(got, value):
            continue
        if value == 0:
            raise Failure(f"{what} should be 0 (self.q holds no value for that pair), got "
                          f"{fmt(got)}")
        raise Failure(f"{what} should be {value}, got {fmt(got)}: self.q holds it under the key "
                      f"{(tuple(state), action)}, that is (tuple(state), action)")


def check_update_q_value(ask) -> None:
    """The stored value for hand-made updates, under the key ``(tuple(state), action)``, and
    nothing else in ``self.q`` changed."""
    for case, ((alpha, old, reward, future), value, known_mistakes) in enumerate(UPDATES):
        what = (f"update_q_value({UPDATE_STATE}, {UPDATE_ACTION}, old_q={old}, reward={reward}, "
                f"future_rewards={future}) with alpha {alpha}")
        try:
            q = asked.value(ask(["nim", "update_q_value", case]))
        except Failure as failure:
            if "unhashable" in str(failure):
                raise Failure(f"{what} raised TypeError (a list cannot be part of a dict key): "
                              "store the value under (tuple(state), action)") from None
            raise
        if not isinstance(q, dict):
            raise asked.not_an_answer()
        if q.get(OTHER_KEY) != OTHER_VALUE or len(q) > 2:
            raise Failure(f"{what} changed other entries of self.q: only the entry of "
                          f"{UPDATE_KEY} may change; self.q is now {q}")
        if UPDATE_KEY not in q:
            new = [key for key in q if key != OTHER_KEY]
            where = f"it stored under {new[0]!r}" if new else "it stored nothing in self.q"
            raise Failure(f"{what} should store {value} under the key {UPDATE_KEY}, that is "
                          f"(tuple(state), action); {where}")
        got = q[UPDATE_KEY]
        if not close(got, value):
            why = next((reason for wrong, reason in known_mistakes.items() if close(got, wrong)),
                       "follow the rule in the docstring step by step")
            raise Failure(f"{what} should store {value}, got {fmt(got)} -- {why}")


def check_best_future_reward(ask) -> None:
    """The highest value over every available action, unknown ones counting 0, and 0 when no
    action is left."""
    for case, (state, value, why, known_mistakes) in enumerate(BEST_FUTURE):
        what = f"best_future_reward({state})"
        try:
            got = asked.value(ask(["nim", "best_future_reward", case]))
        except Failure as failure:
            if not any(state):
                raise Failure(f"{what} should be 0 ({why}); {failure}") from None
            raise
        if close(got, value):
            continue
        elsewhere = {v for (s, _), v in VALUES.items() if s != tuple(state)}
        hint = next((reason for wrong, reason in known_mistakes.items() if close(got, wrong)),
                    None)
        if hint is None and any(close(got, v) for v in elsewhere) and not any(
                close(got, v) for (s, _), v in VALUES.items() if s == tuple(state)):
            hint = "that value belongs to another state: only the moves available here count"
        raise Failure(f"{what} should be {value} ({why}), got {fmt(got)}"
                      + (f" -- {hint}" if hint else ""))


def check_choose_action(ask) -> None:
    """Greedy: always a best move (an unknown one counting 0, any of tied ones); epsilon-greedy:
    a random move with probability ``self.epsilon``, measured over many seeded draws. With no move
    left anything goes, as in the course (its game never asks then)."""
    _check_greedy(ask)
    _check_exploring(ask)
    _check_ties(ask)
    # The course's game never asks for a move once no object is left, so the contract says
    # nothing about it: an error (as max() or random.choice() of nothing gives), None, anything
    # is fine, as long as the call comes back.
    ask(["nim", "choose_action", "no move left"])
    ask(["nim", "choose_action", "no move left, exploring"])


def _legal(piles) -> set[tuple[int, int]]:
    # Written out here rather than taken from the student's Nim, which is not under test.
    return {(i, j) for i, pile in enumerate(piles) for j in range(1, pile + 1)}


def _choices(ask, case: str) -> list:
    state, draws = CHOOSING[case][2], CHOOSING[case][3]
    picks = asked.value(ask(["nim", "choose_action", case]))
    if not (isinstance(picks, list) and len(picks) == draws):
        raise asked.not_an_answer()
    for pick in picks:
        if not isinstance(pick, tuple):
            raise Failure(f"choose_action({list(state)}) returned {pick!r}: an action is a tuple "
                          "(i, j), as Nim.available_actions gives them (it becomes part of a "
                          "dict key in training)")
        if pick not in _legal(state):
            raise Failure(f"choose_action({list(state)}) returned {pick!r}, which is not an "
                          "available action there")
    return picks


def _check_greedy(ask) -> None:
    picks = set(_choices(ask, "greedy"))
    if picks != {BEST}:
        if len(picks) > 2:
            raise Failure(f"choose_action({list(START)}, epsilon=False) played {len(picks)} "
                          "different moves in 50 calls: with epsilon false it must never explore "
                          "(self.epsilon is 1 here), always the move with the highest Q-value, "
                          f"{BEST}")
        wrong = sorted(picks - {BEST})[0]
        worth = CHOICES.get((START, wrong), 0)
        raise Failure(f"choose_action({list(START)}, epsilon=False) should play {BEST}, worth "
                      f"0.9, the highest Q-value; it played {wrong}, worth {worth}")
    picks = set(_choices(ask, "unknown"))
    if picks != {UNKNOWN_BEST}:
        raise Failure(f"choose_action({UNKNOWN_STATE}, epsilon=False) should play {UNKNOWN_BEST}: "
                      "it has no Q-value yet, so it counts 0, more than (2, 1)'s -0.5; it played "
                      f"{sorted(picks - {UNKNOWN_BEST})[0]}")


def _check_exploring(ask) -> None:
    picks = _choices(ask, "exploring")      # epsilon true is the default
    share = picks.count(BEST) / DRAWS
    what = (f"with self.epsilon {EXPLORE}, choose_action({list(START)}) should play the best move "
            f"{BEST} in about {BEST_SHARE:.1%} of the calls (a random one of the {START_MOVES} "
            f"moves with probability {EXPLORE}, the best otherwise); in {DRAWS:,} calls it "
            f"played it {share:.1%} of the time")
    if abs(share - BEST_SHARE) > SHARE_TOLERANCE:
        why = next((reason for wrong, reason in WRONG_SHARES
                    if abs(share - wrong) <= SHARE_TOLERANCE), None)
        raise Failure(what + (f" -- {why}" if why else ""))
    missing = _legal(START) - set(picks)
    if missing:
        raise Failure(f"{what}, and never played {sorted(missing)[0]}: a random move is any "
                      "available move")


def _check_ties(ask) -> None:
    picks = set(_choices(ask, "ties"))
    if not picks <= TIED:
        raise Failure(f"with {sorted(TIED)} tied for the highest Q-value (0.5), "
                      f"choose_action({list(START)}, epsilon=False) must play one of them (any "
                      f"one); it played {sorted(picks - TIED)[0]}")
