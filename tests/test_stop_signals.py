"""Every script ends the same way after Ctrl-C or SIGTERM, wherever the signal lands: one line on
stderr and the status 128 + the signal (130 after Ctrl-C, 143 after SIGTERM) -- during the
evaluation after training too, inside a callback where Python would drop the interrupt, and while
the process ends."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tictactoe_rl.tables.files import load_table

ROOT = Path(__file__).resolve().parent.parent
posix_only = pytest.mark.skipif(os.name != "posix", reason="sends POSIX signals")


def run_script(code: str, cwd: Path) -> subprocess.CompletedProcess:
    """``code`` run by a fresh Python with the repository on its path."""
    return subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
                           + code], cwd=cwd, capture_output=True, text=True, timeout=300)


@posix_only
@pytest.mark.solved_only
@pytest.mark.parametrize("number, line", [(signal.SIGTERM, "Stopped by SIGTERM."),
                                          (signal.SIGINT, "Interrupted.")])
def test_a_signal_during_the_evaluation_after_training_ends_with_its_line_and_status(
        tmp_path, number, line):
    """The table is saved, then the test games run: the signal arrives in the middle of them."""
    done = run_script(f"""
import os, runpy, time
import tictactoe_rl.training.command
def signalled(*args):
    os.kill(os.getpid(), {int(number)})
    time.sleep(30)
tictactoe_rl.training.command.test_games = signalled
sys.argv = ["Q_Trainer.py", "--epochs", "200", "--seed", "1", "--out", "t.pth"]
runpy.run_path({str(ROOT / "Q_Trainer.py")!r}, run_name="__main__")
""", tmp_path)
    assert done.returncode == 128 + number, done
    assert done.stderr.strip().splitlines()[-1] == line, done.stderr
    assert "Traceback" not in done.stderr
    assert load_table(tmp_path / "t.pth")[2]["episodes_done"] == 200


@posix_only
@pytest.mark.parametrize("number, line", [(signal.SIGTERM, "Stopped by SIGTERM."),
                                          (signal.SIGINT, "Interrupted.")])
def test_an_interrupt_raised_where_python_drops_it_still_stops_the_script(tmp_path, number, line):
    """A signal whose exception is raised inside a weakref callback (as happens inside torch or
    tqdm) is not lost with "Exception ignored in ...": the script stops all the same."""
    done = run_script(f"""
import os, time, weakref
from tictactoe_rl import cli

class Thing:
    pass

def main():
    thing = Thing()
    def callback(reference):
        os.kill(os.getpid(), {int(number)})
        time.sleep(0.5)       # the handler raises here, inside the callback
    keep = weakref.ref(thing, callback)
    del thing
    time.sleep(3600)      # the interrupt raised again must wake this sleep (run_script's timeout)
    print("went on")
    return 0

cli.run(main)
""", tmp_path)
    assert done.returncode == 128 + number, done
    assert "Exception ignored" not in done.stderr and "went on" not in done.stdout, done
    assert done.stderr.strip().splitlines()[-1] == line


@posix_only
@pytest.mark.parametrize("number, line", [(signal.SIGTERM, "Stopped by SIGTERM."),
                                          (signal.SIGINT, "Interrupted.")])
def test_a_signal_while_the_script_ends_gives_its_line_and_status(tmp_path, number, line):
    """From the last exit handlers on Python would restore the default handlers (and be killed
    by the signal, with no line): the script ends before that."""
    done = run_script(f"""
import atexit, os, signal
from tictactoe_rl import cli
atexit.register(os.kill, os.getpid(), {int(number)})
cli.run(lambda: print("done") or 0)
""", tmp_path)
    assert (done.returncode, done.stdout) == (128 + number, "done\n"), done
    assert done.stderr.strip() == line


def test_a_script_that_ends_normally_keeps_its_status_and_output(tmp_path):
    done = run_script("""
from tictactoe_rl import cli
def main():
    print("partial", end="")      # not flushed by a newline: ending early must not lose it
    return 3
cli.run(main)
""", tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (3, "partial", "")


@posix_only
@pytest.mark.solved_only   # the course's Nim training (piece 5)
def test_nim_on_its_own_ends_after_sigterm_with_its_line_and_status():
    """``nim/play.py`` runs from its own folder without the repository's ``cli``: the same ending."""
    process = subprocess.Popen([sys.executable, "play.py", "--games", "100000000"],
                               cwd=ROOT / "nim", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.readline().startswith(b"Playing training game")   # handlers are set
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 143 and err.decode().strip() == "Stopped by SIGTERM.", err


@posix_only
@pytest.mark.solved_only   # the course's Nim training (piece 5)
def test_nim_piped_into_a_reader_that_goes_away_ends_quietly():
    reader = subprocess.Popen(["head", "-c", "10"], stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL)
    done = subprocess.run([sys.executable, "play.py", "--games", "100000000"], cwd=ROOT / "nim",
                          stdout=reader.stdin, stderr=subprocess.PIPE, timeout=120)
    reader.stdin.close()
    reader.wait(60)
    assert (done.returncode, done.stderr) == (0, b""), done.stderr[-500:]


def test_every_exit_handler_still_runs_and_a_text_status_is_printed(tmp_path):
    """The process ends without Python's teardown, but after every exit handler, those
    registered before ``cli`` was imported too; ``sys.exit("text")`` prints it, status 1."""
    done = run_script("""
import atexit
atexit.register(print, "first handler ran")
from tictactoe_rl import cli
atexit.register(print, "second handler ran")
cli.run(lambda: __import__("sys").exit("stopped with a message"))
""", tmp_path)
    assert done.returncode == 1 and done.stderr == "stopped with a message\n", done
    assert done.stdout == "second handler ran\nfirst handler ran\n"
