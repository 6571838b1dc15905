"""The baseline opponent: a uniformly random legal move."""

from __future__ import annotations

from Agent import Agent
from State import State
from TicTacToe import Action


class Random_Agent(Agent):
    """Plays every legal move with the same probability."""

    def action_probs(self, state: State) -> dict[Action, float]:
        legal = state.legal_actions()
        return {action: 1.0 / len(legal) for action in legal}

    def get_action(self, state: State, epoch: int | None = None) -> Action:
        return self.rng.choice(state.legal_actions())
