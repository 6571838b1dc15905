"""Walking a pickle's instructions, before anything is rebuilt from it, to refuse what no table is.

A Q-table's pickle has a small fixed shape: a dict of ``((State, (row, col)), float)`` entries
and a few header fields, written with pickle protocol 2. ``scan`` walks the instructions with
``pickletools.genops`` on a model of the unpickler's stack that records, for every value, how many
parts it would have written out in full (a pickle can refer to one value many times, so a few
hundred bytes can describe a value of 2**80 parts, which hashing or printing would never finish)
and how deeply it nests (a deep value crashes the interpreter when it is hashed or compared). Only
the instructions and names a table needs are accepted, and every count has a limit that a real
table stays far below, so a file is refused in time and memory proportional to its size.
"""

from __future__ import annotations

import io
import pickletools
import struct

from tictactoe_rl.tables.course_files import CLASSES, NAMES

# One side of Tic-Tac-Toe has 8,631 (position, move) pairs (X) or 7,536 (O), so a table has at most
# that many entries; the limit leaves room for a file whose keys repeat.
MAX_ENTRIES = 16_384
# Entries of every dict together: the table's, and in the course's format three more for each
# key (its State's board, player and end_of_game), about 34,500 at most.
MAX_ALL_ENTRIES = 4 * MAX_ENTRIES
# A complete X table in the course's format takes 656,000 pickle instructions (76 an entry).
MAX_OPS = 800_000
# A course table nests 8 deep (dict, key, State, its dict, board, its state, shape, a number);
# ours 6.
MAX_DEPTH = 16
# Parts of the whole table written out in full: 18 an entry in our format, 84 in the course's.
MAX_PARTS = 2_000_000
MAX_TEXT = 64 * 2**10           # longest text or bytes: a note in the meta
# Values waiting on the stack at once: a dict's entries come in batches of 1,000 (2,000 values),
# so a file that piles up more is refused after a few thousand instructions, not 800,000.
MAX_STACK = 4_096
_TOO_DEEP = f"values nested more than {MAX_DEPTH} deep (a table nests 8 deep at most)"


class Unreadable(ValueError):
    """Not a table file at all, or a damaged one: the text says what was found."""


class Refused(ValueError):
    """The file names something to import or call that no table needs: the text is its name."""


class Unlike(ValueError):
    """A value no table holds, or more of something than any table has: the text says which."""


class _Value:
    """What the scan knows of one value on the unpickler's stack: its kind, how many parts it has
    written out in full, how deeply it nests, and for a dict or an object whether it may still
    change (until something refers to it again)."""

    __slots__ = ("kind", "parts", "depth", "name", "entries", "shared", "head")

    def __init__(self, kind: str, parts: int = 1, depth: int = 1, name: str = "") -> None:
        self.kind, self.parts, self.depth, self.name = kind, parts, depth, name
        self.entries, self.shared = 0, False
        self.head = ""      # a tuple's first item's kind: a table's key starts with an object

    def grow(self, items: list[_Value]) -> None:
        """Add ``items`` to this value (a tuple's items, a dict's entries, an object's state)."""
        if self.shared:  # once referred to, a change would alter every copy's size unseen
            raise Unlike(f"a {self.kind} changed after it was shared")
        parts, depth = self.parts, self.depth
        for item in items:
            parts += item.parts
            if item.depth >= depth:
                depth = item.depth + 1
        if depth > MAX_DEPTH:
            raise Unlike(_TOO_DEEP)
        if parts > MAX_PARTS:
            raise Unlike(f"a value of more than {MAX_PARTS:,} parts (repeated references?)")
        self.parts, self.depth = parts, depth


_ATOM = _Value("atom", depth=0)     # a number, True/False/None: nothing inside
_TEXT = _Value("text", depth=0)
_EMPTY_TUPLE = _Value("tuple")
# What a refused instruction would have built, for the message.
_HOLDS = {"APPEND": "a list", "APPENDS": "a list", "LIST": "a list", "EMPTY_SET": "a set",
          "ADDITEMS": "a set", "FROZENSET": "a set", "BINBYTES": "bytes", "SHORT_BINBYTES": "bytes",
          "BINBYTES8": "bytes", "BYTEARRAY8": "a bytearray", "STRING": "Python 2 text",
          "BINSTRING": "Python 2 text", "SHORT_BINSTRING": "Python 2 text"}
_OUTSIDE = {"PERSID", "BINPERSID", "NEXT_BUFFER", "READONLY_BUFFER", "EXT1", "EXT2", "EXT4"}


def scan(pickled: bytes | io.BytesIO) -> None:
    """Walk one pickle's instructions (from the stream's position; it is left after STOP) and
    raise unless it builds a value of a table's shape within every limit."""
    stream = pickled if isinstance(pickled, io.BytesIO) else io.BytesIO(pickled)
    model = _Model()
    steps = model.steps
    try:
        for count, (op, arg, _) in enumerate(pickletools.genops(stream)):
            step = steps.get(op.name)
            if step is None:
                model.refuse(op.name, arg)
            elif step(arg):     # STOP
                return
            if len(model.stack) > MAX_STACK:
                raise Unlike(f"more than {MAX_STACK:,} values on the pickle's stack at once (a "
                             "table has at most about 2,000)")
            if count >= MAX_OPS:
                raise Unlike(f"more than {MAX_OPS:,} pickle instructions (a table needs at "
                             "most about 656,000)")
    except (Unreadable, Refused, Unlike):
        raise
    except (ValueError, IndexError, UnicodeDecodeError, struct.error) as error:
        # genops: unknown instruction, an argument past the end; IndexError: an empty stack
        raise Unreadable(f"a damaged or foreign pickle ({type(error).__name__})") from None
    raise Unreadable("a pickle that ends early (cut short?)")


class _Model:
    """The unpickler's stack, marks and memo, holding what the scan knows of each value.

    ``steps`` maps each accepted instruction to its step; a step returns true at the end."""

    def __init__(self) -> None:
        self.stack: list[_Value] = []
        self.marks: list[int] = []      # where each open mark is in the stack
        self.memo: list[_Value] = []
        self.all_entries = 0            # entries of every dict so far
        atom = self.atom
        self.steps = {
            "NONE": atom, "NEWTRUE": atom, "NEWFALSE": atom, "BININT": atom, "BININT1": atom,
            "BININT2": atom, "LONG1": atom, "BINFLOAT": atom, "BINUNICODE": self.text,
            "BINPUT": self.put, "LONG_BINPUT": self.put, "BINGET": self.get,
            "LONG_BINGET": self.get, "MARK": self.mark,
            "TUPLE": lambda _: self.tuple(None), "TUPLE1": lambda _: self.tuple(1),
            "TUPLE2": lambda _: self.tuple(2), "TUPLE3": lambda _: self.tuple(3),
            "EMPTY_TUPLE": lambda _: self.stack.append(_EMPTY_TUPLE),
            "EMPTY_DICT": lambda _: self.stack.append(_Value("dict")),
            # only ever empty: the instructions that fill a list are refused
            "EMPTY_LIST": lambda _: self.stack.append(_Value("list")),
            "SETITEM": lambda _: self.set_items(2), "SETITEMS": lambda _: self.set_items(None),
            "REDUCE": lambda _: self.call(False), "NEWOBJ": lambda _: self.call(True),
            "BUILD": self.build, "GLOBAL": self.name, "PROTO": self.protocol,
            "STOP": self.stop}

    def atom(self, _) -> None:
        self.stack.append(_ATOM)

    def text(self, text: str) -> None:
        if len(text) > MAX_TEXT:
            raise Unlike(f"a text of {len(text):,} characters (at most {MAX_TEXT:,})")
        self.stack.append(_TEXT)

    def put(self, index: int) -> None:
        memo = self.memo
        if index > len(memo) or len(self.stack) <= self.floor():
            raise Unreadable("a damaged pickle (an out-of-order memo entry)")
        if index == len(memo):
            memo.append(self.stack[-1])
        else:
            memo[index] = self.stack[-1]

    def get(self, index: int) -> None:
        if index >= len(self.memo):
            raise Unreadable("a damaged pickle (a memo entry it never stored)")
        value = self.memo[index]
        value.shared = True
        self.stack.append(value)

    def mark(self, _) -> None:
        if len(self.marks) >= MAX_DEPTH:
            raise Unlike(_TOO_DEEP)
        self.marks.append(len(self.stack))

    def take(self, count: int | None) -> list[_Value]:
        """Pop the last ``count`` values, or (``None``) all those above the last mark."""
        stack = self.stack
        if count is None:
            if not self.marks:
                raise Unreadable("a damaged pickle (a mark is missing)")
            start = self.marks.pop()
        else:
            start = len(stack) - count
            if start < self.floor():
                raise Unreadable("a damaged pickle (too few values for an instruction)")
        items = stack[start:]
        del stack[start:]
        return items

    def floor(self) -> int:
        """Where the values above the last open mark start."""
        return self.marks[-1] if self.marks else 0

    def tuple(self, count: int | None) -> None:
        items = self.take(count)
        value = _Value("tuple")
        if items:
            value.grow(items)
            value.head = items[0].kind
        self.stack.append(value)

    def set_items(self, count: int | None) -> None:
        items = self.take(count)
        if len(self.stack) <= self.floor() or self.stack[-1].kind != "dict" or len(items) % 2:
            raise Unreadable("a damaged pickle (dict entries without a dict)")
        target = self.stack[-1]
        # A table's dicts are keyed by names (its header, a course State's board and player) or
        # by (State, move) pairs, whose hash is the State's identity; any other key -- a number,
        # a tuple of numbers -- is one a file could choose so that all hash alike, and each
        # insertion would then compare with every key before it.
        for key in items[::2]:
            if key.kind != "text" and (key.kind, key.head) != ("tuple", "object"):
                what = "numbers" if key is _ATOM else "tuples that do not start with a " \
                    "State" if key.kind == "tuple" else f"a {key.kind}"
                raise Unlike(f"a dict keyed by {what}, so it is not a Tic-Tac-Toe table "
                             "(another game's?)")
        target.entries += len(items) // 2
        self.all_entries += len(items) // 2
        if self.all_entries > MAX_ALL_ENTRIES:
            raise Unlike(f"dicts of more than {MAX_ALL_ENTRIES:,} entries in all (a table has "
                         "at most about 34,500)")
        if target.entries > MAX_ENTRIES:
            raise Unlike(f"a dict of more than {MAX_ENTRIES:,} entries (one side of Tic-Tac-Toe "
                         "has at most 8,631 position-move pairs)")
        if items:
            target.grow(items)

    def call(self, new_object: bool) -> None:
        callee, arguments = self.take(2)
        if arguments.kind != "tuple" or callee.kind != "global":
            raise Unreadable("a damaged pickle (a call of something that is not a name)")
        if new_object and callee.name not in CLASSES:
            raise Unlike(f"a new object of {callee.name}")
        made = _Value("object", name=callee.name)
        made.grow([arguments])
        self.stack.append(made)

    def build(self, _) -> None:
        target, state = self.take(2)
        if target.kind != "object":
            raise Unlike(f"a change to {target.name or 'a ' + target.kind}")
        target.grow([state])
        self.stack.append(target)

    def name(self, arg: str) -> None:
        self.stack.append(_Value("global", name=_global_name(arg)))

    def protocol(self, version: int) -> None:
        if version != 2:
            raise Unreadable(f"pickle protocol {version}, where torch.save writes protocol 2")

    def stop(self, _) -> bool:
        if len(self.stack) != 1 or self.marks:
            raise Unreadable("a damaged pickle (its stack is not one value at the end)")
        return True

    def refuse(self, name: str, arg) -> None:
        if name == "INST":
            _global_name(arg)   # a name no table needs is refused as such, text as not a pickle
        if name == "BINPERSID" and not self.stack:
            raise Unreadable("a damaged or foreign pickle (BINPERSID on an empty stack)")
        if name in _OUTSIDE:
            raise Refused(f"an object from outside the file ({name})")
        if name in _HOLDS:
            raise Unlike(_HOLDS[name])
        raise Unreadable(f"the pickle instruction {name}, which torch.save never writes for a "
                         "table")


def _global_name(arg: str) -> str:
    module, _, name = arg.partition(" ")
    dotted = f"{module}.{name}"
    if not all(part.isidentifier() for part in dotted.split(".")):
        raise Unreadable("a damaged or foreign pickle (a name that is not a Python name)")
    if (module, name) not in NAMES:
        raise Refused(dotted)
    return dotted
