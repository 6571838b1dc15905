"""The value of perfect play on an m,n,k board, from the cache when it was solved before.

    python -m tictactoe_rl.boards.solve --board 4x4 --k 4      # draw
    python -m tictactoe_rl.boards.solve --board 4x4 --k 3      # win for X
    python -m tictactoe_rl.boards.solve --board 5x5            # k = 5, the shorter side

It prints the value of the empty board, where it came from (the cache file or a fresh solve, with
the positions searched), and the value after each first move of X, laid out as the board.
"""

from __future__ import annotations

import argparse
import sys
import time

from tqdm import tqdm

from tictactoe_rl import cli
from tictactoe_rl.boards.cache import CACHE_FOLDER, Solution, cache_path, solve_board
from tictactoe_rl.boards.flags import add_board_flags, board_from
from tictactoe_rl.geometry import BoardShape

VALUE_WORDS = {1: "win for X", 0: "draw", -1: "win for O"}
_MOVE_LETTERS = {1: "W", 0: "D", -1: "L"}  # from X's view


def describe(solution: Solution) -> list[str]:
    """The lines ``main`` prints for ``solution``: its value, then its first moves as a board."""
    shape = solution.shape
    lines = [f"{shape.name}: {VALUE_WORDS[solution.value]} under perfect play"]
    lines.append("X's first moves (W wins, D draws, L loses for X):")
    for row in range(shape.rows):
        lines.append("  " + " ".join(_MOVE_LETTERS[solution.move_values[shape.index(row, col)]]
                                     for col in range(shape.cols)))
    return lines


def board_report(shape: BoardShape, cache_folder: str) -> list[str]:
    """Solve ``shape`` (or read it from ``cache_folder``) with a progress bar while it solves;
    return the lines to print: the value, the first moves, and where the answer came from. Notes
    about a refused cache file go to stderr."""
    start = time.perf_counter()
    bars = []

    def progress(nodes: int) -> None:
        if not nodes:     # no "0.00 positions" line: the bar starts with the first count
            return
        if not bars:  # the bar appears only when the board is solved, not read from the cache
            # and only once solving takes a second: a quick solve leaves no line behind
            bars.append(tqdm(desc=f"solving {shape.name}", unit=" positions", unit_scale=True,
                             mininterval=0.5, delay=1, leave=False))
        bars[0].update(nodes - bars[0].n)

    try:
        solution = solve_board(shape, cache_folder, progress)
    finally:
        for bar in bars:
            bar.close()
    seconds = time.perf_counter() - start
    for note in solution.notes:
        print(note, file=sys.stderr)
    where = cache_path(shape, cache_folder)
    if solution.from_cache:
        origin = (f"from the cache {where} in {seconds * 1000:.1f} ms "
                  f"(solved with {solution.nodes:,} positions searched)")
    else:
        origin = f"solved in {seconds:.2f} s, {solution.nodes:,} positions searched; kept in {where}"
    return [*describe(solution), origin]


def add_cache_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--cache FOLDER``, where solved boards are kept."""
    parser.add_argument("--cache", type=cli.path, default=CACHE_FOLDER, metavar="FOLDER",
                        help="where solved boards are kept (default Data/solved)")


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="python -m tictactoe_rl.boards.solve", description=__doc__.splitlines()[0])
    add_board_flags(parser)
    add_cache_flag(parser)
    args = parser.parse_args(argv)
    print("\n".join(board_report(board_from(args), args.cache)))
    return 0


if __name__ == "__main__":
    cli.run(main)
