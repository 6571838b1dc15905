"""Perfect play on m,n,k boards: solve times (fresh and from the cache) and position counts.

    python tools/benchmarks/mnk.py              # 3x3, 3x4 k=3, 4x4 k=3, 4x4 k=4; median of 3 runs
    python tools/benchmarks/mnk.py --large      # also 4x5 k=4, 5x5 k=4, 5x5 k=5 (about a minute)
    python tools/benchmarks/mnk.py --baseline   # also a plain negamax on 4x4 k=4 (minutes)

Each board: the value of the empty board, the positions the solver searched and its table's size,
the wall and CPU seconds of a fresh solve (the empty board, then each first move, then the cache
file written), and of the second call, which reads that file. Then how many positions each board
has (``tictactoe_rl.boards.reach``), with the seconds the count took, whether it is what
docs/BOARDS.md's table quotes (the test suite counts the boards below 4x4 itself; the exit status
is 1 when a count differs), and whether the exact tools can walk its game in this machine's
memory (``tictactoe_rl.exact.fits``). ``--baseline`` times, side by side, the plain negamax the solver was built to beat: every
canonical position of 4x4 k=4 visited, no pruning.
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import tempfile
from pathlib import Path
from time import perf_counter, process_time

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)
from tictactoe_rl.boards.cache import cache_path, solve_board  # noqa: E402
from tictactoe_rl.boards.keys import canonical_of  # noqa: E402
from tictactoe_rl.boards.reach import count_reachable  # noqa: E402
from tictactoe_rl.exact.fits import is_exact  # noqa: E402
from tictactoe_rl.geometry import BoardShape  # noqa: E402
from tictactoe_rl.boards.solve import VALUE_WORDS  # noqa: E402
from tictactoe_rl.boards.solver import Solver  # noqa: E402

BOARDS = (BoardShape(3, 3, 3), BoardShape(3, 4, 3), BoardShape(4, 4, 3), BoardShape(4, 4, 4))
LARGE_BOARDS = (BoardShape(4, 5, 4), BoardShape(5, 5, 4), BoardShape(5, 5, 5))
DEFAULT_RUNS = 3
QUOTED_ROW = re.compile(r"^\| (\d)x(\d) k=(\d) \| ([\d,]+) \| ([\d,]+) \|$", re.M)


def quoted_counts() -> dict[BoardShape, tuple[int, int]]:
    """docs/BOARDS.md's table of positions: ``(positions, up to symmetry)`` by board."""
    text = (ROOT / "docs" / "BOARDS.md").read_text(encoding="utf-8")
    return {BoardShape(int(rows), int(cols), int(k)): (int(positions.replace(",", "")),
                                                       int(classes.replace(",", "")))
            for rows, cols, k, positions, classes in QUOTED_ROW.findall(text)}


def timed(work) -> tuple[float, float, object]:
    """``(wall seconds, CPU seconds, result)`` of ``work()``."""
    wall, cpu = perf_counter(), process_time()
    result = work()
    return perf_counter() - wall, process_time() - cpu, result


def bench_solve(shape: BoardShape, runs: int) -> str:
    """One line: the board's value and the median times of fresh and cached solves."""
    fresh, cached = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as folder:
            canonical_of.cache_clear()  # a fresh solve builds its symmetry tables too
            fresh.append(timed(lambda: solve_board(shape, folder)))
            cached.append(timed(lambda: solve_board(shape, folder)))
            file_bytes = os.path.getsize(cache_path(shape, folder))
    solution = fresh[0][2]
    assert all(run[2].from_cache for run in cached), "the second call did not read the cache"
    root = Solver(shape)
    root_wall, root_cpu, _ = timed(root.value)
    return (f"{shape.name:<9} {VALUE_WORDS[solution.value]:<10} "
            f"empty board {root.nodes:>9,} positions, {len(root.table):>9,} in table, "
            f"{root_wall:6.2f} s wall {root_cpu:6.2f} s CPU | "
            f"with first moves {solution.nodes:>9,} positions "
            f"{_median(fresh, 0):6.2f} s wall {_median(fresh, 1):6.2f} s CPU | "
            f"cached {_median(cached, 0) * 1000:6.2f} ms ({file_bytes} bytes)")


def bench_counts(shape: BoardShape) -> tuple[str, bool]:
    """One line of the board's counts, and whether they are what docs/BOARDS.md quotes."""
    wall, cpu, reach = timed(lambda: count_reachable(shape))
    fits = "fits in memory" if is_exact(shape) else "too large for this machine's memory"
    quoted = quoted_counts().get(shape)
    same = quoted == (reach.positions, reach.canonical) and reach.complete
    return (f"{shape.name:<9} {reach.positions:>11,} positions ({reach.canonical:>9,} up to "
            f"symmetry, {reach.finished:>9,} finished), counted in {wall:6.2f} s wall "
            f"{cpu:6.2f} s CPU, {'as' if same else 'NOT as'} docs/BOARDS.md quotes; exact "
            f"tools: {fits}"), same


def plain_negamax(shape: BoardShape) -> tuple[int, int]:
    """The baseline: ``(value, canonical positions)`` by negamax over every position, a memo
    keyed by the canonical position and nothing else (no bounds, threats or ordering)."""
    n, full, masks = shape.size, (1 << shape.size) - 1, shape.line_masks
    canonical, memo = canonical_of(shape), {}

    def negamax(me: int, opp: int) -> int:
        key = canonical(me | opp << n)
        if key not in memo:
            best, free = -1 if (me | opp) != full else 0, full & ~(me | opp)
            while free and best < 1:
                move = free & -free
                free ^= move
                placed = me | move
                value = 1 if any(m & placed == m for m in masks) else -negamax(opp, placed)
                best = max(best, value)
            memo[key] = best
        return memo[key]

    return negamax(0, 0), len(memo)


def _median(runs: list[tuple[float, float, object]], field: int) -> float:
    return statistics.median(run[field] for run in runs)


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="tools/benchmarks/mnk.py", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=cli.count, default=DEFAULT_RUNS,
                        help=f"solves per board; medians are printed (default {DEFAULT_RUNS})")
    parser.add_argument("--large", action="store_true",
                        help="also solve 4x5 k=4, 5x5 k=4 and 5x5 k=5 (one run each)")
    parser.add_argument("--baseline", action="store_true",
                        help="also time a plain negamax on 4x4 k=4, side by side (minutes)")
    args = parser.parse_args(argv)
    print("perfect play from the empty board (medians of fresh solves and of cached calls):")
    for shape in BOARDS:
        print("  " + bench_solve(shape, args.runs), flush=True)
    for shape in LARGE_BOARDS if args.large else ():
        print("  " + bench_solve(shape, 1), flush=True)
    print("reachable positions (and whether the exact tools can walk them all):")
    differ = 0
    for shape in BOARDS:
        line, same = bench_counts(shape)
        differ += not same
        print("  " + line, flush=True)
    if args.baseline:
        shape = BoardShape(4, 4, 4)
        wall, cpu, (value, positions) = timed(lambda: plain_negamax(shape))
        solver = Solver(shape)
        ours_wall, ours_cpu, ours = timed(solver.value)
        assert value == ours, "the baseline and the solver disagree"
        print(f"4x4 k=4 side by side: plain negamax {positions:,} canonical positions "
              f"{wall:.1f} s wall {cpu:.1f} s CPU; this solver {solver.nodes:,} positions "
              f"{ours_wall:.2f} s wall {ours_cpu:.2f} s CPU: {cpu / ours_cpu:,.0f}x less CPU")
    return 1 if differ else 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
