"""Benchmark: the time of Nim's default training, ``train(10000)`` (target: at most 2 s).

Runs the training several times from fixed seeds, with the per-game lines written to the null
device (so the terminal's speed is not measured), and prints every time and their median.
"""

from __future__ import annotations

import contextlib
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "nim"))

import cli  # noqa: E402  (needs the paths above)
from nim import train  # noqa: E402

DEFAULT_GAMES = 10_000
DEFAULT_RUNS = 5


def time_training(games: int, seed: int) -> float:
    """Seconds taken by ``train(games)`` after ``random.seed(seed)``, its output discarded."""
    random.seed(seed)
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        start = time.perf_counter()
        train(games)
        return time.perf_counter() - start


def main() -> int:
    parser = cli.Parser(prog="bench_nim.py", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=cli.count, default=DEFAULT_GAMES,
                        help=f"training games per run (default {DEFAULT_GAMES:,})")
    parser.add_argument("--runs", type=cli.count, default=DEFAULT_RUNS,
                        help=f"runs, seeds 0, 1, ... (default {DEFAULT_RUNS})")
    args = parser.parse_args()
    times = [time_training(args.games, seed) for seed in range(args.runs)]
    print(f"Nim train({args.games}): median {statistics.median(times):.3f} s over {args.runs} "
          f"runs ({', '.join(f'{t:.3f}' for t in times)} s)")
    return 0


if __name__ == "__main__":
    cli.run(main)
