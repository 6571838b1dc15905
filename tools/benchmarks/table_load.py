"""Loading a 4x4 k=4 table and network: the seconds, before and after tables became lazy.

    python tools/benchmarks/table_load.py                   # 1,500,000 entries (24 MB), 3 runs
    python tools/benchmarks/table_load.py --entries 16000000 --no-before   # the largest file read
    python tools/benchmarks/table_load.py --runs 5

The table is made, not trained: ``--entries`` distinct pairs of a position and a move, taken
from random games of 4x4 k=4 (X to move, the game still going, a value in [-1, 1]) -- the size of
a 200,000-game Monte Carlo table, with more distinct positions than a trained one has (which only
makes a position object per position dearer). It is written twice: by ``save_board_table``
(entries sorted by position, then move) and in the order a dict gave them (how tables were
written before, and the order a table from elsewhere may have). Printed, as medians: the seconds
of ``load_table`` on each (and the memory it takes, at its peak and held after, against the
file's size); of the load as it was before (the same archive read and every entry
checked, then the per-entry popcount and a dict of position objects, kept here for the
comparison only); the microseconds of a greedy move from either table (the first time a
position is asked for, and again, as the dict's positions were all made by then); the seconds of
``load_network`` on a 4x4 network saved as ``DQN_Trainer.py`` saves one. And the seconds to
refuse a file of four million copies of one entry (it loaded before, as one entry).
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import tracemalloc
from pathlib import Path
from time import perf_counter, process_time

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)
from AI_Agent import greedy_action  # noqa: E402
from tictactoe_rl.geometry import BoardShape  # noqa: E402
from tictactoe_rl.positions import intern  # noqa: E402
from State import X  # noqa: E402
from tictactoe_rl.tables import board_files  # noqa: E402
from tictactoe_rl.tables.board_table import CELL_BITS, MOVE_BITS, BoardTable, entry_keys  # noqa: E402
from tictactoe_rl.tables.files import TableError, load_table, save_board_table  # noqa: E402

FOUR = BoardShape(4, 4, 4)
DEFAULT_ENTRIES = 1_500_000
DEFAULT_RUNS = 3
REPEATS = 4_000_000   # a file of repeats: one entry, four million times


def synthetic_columns(shape: BoardShape, entries: int, seed: int = 1) -> tuple[np.ndarray, ...]:
    """``(x_bits, o_bits, moves, values)`` of ``entries`` distinct entries an X table of
    ``shape`` may hold: the positions and moves of random games (played some 500,000 at once
    with numpy), X to move and no line yet, in a random order."""
    rng = np.random.default_rng(seed)
    masks = np.array(shape.line_masks, dtype=np.int64)
    found = np.zeros(0, np.int64)     # entry keys (tictactoe_rl.tables.board_table.entry_keys)
    while len(found) < entries:
        games = min(max(entries // 4, 1000), 1 << 19)
        order = np.argsort(rng.random((games, shape.size)), axis=1)   # each game's moves
        marks = [np.zeros(games, np.int64), np.zeros(games, np.int64)]   # X's, O's
        going, seen = np.ones(games, bool), [found]
        for ply in range(shape.size):
            move, mover = order[:, ply], ply % 2
            if mover == 0:
                seen.append(entry_keys(marks[0][going], marks[1][going], move[going]))
            marks[mover] = np.where(going, marks[mover] | (1 << move), marks[mover])
            going &= ~((marks[mover][:, None] & masks) == masks).any(axis=1)
        found = np.unique(np.concatenate(seen))
    chosen = rng.choice(found, entries, replace=False)
    return ((chosen >> (CELL_BITS + MOVE_BITS)).astype(np.uint32),
            ((chosen >> MOVE_BITS) & ((1 << CELL_BITS) - 1)).astype(np.uint32),
            (chosen & ((1 << MOVE_BITS) - 1)).astype(np.uint8), rng.uniform(-1.0, 1.0, entries))


def write_unsorted(path: str, shape: BoardShape, columns: tuple[np.ndarray, ...]) -> None:
    """The file as the writer made it before entries were sorted: in the table's own order."""
    with open(path, "wb") as stream:
        np.savez(stream, format=np.array(board_files.FORMAT_NAME),
                 version=np.array(board_files.FORMAT_VERSION), rows=np.array(shape.rows),
                 cols=np.array(shape.cols), k=np.array(shape.k), side=np.array(X),
                 meta=np.array(json.dumps({"episodes_done": 200_000})),
                 x_bits=columns[0], o_bits=columns[1], actions=columns[2], values=columns[3])


def load_before(path: str, shape: BoardShape) -> dict:
    """The load as it was: the archive read and every entry checked (a popcount per entry in
    Python), then one position object and one dict entry per entry."""
    arrays = board_files._arrays(Path(path).read_bytes())
    x, o = arrays["x_bits"].astype(np.int64), arrays["o_bits"].astype(np.int64)
    counts = [np.array([bin(v).count("1") for v in bits.tolist()]) for bits in (x, o)]
    assert not (counts[0] - counts[1]).any()
    states, Q = {}, {}
    for xb, ob, move, value in zip(x.tolist(), o.tolist(), arrays["actions"].tolist(),
                                   arrays["values"].tolist()):
        state = states.get((xb, ob))
        if state is None:
            state = states[xb, ob] = intern(shape, shape.decode((xb, ob)), X)
        Q[(state, shape.cells[move])] = value
    return Q


def median_seconds(work, runs: int) -> tuple[str, object]:
    """``("W s wall (C s CPU)", result)``: the medians of ``runs`` calls of ``work()`` (the CPU
    seconds say what the work costs when other processes share the machine)."""
    walls, cpus, result = [], [], None
    for _ in range(runs):
        wall, cpu = perf_counter(), process_time()
        result = work()
        walls.append(perf_counter() - wall)
        cpus.append(process_time() - cpu)
    return (f"{statistics.median(walls):7.3f} s wall ({statistics.median(cpus):6.3f} s CPU)",
            result)


def traced_bytes(work) -> tuple[int, int]:
    """``(peak, held after)``: the bytes Python and numpy held during and after ``work()``
    (its result kept), above what they held before."""
    tracemalloc.start()
    try:
        result = work()
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return peak, held


def greedy_microseconds(Q, positions: list) -> float:
    """The mean microseconds of a greedy move in each of ``positions``."""
    start = perf_counter()
    for state in positions:
        greedy_action(Q, state)
    return (perf_counter() - start) / len(positions) * 1e6


def repeats_line(folder: str, copies: int) -> str:
    """The seconds to refuse a file of ``copies`` copies of one entry (loaded as one entry once)."""
    path = str(Path(folder) / "repeats.pth")
    one = tuple(np.repeat(column[:1], copies) for column in synthetic_columns(FOUR, 1))
    write_unsorted(path, FOUR, one)
    start = perf_counter()
    try:
        load_table(path, X, FOUR)
    except TableError as error:
        message = str(error).removeprefix(f"{path}: ")
    else:
        raise AssertionError("a file of repeated entries was loaded")
    return (f"a file of {copies:,} copies of one entry ({Path(path).stat().st_size:,} bytes): "
            f"refused in {perf_counter() - start:.2f} s: {message}")


def network_line(folder: str, runs: int) -> str:
    started = perf_counter()
    import torch  # noqa: F401  (timed: the first network a process loads pays for it)
    imported = perf_counter() - started
    from tictactoe_rl.neural.files import load_network, save_network
    from tictactoe_rl.neural.network import QNetwork
    path = str(Path(folder) / "net.pt")
    save_network(path, QNetwork(board=FOUR), (X,), {"episodes_done": 200_000})
    seconds, _ = median_seconds(lambda: load_network(path, side=X, board=FOUR), runs)
    return (f"load_network, a 4x4 k=4 network ({Path(path).stat().st_size:,} bytes): "
            f"{seconds} (after importing torch, {imported:.2f} s once a process)")


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="tools/benchmarks/table_load.py",
                        description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=cli.count, default=DEFAULT_ENTRIES,
                        help=f"entries of the table (default {DEFAULT_ENTRIES:,})")
    parser.add_argument("--runs", type=cli.count, default=DEFAULT_RUNS,
                        help=f"loads of each kind; medians are printed (default {DEFAULT_RUNS})")
    parser.add_argument("--no-before", action="store_true",
                        help="skip the load as it was before (some 20 s per million entries)")
    args = parser.parse_args(argv)
    start = perf_counter()
    columns = synthetic_columns(FOUR, args.entries)
    positions = len(np.unique(entry_keys(columns[0], columns[1], np.zeros(1, np.uint8))))
    with tempfile.TemporaryDirectory() as folder:
        sorted_path, unsorted_path = str(Path(folder) / "s.pth"), str(Path(folder) / "u.pth")
        save_board_table(sorted_path, BoardTable(FOUR, X, columns), X,
                         {"episodes_done": 200_000}, FOUR)
        write_unsorted(unsorted_path, FOUR, columns)
        size = Path(sorted_path).stat().st_size
        print(f"a 4x4 k=4 X table of {args.entries:,} entries, {positions:,} positions, "
              f"{size:,} bytes (made in {perf_counter() - start:.1f} s); medians of "
              f"{args.runs} runs:", flush=True)
        for name, path in (("sorted (as saved now)", sorted_path),
                           ("unsorted (as saved before)", unsorted_path)):
            seconds, (Q, _, _) = median_seconds(lambda: load_table(path, X, FOUR), args.runs)
            peak, held = traced_bytes(lambda: load_table(path, X, FOUR))
            print(f"  load_table, {name:<27}: {seconds}; memory at its peak "
                  f"{peak / size:.1f}x the file, held after {held / size:.1f}x", flush=True)
        wanted = 10_000
        picks = np.random.default_rng(2).choice(len(columns[0]), wanted, replace=False)
        states = [intern(FOUR, FOUR.decode((int(columns[0][i]), int(columns[1][i]))), X)
                  for i in picks]
        first, again = greedy_microseconds(Q, states), greedy_microseconds(Q, states)
        print(f"  a greedy move from the loaded table in {wanted:,} positions: {first:.1f} us "
              f"each the first time (the position and its row read), {again:.1f} us again",
              flush=True)
        if not args.no_before:
            seconds, before = median_seconds(lambda: load_before(unsorted_path, FOUR), args.runs)
            assert len(before) == len(Q) and all(before[key] == Q[key] for key in
                                                 list(before)[:100_000]), "the two loads differ"
            print(f"  the load as it was before (a dict of position objects): {seconds}; "
                  f"a greedy move {greedy_microseconds(before, states):.1f} us each", flush=True)
            del before
        print(repeats_line(folder, REPEATS), flush=True)
        print(network_line(folder, args.runs))
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
