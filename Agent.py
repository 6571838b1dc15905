"""What every player has in common: it is a policy over the legal moves of a position."""

from __future__ import annotations

import random

from State import Live_State, State, position_of
from TicTacToe import Action, TicTacToe


class PolicyUnknown(ValueError):
    """Raised by ``action_probs`` when an agent cannot state its move probabilities (for example a
    search agent whose moves are random draws it cannot describe). Exact tools then cannot be used
    on it; scripts report this as one line."""


class Agent:
    """A player of one side (``player``: 1 for X, -1 for O) in the game ``env``.

    A computer agent states its policy with ``action_probs(state)`` -> ``{(row, col): probability}``
    over the legal moves; ``get_action`` draws from it with the agent's own random generator
    (``seed`` makes the draws repeatable). The exact tools (``tictactoe_rl/exact/solver.py``) read ``action_probs``,
    the games call ``get_action``; the GUI calls the agent itself: ``agent(events, state)``.

    ``graphics`` is the course's argument (``Random_Agent(player, env, graphics)``): only the
    human player needs the window, so a computer agent accepts it and has no use for it.

    ``train`` is true while a learner explores (``AI_Agent``, ``DQNAgent``); no other agent does.
    """

    train: bool = False

    def __init__(self, player: int, env: TicTacToe | None = None, graphics=None, *,
                 seed: int | str | None = None) -> None:
        if player not in (1, -1):
            raise ValueError(f"player must be 1 (X) or -1 (O), got {player!r}")
        self.player = player
        self.env = env if env is not None else TicTacToe()
        self.rng = random.Random(seed)

    def action_probs(self, state: State) -> dict[Action, float]:
        """``{action: probability}`` over the legal actions of ``state``; the probabilities sum to 1.
        Raises ``PolicyUnknown`` for an agent that does not say (this base class)."""
        raise PolicyUnknown(f"{type(self).__name__} does not state its move probabilities")

    def get_action(self, state: State, epoch: int | None = None) -> Action:
        """A move for ``state``, drawn from ``action_probs``. ``epoch`` matters only to learners."""
        probs = self.action_probs(state)
        if len(probs) == 1:
            return next(iter(probs))
        draw = self.rng.random()
        for action, p in probs.items():
            draw -= p
            if draw < 0:
                return action
        return action  # rounding left a sliver above the last action

    def __call__(self, events=None, state: State | Live_State | None = None) -> Action | None:
        """The GUI's way to ask for a move: the move for ``state`` (default: the live game)."""
        return self.get_action(position_of(state if state is not None else self.env.state))


def seats(agent: Agent, other: Agent) -> tuple[Agent, Agent]:
    """``(the X player, the O player)`` of a game of ``agent`` against ``other``."""
    return (agent, other) if agent.player == 1 else (other, agent)
