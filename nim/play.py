"""Train a Nim AI by self-play, then play it in the terminal, or judge it against perfect play.

    python nim/play.py                       # 10,000 training games, then a game against you
    python nim/play.py --quiet --judge       # a progress bar instead of 10,000 lines, then the
                                             # exact report on every position
    python nim/play.py --piles 2 4 6 8 --games 100000 --quiet --seed 1
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # the project root, for cli.py

import cli  # noqa: E402  (needs the path above)
from judge import MAX_JUDGED_POSITIONS, judge  # noqa: E402
from nim import DEFAULT_PILES, play, train  # noqa: E402

DEFAULT_GAMES = 10_000
MAX_PILES = 10
MAX_PILE_SIZE = 50


def pile_size(text: str) -> int:
    """A pile size for ``--piles``: a whole number from 0 to ``MAX_PILE_SIZE``."""
    try:
        value = int(text) if text.isascii() else None
    except ValueError:
        value = None
    if value is None or not 0 <= value <= MAX_PILE_SIZE:
        raise argparse.ArgumentTypeError(
            f"a pile size is a whole number from 0 to {MAX_PILE_SIZE}, got {text!r}")
    return value


def build_parser() -> cli.Parser:
    """The command line of ``play.py``; its errors are one line and exit status 2."""
    parser = cli.Parser(
        prog="play.py",
        description="Train a Nim AI by Q-learning in self-play (whoever takes the last object "
                    "loses), then play it in the terminal, or judge it against perfect play.")
    parser.add_argument("--games", type=cli.count, default=DEFAULT_GAMES,
                        help=f"training games (default {DEFAULT_GAMES:,})")
    parser.add_argument("--piles", type=pile_size, nargs="+", default=list(DEFAULT_PILES),
                        metavar="N", help="the starting piles (default: 1 3 5 7)")
    parser.add_argument("--seed", type=cli.seed, help="seed Python's random module first, "
                        "for a repeatable run (the same as random.seed(N) before train)")
    parser.add_argument("--human-first", action="store_true",
                        help="you move first (default: who starts is drawn at random)")
    parser.add_argument("--quiet", action="store_true",
                        help="a progress bar instead of a line per training game")
    parser.add_argument("--judge", action="store_true",
                        help="instead of playing, compare the trained AI with perfect play in "
                             "every position the game can reach")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``play.py`` with ``argv`` (default: the command line); returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if len(args.piles) > MAX_PILES:
        parser.error(f"at most {MAX_PILES} piles, got {len(args.piles)}")
    if not any(args.piles):
        parser.error("at least one pile must hold an object")
    if args.judge and math.prod(pile + 1 for pile in args.piles) > MAX_JUDGED_POSITIONS:
        parser.error(f"--judge works up to {MAX_JUDGED_POSITIONS:,} positions; "
                     f"piles {' '.join(map(str, args.piles))} have more")
    if args.seed is not None:
        random.seed(args.seed)
    ai = train(args.games, initial=args.piles, quiet=args.quiet)
    if args.judge:
        print(judge(ai, args.piles))
    else:
        play(ai, human_player=0 if args.human_first else None, initial=args.piles)
    return 0


if __name__ == "__main__":
    cli.run(main)
