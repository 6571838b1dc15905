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

from State import ONGOING
from tictactoe_rl.exact.arena import Arena, Keys
from tictactoe_rl.geometry import BoardShape

# A side's moves in a batch of positions: (probabilities, shape (positions, cells); the chance of
# an illegal move, shape (positions,)). A side that chooses (a best response) gives 1 for every
# move it may choose.
Side = Callable[[Keys], tuple[np.ndarray, np.ndarray]]
Progress = Callable[[str], None]

# What a walk holds: per position it keeps, its key, result and row of probabilities and
# children (``position_bytes``); per child of a level being made, its key, index, the parent's row
# and sorting room. Above the memory there is, a walk stops in one line.
BYTES_PER_CHILD = 64


def position_bytes(cells: int) -> int:
    """The bytes a walk keeps per position of a board of ``cells`` cells (a ``Level``'s arrays:
    a key, a result, an index, an illegal chance, and a float and an index per cell)."""
    return 8 + 1 + 8 + 8 + 16 * cells


class TooLarge(ValueError):
    """A walk that does not fit this machine's memory: its message, one line, says how much it
    would need (a ``ValueError``, so a command prints it as it prints any bad request)."""


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
    """The memory a new walk can have: Linux's MemAvailable (free pages and the cache it can give
    back), else the free physical pages, or a gigabyte where neither can be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 1 << 30


def walk_bound(shape: BoardShape, empty: int | None = None, symmetric: bool = True) -> int:
    """At most how many positions a walk of ``shape``'s game keeps, from a position with
    ``empty`` empty cells (``None``: the empty board): every way to place the next marks, games
    that end early counted too, one per symmetry class when ``symmetric`` (about 8 times fewer
    on a square board, 4 on another; a walk of agents that are not symmetric keeps them all)."""
    empty = shape.size if empty is None else empty
    count = sum(comb(empty, placed) * comb(placed, (placed + 1) // 2)
                for placed in range(empty + 1))
    return -(-count // len(shape.symmetries)) if symmetric else count


def check_fits(shape: BoardShape, empty: int | None = None, symmetric: bool = True) -> None:
    """``TooLarge`` at once, before any walk, when a walk of ``shape``'s game from a position
    with ``empty`` empty cells (``None``: the empty board) could not fit in this machine's free
    memory: ``walk_bound`` positions at ``position_bytes`` each, all levels together."""
    needed = walk_bound(shape, empty, symmetric) * position_bytes(shape.size)
    if needed > available_bytes():
        raise TooLarge(f"the exact tools cannot walk the game of {shape.name}: it needs about "
                       f"{needed / 2**30:,.1f} GB of memory, this machine has "
                       f"{available_bytes() / 2**30:.1f} GB free")


def reach(arena: Arena, start: int, mover: int, sides: dict[int, Side], symmetric: bool = False,
          progress: Progress | None = None) -> list[Level]:
    """The levels of the game from position ``start`` (a key) with ``mover`` to move, where
    ``sides[X]`` and ``sides[O]`` say what each side may play. ``TooLarge`` when it would not fit
    in memory: at once where the game could not (``check_fits``), else at the level that does
    not; ``progress`` hears a line per level."""
    check_fits(arena.shape, arena.cells - bin(start).count("1"), symmetric)
    keys = np.array([arena.canonical(np.array([start], np.uint64))[0] if symmetric else start],
                    dtype=np.uint64)
    levels, seen = [], 0
    while len(keys):
        results = arena.results(keys)
        going = np.flatnonzero(results == ONGOING)
        probs, illegal = sides[mover](keys[going])
        rows, cells = np.nonzero(probs > 0)
        needed = len(rows) * BYTES_PER_CHILD   # free memory already excludes the levels held
        if needed > available_bytes():
            raise TooLarge(f"the exact tools cannot walk the game of {arena.shape.name}: its level "
                           f"{len(levels) + 1} alone needs about {needed / 2**30:.1f} GB "
                           f"({len(rows):,} moves), this machine has "
                           f"{available_bytes() / 2**30:.1f} GB free")
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
