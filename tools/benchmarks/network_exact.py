"""The exact walks of a 4x4 k=4 network: the seconds to load it and to evaluate it exactly.

    python tools/benchmarks/network_exact.py                      # trains 1,000 games, seed 1
    python tools/benchmarks/network_exact.py --games 3000 --seed 2
    python tools/benchmarks/network_exact.py --network NET.pt     # a network of 4x4 k=4, as X

Trains a network as X against random with ``DQN_Trainer.py`` in a process of its own (its own
defaults, ``--games`` games, ``--seed``), or takes the one named. Prints the seconds of importing torch (once a
process), of loading the network as an agent, of ``exact_outcome`` against the random, the
advanced and the perfect player (the perfect player's solve of the whole game counted apart, as
its first use in a process pays for it) and of ``worst_case``, with the figures each gives.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from time import perf_counter, process_time

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)
from tools.benchmarks.machine import machine  # noqa: E402
from State import X  # noqa: E402
from TicTacToe import TicTacToe  # noqa: E402
from tictactoe_rl.exact.opponents import opponents_of  # noqa: E402
from tictactoe_rl.exact.sides import solved  # noqa: E402
from tictactoe_rl.exact.solver import exact_outcome  # noqa: E402
from tictactoe_rl.exact.worst import worst_case  # noqa: E402
from tictactoe_rl.geometry import BoardShape  # noqa: E402

FOUR = BoardShape(4, 4, 4)
DEFAULT_GAMES = 1_000


def timed(work):
    """``(result, "W s wall, C s CPU")`` of one call of ``work()``."""
    wall, cpu = perf_counter(), process_time()
    result = work()
    return result, f"{perf_counter() - wall:6.2f} s wall, {process_time() - cpu:6.2f} s CPU"


def train(path: str, games: int, seed: int) -> str:
    """Train a 4x4 k=4 network as X against random into ``path``, in a process of its own (so
    that this one imports torch only when it loads the network, as a fresh process does)."""
    command = [sys.executable, str(ROOT / "DQN_Trainer.py"), "--board", "4x4", "--k", "4",
               "--epochs", str(games), "--seed", str(seed), "--out", path]
    start = perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    took = f"{perf_counter() - start:6.2f} s wall"     # its CPU is another process's
    if done.returncode != 0:
        raise SystemExit(f"DQN_Trainer.py stopped with status {done.returncode}: "
                         f"{done.stderr.strip()[-300:]}")
    return f"trained {games:,} games (seed {seed}, with its exact report): {took}"


def outcome_text(outcome: dict) -> str:
    return (f"X wins {outcome['x_wins']:.4%}, O wins {outcome['o_wins']:.4%}, "
            f"draws {outcome['draws']:.4%}")


def load(path: str, env: TicTacToe):
    """The agent of the network at ``path``, its modules imported first (torch already is)."""
    from tictactoe_rl.neural.agent import make_dqn_agent
    return make_dqn_agent(path, X, env)


def measure(path: str) -> None:
    """Print the load and the walks of the network at ``path``."""
    _, took = timed(lambda: __import__("torch"))
    print(f"  import torch               : {took}", flush=True)
    env = TicTacToe(board=FOUR)
    agent, took = timed(lambda: load(path, env))
    print(f"  load the network           : {took} ({os.path.getsize(path):,} bytes; with the "
          "import of the network's modules)", flush=True)
    for name, opponent in opponents_of(agent).items():
        if name == "perfect":
            _, took = timed(lambda: solved(FOUR))
            print(f"  solve the whole game       : {took} (once a process)", flush=True)
        outcome, took = timed(lambda: exact_outcome(agent, opponent))
        print(f"  exact_outcome vs {name:<9} : {took}: {outcome_text(outcome)}", flush=True)
    (value, line), took = timed(lambda: worst_case(agent))
    found = "unbeatable" if line is None else \
        f"beaten in {len(line)} moves: {' '.join(f'{r},{c}' for r, c in line)}"
    print(f"  worst_case                 : {took}: value {value}, {found}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="tools/benchmarks/network_exact.py",
                        description=__doc__.splitlines()[0])
    parser.add_argument("--network", help="a 4x4 k=4 network file for X (default: train one)")
    parser.add_argument("--games", type=cli.count, default=DEFAULT_GAMES,
                        help=f"games to train (default {DEFAULT_GAMES:,})")
    parser.add_argument("--seed", type=int, default=1, help="the training seed (default 1)")
    args = parser.parse_args(argv)
    print(f"tools/benchmarks/network_exact.py: a 4x4 k=4 network as X, on {machine()}, "
          f"load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        path = args.network or str(Path(folder) / "x.pt")
        if args.network is None:
            print(f"  {train(path, args.games, args.seed)}", flush=True)
        measure(path)
    print(f"  load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
