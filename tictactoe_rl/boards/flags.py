"""The command line's ``--board ROWSxCOLS`` and ``--k K``, one wording for every script."""

from __future__ import annotations

import argparse

from tictactoe_rl import cli
from tictactoe_rl.geometry import BoardShape


def add_board_flags(parser: argparse.ArgumentParser, default: str = "3x3") -> None:
    """Add ``--board`` (``default`` when not given) and ``--k`` to ``parser``; ``board_from``
    reads them back."""
    parser.add_argument("--board", default=default, metavar="ROWSxCOLS",
                        help=f"the board, 1 to 5 cells a side (default {default})")
    parser.add_argument("--k", default=None, metavar="K",
                        help="marks in a row that win (default: the board's shorter side)")


def board_from(args: argparse.Namespace) -> BoardShape:
    """The board that ``args.board`` and ``args.k`` name; bad text ends the script with one
    line and status 2."""
    try:
        return BoardShape.parse(args.board, args.k)
    except ValueError as error:
        cli.fail(f"error: {error}")
