"""Q-table files are data: loading never runs code, every bad file gives one clear TableError, and
saving is atomic (a failure mid-save leaves the previous table intact and no temporary file)."""

import errno
import io
import os
import pickle
import random
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from tictactoe_rl.tables import course_files, files as Q_Table
import State as state_module
from AI_Agent import AI_Agent
from tictactoe_rl.players.specs import make_agent
from tictactoe_rl.tables.files import (MAX_FILE_BYTES, TableError, check_writable, load_table,
                                       save_table)
from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced
from tictactoe_rl.exact.solver import exact_outcome
from State import O, X, State, parse_moves

EMPTY = State()
AFTER_CENTER = parse_moves("1,1")            # O to move
SMALL_X_TABLE = {(EMPTY, (1, 1)): 0.5, (EMPTY, (0, 0)): -0.25, (parse_moves("1,1 0,0"), (2, 2)): 1.0}
SMALL_O_TABLE = {(AFTER_CENTER, (0, 0)): 0.75}
REMEDIES = ("retrain", "use a table", "use a file", "copy it again", "check the path",
            "give the path", "train one first", "check the file")


def assert_clear_error(error: TableError, path, *fragments: str) -> None:
    """One line that names the file, says what is wrong (``fragments``) and what to do."""
    message = str(error)
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    for fragment in fragments:
        assert fragment in message, message
    assert any(remedy in message for remedy in REMEDIES), message


def files_in(folder) -> list[str]:
    return sorted(os.listdir(folder))


# --- files whose pickle would run a command ------------------------------------------------------

class RunsCommand:
    """Unpickling this object runs a command that creates ``marker`` (what an attacker's file does)."""

    def __init__(self, how: str, marker) -> None:
        self.how, self.marker = how, str(marker)

    def __reduce__(self):
        code = f"open({self.marker!r}, 'w').close()"
        if self.how == "os.system":
            return os.system, (f'"{sys.executable}" -c "{code}"',)
        if self.how == "subprocess":
            return subprocess.call, ([sys.executable, "-c", code],)
        if self.how == "exec":
            return exec, (code,)
        return eval, (f"__import__('pathlib').Path({self.marker!r}).touch()",)


HOWS = ("os.system", "subprocess", "exec", "eval")


def write_torch(path, payload):
    torch.save(payload, path)


def write_torch_legacy(path, payload):
    torch.save(payload, path, _use_new_zipfile_serialization=False)


def pickle_writer(protocol):
    def write(path, payload):
        with open(path, "wb") as stream:
            pickle.dump(payload, stream, protocol=protocol)
    return write


WRITERS = {"torch.save": write_torch, "torch.save legacy": write_torch_legacy,
           "pickle 0": pickle_writer(0), "pickle 2": pickle_writer(2), "pickle 5": pickle_writer(5)}
PLACES = {
    "whole file": lambda evil: evil,
    "a value": lambda evil: {(EMPTY, (1, 1)): evil},
    "a key": lambda evil: {(evil, (1, 1)): 0.5},
    "the meta": lambda evil: {"format": "tictactoe-q-table", "version": 1, "side": 1,
                              "meta": {"note": evil}, "Q": {(EMPTY, (1, 1)): 0.5}},
}


@pytest.mark.parametrize("how", HOWS)
def test_the_crafted_pickles_really_run_their_command(tmp_path, how):
    """Control: plain unpickling runs the command, so the refusals below prove something."""
    marker = tmp_path / "ran"
    pickle.loads(pickle.dumps(RunsCommand(how, marker), protocol=2))
    assert marker.exists()


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("how", HOWS)
def test_a_file_that_would_run_a_command_is_refused_and_the_command_never_runs(tmp_path, how,
                                                                                  writer):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.pth"
    WRITERS[writer](path, PLACES["whole file"](RunsCommand(how, marker)))
    with pytest.raises(TableError) as caught:
        load_table(path)
    # torch's safe reader stops at protocol 5's first unknown instruction, before any name
    expected = ("not a readable",) if writer == "pickle 5" else ("refused to load", "never runs code")
    assert_clear_error(caught.value, path, *expected)
    assert not marker.exists()


@pytest.mark.parametrize("place", PLACES)
def test_a_command_hidden_inside_a_table_is_refused(tmp_path, place):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.pth"
    torch.save(PLACES[place](RunsCommand("subprocess", marker)), path)
    with pytest.raises(TableError) as caught:
        load_table(path, side=X)
    assert_clear_error(caught.value, path, "refused to load", "subprocess")
    assert not marker.exists()


@pytest.mark.parametrize("attack", [
    # GLOBAL numpy.dtype, then BUILD {"evil": 1}: try to set an attribute on an allowlisted name.
    b"\x80\x02cnumpy\ndtype\n}X\x04\x00\x00\x00evilK\x01sb.",
    # BUILD on the State class itself: try to replace a method of the reader's stand-in.
    b"\x80\x02cState\nState\n}X\x05\x00\x00\x00boardK\x01sb.",
    # The same through the "slot state" half of BUILD.
    b"\x80\x02cState\nState\nN}X\x08\x00\x00\x00to_stateK\x01s\x86b.",
    # Call numpy.ndarray directly (a huge allocation from a few bytes).
    b"\x80\x02cnumpy\nndarray\nJ\x00\xca\x9a;\x85R.",
    # An out-of-band buffer and a persistent id (tensor storage): nothing outside the file.
    b"\x80\x05\x97.",
    b"\x80\x02X\x01\x00\x00\x00xQ.",
    # A codec other than latin1 (codec lookups import modules).
    b"\x80\x02c_codecs\nencode\nX\x01\x00\x00\x00xX\x05\x00\x00\x00rot13\x86R.",
])
def test_crafted_pickles_cannot_alter_or_misuse_the_allowlisted_names(tmp_path, attack):
    path = tmp_path / "crafted.pth"
    path.write_bytes(attack)
    with pytest.raises(TableError) as caught:
        load_table(path)
    assert_clear_error(caught.value, path)
    assert vars(course_files.StoredState).get("to_state") is None   # nothing was set on it
    assert course_files.StoredState.board is None
    assert not hasattr(np.dtype, "evil")


# --- the course's format, written here so that it is tested on every clone --------------------

class CourseState:
    """The course's original ``State`` as its files record it: a float board, player, end_of_game."""
    __module__ = "State"
    __qualname__ = "State"

    def __init__(self, board, player) -> None:
        self.board = np.array(board, dtype=np.float64).reshape(3, 3)
        self.player = player
        self.end_of_game = 0


def course_table(entries: dict, board_kind=None) -> dict:
    table = {}
    for (state, (row, col)), value in entries.items():
        stored = CourseState(state.cells, state.player)
        if board_kind is not None:
            stored.board = board_kind(stored.board)
        table[(stored, (np.int64(row), np.int64(col)))] = value
    return table


def dump_course_table(monkeypatch, table, writer) -> None:
    """Pickle ``table`` as the course's code did: its states are class ``State`` of module ``State``."""
    with monkeypatch.context() as patch:
        patch.setattr(state_module, "State", CourseState)
        writer(table)


@pytest.mark.parametrize("board_kind", [None, lambda b: b.astype(np.int64), np.asfortranarray,
                                        lambda b: b.astype(">f8")],
                         ids=["float64", "int64", "fortran-order", "big-endian"])
def test_tables_in_the_course_format_load_with_the_same_values(tmp_path, monkeypatch, board_kind):
    path = tmp_path / "course.pth"
    dump_course_table(monkeypatch, course_table(SMALL_X_TABLE, board_kind),
                      lambda table: torch.save(table, path))
    Q, side, meta = load_table(path, side=X)
    assert (Q, side, meta["algorithm"]) == (SMALL_X_TABLE, X, "course original")
    assert all(type(r) is int and type(c) is int for _, (r, c) in Q)
    assert all(state is state_module.State(state.cells, state.player) for state, _ in Q)


@pytest.mark.parametrize("protocol", [0, 1, 4])
def test_other_pickle_protocols_get_one_clear_error(tmp_path, monkeypatch, protocol):
    """torch.save writes protocol 2; torch.load's safe reader knows only that one."""
    path = tmp_path / "course.pth"
    dump_course_table(monkeypatch, course_table(SMALL_X_TABLE),
                      lambda table: torch.save(table, path, pickle_protocol=protocol))
    with pytest.raises(TableError) as error:
        load_table(path, side=X)
    assert "\n" not in str(error.value) and str(error.value).startswith(f"{path}: ")


def as_torch_file(path, pickled: bytes) -> None:
    """Write ``pickled`` as the data.pkl of a torch.save-style zip archive at ``path``."""
    torch.save({}, path)
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, data in members.items():
            archive.writestr(name, pickled if name.endswith("data.pkl") else data)


def test_numpy_pickle_hooks_never_see_the_file(tmp_path, monkeypatch):
    """A board whose dtype claims to hold Python objects (flags byte set to 1): numpy's own
    unpickling would honour that and later read the numbers as object pointers; the reader takes
    the numbers as numbers."""
    pickled = []
    dump_course_table(monkeypatch, course_table(SMALL_X_TABLE),
                      lambda table: pickled.append(pickle.dumps(table, protocol=2)))
    flags = b"J\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00t"
    assert flags in pickled[0]
    armed = pickled[0].replace(flags, flags.replace(b"K\x00t", b"K\x01t"))
    path = tmp_path / "flags.pth"
    raw = tmp_path / "flags.pkl"
    raw.write_bytes(armed)
    as_torch_file(path, armed)
    probe = ("import pickle, sys, types\n"
             "module = types.ModuleType('State')\n"
             "class State: pass\n"
             "State.__module__ = 'State'\n"
             "module.State = State\n"
             "sys.modules['State'] = module\n"
             f"table = pickle.loads(open({str(raw)!r}, 'rb').read())\n"
             "print('hasobject', next(iter(table))[0].board.dtype.hasobject, flush=True)\n")
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert "hasobject True" in shown.stdout
    assert load_table(path, side=X)[0] == SMALL_X_TABLE
    assert not np.dtype(np.float64).hasobject


@pytest.mark.slow
def test_the_course_fixtures_still_load_with_the_reference_numbers(fixture_path):
    """The exact reference numbers and the course's fixtures: the values (not just the keys) come through exactly."""
    x_agent = AI_Agent(X, Q_table_PATH=fixture_path("Q_MC_X_vs_advanced.pth"), train=False)
    o_agent = AI_Agent(O, Q_table_PATH=fixture_path("Q_MC_O_vs_random.pth"), train=False)
    assert (len(x_agent.Q), len(o_agent.Q)) == (7966, 7534)
    assert x_agent.meta == o_agent.meta == {"algorithm": "course original"}
    x_vs_advanced = exact_outcome(x_agent, Random_Agent_Advanced(O))
    o_vs_random = exact_outcome(Random_Agent(X), o_agent)
    assert x_vs_advanced["x_wins"] == pytest.approx(0.942813, abs=1e-6)
    assert x_vs_advanced["o_wins"] == 0
    assert (o_vs_random["o_wins"], o_vs_random["x_wins"], o_vs_random["draws"]) == pytest.approx(
        (0.905820, 0.017989, 0.076190), abs=1e-6)


# --- damaged, foreign and wrong files ----------------------------------------------------------

def saved_table(tmp_path, name="table.pth", table=SMALL_X_TABLE, side=X, meta=None):
    path = tmp_path / name
    save_table(path, table, side, meta or {"episodes_done": 3})
    return path


def bad_file(tmp_path, kind: str):
    """A file of the given kind of badness, and the words its error must contain."""
    path = tmp_path / f"{kind.replace(' ', '_')}.pth"
    good = saved_table(tmp_path).read_bytes()
    rng = random.Random(kind)
    writes = {
        "truncated": (lambda: path.write_bytes(good[:len(good) // 2]), "cut short"),
        "one byte short": (lambda: path.write_bytes(good[:-1]), "not a readable"),
        "empty": (lambda: path.write_bytes(b""), "empty"),
        "random bytes": (lambda: path.write_bytes(rng.randbytes(4096)), "not a readable"),
        "zero bytes": (lambda: path.write_bytes(bytes(4096)), "not a readable"),
        "text file": (lambda: path.write_text("Q-table:\n  (0,0): 0.5\n"), "not a readable"),
        "python source": (lambda: path.write_text("import os\nos.system('echo hi')\n"),
                          "not a readable"),
        "zip without a table": (lambda: _write_zip(path), "not a readable"),
        "damaged deflated data": (lambda: _write_damaged_deflate(path, good), "not a readable"),
        "tensor": (lambda: torch.save(torch.zeros(3, 3), path), "holds torch tensors"),
        "tensor value": (lambda: torch.save({(EMPTY, (1, 1)): torch.tensor(0.5)}, path),
                         "holds torch tensors"),
        "tensor side": (lambda: _write_payload(path, side=torch.tensor(1)), "holds torch tensors"),
        "tensor version": (lambda: _write_payload(path, version=torch.tensor(1)),
                           "holds torch tensors"),
        "list": (lambda: torch.save([1, 2, 3], path), "holds a list"),
        "number": (lambda: torch.save(0.5, path), "holds a float"),
        "dict of junk": (lambda: torch.save({"a": 1, "b": (2,)}, path), "not a Tic-Tac-Toe"),
        "Nim table": (lambda: torch.save({((1, 3, 5, 7), (0, 1)): 0.5}, path), "not a Tic-Tac-Toe"),
        "Connect Four board": (lambda: _write_course_board(path, np.zeros((6, 7))),
                               "not a Tic-Tac-Toe position"),
        "board value 2": (lambda: _write_course_board(path, np.full((3, 3), 2.0)),
                          "not a Tic-Tac-Toe position"),
        "empty dict": (lambda: torch.save({}, path), "empty Q-table"),
        "nan value": (lambda: torch.save({(EMPTY, (1, 1)): float("nan")}, path), "not a finite"),
        "inf value": (lambda: torch.save({(EMPTY, (1, 1)): float("inf")}, path), "not a finite"),
        "-inf value": (lambda: torch.save({(EMPTY, (1, 1)): -float("inf")}, path), "not a finite"),
        "huge int value": (lambda: torch.save({(EMPTY, (1, 1)): 10**400}, path), "not a finite"),
        "text value": (lambda: torch.save({(EMPTY, (1, 1)): "0.5"}, path), "not a number"),
        "bool value": (lambda: torch.save({(EMPTY, (1, 1)): True}, path), "not a number"),
        "off-board action": (lambda: torch.save({(EMPTY, (3, 0)): 0.5}, path), "off the board"),
        "float action": (lambda: torch.save({(EMPTY, (1.0, 1.0)): 0.5}, path), "pair of ints"),
        "occupied cell": (lambda: torch.save({(AFTER_CENTER, (1, 1)): 0.5}, path), "occupied"),
        "finished game": (lambda: torch.save({(parse_moves("0,0 1,0 0,1 1,1 0,2"), (2, 2)): 0.5},
                                             path), "cannot occur"),
        "impossible position": (lambda: torch.save({(State([1, 1, 1, 1, 0, 0, 0, 0, 0], O), (2, 2)):
                                                    0.5}, path), "cannot occur"),
        "wrong side to move": (lambda: torch.save({(State([1, 0, 0, 0, 0, 0, 0, 0, 0], X), (2, 2)):
                                                   0.5}, path), "cannot occur"),
        "mixed sides": (lambda: torch.save({**SMALL_X_TABLE, **SMALL_O_TABLE}, path), "one side"),
        "side disagrees": (lambda: _write_payload(path, side=O), "says it plays O"),
        "bad side": (lambda: _write_payload(path, side=2), "damaged"),
        "future version": (lambda: _write_payload(path, version=99), "version 99"),
        "meta not a dict": (lambda: _write_payload(path, meta=(1,)), "damaged"),
        "list in the meta": (lambda: _write_payload(path, meta={"history": [1, 2]}),
                             "holds a list"),
        "bad episode count": (lambda: _write_payload(path, meta={"episodes_done": -4}),
                              "episodes_done"),
        "nested meta": (lambda: _write_payload(path, meta={"history": (1, 2)}), "meta entry"),
    }
    write, words = writes[kind]
    write()
    return path, words


BAD_KINDS = ("truncated", "one byte short", "empty", "random bytes", "zero bytes", "text file",
             "python source", "zip without a table", "damaged deflated data", "tensor",
             "tensor value", "tensor side", "tensor version", "list", "number", "dict of junk",
             "Nim table", "Connect Four board", "board value 2", "empty dict",
             "nan value", "inf value", "-inf value", "huge int value", "text value", "bool value",
             "off-board action", "float action", "occupied cell", "finished game",
             "impossible position", "wrong side to move", "mixed sides", "side disagrees",
             "bad side", "future version", "meta not a dict", "list in the meta",
             "bad episode count", "nested meta")


def _write_zip(path) -> None:
    import zipfile
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("archive/readme.txt", "no table here")


def _write_damaged_deflate(path, good: bytes) -> None:
    """Our table, re-zipped with its data.pkl deflated, then a run of its compressed bytes
    overwritten."""
    with zipfile.ZipFile(io.BytesIO(good)) as archive:
        pickled = archive.read("archive/data.pkl")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("archive/data.pkl", pickled)
    data = bytearray(buffer.getvalue())
    data[60:90] = b"\xff" * 30
    path.write_bytes(bytes(data))


def _write_course_board(path, board) -> None:
    stored = CourseState.__new__(CourseState)
    stored.board, stored.player, stored.end_of_game = board, 1, 0
    original = state_module.State
    state_module.State = CourseState
    try:
        torch.save({(stored, (0, 0)): 0.5}, path)
    finally:
        state_module.State = original


def _write_payload(path, side=X, version=1, meta=None) -> None:
    torch.save({"format": "tictactoe-q-table", "version": version, "side": side,
                "meta": {} if meta is None else meta, "Q": dict(SMALL_X_TABLE)}, path)


@pytest.mark.parametrize("kind", BAD_KINDS)
def test_a_bad_file_gives_one_clear_error(tmp_path, kind):
    path, words = bad_file(tmp_path, kind)
    with pytest.raises(TableError) as caught:
        load_table(path)
    assert_clear_error(caught.value, path, words)


@pytest.mark.parametrize("kind", ("truncated", "Nim table", "nan value", "tensor"))
def test_agents_and_specs_refuse_bad_files_the_same_way(tmp_path, kind):
    path, words = bad_file(tmp_path, kind)
    for load in (lambda: AI_Agent(X, Q_table_PATH=str(path)), lambda: make_agent(str(path), X)):
        with pytest.raises(TableError) as caught:
            load()
        assert_clear_error(caught.value, path, words)


def test_a_table_for_the_other_side_is_refused(tmp_path):
    o_path = saved_table(tmp_path, "o.pth", SMALL_O_TABLE, O)
    with pytest.raises(TableError) as caught:
        load_table(o_path, side=X)
    assert_clear_error(caught.value, o_path, "is a table for O, not for X")
    with pytest.raises(TableError):
        AI_Agent(X, Q_table_PATH=str(o_path))
    assert load_table(o_path, side=O)[1] == O


@pytest.mark.parametrize("kind", ["missing", "folder", "device", "too large", "unreadable"])
def test_paths_that_are_not_table_files(tmp_path, monkeypatch, kind):
    path = tmp_path / "table.pth"
    if kind == "folder":
        path.mkdir()
    elif kind == "device":
        if not os.path.exists(os.devnull) or os.name != "posix":
            pytest.skip("no POSIX device file")
        path = Path(os.devnull)
    elif kind == "too large":
        with open(path, "wb") as stream:
            stream.truncate(MAX_FILE_BYTES + 1)   # sparse: no disk space used
    elif kind == "unreadable":   # as if permission were denied (which root never is)
        saved_table(tmp_path)
        monkeypatch.setattr(Q_Table, "open", raising(PermissionError(errno.EACCES,
                                                                     "Permission denied")),
                            raising=False)
    words = {"missing": "no such file", "folder": "is a folder", "device": "not a regular file",
             "too large": "too large", "unreadable": "cannot be read"}[kind]
    with pytest.raises(TableError) as caught:
        load_table(path)
    assert_clear_error(caught.value, path, words)


# --- saving --------------------------------------------------------------------------------------

def test_a_saved_table_loads_back_exactly_and_is_a_real_torch_file(tmp_path):
    table = {(EMPTY, (np.int64(1), np.int64(1))): np.float64(0.5), (EMPTY, (0, 0)): -1}
    path = saved_table(tmp_path, table=table, meta={"episodes_done": 7, "note": "ok"})
    Q, side, meta = load_table(path)
    assert Q == {(EMPTY, (1, 1)): 0.5, (EMPTY, (0, 0)): -1.0}
    assert all(type(v) is float for v in Q.values())
    assert (side, meta) == (X, {"episodes_done": 7, "note": "ok"})
    trusted = torch.load(path, weights_only=False)   # written by us: torch itself reads it
    assert trusted["Q"] == Q and trusted["side"] == X


def test_meta_is_stored_as_plain_values(tmp_path):
    meta = {"episodes_done": np.int64(5), "alpha": np.float32(0.5), "where": tmp_path, 7: None}
    path = saved_table(tmp_path, meta=meta)
    assert load_table(path)[2] == {"episodes_done": 5, "alpha": 0.5, "where": str(tmp_path),
                                   "7": None}


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_saved_table_gets_the_usual_permissions(tmp_path):
    mask = os.umask(0o022)
    try:
        path = saved_table(tmp_path)
    finally:
        os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize("table, side, meta, words", [
    ({(EMPTY, (1, 1)): float("nan")}, X, {}, "not a finite"),
    ({(EMPTY, (1, 1)): float("inf")}, X, {}, "not a finite"),
    ({(AFTER_CENTER, (0, 0)): 0.5}, X, {}, "has O to move"),
    ({(EMPTY, (5, 5)): 0.5}, X, {}, "off the board"),
    ({("board", (1, 1)): 0.5}, X, {}, "not a (State, (row, col)) pair"),
    (SMALL_X_TABLE, 0, {}, "side must be"),
    (SMALL_X_TABLE, X, {"episodes_done": -1}, "episodes_done"),
])
def test_a_table_that_could_not_be_loaded_back_is_not_saved(tmp_path, table, side, meta, words):
    path = saved_table(tmp_path)
    before = path.read_bytes()
    with pytest.raises(ValueError, match="not saving") as caught:
        save_table(path, table, side, meta)
    assert words in str(caught.value)
    assert path.read_bytes() == before
    assert files_in(tmp_path) == ["table.pth"]


class FailingStream:
    """A file that takes ``limit`` bytes and then fails on the next write with ``error``, as a
    file on a full disk does (the bytes before the failure really are written)."""

    def __init__(self, stream, limit: int, error: BaseException) -> None:
        self.stream, self.limit, self.error = stream, limit, error

    def write(self, data) -> int:
        room = max(0, self.limit - self.stream.tell())
        self.stream.write(bytes(data[:room]))
        if room < len(data):
            raise self.error
        return len(data)

    def __getattr__(self, name):
        return getattr(self.stream, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.stream.close()


def failing_writes(limit: int, error: BaseException):
    """An ``os.fdopen`` whose files fail after ``limit`` bytes."""
    real_fdopen = os.fdopen
    return lambda *args, **kwargs: FailingStream(real_fdopen(*args, **kwargs), limit, error)


def raising(error: BaseException):
    def fail(*args, **kwargs):
        raise error
    return fail


FAILURES = {
    "disk full mid-write": lambda mp: mp.setattr(
        os, "fdopen", failing_writes(600, OSError(errno.ENOSPC, "No space left on device"))),
    "crash mid-write": lambda mp: mp.setattr(os, "fdopen", failing_writes(300, KeyboardInterrupt())),
    "fsync fails": lambda mp: mp.setattr(os, "fsync", raising(OSError(errno.EIO, "I/O error"))),
    "replace fails": lambda mp: mp.setattr(os, "replace", raising(OSError(errno.EXDEV, "cross"))),
    "Ctrl-C before replace": lambda mp: mp.setattr(os, "replace", raising(KeyboardInterrupt())),
}


@pytest.mark.parametrize("failure", FAILURES)
def test_a_failed_save_leaves_the_previous_table_intact(tmp_path, monkeypatch, failure):
    path = saved_table(tmp_path)
    before = path.read_bytes()
    bigger = {**SMALL_X_TABLE, (EMPTY, (2, 2)): 0.9}
    FAILURES[failure](monkeypatch)
    with pytest.raises((OSError, KeyboardInterrupt)):
        save_table(path, bigger, X, {"episodes_done": 9})
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert load_table(path) == (SMALL_X_TABLE, X, {"episodes_done": 3})
    assert files_in(tmp_path) == ["table.pth"]


def test_a_failed_first_save_leaves_no_file_at_all(tmp_path, monkeypatch):
    FAILURES["disk full mid-write"](monkeypatch)
    with pytest.raises(OSError):
        save_table(tmp_path / "new.pth", SMALL_X_TABLE, X)
    assert files_in(tmp_path) == []


def test_saving_replaces_the_old_table_and_creates_folders(tmp_path):
    path = saved_table(tmp_path)
    save_table(path, SMALL_O_TABLE, O, {"episodes_done": 1})
    assert load_table(path)[:2] == (SMALL_O_TABLE, O)
    nested = tmp_path / "a" / "b" / "t.pth"
    save_table(nested, SMALL_X_TABLE, X)
    assert load_table(nested)[0] == SMALL_X_TABLE
    assert files_in(tmp_path) == ["a", "table.pth"]


def test_check_writable_reports_bad_destinations_before_any_work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    check_writable("new/t.pth")            # a missing folder under the current one is created
    assert files_in(tmp_path / "new") == []
    (tmp_path / "folder.pth").mkdir()
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    for bad, words in ((tmp_path / "folder.pth", "is a folder"),
                       (a_file / "sub" / "t.pth", "cannot save here")):
        with pytest.raises(TableError) as caught:
            check_writable(bad)
        assert str(caught.value).startswith(f"{bad}: ") and words in str(caught.value)


def test_a_table_in_torchs_legacy_format_loads(tmp_path):
    """torch.save(..., _use_new_zipfile_serialization=False): pickles, not a zip archive."""
    path = tmp_path / "legacy.pth"
    torch.save({"format": "tictactoe-q-table", "version": 1, "side": X,
                "meta": {"episodes_done": 3}, "Q": dict(SMALL_X_TABLE)}, path,
               _use_new_zipfile_serialization=False)
    assert load_table(path) == (SMALL_X_TABLE, X, {"episodes_done": 3})


@pytest.mark.slow
def test_the_largest_real_tables_are_within_every_limit(tmp_path, monkeypatch):
    """Every (position, move) pair X can meet, in the course's bulky format (about 2.6 MB) and
    in ours: the loader's limits on size, instructions, nesting and entries leave room for both."""
    complete = {(state, action): 0.5 for state in state_module.all_states()
                if state.player == X and not state.end_of_game for action in state.legal_actions()}
    assert len(complete) == 8631
    path = tmp_path / "course.pth"
    dump_course_table(monkeypatch, course_table(complete), lambda table: torch.save(table, path))
    assert load_table(path, side=X)[0] == complete
    assert load_table(saved_table(tmp_path, table=complete), side=X)[0] == complete
