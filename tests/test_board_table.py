"""A bigger board's table as loaded (``tictactoe_rl.tables.board_table.BoardTable``): a dict's behaviour on
the file's columns, the agent playing, training and saving from it, files written sorted, and a
file of many repeated entries refused in one line."""

import io
import json

import numpy as np
import pytest

import tictactoe_rl.tables.board_files
from AI_Agent import AI_Agent, greedy_action
from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from tictactoe_rl.positions import start_position
from State import O, X, State
from tictactoe_rl.tables.board_table import BoardTable, entry_columns
from tictactoe_rl.tables.files import TableError, load_table, save_board_table
from TicTacToe import TicTacToe

FOUR = BoardShape(4, 4, 4)


def positions():
    """The empty 4x4 board, and X (1,1) O (0,0) with X to move."""
    empty = start_position(FOUR)
    return empty, empty.children()[(1, 1)].children()[(0, 0)]


def plain() -> dict:
    empty, later = positions()
    return {(later, (2, 2)): 0.125, (empty, (3, 0)): -0.5, (empty, (1, 1)): 0.75,
            (later, (3, 3)): 0.25}


def loaded(tmp_path, Q=None, name="t.pth") -> BoardTable:
    path = str(tmp_path / name)
    save_board_table(path, plain() if Q is None else Q, X, {"episodes_done": 4}, FOUR)
    table = load_table(path, side=X, board=FOUR)[0]
    assert isinstance(table, BoardTable)
    return table


def test_it_reads_as_the_dict_it_was_saved_from(tmp_path):
    table, empty = loaded(tmp_path), positions()[0]
    assert table == plain() and len(table) == 4
    assert table[(empty, (1, 1))] == 0.75 and table.get((empty, (0, 1))) is None
    assert table.get((empty, (0, 1)), 0.0) == 0.0 and (empty, (3, 0)) in table
    assert (empty.children()[(0, 0)], (1, 1)) not in table          # O to move: not its side
    assert (State(), (1, 1)) not in table and "nonsense" not in table  # another board, no pair
    with pytest.raises(KeyError):
        table[(empty, (0, 1))]
    with pytest.raises(TypeError):                                  # as a dict: unhashable
        table.get([empty, (1, 1)])
    assert greedy_action(table, empty) == (1, 1)
    assert sorted(table.values()) == sorted(plain().values())


def test_setting_and_deleting_are_kept_beside_the_file(tmp_path):
    table, (empty, later) = loaded(tmp_path), positions()
    table[(empty, (1, 1))] = -1.0              # replaces a file entry
    table[(empty, (2, 2))] = 0.5               # a new one
    del table[(later, (3, 3))]                 # removes a file entry
    expected = {**plain(), (empty, (1, 1)): -1.0, (empty, (2, 2)): 0.5}
    del expected[(later, (3, 3))]
    assert table == expected and len(table) == 4
    assert greedy_action(table, empty) == (2, 2)
    with pytest.raises(KeyError):
        del table[(later, (3, 3))]
    del table[(empty, (2, 2))]
    assert (empty, (2, 2)) not in table and len(table) == 3
    path = str(tmp_path / "again.pth")
    save_board_table(path, table, X, {}, FOUR)
    again = load_table(path, side=X, board=FOUR)[0]
    assert again == table and again == {key: table[key] for key in table}
    table.clear()
    assert len(table) == 0 and table == {} and table.get((empty, (1, 1))) is None


def test_an_entry_set_after_loading_is_checked_when_saved(tmp_path):
    table, empty = loaded(tmp_path), positions()[0]
    table[(empty.children()[(0, 0)], (1, 1))] = 0.5        # O to move in an X table
    with pytest.raises(ValueError, match="not saving .*with X to move"):
        save_board_table(str(tmp_path / "bad.pth"), table, X, {}, FOUR)
    with pytest.raises(ValueError, match="not saving"):    # for another side: every entry checked
        save_board_table(str(tmp_path / "bad.pth"), loaded(tmp_path, name="u.pth"), O, {}, FOUR)
    assert not (tmp_path / "bad.pth").exists()


def test_the_bytes_depend_on_the_table_not_on_its_order(tmp_path):
    backwards = dict(reversed(list(plain().items())))
    first, second = (save_board_table(str(tmp_path / name), Q, X, {}, FOUR)
                     for name, Q in (("a.pth", plain()), ("b.pth", backwards)))
    assert first == second
    with np.load(io.BytesIO(first), allow_pickle=False) as arrays:
        keys = list(zip(arrays["x_bits"].tolist(), arrays["o_bits"].tolist(),
                        arrays["actions"].tolist()))
    assert keys == sorted(keys) == [(0, 0, 5), (0, 0, 12), (32, 1, 10), (32, 1, 15)]


def test_a_loaded_table_saves_back_to_the_same_bytes(tmp_path):
    table = loaded(tmp_path)
    again = save_board_table(str(tmp_path / "again.pth"), table, X, {"episodes_done": 4}, FOUR)
    assert again == (tmp_path / "t.pth").read_bytes()


def test_the_agent_plays_trains_and_saves_from_the_loaded_table(tmp_path):
    loaded(tmp_path)
    agent = AI_Agent(X, TicTacToe(board=FOUR), Q_table_PATH=str(tmp_path / "t.pth"),
                     train=False)
    empty = positions()[0]
    assert isinstance(agent.Q, BoardTable) and agent.meta == {"episodes_done": 4}
    assert agent.get_Q_action(empty) == (1, 1) and agent.get_Q(empty, (3, 0)) == -0.5
    agent.Q[(empty, (1, 1))] = -2.0
    assert agent.get_Q_action(empty) == (0, 0)          # every other move counts 0: the first
    agent.save_Q(str(tmp_path / "trained.pth"))
    assert load_table(str(tmp_path / "trained.pth"), X, FOUR)[0][(empty, (1, 1))] == -2.0


def test_a_3x3_agent_still_loads_into_its_own_dict():
    agent = AI_Agent(X, TicTacToe(), train=False)
    before = agent.Q
    agent.load_Q("Data/Q_MC_X.pth")
    assert agent.Q is before and type(agent.Q) is dict and len(agent.Q) > 1000


def test_a_3x3_table_in_this_format_reads_the_course_states(tmp_path):
    path = str(tmp_path / "square.pth")
    save_board_table(path, {(State(), (1, 1)): 0.5, (State(), (0, 0)): 0.25}, X, {}, TIC_TAC_TOE)
    Q = load_table(path)[0]
    assert Q.get((State(), (0, 0))) == 0.25 and greedy_action(Q, State()) == (1, 1)
    assert next(iter(Q))[0] is State()


def test_entry_columns_names_the_entry_it_refuses():
    empty = positions()[0]
    for key, value in (((empty, (1, 1)), float("nan")), ((empty, (1, 1)), True),
                       ((empty, [1, 1]), 0.5), ((empty,), 0.5), ((State(), (1, 1)), 0.5),
                       ((empty, (1, 1)), 10 ** 400)):
        with pytest.raises(ValueError, match="is not a finite value of a legal move of a 4x4"):
            entry_columns(FOUR, X, [(key, value)])


def repeated_file(path, copies: int) -> None:
    """An X table of 4x4 k=4 holding one entry ``copies`` times, and one other entry."""
    x, o, moves = (np.zeros(copies + 1, kind) for kind in (np.uint32, np.uint32, np.uint8))
    moves[:] = 5
    moves[-1] = 6
    with open(path, "wb") as stream:
        np.savez(stream, format=np.array("mnk-q-table"), version=np.array(1), rows=np.array(4),
                 cols=np.array(4), k=np.array(4), side=np.array(X),
                 meta=np.array(json.dumps({})), x_bits=x, o_bits=o, actions=moves,
                 values=np.linspace(-1.0, 1.0, copies + 1))


def test_a_file_of_many_repeated_entries_is_refused_in_one_line(tmp_path):
    path = str(tmp_path / "repeated.pth")
    repeated_file(path, 400_000)
    with pytest.raises(TableError) as caught:
        load_table(path, board=FOUR)
    message = str(caught.value)
    assert message == (f"{path}: damaged table: entries 0 and 1 hold the same position and "
                       "move, which a table holds once (399,999 such repeats in all); retrain it")


def test_a_large_file_says_it_is_being_read(tmp_path, capsys, monkeypatch):
    loaded(tmp_path)
    capsys.readouterr()
    load_table(str(tmp_path / "t.pth"), board=FOUR)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(tictactoe_rl.tables.board_files, "NOTICE_BYTES", 100)
    load_table(str(tmp_path / "t.pth"), board=FOUR)
    assert capsys.readouterr().err == f"reading {tmp_path / 't.pth'}: a table of 0 MB, a few " \
        "seconds...\n"
