"""Ctrl-C during training: the trainer stops after the current episode, saves what it learned to
--out (atomically), says where and how many episodes, and exits 130; --resume goes on from there.

The end-to-end tests send a real SIGINT to a real ``python MC_Trainer.py`` (POSIX only)."""

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tictactoe_rl.training import loop
from tictactoe_rl.training.run import Run
from tictactoe_rl.training.run import build_run
from AI_Agent import AI_Agent
from tictactoe_rl.tables.files import load_table
from State import X, State

ROOT = Path(__file__).resolve().parent.parent
INTERRUPTED = 130
LONG_RUN = 2_000_000          # far more than can finish before the signal
MORE = 1_500                  # episodes the resumed run adds
START_TIMEOUT = 60            # seconds to wait for the first progress report
END_TIMEOUT = 120

posix_only = pytest.mark.skipif(os.name != "posix", reason="sends a POSIX SIGINT")


def trainer(folder: Path, *args: str, **popen) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(ROOT / "MC_Trainer.py"), *args], cwd=folder,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **popen)


def interrupt_when_training(process: subprocess.Popen, total: int) -> tuple[str, str]:
    """Wait until the progress bar counts episodes, press Ctrl-C, and return (stdout, stderr)."""
    seen: list[bytes] = []
    training = threading.Event()
    progress = re.compile(rb"\|\s*[1-9][\d,]*/" + str(total).encode())

    def pump() -> None:
        while chunk := process.stderr.read1(4096):
            seen.append(chunk)
            if progress.search(b"".join(seen[-4:])):
                training.set()

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    if not training.wait(START_TIMEOUT):
        process.kill()
        pytest.fail(f"no training progress within {START_TIMEOUT} s: {b''.join(seen)[-500:]!r}")
    process.send_signal(signal.SIGINT)
    out = process.stdout.read()
    process.wait(END_TIMEOUT)
    reader.join(END_TIMEOUT)
    return out.decode(), b"".join(seen).decode(errors="replace")


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory):
    """One real interrupted run: ``(folder, exit status, stdout, stderr, episodes it reported)``."""
    if os.name != "posix":
        pytest.skip("sends a POSIX SIGINT")
    folder = tmp_path_factory.mktemp("interrupt")
    process = trainer(folder, "--epochs", str(LONG_RUN), "--seed", "3", "--out", "run/t.pth")
    out, err = interrupt_when_training(process, LONG_RUN)
    said = re.search(r"Interrupted: saved ([\d,]+) of ([\d,]+) episodes to (\S+)", out)
    episodes = int(said.group(1).replace(",", "")) if said else None
    return folder, process.returncode, out, err, episodes, said


@posix_only
@pytest.mark.solved_only
def test_ctrl_c_saves_the_table_says_where_and_exits_130(interrupted):
    folder, status, out, err, episodes, said = interrupted
    assert status == INTERRUPTED, (out, err[-1000:])
    assert "Traceback" not in err
    assert said, out
    assert said.group(2) == f"{LONG_RUN:,}" and said.group(3) == "run/t.pth"
    assert "--resume run/t.pth" in out
    Q, side, meta = load_table(folder / "run" / "t.pth")
    assert side == X and len(Q) > 0
    assert meta["episodes_done"] == episodes and 0 < episodes < LONG_RUN
    assert meta["epochs"] == LONG_RUN
    assert os.listdir(folder / "run") == ["t.pth"]        # no temporary file left behind


@pytest.mark.slow
@posix_only
@pytest.mark.solved_only
def test_resume_goes_on_from_the_saved_count_and_finishes(interrupted):
    folder, _, _, _, episodes, _ = interrupted
    target = episodes + MORE
    process = trainer(folder, "--resume", "run/t.pth", "--epochs", str(target), "--seed", "4",
                      "--out", "run/resumed.pth")
    out, err = (stream.decode() for stream in process.communicate(timeout=END_TIMEOUT))
    assert process.returncode == 0, err[-1000:]
    assert f"Trained {MORE:,} episodes" in out
    before, _, _ = load_table(folder / "run" / "t.pth")
    after, side, meta = load_table(folder / "run" / "resumed.pth")
    assert meta["episodes_done"] == target and side == X
    assert set(before) <= set(after)                      # it continued the table, not a new one
    assert any(after[key] != value for key, value in before.items())


def resumed_run(episodes: int):
    """The run that ``--resume run/t.pth`` builds, as MC_Trainer.py's command line would."""
    import MC_Trainer
    args = MC_Trainer.TRAINER.parse(["--resume", "run/t.pth", "--epochs", str(episodes + MORE),
                                     "--out", "run/unused.pth"])
    return build_run("MC", "Monte Carlo control", args, "my_Q_MC_{side}.pth", announce=False)


@pytest.mark.slow
@posix_only
@pytest.mark.solved_only
def test_resume_starts_at_the_saved_episode(interrupted, monkeypatch):
    folder, _, _, _, episodes, _ = interrupted
    monkeypatch.chdir(folder)
    run = resumed_run(episodes)
    assert run.start == episodes
    assert run.agents[0].Q == load_table("run/t.pth")[0]


@posix_only
@pytest.mark.solved_only
def test_resume_continues_the_interrupted_runs_epsilon(interrupted, monkeypatch):
    folder, _, _, _, episodes, _ = interrupted
    monkeypatch.chdir(folder)
    learner = resumed_run(episodes).agents[0]
    original = AI_Agent(X, decay_epochs=LONG_RUN // 2)     # the schedule the run was using
    for epoch in (episodes, episodes + MORE - 1):
        assert learner.epsilon_greedy(epoch) == pytest.approx(original.epsilon_greedy(epoch))


# --- the mechanism, in this process ----------------------------------------------------------

@posix_only
def test_the_first_ctrl_c_ends_the_current_episode_then_stops():
    played = []
    previous = signal.getsignal(signal.SIGINT)

    def learn(epoch: int) -> State:
        played.append(epoch)
        if epoch == 7:
            os.kill(os.getpid(), signal.SIGINT)
            played.append("episode finished")
        return State([1, 1, 1, -1, -1, 0, 0, 0, 0], -1)

    done, stopped = loop.run_episodes(learn, X, 3, 100, "test", show_progress=False)
    assert (done, stopped) == (8, True)
    assert played == [3, 4, 5, 6, 7, "episode finished"]
    assert signal.getsignal(signal.SIGINT) is previous


@posix_only
def test_a_second_ctrl_c_aborts_at_once():
    def learn(epoch: int) -> State:
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)
        pytest.fail("the second Ctrl-C should have stopped the episode")

    previous = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        loop.run_episodes(learn, X, 0, 10, "test", show_progress=False)
    assert signal.getsignal(signal.SIGINT) is previous


# --- SIGTERM, a signal during the save, a self-play pair out of step -------------------------

@pytest.mark.slow
@posix_only
@pytest.mark.solved_only
def test_sigterm_is_handled_as_ctrl_c(tmp_path):
    process = trainer(tmp_path, "--epochs", str(LONG_RUN), "--seed", "3", "--out", "t.pth")
    seen = b""
    while b"/" + str(LONG_RUN).encode() not in seen or b"| 0/" in seen[-200:]:
        chunk = process.stderr.read1(4096)
        assert chunk, seen[-500:]
        seen += chunk
    process.send_signal(signal.SIGTERM)
    out = process.stdout.read().decode()
    assert process.wait(END_TIMEOUT) == 128 + signal.SIGTERM     # 143, as everywhere
    assert "Interrupted: saved" in out
    assert 0 < load_table(tmp_path / "t.pth")[2]["episodes_done"] < LONG_RUN


@posix_only
def test_a_signal_during_the_save_waits_for_the_save(tmp_path, monkeypatch, capsys):
    """Ctrl-C (twice) while the table is being written: the save finishes, the run counts as
    interrupted."""
    env_learner = AI_Agent(X)
    saved = []

    def slow_save(path):
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)     # a second Ctrl-C must not cut the save either
        saved.append(path)

    monkeypatch.setattr(env_learner, "save_Q", slow_save)
    run = Run.of_module(env_learner, AI_Agent(-1, train=False), env_learner.env,
                        str(tmp_path / "t.pth"), 3, 0.9, 0.1)
    assert loop.train_loop(run, lambda epoch: State([1, 1, 1, -1, -1, 0, 0, 0, 0], -1)) is False
    assert saved == [str(tmp_path / "t.pth")]
    assert "Saved the table to" in capsys.readouterr().out   # all 3 episodes were done


def test_self_play_tables_out_of_step_resume_from_the_smaller_count(tmp_path, capsys):
    """A run killed between its X and O saves leaves two counts; --resume goes on from the
    smaller one instead of refusing for good."""
    from State import State, parse_moves
    from tictactoe_rl.tables.files import save_table
    from tictactoe_rl.training.learners import TableLearner
    from tictactoe_rl.training.run import resume_all
    x, o = TableLearner(AI_Agent(X)), TableLearner(AI_Agent(-1))
    save_table(str(tmp_path / "t_X.pth"), {(State(), (1, 1)): 0.5}, X,
               {"episodes_done": 900, "epochs": 1000, "epsilon": "linear"})
    save_table(str(tmp_path / "t_O.pth"), {(parse_moves("1,1"), (0, 0)): 0.5}, -1,
               {"episodes_done": 500, "epochs": 1000, "epsilon": "linear"})
    assert resume_all(str(tmp_path / "t.pth"), [x, o], 2000, {"algorithm": "MC"}) == 500
    assert "both go on from 500" in capsys.readouterr().out



@pytest.mark.parametrize("made_by, resumed_by, says", [
    (["MC_Trainer.py", "--plain"], ["MC_Trainer.py"],
     "was trained with refinements 'none (--plain)', and this run's is 'symmetry, stop at "
     "exploration'"),
    (["MC_Trainer.py"], ["MC_Trainer.py", "--plain"],
     "was trained with refinements 'symmetry, stop at exploration', and this run's is "
     "'none (--plain)'"),
    (["SARSA_Trainer.py"], ["MC_Trainer.py"],
     "was trained with algorithm 'SARSA', and this run's is 'MC'")])
@pytest.mark.slow
@pytest.mark.solved_only   # --resume and --plain need the solved trainers
def test_resume_goes_on_only_the_way_the_table_was_learnt(tmp_path, made_by, resumed_by, says):
    """A table learnt by another trainer or variant is refused by --resume in one line, before any
    training, and left as it was; the same trainer and flags go on from it."""
    table = tmp_path / "t.pth"
    subprocess.run([sys.executable, *made_by, "--epochs", "300", "--seed", "1", "--out", str(table)],
                   cwd=ROOT, check=True, capture_output=True)
    before = table.read_bytes()
    refused = subprocess.run([sys.executable, *resumed_by, "--resume", str(table), "--epochs", "600"],
                             cwd=ROOT, capture_output=True, text=True)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert says in refused.stderr and "resume it with the trainer and flags that made it" in \
        refused.stderr
    assert table.read_bytes() == before and "Trained" not in refused.stdout
    again = subprocess.run([sys.executable, *made_by, "--resume", str(table), "--epochs", "600"],
                           cwd=ROOT, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert load_table(str(table))[2]["episodes_done"] == 600


@pytest.mark.solved_only   # --resume needs the solved trainers
def test_a_damaged_file_to_resume_is_named_as_damaged_not_as_one_to_force(tmp_path):
    """--resume of a file that is no table says what is wrong with it, not "force it (--force)",
    which would invite writing over the file the user wanted to go on from."""
    table = tmp_path / "t.pth"
    table.write_bytes(b"junk, not a table")
    refused = subprocess.run([sys.executable, "MC_Trainer.py", "--resume", str(table), "--epochs",
                              "600"], cwd=ROOT, capture_output=True, text=True)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert "not a readable Q-table file" in refused.stderr and "--force" not in refused.stderr
    assert table.read_bytes() == b"junk, not a table"


@pytest.mark.slow
def test_a_save_that_fails_after_training_keeps_the_table_and_says_where(tmp_path, monkeypatch,
                                                                           capsys):
    """A full disk at the end of a run: the trained table goes to a fallback file, named in the
    one-line error, and can be resumed from there."""
    import MC_Trainer
    from tictactoe_rl.tables import files

    real_save = files.save_table

    def disk_full_at_target(path, Q, side, meta=None):
        if os.path.basename(path) == "t.pth":
            raise OSError(28, "No space left on device")
        real_save(path, Q, side, meta)

    monkeypatch.setattr(files, "save_table", disk_full_at_target)
    with pytest.raises(files.NotSaved) as refused:
        MC_Trainer.run(["--epochs", "300", "--seed", "1", "--out", str(tmp_path / "t.pth")])
    message = str(refused.value)
    assert "No space left on device" in message and "--resume" in message
    assert len(message.splitlines()) == 1
    kept = load_table(refused.value.fallback)
    assert kept[2]["episodes_done"] == 300 and len(kept[0]) > 0
    printed = capsys.readouterr().out     # where the table is, not where it was meant to go
    assert f"Saved the table to {refused.value.fallback}\n" in printed
    assert str(tmp_path / "t.pth") not in printed


def test_out_replaces_a_file_that_is_not_a_table_only_with_force(tmp_path, capsys):
    import MC_Trainer
    notes = tmp_path / "notes.pth"
    notes.write_text("my notes, not a table")
    with pytest.raises(ValueError, match="force"):
        MC_Trainer.run(["--epochs", "50", "--seed", "1", "--out", str(notes)])
    assert notes.read_text() == "my notes, not a table"          # nothing was written
    assert MC_Trainer.run(["--epochs", "50", "--seed", "1", "--out", str(notes), "--force"]) == 0
    assert load_table(notes)[2]["episodes_done"] == 50
