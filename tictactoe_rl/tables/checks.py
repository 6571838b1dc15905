"""What a table must be, entry by entry, both to be saved and to be loaded.

Each check returns ``None`` when all is well, else the problem in a few words for a one-line
error; the callers (``tictactoe_rl.tables.files``) add the file's name and what to do.
"""

from __future__ import annotations

import math
import sys
from numbers import Integral, Real

from State import ALL_CELLS, O, ONGOING, X, State, symbol

_PLAIN = frozenset({str, int, float, bool, type(None)})   # the types a meta value may have


def key_problem(key, state_class: type) -> str | None:
    if not (isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], state_class)):
        return f"key {short(key)} is not a (State, (row, col)) pair"
    return None


def entry_problem(state: State, action, value, side: int) -> str | None:
    """What is wrong with one table entry, in a few words; ``None`` when it is fine."""
    if not (isinstance(action, tuple) and len(action) == 2 and all(
            isinstance(v, Integral) and not isinstance(v, bool) for v in action)):
        return f"action {short(action)} is not a (row, col) pair of ints"
    if as_action(action) not in ALL_CELLS:
        return f"action {as_action(action)} is off the board"
    if isinstance(value, bool) or not isinstance(value, Real):
        return f"the value for {as_action(action)} is a {type(value).__name__}, not a number"
    try:
        finite = math.isfinite(float(value))
    except (OverflowError, TypeError, ValueError):
        finite = False
    if not finite:
        return f"the value {short(value)} for {as_action(action)} is not a finite number"
    if state.player != side:
        return f"position {list(state.cells)} has {symbol(state.player)} to move, but the table " \
               f"plays {symbol(side)} (one table plays one side)"
    if not can_occur(state):
        return f"position {list(state.cells)} with {symbol(state.player)} to move cannot occur " \
               "in a game that is still going"
    if as_action(action) not in state.legal_actions():
        return f"action {as_action(action)} is an occupied cell in position {list(state.cells)}"
    return None


def can_occur(state: State) -> bool:
    """Whether ``state`` arises in some game that is not yet over. Marks alternate from X, so X has
    as many marks as O (X to move) or one more (O to move); without a line of three, any such
    board can be reached by placing the marks in turn."""
    x_marks, o_marks = state.cells.count(X), state.cells.count(O)
    mover = X if x_marks == o_marks else O if x_marks == o_marks + 1 else None
    return state.player == mover and state.end_of_game == ONGOING


def as_action(action) -> tuple[int, int]:
    return int(action[0]), int(action[1])


def side_problem(side) -> str | None:
    if isinstance(side, bool) or not isinstance(side, Integral) or side not in (X, O):
        return f"side must be 1 (X) or -1 (O), got {short(side)}"
    return None


def plain_meta(meta: dict) -> dict:
    """``meta`` with text keys and plain values (numpy numbers become Python numbers, anything
    else its text), so that the file can always be read back. Texts are interned: pickle writes a
    text once and refers back to it for the same object, so equal texts must be one object for
    the bytes to depend on the values alone."""
    plain = {}
    for key, value in dict(meta).items():
        if type(value) not in _PLAIN:
            value = int(value) if isinstance(value, Integral) else \
                float(value) if isinstance(value, Real) else str(value)
        plain[sys.intern(str(key))] = sys.intern(value) if type(value) is str else value
    return plain


def meta_problem(meta) -> str | None:
    """Meta must be a dict of names to plain values, and an episode count must be a count."""
    if type(meta) is not dict:
        return f"meta must be a dict, got a {type(meta).__name__}"
    for key, value in meta.items():
        if type(key) is not str or type(value) not in _PLAIN:
            return f"meta entry {short(key)} is not a name with a plain value"
    done = meta.get("episodes_done")
    if done is not None and (type(done) is not int or done < 0):
        return f"meta episodes_done {short(done)} is not a count of episodes"
    return None


def short(thing, depth: int = 2) -> str:
    """``thing`` for a message: plain values as their repr, small tuples and lists item by item
    (``depth`` levels down), anything else by its type; at most 60 characters. A message never
    walks a structure a file made large."""
    if type(thing) in _PLAIN:
        text = repr(thing)
    elif type(thing) in (tuple, list) and len(thing) <= 9 and depth > 0:
        items = ", ".join(short(item, depth - 1) for item in thing)
        comma = "," if len(thing) == 1 else ""
        text = f"({items}{comma})" if type(thing) is tuple else f"[{items}]"
    else:
        return f"a {type(thing).__name__}"
    return clip(text)


def clip(text: str) -> str:
    """``text`` cut to at most 60 characters."""
    return text if len(text) <= 60 else text[:57] + "..."
