"""Train a Nim AI by self-play, then play it in the terminal, or judge it against perfect play.

    python play.py                          # the course's: train(10000), then play(ai)
    python play.py --better --quiet --judge --play
                                            # (make nim) the project's training with a progress
                                            # line, the judge's report, then the game
    python play.py --seed 3 --quiet --judge            # the course's training, judged
    python play.py --better --piles 2 4 6 8 --games 100000 --quiet --judge

Everything it needs is in this folder (``nim.py``, ``better.py``, ``judge.py``), so the folder
runs on its own, copied anywhere.
"""

from __future__ import annotations

import argparse
import difflib
import math
import os
import random
import signal
import sys
from typing import Callable

from better import DEFAULT_PILES, course_train, train_better
from judge import MAX_JUDGED_POSITIONS, judge
from nim import NimAI, play, train

DEFAULT_GAMES = 10_000
MAX_GAMES = 10**9      # larger counts are typos, not plans
MAX_SEED = 2**32 - 1
MAX_PILES = 10
MAX_PILE_SIZE = 50
USAGE_ERROR = 2        # bad arguments or unusable input
INTERRUPTED = 130      # Ctrl-C (128 + SIGINT)


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line on stderr and exit status 2, and whose
    flags must be written in full (a mistyped one is answered with the close one)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        close = []
        if message.startswith("unrecognized arguments:"):
            close = [match for word in message.split(":", 1)[1].split() if word.startswith("-")
                     for match in difflib.get_close_matches(word.split("=")[0],
                                                            self._option_string_actions,
                                                            n=1, cutoff=0.75)]
        hint = f"; did you mean {close[0]}?" if close else ""
        fail(f"{self.prog}: error: {message}{hint} (see --help)")


def fail(message: str):
    """Print ``message`` as one line on stderr and exit with status 2."""
    print(" ".join(message.split()), file=sys.stderr)
    sys.exit(USAGE_ERROR)


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """An argument type: a whole number from ``low`` to ``high``, in ASCII digits (``int()`` would
    also read other scripts' digits)."""
    def parse(text: str) -> int:
        value = int(text) if text.isascii() and text.strip().lstrip("+-").isdigit() else None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"expected a whole number from {low:,} to {high:,}, got {text!r}")
        return value
    return parse


def build_parser() -> Parser:
    """The command line of ``play.py``."""
    parser = Parser(
        prog="play.py",
        description="Train a Nim AI by Q-learning in self-play (whoever takes the last object "
                    "loses), then play it in the terminal, or judge it against perfect play. "
                    "Without options: the course's play.py, train(10000) then play(ai).")
    parser.add_argument("--better", action="store_true",
                        help="the project's training (better.train_better: half of the games "
                             "from random positions, a move worth minus the opponent's best) "
                             "instead of the course's train")
    parser.add_argument("--games", type=whole_number(1, MAX_GAMES), default=DEFAULT_GAMES,
                        help=f"training games (default {DEFAULT_GAMES:,})")
    parser.add_argument("--seed", type=whole_number(0, MAX_SEED),
                        help="random.seed(N) before training, for a repeatable run")
    parser.add_argument("--quiet", action="store_true",
                        help="a progress line instead of a line per training game")
    parser.add_argument("--judge", action="store_true",
                        help="instead of playing, compare the trained AI with perfect play in "
                             "every position the game can reach")
    parser.add_argument("--play", action="store_true",
                        help="with --judge: play the game after the report")
    parser.add_argument("--human-first", action="store_true",
                        help="you move first (default: who starts is drawn at random)")
    parser.add_argument("--piles", type=whole_number(0, MAX_PILE_SIZE), nargs="+",
                        default=list(DEFAULT_PILES), metavar="N",
                        help="the starting piles of training and judging (default 1 3 5 7); "
                             "the game is the course's and always starts from 1 3 5 7, so other "
                             "piles need --judge without --play")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``play.py`` with ``argv`` (default: the command line); returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    piles = " ".join(map(str, args.piles))
    if len(args.piles) > MAX_PILES:
        parser.error(f"at most {MAX_PILES} piles, got {len(args.piles)}")
    if not any(args.piles):
        parser.error("at least one pile must hold an object")
    if tuple(args.piles) != DEFAULT_PILES and (args.play or not args.judge):
        parser.error(f"--piles {piles}: the game starts from 1 3 5 7, so other piles work "
                     "with --judge (without --play) only")
    if args.judge and math.prod(pile + 1 for pile in args.piles) > MAX_JUDGED_POSITIONS:
        parser.error(f"--judge works up to {MAX_JUDGED_POSITIONS:,} positions; "
                     f"piles {piles} have more")
    if args.seed is not None:
        random.seed(args.seed)
    ai = trained(args.better, args.games, args.piles, args.quiet)
    if args.judge:
        print(judge(ai, args.piles))
        if not args.play:
            return 0
    try:
        play(ai, human_player=0 if args.human_first else None, read_number=ask_again)
    except (EOFError, KeyboardInterrupt):  # Ctrl-D or Ctrl-C at a prompt: leave politely
        print("\nGame left unfinished. Goodbye!")
    return 0


def ask_again(prompt: str) -> int:
    """A whole number typed at ``prompt``; a typo is answered and asked again (the course's
    ``int(input())`` would end the game)."""
    while True:
        text = input(prompt)
        try:
            return int(text)
        except ValueError:
            print(f"{text.strip()!r} is not a whole number: type a number, then Enter.")


def trained(better: bool, games: int, piles: list[int], quiet: bool) -> NimAI:
    """The AI that ``games`` training games give: the project's training with ``better``, else
    the course's ``train`` itself (its loop from ``better.py`` when the piles or ``quiet`` need
    what ``train`` cannot do; it learns the same)."""
    if better:
        return train_better(games, initial=piles, quiet=quiet)
    if quiet or tuple(piles) != DEFAULT_PILES:
        return course_train(games, initial=piles, quiet=quiet)
    return train(games)


def stopped(signum: int, frame) -> None:
    """SIGTERM or SIGHUP: end as every script of the course does, one line and 128 + the signal
    (this folder runs on its own, so it does not use the repository's ``cli``)."""
    print(f"\nStopped by {signal.Signals(signum).name}.", file=sys.stderr)
    sys.exit(128 + signum)


if __name__ == "__main__":
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), stopped)
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("\nInterrupted.", file=sys.stderr)
        sys.exit(INTERRUPTED)
    except BrokenPipeError:   # the reader went away (e.g. `| head`): nothing left to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
    except NotImplementedError as error:   # the exercise's piece 5 not written yet: one line
        if not str(error).startswith("Exercise piece"):
            raise
        print("Not written yet (its comments say what it does; a hint: python check.py "
              f"--hint 5): {error}", file=sys.stderr)
        sys.exit(1)
