"""The perfect player of any m,n,k board, from the bitboard solver (``tictactoe_rl.boards.solver``).

On 3x3 the course's ``minimax`` walks the whole game (``tictactoe_rl.players.minimax``); a bigger board has far
too many positions for that, so the agent spec ``minimax`` there makes this agent: it asks the solver the value of
each move and plays one of the best. The solver of each board is made once and keeps what it has
searched, so a match of many games searches each position once.
"""

from __future__ import annotations

from functools import lru_cache

from Agent import Agent
from tictactoe_rl.geometry import BoardShape
from tictactoe_rl.positions import shape_of
from tictactoe_rl.boards.solver import Solver
from State import State, position_of
from TicTacToe import Action, TicTacToe


@lru_cache(maxsize=4)
def solver_of(shape: BoardShape) -> Solver:
    """The one solver of ``shape`` (its table of solved positions is shared by every agent)."""
    return Solver(shape)


class PerfectAgent(Agent):
    """Plays perfectly on any board: among the moves that keep the best perfect-play result for
    its side, each with the same probability. It never loses a game that perfect play draws."""

    def __init__(self, player: int, env: TicTacToe | None = None, graphics=None,
                 seed: int | str | None = None) -> None:
        super().__init__(player, env, graphics, seed=seed)
        self._best: dict[State, tuple[Action, ...]] = {}

    def best_actions(self, state: State) -> tuple[Action, ...]:
        """The moves of ``state`` that keep its perfect-play value for the side to move."""
        position = position_of(state)
        found = self._best.get(position)
        if found is None:
            shape = shape_of(position)
            values = solver_of(shape).move_values(shape.encode(position.cells))
            best = max(value * position.player for value in values.values())
            found = self._best[position] = tuple(
                shape.cells[cell] for cell, value in values.items()
                if value * position.player == best)
        return found

    def action_probs(self, state: State) -> dict[Action, float]:
        best = self.best_actions(state)
        return {action: 1.0 / len(best) for action in best}
