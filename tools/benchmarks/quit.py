"""How fast the game window quits while the computer is still searching: seconds from the quit
(Esc, closing the window, Ctrl-C) to the end of the process, the median of a few runs each.

    python tools/benchmarks/quit.py             # median of 3 runs of each way to quit
    python tools/benchmarks/quit.py --runs 5

Each run starts ``Game.py`` headless (SDL's dummy driver) with a playout agent whose first move
would take hours, waits until it is searching, and quits. The tests check the same runs end at
all (tests/test_game_window.py); this script says how fast.
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)

SLOW_SEARCH = "playout:pnum=100000000"   # hours for one move on any machine
WAYS = ("escape", "close", "sigint")      # how the user quits
TARGET_SECONDS = 1.0                      # from the quit to the end of the process
DEFAULT_RUNS = 3

# Game.py as a user runs it, with a thread that waits until the computer is searching its first
# move and then quits the way asked (for "sigint" the caller sends the signal itself).
DRIVER = """
import sys, threading, time
import pygame
import Game
from tictactoe_rl.gui.captions import status

games = []
run = Game.Game.run
def recording_run(self):
    games.append(self)
    return run(self)
Game.Game.run = recording_run

def searching(game):
    return game.moves == [] and status(game).endswith("is thinking...")

def quit_mid_search(how):
    deadline = time.monotonic() + 60          # a busy machine may take long to open the game
    while not (games and searching(games[0])) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)                           # well into the search
    game = games[0]
    thinking = searching(game)
    print("searching" if thinking else f"not searching: {status(game)}", flush=True)
    if how != "sigint" or not thinking:
        event = (pygame.event.Event(pygame.QUIT) if how == "close" else
                 pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0, unicode=""))
        pygame.event.post(event)

threading.Thread(target=quit_mid_search, args=(sys.argv[1],), daemon=True).start()
from tictactoe_rl import cli
cli.run(lambda: Game.main(["--x", sys.argv[2], "--o", "random", "--games", "1", "--seed", "1"]))
"""


class QuitRun:
    """One quit during a search: what the process said, its exit status and the seconds from the
    quit to its end (``None`` if it never said it was searching)."""

    def __init__(self, said: str, status: int, out: str, err: str, seconds: float | None):
        self.said, self.status, self.out, self.err, self.seconds = said, status, out, err, seconds


def quit_during_search(how: str, wait: float = 60.0) -> QuitRun:
    """Start the game with the endless search, quit it ``how`` (one of ``WAYS``) once it is
    searching, and wait at most ``wait`` seconds for the process to end (then kill it)."""
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy",
               PYGAME_HIDE_SUPPORT_PROMPT="1", PYTHONPATH=str(ROOT))
    with tempfile.TemporaryDirectory() as folder:
        driver = Path(folder) / "driver.py"
        driver.write_text(DRIVER)
        process = subprocess.Popen([sys.executable, str(driver), how, SLOW_SEARCH], cwd=ROOT,
                                   env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
        try:
            said = process.stdout.readline()
            if said != "searching\n":
                out, err = process.communicate(timeout=wait)
                return QuitRun(said, process.returncode, out, err, None)
            quit_at = time.monotonic()
            if how == "sigint":
                process.send_signal(signal.SIGINT)
            try:
                out, err = process.communicate(timeout=wait)
            except subprocess.TimeoutExpired:
                process.kill()
                out, err = process.communicate()
            return QuitRun(said, process.returncode, out, err, time.monotonic() - quit_at)
        finally:
            process.kill()


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="tools/benchmarks/quit.py", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=cli.count, default=DEFAULT_RUNS,
                        help=f"runs of each way to quit; the median is printed "
                             f"(default {DEFAULT_RUNS})")
    args = parser.parse_args(argv)
    for how in WAYS:
        runs = [quit_during_search(how) for _ in range(args.runs)]
        if any(run.seconds is None for run in runs):
            cli.fail(f"tools/benchmarks/quit.py: the game never searched: {runs[0].said.strip()}")
        seconds = statistics.median(run.seconds for run in runs)
        verdict = "ok" if seconds <= TARGET_SECONDS else "SLOWER THAN THE TARGET"
        print(f"quit mid-search by {how:<6}: the process ended {seconds:.2f} s after the quit, "
              f"median of {args.runs} (target <= {TARGET_SECONDS:.0f} s: {verdict})", flush=True)
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
