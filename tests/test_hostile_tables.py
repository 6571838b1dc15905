"""Files built to hurt the loader are refused in bounded time and memory, with one line.

Each file is written here instruction by instruction (the pickle opcodes) and wrapped in a zip
archive as torch.save does; the costly ones are loaded in a fresh process whose CPU time and peak
memory are measured. Before the pre-checks, the first one crashed the interpreter, the second
never finished, and the bombs took gigabytes.
"""

import functools
import io
import json
import os
import pickle
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tables import course_files, files as Q_Table
from tables.files import FORMAT_NAME, MAX_FILE_BYTES, TableError, load_table

ROOT = Path(__file__).resolve().parent.parent
TIME_BOUND = 2.0              # seconds of CPU to refuse any file
MEMORY_BOUND = 300 * 2**20    # bytes above the interpreter with the loader imported


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


class patched_state:
    """``State.State`` is ``cls`` for a while (pickle looks classes up by their module's name)."""

    def __init__(self, cls) -> None:
        import State
        self.module, self.cls, self.saved = State, cls, State.State

    def __enter__(self):
        self.module.State = self.cls

    def __exit__(self, *exc) -> None:
        self.module.State = self.saved


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
        "more than 800,000 pickle instructions"),
    "a million empty dicts": (lambda: pickle.PROTO + b"\x02" + pickle.EMPTY_DICT * 10**6
                              + pickle.STOP, "more than 800,000 pickle instructions"),
    "16 MB of valid entries": (lambda: many_valid_entries(MAX_FILE_BYTES - 4096),
                               "more than 16,384 entries"),
    "15 MB in the course's format": (lambda: course_format(50_000), "more than"),
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


@functools.lru_cache(maxsize=None)
def hostile_bytes(kind: str) -> bytes:
    build = {**HOSTILE, **ZIPPED}[kind][0]
    return build() if kind in ZIPPED else as_torch_zip(build())


def write_hostile(tmp_path, kind: str) -> tuple[Path, str]:
    path = tmp_path / "hostile.pth"
    path.write_bytes(hostile_bytes(kind))
    return path, {**HOSTILE, **ZIPPED}[kind][1]


def assert_one_line(error: TableError, path, words: str) -> None:
    message = str(error)
    assert "\n" not in message and message.startswith(f"{path}: "), message
    assert words in message, message
    assert "use a table saved by" in message or "copy it again" in message, message


@pytest.mark.parametrize("kind", [*HOSTILE, *ZIPPED])
def test_a_hostile_file_is_refused_with_one_line(tmp_path, kind):
    path, words = write_hostile(tmp_path, kind)
    with pytest.raises(TableError) as caught:
        load_table(path)
    assert_one_line(caught.value, path, words)
    assert "incomplete zip archive" not in str(caught.value)


PROBE = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from tables.files import TableError, load_table
def used():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
before, start = used(), time.perf_counter()
try:
    load_table(sys.argv[2]) if len(sys.argv) > 2 else None
    said = None
except TableError as error:
    said = str(error)
cpu, wall = used() - before, time.perf_counter() - start
with open("/proc/self/status") as status:   # this process's own peak (VmHWM), in kB
    peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
print(json.dumps({"cpu": cpu, "wall": wall, "said": said, "peak": peak * 1024}))
"""


def measured(*args: str) -> dict:
    """Load in a fresh process: its CPU seconds, wall seconds, message and peak memory (bytes)."""
    done = subprocess.run([sys.executable, "-c", PROBE, str(ROOT), *args], capture_output=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def interpreter_peak() -> int:
    return measured()["peak"]


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="peak memory from /proc")
@pytest.mark.parametrize("kind", [*HOSTILE, *ZIPPED])
def test_a_hostile_file_is_refused_in_bounded_time_and_memory(tmp_path, kind, interpreter_peak):
    path, words = write_hostile(tmp_path, kind)
    result = measured(str(path))
    assert result["said"] and words in result["said"]
    assert result["cpu"] <= TIME_BOUND, result
    assert result["peak"] - interpreter_peak <= MEMORY_BOUND, result


def test_the_stand_ins_refusals_have_their_own_message(tmp_path):
    """An object dtype (numpy's own reader would build Python objects): the one line says what
    the file holds, not that the archive is cut short."""
    path = tmp_path / "object_dtype.pth"
    path.write_bytes(as_torch_zip(pickle.PROTO + b"\x02" + name("numpy", "dtype") + text("O8")
                                  + pickle.NEWFALSE + pickle.NEWTRUE + pickle.TUPLE3
                                  + pickle.REDUCE + pickle.STOP))
    with pytest.raises(TableError) as caught:
        load_table(path)
    assert_one_line(caught.value, path, "not a Q-table: it holds a numpy dtype other than")


@pytest.mark.parametrize("where", ["rebuilding", "checking"])
@pytest.mark.parametrize("error", [MemoryError(), RecursionError("maximum recursion depth"),
                                   AttributeError("board"), RuntimeError("boom")])
def test_any_failure_while_reading_is_one_table_error(tmp_path, monkeypatch, error, where):
    path = tmp_path / "t.pth"
    Q_Table.save_table(path, {}, 1)

    def fail(*args):
        raise error
    if where == "rebuilding":
        monkeypatch.setattr(course_files, "rebuild", fail)
    else:
        monkeypatch.setattr(Q_Table, "_clean", fail)
    with pytest.raises(TableError) as caught:
        load_table(path)
    assert_one_line(caught.value, path, type(error).__name__)
