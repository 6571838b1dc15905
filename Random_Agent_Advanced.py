"""The course's stronger opponent: wins when it can, blocks when it must, most of the time."""

from __future__ import annotations

from Agent import Agent
from tictactoe_rl.positions import PositionCache, shape_of
from State import EMPTY, State, position_of
from TicTacToe import Action, TicTacToe

# Winning/blocking cell per position (for its side to move): bounded, for a bigger board's sake.
_FORCED_MOVE_CACHE: dict[State, Action | None] = PositionCache()


def completing_cell(state: State, mark: int) -> Action | None:
    """The empty cell that completes a line holding two ``mark`` s (on a bigger board: ``k - 1``
    of them), or ``None``.

    Lines are scanned in the course's order: rows top to bottom, columns left to right, the main
    diagonal, then the anti-diagonal; the first such line decides. (A bigger board scans them in
    ``BoardShape.win_lines`` order: all down-right diagonals before the down-left ones.)
    """
    cells, shape = state.cells, shape_of(state)
    for line in shape.win_lines:
        values = [cells[i] for i in line]
        if values.count(mark) == shape.k - 1 and values.count(EMPTY) == 1:
            return shape.cells[line[values.index(EMPTY)]]
    return None


def forced_move(state: State) -> Action | None:
    """The side to move's winning cell if it has one, else the cell that blocks the opponent."""
    try:
        return _FORCED_MOVE_CACHE[state]
    except KeyError:
        move = completing_cell(state, state.player)
        if move is None:
            move = completing_cell(state, -state.player)
        _FORCED_MOVE_CACHE[state] = move
        return move


class Random_Agent_Advanced(Agent):
    """With probability ``1 - 1/random_step`` it wins if it can, else blocks if it must;
    otherwise (and in the other ``1/random_step`` of its turns) it plays uniformly at random."""

    def __init__(self, player: int, env: TicTacToe | None = None, graphics=None,
                 random_step: int = 5, seed: int | str | None = None) -> None:
        super().__init__(player, env, graphics, seed=seed)
        if not isinstance(random_step, int) or random_step < 1:
            raise ValueError(f"random_step must be a whole number >= 1, got {random_step!r}")
        self.random_step = random_step
        self.smart_probability = 1.0 - 1.0 / random_step

    def action_probs(self, state: State) -> dict[Action, float]:
        state = position_of(state)  # the live game (env.state): the position it shows
        legal = state.legal_actions()
        uniform = (1.0 - self.smart_probability) / len(legal)
        target = forced_move(state)
        if target is None:
            return {action: 1.0 / len(legal) for action in legal}
        probs = {action: uniform for action in legal}
        probs[target] += self.smart_probability
        return probs

    def get_action(self, state: State, epoch: int | None = None) -> Action:
        state = position_of(state)
        if self.rng.random() < self.smart_probability:
            target = forced_move(state)
            if target is not None:
                return target
        return self.rng.choice(state.legal_actions())
