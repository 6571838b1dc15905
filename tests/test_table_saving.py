"""Saving tables: torch.save's exact bytes without torch, reproducible files, every bad
destination refused before training, a killed save's temporary file cleaned up, and a failed save
(a real full disk where the machine allows) keeping the work in a fallback file."""

import contextlib
import errno
import io
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import pytest
import torch

from State import O, X, State, all_states
from tictactoe_rl.tables import destinations
from tictactoe_rl.tables.files import (FORMAT_NAME, NotSaved, TableError, check_writable,
                                       load_table, save_or_keep, save_table)
from tictactoe_rl.tables.torch_format import torch_save_bytes

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = [ROOT / "Data" / "Q_MC_X.pth", ROOT / "Data" / "Q_MC_O.pth"]
SMALL = {(State(), (1, 1)): 0.5, (State(), (0, 0)): -0.25}


def torch_bytes(obj) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def members(data: bytes) -> list[tuple[str, bytes, tuple]]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return [(info.filename, archive.read(info), info.date_time) for info in archive.infolist()]


def payload_of(path) -> dict:
    Q, side, meta = load_table(path)
    return {"format": FORMAT_NAME, "version": 1, "side": side, "meta": meta, "Q": Q}


PAYLOADS = {
    "small table": lambda: {"format": FORMAT_NAME, "version": 1, "side": X,
                            "meta": {"note": "é ✓", "episodes_done": 3}, "Q": dict(SMALL)},
    "empty table": lambda: {"format": FORMAT_NAME, "version": 1, "side": O, "meta": {}, "Q": {}},
    "shipped X table": lambda: payload_of(SHIPPED[0]),
    "shipped O table": lambda: payload_of(SHIPPED[1]),
    "plain data": lambda: {"a": [1, 2.5, None, True], "b": ("x" * 70_000,), 3: b"\x00\xff"},
}


# --- the format ---------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("kind", PAYLOADS)
def test_the_file_is_what_torch_save_writes_member_by_member(kind):
    obj = PAYLOADS[kind]()
    ours, theirs = torch_save_bytes(obj), torch_bytes(obj)
    ours_members, their_members = members(ours), members(theirs)
    assert [name for name, _, _ in ours_members] == [name for name, _, _ in their_members]
    for (name, data, stamp), (_, expected, expected_stamp) in zip(ours_members, their_members):
        if not name.endswith("serialization_id"):
            assert (name, data, stamp) == (name, expected, expected_stamp)
    # The same bytes once torch's serialization id (its first half hashes the record names with
    # the platform's C++ library) is put in: the layout, padding and records are torch's own.
    their_id, our_id = their_members[-1][1], ours_members[-1][1]
    assert our_id[20:] == their_id[20:]              # the half folded from each record's CRC-32
    assert ours == theirs.replace(their_id, our_id)
    if sys.platform.startswith("linux"):
        assert ours == theirs


@pytest.mark.parametrize("kind", ["small table", "shipped O table"])
def test_torch_reads_the_file_back_identically(kind):
    obj = PAYLOADS[kind]()
    with torch.serialization.safe_globals([State]):
        assert torch.load(io.BytesIO(torch_save_bytes(obj)), weights_only=True) == obj


def test_saving_does_not_import_torch(tmp_path):
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from tictactoe_rl.tables.files import save_table, "
            "load_table; from State import State; save_table(sys.argv[2], {(State(), (1, 1)): "
            "0.5}, 1); load_table(sys.argv[2]); print('torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, str(ROOT), str(tmp_path / "t.pth")],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stderr


# --- reproducible files -------------------------------------------------------------------------

@pytest.mark.slow
def test_saving_the_same_table_twice_gives_the_same_bytes(tmp_path):
    meta = {"algorithm": "MC", "episodes_done": 10, "seed": 1}
    save_table(tmp_path / "a.pth", SMALL, X, meta)
    time.sleep(1.1)   # a second later: a time stamp in the file would differ
    # equal texts that are different objects (pickle refers back to an object it has written)
    rebuilt = {"".join(["algo", "rithm"]): "".join(["M", "C"]), "episodes_done": 10, "seed": 1}
    save_table(tmp_path / "b.pth", dict(SMALL), X, rebuilt)
    first = (tmp_path / "a.pth").read_bytes()
    assert first == (tmp_path / "b.pth").read_bytes()
    assert {stamp for _, _, stamp in members(first)} == {(1980, 0, 0, 0, 0, 0)}   # DOS time 0
    assert [name for name, _, _ in members(first)] == [
        "archive/data.pkl", "archive/.format_version", "archive/.storage_alignment",
        "archive/byteorder", "archive/version", "archive/.data/serialization_id"]


@pytest.mark.parametrize("shipped", SHIPPED, ids=lambda path: path.name)
def test_the_shipped_tables_load_and_save_back_to_the_same_bytes(tmp_path, shipped):
    Q, side, meta = load_table(shipped)
    assert (len(Q), side) == ((8631, X) if side == X else (7536, O))
    copy = tmp_path / shipped.name
    save_table(copy, Q, side, meta)
    assert copy.read_bytes() == shipped.read_bytes()


# --- destinations ------------------------------------------------------------------------------

@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    """A repository folder and a current folder that are both not ``tmp_path / 'outside'``."""
    repository, current = tmp_path / "repo", tmp_path / "current"
    repository.mkdir()
    current.mkdir()
    monkeypatch.setattr(destinations, "REPOSITORY", str(repository))
    monkeypatch.chdir(current)
    return tmp_path


def refusal(path, force=False) -> str:
    with pytest.raises(TableError) as caught:
        check_writable(path, force)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{path}: "), message
    return message


def test_a_trailing_slash_or_an_over_long_name_is_refused(elsewhere):
    assert "ends with a slash" in refusal(f"{elsewhere}/current/")
    assert "e.g. " in refusal("Data/")
    long_name = "q" * 252 + ".pth"
    assert "more than the 255" in refusal(str(elsewhere / long_name))
    assert "more than the 255" in refusal(str(elsewhere / ("é" * 130) / "t.pth"))


def test_only_pth_files_are_written(elsewhere):
    for name in ("Tester.py", "table.pt", "table", "table.pth.bak"):
        assert "must end in .pth" in refusal(name)


def test_missing_folders_are_created_only_under_the_repository_or_the_current_folder(elsewhere):
    check_writable(elsewhere / "repo" / "new" / "t.pth")
    check_writable("run/t.pth")
    assert (elsewhere / "repo" / "new").is_dir() and (elsewhere / "current" / "run").is_dir()
    outside = elsewhere / "outside" / "deeper" / "t.pth"
    assert "does not exist; create it first (mkdir -p" in refusal(outside)
    assert not (elsewhere / "outside").exists()
    assert "does not exist" in refusal("/nonexistent/x.pth")
    assert not os.path.exists("/nonexistent")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX pipes")
def test_a_pipe_or_a_device_is_never_replaced(elsewhere):
    pipe = elsewhere / "current" / "pipe.pth"
    os.mkfifo(pipe)
    for target in (pipe, Path(os.devnull)):
        before = target.stat().st_mode
        assert "not a regular file" in refusal(target)
        assert "not a regular file" in refusal(target, force=True)
        with pytest.raises(TableError, match="not a regular file"):
            save_table(target, SMALL, X)
        assert target.stat().st_mode == before


def test_a_file_that_is_not_a_table_is_replaced_only_when_forced(elsewhere, fixture_path):
    notes = elsewhere / "current" / "notes.pth"
    notes.write_text("my notes")
    assert "not a Q-table file" in refusal(notes) and "--force" in refusal(notes)
    check_writable(notes, force=True)
    assert notes.read_text() == "my notes"       # checking never writes the file itself
    ours = elsewhere / "current" / "ours.pth"
    save_table(ours, SMALL, X)
    course = elsewhere / "current" / "course.pth"
    course.write_bytes(Path(fixture_path("Q_MC_O_vs_random.pth")).read_bytes())
    for table in (ours, course):
        check_writable(table)                    # a table (ours or the course's) may be replaced


# --- temporary files ---------------------------------------------------------------------------

def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_killed_saves_temporary_file_is_removed_by_the_next_save(tmp_path):
    hour_ago = time.time() - 3700
    names = {f".tmp-{dead_pid()}-{'a' * 12}.pth": "removed",    # its save was killed
             f".tmp-{'b' * 12}.pth": "removed",                 # an old one, from earlier code
             f".tmp-1-{'c' * 12}.pth": "kept",                  # its process is still running
             f".tmp-{'d' * 12}.pth": "kept",                    # recent: a save may be writing
             ".tmp-notes.pth": "kept", f"Q.tmp-{'e' * 12}.pth": "kept"}   # not ours
    for name in names:
        (tmp_path / name).write_bytes(b"partial")
    os.utime(tmp_path / f".tmp-{'b' * 12}.pth", (hour_ago, hour_ago))
    save_table(tmp_path / "t.pth", SMALL, X)
    kept = {name for name, fate in names.items() if fate == "kept"}
    assert set(os.listdir(tmp_path)) == kept | {"t.pth"}


def test_a_killed_save_leaves_the_previous_table_and_the_next_save_cleans_up(tmp_path):
    """SIGKILL in the middle of writing: the old table stays, and the orphan goes next time."""
    path = tmp_path / "t.pth"
    save_table(path, SMALL, X, {"episodes_done": 1})
    code = ("import os, signal, sys; sys.path.insert(0, sys.argv[1]); import tictactoe_rl.tables.files as f\n"
            "real = os.fsync\n"
            "def die(fd): os.kill(os.getpid(), signal.SIGKILL)\n"
            "os.fsync = die\n"
            "from State import State\n"
            "f.save_table(sys.argv[2], {(State(), (2, 2)): 0.1}, 1)\n")
    done = subprocess.run([sys.executable, "-c", code, str(ROOT), str(path)], timeout=120)
    assert done.returncode == -9
    orphans = [name for name in os.listdir(tmp_path) if name.startswith(".tmp-")]
    assert len(orphans) == 1 and load_table(path)[0] == SMALL
    save_table(path, SMALL, X, {"episodes_done": 2})
    assert os.listdir(tmp_path) == ["t.pth"]


# --- failed saves --------------------------------------------------------------------------------

@pytest.fixture
def own_temp_folder(tmp_path, monkeypatch):
    folder = tmp_path / "temp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def big_table() -> dict:
    """About 2,400 X entries (a file of about 100 KB)."""
    return {(state, action): 0.25 for state in all_states() if state.player == X
            and not state.end_of_game for action in state.legal_actions()[:1]}


@contextlib.contextmanager
def small_disk(folder: Path, size: str = "64k"):
    """A real file system of ``size`` at ``folder`` (tmpfs), or skip where it cannot be mounted."""
    folder.mkdir()
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root on Linux")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_a_real_full_disk_leaves_the_previous_table_and_no_temporary_file(tmp_path):
    with small_disk(tmp_path / "disk") as disk:
        path = disk / "t.pth"
        save_table(path, SMALL, X, {"episodes_done": 1})
        before = path.read_bytes()
        with pytest.raises(OSError) as caught:
            save_table(path, big_table(), X, {"episodes_done": 2})
        assert caught.value.errno == errno.ENOSPC
        assert path.read_bytes() == before and os.listdir(disk) == ["t.pth"]


@pytest.mark.slow
def test_save_or_keep_keeps_the_table_when_the_disk_is_full(tmp_path, own_temp_folder):
    table = big_table()
    with small_disk(tmp_path / "disk") as disk:
        path = disk / "t.pth"
        with pytest.raises(NotSaved) as caught:
            save_or_keep(path, table, X, {"episodes_done": 2})
        assert os.listdir(disk) == []
    message, fallback = str(caught.value), caught.value.fallback
    assert "\n" not in message and message.startswith(f"{path}: could not save the table (")
    assert "No space left on device" in message and f"kept it in {fallback}" in message
    assert os.path.dirname(fallback) == str(own_temp_folder)
    assert load_table(fallback)[:2] == (table, X)


def test_save_or_keep_saves_beside_the_target_when_only_the_target_fails(tmp_path):
    path = tmp_path / "t.pth"
    assert save_or_keep(path, SMALL, X) == str(path) and load_table(path)[0] == SMALL
    blocked = tmp_path / "pipe.pth"
    os.mkfifo(blocked)
    with pytest.raises(NotSaved) as caught:
        save_or_keep(blocked, SMALL, X)
    fallback = caught.value.fallback
    assert os.path.dirname(fallback) == str(tmp_path) and os.path.basename(fallback).startswith(
        "unsaved_Q_X_")
    assert "not a regular file" in str(caught.value) and load_table(fallback)[0] == SMALL


def test_save_or_keep_says_so_when_the_table_could_be_kept_nowhere(tmp_path, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "open", full)
    with pytest.raises(NotSaved) as caught:
        save_or_keep(tmp_path / "t.pth", SMALL, X)
    assert caught.value.fallback is None
    assert "nor keep it anywhere else; free some disk space" in str(caught.value)


def test_an_invalid_table_is_still_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="not saving") as caught:
        save_or_keep(tmp_path / "t.pth", {(State(), (5, 5)): 0.5}, X)
    assert not isinstance(caught.value, NotSaved) and os.listdir(tmp_path) == []
