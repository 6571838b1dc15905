"""The answer key of pieces 3 and 5: the values that the hand-made episodes
(``selfcheck.episodes``, ``selfcheck.td_cases.CASES``) leave in the table, for the Monte Carlo,
SARSA and Q-learning updates and for each common mistake.

It answers only those episodes, by their numbers: nothing here takes an episode or a table
of the student's, so it is no update that a ``main`` could call instead of its own. The checks
load it before the student's code runs and keep it out of the student's process (see
``selfcheck.guard``).
"""

from __future__ import annotations

from functools import lru_cache

from selfcheck.episodes import (CARRY, DROP_LAST, FORWARDS, LATE_G, NO_NEGATION,
                                RUNNING_AVERAGE, REWARD_ONLY, hand_made)
from selfcheck.td_cases import ALL_CELLS, ALPHA, GAMMA, SARSA, case_of


def _targets(rewards: list[float], gamma: float, model: str, carried: float) -> list[float]:
    if model == REWARD_ONLY:
        return list(rewards)
    if model == FORWARDS:
        targets, G = [], 0.0
        for reward in rewards:
            G = gamma * G + reward
            targets.append(G)
        return targets
    targets, G = [0.0] * len(rewards), carried if model == CARRY else 0.0
    for k in reversed(range(len(rewards))):
        before = G
        G = gamma * G + rewards[k]
        targets[k] = before if model == LATE_G else G
    return targets


def expected(side: int, model: str, rate: object, gamma: float) -> dict[tuple[int, int], float]:
    """``{(episode, step): value}`` (both 0-based) after the hand-made episodes of ``side``, from
    an empty table, under ``model`` with the step size ``rate`` (a number, or
    ``RUNNING_AVERAGE``) and ``gamma``."""
    values: dict = {}
    visits: dict = {}
    carried = 0.0
    episodes = _episodes(side)
    for episode in episodes:
        steps = episode[:-1]
        updated = steps[:-1] if model == DROP_LAST else steps
        sign = 1 if model == NO_NEGATION else side
        targets = _targets([sign * reward for _, _, reward in updated], gamma, model, carried)
        for (state, action, _), target in zip(updated, targets):
            pair = (state, action)
            visits[pair] = visits.get(pair, 0) + 1
            step = 1 / visits[pair] if rate == RUNNING_AVERAGE else rate
            old = values.get(pair, 0.0)
            values[pair] = old + step * (target - old)
        if model == CARRY and targets:
            carried = targets[0]
    return {(number, index): values.get((state, action), 0.0)
            for number, episode in enumerate(episodes)
            for index, (state, action, _) in enumerate(episode[:-1])}


@lru_cache(maxsize=None)
def _episodes(side: int) -> tuple:
    return tuple(hand_made(side))


def td_values(rule: str, model: str, case: int) -> list[float]:
    """The values that piece 5's update ``rule``, done right or with the mistake ``model``
    (``selfcheck.piece_td.MISTAKES``), leaves for the steps of its hand-made case number
    ``case``."""
    side, steps, Q = case_of(case)
    order = range(len(steps) - 1, -1, -1) if model == "reversed" else range(len(steps))
    played = (rule == SARSA) != (model == "other rule")
    for k in order:
        state, action, reward = steps[k]
        reward = reward if model == "no negation" else side * reward
        if k + 1 == len(steps):
            target = GAMMA * reward if model == "discounted end" else reward
        else:
            next_state, next_action, _ = steps[k + 1]
            if model == "own pair":
                following = Q.get((state, action), 0.0)
            elif played:
                following = Q.get((next_state, next_action), 0.0)
            else:
                moves = ALL_CELLS if model == "illegal moves" else next_state.legal_actions()
                following = max(Q.get((next_state, move), 0.0) for move in moves)
                following = max(following, 0.0) if model == "max from 0" else following
            target = reward + GAMMA * (side * following if model == "negated target"
                                       else following)
        old = Q.get((state, action), 0.0)
        Q[(state, action)] = old + ALPHA * (target - old)
    return [Q[(state, action)] for state, action, _ in steps]
