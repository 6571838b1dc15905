"""Tic-Tac-Toe as an environment for reinforcement learning (standard library only).

State:   ``State(board, player)``: ``board`` is a tuple of nine cells, row by row, each ``1`` (X),
         ``-1`` (O) or ``0`` (empty); ``player`` is the side to move, ``1`` or ``-1``. X moves
         first: ``State()`` is the empty board with X to move. A state never changes.
Actions: ``(row, col)``, both 0-based. The legal actions are the empty cells, in row-major order;
         there are none once the game is over.
Reward:  from X's point of view, for the position a move reaches: ``1`` X has won, ``-1`` O has
         won, ``0`` otherwise (a draw, or the game goes on).
End:     three in a row (a row, a column or a diagonal), or a full board.

Speed: each position exists once (``State`` hands out one shared object per position), and the
environment works out a position's result and moves the first time it meets it, then looks them up.
"""

from __future__ import annotations

X, O, EMPTY = 1, -1, 0
ONGOING, X_WON, O_WON, DRAW = 0, 1, -1, 2            # result codes
REWARD = {ONGOING: 0, X_WON: 1, O_WON: -1, DRAW: 0}  # X's reward for reaching each result
MARKS = {X: "X", O: "O", EMPTY: "."}
CELLS = tuple((row, col) for row in range(3) for col in range(3))
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8),            # rows
         (0, 3, 6), (1, 4, 7), (2, 5, 8),            # columns
         (0, 4, 8), (2, 4, 6))                       # diagonals

Action = tuple[int, int]


class State:
    """A position: ``board`` (nine cells, row-major) and ``player`` (the side to move).

    ``State(board=None, player=1)``; ``None`` is the empty board. Making the same position again
    returns the same object, so states are equal exactly when their boards and players are, and
    the default identity hash (fast: no Python code runs) is the right hash for a dict key.
    """

    __slots__ = ("board", "player")
    _known: dict[tuple[tuple[int, ...], int], State] = {}   # (board, player) -> its one State

    def __new__(cls, board=None, player: int = X) -> State:
        key = ((EMPTY,) * 9 if board is None else tuple(board), player)
        try:
            state = cls._known.get(key)
        except TypeError:                 # an unhashable cell, e.g. a row given as a list
            state = None
        if state is None:
            if not (len(key[0]) == 9 and all(type(v) is int and v in (X, O, EMPTY) for v in key[0])
                    and type(player) is int and player in (X, O)):
                raise ValueError(f"a State needs nine cells of 1, -1 or 0 and a player 1 or -1, "
                                 f"got {board!r} and {player!r}")
            state = cls._known[key] = super().__new__(cls)
            object.__setattr__(state, "board", key[0])
            object.__setattr__(state, "player", player)
        return state

    def __setattr__(self, name, value):
        raise AttributeError(f"a State never changes (tried to set {name!r})")

    def __delattr__(self, name):
        raise AttributeError(f"a State never changes (tried to delete {name!r})")

    def __reduce__(self):
        return State, (self.board, self.player)    # copies and pickles are the shared object too

    def __repr__(self) -> str:
        return f"State({self.board}, player={self.player})"

    def __str__(self) -> str:
        rows = (self.board[start:start + 3] for start in (0, 3, 6))
        return "\n".join(" ".join(MARKS[cell] for cell in row) for row in rows)


def result_of(board: tuple[int, ...]) -> int:
    """The result code of a board: 0 going on, 1 X won, -1 O won, 2 draw."""
    for a, b, c in LINES:
        if board[a] != EMPTY and board[a] == board[b] == board[c]:
            return board[a]
    return ONGOING if EMPTY in board else DRAW


class _Memo(dict):
    """A dict that works out a missing entry once, as ``compute(key)``, then keeps it."""

    def __init__(self, compute) -> None:
        super().__init__()
        self.compute = compute

    def __missing__(self, key):
        value = self[key] = self.compute(key)
        return value


class TicTacToe:
    """The rules: ``get_actions(state)``, ``next_state(state, action)``, ``end_of_game(state)``.

    An action is legal when it equals the ``(row, col)`` of an empty cell of a game that goes on;
    ``next_state`` raises ``ValueError`` for any other, saying which action and why.
    """

    def __init__(self) -> None:
        self._results = _Memo(lambda state: result_of(state.board))   # state -> result code
        self._steps = _Memo(self._work_out_steps)   # state -> {action: (next state, reward)}

    def result(self, state: State) -> int:
        """The result code of ``state``: 0 going on, 1 X won, -1 O won, 2 draw."""
        return self._results[state]

    def end_of_game(self, state: State) -> bool:
        """Whether the game is over in ``state``."""
        return self._results[state] != ONGOING

    def get_actions(self, state: State) -> list[Action]:
        """The empty cells as ``(row, col)``, row-major; an empty list once the game is over."""
        return list(self._steps[state])

    def next_state(self, state: State, action: Action) -> tuple[State, int]:
        """The position after ``action`` and X's reward for it; ``state`` itself never changes."""
        try:
            return self._steps[state][action]
        except (KeyError, TypeError):     # not legal here (TypeError: not even hashable)
            reason = self._why_illegal(state, action)
        raise ValueError(f"illegal action {action!r}: {reason}")

    def _work_out_steps(self, state: State) -> dict[Action, tuple[State, int]]:
        moves = {}
        for i, cell in enumerate(CELLS):
            if state.board[i] == EMPTY and not self.end_of_game(state):
                board = state.board[:i] + (state.player,) + state.board[i + 1:]
                child = State(board, -state.player)
                moves[cell] = (child, REWARD[self.result(child)])
        return moves

    def _why_illegal(self, state: State, action) -> str:
        if not (isinstance(action, tuple) and len(action) == 2):
            return "an action is a tuple (row, col)"
        if action not in CELLS:
            return "it is not a cell: row and col are ints from 0 to 2"
        return "the game is already over" if self.end_of_game(state) else "the cell is taken"
