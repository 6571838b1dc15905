"""The answer key: what a correct piece computes, and what each common mistake computes instead.

The checks compare a student's results with these. The students' version of the repository
carries this file compressed (``tools/make_exercise.py``), so that reading the checks does not
show the solution; the teachers' repository has it in the clear.
"""

from __future__ import annotations

import math

START, FINAL = 1.0, 0.01

# How the Monte Carlo update can be computed, right and wrong (see ``mc_values``).
CORRECT = "correct"
FORWARDS = "forwards"        # G summed from the first step on, not from the end
REWARD_ONLY = "reward"       # each step moves towards its own reward, not towards G
CARRY = "carry"              # G not set back to 0 at the start of each episode
DROP_LAST = "drop last"      # the last step (the one with the result) never updated
NO_NEGATION = "no negation"  # O learns from X's rewards as they are
MODELS = (CORRECT, FORWARDS, REWARD_ONLY, CARRY, DROP_LAST, NO_NEGATION)


def linear_epsilon(epoch: int, decay: float) -> float:
    """The linear schedule that reaches the final epsilon at episode ``decay``."""
    return START + (FINAL - START) * min(epoch, decay) / decay


def exponential_epsilon(epoch: int, tau: float) -> float:
    """The exponential schedule with time constant ``tau``."""
    return FINAL + (START - FINAL) * math.exp(-epoch / tau)


def linear_decay_from(epoch: int, value: float) -> float:
    """The episode where a linear schedule through ``(epoch, value)`` reaches the floor."""
    return epoch * (START - FINAL) / (START - value)


def tau_from(epoch: int, value: float) -> float:
    """The time constant of an exponential schedule through ``(epoch, value)``."""
    return -epoch / math.log((value - FINAL) / (START - FINAL))


def returns(rewards: list[float], gamma: float, model: str, carried: float) -> list[float]:
    """The target of each step of one episode under ``model``; ``carried`` is the G that a
    ``CARRY`` walk starts from."""
    n = len(rewards)
    if model == REWARD_ONLY:
        return list(rewards)
    if model == FORWARDS:
        targets, G = [], 0.0
        for reward in rewards:
            G = gamma * G + reward
            targets.append(G)
        return targets
    targets, G = [0.0] * n, carried if model == CARRY else 0.0
    for k in reversed(range(n)):
        G = gamma * G + rewards[k]
        targets[k] = G
    return targets


def mc_values(episodes: list[list[tuple]], side: int, start: dict, gamma: float, alpha: float,
              model: str = CORRECT) -> dict:
    """The table after the Monte Carlo update of ``episodes`` in turn, from ``start``: each step's
    return G (walking backwards, G = gamma * G + reward, the rewards negated for O) pulls its
    value ``Q <- Q + alpha * (G - Q)``. ``model`` names a common mistake to compute instead."""
    values, carried = dict(start), 0.0
    for episode in episodes:
        steps = episode[:-1]
        if model == DROP_LAST:
            steps = steps[:-1]
        sign = 1 if model == NO_NEGATION else side
        rewards = [sign * reward for _, _, reward in steps]
        targets = returns(rewards, gamma, model, carried)
        for (state, action, _), target in zip(steps, targets):
            old = values.get((state, action), 0.0)
            values[(state, action)] = old + alpha * (target - old)
        if model == CARRY and targets:
            carried = targets[0]
    return values

