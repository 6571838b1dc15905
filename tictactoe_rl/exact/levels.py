"""Every position two sides can reach, a level (one ply) at a time, as arrays.

``reach`` walks forward from a start: at each level it asks the side to move what it may play in
every position still going (a ``Side``: probabilities per cell, and the chance of an illegal
move), and the next level is every child with probability above zero, each once. A side that
plays one move fixes it, so the walk branches on the other side's moves only. When both sides
treat the board's symmetric images alike, ``symmetric=True`` keeps one position per symmetry
class (the canonical one), up to eight times fewer.

The walks of ``tictactoe_rl.exact`` then go back up the levels: an expectation for two policies,
a maximum for a best response, a minimum for a worst case. One engine for every board: 3x3, 3x4,
4x4 k=3 and 4x4 k=4 alike.
"""

from __future__ import annotations

import os
from math import comb
from dataclasses import dataclass
from typing import Callable

import numpy as np

from State import ONGOING, X
from tictactoe_rl.exact.arena import Arena, Keys
from tictactoe_rl.geometry import BoardShape

# A side's moves in a batch of positions: (probabilities, shape (positions, cells); the chance of
# an illegal move, shape (positions,)). A side that chooses (a best response) gives 1 for every
# move it may choose.
Side = Callable[[Keys], tuple[np.ndarray, np.ndarray]]
Progress = Callable[[str], None]

# What a walk holds per child of a position it keeps: its key, its index, the parent's row and
# probabilities, sorting room. Above the memory there is, a walk stops in one line.
BYTES_PER_CHILD = 64


class TooLarge(MemoryError):
    """A walk that does not fit this machine's memory (its message says how much it needs)."""


@dataclass
class Level:
    """The positions of one ply: ``keys`` sorted, ``mover`` the side to move, ``results`` their
    result codes; for the ``going`` ones (indices into ``keys``) the mover's ``probs`` and
    ``illegal`` chance, and ``children``: the index in the next level of each move with
    probability above zero (-1 elsewhere)."""

    keys: Keys
    mover: int
    results: np.ndarray
    going: np.ndarray
    probs: np.ndarray
    illegal: np.ndarray
    children: np.ndarray


def available_bytes() -> int:
    """The memory this machine has free (physical pages), or a gigabyte where it cannot say."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 1 << 30


def check_fits(shape: BoardShape) -> None:
    """``TooLarge`` when a walk of ``shape``'s whole game (up to symmetry) could not fit in memory:
    its widest level, counted without the games that end early, at ``BYTES_PER_CHILD`` a move."""
    cells, symmetries = shape.size, len(shape.symmetries)
    widest = max(comb(cells, marks) * comb(marks, marks // 2) // symmetries * (cells - marks)
                 for marks in range(cells))
    if widest * BYTES_PER_CHILD > available_bytes():
        raise TooLarge(f"the whole game of {shape.name} needs about "
                       f"{widest * BYTES_PER_CHILD / 2**30:,.0f} GB to walk; this machine has "
                       f"{available_bytes() / 2**30:.1f} GB free")


def reach(arena: Arena, start: int, mover: int, sides: dict[int, Side], symmetric: bool = False,
          progress: Progress | None = None) -> list[Level]:
    """The levels of the game from position ``start`` (a key) with ``mover`` to move, where
    ``sides[X]`` and ``sides[O]`` say what each side may play. ``TooLarge`` when it would not fit
    in memory; ``progress`` hears a line per level."""
    keys = np.array([arena.canonical(np.array([start], np.uint64))[0] if symmetric else start],
                    dtype=np.uint64)
    levels, seen = [], 0
    while len(keys):
        results = arena.results(keys)
        going = np.flatnonzero(results == ONGOING)
        probs, illegal = sides[mover](keys[going])
        rows, cells = np.nonzero(probs > 0)
        needed = len(rows) * BYTES_PER_CHILD
        if needed > available_bytes():
            raise TooLarge(f"the walk of {arena.shape.name} needs about {needed / 2**30:.1f} GB "
                           f"for its level {len(levels) + 1} alone ({len(rows):,} moves); this "
                           f"machine has {available_bytes() / 2**30:.1f} GB free")
        child = arena.played(keys[going][rows], cells, mover)
        if symmetric:
            child = arena.canonical(child)
        following = np.unique(child)
        children = np.full(probs.shape, -1, dtype=np.int64)
        children[rows, cells] = np.searchsorted(following, child)
        levels.append(Level(keys, mover, results, going, probs, illegal, children))
        seen += len(keys)
        if progress is not None:
            progress(f"level {len(levels)}: {len(keys):,} positions, {seen:,} in all")
        keys, mover = following, -mover
    return levels


def child_values(level: Level, below: np.ndarray, fill) -> np.ndarray:
    """``below`` (one row per position of the next level) gathered for each move of each going
    position: shape ``(going, cells, ...)``, ``fill`` where a move has probability zero. (The
    last level's ``below`` is empty: there every move either ends the game or is illegal.)"""
    if not len(below):
        return np.full(level.children.shape + below.shape[1:], fill, dtype=below.dtype)
    gathered = below[np.maximum(level.children, 0)]
    absent = level.children < 0
    gathered[absent] = fill
    return gathered


def total_positions(levels: list[Level]) -> int:
    """How many positions the walk holds."""
    return sum(len(level.keys) for level in levels)
