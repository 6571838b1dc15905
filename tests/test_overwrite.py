"""A run never loses a file: ``--out`` (or the default file) naming a file for another board, side
or kind, or a table shipped with the course, is refused in one line that says what the file is
for and names ``--force``; a file that is replaced (a student's rerun) is kept as ``.bak`` first,
and the run says so."""

import os
import shutil
import signal

import pytest

from tictactoe_rl import cli
import DQN_Trainer
import Q_Trainer
from tictactoe_rl.geometry import BoardShape
from tictactoe_rl.positions import intern
from State import O, X, State
from tictactoe_rl.tables.files import load_table, save_board_table, save_table
from tictactoe_rl.training import destination
from tictactoe_rl.training.destination import Purpose, purpose_of

FOUR = BoardShape(4, 4, 4)
SHORT = ["--epochs", "200", "--seed", "1"]


def command_line(main, argv: list[str], capsys) -> tuple[int, list[str], str]:
    """``main(argv)`` as its script runs it (``cli.run``), in this process: ``(exit status, the
    lines on stderr, stdout)``."""
    handlers = {number: signal.getsignal(number) for number in (signal.SIGINT,
                                                                *cli.ENDING_SIGNALS)}
    try:
        with pytest.raises(SystemExit) as ended:
            cli.run(lambda: main(argv))
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)
    printed = capsys.readouterr()
    return ended.value.code, printed.err.strip().splitlines(), printed.out


def table_3x3(path, side: int = X) -> bytes:
    state = State() if side == X else State([1, 0, 0, 0, 0, 0, 0, 0, 0], O)
    save_table(str(path), {(state, (1, 1)): 0.5}, side, {"algorithm": "test"})
    return path.read_bytes()


def table_4x4(path, side: int = X) -> bytes:
    cells = (0,) * 16 if side == X else (1,) + (0,) * 15
    save_board_table(str(path), {(intern(FOUR, cells, side), (1, 1)): 0.5}, side,
                     {"algorithm": "test", "board": FOUR.name}, FOUR)
    return path.read_bytes()


def network(path, sides=(X,)) -> bytes:
    from tictactoe_rl.neural.files import save_network
    from tictactoe_rl.neural.network import QNetwork
    save_network(str(path), QNetwork((8,)), sides, {"algorithm": "DQN"})
    return path.read_bytes()


def assert_refused(status: int, err: list[str], path, before: bytes, *words: str) -> None:
    assert status == cli.USAGE_ERROR and len(err) == 1, err
    assert "--force" in err[0] and all(word in err[0] for word in words), err[0]
    assert path.read_bytes() == before and not (path.parent / (path.name + ".bak")).exists()


# --- what a file is for -------------------------------------------------------------------------

def test_what_a_file_is_for_is_read_from_its_header(tmp_path):
    table_3x3(tmp_path / "x.pth")
    table_4x4(tmp_path / "o4.pth", O)
    network(tmp_path / "n.pt", (X, O))
    (tmp_path / "notes.pth").write_text("not a table", encoding="utf-8")
    assert purpose_of(str(tmp_path / "x.pth")) == Purpose("table", BoardShape(), (X,))
    assert purpose_of(str(tmp_path / "o4.pth")) == Purpose("table", FOUR, (O,))
    assert purpose_of(str(tmp_path / "n.pt")) == Purpose("network", BoardShape(), (X, O))
    assert purpose_of(str(tmp_path / "notes.pth")) is None
    assert str(Purpose("network", FOUR, (X, O))) == "a network for X and O on the 4x4 k=4 board"


# --- refused without --force --------------------------------------------------------------------

@pytest.mark.solved_only   # the solved trainers
@pytest.mark.parametrize("existing, flags, words", [
    (table_4x4, [], ["a table for X on the 4x4 k=4 board", "a table for X on the 3x3 k=3"]),
    (table_3x3, ["--board", "4x4", "--k", "4"], ["a table for X on the 3x3 k=3 board", "4x4 k=4"]),
    (lambda path: table_3x3(path, O), [], ["a table for O on the 3x3 k=3 board",
                                           "saves a table for X"]),
    (lambda path: table_4x4(path, X), ["--board", "4x4", "--k", "4", "--side", "O"],
     ["a table for X on the 4x4 k=4 board", "a table for O on the 4x4 k=4"]),
], ids=["4x4 file, 3x3 run", "3x3 file, 4x4 run", "O file, X run", "X file, O run"])
def test_a_table_for_another_board_or_side_is_not_replaced(tmp_path, capsys, existing, flags,
                                                            words):
    path = tmp_path / "t.pth"
    before = existing(path)
    status, err, _ = command_line(Q_Trainer.run, [*SHORT, "--out", str(path), *flags], capsys)
    assert_refused(status, err, path, before, *words)


@pytest.mark.solved_only   # the solved trainers
def test_self_play_does_not_replace_a_table_of_the_other_side(tmp_path, capsys):
    before = table_3x3(tmp_path / "t_X.pth", O)     # an O table under the name for X
    status, err, _ = command_line(Q_Trainer.run, [*SHORT, "--opponent", "self", "--out",
                                                  str(tmp_path / "t.pth")], capsys)
    assert_refused(status, err, tmp_path / "t_X.pth", before, "a table for O", "for X")
    assert not (tmp_path / "t_O.pth").exists()


@pytest.mark.solved_only   # the solved trainers
def test_a_network_is_not_replaced_by_a_table_nor_a_table_by_a_network(tmp_path, capsys):
    net = tmp_path / "n.pth"
    before = network(net)
    status, err, _ = command_line(Q_Trainer.run, [*SHORT, "--out", str(net)], capsys)
    assert_refused(status, err, net, before, "is a network for X", "saves a table for X")
    table = tmp_path / "t.pt"
    before = table_3x3(table)
    status, err, _ = command_line(DQN_Trainer.run, ["--epochs", "20", "--seed", "1", "--out",
                                                    str(table)], capsys)
    assert_refused(status, err, table, before, "is a table for X", "saves a network for X")


@pytest.mark.solved_only   # the solved trainers
def test_a_network_for_another_side_is_not_replaced(tmp_path, capsys):
    path = tmp_path / "n.pt"
    before = network(path, (X,))
    status, err, _ = command_line(DQN_Trainer.run, ["--epochs", "20", "--seed", "1", "--side",
                                                    "O", "--out", str(path)], capsys)
    assert_refused(status, err, path, before, "a network for X on", "saves a network for O")


@pytest.mark.slow
@pytest.mark.solved_only   # the solved trainers
def test_a_shipped_table_is_never_replaced_without_force(tmp_path, capsys):
    shipped = os.path.join(cli.REPOSITORY, destination.SHIPPED[0])
    path = tmp_path / "link.pth"
    path.symlink_to(shipped)    # by another name too
    before = path.read_bytes()
    for out in (shipped, str(path)):
        status, err, _ = command_line(Q_Trainer.run, [*SHORT, "--out", out], capsys)
        assert status == cli.USAGE_ERROR and len(err) == 1, err
        assert "shipped with the course" in err[0] and "--force" in err[0]
    assert path.read_bytes() == before


@pytest.mark.slow
@pytest.mark.solved_only   # the solved trainers
def test_with_force_a_shipped_table_is_replaced_and_kept_as_bak(tmp_path, capsys, monkeypatch):
    course = tmp_path / "course"
    (course / "Data").mkdir(parents=True)
    shipped = course / destination.SHIPPED[0]
    shutil.copyfile(os.path.join(cli.REPOSITORY, destination.SHIPPED[0]), shipped)
    before = shipped.read_bytes()
    monkeypatch.setattr(cli, "REPOSITORY", str(course))
    status, err, _ = command_line(Q_Trainer.run, [*SHORT, "--out", str(shipped)], capsys)
    assert status == cli.USAGE_ERROR and "shipped with the course" in err[0]
    status, err, out = command_line(Q_Trainer.run, [*SHORT, "--out", str(shipped), "--force"],
                                    capsys)
    assert status == 0, err
    assert (course / "Data" / "Q_MC_X.pth.bak").read_bytes() == before != shipped.read_bytes()
    assert f"kept as {shipped}.bak" in out


# --- replaced, and kept ---------------------------------------------------------------------------

@pytest.mark.solved_only   # the solved trainers
def test_a_rerun_says_it_replaces_the_students_table_and_keeps_the_previous_one(tmp_path, capsys):
    path = tmp_path / "my_Q_X.pth"
    assert command_line(Q_Trainer.run, [*SHORT, "--out", str(path)], capsys)[0] == 0
    first = path.read_bytes()
    status, _, out = command_line(Q_Trainer.run, ["--epochs", "300", "--seed", "2", "--out",
                                                  str(path)], capsys)
    assert status == 0
    assert f"note: {path} exists and will be replaced; the previous file is kept as " \
           f"{path}.bak" in out
    assert (tmp_path / "my_Q_X.pth.bak").read_bytes() == first
    assert load_table(path)[2]["episodes_done"] == 300


@pytest.mark.solved_only   # the solved trainers
def test_with_force_a_table_of_another_board_is_replaced_and_kept(tmp_path, capsys):
    path = tmp_path / "t.pth"
    before = table_4x4(path)
    status, err, out = command_line(Q_Trainer.run, [*SHORT, "--out", str(path), "--force"],
                                    capsys)
    assert status == 0, err
    assert (tmp_path / "t.pth.bak").read_bytes() == before
    assert load_table(path)[1] == X and "kept as" in out


@pytest.mark.solved_only   # the solved trainers
def test_resuming_into_the_same_file_keeps_no_copy(tmp_path, capsys):
    path = tmp_path / "t.pth"
    assert command_line(Q_Trainer.run, [*SHORT, "--out", str(path)], capsys)[0] == 0
    status, _, out = command_line(Q_Trainer.run, ["--epochs", "400", "--resume", str(path)],
                                  capsys)
    assert status == 0 and "replaced" not in out
    assert load_table(path)[2]["episodes_done"] == 400 and not (tmp_path / "t.pth.bak").exists()


@pytest.mark.solved_only   # the solved trainers
def test_a_backup_that_cannot_be_written_stops_the_run_before_it_trains(tmp_path, capsys):
    path = tmp_path / "t.pth"
    before = table_3x3(path)
    (tmp_path / "t.pth.bak").mkdir()     # a folder where the copy would go
    status, err, out = command_line(Q_Trainer.run, [*SHORT, "--out", str(path)], capsys)
    assert status == cli.USAGE_ERROR and len(err) == 1 and "cannot be kept as" in err[0], err
    assert path.read_bytes() == before and "Trained" not in out


@pytest.mark.solved_only   # the solved trainers
def test_a_damaged_table_is_replaced_and_kept(tmp_path, capsys):
    """A table whose header cannot be read is for nothing this run could tell: it is replaced,
    and kept as .bak like any other."""
    path = tmp_path / "t.pth"
    damaged = table_4x4(path)[:120]       # cut short: its members are gone
    path.write_bytes(damaged)
    assert purpose_of(str(path)) is None
    status, err, out = command_line(Q_Trainer.run, [*SHORT, "--out", str(path)], capsys)
    assert status == 0, err
    assert (tmp_path / "t.pth.bak").read_bytes() == damaged and load_table(path)[1] == X


def test_the_gymnasium_example_keeps_what_it_replaces_and_refuses_another_side(tmp_path):
    pytest.importorskip("gymnasium")
    import subprocess
    import sys
    script = os.path.join(cli.REPOSITORY, "examples", "train_gymnasium.py")
    path = tmp_path / "g.pth"
    before = table_3x3(path, O)

    def train(*flags: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, script, "--episodes", "100", "--out", str(path),
                               *flags], capture_output=True, text=True, timeout=300)

    refused = train()
    assert refused.returncode == cli.USAGE_ERROR and "a table for O on the 3x3" in refused.stderr
    assert path.read_bytes() == before
    replaced = train("--side", "O")
    assert replaced.returncode == 0 and "kept as" in replaced.stdout, replaced.stderr
    assert (tmp_path / "g.pth.bak").read_bytes() == before != path.read_bytes()
