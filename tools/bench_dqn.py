"""Speed of deep Q-learning (DQN_Trainer.py with its defaults): games per second, and the training
time until the first unbeatable checkpoint, for X against random and for self-play.

    python tools/bench_dqn.py             # one run of each (seed 1)
    python tools/bench_dqn.py --runs 3    # seeds 1-3, medians

Every ``CHECK_EVERY`` games the greedy policy of every learner is checked exactly (can any line of
play beat it?). The seconds printed are training only: the checks are not counted.
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


def one_run(opponent: str, seed: int) -> dict:
    """A default run: its training seconds, games/s, first unbeatable checkpoint and result."""
    import torch

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as folder, contextlib.redirect_stdout(io.StringIO()):
        args = parse_arguments("bench", "", DQN_Trainer.DEFAULTS,
                               ["--opponent", opponent, "--seed", str(seed),
                                "--out", os.path.join(folder, "n.pt")])
        run = build_run(args, DQN_Trainer.DEFAULTS, "bench")
        checking = 0.0
        first: tuple[int, float] | None = None
        started = perf_counter()

        def check(epoch: int, final) -> None:
            nonlocal checking, first
            if (epoch + 1) % CHECK_EVERY or first is not None:
                return
            begun = perf_counter()
            if all(is_unbeatable(agent) for agent in run.learners):
                first = (epoch + 1, begun - started - checking)
            checking += perf_counter() - begun

        train(run, show_progress=False, on_game=check)
        seconds = perf_counter() - started - checking
    results = [exact_results(agent)["random"] for agent in run.learners]
    return {"seconds": seconds, "rate": run.epochs / seconds, "first": first,
            "wins": [r[0] for r in results],
            "unbeatable": all(is_unbeatable(agent) for agent in run.learners)}


def report(name: str, runs: list[dict], wins_target: float | None) -> str:
    """One line of medians (and the worst run) for ``runs`` of a mode."""
    seconds = statistics.median(r["seconds"] for r in runs)
    rate = statistics.median(r["rate"] for r in runs)
    reached = [r["first"] for r in runs if r["first"] is not None]
    first = (f"first unbeatable after {statistics.median(f[1] for f in reached):.1f} s "
             f"(game {statistics.median(f[0] for f in reached):,.0f})" if reached else
             "never unbeatable at a checkpoint")
    wins = " / ".join(f"{min(r['wins'][i] for r in runs):.4%}"
                      for i in range(len(runs[0]["wins"])))
    ending = sum(r["unbeatable"] for r in runs)
    good = seconds <= TARGET_SECONDS and ending == len(runs) and (
        wins_target is None or min(r["wins"][0] for r in runs) >= wins_target)
    verdict = "ok" if good else "BELOW TARGET"
    extra = "" if wins_target is None else f", X wins vs random >= {wins_target:.0%}"
    return (f"DQN {name}: {rate:,.0f} games/s, {seconds:.1f} s of training "
            f"(targets: <= {TARGET_SECONDS:.0f} s, unbeatable{extra}: {verdict}); {first}; "
            f"at the end unbeatable in {ending} of {len(runs)} runs, lowest exact wins vs random "
            f"{wins} (median of {len(runs)} runs, seeds 1-{len(runs)})")


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="bench_dqn.py", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=cli.count, default=1,
                        help="runs of each mode (seeds 1, 2, ...); medians are printed "
                             "(default 1; each run is about a minute)")
    args = parser.parse_args(argv)
    for name, opponent, wins_target in MODES:
        runs = [one_run(opponent, seed) for seed in range(1, args.runs + 1)]
        print(report(name, runs, wins_target), flush=True)
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
