"""Two hand-ins of a class whose trained tables are the same, or nearly: one was copied.

Contract: ``signature(table)`` (in the measuring child, which loads tables) is a small sketch of
a table: the values of the ``KEPT`` pairs whose keys hash lowest, so that two copies of one table
keep the same pairs, and two tables trained apart keep pairs of which few agree (it goes back in
the child's one line of output, which must stay short). ``flag_twins(rows)`` compares the
sketches of every two rows of the class, side by side, and flags both rows of a pair whose
values agree, within ``SAME``, on at least ``TWIN_SHARE`` of the pairs kept. The self-check
trains with a seed drawn afresh on every run, so two honest runs, even of the same code, agree
only on the values of some pairs met once or twice.
"""

from __future__ import annotations

import hashlib
from itertools import combinations
from typing import Iterable

KEPT = 32
SAME = 1e-6
TWIN_SHARE = 0.9


def signature(table: dict) -> tuple[tuple[str, float], ...]:
    """The sketch of ``table`` (pair -> value): ``(key, value)`` of its ``KEPT`` lowest keys."""
    keyed = sorted((hashlib.sha256(repr(pair).encode("utf-8")).hexdigest()[:8], value)
                   for pair, value in table.items() if isinstance(value, (int, float)))
    return tuple((key, round(float(value), 9)) for key, value in keyed[:KEPT])


def alike(first: tuple, second: tuple) -> bool:
    """Whether two sketches are of the same table, or nearly."""
    one, other = dict(first), dict(second)
    same = sum(1 for key in one.keys() & other.keys() if abs(one[key] - other[key]) <= SAME)
    return same >= TWIN_SHARE * max(len(one), len(other), KEPT)


def flag_twins(rows: Iterable) -> None:
    """Flag every two ``rows`` (``results.Row``: not imported, since ``results`` imports the
    measuring, which imports this) whose tables of one side are alike."""
    rows = list(rows)
    for first, second in combinations(rows, 2):
        for side in ("X", "O"):
            one, other = first.measures.get(side), second.measures.get(side)
            if one is not None and other is not None and one.signature and \
                    alike(one.signature, other.signature):
                first.flags.append(f"the {side} table is the same as {second.name}'s")
                second.flags.append(f"the {side} table is the same as {first.name}'s")
