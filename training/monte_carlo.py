"""The Monte Carlo update rules of ``MC_Trainer.py``: the chapter's, and the solved trainer's with
its two refinements (see that file's doc). They are the answer to the exercise's piece 3, so the
students' version carries this file compressed."""

from __future__ import annotations

from AI_Agent import greedy_action
from exact.symmetry import images
from State import State


def plain_update(Q: dict, steps: list[tuple], final: State, side: int, gamma: float,
                 alpha: float) -> None:
    """The chapter's update: walking ``steps`` backwards, the return ``G = gamma * G + reward``
    (the learner's reward: ``side`` times X's) pulls each step's value towards it,
    ``Q <- Q + alpha * (G - Q)``."""
    G = 0.0
    for state, action, reward in reversed(steps):
        G = gamma * G + side * reward
        old = Q.get((state, action), 0.0)
        Q[(state, action)] = old + alpha * (G - old)


def refined_update(Q: dict, steps: list[tuple], final: State, side: int, gamma: float,
                   alpha: float) -> None:
    """The chapter's update, where each return also goes to the seven images of the pair, and the
    walk stops after a step whose move was not the greedy one."""
    G = 0.0
    for state, action, reward in reversed(steps):
        G = gamma * G + side * reward
        explored = action != greedy_action(Q, state)
        for pair in images(state, action):
            old = Q.get(pair, 0.0)
            Q[pair] = old + alpha * (G - old)
        if explored:
            break
