"""The rules of Tic-Tac-Toe: the environment the agents play in."""

from __future__ import annotations

from numbers import Integral

from State import DRAW, O_WON, ONGOING, SIZE, X_WON, State

Action = tuple[int, int]

# Reward of reaching a position, always from X's point of view.
REWARD = {ONGOING: 0, X_WON: 1, O_WON: -1, DRAW: 0}


def _is_int_pair(action) -> bool:
    """Fast check for the common case: a tuple of two plain ints."""
    return type(action) is tuple and len(action) == 2 and type(action[0]) is int and type(action[1]) is int


class TicTacToe:
    """Tic-Tac-Toe on a 3x3 board; X (``1``) moves first, O is ``-1``.

    State:   a ``State`` -- nine cells (1 X, -1 O, 0 empty) and ``player``, the side to move.
    Actions: ``(row, col)``, both 0-based; the legal ones are the empty cells, row-major.
    Reward:  from X's point of view, for the position a move reaches: ``1`` X has won, ``-1`` O has
             won, ``0`` for a draw and for every move that does not end the game (so a zero reward
             alone does not tell that the game is over). An agent playing O negates it.
    End:     a line of three (rows, columns, diagonals) or a full board. ``end_of_game(state)``
             tells whether it came; the result code is ``state.end_of_game``: 0 going on, 1 X won,
             -1 O won, 2 draw.

    ``env.state`` is the live game (the one the GUI shows); ``move`` plays on it. ``next_state``
    is pure: it returns the new position and never touches the one it is given.
    An illegal action raises ``ValueError`` saying which action and why.
    """

    def __init__(self, state: State | None = None) -> None:
        self.state = state if state is not None else State()

    def reset(self) -> State:
        """Start a new game on the empty board and return it."""
        self.state = State()
        return self.state

    def legal_actions(self, state: State) -> list[Action]:
        """The empty cells of ``state`` as ``(row, col)``, row-major; empty once the game is over."""
        return list(state.legal_actions())

    def legal(self, state: State, action) -> bool:
        """Whether ``action`` may be played in ``state``."""
        return self.illegal_reason(state, action) is None

    def illegal_reason(self, state: State, action) -> str | None:
        """Why ``action`` is illegal in ``state``, in a few words; ``None`` when it is legal."""
        if _is_int_pair(action) and action in state.children():
            return None
        if not isinstance(action, (tuple, list)) or len(action) != 2 or not all(
                isinstance(v, Integral) and not isinstance(v, bool) for v in action):
            return "an action must be a pair of ints (row, col)"
        row, col = int(action[0]), int(action[1])
        if not (0 <= row < SIZE and 0 <= col < SIZE):
            return "it is off the board (row and col go from 0 to 2)"
        if state.end_of_game != ONGOING:
            return "the game is already over"
        if (row, col) in state.children():
            return None
        return "the cell is already taken"

    def next_state(self, state: State, action) -> tuple[State, int]:
        """The position after ``action`` and its reward (X's view); ``state`` is left unchanged."""
        children = state.children()
        if _is_int_pair(action) and action in children:
            new_state = children[action]
        else:
            reason = self.illegal_reason(state, action)
            if reason is not None:
                raise ValueError(f"illegal action {action!r}: {reason}")
            new_state = children[(int(action[0]), int(action[1]))]
        return new_state, REWARD[new_state.end_of_game]

    def end_of_game(self, state: State) -> bool:
        """Whether the game is over in ``state`` (then ``state.end_of_game`` is 1, -1 or 2)."""
        return state.end_of_game != ONGOING

    def move(self, action) -> tuple[State, int]:
        """Play ``action`` on the live game ``self.state``; return the new state and the reward."""
        self.state, reward = self.next_state(self.state, action)
        return self.state, reward
