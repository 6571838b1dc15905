"""The perfect player: minimax over the whole game (5,478 positions, solved once)."""

from __future__ import annotations

from Agent import Agent
from Random_Agent import Random_Agent
from tictactoe_rl.exact.solver import best_response, preference, solve
from State import State
from TicTacToe import Action, TicTacToe

STYLES = ("fast", "greedy")


class MinimaxAgent(Agent):
    """Plays perfectly: it never loses, as X or as O.

    style "fast":   among the moves with the best perfect-play result it takes the quickest win
                    (or, if it must lose, holds out longest); any remaining ties are broken
                    uniformly at random (``action_probs`` spreads over them).
    style "greedy": among the moves that keep the best result, the one that does best against a
                    random opponent (the best unbeatable reply to ``random``; deterministic).
    """

    def __init__(self, player: int, env: TicTacToe | None = None, graphics=None,
                 style: str = "fast", seed: int | str | None = None) -> None:
        super().__init__(player, env, graphics, seed=seed)
        if style not in STYLES:
            raise ValueError(f"style must be one of {', '.join(STYLES)}, got {style!r}")
        self.style = style
        self._greedy_policy: dict[State, Action] | None = None

    def best_actions(self, state: State) -> list[Action]:
        """The moves with the best (result, speed) for the side to move, row-major."""
        keyed = [(preference(solve(child)[0] * state.player, solve(child)[1]), action)
                 for action, child in state.children().items()]
        best = max(key for key, _ in keyed)
        return [action for key, action in keyed if key == best]

    def action_probs(self, state: State) -> dict[Action, float]:
        if self.style == "greedy":
            if self._greedy_policy is None:
                self._greedy_policy = best_response(Random_Agent(-self.player), unbeatable=True)[1]
            if state in self._greedy_policy:
                return {self._greedy_policy[state]: 1.0}
        best = self.best_actions(state)
        return {action: 1.0 / len(best) for action in best}
