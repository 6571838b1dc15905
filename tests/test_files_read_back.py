"""Files the project writes, it reads: a network saved before its first optimiser step is played,
measured and resumed; a run that could never take a step, or could lose its picture, is refused
before it starts; the network trainer refuses a bad flag before it imports torch."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from State import X
from tictactoe_rl import cli
from tictactoe_rl.neural import network as Net
from tictactoe_rl.neural.agent import DQNAgent
from tictactoe_rl.neural.files import load_network, save_network
from tictactoe_rl.training import checkpoints
from tools import board_compare

ROOT = Path(__file__).resolve().parent.parent
# The trainer groups a game into learning steps with Episode.learning_steps (exercise piece 5).
needs_learning_steps = pytest.mark.exercise_piece(5)
# Runs a script as `python SCRIPT ARGS` does and says at exit whether torch was imported.
TORCH_WATCH = ("import atexit, runpy, sys\n"
               "script, sys.argv = sys.argv[1], sys.argv[1:]\n"
               "atexit.register(lambda: print('torch imported:', 'torch' in sys.modules))\n"
               "runpy.run_path(script, run_name='__main__')\n")


def script(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``python ARGV`` from the project root, as a user types it."""
    return subprocess.run([sys.executable, *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


# --- a network saved before its first optimiser step -------------------------------------------

def keep_best_of(network: Net.QNetwork, steps_at, monkeypatch,
                 average: tuple = (0, 0.0, 0.0)) -> tuple[Net.QNetwork, dict]:
    """Feed a ``BestCheckpoint`` over 200 episodes one network that has taken ``steps_at(e)``
    optimiser steps after episode ``e`` (its weights unchanged), scoring the first check best
    and their average ``average``; return the network it ends with and what its file records."""
    optimizer = torch.optim.Adam(network.parameters(), lr=0.001)
    keeper = checkpoints.BestCheckpoint([DQNAgent(X, network=network)], "random", 0, 200, 200)
    scores = iter([(1, 0.0, 0.0)] + [(0, 0.0, 0.0)] * (len(keeper.due) - 1) + [average])
    monkeypatch.setattr(checkpoints, "policy_score", lambda agents, opponent: next(scores))
    for episode in range(1, 201):
        network.updates = steps_at(episode)
        keeper.consider(episode, network, optimizer)
    return network, keeper.record()


def test_the_kept_network_says_the_steps_its_optimiser_state_was_taken_at(monkeypatch,
                                                                          tmp_path):
    """A run that took no step keeps a network of no step (it once said one, with no optimiser
    state to match, and every reader refused the file as damaged); one that did keeps the
    count of the network it kept, not of the last: the best check's, or, for the average of
    the checks, the last one's, whose Adam state it keeps."""
    unstepped, record = keep_best_of(Net.QNetwork((4,)), lambda episode: 0, monkeypatch)
    assert record == {"kept_episode": 100} and unstepped.updates == 0
    path = tmp_path / "n.pt"
    save_network(str(path), unstepped, (X,), {}, {"state": {}, "param_groups": []})
    assert load_network(str(path), resume=True).optimizer == {}
    best, record = keep_best_of(Net.QNetwork((4,)), lambda episode: episode // 2, monkeypatch)
    assert record == {"kept_episode": 100} and best.updates == 50
    average, record = keep_best_of(Net.QNetwork((4,)), lambda episode: episode // 2, monkeypatch,
                                   average=(1, 0.0, 0.0))
    assert list(record) == ["kept_average"] and average.updates == 100
    unstepped, record = keep_best_of(Net.QNetwork((4,)), lambda episode: 0, monkeypatch,
                                     average=(1, 0.0, 0.0))
    assert list(record) == ["kept_average"] and unstepped.updates == 0


@pytest.fixture(scope="module")
def unstepped(tmp_path_factory) -> Path:
    """A network as `python DQN_Trainer.py --epochs 100 --out n.pt` saves it: 100 games of
    about four steps never fill a batch of 512, so it has taken no optimiser step."""
    path = tmp_path_factory.mktemp("unstepped") / "n.pt"
    done = script("DQN_Trainer.py", "--epochs", "100", "--seed", "1", "--out", str(path))
    assert done.returncode == 0, done.stderr
    assert f"python Tester.py --worst-case {path}" in done.stdout     # what it suggests
    return path


@pytest.mark.slow        # four processes that import torch
@needs_learning_steps
def test_a_network_saved_before_its_first_step_is_read_by_every_reader(unstepped):
    saved = load_network(str(unstepped), resume=True)
    assert saved.network.updates == 0 and saved.optimizer == {}
    worst = script("Tester.py", "--worst-case", str(unstepped))
    assert worst.returncode == 0 and "error" not in worst.stderr, worst.stderr   # progress
    played = script("Tester.py", "--x", f"dqn:{unstepped}", "--o", "random", "--games", "3")
    assert played.returncode == 0 and "error" not in played.stderr, played.stderr   # a bar
    assert f"network {unstepped} against random (3 games per side" in played.stdout
    resumed = script("DQN_Trainer.py", "--resume", str(unstepped), "--epochs", "110")
    assert resumed.returncode == 0, resumed.stderr
    assert "Trained 10 episodes" in resumed.stdout
    assert load_network(str(unstepped)).meta["episodes_done"] == 110


# --- the network trainer's command line ------------------------------------------------------

@pytest.mark.parametrize("flags, words", [
    (["--hidden", "4096,4096,4096"], "a layer of 4,096; each has at most 1,024 units"),
    (["--hidden", "8,8,8,8,8"], "5 layers; a network has 1 to 4"),
    (["--memory", "100"], "--memory 100 is smaller than --batch 512"),
    (["--opponent", "self", "--memory", "200"], "--memory 200 is smaller than --batch 256"),
])
def test_a_bad_flag_is_refused_before_torch_is_imported(flags, words, tmp_path):
    """Refused in the time the table trainers take (importing torch takes seconds, tens of
    them on a busy machine), with the rule broken; nothing is trained or written."""
    done = script("-c", TORCH_WATCH, str(ROOT / "DQN_Trainer.py"), "--out",
                  str(tmp_path / "n.pt"), *flags)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert words in done.stderr and done.stdout == "torch imported: False\n"
    assert list(tmp_path.iterdir()) == []


# --- tools/board_compare.py ----------------------------------------------------------------

def compare(argv: list[str], capsys, monkeypatch) -> tuple[int, list[str]]:
    """``python tools/board_compare.py ARGV`` in this process, any training a failure: (exit
    status, the lines on stderr)."""
    def trained(*_):
        raise AssertionError("trained before --plot was checked")
    monkeypatch.setattr(board_compare, "train", trained)
    with pytest.raises(SystemExit) as ended:
        cli.run(lambda: board_compare.main(argv))
    return ended.value.code, capsys.readouterr().err.strip().splitlines()


@pytest.mark.parametrize("where, words", [
    ("missing", "does not exist; create it first"), ("curves", "must end in .png"),
    ("folder.png", "is a folder"), ("device.png", "is not a regular file"),
    ("/dev/null", "must end in .png")])
def test_a_plot_that_cannot_be_drawn_is_refused_before_any_training(where, words, tmp_path,
                                                                    capsys, monkeypatch):
    (tmp_path / "folder.png").mkdir()
    (tmp_path / "device.png").symlink_to(os.devnull)
    plot = {"missing": "/no-such-folder-for-a-plot/c.png", "/dev/null": os.devnull}.get(
        where, str(tmp_path / where))
    status, lines = compare(["--board", "3x3", "--k", "3", "--plot", plot], capsys, monkeypatch)
    assert status == 2 and len(lines) == 1 and words in lines[0], lines
    assert sorted(path.name for path in tmp_path.iterdir()) == ["device.png", "folder.png"]
    assert not os.path.exists("/no-such-folder-for-a-plot")


def test_board_compare_refuses_a_missing_plot_folder_at_once_from_the_command_line(tmp_path):
    """The real command line at its defaults: hours of 4x4 training, were it not refused (the
    trainers it would start are stopped with it after a minute)."""
    process = subprocess.Popen([sys.executable, "tools/board_compare.py", "--plot",
                                str(tmp_path / "nowhere" / "c.png")], cwd=ROOT, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail("still running after a minute: it trains before it checks --plot")
    assert process.returncode == 2 and out == "" and err.count("\n") == 1
    assert "--plot" in err and "does not exist; create it first" in err


@pytest.mark.slow        # three trainers, each a process of its own
@needs_learning_steps
def test_board_compare_reads_the_network_it_trained_and_prints_the_table_before_drawing(
        tmp_path, capsys, monkeypatch):
    """50 games: the network takes no optimiser step (it was once refused as damaged, the
    table never printed); the table is out before the picture is drawn."""
    plot = tmp_path / "compare.png"
    drawn = board_compare.side_by_side
    printed_before = []

    def drawing(*args):
        printed_before.append(capsys.readouterr().out)
        drawn(*args)
    monkeypatch.setattr(board_compare, "side_by_side", drawing)
    assert board_compare.main(["--board", "3x3", "--k", "3", "--epochs", "50",
                               "--plot", str(plot)]) == 0
    table = printed_before[0]
    assert "| vs random |" in table and "- network (DQN_Trainer.py): " in table
    assert capsys.readouterr().out == f"\nThe learning curves side by side: {plot}\n"
    assert plot.read_bytes().startswith(b"\x89PNG")
