"""The shape of a table trainer's update rule, and what it is told about the episode.

Every rule is called once per learner and episode as ``rule(Q, steps, step)``: ``steps`` are the
learner's learning steps ``(state, action, reward)`` (``Episode.learning_steps``, rewards X's),
``step`` a ``Step``: how the episode ended, the learner's side, the run's parameters, and the
episode's number, exploration rate and the learner's exploring policy. The rule changes ``Q`` in
place. A rule that needs more of the learner than the chapter's do (Expected SARSA asks for the
policy) reads it from ``step``; nothing else changes.

The chapter's rules (MC's, and the exercise's SARSA and Q-learning) keep the course's signature
``update(Q, steps, final, side, gamma, alpha)``; ``chapter_rule`` turns one into a rule.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

from AI_Agent import greedy_action
from State import State
from TicTacToe import Action

Policy = Callable[[State], dict[Action, float]]


@dataclass(frozen=True)
class Step:
    """What a rule knows about one learner's episode beyond its steps."""
    final: State          # where the game ended
    side: int             # 1 for X, -1 for O (whose rewards are the negated X rewards)
    gamma: float
    alpha: float
    epoch: int            # the episode's number, 0-based
    epsilon: float        # the learner's exploration rate in this episode
    policy: Policy        # the learner's epsilon-greedy move probabilities, from Q as it is now


Rule = Callable[[dict, list, Step], None]
# the course's shape: update(Q, steps, final, side, gamma, alpha)
ChapterUpdate = Callable[[dict, list, State, int, float, float], None]


def chapter_rule(update: ChapterUpdate) -> Rule:
    """The rule that hands ``update`` the course's arguments (``inspect.unwrap`` finds
    ``update`` behind it, so an exercise stub is still seen as one)."""
    @functools.wraps(update)
    def rule(Q: dict, steps: list, step: Step) -> None:
        update(Q, steps, step.final, step.side, step.gamma, step.alpha)

    return rule


def exploring_policy(Q: dict, epsilon: float) -> Policy:
    """The epsilon-greedy policy of a table ``Q``: each legal move ``epsilon / moves``, and the
    greedy move (``AI_Agent.greedy_action``) ``1 - epsilon`` more."""
    def policy(state: State) -> dict[Action, float]:
        moves = state.legal_actions()
        probs = dict.fromkeys(moves, epsilon / len(moves))
        probs[greedy_action(Q, state)] += 1.0 - epsilon
        return probs

    return policy
