"""Two hand-ins of a class whose trained tables are the same, or nearly: one was copied.

Contract: ``signature(table)`` (in the measuring child, which loads tables) is a sample of a
table's values: those of the pairs whose key falls in a fixed share of all keys (``SAMPLED``),
so that two tables' samples cover the same pairs. ``flag_twins(rows)`` compares the samples of
every two rows of the class, side by side, and flags both rows of a pair whose values agree, to
``SAME``, on at least ``TWIN_SHARE`` of the pairs either holds (and on ``TWIN_AT_LEAST`` pairs).
The self-check trains with a seed drawn afresh on every run, so two honest runs, even of the same
code, share only the values of a few pairs met once or twice.
"""

from __future__ import annotations

import hashlib
from itertools import combinations
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from tools.grading.results import Row

SAMPLED = 4            # one key in this many is sampled
MOST_SAMPLED = 5_000   # values sent back per table, at most
SAME = 1e-9
TWIN_SHARE, TWIN_AT_LEAST = 0.9, 30


def signature(table: dict) -> tuple[tuple[str, float], ...]:
    """The sampled ``(key, value)`` pairs of ``table`` (pair -> value), sorted by key."""
    sample = []
    for pair, value in table.items():
        key = hashlib.sha256(repr(pair).encode("utf-8")).hexdigest()[:16]
        if int(key, 16) % SAMPLED == 0 and isinstance(value, (int, float)):
            sample.append((key, float(value)))
    return tuple(sorted(sample)[:MOST_SAMPLED])


def alike(first: tuple, second: tuple) -> bool:
    """Whether two signatures are of the same table, or nearly."""
    one, other = dict(first), dict(second)
    union = one.keys() | other.keys()
    same = sum(1 for key in one.keys() & other.keys() if abs(one[key] - other[key]) <= SAME)
    return same >= TWIN_AT_LEAST and same >= TWIN_SHARE * len(union)


def flag_twins(rows: Iterable[Row]) -> None:
    """Flag every two ``rows`` whose tables of one side are alike (see the module docstring)."""
    rows = list(rows)
    for first, second in combinations(rows, 2):
        for side in ("X", "O"):
            one, other = first.measures.get(side), second.measures.get(side)
            if one is not None and other is not None and one.signature and \
                    alike(one.signature, other.signature):
                first.flags.append(f"the {side} table is the same as {second.name}'s")
                second.flags.append(f"the {side} table is the same as {first.name}'s")
