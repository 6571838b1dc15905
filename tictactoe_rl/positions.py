"""Positions of any m,n,k board: ``BoardState``, a ``State`` that carries its board.

3x3 k=3 keeps the course's ``State`` (its speed and every test of it untouched); every other board
(``Board.BoardShape``) has ``BoardState`` s: immutable, one shared object per position, the same
attributes and methods, so everything written against ``State`` -- the agents, the episodes, the
tables, ``position_of`` -- plays on them unchanged. What differs is read off ``shape``.
``start_position(shape)`` is the empty board of a shape, ``shape_of(state)`` the board of any
position.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING

from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from State import DRAW, EMPTY, O, O_WON, ONGOING, X, X_WON, Live_State, State, position_of

if TYPE_CHECKING:
    import numpy as np

# Weak: a position nothing holds any more (a table's key, an episode, a parent's children) is let
# go, so a long 4x4 run keeps only what it uses; while one is held, it is the only one.
_INTERNED: weakref.WeakValueDictionary[tuple[BoardShape, tuple[int, ...], int], "BoardState"] = \
    weakref.WeakValueDictionary()


class BoardState(State):
    """An immutable position of ``shape`` (any board but 3x3 k=3): ``BoardState(shape, board=None,
    player=1)``, where ``board`` is a rows x cols array, a nested or a flat sequence of 1 (X),
    -1 (O) and 0 (empty). A ``ValueError`` of one line for anything else."""

    __slots__ = ("shape", "__weakref__")

    def __new__(cls, shape: BoardShape, board=None, player: int = X) -> "BoardState":
        if player not in (X, O) or isinstance(player, bool):
            raise ValueError(f"player must be 1 (X) or -1 (O), got {player!r}")
        if shape == TIC_TAC_TOE:   # an equal BoardState would hash apart from the State it equals
            raise ValueError("a 3x3 k=3 position is a State: use State(board, player)")
        if board is None:
            cells = (EMPTY,) * shape.size
        else:
            import numpy as np   # only a board given as an array needs it
            try:
                values = np.asarray(board, dtype=object).reshape(-1).tolist()
            except (TypeError, ValueError):
                raise ValueError(f"board must be {shape.rows}x{shape.cols} cells") from None
            cells = shape.decode(shape.encode(values))   # encode checks the length and values
        return intern(shape, cells, int(player))

    def _fill_shape(self, shape: BoardShape, cells: tuple[int, ...], player: int) -> None:
        setter = object.__setattr__
        setter(self, "shape", shape)
        for name, value in (("cells", cells), ("player", player), ("_board", None),
                            ("_legal", None), ("_children", None), ("_q_keys", None)):
            setter(self, name, value)
        setter(self, "end_of_game", result_of(shape, cells))

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        if not isinstance(other, State):
            return NotImplemented
        return (self.shape == shape_of(other) and self.cells == other.cells
                and self.player == other.player)

    __hash__ = State.__hash__   # each position is one object (see State)

    def __reduce__(self):
        return (BoardState, (self.shape, self.cells, self.player))

    def reset(self) -> State:
        """The empty board of this shape (a position never changes; see ``State.reset``)."""
        return start_position(self.shape)

    @property
    def board(self) -> np.ndarray:
        if self._board is None:
            import numpy as np
            array = np.frombuffer(np.array(self.cells, dtype=np.int64).tobytes(),
                                  dtype=np.int64).reshape(self.shape.rows, self.shape.cols)
            object.__setattr__(self, "_board", array)
        return self._board

    def legal_actions(self) -> tuple[tuple[int, int], ...]:
        if self._legal is None:
            cells = self.shape.cells
            legal = () if self.end_of_game else tuple(
                cells[i] for i, value in enumerate(self.cells) if value == EMPTY)
            object.__setattr__(self, "_legal", legal)
        return self._legal

    def children(self) -> Successors:
        """``{action: position after it}`` for every legal action, each made when it is asked
        for: a 4x4 run meets millions of positions, and a cache of every position's successors
        would keep them all alive."""
        if self._children is None:
            object.__setattr__(self, "_children", Successors(self))
        return self._children

    def __repr__(self) -> str:
        return f"BoardState({self.shape.name}, {list(self.cells)}, player={self.player})"

    def __str__(self) -> str:
        symbols, cols = {X: "X", O: "O", EMPTY: "."}, self.shape.cols
        return "\n".join(" ".join(symbols[v] for v in self.cells[r * cols:(r + 1) * cols])
                         for r in range(self.shape.rows))


class Successors(Mapping):
    """The positions after each legal move of ``parent``, as a read-only mapping that makes each
    when it is read (one shared object per position while anything holds it)."""

    __slots__ = ("parent",)

    def __init__(self, parent: BoardState) -> None:
        self.parent = parent

    def __getitem__(self, action) -> BoardState:
        parent = self.parent
        if action not in parent.legal_actions():
            raise KeyError(action)
        cells = list(parent.cells)
        cells[action[0] * parent.shape.cols + action[1]] = parent.player
        return intern(parent.shape, tuple(cells), -parent.player)

    def __iter__(self):
        return iter(self.parent.legal_actions())

    def __len__(self) -> int:
        return len(self.parent.legal_actions())


class PositionCache(dict):
    """A dict keyed by positions that never holds more than ``limit`` entries: when full, it starts
    again empty. All of 3x3 fits (5,478 positions, 16,167 pairs of a position and a legal move),
    so there it is a plain dict; a long run on a bigger board meets millions, which would
    otherwise all stay."""

    __slots__ = ("limit",)

    def __init__(self, limit: int = 1 << 15) -> None:
        super().__init__()
        self.limit = limit

    def __setitem__(self, key, value) -> None:
        if len(self) >= self.limit:
            self.clear()
        super().__setitem__(key, value)


def complete_line(shape: BoardShape, cells: tuple[int, ...]) -> tuple[int, ...] | None:
    """The first of ``shape.win_lines`` that one side's marks fill in ``cells``, or ``None``."""
    for line in shape.win_lines:
        first = cells[line[0]]
        if first != EMPTY and all(cells[i] == first for i in line):
            return line
    return None


def result_of(shape: BoardShape, cells: tuple[int, ...]) -> int:
    """The result code of ``cells`` on ``shape``: a line of ``k`` wins, a full board draws."""
    line = complete_line(shape, cells)
    if line is not None:
        return X_WON if cells[line[0]] == X else O_WON
    return DRAW if EMPTY not in cells else ONGOING


def intern(shape: BoardShape, cells: tuple[int, ...], player: int) -> BoardState:
    """The one shared ``BoardState`` of these (already valid) cells and side to move."""
    key = (shape, cells, player)
    state = _INTERNED.get(key)
    if state is None:
        state = object.__new__(BoardState)
        state._fill_shape(shape, cells, player)
        _INTERNED[key] = state
    return state


def start_position(shape: BoardShape = TIC_TAC_TOE) -> State:
    """The empty board of ``shape``, X to move: the course's ``State()`` on 3x3 k=3."""
    if shape is TIC_TAC_TOE or shape == TIC_TAC_TOE:   # "is": the common case, without a compare
        return State()
    return intern(shape, (EMPTY,) * shape.size, X)


def shape_of(state: State | Live_State) -> BoardShape:
    """The board of ``state`` (a position or the live game): 3x3 k=3 for the course's ``State``."""
    position = position_of(state)
    return position.shape if isinstance(position, BoardState) else TIC_TAC_TOE
