"""Exact measurement of a learned agent on 4x4 k=4: the engine's walks timed, and their memory.

    python tools/benchmarks/exact.py                  # median of 3 runs each
    python tools/benchmarks/exact.py --runs 5 --table Data/my_Q_MC_X_4x4k4.pth

A Q-table of ``MC_Trainer.py --board 4x4 --k 4 --epochs 200000 --seed 1`` (X against random) is
trained once in a process of its own and kept in Data/ (git ignores it; ``--table`` measures
another). Then, each in the median of ``--runs``: the whole game solved up to symmetry (the
perfect player's values), the table's exact results against ``random``, ``advanced`` and the
perfect player (``tictactoe_rl.exact.solver.exact_result``, the perfect player's values solved
afresh each run) and its worst case (``worst_case``), with the positions each walk visits; the
issue's target is a minute each. Last, the process's peak memory, and what it was once the
table was loaded.
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
from pathlib import Path
from time import perf_counter

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)
from tictactoe_rl.exact import sides  # noqa: E402
from tictactoe_rl.exact.opponents import opponents_of  # noqa: E402
from tictactoe_rl.exact.solver import exact_result  # noqa: E402
from tictactoe_rl.exact.worst import worst_case  # noqa: E402
from tictactoe_rl.geometry import BoardShape  # noqa: E402
from tictactoe_rl.players.specs import make_agent  # noqa: E402
from State import X  # noqa: E402
from TicTacToe import TicTacToe  # noqa: E402

BOARD = BoardShape(4, 4, 4)
EPISODES, SEED = 200_000, 1
DEFAULT_RUNS = 3
TARGET_SECONDS = 60.0


def kept_table(episodes: int) -> Path:
    """The benchmark's table of ``episodes`` episodes, trained now if it is not kept yet."""
    path = ROOT / "Data" / f"bench_exact_4x4k4_{episodes}_seed{SEED}.pth"
    if not path.is_file():
        print(f"training {path.name} (MC_Trainer.py, {episodes:,} episodes) ...", flush=True)
        start = perf_counter()
        subprocess.run([sys.executable, str(ROOT / "MC_Trainer.py"), "--board", "4x4", "--k", "4",
                        "--epochs", str(episodes), "--seed", str(SEED), "--out", str(path)],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        print(f"trained in {perf_counter() - start:.0f} s", flush=True)
    return path


class Counted:
    """A walk's ``progress`` that keeps its last line: how many positions it visited."""

    def __init__(self) -> None:
        self.line = ""

    def __call__(self, line: str) -> None:
        self.line = line

    def positions(self) -> str:
        return self.line.rpartition(", ")[2].split(" ")[0]


def timed(work, runs: int) -> tuple[float, object, str]:
    """``(median seconds, last result, positions of the last walk)`` of ``runs`` calls of
    ``work(progress)``, the perfect player's values solved afresh before each."""
    seconds, result, counted = [], None, Counted()
    for _ in range(runs):
        sides.solved.cache_clear()
        counted = Counted()
        start = perf_counter()
        result = work(counted)
        seconds.append(perf_counter() - start)
    return statistics.median(seconds), result, counted.positions()


def peak_mb() -> float:
    """The process's peak resident memory so far, in MB (Linux counts it in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def verdict(seconds: float) -> str:
    return "ok" if seconds <= TARGET_SECONDS else "TOO SLOW"


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="tools/benchmarks/exact.py", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=cli.count, default=DEFAULT_RUNS,
                        help=f"runs per figure; the median is printed (default {DEFAULT_RUNS})")
    parser.add_argument("--episodes", type=cli.count, default=EPISODES,
                        help=f"episodes of the table trained (default {EPISODES:,})")
    parser.add_argument("--table", type=cli.path, default=None, metavar="PATH",
                        help="measure this 4x4 k=4 X table instead of training one")
    args = parser.parse_args(argv)
    path = Path(args.table) if args.table else kept_table(args.episodes)
    agent = make_agent(str(path), X, TicTacToe(board=BOARD))
    loaded = peak_mb()
    print(f"{BOARD.name}, {path.name}: {len(agent.Q):,} entries; median of {args.runs} runs, "
          f"target {TARGET_SECONDS:.0f} s each")
    seconds, _, positions = timed(lambda progress: sides.solved(BOARD), args.runs)
    print(f"  the whole game solved up to symmetry: {seconds:6.2f} s "
          f"({len(sides.solved(BOARD).keys):,} positions)", flush=True)
    for name, opponent in opponents_of(agent).items():
        seconds, (wins, losses, draws), positions = timed(
            lambda progress: exact_result(agent, opponent, progress=progress), args.runs)
        print(f"  exact vs {name:<8} {seconds:6.2f} s, {positions:>10} positions walked: "
              f"wins {wins:.4%} losses {losses:.4%} draws {draws:.4%} ({verdict(seconds)})",
              flush=True)
    seconds, (value, line), positions = timed(
        lambda progress: worst_case(agent, progress=progress), args.runs)
    beaten = "unbeatable" if line is None else f"beaten in {len(line)} moves"
    print(f"  worst case        {seconds:6.2f} s, {positions:>10} positions walked: {beaten} "
          f"({verdict(seconds)})")
    print(f"peak memory {peak_mb():,.0f} MB ({loaded:,.0f} MB once the table was loaded)")
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
