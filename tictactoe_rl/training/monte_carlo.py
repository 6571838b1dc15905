"""The Monte Carlo update of the solved trainer (``python MC_Trainer.py``), with or without its two
refinements (see that file's doc). It answers the exercise's piece 3, so the students' version
carries this file compressed."""

from __future__ import annotations

from functools import partial

from AI_Agent import greedy_action
from tictactoe_rl.exact.symmetry import images
from State import State


def update(Q: dict, steps: list[tuple], final: State, side: int, gamma: float, alpha: float,
           refined: bool = True) -> None:
    """Walking ``steps`` backwards, the return ``G = gamma * G + reward`` (the learner's reward:
    ``side`` times X's) pulls each step's value towards it, ``Q <- Q + alpha * (G - Q)``: the
    chapter's update. ``refined``: each return also goes to the seven images of the pair, and the
    walk stops after a step whose move was not the greedy one.

    The images of a pair are only ever updated together, so they always hold the same value: it is
    computed once, from the pair itself. (That holds for every table this update made; ``--resume``
    refuses a table learnt another way, see ``tictactoe_rl.training.run.resume_from``.)"""
    G = 0.0
    first = len(steps) - 1   # the walk ends at the first step anyway: no need to ask if it explored
    for walked, (state, action, reward) in enumerate(reversed(steps)):
        G = gamma * G + side * reward
        explored = refined and walked < first and action != greedy_action(Q, state)
        old = Q.get((state, action), 0.0)
        new = old + alpha * (G - old)
        for pair in (images(state, action) if refined else ((state, action),)):
            Q[pair] = new
        if explored:
            break


refined_update = update
plain_update = partial(update, refined=False)   # --plain: the chapter's update exactly
