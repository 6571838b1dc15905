"""Exploration schedules: how epsilon falls over the episodes of a run.

    linear     1.0 down to 0.01 over the first ``decay_epochs`` episodes, then 0.01 (the course's)
    exp        0.01 + (1.0 - 0.01) * exp(-epoch / (decay_epochs / 5))
    geometric  0.9999 ** epoch: 1.0 at the first game, multiplied by 0.9999 after every game
               (the classic lecture notebook's; it ignores ``decay_epochs``)

A ``Schedule`` is one of them as an object: its kind and the share of a run it falls over
(``span``; its ``window(episodes)`` is the agent's ``decay_epochs``). The table trainers fall
over the first half of a run, the course's 100,000 episodes of 200,000; the network's trainer
sets its own span (``--epsilon-span``).

The chapter's two, linear and exp, are the exercise's piece 1: ``AI_Agent.epsilon_greedy``
computes them from the constants below (and the network's agent borrows that method), so that the
students' version holds no schedule a student could call instead of writing it. Here are their
names and constants, and the lecture's geometric schedule.
"""

from __future__ import annotations

from dataclasses import dataclass

EPSILON_START = 1.0
EPSILON_FINAL = 0.01
EPSILON_DECAY_EPOCHS = 100_000   # the course's window: the first half of its 200,000 episodes
GEOMETRIC_RATE = 0.9999
SCHEDULES = ("linear", "exp", "geometric")
DEFAULT_SCHEDULE = "linear"
CHAPTER_SCHEDULES = ("linear", "exp")   # the ones AI_Agent.epsilon_greedy (the chapter's) computes
# The time constant of exp is decay_epochs / 5, so that both decaying schedules are near the final
# epsilon by the end of the decay window (exp(-5) ~ 0.7 % of the way left).
EXP_WINDOWS = 5
TABLE_SPAN = 0.5                 # the table trainers' window: the first half of a run


def check_schedule(name: str) -> str:
    """``name`` if it names a schedule, else ``ValueError``."""
    if name not in SCHEDULES:
        raise ValueError(f"epsilon schedule must be one of {SCHEDULES}, got {name!r}")
    return name


@dataclass(frozen=True)
class Schedule:
    """One exploration schedule: ``kind`` (one of ``SCHEDULES``), from ``EPSILON_START`` to
    ``EPSILON_FINAL`` (the chapter's constants, which piece 1 reads) over ``span`` runs (0.5: the
    first half of a run's episodes; 2: twice the run, so a linear epsilon is halfway down at its
    end)."""
    kind: str = DEFAULT_SCHEDULE
    span: float = TABLE_SPAN

    def __post_init__(self) -> None:
        check_schedule(self.kind)

    def window(self, episodes: int) -> int:
        """The decay window, in episodes, of a run of ``episodes``: ``span`` of them (whole
        episodes, at least one)."""
        return max(1, int(self.span * episodes))


def epsilon_at(schedule: str, epoch: int) -> float:
    """The exploration rate of the lecture's ``geometric`` schedule at episode ``epoch``
    (0-based). The chapter's schedules are ``AI_Agent.epsilon_greedy``: ``ValueError`` here."""
    if schedule != "geometric":
        raise ValueError(f"the {schedule!r} schedule is the chapter's: AI_Agent.epsilon_greedy "
                         "computes it")
    return GEOMETRIC_RATE ** epoch
