"""Exploration schedules: how epsilon falls over the episodes of a run.

    linear     1.0 down to 0.01 over the first ``decay_epochs`` episodes, then 0.01 (the course's)
    exp        0.01 + (1.0 - 0.01) * exp(-epoch / (decay_epochs / 5))
    geometric  0.9999 ** epoch: 1.0 at the first game, multiplied by 0.9999 after every game
               (the classic lecture notebook's; it ignores ``decay_epochs``)

The chapter's two, linear and exp, are the exercise's piece 1: ``AI_Agent.epsilon_greedy``
computes them (and the network's agent borrows that method), so that the students' version holds
no schedule a student could call instead of writing it. This module has their names and constants,
and the lecture's geometric schedule.

A trainer decays over the first half of its episodes (``decay_for``): the course's 100,000 of
200,000.
"""

from __future__ import annotations

EPSILON_START = 1.0
EPSILON_FINAL = 0.01
EPSILON_DECAY_EPOCHS = 100_000
GEOMETRIC_RATE = 0.9999
SCHEDULES = ("linear", "exp", "geometric")
CHAPTER_SCHEDULES = ("linear", "exp")   # the ones AI_Agent.epsilon_greedy (the chapter's) computes
# The time constant of exp is decay_epochs / 5, so that both decaying schedules are near the final
# epsilon by the end of the decay window (exp(-5) ~ 0.7 % of the way left).
EXP_WINDOWS = 5


def check_schedule(name: str) -> str:
    """``name`` if it names a schedule, else ``ValueError``."""
    if name not in SCHEDULES:
        raise ValueError(f"epsilon schedule must be one of {SCHEDULES}, got {name!r}")
    return name


def epsilon_at(schedule: str, epoch: int) -> float:
    """The exploration rate of the lecture's ``geometric`` schedule at episode ``epoch``
    (0-based). The chapter's schedules are ``AI_Agent.epsilon_greedy``: ``ValueError`` here."""
    if schedule != "geometric":
        raise ValueError(f"the {schedule!r} schedule is the chapter's: AI_Agent.epsilon_greedy "
                         "computes it")
    return GEOMETRIC_RATE ** epoch


def decay_for(epochs: int) -> int:
    """The decay window of a run of ``epochs`` episodes: its first half."""
    return max(1, epochs // 2)
