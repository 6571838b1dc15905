"""Speed of the playout agents, searching the empty board: random playouts per second of the
primitive Monte Carlo agent, and iterations (one playout each) per second of the tree search;
then how closely each keeps a time limit per move (the tests only check that it never stops
early and does end).

    python tools/benchmarks/playout.py            # median of 5 runs each
    python tools/benchmarks/playout.py --runs 9
"""

from __future__ import annotations

import random
import statistics
import sys
from pathlib import Path
from time import perf_counter

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)
from tictactoe_rl.players.mcts import DEFAULT_ITERATIONS, MCTSAgent  # noqa: E402
from tictactoe_rl.players.playout import DEFAULT_PNUM, PlayoutAgent  # noqa: E402
from State import X, State  # noqa: E402

PLAYOUT_TARGET = 50_000  # playouts/s from the empty board (issue 6)
DEFAULT_RUNS = 5
TIME_LIMIT = 0.1          # seconds a move, the tutorial's
TIME_TOLERANCE = 0.2      # a time limit kept within 20 % is "ok"


def timed_search(agent, runs: int) -> list[float]:
    """Seconds of ``runs`` searches of the empty board, each with a fresh generator."""
    seconds = []
    for run in range(runs):
        start = perf_counter()
        agent.search(State(), random.Random(run))
        seconds.append(perf_counter() - start)
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="tools/benchmarks/playout.py", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=cli.count, default=DEFAULT_RUNS,
                        help=f"runs per measurement; the median is printed (default {DEFAULT_RUNS})")
    args = parser.parse_args(argv)

    playout_agent = PlayoutAgent(X, pnum=DEFAULT_PNUM)
    playouts = len(State().legal_actions()) * DEFAULT_PNUM
    seconds = statistics.median(timed_search(playout_agent, args.runs))
    rate = playouts / seconds
    verdict = "ok" if rate >= PLAYOUT_TARGET else "BELOW TARGET"
    print(f"playout: {rate:>10,.0f} playouts/s from the empty board "
          f"({playouts:,} playouts in {seconds:.3f} s, median of {args.runs}; "
          f"target {PLAYOUT_TARGET:,}: {verdict})")

    mcts_agent = MCTSAgent(X)
    seconds = statistics.median(timed_search(mcts_agent, args.runs))
    print(f"mcts:    {DEFAULT_ITERATIONS / seconds:>10,.0f} iterations/s from the empty board "
          f"(default {DEFAULT_ITERATIONS:,} iterations = {seconds:.3f} s a move, "
          f"median of {args.runs})")

    for name, agent in (("playout:timelimit", PlayoutAgent(X, timelimit=TIME_LIMIT)),
                        ("mcts:time", MCTSAgent(X, time=TIME_LIMIT))):
        seconds = statistics.median(timed_search(agent, args.runs))
        verdict = "ok" if abs(seconds - TIME_LIMIT) <= TIME_TOLERANCE * TIME_LIMIT else "OFF"
        print(f"{name}={TIME_LIMIT}: a move takes {seconds:.3f} s, median of {args.runs} "
              f"(within {TIME_TOLERANCE:.0%} of the limit: {verdict})")
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
