"""Benchmark Nim's training: the speed of ``train(10000)`` (target: at most 2 s), the course's loop
in ``nim/nim.py`` and the project's in ``nim/better.py``, and, with ``--compare N``, how often
each learns perfect play.

    python tools/benchmarks/nim.py                # median time of train(10000), train_better(10000)
    python tools/benchmarks/nim.py --compare 100  # judge both after random.seed(k), k = 0..99

Per-game lines are written to the null device, so the terminal's speed is not measured.
"""

from __future__ import annotations

import contextlib
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "nim"))

from tictactoe_rl import cli  # noqa: E402  (needs the paths above)
from better import DEFAULT_PILES, course_train, train_better  # noqa: E402
from judge import judge  # noqa: E402
from nim import NimAI, train  # noqa: E402
from play import whole_number  # noqa: E402

DEFAULT_GAMES = 10_000
DEFAULT_RUNS = 5
MAX_PILE_SIZE = 50


def course(n: int, initial: Sequence[int] = DEFAULT_PILES) -> NimAI:
    """The course's ``train(n)`` itself for 1 3 5 7; its loop (``better.course_train``, which
    learns the same) for other piles."""
    return train(n) if tuple(initial) == DEFAULT_PILES else course_train(n, initial)


def better(n: int, initial: Sequence[int] = DEFAULT_PILES) -> NimAI:
    """The project's training, ``better.train_better``."""
    return train_better(n, initial)


TRAINERS: dict[str, Callable[..., NimAI]] = {"course": course, "better": better}


def silently(trainer: Callable[..., NimAI], games: int, seed: int,
             piles: Sequence[int]) -> tuple[NimAI, float]:
    """``trainer(games, piles)`` after ``random.seed(seed)``, its output discarded; returns the AI
    and the seconds it took."""
    random.seed(seed)
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        start = time.perf_counter()
        ai = trainer(games, piles)
        return ai, time.perf_counter() - start


def main() -> int:
    parser = cli.Parser(prog="tools/benchmarks/nim.py",
                        description="Time Nim's training, or compare how often the course's and "
                                    "the project's training learn perfect play.")
    parser.add_argument("--games", type=cli.count, default=DEFAULT_GAMES,
                        help=f"training episodes per run (default {DEFAULT_GAMES:,})")
    parser.add_argument("--runs", type=cli.count, default=DEFAULT_RUNS,
                        help=f"timed runs, seeds 0, 1, ... (default {DEFAULT_RUNS})")
    parser.add_argument("--compare", type=cli.count, metavar="N",
                        help="instead of timing, judge both trainers for seeds 0 .. N-1")
    parser.add_argument("--piles", type=whole_number(0, MAX_PILE_SIZE), nargs="+",
                        default=list(DEFAULT_PILES),
                        metavar="P", help="starting piles (default: 1 3 5 7)")
    args = parser.parse_args()
    if not any(args.piles):
        parser.error("at least one pile must hold an object")
    if args.compare is None:
        for name, trainer in TRAINERS.items():
            times = [silently(trainer, args.games, seed, args.piles)[1]
                     for seed in range(args.runs)]
            print(f"Nim train({args.games}), {name}: median {statistics.median(times):.3f} s "
                  f"over {args.runs} runs ({', '.join(f'{t:.3f}' for t in times)} s)")
        return 0
    print(f"Share of winning positions where the greedy move wins, piles "
          f"{' '.join(map(str, args.piles))}, {args.games:,} games")
    print("seed  " + "  ".join(f"{name:>7}" for name in TRAINERS))
    shares: dict[str, list[float]] = {name: [] for name in TRAINERS}
    for seed in range(args.compare):
        for name, trainer in TRAINERS.items():
            shares[name].append(judge(silently(trainer, args.games, seed, args.piles)[0],
                                      args.piles).share)
        print(f"{seed:>4}  " + "  ".join(f"{100 * shares[n][-1]:6.1f}%" for n in TRAINERS),
              flush=True)
    for name, values in shares.items():
        print(f"{name}: 100 % in {sum(v == 1 for v in values)} of {len(values)} seeds; share "
              f"min {100 * min(values):.1f} %, mean {100 * statistics.mean(values):.1f} %")
    return 0


if __name__ == "__main__":
    cli.run(main)
