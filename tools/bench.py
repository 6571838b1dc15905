"""Speed figures of the project, measured on this machine (medians of repeated runs).

    python tools/bench.py                        # everything (make bench)
    python tools/bench.py --runs 5               # more repeats per figure
    python tools/bench.py --course-episodes 10000

Prints: ours against a rebuild of the course's original design, side by side in the same run
(``tools/benchmarks/course.py``, ``tools/course/``); Monte Carlo training in a fresh process
and with warm caches; the whole-process time of the README's commands; the chapter's own trainer
on this engine; a 1,000-game Tester run, exact evaluation of a pair of agents, the full solve,
loading and saving a table; then the benchmarks of the other parts (the three trainers side by
side, playout agents, Nim, the book's files, quitting mid-search, loading a big table, the exact
walks of a learned table and of a network on 4x4 k=4, the learner proven unbeatable there, make
data's Monte Carlo tables trained again, the m,n,k solver and position counts, deep Q-learning),
and whether the docs' minute-long figures that repeat exactly are still what their commands print.
What it is measuring now is said on standard error as it goes. A part that does not finish (or a
figure that differs) is named at the end, and the exit status is then 1.
"""

from __future__ import annotations

import contextlib
import io
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from time import perf_counter
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)
from tictactoe_rl.exact import solver as Solver  # noqa: E402
from tictactoe_rl.players.specs import make_agent  # noqa: E402
from Episode import play_games  # noqa: E402
from tictactoe_rl.tables.files import load_table, save_table  # noqa: E402
from tools.benchmarks.machine import machine  # noqa: E402
from State import O, X  # noqa: E402
from TicTacToe import TicTacToe  # noqa: E402
from tools.benchmarks import course as bench_course  # noqa: E402
from tools.course import chapter_code  # noqa: E402
from tools.benchmarks.course import COURSE_DEFAULT_EPISODES  # noqa: E402

DEFAULT_RUNS = 3
CHAPTER_TARGET_SECONDS = 10.0
TESTER_GAMES = 1_000
EXACT_TARGET_SECONDS = 1.0
SHIPPED_X = str(ROOT / "Data" / "Q_MC_X.pth")
# The docs' figures that take minutes to make and come out the same on every run (their seconds,
# rates and load left out): the DQN's default run, the compared trainers, the self-check.
MINUTE_FIGURES = ("dqn", "compare", "selfcheck")
# The other parts' own benchmark scripts, run as they are ("{runs}": this script's --runs), and
# their options with --quick (None: not run then; the DQN's run is its default training).
OTHER_BENCHMARKS = (("tools/compare.py", ("--bench",), ("--bench", "--epochs", "2000")),
                    ("tools/benchmarks/playout.py", ("--runs", "{runs}"), ("--runs", "1")),
                    ("tools/benchmarks/nim.py", ("--runs", "{runs}"),
                     ("--runs", "1", "--games", "500")),
                    ("tools/benchmarks/book.py", ("--runs", "{runs}"), ("--runs", "1")),
                    ("tools/benchmarks/quit.py", ("--runs", "{runs}"), ("--runs", "1")),
                    ("tools/benchmarks/hostile.py", (), None),
                    ("tools/benchmarks/revision.py", ("--runs", "{runs}"), ("--runs", "1")),
                    ("tools/benchmarks/table_load.py", ("--runs", "{runs}"),
                     ("--runs", "1", "--entries", "100000")),
                    ("tools/benchmarks/exact.py", ("--runs", "{runs}"),
                     ("--runs", "1", "--episodes", "2000")),
                    ("tools/benchmarks/network_exact.py", (), ("--games", "100")),
                    # the docs' minute-long figures that repeat exactly, against what their
                    # commands print now (the suite checks the instant and seconds-long ones)
                    ("tools/docs_figures.py", ("--check", "--cost", "minutes", "--only",
                                               *MINUTE_FIGURES), None),
                    # not with --quick: tests/test_commands_docs.py trains the same 4x4 X
                    ("tools/benchmarks/adversarial.py", (), None),
                    ("tools/benchmarks/data.py", ("--skip", "Adversarial_Trainer.py"), None),
                    ("tools/benchmarks/mnk.py", ("--runs", "{runs}"), None))
# The DQN's seeds under every kernel level take most of an hour: make bench-dqn runs them apart.
QUICK_EPISODES = 300      # --quick: every run this short (it checks the script, not the speed)
# Every full run's figures are also kept here (git ignores it), dated, for make docs to quote.
RECORD = ROOT / "Data" / "bench.txt"
STARTED = perf_counter()


class Tee(io.TextIOBase):
    """Standard output that is also written to a file."""

    def __init__(self, *streams) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


def progress(what: str) -> None:
    """Say on standard error what is being measured now (the figures go to standard output)."""
    print(f"[bench, {perf_counter() - STARTED:.0f} s in] {what} ...", file=sys.stderr, flush=True)


def median_seconds(work: Callable[[], object], runs: int) -> float:
    """The median wall-clock time of ``runs`` calls of ``work``; its output is hidden."""
    times = []
    for _ in range(runs):
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            start = perf_counter()
            work()
            times.append(perf_counter() - start)
    return statistics.median(times)


def process_seconds(command: list[str], folder: Path) -> float:
    """Wall-clock seconds of ``command`` as a whole new process in ``folder`` (start-up included,
    output thrown away, as when a student runs it)."""
    start = perf_counter()
    subprocess.run(command, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    return perf_counter() - start


def chapter_figures(runs: int) -> None:
    """The chapter's solved trainer as printed (200,000 episodes against advanced) and ours with
    the same algorithm and opponent (``--plain --opponent advanced``), each a whole process,
    interleaved so that both see the same machine load."""
    try:
        trainer = chapter_code.solved_trainer()
    except chapter_code.ListingMissing as missing:
        print(f"the chapter's own code: not timed ({missing})")
        return
    with tempfile.TemporaryDirectory() as folder:
        repo = chapter_code.repo_copy(Path(folder), {"MC_Trainer.py": trainer})
        ours = [sys.executable, str(ROOT / "MC_Trainer.py"), "--plain", "--opponent", "advanced",
                "--seed", "1", "--out", os.path.join(folder, "ours.pth")]
        times: dict[str, list[float]] = {"chapter": [], "ours": []}
        for _ in range(runs):
            times["chapter"].append(process_seconds([sys.executable, "MC_Trainer.py"], repo))
            times["ours"].append(process_seconds(ours, repo))
    chapter, plain = (statistics.median(times[name]) for name in ("chapter", "ours"))
    print(f"the chapter's own MC_Trainer.py as printed ({COURSE_DEFAULT_EPISODES:,} episodes vs "
          f"advanced, on this engine): {chapter:.2f} s whole process, median of {runs} (target "
          f"<= {CHAPTER_TARGET_SECONDS:.0f} s); ours, the same run (--plain --opponent advanced): "
          f"{plain:.2f} s; ratio {chapter / plain:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="bench.py", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=cli.count, default=DEFAULT_RUNS,
                        help=f"repeats per figure; the median is printed (default {DEFAULT_RUNS})")
    parser.add_argument("--course-episodes", type=cli.count, default=bench_course.COURSE_EPISODES,
                        help="episodes of each side-by-side run with the course's design "
                             f"(default {bench_course.COURSE_EPISODES:,}; it does ~2,000 a "
                             "second)")
    parser.add_argument("--quick", action="store_true",
                        help="one run of everything at a tiny size, to see that it all works "
                             f"(the figures mean nothing, and {RECORD.name} is left alone)")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs, args.course_episodes = 1, QUICK_EPISODES
        return measure(args)
    RECORD.parent.mkdir(exist_ok=True)
    with open(RECORD, "w", encoding="utf-8") as record, \
            contextlib.redirect_stdout(Tee(sys.stdout, record)):
        print(f"make bench, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, on "
              f"{machine()} ({platform.machine()}), load average {os.getloadavg()[0]:.1f} at "
              f"the start, Python {platform.python_version()}")
        return measure(args)


def measure(args) -> int:
    """Print every figure (``args``: the command line's runs, sizes and --quick)."""
    runs = args.runs
    try:
        progress("the course's design and ours side by side (the longest part)")
        bench_course.side_by_side(runs, args.course_episodes)
        progress("Monte Carlo training in a fresh process and with warm caches")
        bench_course.fresh_and_warm(runs, *([QUICK_EPISODES] if args.quick else []))
        progress("the README's commands as whole processes")
        bench_course.readme_commands(runs, QUICK_EPISODES if args.quick else None)
    except bench_course.BenchError as error:
        cli.fail(f"bench.py: {error}")
    progress("the chapter's own trainer")
    chapter_figures(runs)
    progress("Tester, exact evaluation, the full solve, loading and saving a table")

    env = TicTacToe()
    table = make_agent(SHIPPED_X, X, env)
    opponent = make_agent("advanced", O, env, seed=0)
    seconds = median_seconds(lambda: play_games(table, opponent, env, TESTER_GAMES), runs)
    print(f"Tester: {TESTER_GAMES:,} games, shipped X table vs advanced: {seconds * 1000:.0f} ms "
          f"(games only; the whole `python Tester.py` is timed above)")

    seconds = median_seconds(lambda: Solver.exact_outcome(table, opponent), runs)
    print(f"exact evaluation of a pair (shipped X vs advanced): {seconds * 1000:.1f} ms "
          f"(target <= {EXACT_TARGET_SECONDS:.0f} s)")

    def full_solve() -> None:
        Solver.solve.cache_clear()
        Solver.minimax_value()
    seconds = median_seconds(full_solve, runs)
    print(f"full solve (minimax over all 5,478 positions, cache cleared): {seconds * 1000:.1f} ms "
          f"(target <= {EXACT_TARGET_SECONDS:.0f} s)")

    Q, side, meta = load_table(SHIPPED_X)
    seconds = median_seconds(lambda: load_table(SHIPPED_X), runs)
    print(f"load_table of the shipped X table ({len(Q):,} entries): {seconds * 1000:.0f} ms")
    with tempfile.TemporaryDirectory() as folder:
        seconds = median_seconds(lambda: save_table(os.path.join(folder, "q.pth"), Q, side, meta),
                                 runs)
    print(f"save_table of the same table (checked, flushed, atomic): {seconds * 1000:.0f} ms")

    failed = []
    for script, options, quick in OTHER_BENCHMARKS:
        if args.quick and quick is None:
            print(f"{script}: not run with --quick")
        elif (ROOT / script).is_file():
            progress(f"python {script}")
            # line by line as the benchmark prints them (the DQN's seeds take minutes)
            with subprocess.Popen([sys.executable, str(ROOT / script),
                                   *(option.format(runs=runs) for option in
                                     (quick if args.quick else options))],
                                  cwd=ROOT, stdout=subprocess.PIPE, text=True) as child:
                for line in child.stdout:
                    print(line, end="", flush=True)
            if child.returncode:
                print(f"{script}: exited {child.returncode}")
                failed.append(script)
    if failed:          # every part has run; the status says that one of them did not finish
        print(f"not finished: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
