"""A Tic-Tac-Toe position: the nine cells and the side to move.

Cells hold ``1`` for X, ``-1`` for O and ``0`` for an empty cell; ``player`` is the side to move
(``1`` for X, ``-1`` for O). A ``State`` never changes after it is made, so it is safe as a
dictionary key: the Q-tables of the course are dicts keyed by ``(state, action)``.

Two kinds of object, because the course asks two things of "a state":
- ``State`` is a *position*: what ``next_state`` returns, what episodes hold and what the tables
  are keyed by. It never changes, so a key can never change under a table.
- ``Live_State`` is the *game being played*, ``env.state``: the GUI shows it, ``env.move`` plays
  on it, and ``env.state.reset()`` starts it again (the course's ``Game.py`` does exactly that).
  It reads like a position (``board``, ``player``, ``end_of_game``, ...), but it changes, so it
  cannot be a dict key; ``copy()`` gives the position it shows now.
``position_of(state)`` gives the position of either (``copy()``, the course's way, gives the
same: on a ``State`` it is the state itself); every agent reads a live game through it.
The course's ``test()`` also calls ``state.reset()`` on a position after each game; a position
cannot be reset, so there it only returns the empty board (the loop makes a new one anyway).

Speed comes from the representation: the cells are a tuple of nine ints, the result of the game is
computed once, and each distinct position exists only once in memory (making the same position
again returns the same object), so its legal moves and successors are cached on it and its
identity serves as its hash.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tictactoe_rl import environment_check

if TYPE_CHECKING:
    import numpy as np

# A course script run by a Python without the project's packages stops here, with one line.
environment_check.check_running_script()

X, O, EMPTY = 1, -1, 0

# Result codes (``state.end_of_game``): the game goes on, X won, O won, draw.
ONGOING, X_WON, O_WON, DRAW = 0, 1, -1, 2

SIZE = 3
EMPTY_BOARD: tuple[int, ...] = (EMPTY,) * (SIZE * SIZE)
ALL_CELLS: tuple[tuple[int, int], ...] = tuple((r, c) for r in range(SIZE) for c in range(SIZE))

# The eight lines of three, as flat cell indices, in the course's scanning order:
# rows top to bottom, columns left to right, the main diagonal, the anti-diagonal.
WIN_LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),
    (0, 3, 6), (1, 4, 7), (2, 5, 8),
    (0, 4, 8), (2, 4, 6),
)

_SYMBOLS = {X: "X", O: "O", EMPTY: "."}
_INTERNED: dict[tuple[tuple[int, ...], int], "State"] = {}


def _cells_from(board) -> tuple[int, ...]:
    """Turn a 3x3 array, nested sequence or flat sequence of 9 into a tuple of 9 ints, or raise."""
    if board is None:
        return EMPTY_BOARD
    import numpy as np   # here, not at the top: a training run makes no board, and skips its import
    try:
        values = np.asarray(board, dtype=object).reshape(-1).tolist()
    except (TypeError, ValueError):
        raise ValueError(f"board must be 3x3 or 9 cells, got {board!r}") from None
    if len(values) != 9:
        raise ValueError(f"board must be 3x3 or 9 cells, got {len(values)} values")
    for v in values:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number)) or v not in (X, O, EMPTY):
            raise ValueError(f"board cells must be 1 (X), -1 (O) or 0 (empty), got {v!r}")
    return tuple(int(v) for v in values)


def _result_of(cells: tuple[int, ...]) -> int:
    for a, b, c in WIN_LINES:
        if cells[a] != EMPTY and cells[a] == cells[b] == cells[c]:
            return X_WON if cells[a] == X else O_WON
    return DRAW if EMPTY not in cells else ONGOING


class State:
    """An immutable Tic-Tac-Toe position.

    ``State(board=None, player=1)``: ``board`` is a 3x3 numpy array, a nested sequence, or a flat
    sequence of 9 values in {1, -1, 0}; ``None`` is the empty board. ``player`` is the side to move.

    Attributes (read-only):
        board        3x3 numpy array (read-only) -- ``state.board[row, col]`` reads a cell.
        cells        the same nine cells as a flat tuple, row-major (fast to read).
        player       the side to move, 1 (X) or -1 (O).
        end_of_game  the result code: 0 going on, 1 X won, -1 O won, 2 draw.
    """

    __slots__ = ("cells", "player", "end_of_game", "_board", "_legal", "_children", "_q_keys")

    def __new__(cls, board=None, player: int = X) -> "State":
        if board is None and type(player) is int and player == X:
            return _START  # the start of every game: no checks to make
        if player not in (X, O) or isinstance(player, bool):
            raise ValueError(f"player must be 1 (X) or -1 (O), got {player!r}")
        return _intern(_cells_from(board), int(player))

    @classmethod
    def from_valid_cells(cls, cells: tuple[int, ...], player: int) -> "State":
        """The shared ``State`` of ``cells`` and ``player``, made without any check.

        For code that derives the cells from a position it already has (its successors, its
        rotations and mirror images): ``cells`` must be a tuple of nine ints in {1, -1, 0} and
        ``player`` the int 1 or -1. Anything else -- a user's board, a file -- goes through
        ``State(board, player)``, which checks and raises ``ValueError``. The result is the same
        object either way.
        """
        return _intern(cells, player)

    def _fill(self, cells: tuple[int, ...], player: int) -> None:
        setter = object.__setattr__
        setter(self, "cells", cells)
        setter(self, "player", player)
        setter(self, "end_of_game", _result_of(cells))
        setter(self, "_board", None)
        setter(self, "_legal", None)
        setter(self, "_children", None)
        setter(self, "_q_keys", None)

    # --- immutability and identity -------------------------------------------------------------
    def __setattr__(self, name, value):
        raise AttributeError(f"State is immutable: cannot set {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"State is immutable: cannot delete {name!r}")

    # Each position exists only once (``_intern``), so two states are equal exactly when they are
    # the same object, and the object's identity is a hash consistent with ``__eq__``. It is
    # computed in C, with no Python call: a training run hashes states some 15 million times
    # (every table lookup hashes its ``(state, action)`` key). Nothing may depend on its value
    # (it differs from run to run); dicts keep insertion order, so tables and files do not.
    __hash__ = object.__hash__

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        if not isinstance(other, State):
            return NotImplemented
        return self.cells == other.cells and self.player == other.player

    def __reduce__(self):
        # Pickling (torch.save, copy, deepcopy) goes through the constructor, so a loaded state is
        # the one shared instance of its position.
        return (State, (self.cells, self.player))

    def copy(self) -> "State":
        """A state equal to this one. States never change, so this is the same shared object."""
        return self

    def reset(self) -> "State":
        """The empty board. A position never changes, so this one stays as it is; the course's
        ``state.reset()`` after a game is harmless. (``env.state.reset()`` does restart the live
        game: see ``Live_State``.)"""
        return State()

    # --- reading the position --------------------------------------------------------------------
    @property
    def board(self) -> np.ndarray:
        if self._board is None:
            import numpy as np
            # A view of immutable bytes: unlike a plain read-only array, it cannot be made
            # writeable again, so no one can change a position through its board.
            array = np.frombuffer(np.array(self.cells, dtype=np.int64).tobytes(),
                                  dtype=np.int64).reshape(SIZE, SIZE)
            object.__setattr__(self, "_board", array)
        return self._board

    def legal_actions(self) -> tuple[tuple[int, int], ...]:
        """The empty cells as ``(row, col)`` pairs, row-major; none once the game is over."""
        if self._legal is None:
            legal = () if self.end_of_game else tuple(
                ALL_CELLS[i] for i in range(9) if self.cells[i] == EMPTY)
            object.__setattr__(self, "_legal", legal)
        return self._legal

    def q_keys(self) -> tuple[tuple["State", tuple[int, int]], ...]:
        """``(self, action)`` for each legal action, in ``legal_actions()`` order: the keys under
        which a Q-table holds this position's values (made once, so a lookup builds no tuple)."""
        if self._q_keys is None:
            object.__setattr__(self, "_q_keys", tuple((self, a) for a in self.legal_actions()))
        return self._q_keys

    def children(self) -> dict[tuple[int, int], "State"]:
        """``{action: state after it}`` for every legal action (computed once per position)."""
        if self._children is None:
            kids = {}
            for action in self.legal_actions():
                cells = list(self.cells)
                cells[action[0] * SIZE + action[1]] = self.player
                kids[action] = _intern(tuple(cells), -self.player)
            object.__setattr__(self, "_children", kids)
        return self._children

    def __repr__(self) -> str:
        return f"State({list(self.cells)}, player={self.player})"

    def __str__(self) -> str:
        rows = (" ".join(_SYMBOLS[v] for v in self.cells[r * SIZE:(r + 1) * SIZE]) for r in range(SIZE))
        return "\n".join(rows)


class Live_State:
    """The game being played (``env.state``): a position that moves on.

    ``position`` is the ``State`` it shows now; ``env.move`` sets it, ``reset()`` puts the empty
    board back. It reads like that position -- ``board``, ``cells``, ``player``, ``end_of_game``,
    ``legal_actions()``, ``children()``, ``str`` -- so every function that takes a state takes it.
    It is not hashable, because it changes: use ``copy()`` (the position now) as a key.
    """

    __slots__ = ("position",)

    def __init__(self, position: State | Live_State | None = None) -> None:
        self.position = State() if position is None else position_of(position)

    def reset(self) -> State:
        """Start again on the empty board (of the same size), X to move; return that position."""
        self.position = self.position.reset()
        return self.position

    def copy(self) -> State:
        """The position shown now: a ``State``, which never changes."""
        return self.position

    board = property(lambda self: self.position.board, doc="The cells as a numpy array, rows x cols.")
    cells = property(lambda self: self.position.cells, doc="The nine cells, row-major.")
    player = property(lambda self: self.position.player, doc="The side to move, 1 or -1.")
    end_of_game = property(lambda self: self.position.end_of_game,
                           doc="The result code: 0 going on, 1 X won, -1 O won, 2 draw.")

    def legal_actions(self) -> tuple[tuple[int, int], ...]:
        return self.position.legal_actions()

    def q_keys(self) -> tuple[tuple[State, tuple[int, int]], ...]:
        """The Q-table keys of the position shown now (see ``State.q_keys``)."""
        return self.position.q_keys()

    def children(self) -> dict[tuple[int, int], State]:
        return self.position.children()

    def __eq__(self, other) -> bool:
        if not isinstance(other, (State, Live_State)):
            return NotImplemented
        return self.position == other.copy()

    def __hash__(self):
        raise TypeError("the live game (env.state) changes as it is played, so it cannot be a "
                        "dict key: use env.state.copy(), the position it shows now")

    def __repr__(self) -> str:
        return f"Live_State({self.position!r})"

    def __str__(self) -> str:
        return str(self.position)


def position_of(state: State | Live_State) -> State:
    """The position ``state`` shows: the state itself, or the live game's position now."""
    if isinstance(state, State):
        return state
    if isinstance(state, Live_State):
        return state.position
    raise TypeError(f"expected a State (or the live game env.state), got "
                    f"{type(state).__name__}: make a position with State(board, player)")


def _intern(cells: tuple[int, ...], player: int) -> State:
    """The one shared State for these (already valid) cells and side to move."""
    key = (cells, player)
    state = _INTERNED.get(key)
    if state is None:
        state = object.__new__(State)
        state._fill(cells, player)
        _INTERNED[key] = state
    return state


_START = _intern(EMPTY_BOARD, X)   # the empty board, X to move: State() returns it


def all_states(start: State | None = None) -> list[State]:
    """Every position reachable from ``start`` (default: the empty board), each once, in the
    order a depth-first walk first meets them (the same in every run)."""
    start = start or State()
    seen = {start: None}   # a dict, not a set: its order does not depend on the hashes
    frontier: list[State] = [start]
    while frontier:
        state = frontier.pop()
        for child in state.children().values():
            if child not in seen:
                seen[child] = None
                frontier.append(child)
    return list(seen)


def symbol(player: int) -> str:
    """'X' for 1, 'O' for -1."""
    return _SYMBOLS[player]


def parse_moves(text: str, start: State | None = None) -> State:
    """Play moves written as ``"1,1 0,0"`` (row,col pairs, 0-based) from ``start``; raise ValueError."""
    state = start or State()
    for token in text.split():
        parts = token.split(",")
        if len(parts) != 2 or not all(p.strip().lstrip("-").isascii()
                                      and p.strip().lstrip("-").isdigit() for p in parts):
            raise ValueError(f"move {token!r} is not 'row,col'")
        action = (int(parts[0]), int(parts[1]))
        if action not in ALL_CELLS:
            raise ValueError(f"move {token!r} is off the board (row and col go from 0 to "
                             f"{SIZE - 1})")
        if action not in state.children():
            why = "the game is over" if state.children() == {} else "the cell is taken"
            raise ValueError(f"move {token!r} is not legal in this position ({why})")
        state = state.children()[action]
    return state
