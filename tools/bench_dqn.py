"""Speed of deep Q-learning (DQN_Trainer.py with its defaults): games per second, and the training
time until the first unbeatable checkpoint, for X against random and for self-play.

    python tools/bench_dqn.py             # one run of each (seed 1)
    python tools/bench_dqn.py --runs 3    # seeds 1-3, medians

Every ``CHECK_EVERY`` games the greedy policy of every learner is checked exactly: can any line of
play beat it, and (X against random) does it win at least 99 %? The seconds printed are training
only: the checks are not counted.
"""

from __future__ import annotations

import contextlib
import io
import os
import statistics
import sys
import tempfile
from pathlib import Path
from time import perf_counter

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cli  # noqa: E402  (the project root must be on the path first)
import DQN_Trainer  # noqa: E402
from exact.solver import is_unbeatable  # noqa: E402
from neural.command import build_run, parse_arguments  # noqa: E402
from neural.loop import train  # noqa: E402
from training.curves import exact_results  # noqa: E402

CHECK_EVERY = 1_000
TARGET_SECONDS = 120.0         # issue 15: unbeatable within this much training
TARGET_WINS = 0.99             # X against random, exact
# name, opponent, the exact wins of X against random it must reach (None: no target)
MODES = (("X vs random", "random", TARGET_WINS), ("self-play", "self", None))


def meets(learners: list, wins_target: float | None) -> tuple[bool, bool]:
    """``(every learner unbeatable, and the first also wins at least wins_target vs random)``."""
    unbeatable = all(is_unbeatable(agent) for agent in learners)
    wins = wins_target is None or exact_results(learners[0])["random"][0] >= wins_target
    return unbeatable, unbeatable and wins


def one_run(opponent: str, seed: int, wins_target: float | None) -> dict:
    """A default run: its training seconds, games/s, the first checkpoints (game, seconds) where
    it is unbeatable and where it meets the whole target, and its exact result at the end."""
    import torch

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as folder, contextlib.redirect_stdout(io.StringIO()):
        args = parse_arguments("bench", "", DQN_Trainer.DEFAULTS,
                               ["--opponent", opponent, "--seed", str(seed),
                                "--out", os.path.join(folder, "n.pt")])
        run = build_run(args, DQN_Trainer.DEFAULTS, "bench")
        checking = 0.0
        first: dict[str, tuple[int, float]] = {}
        started = perf_counter()

        def check(epoch: int, final) -> None:
            nonlocal checking
            if (epoch + 1) % CHECK_EVERY or "target" in first:
                return
            begun = perf_counter()
            for name, met in zip(("unbeatable", "target"), meets(run.learners, wins_target)):
                if met:
                    first.setdefault(name, (epoch + 1, begun - started - checking))
            checking += perf_counter() - begun

        train(run, show_progress=False, on_game=check)
        seconds = perf_counter() - started - checking
    return {"seconds": seconds, "rate": run.epochs / seconds, "first": first,
            "wins": [exact_results(agent)["random"][0] for agent in run.learners],
            "met": meets(run.learners, wins_target)[1]}


def first_text(runs: list[dict], name: str) -> str:
    """When the runs first reached ``name`` at a checkpoint (medians), or that they did not."""
    reached = [r["first"][name] for r in runs if name in r["first"]]
    if len(reached) < len(runs):
        return f"{len(runs) - len(reached)} of {len(runs)} runs never {name} at a checkpoint"
    return (f"after {statistics.median(f[1] for f in reached):.1f} s (game "
            f"{statistics.median(f[0] for f in reached):,.0f})")


def report(name: str, runs: list[dict], wins_target: float | None) -> str:
    """One line for the ``runs`` of a mode: medians, and the lowest wins of any run."""
    seconds = statistics.median(r["seconds"] for r in runs)
    rate = statistics.median(r["rate"] for r in runs)
    wins = " / ".join(f"{min(r['wins'][i] for r in runs):.4%}"
                      for i in range(len(runs[0]["wins"])))
    met = sum(r["met"] for r in runs)
    # two targets, two verdicts: "BELOW TARGET" after a time limit read as "fast enough"
    quality = "ok" if met == len(runs) else "MISSED"
    timing = "ok" if seconds <= TARGET_SECONDS else "TOO SLOW"
    which = "seed 1" if len(runs) == 1 else f"median of seeds 1-{len(runs)}"
    firsts = f"first unbeatable {first_text(runs, 'unbeatable')}"
    if wins_target is not None:
        firsts += (f", first unbeatable with {wins_target:.0%} wins vs random "
                   f"{first_text(runs, 'target')}")
    return (f"DQN {name}: {rate:,.0f} games/s, {seconds:.1f} s of training ({which}); {firsts}; "
            f"at the end the target is met in {met} of {len(runs)} runs (lowest exact wins vs "
            f"random {wins}): {quality}; training time (target <= {TARGET_SECONDS:.0f} s): "
            f"{timing}")


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="bench_dqn.py", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=cli.count, default=1,
                        help="runs of each mode (seeds 1, 2, ...); medians are printed "
                             "(default 1; each run is about a minute)")
    args = parser.parse_args(argv)
    for name, opponent, wins_target in MODES:
        runs = [one_run(opponent, seed, wins_target) for seed in range(1, args.runs + 1)]
        print(report(name, runs, wins_target), flush=True)
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
