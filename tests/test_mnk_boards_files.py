"""m,n,k boards: bigger boards' table files (round trip, refusals, hostile files), the trainers'
file names and reports, and the table trainers on 4x4 k=4 and 3x4 k=3."""

import io
import math
import os
import subprocess
import sys
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

import MC_Trainer
import Q_Trainer
import SARSA_Trainer
from AI_Agent import AI_Agent
from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from tictactoe_rl.positions import BoardState, shape_of, start_position
from State import O, X, State
from tictactoe_rl.tables.board_files import is_board_file
from tictactoe_rl.tables.files import (TableError, is_table_file, load_table, save_board_table,
                                       save_table)
from TicTacToe import TicTacToe
from tictactoe_rl.exact.solver import exact_result
from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced
from tictactoe_rl.training.curves import LearningCurve, exact_results
from tictactoe_rl.training.options import default_file
from tictactoe_rl.training.report import learner_report
from tictactoe_rl.training.run import default_path

ROOT = Path(__file__).resolve().parent.parent
FOUR = BoardShape(4, 4, 4)
WIDE = BoardShape(3, 4, 3)
MEMBERS = ("format", "version", "rows", "cols", "k", "side", "meta", "x_bits", "o_bits",
           "actions", "values")


def table() -> dict:
    """An X table of 4x4 k=4: the empty board, and X (1,1) O (0,0) with X to move."""
    empty = start_position(FOUR)
    later = empty.children()[(1, 1)].children()[(0, 0)]
    return {(empty, (1, 1)): 0.75, (empty, (3, 0)): -0.5, (later, (2, 2)): 0.125}


def saved(tmp_path, name="t.pth", meta=None) -> str:
    path = str(tmp_path / name)
    save_board_table(path, table(), X, {"episodes_done": 7} if meta is None else meta, FOUR)
    return path


def refusal(path, **where) -> str:
    """The message of the ``TableError`` that loading ``path`` raises: always one line."""
    with pytest.raises(TableError) as caught:
        load_table(str(path), **where)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message
    return message


# --- round trip and refusals ----------------------------------------------------------------------

def test_a_table_round_trips_with_its_values_and_meta(tmp_path):
    meta = {"episodes_done": 7, "algorithm": "MC", "board": "4x4 k=4", "alpha": 0.01}
    path = saved(tmp_path, meta=meta)
    Q, side, loaded_meta = load_table(path, side=X, board=FOUR)
    assert Q == table() and side == X and loaded_meta == meta
    assert list(Q) == list(table())                  # by position, then move: as table() lists them
    assert all(type(value) is float for value in Q.values())
    for state, _ in Q:
        assert isinstance(state, BoardState) and shape_of(state) == FOUR
    assert load_table(path, board=BoardShape(4, 4, 4))[0] == table()  # an equal board object
    assert is_board_file(path) and is_table_file(path)
    with open(path, "rb") as stream:
        assert stream.read() == save_board_table(str(tmp_path / "again.pth"), table(), X,
                                                 meta, FOUR)


def test_an_o_table_and_a_wide_board_round_trip(tmp_path):
    first = start_position(WIDE).children()[(0, 3)]
    Q = {(first, (1, 1)): -1.0, (first, (2, 3)): 0.0}
    save_board_table(str(tmp_path / "o.pth"), Q, O, {}, WIDE)
    assert load_table(str(tmp_path / "o.pth"), side=O, board=WIDE) == (Q, O, {})


@pytest.mark.parametrize("board, side, words", [
    (TIC_TAC_TOE, None, "is a table for the 4x4 k=4 board, not for 3x3 k=3"),
    (BoardShape(4, 4, 3), None, "is a table for the 4x4 k=4 board, not for 4x4 k=3"),
    (BoardShape(4, 5, 4), X, "is a table for the 4x4 k=4 board, not for 4x5 k=4"),
    (FOUR, O, "is a table for X, not for O")])
def test_a_table_is_refused_for_another_board_or_side(tmp_path, board, side, words):
    assert words in refusal(saved(tmp_path), board=board, side=side)


def test_loading_without_a_board_means_3x3_and_is_refused(tmp_path):
    assert "not for 3x3 k=3" in refusal(saved(tmp_path))


def test_a_3x3_table_is_refused_for_4x4_naming_3x3(tmp_path):
    path = str(tmp_path / "course.pth")
    save_table(path, {(State(), (1, 1)): 0.5}, X, {})
    message = refusal(path, board=FOUR)
    assert "is a table for the 3x3 k=3 board, not for 4x4 k=4" in message
    assert "--board 4x4 --k 4" in message
    assert load_table(path)[0] == {(State(), (1, 1)): 0.5}                    # still a 3x3 table


def test_a_3x3_table_in_the_bigger_boards_format_loads_the_course_states(tmp_path):
    path = str(tmp_path / "square.pth")
    save_board_table(path, {(State(), (1, 1)): 0.5}, X, {}, TIC_TAC_TOE)
    Q = load_table(path)[0]
    assert Q == {(State(), (1, 1)): 0.5} and (State(), (1, 1)) in Q
    assert next(iter(Q))[0] is State()


def test_entries_a_file_could_not_hold_are_not_saved(tmp_path):
    path = saved(tmp_path)
    empty = start_position(FOUR)
    for bad in ({(empty, (1, 1)): math.inf}, {(empty, (1, 1)): "0.5"},
                {(empty.children()[(0, 0)], (1, 1)): 0.5},              # O to move in an X table
                {(empty.children()[(0, 0)].children()[(1, 1)], (0, 0)): 0.5}):   # taken cell
        with pytest.raises(ValueError, match="not saving"):
            save_board_table(path, bad, X, {}, FOUR)
    assert load_table(path, board=FOUR)[0] == table()                  # the old file stays


# --- hostile files --------------------------------------------------------------------------------

def arrays(tmp_path) -> dict:
    with np.load(saved(tmp_path, "source.pth"), allow_pickle=False) as found:
        return {name: found[name] for name in found.files}


def npy(array, allow_pickle=False) -> bytes:
    stream = io.BytesIO()
    np.lib.format.write_array(stream, np.asanyarray(array), allow_pickle=allow_pickle)
    return stream.getvalue()


def bundle(members: dict) -> bytes:
    """A zip of ``members`` (name -> array or raw .npy bytes), stored as numpy stores them."""
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_STORED) as archive:
        for name, member in members.items():
            archive.writestr(name + ".npy", member if isinstance(member, bytes) else npy(member))
    return data.getvalue()


def changed(tmp_path, **changes) -> bytes:
    members = arrays(tmp_path)
    members.update(changes)
    return bundle(members)


def entries(tmp_path, x=None, o=None, actions=None, values=None) -> bytes:
    """The table's file with some of its columns replaced (the three entries are, in order: the
    empty board's (1,1) and (3,0), then X on (1,1) and O on (0,0) with (2,2) to play)."""
    members = arrays(tmp_path)
    for name, given, kind in (("x_bits", x, np.uint32), ("o_bits", o, np.uint32),
                              ("actions", actions, np.uint8), ("values", values, np.float64)):
        if given is not None:
            members[name] = np.array(given, dtype=kind)
    return bundle(members)


class Trap:
    """Unpickling it would make the folder ``Trap.where``."""
    where = ""

    def __reduce__(self):
        return os.mkdir, (Trap.where,)


def pickled_member(tmp_path) -> bytes:
    Trap.where = str(tmp_path / "ran")
    return npy(np.array([Trap()], dtype=object), allow_pickle=True)


def huge_member() -> bytes:
    """A .npy header claiming 100 million float64 values, followed by one."""
    stream = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        stream, {"descr": "<f8", "fortran_order": False, "shape": (10 ** 8,)})
    return stream.getvalue() + np.zeros(1).tobytes()


def long_header_member() -> bytes:
    """A .npy member whose header is 200,000 bytes long (numpy reads at most 10,000)."""
    header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }" + b" " * 200_000
    return b"\x93NUMPY\x02\x00" + len(header + b"\n").to_bytes(4, "little") + header + b"\n"


NOT_A_ZIP = "not a readable bigger board's Q-table"
HOSTILE = {   # name: (the file's bytes in tmp_path, what the refusal says)
    "an extra member": (lambda t: changed(t, extra=np.zeros(2)), "other members"),
    "a missing member": (lambda t: bundle({n: a for n, a in arrays(t).items() if n != "values"}),
                         "other members"),
    "pickled values": (lambda t: changed(t, values=pickled_member(t)), "values holds objects"),
    "pickled meta": (lambda t: changed(t, meta=pickled_member(t)), "meta holds objects"),
    "a huge header": (lambda t: changed(t, values=huge_member()), "member values is cut short"),
    "a 2-d member": (lambda t: changed(t, values=np.zeros((3, 1))), "member values"),
    "int64 bitboards": (lambda t: changed(t, x_bits=np.array([0, 0, 32], dtype=np.int64)),
                        "x_bits holds int64"),
    "float32 values": (lambda t: changed(t, values=np.zeros(3, dtype=np.float32)),
                       "values holds float32"),
    "side 2": (lambda t: changed(t, side=np.array(2)), "field side is 2, not 1 or -1"),
    "rows 9": (lambda t: changed(t, rows=np.array(9)), "1 to 5 rows, got 9"),
    "another format": (lambda t: changed(t, format=np.array("tictactoe-q-table")),
                       "not a bigger board's Q-table"),
    "meta not a record": (lambda t: changed(t, meta=np.array("[1, 2]")), "meta is not a record"),
    "meta not json": (lambda t: changed(t, meta=np.array("{episodes")), "line 1"),
    "arrays of two lengths": (lambda t: changed(t, values=np.zeros(2)), "differ in length"),
    "overlapping marks": (lambda t: entries(t, x=[0, 0, 32], o=[0, 0, 32]), "entry 2"),
    "a mark off the board": (lambda t: entries(t, x=[0, 0, 1 << 16], o=[0, 0, 1]), "entry 2"),
    "a finished position": (lambda t: entries(t, x=[0, 0, 0b1111], o=[0, 0, 0b101110000],
                                              actions=[5, 12, 15]), "entry 2"),
    "an occupied cell": (lambda t: entries(t, actions=[5, 12, 5]), "entry 2"),
    "a move off the board": (lambda t: entries(t, actions=[5, 16, 10]), "entry 1"),
    "a NaN value": (lambda t: entries(t, values=[0.5, math.nan, 0.125]), "entry 1"),
    "an infinite value": (lambda t: entries(t, values=[0.5, 0.0, -math.inf]), "entry 2"),
    "O to move in an X table": (lambda t: entries(t, x=[1 << 3, 0, 32]), "entry 0"),
    "two marks ahead": (lambda t: entries(t, x=[0, 0, 32 | 64 | 128], o=[0, 0, 1]), "entry 2"),
    "a repeated entry": (lambda t: entries(t, x=[0, 0, 0], o=[0, 0, 0], actions=[5, 12, 5]),
                         "entries 0 and 2 hold the same position and move"),
    "meta with a list": (lambda t: changed(t, meta=np.array('{"alpha": [1]}')),
                         "its field meta: meta entry 'alpha' is not a name with a plain value"),
    "meta nested deep": (lambda t: changed(t, meta=np.array("[" * 50_000)),
                         "its field meta nests too deep"),
    "meta of 5,000 digits": (lambda t: changed(t, meta=np.array("1" * 5_000)),
                             "its field meta is not JSON"),
    "meta of 70,000 characters": (lambda t: changed(t, meta=np.array(" " * 70_000 + "{}")),
                                  "member meta is 70,002 characters long"),
    "a negative episode count": (lambda t: changed(t, meta=np.array('{"episodes_done": -1}')),
                                 "its field meta: meta episodes_done -1 is not a count"),
    "version a column": (lambda t: changed(t, version=np.array([1, 1])),
                         "member version has the shape (2,), not that of a single value"),
    "side as text": (lambda t: changed(t, side=np.array("1")), "member side holds str"),
    "rows 2**40": (lambda t: changed(t, rows=np.array(2 ** 40)), "are no board"),
    "a header numpy refuses": (lambda t: changed(t, values=long_header_member()),
                               "member values has no header this code reads"),
    "not numpy's format": (lambda t: changed(t, o_bits=b"just some bytes"),
                           "member o_bits has no header this code reads"),
    "no entries": (lambda t: entries(t, x=[], o=[], actions=[], values=[]), "empty Q-table"),
    "cut short": (lambda t: changed(t)[:-150], NOT_A_ZIP),
    "cut in half": (lambda t: changed(t)[:len(changed(t)) // 2], NOT_A_ZIP),
    "a zip's start and nothing else": (lambda t: changed(t)[:60] + b"\0" * 100, NOT_A_ZIP),
    "not a zip": (lambda t: b"this is no table at all\n" * 10, "is not a Q-table, not for 4x4"),
}


def peak_memory(call) -> int:
    """The most memory Python and numpy held at once during ``call()``."""
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_file_is_one_table_error_and_runs_nothing(tmp_path, name, capsys):
    good = saved(tmp_path, "good.pth")
    usual = peak_memory(lambda: load_table(good, board=FOUR))   # the file's read buffer included
    path = tmp_path / "hostile.pth"
    make, words = HOSTILE[name]
    path.write_bytes(make(tmp_path))
    found = []
    assert peak_memory(lambda: found.append(refusal(path, board=FOUR))) < usual + 20_000_000
    assert words in found[0]
    assert not (tmp_path / "ran").exists()         # no pickle was run
    assert capsys.readouterr() == ("", "")


def test_the_unchanged_rebuilt_archive_does_load(tmp_path):
    """The hostile files above differ from a good file in what each name says, and nothing else."""
    path = tmp_path / "rebuilt.pth"
    path.write_bytes(changed(tmp_path))
    assert load_table(str(path), side=X, board=FOUR)[0] == table()


# --- file names and reports -----------------------------------------------------------------------

def test_the_default_file_names_its_board():
    assert default_file("my_Q_MC_{side}.pth", "X", FOUR).endswith(
        os.path.join("Data", "my_Q_MC_X_4x4k4.pth"))
    assert default_file("my_Q_MC_{side}.pth", "O", WIDE).endswith("my_Q_MC_O_3x4k3.pth")
    assert default_file("my_Q_MC_{side}.pth", "X").endswith(os.path.join("Data", "my_Q_MC_X.pth"))
    assert default_file("my_Q_MC_{side}.pth", "X", BoardShape(3, 3, 3)).endswith("my_Q_MC_X.pth")
    args = MC_Trainer.TRAINER.parse(["--board", "4x4", "--k", "4", "--side", "O"])
    assert os.path.basename(default_path(args, "my_Q_MC_{side}.pth")) == "my_Q_MC_O_4x4k4.pth"
    args = MC_Trainer.TRAINER.parse(["--board", "4x4"])          # k: the shorter side
    assert "_4x4k4" in default_path(args, "my_Q_MC_{side}.pth")


@pytest.mark.slow
def test_the_report_is_exact_on_4x4():
    agent = AI_Agent(O, TicTacToe(board=FOUR), train=True, seed=1)
    lines = learner_report(agent, "T.pth").splitlines()
    assert [line.split(":")[0] for line in lines[:2]] == ["exact vs random  ", "exact vs advanced"]
    assert lines[2] == "unbeatable: no sequence of opponent moves beats it" or \
        "--board 4x4 --k 4 --worst-case T.pth" in lines[2]
    assert len(lines) == 3 and agent.train


def test_the_report_is_exact_on_3x4_and_refuses_5x5_in_one_line():
    wide = learner_report(AI_Agent(X, TicTacToe(board=WIDE), seed=1), "T.pth")
    assert wide.startswith("exact vs random  : wins") and "sampled" not in wide
    assert "--board 3x4 --k 3" in wide or "unbeatable" in wide
    huge = learner_report(AI_Agent(X, TicTacToe(board=BoardShape(5, 5, 4)), seed=1), "T.pth")
    assert huge.startswith("the exact tools cannot walk the game of 5x5 k=4: it needs about ")
    assert "GB of memory" in huge and "\n" not in huge


def test_the_curves_are_exact_on_a_bigger_board_and_absent_where_it_does_not_fit():
    agent = AI_Agent(X, TicTacToe(board=WIDE), train=True, seed=2)
    results = exact_results(agent)
    assert results == {name: exact_result(agent, cls(O, agent.env)) for name, cls in
                       (("random", Random_Agent), ("advanced", Random_Agent_Advanced))}
    assert all(math.isclose(sum(shares), 1.0) for shares in results.values()) and agent.train
    huge = AI_Agent(X, TicTacToe(board=BoardShape(5, 5, 4)), train=True, seed=2)
    curve = LearningCurve([huge], X, 0, 100, "5x5")
    curve.evaluate(100)
    assert curve.checkpoints == [] and curve.rates == [[]]


# --- the trainers ---------------------------------------------------------------------------------

def mc_4x4(path, capsys) -> str:
    assert MC_Trainer.run(["--board", "4x4", "--k", "4", "--epochs", "3000", "--seed", "1",
                           "--out", str(path)]) == 0
    return capsys.readouterr().out


@pytest.mark.slow
def test_mc_trains_4x4_and_reports_exactly(tmp_path, capsys):
    path = tmp_path / "t.pth"
    printed = mc_4x4(path, capsys)
    for opponent in ("random  ", "advanced"):
        line = next(line for line in printed.splitlines()
                    if line.startswith(f"exact vs {opponent}: "))
        assert line.count("%") == 3, line
    assert "unbeatable" in printed or "--board 4x4 --k 4 --worst-case" in printed
    Q, side, meta = load_table(str(path), side=X, board=FOUR)
    assert side == X and meta["board"] == "4x4 k=4" and meta["episodes_done"] == 3000
    assert all(shape_of(state) == FOUR for state, _ in Q)
    with pytest.raises(TableError, match="for the 4x4 k=4 board, not for 3x3 k=3") as caught:
        MC_Trainer.run(["--resume", str(path), "--board", "3x3", "--epochs", "6000"])
    assert "\n" not in str(caught.value)


@pytest.mark.slow
def test_mc_on_4x4_repeats_bit_for_bit_and_resumes(tmp_path, capsys):
    paths = [tmp_path / "a.pth", tmp_path / "b.pth"]
    for path in paths:
        mc_4x4(path, capsys)
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert MC_Trainer.run(["--resume", str(paths[0]), "--board", "4x4", "--k", "4",
                           "--epochs", "3500", "--seed", "1"]) == 0
    assert load_table(str(paths[0]), board=FOUR)[2]["episodes_done"] == 3500


@pytest.mark.solved_only     # a student's own main cannot resume: it refuses --resume first
def test_the_command_line_refuses_a_resume_on_another_board_in_one_line(tmp_path):
    path = saved(tmp_path)
    done = subprocess.run([sys.executable, "MC_Trainer.py", "--resume", path, "--board", "3x3",
                           "--epochs", "100"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "is a table for the 4x4 k=4 board, not for 3x3 k=3" in done.stderr
    assert "use it with --board 4x4 --k 4" in done.stderr      # the file's board, not the default


@pytest.mark.parametrize("trainer", [MC_Trainer, Q_Trainer, SARSA_Trainer])
@pytest.mark.parametrize("flags, words", [(["--board", "9x9"], "1 to 5 rows, got 9"),
                                          (["--board", "4x4", "--k", "7"],
                                           "k must be between 1 and 4 on a 4x4 board")])
def test_an_impossible_board_stops_with_status_2_and_one_line(trainer, flags, words, capsys,
                                                              tmp_path):
    with pytest.raises(SystemExit) as stopped:
        trainer.run(flags + ["--epochs", "10", "--out", str(tmp_path / "t.pth")])
    assert stopped.value.code == 2
    out, err = capsys.readouterr()
    assert words in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "t.pth").exists()


def test_a_small_board_gets_the_exact_report(tmp_path, capsys):
    path = tmp_path / "w.pth"
    assert MC_Trainer.run(["--board", "3x4", "--k", "3", "--epochs", "2000", "--seed", "3",
                           "--out", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "exact vs random  : wins" in printed and "exact vs advanced: wins" in printed
    assert "sampled" not in printed and "cannot walk" not in printed
    Q, _, meta = load_table(str(path), side=X, board=WIDE)
    assert meta["board"] == "3x4 k=3" and len(Q) > 100


@pytest.mark.slow
@pytest.mark.parametrize("trainer", [Q_Trainer, SARSA_Trainer])
def test_q_learning_and_sarsa_train_4x4(trainer, tmp_path, capsys):
    path = tmp_path / "t.pth"
    assert trainer.run(["--board", "4x4", "--k", "4", "--epochs", "400", "--seed", "2",
                        "--side", "O", "--out", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "exact vs random  : wins" in printed and "exact vs advanced: wins" in printed
    Q, side, meta = load_table(str(path), side=O, board=FOUR)
    assert side == O and meta["board"] == "4x4 k=4" and meta["episodes_done"] == 400
    assert all(state.player == O and shape_of(state) == FOUR for state, _ in Q)


def test_a_3x3_run_keeps_its_course_file(tmp_path, capsys):
    path = tmp_path / "c.pth"
    assert Q_Trainer.run(["--epochs", "300", "--seed", "1", "--out", str(path)]) == 0
    assert "exact vs random" in capsys.readouterr().out
    assert not is_board_file(str(path)) and is_table_file(str(path))
    Q, _, meta = load_table(str(path))
    assert "board" not in meta and all(type(state) is State for state, _ in Q)
