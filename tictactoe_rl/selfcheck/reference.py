"""The answer key of pieces 3 and 5: the values that the hand-made episodes
(``tictactoe_rl.selfcheck.episodes``, ``tictactoe_rl.selfcheck.td_cases.CASES``) leave in the table, for the Monte Carlo,
SARSA and Q-learning updates and for each common mistake.

It answers only those episodes, by their numbers: nothing here takes an episode or a table
of the student's, so it is no update that a ``main`` could call instead of its own. The checks
load it before the student's code runs and keep it out of the student's process (see
``tictactoe_rl.selfcheck.guard``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterator

from tictactoe_rl.selfcheck.episodes import (
    CARRY, DROP_LAST, EXTRA_DISCOUNT, FIRST_VISIT_EVER, FLIP_G, FLIP_G_REVERSED, FLIP_REWARD,
    FLIP_REWARD_REVERSED, FORWARDS, FROM_START, LAST_MOVER, LATE_G, NEXT_MOVER, NO_MINUS_Q,
    NO_NEGATION, Q_TARGET, Q_TARGET_FORWARDS, RUNNING_AVERAGE, REWARD_ONLY, TD_TARGET,
    TD_TARGET_FORWARDS, hand_made)
from tictactoe_rl.selfcheck.td_cases import ALL_CELLS, ALPHA, GAMMA, SARSA, case_of

# Targets made from the table as it stands (a TD target), by the order the steps are walked in.
BOOTSTRAPPED = {Q_TARGET: True, TD_TARGET: True, Q_TARGET_FORWARDS: False,
                TD_TARGET_FORWARDS: False}   # True: from the last step back


def _signs(side: int, model: str, count: int, final) -> list[int]:
    """The sign each of ``count`` steps' rewards gets (the learner's own is ``side``) in an
    episode that ends in the position ``final``."""
    if model in (NO_NEGATION, FLIP_G_REVERSED):
        return [-side] * count
    if model in (LAST_MOVER, NEXT_MOVER):      # the side to move there did not move last
        return [-final.player if model == LAST_MOVER else final.player] * count
    if model in (FLIP_REWARD, FLIP_REWARD_REVERSED):
        first = side if model == FLIP_REWARD else -side   # the last step's
        return [first * (-1) ** (count - 1 - k) for k in range(count)]
    return [side] * count


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
        if model in (FLIP_G, FLIP_G_REVERSED):
            G = rewards[k] - gamma * G
        else:
            G = gamma * G + rewards[k]
        targets[k] = (before if model == LATE_G else gamma * G if model == EXTRA_DISCOUNT
                      else gamma ** k * G if model == FROM_START else G)
    return targets


def _bootstrapped(values: dict, steps: list, rewards: list[float], gamma: float,
                  model: str) -> Iterator[tuple]:
    """The pairs of ``steps`` with the TD target each gets, read from ``values`` as they are when
    its turn comes (and updated at once: the next target may read it), in the model's order."""
    order = range(len(steps) - 1, -1, -1) if BOOTSTRAPPED[model] else range(len(steps))
    for k in order:
        state, action, _ = steps[k]
        target = rewards[k]
        if k + 1 < len(steps):
            following, played = steps[k + 1][0], steps[k + 1][1]
            target += gamma * (max(values.get((following, move), 0.0)
                                   for move in following.legal_actions())
                               if model in (Q_TARGET, Q_TARGET_FORWARDS)
                               else values.get((following, played), 0.0))
        yield (state, action), target


def expected(side: int, model: str, rate: object, gamma: float,
             start: float = 0.0) -> dict[tuple[int, int], float]:
    """``{(episode, step): value}`` (both 0-based) after the hand-made episodes of ``side``, from
    an empty table, under ``model`` with the step size ``rate`` (a number, or
    ``RUNNING_AVERAGE``) and ``gamma``; ``start``: the value a pair not yet in the table is
    read as (0: the chapter's ``player.Q.get((state, action), 0)``)."""
    values: dict = {}
    visits: dict = {}
    carried = 0.0
    episodes = _episodes(side)
    for episode in episodes:
        steps = episode[:-1]
        updated = steps[:-1] if model == DROP_LAST else steps
        rewards = [sign * reward for sign, (_, _, reward)
                   in zip(_signs(side, model, len(updated), episode[-1][0]), updated)]
        if model in BOOTSTRAPPED:
            targeted = _bootstrapped(values, updated, rewards, gamma, model)
        else:
            targets = _targets(rewards, gamma, model, carried)
            targeted = (((state, action), target)
                        for (state, action, _), target in zip(updated, targets))
            if model == CARRY and targets:
                carried = targets[0]
        for pair, target in targeted:
            if model == FIRST_VISIT_EVER and pair in visits:
                continue
            visits[pair] = visits.get(pair, 0) + 1
            step = 1 / visits[pair] if rate == RUNNING_AVERAGE else rate
            old = values.get(pair, start)
            values[pair] = old + step * (target if model == NO_MINUS_Q else target - old)
    return {(number, index): values.get((state, action), 0.0)
            for number, episode in enumerate(episodes)
            for index, (state, action, _) in enumerate(episode[:-1])}


@lru_cache(maxsize=None)
def _episodes(side: int) -> tuple:
    return tuple(hand_made(side))


def td_values(rule: str, model: str, case: int) -> list[float]:
    """The values that piece 5's update ``rule``, done right or with the mistake ``model``
    (``tictactoe_rl.selfcheck.piece_td.MISTAKES``), leaves for the steps of its hand-made case number
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
