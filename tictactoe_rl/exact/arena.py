"""Batches of positions of one board as numpy arrays: their moves, results and symmetries.

A position is a key, one unsigned 64-bit number: bit ``i`` is X's mark on flat cell ``i``, bit
``cells + i`` O's. A batch of positions is an array of keys, and a sorted array of keys is a level
of a walk, where ``np.searchsorted`` finds a child. Everything here works on whole batches, so a
walk over millions of positions runs at numpy's speed rather than Python's.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from State import DRAW, O_WON, ONGOING, X, X_WON
from tictactoe_rl.geometry import BoardShape

Keys = np.ndarray      # uint64, one key per position
CHUNK = 8              # bits a symmetry's lookup table permutes at once


class Arena:
    """The batch operations of ``shape``'s positions (see the module's docstring)."""

    def __init__(self, shape: BoardShape) -> None:
        self.shape = shape
        self.cells = shape.size
        self.mask = np.uint64((1 << self.cells) - 1)
        self.bits = np.uint64(1) << np.arange(self.cells, dtype=np.uint64)
        self.lines = np.array(shape.line_masks, dtype=np.uint64)
        self._images = [self._image_tables(permutation) for permutation in shape.symmetries]

    # --- keys ----------------------------------------------------------------------------------

    def key(self, cells) -> int:
        """The key of a flat sequence of cells (1 X, -1 O, 0 empty)."""
        x_bits, o_bits = self.shape.encode(cells)
        return x_bits | o_bits << self.cells

    def marks(self, keys: Keys) -> tuple[np.ndarray, np.ndarray]:
        """``(x, o)``: the two bitboards of each key."""
        return keys & self.mask, keys >> np.uint64(self.cells)

    def board(self, keys: Keys) -> np.ndarray:
        """Each position's flat cells (1, -1, 0) as a ``(len(keys), cells)`` int8 matrix."""
        x, o = self.marks(keys)
        return (((x[:, None] & self.bits) != 0).astype(np.int8)
                - ((o[:, None] & self.bits) != 0).astype(np.int8))

    def empty(self, keys: Keys) -> np.ndarray:
        """Whether each cell of each position is empty: a ``(len(keys), cells)`` bool matrix."""
        x, o = self.marks(keys)
        return ((x | o)[:, None] & self.bits) == 0

    def played(self, keys: Keys, cells: np.ndarray, mover: int) -> Keys:
        """The key after ``mover`` marks ``cells[i]`` in position ``keys[i]``."""
        shift = np.uint64(0 if mover == X else self.cells)
        return keys | (self.bits[cells] << shift)

    # --- results -------------------------------------------------------------------------------

    def results(self, keys: Keys) -> np.ndarray:
        """Each position's result code (``State``'s: going on, X won, O won, drawn), int8."""
        x, o = self.marks(keys)
        codes = np.full(len(keys), ONGOING, dtype=np.int8)
        codes[(x | o) == self.mask] = DRAW
        for line in self.lines:   # a position of a legal game has at most one side's line
            codes[(x & line) == line] = X_WON
            codes[(o & line) == line] = O_WON
        return codes

    def line_counts(self, keys: Keys, mark: int) -> tuple[np.ndarray, np.ndarray]:
        """Per position and line (in ``win_lines`` order): how many cells ``mark`` holds and how
        many are empty, two ``(len(keys), lines)`` int8 matrices."""
        x, o = self.marks(keys)
        mine = x if mark == X else o
        theirs = o if mark == X else x
        own = np.stack([popcount(mine & line) for line in self.lines], axis=1)
        free = np.stack([popcount(~(mine | theirs) & line) for line in self.lines], axis=1)
        return own, free

    # --- symmetries ----------------------------------------------------------------------------

    def _image_tables(self, permutation: tuple[int, ...]) -> list[np.ndarray]:
        """Per chunk of ``CHUNK`` key bits, the image of each of its values under the symmetry."""
        n = self.cells
        destination = list(permutation) + [n + cell for cell in permutation]
        tables = []
        for start in range(0, 2 * n, CHUNK):
            table = np.zeros(1 << CHUNK, dtype=np.uint64)
            for value in range(1 << CHUNK):
                image = 0
                for offset in range(CHUNK):
                    if value >> offset & 1 and start + offset < 2 * n:
                        image |= 1 << destination[start + offset]
                table[value] = image
            tables.append(table)
        return tables

    def images(self, keys: Keys) -> list[Keys]:
        """Each position's image under each of the board's symmetries, the identity first."""
        found = []
        for tables in self._images:
            image = np.zeros(len(keys), dtype=np.uint64)
            for index, table in enumerate(tables):
                image |= table[(keys >> np.uint64(index * CHUNK)) & np.uint64((1 << CHUNK) - 1)]
            found.append(image)
        return found

    def canonical(self, keys: Keys) -> Keys:
        """Each position's canonical key: the smallest of its images."""
        return np.minimum.reduce(self.images(keys))


def popcount(values: np.ndarray) -> np.ndarray:
    """The number of set bits of each uint64 value, as int8 (summed in ever wider fields, which
    works on every numpy, not only those with ``np.bitwise_count``)."""
    v = values - ((values >> np.uint64(1)) & np.uint64(0x5555555555555555))
    v = (v & np.uint64(0x3333333333333333)) + ((v >> np.uint64(2)) & np.uint64(0x3333333333333333))
    v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return ((v * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.int8)


@lru_cache(maxsize=8)
def arena_of(shape: BoardShape) -> Arena:
    """The one arena of ``shape`` (its symmetry tables are built once)."""
    return Arena(shape)

