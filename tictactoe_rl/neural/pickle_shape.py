"""A network file's pickle walked before it is rebuilt: how deep and how large its values are.

A pickle can refer to one value many times, so a few hundred bytes can describe a tuple of 2**80
parts; the unpickler builds it at once (the parts are shared), but hashing it as a dict key or a
set member, or comparing it, visits every part and never ends. ``check`` follows the
instructions on a model of the unpickler's stack that keeps, for each value, its depth and how
many parts it has written out in full, and refuses a pickle past either limit; a network's
``data.pkl`` (an optimiser's state included) nests under 10 deep and has a few thousand parts.
"""

from __future__ import annotations

import io
import pickletools

MAX_DEPTH = 32
MAX_PARTS = 1_000_000

# instruction -> (values it takes off the stack, or "mark" for those down to the last mark;
# whether it leaves a new value made of them, or adds them into the value below)
_MAKES = {"TUPLE1": 1, "TUPLE2": 2, "TUPLE3": 3, "REDUCE": 2, "NEWOBJ": 2, "NEWOBJ_EX": 3,
          "STACK_GLOBAL": 2, "BINPERSID": 1, "TUPLE": "mark", "LIST": "mark", "DICT": "mark",
          "FROZENSET": "mark", "OBJ": "mark", "INST": "mark"}
_ADDS = {"APPEND": 1, "SETITEM": 2, "BUILD": 1, "APPENDS": "mark", "SETITEMS": "mark",
         "ADDITEMS": "mark"}
_NOTHING = {"PROTO", "FRAME", "STOP"}
_PUTS = {"BINPUT", "LONG_BINPUT", "PUT"}
_GETS = {"BINGET", "LONG_BINGET", "GET"}


class TooLarge(ValueError):
    """A value nested too deep or with too many parts for a network file."""


def _taken(stack: list, marks: list, count) -> list:
    """Take ``count`` values (or those down to the last mark) off ``stack``."""
    start = marks.pop() if count == "mark" else len(stack) - count
    if start < 0:
        raise ValueError("an empty stack")
    taken = stack[start:]
    del stack[start:]
    return taken


def _joined(parts: list) -> tuple[int, int]:
    """(depth, parts) of a value made of values ``parts`` (each ``(depth, parts)``)."""
    return 1 + max((depth for depth, _ in parts), default=0), 1 + sum(n for _, n in parts)


def check(pickled: bytes) -> None:
    """Raise ``TooLarge`` when ``pickled`` builds a value deeper than ``MAX_DEPTH`` or of more
    than ``MAX_PARTS`` parts; ``ValueError`` when its instructions cannot be followed."""
    stack: list[tuple[int, int]] = []
    marks: list[int] = []
    memo: dict = {}
    for op, arg, _ in pickletools.genops(io.BytesIO(pickled)):
        name = op.name
        if name == "MARK":
            marks.append(len(stack))
        elif name in _MAKES:
            stack.append(_joined(_taken(stack, marks, _MAKES[name])))
        elif name in _ADDS:
            added = _taken(stack, marks, _ADDS[name])
            depth, parts = stack[-1]
            inner = _joined(added)
            stack[-1] = (max(depth, inner[0]), parts + inner[1] - 1)
        elif name in _GETS:
            if arg not in memo:
                raise ValueError("a reference to a value never kept")
            stack.append(memo[arg])
        elif name in _PUTS or name == "MEMOIZE":
            memo[arg if name in _PUTS else len(memo)] = stack[-1]
        elif name in _NOTHING:
            pass
        elif name == "POP":
            stack.pop()
        elif name == "POP_MARK":
            _taken(stack, marks, "mark")
        elif name == "DUP":
            stack.append(stack[-1])
        else:                                   # a number, a text, a name, an empty container
            stack.append((1, 1))
        if stack and (stack[-1][0] > MAX_DEPTH or stack[-1][1] > MAX_PARTS):
            raise TooLarge(f"a value nested more than {MAX_DEPTH} deep or of more than "
                           f"{MAX_PARTS:,} parts (one value referred to again and again?); a "
                           "network's file holds neither")
