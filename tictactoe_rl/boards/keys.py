"""Positions as one integer key, and the canonical key that names all symmetric copies at once.

A key holds two bitboards of a board of ``n`` cells: ``first | second << n`` (the solver puts the
side to move first, the position counter X first). ``Canonical(shape)(key)`` is the smallest of
the key's images under the board's symmetries, so two positions that are turns or mirrors of
each other get the same canonical key. ``canonical_of(shape)`` gives the one ``Canonical`` of a
shape (its tables take a moment to build, so they are built once).
"""

from __future__ import annotations

from functools import lru_cache
from operator import or_

from tictactoe_rl.geometry import BoardShape

_CHUNK_BITS = 16  # a lookup table covers at most this many bits of a key (2**16 entries)


class Canonical:
    """The canonical key of any key of ``shape``, a table lookup per chunk of the key: entry
    ``v`` of table ``j`` holds, per symmetry, the image of the key bits ``v`` at chunk ``j``."""

    def __init__(self, shape: BoardShape) -> None:
        n, symmetries = shape.size, shape.symmetries
        key_bits = 2 * n
        chunks = -(-key_bits // _CHUNK_BITS)
        self._bits = bits = -(-key_bits // chunks)
        self._mask = (1 << bits) - 1
        # Where key bit i goes under each symmetry: the first side's cells, then the second's.
        bit_images = [tuple(1 << (perm[i] if i < n else n + perm[i - n]) for perm in symmetries)
                      for i in range(key_bits)]
        nothing = (0,) * len(symmetries)
        self._tables = []
        for chunk in range(chunks):
            width = min(bits, key_bits - chunk * bits)
            table = [nothing]
            for value in range(1, 1 << width):
                lowest = value & -value
                # Built from the entry without its lowest bit: one C-level pass of ORs each.
                table.append(tuple(map(or_, table[value ^ lowest],
                                       bit_images[chunk * bits + lowest.bit_length() - 1])))
            self._tables.append(table)

    def images(self, key: int) -> tuple[int, ...]:
        """``key`` under each of the board's symmetries, in ``shape.symmetries`` order."""
        bits, mask = self._bits, self._mask
        parts = [table[key >> (i * bits) & mask] for i, table in enumerate(self._tables)]
        if len(parts) == 1:
            return parts[0]
        return tuple(map(sum, zip(*parts)))  # the chunks' images never share a bit

    def __call__(self, key: int) -> int:
        """The smallest image of ``key``: one name for all the symmetric copies of a position."""
        tables = self._tables
        if len(tables) == 2:  # every board up to 4x4: the common case, kept to one C-level pass
            return min(map(or_, tables[0][key & self._mask], tables[1][key >> self._bits]))
        return min(self.images(key))


@lru_cache(maxsize=8)
def canonical_of(shape: BoardShape) -> Canonical:
    """The ``Canonical`` of ``shape``, built on first use and kept for the next solver or count."""
    return Canonical(shape)
