"""Training plumbing: the learner (X) against an opponent (O) that plays uniformly at random.

For the learner, one step is its own move plus the opponent's reply: the opponent is part of the
environment. ``sample_step`` plays one such step; ``evaluate`` plays whole games with a fixed
policy and counts the results.
"""

from __future__ import annotations

import random
from typing import Callable

from ttt_env import X, Action, State, TicTacToe

OUTCOME = {1: "wins", -1: "losses", 0: "draws"}   # X's final reward -> what it counts as


def sample_step(env: TicTacToe, state: State, action: Action,
                opponent_rng: random.Random) -> tuple[State, int, bool]:
    """X plays ``action`` in ``state``, then, unless the game is over, O replies at random
    (``opponent_rng.choice`` over its legal actions). Returns ``(next_state, reward, done)``;
    the reward is X's (1 won, -1 lost, 0 otherwise), ``next_state`` has X to move or is final.
    """
    if state.player != X:
        raise ValueError("The learner is X")
    state, reward = env.next_state(state, action)
    replies = env.get_actions(state)          # none if X's move ended the game
    if replies:
        state, reward = env.next_state(state, opponent_rng.choice(replies))
    return state, reward, env.end_of_game(state)


def evaluate(env: TicTacToe, policy: Callable[[State], Action], games: int = 1000,
             seed: int = 100) -> dict[str, int]:
    """Play ``games`` games, ``policy(state)`` as X against a random O drawn from
    ``random.Random(seed)``; return ``{'wins': w, 'losses': l, 'draws': d}`` for X."""
    opponent_rng = random.Random(seed)
    counts = dict.fromkeys(OUTCOME.values(), 0)
    for _ in range(games):
        state, done = State(), False
        while not done:
            state, reward, done = sample_step(env, state, policy(state), opponent_rng)
        counts[OUTCOME[reward]] += 1
    return counts
