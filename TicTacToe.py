"""The rules of Tic-Tac-Toe: the environment the agents play in."""

from __future__ import annotations

from numbers import Integral

from tictactoe_rl.geometry import SHARED_CELLS, BoardShape
from tictactoe_rl.positions import shape_of, start_position
from State import ALL_CELLS, DRAW, O_WON, ONGOING, X_WON, Live_State, State, position_of

Action = tuple[int, int]
# The cell tuples that ``legal_actions()`` hands out (on every board), by identity. An action that
# is one of these very objects needs no check of its form; every other one (a list, numpy ints
# from np.where, a float, ...) is checked in full.
OWN_CELL_IDS = frozenset(map(id, (*ALL_CELLS, *SHARED_CELLS.values())))

# Reward of reaching a position, always from X's point of view.
REWARD = {ONGOING: 0, X_WON: 1, O_WON: -1, DRAW: 0}


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

    ``env.state`` is the live game (a ``Live_State``, the one the GUI shows); ``move`` plays on it
    and ``env.state.reset()`` starts it again. ``env.position`` is the position it shows now (a
    ``State``). ``next_state`` is pure: it returns the new position and never touches the one it
    is given. Every method that takes a state takes a position or the live game.
    An illegal action raises ``ValueError`` saying which action and why.

    Bigger boards: ``TicTacToe(board=BoardShape(4, 4, 4))`` plays four in a row on 4x4 (any
    m,n,k-game up to 5x5, see ``boards``); ``env.shape`` is the board, 3x3 k=3 by default.
    """

    def __init__(self, state: State | Live_State | None = None, *,
                 board: BoardShape | None = None) -> None:
        if state is None and board is not None:
            state = start_position(board)
        self._live = Live_State(state)
        self._shape = shape_of(self._live)
        if board is not None and self._shape != board:
            raise ValueError(f"the position is on a {self._shape.name} board, not {board.name}")

    @property
    def shape(self) -> BoardShape:
        """The board the game is played on: rows, columns and k in a row (3x3 k=3 unless
        ``board`` said otherwise)."""
        return self._shape

    @property
    def state(self) -> Live_State:
        """The live game. Assigning a position (or another live game) sets what it shows."""
        return self._live

    @state.setter
    def state(self, state: State | Live_State) -> None:
        position = position_of(state)
        if shape_of(position) != self._shape:
            raise ValueError(f"a position of a {shape_of(position).name} board cannot be played "
                             f"on this {self._shape.name} game")
        self._live.position = position

    @property
    def position(self) -> State:
        """The position of the live game now: a ``State``, which never changes."""
        return self._live.position

    def reset(self) -> State:
        """Start a new game on the empty board and return it."""
        self._live.reset()
        return self._live.position

    def legal_actions(self, state: State) -> list[Action]:
        """The empty cells of ``state`` as ``(row, col)``, row-major; empty once the game is over."""
        return list(state.legal_actions())

    def legal(self, state: State, action) -> bool:
        """Whether ``action`` may be played in ``state``."""
        return self.illegal_reason(state, action) is None

    def illegal_reason(self, state: State, action) -> str | None:
        """Why ``action`` is illegal in ``state``, in a few words; ``None`` when it is legal."""
        if not isinstance(action, (tuple, list)) or len(action) != 2 or not all(
                isinstance(v, Integral) and not isinstance(v, bool) for v in action):
            return "an action must be a pair of ints (row, col)"
        row, col = int(action[0]), int(action[1])
        rows, cols = self.shape.rows, self.shape.cols
        if not (0 <= row < rows and 0 <= col < cols):
            if rows == cols:
                return f"it is off the board (row and col go from 0 to {rows - 1})"
            return f"it is off the board (row goes from 0 to {rows - 1}, col from 0 to {cols - 1})"
        if state.end_of_game != ONGOING:
            return "the game is already over"
        if (row, col) in state.children():
            return None
        return "the cell is already taken"

    def next_state(self, state: State, action) -> tuple[State, int]:
        """The position after ``action`` and its reward (X's view); ``state`` is left unchanged."""
        # The common case first, in one lookup (training makes millions of moves): an agent plays
        # a cell that legal_actions() gave it, and only needs to know the cell is empty.
        new_state = state.children().get(action) if id(action) in OWN_CELL_IDS else None
        if new_state is None:
            reason = self.illegal_reason(state, action)
            if reason is not None:
                raise ValueError(f"illegal action {action!r}: {reason}")
            new_state = state.children()[(int(action[0]), int(action[1]))]
        return new_state, REWARD[new_state.end_of_game]

    def end_of_game(self, state: State) -> bool:
        """Whether the game is over in ``state`` (then ``state.end_of_game`` is 1, -1 or 2)."""
        return state.end_of_game != ONGOING

    def move(self, action) -> tuple[State, int]:
        """Play ``action`` on the live game ``self.state``; return the new position and the
        reward."""
        position, reward = self.next_state(self._live.position, action)
        self._live.position = position
        return position, reward
