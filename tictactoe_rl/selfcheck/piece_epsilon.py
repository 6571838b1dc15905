"""Piece 1: ``AI_Agent.epsilon_greedy(epoch)``, the exploration schedule.

The schedule is read at many episodes and held to the contract: 1.0 at the start, never rising,
never below 0.01, close to 0.01 by the end of the course's 200,000 episodes but not long before
that, and either linear or exponential. Each way of missing it gets its own hint.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Callable

from tictactoe_rl.selfcheck.common import Failure, call, close, fmt

if TYPE_CHECKING:
    from tictactoe_rl.selfcheck.student import Student

EPOCHS = (0, 1, 1_000, 10_000, 25_000, 50_000, 75_000, 99_999, 100_000, 100_001, 150_000,
          200_000, 1_000_000)
START, FINAL = 1.0, 0.01
# By the end of the course's 200,000 episodes epsilon should be about the floor ...
CLOSE_TO_FLOOR, END = 0.02, 200_000
# ... but not long before: after 10,000 games the agent still explores a good part of the time.
STILL_EXPLORING, EARLY = 0.3, 10_000
SHAPE_TOLERANCE = 1e-6
# The chapter's epsilon_greedy, as printed: its floor, and its exponential schedule.
CHAPTER_FLOOR = "if epoch > decay: return final"
CHAPTER_EXP = "final + (start - final)* math.exp(-1*epoch/decay)"


def gather(student: Student) -> list[list]:
    """In the student's process: the schedule judged as it is asked, and every ``[epoch,
    value]`` it gave, in order, for the judging process to judge again."""
    agent = student.learner(side=1)
    asked: list[list] = []

    def ask(epoch: int) -> float:
        asked.append([epoch, read(agent.epsilon_greedy, epoch)])
        return asked[-1][1]

    check(ask)
    return asked


def judge(asked: object) -> str:
    """In the judging process: ``check`` on the values the student's process sent."""
    answers = iter(asked if isinstance(asked, list) else [])

    def ask(epoch: int) -> float:
        given = next(answers, None)
        if not (isinstance(given, list) and len(given) == 2 and given[0] == epoch):
            raise Failure("the run of your schedule sent back values that are not the ones "
                          "the check asked for")
        return number(epoch, given[1])

    return check(ask)


def check(ask: Callable[[int], float]) -> str:
    """Raise ``Failure`` with a hint for the first way the schedule ``ask`` misses its contract;
    return what was found (shown after "passed")."""
    values = {epoch: ask(epoch) for epoch in EPOCHS}
    check_depends_on_epoch_only(ask, values)
    first, last = values[0], values[END]
    if close(first, START - FINAL):
        raise Failure(f"epsilon at episode 0 should be {START}, got {fmt(first)}: the "
                      f"`{FINAL} +` is missing, so the schedule starts {FINAL} low and heads "
                      f"for 0 instead of the floor {FINAL} -- epsilon is the floor plus what is "
                      f"left of the decay, {FINAL} + {START - FINAL:g} * exp(-epoch / tau); the "
                      f"chapter's schedule says so: {CHAPTER_EXP}")
    if not close(first, START):
        raise Failure(f"epsilon at episode 0 should be {START} (every move explores at first), "
                      f"got {fmt(first)}")
    if all(close(value, first) for value in values.values()):
        raise Failure(f"epsilon never decays: it is {fmt(first)} at episode 0 and still "
                      f"{fmt(last)} at episode 200,000; let it shrink as epoch grows")
    for earlier, later in zip(EPOCHS, EPOCHS[1:]):
        if values[later] > values[earlier] + 1e-12:
            raise Failure(f"epsilon must never grow: {fmt(values[earlier])} at episode "
                          f"{earlier:,} but {fmt(values[later])} at episode {later:,}")
    lowest = min(values, key=values.get)
    if values[lowest] < FINAL - 1e-12:
        raise Failure(f"epsilon must not go below {FINAL} (keep exploring a little): got "
                      f"{fmt(values[lowest])} at episode {lowest:,} -- once the decay is over, "
                      f"epsilon stays at the floor; the chapter's schedule says so: "
                      f"{CHAPTER_FLOOR}")
    shape = schedule_shape(values)
    timing_problem(values, shape)
    if shape is None:
        raise Failure(f"epsilon should fall along a straight line from 1.0 to 0.01 (then stay at "
                      f"0.01), or as 0.01 + 0.99 * exp(-epoch / tau); yours gives "
                      f"{fmt(values[25_000])}, {fmt(values[50_000])} and {fmt(values[75_000])} "
                      "at episodes 25,000, 50,000 and 75,000, which is neither")
    return shape


def read(epsilon_greedy: Callable, epoch: int) -> float:
    return number(epoch, call(f"epsilon_greedy({epoch})", epsilon_greedy, epoch))


def number(epoch: int, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
        raise Failure(f"epsilon_greedy({epoch}) should return a number, got {value!r}")
    return float(value)


def check_depends_on_epoch_only(ask: Callable[[int], float], values: dict[int, float]) -> None:
    """Asked again, in the other order, each episode must give the same epsilon: one that
    changes with every call (and ignores ``epoch``) is not a schedule over episodes."""
    asked = len(values)
    for epoch in reversed(EPOCHS):
        again = ask(epoch)
        if not close(again, values[epoch], 1e-12):
            raise Failure(f"epsilon_greedy({epoch:,}) gave {fmt(values[epoch])} when first asked "
                          f"but {fmt(again)} when asked again after {asked} other calls: epsilon "
                          "must follow from `epoch` alone (the episode's number), not change "
                          "each time epsilon_greedy is called -- compute it from epoch instead "
                          "of shrinking a value you keep")
        asked += 1


def schedule_shape(values: dict[int, float]) -> str | None:
    """"linear, down to 0.01 at episode D" or "exponential, time constant T" when the values
    follow one of the two schedules, else ``None``. The constant is read at the last episode
    where epsilon is still above the floor; every other value must then lie on that line (or
    curve)."""
    between = [e for e, v in values.items() if e and FINAL + SHAPE_TOLERANCE < v < START]
    if not between:
        return None
    probe = between[-1]
    slope = (START - values[probe]) / probe           # linear: the fall per episode
    decay = (START - FINAL) / slope
    if all(abs(v - (START - slope * e if e < decay else FINAL)) <= SHAPE_TOLERANCE
           for e, v in values.items()):
        return f"linear, down to 0.01 at episode {decay:,.0f}"
    tau = -probe / math.log((values[probe] - FINAL) / (START - FINAL))
    if all(abs(v - (FINAL + (START - FINAL) * math.exp(-e / tau))) <= SHAPE_TOLERANCE
           for e, v in values.items()):
        return f"exponential, time constant {tau:,.0f}"
    return None


def timing_problem(values: dict[int, float], shape: str | None) -> None:
    """A schedule of the right kind that decays far too fast or too slowly for the course's run."""
    constant = f" ({shape})" if shape else ""
    if values[END] > CLOSE_TO_FLOOR:
        raise Failure(f"epsilon decays too slowly{constant}: at episode 200,000, the end of the "
                      f"course's training, it is still {fmt(values[END])}; it should be about "
                      f"{FINAL} by then (linear: reach {FINAL} at episode 100,000; exponential: "
                      "a time constant around 20,000)")
    if values[EARLY] < STILL_EXPLORING:
        raise Failure(f"epsilon decays too fast{constant}: it is already {fmt(values[EARLY])} at "
                      f"episode 10,000, so the agent stops exploring before it has seen much "
                      "(linear: reach 0.01 at episode 100,000; exponential: a time constant "
                      "around 20,000)")
