"""The default run's speed now and at an earlier commit, timed side by side in one run.

    python tools/benchmarks/revision.py                    # against BASELINE, median of 5
    python tools/benchmarks/revision.py --against HEAD~3 --runs 3

A change that adds to the engine (bigger boards, say) must leave the default 3x3 run as fast as it
was. Both versions run the same command, ``python MC_Trainer.py --seed 1`` into a throw-away file,
each a fresh process, interleaved (then, now, then, now, ...); the figures are the median training
loop rate the trainer reports and the median whole-process time. The earlier commit is checked out
into a temporary folder with ``git worktree`` and removed afterwards.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from time import perf_counter

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)
from tools.compare import TRAINED  # noqa: E402  (the trainers' timing line)

BASELINE = "4ab9186"     # the last commit before the bigger boards (m,n,k) came in
DEFAULT_RUNS = 5


def one_run(folder: Path, out: Path) -> tuple[float, float]:
    """``(training loop episodes/s, whole-process seconds)`` of the default run in ``folder``."""
    started = perf_counter()
    done = subprocess.run([sys.executable, "MC_Trainer.py", "--seed", "1", "--out", str(out),
                           "--force"], cwd=folder, capture_output=True, text=True)
    seconds = perf_counter() - started
    said = TRAINED.search(done.stdout)
    if done.returncode != 0 or said is None:
        last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        cli.fail(f"MC_Trainer.py in {folder.name} failed: {last}")
    return float(said.group(2).replace(",", "")), seconds


def in_history(revision: str) -> bool:
    """Whether git knows the commit ``revision`` in this repository."""
    try:
        return subprocess.run(["git", "cat-file", "-e", f"{revision}^{{commit}}"], cwd=ROOT,
                              capture_output=True).returncode == 0
    except OSError:          # no git at all
        return False


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="tools/benchmarks/revision.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", default=BASELINE, metavar="REV",
                        help=f"the earlier commit (default: {BASELINE})")
    parser.add_argument("--runs", type=cli.count, default=DEFAULT_RUNS,
                        help=f"runs of each, interleaved (default: {DEFAULT_RUNS})")
    args = parser.parse_args(argv)
    if args.against == BASELINE and not in_history(BASELINE):
        print(f"the default run at {BASELINE} and now: not timed ({BASELINE} is not in this "
              "copy's history: a copy without git's history, or a shallow clone)")
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        earlier = Path(scratch) / "earlier"
        added = subprocess.run(["git", "worktree", "add", "--detach", str(earlier), args.against],
                               cwd=ROOT, capture_output=True, text=True)
        if added.returncode != 0:
            cli.fail(f"error: cannot check out {args.against}: "
                     f"{(added.stderr.strip().splitlines() or ['git failed'])[-1]}")
        try:
            figures = {"then": [], "now": []}
            for _ in range(args.runs):
                for name, folder in (("then", earlier), ("now", ROOT)):
                    figures[name].append(one_run(folder, Path(scratch) / f"{name}.pth"))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(earlier)], cwd=ROOT,
                           capture_output=True)
    rate = {name: statistics.median(r for r, _ in runs) for name, runs in figures.items()}
    wall = {name: statistics.median(s for _, s in runs) for name, runs in figures.items()}
    print(f"the default run (python MC_Trainer.py --seed 1), at {args.against} and now, "
          f"interleaved, median of {args.runs}:")
    for name in ("then", "now"):
        label = args.against if name == "then" else "now"
        print(f"  {label:>8}: training loop {rate[name]:>9,.0f} episodes/s, whole process "
              f"{wall[name]:.2f} s")
    print(f"  now / then: {rate['now'] / rate['then']:.3f} of the rate, "
          f"{wall['now'] / wall['then']:.3f} of the time")
    return 0


if __name__ == "__main__":
    cli.run(main)
