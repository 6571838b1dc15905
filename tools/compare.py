"""Compare the table trainers at equal episodes (every ``*_Trainer.py`` with a ``TRAINER``:
Monte Carlo, SARSA, Q-learning, Expected SARSA, ...), each against an opponent (X and O) and by
self-play.

Every trainer runs as a user runs it (``python SARSA_Trainer.py ...``), one after another, with
the same number of episodes and the same seed, and each uses its own default parameters. The
training seconds are the ones the trainer records in its table (the training loop only, without
starting Python). Then every table is measured exactly: its win / loss / draw probabilities
against ``random`` and ``advanced`` and whether any opponent can beat it.

    python tools/compare.py                   # 100,000 episodes per run, about a minute
    python tools/compare.py --epochs 20000 --opponent advanced
    python tools/compare.py --bench           # training speed per episode, relative to MC
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (the project root is on the path only now)
from tictactoe_rl.players.specs import make_agent  # noqa: E402
from tictactoe_rl.training.curves import exact_results  # noqa: E402
from tictactoe_rl.tables.files import load_table  # noqa: E402
from tictactoe_rl.exact.worst import is_unbeatable  # noqa: E402
from State import symbol  # noqa: E402
from tictactoe_rl.training.options import Defaults, table_paths  # noqa: E402
from tictactoe_rl.training.registry import trainers  # noqa: E402
from tools.benchmarks.machine import machine  # noqa: E402

# The trainers' timing line: "Trained 100,000 episodes in 3.2 s (31,250 episodes/s)".
TRAINED = re.compile(r"Trained ([\d,]+) episodes in [\d.]+ s \(([\d,]+) episodes/s\)")
TRAINERS = tuple((trainer.algorithm, trainer.prog) for trainer in trainers())   # the registry's
DEFAULT_EPOCHS = 100_000
DEFAULT_SEED = 1
BENCH_REPEATS = 3


def train(script: str, out: str, epochs: int, seed: int, opponent: str,
          side: str = "X") -> tuple[list[str], float]:
    """Run one trainer script to the end; return the table files it wrote (two for self-play)
    and the training seconds it printed (tables hold no clock time). A failing run stops
    everything with the trainer's own error line."""
    command = [sys.executable, script, "--epochs", str(epochs), "--seed", str(seed),
               "--opponent", opponent, "--side", side, "--out", out]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["(no message)"])[-1]
        cli.fail(f"{script} failed (status {result.returncode}): {last}")
    said = TRAINED.search(result.stdout)
    seconds = (int(said.group(1).replace(",", "")) / max(1, int(said.group(2).replace(",", "")))
               if said else float("nan"))
    return table_paths(out, 2 if opponent == "self" else 1), seconds


def measure(path: str, seconds: float) -> dict:
    """Training seconds, exact results against random and advanced, and unbeatability of a table."""
    side = load_table(path)[1]
    agent = make_agent(path, side)
    return {"side": side, "seconds": seconds,
            "results": exact_results(agent), "unbeatable": is_unbeatable(agent)}


def percent(results: tuple[float, float, float]) -> str:
    """``win / loss / draw`` in per cent with one decimal."""
    return " / ".join(f"{100 * value:.1f}" for value in results)


def comparison(epochs: int, seed: int, opponent: str) -> str:
    """Train every trainer on X and O against ``opponent`` and by self-play; the Markdown table."""
    rows = []
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        for name, script in TRAINERS:
            runs = [(f"{opponent}", side) for side in ("X", "O")] + [("self-play", "X")]
            for against, side in runs:
                print(f"training {name}: {side if against != 'self-play' else 'X and O'} "
                      f"against {against}, {epochs:,} episodes ...", file=sys.stderr, flush=True)
                out = os.path.join(folder, f"{name}-{against}-{side}.pth")
                spec = "self" if against == "self-play" else opponent
                paths, seconds = train(script, out, epochs, seed, spec, side)
                for path in paths:
                    rows.append((name, against, measure(path, seconds)))
    lines = [f"{epochs:,} episodes per run, seed {seed}; exact results of the greedy tables "
             f"(win / loss / draw, %); training seconds on {machine()}, load average "
             f"{load_before:.1f} before and {os.getloadavg()[0]:.1f} after", "",
             "| trainer | trained against | table | training | vs random | vs advanced "
             "| unbeatable |",
             "| --- | --- | --- | ---: | --- | --- | --- |"]
    for name, against, m in rows:
        lines.append(f"| {name} | {against} | {symbol(m['side'])} | {m['seconds']:.1f} s "
                     f"| {percent(m['results']['random'])} | {percent(m['results']['advanced'])} "
                     f"| {'yes' if m['unbeatable'] else 'no'} |")
    rates = ", ".join(f"{name} {load_defaults(script).self_play.get('alpha', '-')}"
                      for name, script in TRAINERS)
    lines.append("")
    lines.append("Self-play trains the X and the O table in one run (both rows show its time), "
                 f"with each trainer's self-play learning rate ({rates}).")
    return "\n".join(lines)


def load_defaults(script: str) -> Defaults:
    """The defaults of a trainer script: those of its ``TRAINER``, which every trainer file has."""
    return importlib.import_module(script[:-len(".py")]).TRAINER.defaults


def bench_trainers(epochs: int = DEFAULT_EPOCHS, repeats: int = BENCH_REPEATS,
                   seed: int = DEFAULT_SEED) -> dict[str, float]:
    """Training speed of every trainer (X against random, ``epochs`` episodes): the best of
    ``repeats`` runs, taken in turn so that a busy machine slows all of them alike.
    Returns ``{trainer name: episodes per second}``."""
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(repeats):
            for name, script in TRAINERS:
                out = os.path.join(folder, f"{name}.pth")
                _, seconds = train(script, out, epochs, seed, "random")
                best[name] = max(best.get(name, 0.0), epochs / seconds)
    return best


def speed_report(speeds: dict[str, float]) -> str:
    """Episodes per second of each trainer and its time per episode relative to MC."""
    reference = speeds["MC"]
    return "\n".join(f"{name:<11} {rate:>9,.0f} episodes/s   {reference / rate:.2f}x MC's time "
                     "per episode" for name, rate in speeds.items())


def main(argv: list[str] | None = None) -> int:
    """The command line: the comparison table, or with ``--bench`` the speed report."""
    parser = cli.Parser(prog="compare.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=cli.count, default=DEFAULT_EPOCHS,
                        help=f"episodes per training run (default: {DEFAULT_EPOCHS:,})")
    parser.add_argument("--seed", type=cli.seed, default=DEFAULT_SEED,
                        help=f"the seed of every run (default: {DEFAULT_SEED})")
    parser.add_argument("--opponent", default="random", metavar="SPEC",
                        help="whom the non-self-play runs train against (default: random)")
    parser.add_argument("--bench", action="store_true",
                        help=f"measure training speed instead (best of {BENCH_REPEATS} runs each)")
    args = parser.parse_args(argv)
    if args.bench:
        print(f"training speed, X against random, {args.epochs:,} episodes, "
              f"best of {BENCH_REPEATS}:")
        print(speed_report(bench_trainers(args.epochs, BENCH_REPEATS, args.seed)))
    else:
        print(comparison(args.epochs, args.seed, args.opponent))
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
