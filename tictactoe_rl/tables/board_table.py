"""A bigger board's Q-table as its file holds it: ``BoardTable``, read when asked, not rebuilt.

A 4x4 table holds millions of entries; making a position object and a dict entry for each took
most of half a minute, while a game reads a few dozen of them. So the table keeps the file's
columns (checked by ``tictactoe_rl.tables.board_files``) and one sorted key per entry (``entry_keys``: the
position's bitboards, then the move); the values of a position are found by binary search
(``numpy.searchsorted``) the first time it is asked for, and remembered while it is in use.

It is a ``MutableMapping`` ``{(state, (row, col)): value}`` like the course's dict: ``get``,
``[]``, ``in``, ``len``, iteration (in the file's order, then what was set since) and assignment
all behave as on the dict the file once loaded into. What is set or deleted after loading is
kept beside the file's columns (a resumed run trains into it), and ``columns`` gives the arrays
a file of the table holds, without a position object made for the unchanged entries.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, MutableMapping
from itertools import compress
from numbers import Real

import numpy as np

from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from tictactoe_rl.positions import BoardState, PositionCache, intern, shape_of
from State import O, X, State, symbol
from tictactoe_rl.tables.checks import short

# Each entry's key: x_bits, o_bits, move, in 25 + 25 + 5 bits (the largest board has 25 cells),
# so that one int64 sorts the entries by position, then move, and a position's moves are a run.
CELL_BITS = 25
MOVE_BITS = 5
_MISSING = object()

Columns = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]   # x_bits, o_bits, moves, values


def entry_keys(x_bits: np.ndarray, o_bits: np.ndarray, moves: np.ndarray) -> np.ndarray:
    """One int64 per entry, ordered by position (``x_bits``, ``o_bits``), then move."""
    position = (x_bits.astype(np.int64) << CELL_BITS) | o_bits.astype(np.int64)
    return (position << MOVE_BITS) | moves.astype(np.int64)


def entry_columns(shape: BoardShape, side: int, items) -> Columns:
    """The columns of the entries ``items`` (``((state, (row, col)), value)`` pairs), each
    checked as a file's entry must be: a ``ValueError`` naming the first that is not a finite
    value of a legal move of a position of ``shape`` with ``side`` to move."""
    bits: dict[State, tuple[int, int]] = {}
    x_bits, o_bits, moves, values = [], [], [], []
    for key, value in items:
        if not _entry_fits(shape, side, key, value):
            where = f"{key[0]!r}, {short(key[1])}" if type(key) is tuple and len(key) == 2 \
                else short(key)
            raise ValueError(f"{where}: {short(value)} is not a finite value of a legal "
                             f"move of a {shape.name} position with {symbol(side)} to move")
        state, action = key
        pair = bits.get(state)
        if pair is None:
            pair = bits[state] = shape.encode(state.cells)
        x_bits.append(pair[0])
        o_bits.append(pair[1])
        moves.append(shape.index(*action))
        values.append(float(value))
    return (np.array(x_bits, dtype=np.uint32), np.array(o_bits, dtype=np.uint32),
            np.array(moves, dtype=np.uint8), np.array(values, dtype=np.float64))


def _entry_fits(shape: BoardShape, side: int, key, value) -> bool:
    if isinstance(value, bool) or not isinstance(value, Real):
        return False
    try:
        finite = math.isfinite(value)
    except OverflowError:    # an int too large for a float
        finite = False
    return finite and type(key) is tuple and len(key) == 2 and isinstance(key[0], State) \
        and shape_of(key[0]) == shape and key[0].player == side \
        and key[1] in key[0].legal_actions()


class BoardTable(MutableMapping):
    """The Q-table of ``side`` on ``shape`` held by ``columns`` (checked entries, in the file's
    order). ``repeated()`` names two entries of one position and move, if the columns have any
    (a file must not: the caller refuses it)."""

    def __init__(self, shape: BoardShape, side: int, columns: Columns) -> None:
        self.shape, self.side = shape, side
        self._columns = columns
        keys = entry_keys(*columns[:3])
        self._order = np.argsort(keys, kind="stable")
        self._keys = keys[self._order]
        self._values = columns[3][self._order]
        # 3x3 k=3 positions are the course's States: a BoardState equal to one would hash apart
        self._make = State.from_valid_cells if shape == TIC_TAC_TOE else \
            (lambda cells, player: intern(shape, cells, player))
        self._powers = tuple(1 << cell for cell in range(shape.size))
        self._rows = PositionCache()   # position -> {move: value} of the file, once asked for
        self._changed: dict = {}       # entries set since the file was read
        self._hidden: set = set()      # file entries set or deleted since

    def repeated(self) -> tuple[int, int, int] | None:
        """``(first, second, count)``: two entries (in the file's order) that are one position
        and move, and how many entries repeat an earlier one; ``None`` if none does."""
        same = np.flatnonzero(self._keys[1:] == self._keys[:-1])
        if same.size == 0:
            return None
        first, second = sorted(self._order[same[0]:same[0] + 2].tolist())
        return first, second, int(same.size)

    # --- reading ---------------------------------------------------------------------------

    def is_as_read(self) -> bool:
        """Whether nothing was set or deleted since the file was read (``entries_of`` holds)."""
        return not (self._changed or self._hidden)

    def entries_of(self, x_bits: np.ndarray, o_bits: np.ndarray) \
            -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The file's entries of many positions at once (their bitboards): ``(position, move,
        value)`` arrays, ``position`` an index into ``x_bits``, found by binary search as
        ``_read_row`` finds one position's (what was set since is not among them)."""
        start = entry_keys(x_bits, o_bits, np.zeros(len(x_bits), dtype=np.uint8))
        low = self._keys.searchsorted(start)
        counts = self._keys.searchsorted(start + (1 << MOVE_BITS)) - low
        # each position's run of entries: low, low + 1, ... for its count
        found = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts) \
            + np.repeat(low, counts)
        return (np.repeat(np.arange(len(x_bits)), counts),
                self._keys[found] & ((1 << MOVE_BITS) - 1), self._values[found])

    def _read_row(self, state) -> dict:
        """``{move: value}`` of ``state`` in the file (empty for a position it lacks),
        remembered while the cache holds it."""
        if not isinstance(state, State) or state.player != self.side:
            return {}
        shape = state.shape if isinstance(state, BoardState) else TIC_TAC_TOE
        if shape != self.shape:
            return {}
        powers, cells = self._powers, state.cells
        # the bitboards, with the loops in C: a position is read once per game it is in
        start = ((sum(compress(powers, map(X.__eq__, cells))) << CELL_BITS)
                 | sum(compress(powers, map(O.__eq__, cells)))) << MOVE_BITS
        low = int(self._keys.searchsorted(start))
        high = int(self._keys.searchsorted(start + (1 << MOVE_BITS)))
        moves = self.shape.cells
        row = self._rows[state] = {
            moves[key & ((1 << MOVE_BITS) - 1)]: value for key, value in
            zip(self._keys[low:high].tolist(), self._values[low:high].tolist())}
        return row

    def get(self, key, default=None):
        """The value of ``key`` (``(state, (row, col))``), else ``default``: a dict's ``get``
        (an unhashable key is a ``TypeError`` as there)."""
        if self._changed or self._hidden:
            value = self._changed.get(key, _MISSING)
            if value is not _MISSING:
                return value
            if key in self._hidden:
                return default
        if type(key) is not tuple or len(key) != 2:
            hash(key)
            return default
        row = self._rows.get(key[0])
        if row is None:
            row = self._read_row(key[0])
        return row.get(key[1], default)

    def __getitem__(self, key) -> float:
        value = self.get(key, _MISSING)
        if value is _MISSING:
            raise KeyError(key)
        return value

    def __contains__(self, key) -> bool:
        return self.get(key, _MISSING) is not _MISSING

    def __len__(self) -> int:
        return len(self._keys) - len(self._hidden) + len(self._changed)

    def __iter__(self) -> Iterator:
        """The file's entries in its order (each position made once per run of its entries),
        then those set since, in the order they were set."""
        x_bits, o_bits, moves, _ = self._columns
        cells, decode, state, last = self.shape.cells, self.shape.decode, None, None
        for pair in zip(x_bits.tolist(), o_bits.tolist(), moves.tolist()):
            if pair[:2] != last:
                last = pair[:2]
                state = self._make(decode(last), self.side)
            key = (state, cells[pair[2]])
            if key not in self._hidden:
                yield key
        yield from self._changed

    def __repr__(self) -> str:
        return f"<BoardTable of {symbol(self.side)} on {self.shape.name}: {len(self):,} entries>"

    # --- changing --------------------------------------------------------------------------

    def __setitem__(self, key, value) -> None:
        if key not in self._changed and self.get(key, _MISSING) is not _MISSING:
            self._hidden.add(key)
        self._changed[key] = value

    def __delitem__(self, key) -> None:
        if key in self._changed:
            del self._changed[key]
        elif self.get(key, _MISSING) is not _MISSING:
            self._hidden.add(key)
        else:
            raise KeyError(key)

    def clear(self) -> None:
        empty = (np.zeros(0, np.uint32), np.zeros(0, np.uint32), np.zeros(0, np.uint8),
                 np.zeros(0, np.float64))
        self.__init__(self.shape, self.side, empty)

    # --- saving ----------------------------------------------------------------------------

    def columns(self) -> Columns:
        """The columns of a file of this table: the file's entries still in it, in its order,
        then those set since (checked by ``entry_columns``)."""
        file_columns = self._columns
        if self._hidden:
            hidden = entry_keys(*entry_columns(
                self.shape, self.side, ((key, 0.0) for key in self._hidden))[:3])
            kept = ~np.isin(entry_keys(*file_columns[:3]), hidden)
            file_columns = tuple(column[kept] for column in file_columns)
        added = entry_columns(self.shape, self.side, self._changed.items())
        return tuple(np.concatenate(pair) for pair in zip(file_columns, added))
