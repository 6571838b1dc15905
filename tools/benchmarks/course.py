"""The speed figures that need a comparison or a new process, for ``tools/bench.py``:
- ours against the course's original design (``tools/course/``), timed side by side in
  the same run: the same episodes, each a fresh process, interleaved (course, ours ``--plain``,
  ours, then again), medians;
- ours in a fresh process and with warm caches (the same run again in the same process);
- the whole-process wall time of the README's commands, start-up included.
Every rate is the one the trainer reports for its episodes (``Trained N episodes in S s (R
episodes/s)``), so start-up, saving and the final report are outside it; the wall times hold them.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from time import perf_counter

from tools.compare import TRAINED   # the trainers' timing line: episodes, episodes/s
from tictactoe_rl.training.registry import trainer_scripts

ROOT = Path(__file__).resolve().parents[2]
COURSE_EPISODES = 3_000       # the course design runs at ~2,000 episodes/s
COURSE_DEFAULT_EPISODES = 200_000
WARM_EPISODES = 50_000
GOAL_SECONDS = 4.0            # issue 14: the default run, whole process
GOAL_RATE = 60_000            # issue 14: X vs random, fresh process
# The README's commands that need no window and take seconds, timed as a student runs them;
# "{out}" is a throw-away table path, so that nothing is written into the repository.
# The first is the default run that the goals are about; every other trainer (the registry's)
# follows with its defaults.
README_COMMANDS = (
    ("MC_Trainer.py", "--out", "{out}"),
    ("MC_Trainer.py", "--side", "O", "--opponent", "advanced", "--out", "{out}"),
    *((script, "--out", "{out}") for script in trainer_scripts() if script != "MC_Trainer.py"),
    ("Q_Trainer.py", "--lecture", "--out", "{out}"),
    ("Tester.py",),
    ("Tester.py", "--x", "Data/Q_MC_X.pth", "--o", "advanced", "--exact"),
    ("Tester.py", "--optimum"),
)


class BenchError(RuntimeError):
    """A timed command failed, or printed no rate to read."""


def run_process(command: list[str]) -> tuple[float, str]:
    """Run ``command`` as a new process in the repository; its wall-clock seconds and stdout."""
    start = perf_counter()
    done = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    seconds = perf_counter() - start
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise BenchError(f"{' '.join(command[1:])} exited {done.returncode}: {tail}")
    return seconds, done.stdout


def reported_rate(output: str, what: str) -> float:
    """The episodes/s of a trainer's ``Trained ...`` line in ``output``."""
    found = TRAINED.search(output)
    if found is None:
        raise BenchError(f"{what} printed no 'Trained N episodes in S s (R episodes/s)' line")
    return float(found.group(2).replace(",", ""))


def trainer(script: str, *options: str, out: str) -> list[str]:
    """The command of one of our trainers, saving to ``out``."""
    return [sys.executable, str(ROOT / script), *options, "--out", out]


def side_by_side(runs: int, episodes: int = COURSE_EPISODES) -> None:
    """The course design and ours (``--plain``, then the default) training X for ``episodes``
    episodes against each opponent, each in a fresh process, interleaved; medians of ``runs``."""
    print(f"side by side, X learns for {episodes:,} episodes, each run a fresh process, "
          f"interleaved, median of {runs} (episodes/s of the training loop):")
    course_rates: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "q.pth")
        for opponent in ("random", "advanced"):
            common = ("--opponent", opponent, "--epochs", str(episodes))
            commands = {
                "course": [sys.executable, str(ROOT / "tools" / "course" / "original_design.py"),
                           *common],
                "plain": trainer("MC_Trainer.py", "--plain", *common, out=out),
                "ours": trainer("MC_Trainer.py", *common, out=out)}
            rates: dict[str, list[float]] = {name: [] for name in commands}
            for run in range(runs):
                for name, command in commands.items():
                    _, output = run_process([*command, "--seed", str(run)])
                    rates[name].append(reported_rate(output, name))
            course, plain, ours = (statistics.median(rates[name]) for name in commands)
            course_rates[opponent] = course
            print(f"  vs {opponent:<8}: course design {course:>6,.0f}; "
                  f"ours --plain {plain:>7,.0f} ({plain / course:.0f}x); "
                  f"ours {ours:>7,.0f} ({ours / course:.0f}x)")
    print(f"  (so {COURSE_DEFAULT_EPISODES:,} episodes of the course design would take about "
          f"{COURSE_DEFAULT_EPISODES / course_rates['random']:.0f} s vs random and "
          f"{COURSE_DEFAULT_EPISODES / course_rates['advanced']:.0f} s vs advanced, "
          f"at the rates just measured)")


# One process, the same training twice (same seed: the same games): the first call meets empty
# caches, as every student's run does; the second finds every position's moves, successors and
# mirror images already made.
TWICE = ("import sys; sys.path.insert(0, sys.argv[1]); import MC_Trainer\n"
         "for _ in range(2):\n    MC_Trainer.run(sys.argv[2:])")


def fresh_and_warm(runs: int, episodes: int = WARM_EPISODES) -> None:
    """Our MC training of each side against each opponent, twice in one new process: the first
    call (fresh caches, what a student's run sees) and the second (warm); medians of ``runs``."""
    print(f"MC training, {episodes:,} episodes, the same run twice in one new process, "
          f"episodes/s of the training loop, median of {runs}:")
    with tempfile.TemporaryDirectory() as folder:
        for side in ("X", "O"):
            for opponent in ("random", "advanced"):
                first, second = [], []
                for run in range(runs):
                    _, output = run_process([
                        sys.executable, "-c", TWICE, str(ROOT), "--side", side, "--opponent",
                        opponent, "--epochs", str(episodes), "--seed", str(run),
                        "--out", os.path.join(folder, f"q_{side}.pth")])   # a file a side
                    rates = [float(rate.replace(",", "")) for _, rate in TRAINED.findall(output)]
                    if len(rates) != 2:
                        raise BenchError(f"MC_Trainer.run twice printed {len(rates)} rates, not 2")
                    first.append(rates[0])
                    second.append(rates[1])
                fresh, warm = statistics.median(first), statistics.median(second)
                change = 1 - fresh / warm
                print(f"  {side} vs {opponent:<8}: first call {fresh:>7,.0f}; second call "
                      f"{warm:>7,.0f} (the first {abs(change):.0%} "
                      f"{'slower' if change >= 0 else 'faster'})")


def readme_commands(runs: int, episodes: int | None = None) -> None:
    """Whole-process wall time of each of ``README_COMMANDS``, interleaved, median of ``runs``;
    for the default training also its rate and the issue's goals. ``episodes``: each trainer
    that many (bench.py --quick), not its default."""
    shorter = ("--epochs", str(episodes)) if episodes else ()
    print(f"whole process, start-up included, median of {runs} (commands interleaved):")
    times: dict[tuple[str, ...], list[float]] = {command: [] for command in README_COMMANDS}
    default_rates: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(runs):
            for index, command in enumerate(README_COMMANDS):
                script, *options = command
                # a file a command: a run refuses to replace another side's or kind's file
                out = os.path.join(folder, f"q{index}.pth")
                seconds, output = run_process([sys.executable, str(ROOT / script),
                                               *(option.format(out=out) for option in options),
                                               *(shorter if "_Trainer" in script else ())])
                times[command].append(seconds)
                if command == README_COMMANDS[0]:
                    default_rates.append(reported_rate(output, script))
    for command, seconds in times.items():
        shown = " ".join(word for word in command if word not in ("--out", "{out}"))
        note = ""
        if command == README_COMMANDS[0]:
            rate = statistics.median(default_rates)
            note = (f"  (goal <= {GOAL_SECONDS:.0f} s; training loop {rate:,.0f} episodes/s, "
                    f"goal >= {GOAL_RATE:,})")
        print(f"  python {shown:<55} {statistics.median(seconds):6.2f} s{note}")
