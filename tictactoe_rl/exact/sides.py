"""What an agent plays, for a whole level of positions at once: the ``Side`` of a walk.

Any agent that states its policy with ``action_probs(state)`` has one: it is asked position by
position (``StatedPolicy``), its answer checked and turned into a row of probabilities per cell.
The random player, the advanced one and the perfect one are computed for the whole level in a few
array operations instead (their rules are short; a test holds each to its agent's
``action_probs``), and the first and last are symmetric: they treat a position and its turned or
mirrored copies alike, which lets a walk keep one position per symmetry class. An agent that
can answer for a whole level itself (a ``LevelPolicy``: the network) brings its own ``Side``, and
a bigger board's Q-table read from its file is read for a whole level by binary search
(``greedy_tables``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from functools import lru_cache
from typing import Callable

import numpy as np

from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced
from State import O_WON, X, X_WON, State
from tictactoe_rl.boards.perfect import PerfectAgent
from tictactoe_rl.exact.arena import Arena, Keys, arena_of, popcount
from tictactoe_rl.exact.greedy_tables import greedy_table_side
from tictactoe_rl.exact.levels import Side, child_values, reach
from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from tictactoe_rl.positions import intern

# Probabilities must sum to 1 within this (floating-point sums of ninths and fifths).
PROBABILITY_TOLERANCE = 1e-9


def position(shape: BoardShape, cells: tuple[int, ...], player: int) -> State:
    """The position object of ``cells`` with ``player`` to move (a ``State`` on 3x3)."""
    return State(cells, player) if shape == TIC_TAC_TOE else intern(shape, cells, player)


def checked_probs(agent, state: State) -> dict:
    """``agent.action_probs(state)`` after checking it is a probability distribution (its moves
    may be illegal: a walk scores an illegal move as its player's loss)."""
    probs = agent.action_probs(state)
    total = 0.0
    for p in probs.values():
        if p < 0:
            raise ValueError(f"{type(agent).__name__}.action_probs gives negative probability {p}")
        total += p
    if abs(total - 1.0) > PROBABILITY_TOLERANCE:
        raise ValueError(f"{type(agent).__name__}.action_probs sums to {total}, not 1")
    return probs


class StatedPolicy:
    """The ``Side`` of any agent: ``action_probs`` asked of each position. An illegal move (an
    occupied cell, one off the board) counts in ``illegal``; ``illegal_moves`` keeps one such
    move per position key, for a worst case's line."""

    def __init__(self, agent, arena: Arena) -> None:
        self.agent, self.arena = agent, arena
        self.index = {cell: i for i, cell in enumerate(arena.shape.cells)}
        self.illegal_moves: dict[int, object] = {}

    def __call__(self, keys: Keys) -> tuple[np.ndarray, np.ndarray]:
        shape, player = self.arena.shape, self.agent.player
        boards = self.arena.board(keys).tolist()
        probs = np.zeros((len(keys), shape.size))
        illegal = np.zeros(len(keys))
        for row, cells in enumerate(boards):
            for action, p in checked_probs(self.agent, position(shape, tuple(cells),
                                                                player)).items():
                cell = self.index.get(action) if isinstance(action, tuple) else None
                if cell is None or cells[cell] != 0:
                    illegal[row] += p
                    if p:
                        self.illegal_moves.setdefault(int(keys[row]), action)
                else:
                    probs[row, cell] += p
        return probs, illegal


def uniform(arena: Arena) -> Side:
    """The random player: every empty cell alike."""
    def side(keys: Keys) -> tuple[np.ndarray, np.ndarray]:
        empty = arena.empty(keys)
        return empty / empty.sum(axis=1, keepdims=True), np.zeros(len(keys))
    return side


def completing(arena: Arena, keys: Keys, mark: int) -> np.ndarray:
    """Per position, the empty cell completing the first line (``win_lines`` order) that holds
    ``k - 1`` of ``mark`` and one empty cell; -1 where there is none (``completing_cell``)."""
    own, free = arena.line_counts(keys, mark)
    ready = (own == arena.shape.k - 1) & (free == 1)
    first = ready.argmax(axis=1)
    x, o = arena.marks(keys)
    empty_bit = arena.lines[first] & ~(x | o)
    cell = popcount(empty_bit - np.uint64(1)).astype(np.int64)  # the bit's index
    return np.where(ready.any(axis=1), cell, -1)


def advanced(arena: Arena, player: int, random_step: int) -> Side:
    """The advanced player: its winning cell, else the blocking one, with probability
    ``1 - 1/random_step``; uniformly at random otherwise (``Random_Agent_Advanced``)."""
    smart = 1.0 - 1.0 / random_step

    def side(keys: Keys) -> tuple[np.ndarray, np.ndarray]:
        empty = arena.empty(keys)
        counts = empty.sum(axis=1, keepdims=True)
        target = completing(arena, keys, player)
        blocked = completing(arena, keys, -player)
        target = np.where(target >= 0, target, blocked)
        forced = np.flatnonzero(target >= 0)
        probs = np.where(empty, np.where(target[:, None] >= 0, 1.0 - smart, 1.0) / counts, 0.0)
        probs[forced, target[forced]] += smart
        return probs, np.zeros(len(keys))
    return side


def every_move(arena: Arena) -> Side:
    """Every legal move with weight 1 (a chooser free to play anything)."""
    def side(keys: Keys) -> tuple[np.ndarray, np.ndarray]:
        return arena.empty(keys).astype(np.float64), np.zeros(len(keys))
    return side


class Solved:
    """The perfect-play value (from X's view: 1, 0, -1) of every position of a board's game,
    from one walk of the whole game up to symmetry and back (4x4 k=4: a few seconds)."""

    def __init__(self, shape: BoardShape) -> None:
        self.arena = arena = arena_of(shape)
        levels = reach(arena, 0, X, {X: every_move(arena), -X: every_move(arena)}, symmetric=True)
        below, keys, values = np.zeros(0, dtype=np.int8), [], []
        for level in reversed(levels):
            value = np.zeros(len(level.keys), dtype=np.int8)
            value[level.results == X_WON], value[level.results == O_WON] = 1, -1
            if len(level.going):
                choices = child_values(level, below, -2 * level.mover)
                value[level.going] = choices.max(1) if level.mover == X else choices.min(1)
            below = value
            keys.append(level.keys)
            values.append(value)
        order = np.argsort(np.concatenate(keys))
        self.keys, self.values = np.concatenate(keys)[order], np.concatenate(values)[order]

    def value(self, keys: Keys) -> np.ndarray:
        """The perfect-play value of each position (any position of the game, any copy)."""
        return self.values[np.searchsorted(self.keys, self.arena.canonical(keys))]

    def move_values(self, keys: Keys, mover: int) -> np.ndarray:
        """Per position and cell, the value for ``mover`` of playing there (-2 where occupied)."""
        empty = self.arena.empty(keys)
        rows, cells = np.nonzero(empty)
        values = np.full(empty.shape, -2, dtype=np.int8)
        values[rows, cells] = self.value(self.arena.played(keys[rows], cells, mover)) * mover
        return values


@lru_cache(maxsize=4)
def solved(shape: BoardShape) -> Solved:
    """The one ``Solved`` of ``shape`` per process."""
    return Solved(shape)


def perfect(arena: Arena, player: int) -> Side:
    """The perfect player: every move that keeps the best value for its side, alike."""
    values = solved(arena.shape)

    def side(keys: Keys) -> tuple[np.ndarray, np.ndarray]:
        scores = values.move_values(keys, player)
        best = scores == scores.max(axis=1, keepdims=True)
        return best / best.sum(axis=1, keepdims=True), np.zeros(len(keys))
    return side


def safe(arena: Arena, player: int) -> Side:
    """Every move that keeps the mover's perfect-play result, with weight 1 (a chooser's
    moves when it must never lose)."""
    values = solved(arena.shape)

    def side(keys: Keys) -> tuple[np.ndarray, np.ndarray]:
        scores = values.move_values(keys, player)
        return (scores == scores.max(axis=1, keepdims=True)).astype(np.float64), \
            np.zeros(len(keys))
    return side


class LevelPolicy(ABC):
    """An agent that can state ``action_probs`` for a whole level of positions at once (the
    network, ``tictactoe_rl.neural``: one batched forward pass instead of one a position). Its
    package imports this one, never the other way round, so the agent brings its own ``Side``."""

    @abstractmethod
    def level_side(self, arena: Arena) -> Side | None:
        """The ``Side`` that gives, for every position of a batch, exactly the probabilities
        ``action_probs`` gives; ``None`` when this agent cannot promise that (a subclass that
        may play otherwise), so that it is asked position by position."""


# The agents computed for a whole level, by exact type (a subclass may play otherwise).
_BUILDERS: dict[type, Callable] = {
    Random_Agent: lambda agent, arena: uniform(arena),
    Random_Agent_Advanced: lambda agent, arena: advanced(arena, agent.player, agent.random_step),
    PerfectAgent: lambda agent, arena: perfect(arena, agent.player),
}
_SYMMETRIC = (Random_Agent, PerfectAgent)


def side_of(agent, arena: Arena) -> Side:
    """The ``Side`` that plays as ``agent`` does: computed for the level by exact type, else
    the agent's own level policy or its greedy table's (``greedy_tables``), else
    ``action_probs`` asked of each position."""
    build = _BUILDERS.get(type(agent))
    if build is not None:
        return build(agent, arena)
    side = agent.level_side(arena) if isinstance(agent, LevelPolicy) else \
        greedy_table_side(agent, arena)
    return StatedPolicy(agent, arena) if side is None else side


def is_symmetric(agent) -> bool:
    """Whether ``agent`` is known to treat a position's turned and mirrored copies alike."""
    return type(agent) in _SYMMETRIC
