"""Table files built to hurt the loader, written instruction by instruction (the pickle opcodes)
and wrapped in a zip archive as torch.save does. ``tests/test_hostile_tables.py`` checks that each
is refused with one line; ``tools/benchmarks/hostile.py`` measures the CPU time and memory it takes.

``HOSTILE``: pickles (wrapped by ``as_torch_zip``); ``ZIPPED``: whole archives; each maps a name
to ``(build, words the one line must contain)``.
"""

from __future__ import annotations

import contextlib
import io
import pickle
import struct
import sys
import warnings
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tictactoe_rl.tables.files import FORMAT_NAME  # noqa: E402  (the root first)
from tictactoe_rl.tables.guard import MAX_PICKLE_BYTES  # noqa: E402
from tictactoe_rl.tables.torch_format import torch_save_bytes  # noqa: E402

# --- writing pickles by hand ----------------------------------------------------------------------

def put(index: int) -> bytes:
    return pickle.BINPUT + bytes([index]) if index < 256 else \
        pickle.LONG_BINPUT + struct.pack("<I", index)


def get(index: int) -> bytes:
    return pickle.BINGET + bytes([index]) if index < 256 else \
        pickle.LONG_BINGET + struct.pack("<I", index)


def number(n: int) -> bytes:
    return pickle.BININT1 + bytes([n]) if 0 <= n < 256 else pickle.BININT + struct.pack("<i", n)


def real(x: float) -> bytes:
    return pickle.BINFLOAT + struct.pack(">d", x)


def text(s: str) -> bytes:
    raw = s.encode()
    return pickle.BINUNICODE + struct.pack("<I", len(raw)) + raw


def name(module: str, attribute: str) -> bytes:
    return pickle.GLOBAL + f"{module}\n{attribute}\n".encode()


EMPTY_CELLS = pickle.MARK + number(0) * 9 + pickle.TUPLE


def state(cells: bytes = EMPTY_CELLS, player: bytes = number(1)) -> bytes:
    """``State(cells, player)`` as our files write it."""
    return name("State", "State") + cells + player + pickle.TUPLE2 + pickle.REDUCE


def entry(key: bytes, value: bytes = real(0.5)) -> bytes:
    return key + value + pickle.SETITEM


def table(q_items: bytes = b"", version: bytes = number(1), side: bytes = number(1)) -> bytes:
    """Our table format around ``q_items`` (instructions that fill the Q dict on the stack)."""
    return (pickle.PROTO + b"\x02" + pickle.EMPTY_DICT + pickle.MARK
            + text("format") + text(FORMAT_NAME) + text("version") + version + text("side") + side
            + text("meta") + pickle.EMPTY_DICT + text("Q") + pickle.EMPTY_DICT + q_items
            + pickle.SETITEMS + pickle.STOP)


def doubling(levels: int, first: int = 0, width: int = 2) -> bytes:
    """A value of ``width ** levels`` parts in a few bytes a level: each level is a tuple of
    ``width`` references to the one below (memo entries ``first`` on)."""
    out = pickle.NONE + put(first)
    for level in range(first + 1, first + levels + 1):
        out += pickle.MARK + get(level - 1) * width + pickle.TUPLE + put(level)
    return out


def as_torch_zip(pickled: bytes, compress: int = zipfile.ZIP_STORED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compress) as archive:
        archive.writestr("archive/data.pkl", pickled)
        for member, data in (("byteorder", b"little"), ("version", b"3\n"),
                             (".data/serialization_id", b"0" * 40)):
            archive.writestr(f"archive/{member}", data)
    return buffer.getvalue()


def zip_bomb(data_bytes: int) -> bytes:
    """A torch-style archive whose data.pkl is one text of ``data_bytes`` zeros, deflated, written
    in pieces so that the test never holds it whole."""
    buffer = io.BytesIO()
    chunk = bytes(2**20)
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        with archive.open("archive/data.pkl", "w", force_zip64=True) as member:
            member.write(pickle.PROTO + b"\x02" + pickle.BINUNICODE + struct.pack("<I", data_bytes))
            for _ in range(data_bytes // len(chunk)):
                member.write(chunk)
            member.write(pickle.STOP)
    return buffer.getvalue()


def many_valid_entries(size: int) -> bytes:
    """Our format, one valid entry written over and over until the file is about ``size`` bytes."""
    key = pickle.TUPLE2 + pickle.TUPLE2
    first = state() + put(0) + number(1) + number(1) + key + real(0.5) + pickle.SETITEM
    batch = pickle.MARK + (get(0) + number(1) + number(1) + key + real(0.5)) * 1000 \
        + pickle.SETITEMS
    return table(first + batch * ((size - 400) // len(batch)))


def course_format(entries: int) -> bytes:
    """The course's format (states with numpy boards), ``entries`` distinct keys."""
    class CourseState:
        def __init__(self, board, player) -> None:
            self.board, self.player, self.end_of_game = board, player, 0
    CourseState.__module__, CourseState.__qualname__ = "State", "State"
    board = np.zeros((3, 3))
    table = {(CourseState(board.copy(), 1), (np.int64(i % 3), np.int64(i // 3 % 3))): 0.5
             for i in range(entries)}
    with patched_state(CourseState):
        return pickle.dumps(table, protocol=2)


@contextlib.contextmanager
def patched_state(cls: type) -> Iterator[None]:
    """``State.State`` is ``cls`` for a while (pickle looks classes up by their module's name)."""
    import State
    saved = State.State
    State.State = cls
    try:
        yield
    finally:
        State.State = saved


# --- the hostile files, and what their one line says ---------------------------------------------

HOSTILE = {
    # Crashed the interpreter (a C stack overflow when the key was hashed).
    "a tuple nested 200,000 deep as a key": (
        lambda: table(entry(number(0) + pickle.TUPLE1 * 200_000)), "nested more than 16 deep"),
    # Never finished: hashing the key walks 2**80 parts.
    "80 levels of (T, T) memoised, as a key": (
        lambda: table(entry(doubling(80))), "nested more than 16 deep"),
    "the same doubling, wide and shallow, as a key": (
        lambda: table(entry(doubling(4, width=250))), "parts"),
    "the doubling as the version": (lambda: table(version=doubling(80)), "nested more than"),
    "the doubling as the side": (lambda: table(side=doubling(4, width=250)), "parts"),
    "the doubling as a player": (
        lambda: table(entry(pickle.MARK + state(player=doubling(4, width=250))
                            + number(1) + number(1) + pickle.TUPLE2 + pickle.TUPLE2)), "parts"),
    "the doubling as a board": (
        lambda: table(entry(pickle.MARK + state(cells=doubling(4, width=250))
                            + number(1) + number(1) + pickle.TUPLE2 + pickle.TUPLE2)), "parts"),
    # 4 GiB from 60 bytes.
    "builtins.bytearray(4 GiB)": (
        lambda: pickle.PROTO + b"\x02" + name("builtins", "bytearray") + pickle.LONG1 + b"\x05"
        + (2**32).to_bytes(5, "little") + pickle.TUPLE1 + pickle.REDUCE + pickle.STOP,
        "refused to load: it asks for builtins.bytearray"),
    "a memo index of 4 billion": (
        lambda: pickle.PROTO + b"\x02" + pickle.NONE + put(2**32 - 1) + pickle.STOP,
        "not a readable"),
    "a million marks": (lambda: pickle.PROTO + b"\x02" + pickle.MARK * 10**6, "nested more than"),
    # The costliest instructions to walk, up to the limit on their number.
    "half a million one-tuples": (
        lambda: pickle.PROTO + b"\x02" + (number(1) + pickle.TUPLE1) * 500_000 + pickle.STOP,
        "values on the pickle's stack at once"),
    "a million empty dicts": (lambda: pickle.PROTO + b"\x02" + pickle.EMPTY_DICT * 10**6
                              + pickle.STOP, "values on the pickle's stack at once"),
    "6 MB of valid entries": (lambda: many_valid_entries(MAX_PICKLE_BYTES - 4096),
                              "more than 16,384 entries"),
    "800,000 memo writes of one value": (
        lambda: pickle.PROTO + b"\x02" + pickle.NONE + put(0) * 800_000 + pickle.STOP,
        "more than 800,000 pickle instructions"),
    "15 MB in the course's format": (lambda: course_format(50_000), "a data.pkl of"),
    # A State made by NEWOBJ and never given its board.
    "a State without its state": (
        lambda: table(entry(name("State", "State") + pickle.EMPTY_TUPLE + pickle.NEWOBJ
                            + number(1) + number(1) + pickle.TUPLE2 + pickle.TUPLE2)),
        "a State without its board"),
    "a list in the header": (lambda: table(version=pickle.EMPTY_LIST + pickle.MARK + number(1)
                                           + pickle.APPENDS), "holds a list"),
}
ZIPPED = {  # archives whose sizes give them away before anything is inflated
    "a 262 KB zip of 256 MiB of data.pkl": (lambda: zip_bomb(256 * 2**20), "268,435"),
    "a zip member inflating 1,000 times": (lambda: zip_bomb(8 * 2**20), "compressed"),
    "a zip of 20,000 members": (lambda: many_members(20_000), "20,000 members"),
}


def many_members(count: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("archive/data.pkl", table())
        for n in range(count - 1):
            archive.writestr(f"archive/{n}", b"")
    return buffer.getvalue()




# --- the four of issue 21 ------------------------------------------------------------------------

MERSENNE = 2**61 - 1      # CPython hashes an int modulo this: all its multiples hash to 0


def colliding_keys(dicts: int = 24, entries: int = 11_000) -> bytes:
    """Our header and an empty Q, then ``dicts`` more header fields, each a dict of ``entries``
    integer keys that are multiples of 2**61-1 (every one hashes alike, so each insertion
    compares with every key before it: 5.5 MB took 50-118 s to load)."""
    junk = b""
    for n in range(dicts):
        keys = [pickle.LONG1 + bytes([10]) + (k * MERSENNE).to_bytes(10, "little") + real(0.0)
                for k in range(1, entries + 1)]
        # in batches of 1,000 entries, as pickle writes a dict
        junk += text(f"junk{n}") + pickle.EMPTY_DICT + b"".join(
            pickle.MARK + b"".join(keys[start:start + 1000]) + pickle.SETITEMS
            for start in range(0, entries, 1000))
    return (pickle.PROTO + b"\x02" + pickle.EMPTY_DICT + pickle.MARK
            + text("format") + text(FORMAT_NAME) + text("version") + number(1) + text("side")
            + number(1) + text("meta") + pickle.EMPTY_DICT + text("Q") + pickle.EMPTY_DICT + junk
            + pickle.SETITEMS + pickle.STOP)


def lying_zip64(members: int = 120_000) -> bytes:
    """A real table file whose directory lists ``members`` members: the classic end record says
    six (and a directory of six), the zip64 end record, which zipfile believes, the truth."""
    good = torch_save_bytes(_one_entry_table())
    end = good.rindex(b"PK\x05\x06")
    count, size, start = struct.unpack_from("<10xHII", good, end)
    directory = good[start:start + size]
    first = directory[:46 + struct.unpack_from("<H", directory, 28)[0]]   # data.pkl's record
    name_length = struct.unpack_from("<H", first, 28)[0]
    extra = b"".join(first[:28] + struct.pack("<H", len(f"archive/j{n:06d}")) + first[30:46]
                     + f"archive/j{n:06d}".encode() for n in range(members - count))
    assert len(first) == 46 + name_length
    directory += extra
    out = good[:start] + directory
    zip64 = len(out)
    out += struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, members, members,
                       len(directory), start)
    out += struct.pack("<4sIQI", b"PK\x06\x07", 0, zip64, 1)
    return out + struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, count, count, size, start, 0)


def twin_members() -> bytes:
    """A zip with two members named ``archive/data.pkl`` (zipfile silently reads the last)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)    # zipfile's "Duplicate name": the point
        archive.writestr("archive/data.pkl", pickle.dumps(_one_entry_table(), protocol=2))
        archive.writestr("archive/data.pkl", table())
    return buffer.getvalue()


def _one_entry_table() -> dict:
    from State import State
    return {"format": FORMAT_NAME, "version": 1, "side": 1, "meta": {},
            "Q": {(State(), (1, 1)): 0.5}}


ZIPPED.update({
    "a 5.5 MB table of 24 dicts of colliding integer keys": (
        lambda: as_torch_zip(colliding_keys()), "a dict keyed by numbers"),
    "a zip64 end record of 120,000 members past a classic one of six": (
        lambda: lying_zip64(), "120,000 members"),
    "two members of the same name": (twin_members, "two members of the same name"),
    "an empty Q dict with a side": (lambda: torch_save_bytes(
        {"format": FORMAT_NAME, "version": 1, "side": 1, "meta": {}, "Q": {}}), "empty Q-table"),
})
