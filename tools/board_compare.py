"""The table against the network on a bigger board, at equal games, and the table trained until
no line of play beats it: where each runs out.

The trainers run as a user runs them, each in a process of its own, with the same board and seed,
the first two for the same number of games, and their own default parameters otherwise:

    python MC_Trainer.py  --board 4x4 --k 4 --epochs 200000 --seed 1 --plot ...
    python DQN_Trainer.py --board 4x4 --k 4 --epochs 200000 --seed 1 --plot ...
    python Adversarial_Trainer.py --board 4x4 --k 4 --seed 1     # until proven

Then the saved players are measured alike, exactly: every game each can play against ``random``,
``advanced`` and the perfect player (``tictactoe_rl.exact.opponents``; perfect play draws 4x4 k=4, so
every loss to it is the learner's mistake); what each keeps (the table's
entries, the network's weights, the files' sizes); its training time and the process's peak
memory. ``--plot`` puts the first two's learning curves side by side in one picture.

    python tools/board_compare.py                        # 4x4 k=4, 200,000 games each
    python tools/board_compare.py --epochs 20000 --board 3x4 --k 3 --plot compare.png
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (the project root is on the path only now)
from tictactoe_rl.boards.flags import add_board_flags, board_from  # noqa: E402
from tictactoe_rl.exact.opponents import exact_results  # noqa: E402
from tictactoe_rl.geometry import BoardShape  # noqa: E402
from tictactoe_rl.players.specs import make_agent  # noqa: E402
from tictactoe_rl.training.options import plot_path  # noqa: E402
from TicTacToe import TicTacToe  # noqa: E402

TRAINED = re.compile(r"Trained ([\d,]+) episodes in ([\d.]+) s"
                     r"|Proven: no line of play beats [XO]; ([\d,]+) games, ([\d.]+) s")
PEAK = re.compile(r"peak memory (\d+) KiB")
# Runs a trainer script as `python SCRIPT ARGS` would, then says the process's peak memory (at
# exit: a script ends through cli.run, which runs the exit handlers and then leaves at once).
CHILD = ("import atexit, resource, runpy, sys\n"
         "script, sys.argv = sys.argv[1], sys.argv[1:]\n"
         "atexit.register(lambda: print('peak memory '\n"
         "                f'{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss} KiB',"
         " file=sys.stderr))\n"
         "runpy.run_path(script, run_name='__main__')\n")
# (title, script, file, whether it trains for --epochs games and draws a learning curve)
PLAYERS = (("Q-table (MC_Trainer.py)", "MC_Trainer.py", "table.pth", True),
           ("network (DQN_Trainer.py)", "DQN_Trainer.py", "network.pt", True),
           ("proven Q-table (Adversarial_Trainer.py)", "Adversarial_Trainer.py", "proven.pth",
            False))


def train(script: str, args: list[str]) -> tuple[float, int]:
    """Run one trainer to the end; its training seconds and peak memory in bytes. A failing run
    stops everything with the trainer's own last line."""
    result = subprocess.run([sys.executable, "-c", CHILD, script, *args], cwd=ROOT,
                            capture_output=True, text=True)
    if result.returncode != 0:
        last = ([line for line in (result.stdout + result.stderr).splitlines()
                 if line.strip() and not PEAK.search(line)] or ["(no message)"])[-1]
        cli.fail(f"{script} failed (status {result.returncode}): {last}")
    trained, peak = TRAINED.search(result.stdout), PEAK.search(result.stderr)
    return float(trained.group(2) or trained.group(4)), int(peak.group(1)) * 1024


def kept(path: str, env: TicTacToe) -> str:
    """What the saved player holds: the table's entries, or the network's weights."""
    agent = make_agent(path, 1, env)
    if path.endswith(".pth"):
        return f"{len(agent.Q):,} entries"
    return f"{sum(p.numel() for p in agent.network.parameters()):,} weights"


def side_by_side(pictures: list[str], titles: list[str], path: str) -> None:
    """The learning-curve pictures next to each other, in one file (its folder made if
    ``plot_path`` allowed it)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import image, pyplot

    figure, axes = pyplot.subplots(1, len(pictures), figsize=(13 * len(pictures), 8))
    for axis, picture, title in zip(axes, pictures, titles):
        axis.imshow(image.imread(picture))
        axis.set_title(title, fontsize=18, pad=14)
        axis.axis("off")
    try:
        figure.savefig(path, dpi=60, bbox_inches="tight")
    except OSError as error:    # the disk filled up, the folder went: the table is printed
        cli.fail(f"error: cannot draw {cli.shown(path)} ({error.strerror or error})")
    finally:
        pyplot.close(figure)


def print_table(board: BoardShape, args: argparse.Namespace, rows: dict[str, list[str]],
                short: list[str]) -> None:
    """The comparison as a Markdown table, then each player's losses in one line."""
    print(f"{board.name}, X, seed {args.seed}: the first two trained against random for "
          f"{args.epochs:,} games each, the third until proven; measured exactly against each "
          f"opponent:\n")
    print("| | " + " | ".join(title for title, *_ in PLAYERS) + " |")
    print("|" + " --- |" * (len(PLAYERS) + 1))
    names = {"training": "training", "keeps": "what it keeps", "random": "vs random",
             "advanced": "vs advanced", "perfect": "vs the perfect player"}
    for key, cells in rows.items():
        if cells:
            print(f"| {names[key]} | " + " | ".join(cells) + " |")
    print("\nIn short, the share of games lost to random, advanced and the perfect player:")
    print("\n".join(short))


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="tools/board_compare.py", description=__doc__.split("\n\n")[0])
    add_board_flags(parser, default="4x4")
    parser.add_argument("--epochs", type=cli.count, default=200_000,
                        help="games each trainer plays (default: 200,000)")
    parser.add_argument("--seed", type=cli.seed, default=1, help="random seed (default: 1)")
    parser.add_argument("--plot", type=plot_path, default=None, metavar="PATH.png",
                        help="draw the two learning curves side by side into this file (checked "
                             "before any training, as the trainers check theirs)")
    args = parser.parse_args(argv)
    board = board_from(args)
    env = TicTacToe(board=board)
    rows = {"training": [], "keeps": [], "random": [], "advanced": [], "perfect": []}
    short = []    # each player's share of games lost to each opponent, and what it keeps
    with tempfile.TemporaryDirectory() as folder:
        curves = []
        for title, script, name, for_epochs in PLAYERS:
            out, curve = os.path.join(folder, name), os.path.join(folder, name + ".png")
            drawn = for_epochs and args.plot
            seconds, peak = train(script, [
                "--board", f"{board.rows}x{board.cols}", "--k", str(board.k), "--seed",
                str(args.seed), "--out", out]
                + (["--epochs", str(args.epochs)] if for_epochs else ["--no-progress"])
                + (["--plot", curve] if drawn else []))
            curves += [curve] if drawn else []
            size = os.path.getsize(out)
            rows["training"].append(f"{seconds:.0f} s, peak memory {peak / 2**20:,.0f} MB")
            keeps = kept(out, env)
            rows["keeps"].append(f"{keeps}, a file of {size / 2**20:,.1f} MB")
            results = exact_results(make_agent(out, 1, env))
            for opponent, (wins, losses, draws) in results.items():
                rows[opponent].append(f"wins {wins:.2%}, losses {losses:.2%}, draws {draws:.2%}")
            short.append(f"- {title}: " + " / ".join(f"{losses:.2%}"
                                                     for _, losses, _ in results.values())
                         + f", keeping {keeps}")
        # the table first: hours of training are never lost to a picture that fails
        print_table(board, args, rows, short)
        if args.plot:
            side_by_side(curves, [title for title, *_, for_epochs in PLAYERS if for_epochs],
                         args.plot)
            print(f"\nThe learning curves side by side: {cli.shown(args.plot)}")
    return 0


if __name__ == "__main__":
    cli.run(main)
