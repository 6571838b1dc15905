"""One line for every odd call: the environments' illegal moves and unknown agents on every board,
``Tester.py --show-q`` on a bigger board's table (its advice works), ``check.py``'s flags that
would go unused, and file names with control or format characters, which every script shows
escaped."""

import shlex
import signal

import numpy as np
import pytest

import check
from tictactoe_rl import cli
import Tester
from tictactoe_rl.geometry import BoardShape
from tictactoe_rl.positions import intern
from State import X
from tictactoe_rl.envs.board import cell_ranges
from tictactoe_rl.tables.files import save_board_table, save_table
from State import State

gymnasium = pytest.importorskip("gymnasium")
pettingzoo = pytest.importorskip("pettingzoo")

from tictactoe_rl.envs import pettingzoo_env  # noqa: E402
from tictactoe_rl.envs.gymnasium_env import TicTacToeEnv  # noqa: E402

FOUR = BoardShape(4, 4, 4)


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


# --- the environments ---------------------------------------------------------------------------

def test_cell_ranges_are_compact():
    assert cell_ranges([0, 1, 2, 3, 4, 6, 8, 9, 24]) == "0-4, 6, 8-9, 24"
    assert cell_ranges(np.array([7])) == "7" and cell_ranges([]) == "none"


@pytest.mark.parametrize("action, why", [
    (25, "(off the 5x5 board)"), (-1, "(off the 5x5 board)"), (2**70, "(off the 5x5 board)"),
    (3.5, "(not a whole number)"), ("4", "(not a whole number)"), (True, "(not a whole number)"),
    (0, "(taken)")])
def test_an_illegal_move_on_5x5_is_one_line_with_the_empty_cells(action, why):
    env = TicTacToeEnv(illegal="raise", board="5x5")
    env.reset(seed=1)
    env.step(0)            # the opponent answers somewhere: two cells taken
    empty = np.flatnonzero(env.action_masks())
    assert len(empty) == 23 and 0 not in empty
    with pytest.raises(ValueError) as raised:
        env.step(action)
    message = str(raised.value)
    assert "\n" not in message and len(message) < 200, message
    assert message.startswith("illegal action ") and "not an empty cell 0-24 " + why in message
    assert message.endswith(f"; the empty cells: {cell_ranges(empty)}"), message
    assert message.count("-") <= 4      # ranges, not 23 numbers


@pytest.mark.parametrize("wrapped", [True, False], ids=["env()", "raw_env()"])
@pytest.mark.parametrize("method", ["observe", "observation_space", "action_space",
                                    "action_mask"])
@pytest.mark.parametrize("agent", ["nobody", None, 0, ["player_1"], "player_3"])
def test_an_unknown_agent_is_one_line_naming_the_agents(wrapped, method, agent):
    game = pettingzoo_env.env(board="5x5") if wrapped else pettingzoo_env.raw_env(board="5x5")
    game.reset(seed=1)
    with pytest.raises(KeyError) as raised:
        getattr(game, method)(agent)
    message = str(raised.value)
    assert message.startswith("no agent ") and message.endswith(
        "in this game; its agents are player_1 and player_2"), message
    assert getattr(game, method)("player_2") is not None     # the known ones still answer


@pytest.mark.parametrize("kwargs, words", [
    ({"opponent": 3}, "opponent must be an agent spec such as 'random', or an Agent, got 3"),
    ({"board": "x" * 1000}, "board must be text such as '4x4', got 'xxxxxxxxx"),
])
def test_odd_arguments_of_the_gymnasium_env_are_one_short_line(kwargs, words):
    with pytest.raises(ValueError) as raised:
        TicTacToeEnv(**kwargs)
    assert words in str(raised.value) and len(str(raised.value)) < 120


# --- Tester.py --show-q on a bigger board ------------------------------------------------------

def test_show_q_of_a_bigger_boards_table_says_what_works_and_that_works(tmp_path, capsys):
    path = tmp_path / "t4.pth"
    save_board_table(str(path), {(intern(FOUR, (0,) * 16, X), (1, 1)): 0.5}, X,
                     {"board": FOUR.name}, FOUR)
    status, err, _ = command_line(Tester.main, ["--show-q", str(path)], capsys)
    assert status == cli.USAGE_ERROR and len(err) == 1, err
    assert "a table for X on the 4x4 k=4 board" in err[0] and "3x3 boards only" in err[0]
    advised = err[0].split("measure it with ", 1)[1].split(", or ", 1)[0]
    words = shlex.split(advised)
    assert words[:2] == ["python", cli.repository_file("Tester.py")], words
    status, err, out = command_line(Tester.main, words[2:] + ["--games", "2"], capsys)
    assert status == 0 and "against minimax" in out, (err, out)
    assert "--worst-case " + str(path) + " --board 4x4 --k 4" in \
        command_line(Tester.main, ["--show-q", str(path)], capsys)[1][0]


# --- check.py: flags that would go unused ---------------------------------------------------------

@pytest.mark.parametrize("argv, words", [
    (["--json", ""], "--json: expected a file path, got ''"),
    (["--tables", ""], "--tables: expected a file path"),
    (["--hint", "1", "--piece", "2"], "--hint shows the next hint for a piece and stops; it does "
                                      "not go with --piece"),
    (["--hint", "3", "--json", "r.json", "--all"], "does not go with --all, --json"),
    (["--piece", "1", "--tables", "kept"], "--piece checks pieces without training them"),
    (["--json", "no/such/folder/r.json"], "does not exist"),
])
def test_check_py_refuses_flags_it_would_ignore(argv, words, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as ended:
        check.main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert ended.value.code == cli.USAGE_ERROR and len(err) == 1 and words in err[0], err


def test_check_py_refuses_a_json_folder_and_a_tables_file(tmp_path, capsys):
    (tmp_path / "file").write_text("", encoding="utf-8")
    for argv, words in ((["--json", str(tmp_path)], "is a folder"),
                        (["--tables", str(tmp_path / "file")], "is a file, not a folder")):
        with pytest.raises(SystemExit):
            check.main(argv)
        assert words in capsys.readouterr().err


# --- names with control and format characters ------------------------------------------------

def test_shown_escapes_what_could_hide_or_break_a_line():
    assert cli.shown("ev\u202eil\nx.pth") == "ev\\u202eil\\u000ax.pth"
    assert cli.shown("\x1b[31mred\udcff") == "\\u001b[31mred\\xff"
    assert cli.shown("café/日本.pth") == "café/日本.pth"
    assert cli.one_line("a\n  b \u202e") == "a\\u000a b \\u202e"


@pytest.mark.solved_only   # the solved trainer
def test_a_trainer_shows_an_odd_file_name_escaped(tmp_path, capsys):
    import Q_Trainer
    name = tmp_path / "ev\u202eil\nx.pth"
    status, err, out = command_line(Q_Trainer.run, ["--epochs", "50", "--seed", "1", "--out",
                                                    str(name)], capsys)
    assert status == 0, err
    assert f"Saved the table to {tmp_path}/ev\\u202eil\\u000ax.pth" in out
    assert "\u202e" not in out and "\u202e" not in "".join(err)
    status, err, out = command_line(Tester.main, ["--x", str(name), "--games", "2"], capsys)
    assert status == 0 and "Q-table " + str(tmp_path) + "/ev\\u202eil\\u000ax.pth" in out, out


def test_an_error_naming_an_odd_file_is_one_escaped_line(tmp_path, capsys):
    name = str(tmp_path / "no\u202ene\nx.pth")
    status, err, _ = command_line(Tester.main, ["--show-q", name], capsys)
    assert status == cli.USAGE_ERROR and len(err) == 1, err
    assert "no\\u202ene\\u000ax.pth: no such file" in err[0]


def test_a_table_of_a_3x3_board_still_shows_its_values(capsys):
    path = cli.repository_file("Data/Q_MC_X.pth")
    status, _, out = command_line(Tester.main, ["--show-q", path, "--moves", "1,1 0,0"], capsys)
    assert status == 0 and "[+" in out


def test_a_plain_3x3_table_is_no_bigger_board(tmp_path, capsys):
    path = tmp_path / "t.pth"
    save_table(str(path), {(State(), (1, 1)): 0.5}, X, {})
    status, _, out = command_line(Tester.main, ["--show-q", str(path)], capsys)
    assert status == 0 and "[+0.500]" in out


def test_a_missing_table_on_a_bigger_board_is_called_missing(tmp_path, capsys):
    """Not "is not a Q-table": the file is not there at all."""
    status, err, _ = command_line(Tester.main, ["--board", "4x4", "--k", "4", "--x",
                                                str(tmp_path / "none.pth")], capsys)
    assert status == cli.USAGE_ERROR and len(err) == 1 and "none.pth: no such file" in err[0]


def test_the_fingerprint_tool_refuses_a_bad_flag_in_one_line():
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "tools/fingerprints.py", "--seed", "-1"],
                          cwd=cli.REPOSITORY, capture_output=True, text=True, timeout=120)
    assert done.returncode == cli.USAGE_ERROR and done.stdout == "", done
    assert done.stderr.strip().splitlines() == [
        "fingerprints.py: error: argument --seed: must be between 0 and 2**32 - 1, got -1 "
        "(see --help)"]
