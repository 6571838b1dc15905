"""Solved boards kept on disk: the value of perfect play of each board is worked out once.

``solve_board(shape)`` returns the ``Solution`` of a board: the value of the empty board and of
each first move, from the cache file ``Data/solved/ROWSxCOLS_kK.json`` when it holds a good one,
else from the solver (then written there atomically). A file is used only if it is exactly what
this module writes for that board, its checksum matches and its values agree with each other;
anything else is refused with a one-line note and the board is solved again (and the file
replaced). A cache that cannot be written costs a note, never the answer.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, replace

from tictactoe_rl import cli
from tictactoe_rl.geometry import BoardShape
from tictactoe_rl.boards.solver import Solver
from tictactoe_rl.tables.files import write_atomically

CACHE_FOLDER = os.path.join(cli.REPOSITORY, "Data", "solved")
FORMAT_NAME = "mnk-perfect-play"
FORMAT_VERSION = 1
MAX_CACHE_BYTES = 64 * 1024  # a solution is a few hundred bytes; a larger file is not one
_FIELDS = ("format", "version", "rows", "cols", "k", "value", "move_values", "nodes")


@dataclass(frozen=True)
class Solution:
    """What perfect play gives on ``shape``: ``value`` of the empty board and ``move_values``
    (per flat cell: the value after X's first move there), all from X's view (1 win, 0 draw,
    -1 loss); ``nodes``, the positions the solver searched to find them; ``from_cache``, whether
    they were read from disk; ``notes``, one line per cache problem met on the way."""

    shape: BoardShape
    value: int
    move_values: tuple[int, ...]
    nodes: int
    from_cache: bool
    notes: tuple[str, ...] = ()


def cache_path(shape: BoardShape, folder: str = CACHE_FOLDER) -> str:
    """Where the solution of ``shape`` is kept in ``folder``."""
    return os.path.join(folder, f"{shape.rows}x{shape.cols}_k{shape.k}.json")


def solve_board(shape: BoardShape, folder: str = CACHE_FOLDER,
                progress: Callable[[int], None] | None = None) -> Solution:
    """The ``Solution`` of ``shape``: read from ``folder``'s cache file when it holds a good one,
    else computed and saved there. While it computes, ``progress(nodes)`` is called with 0 at the
    start and then every ``PROGRESS_EVERY`` positions searched."""
    path = cache_path(shape, folder)
    notes = []
    try:
        return _read(path, shape)
    except (FileNotFoundError, NotADirectoryError):  # no file there (yet): nothing to refuse
        pass
    except (OSError, ValueError) as problem:
        notes.append(f"{cli.shown(path)}: refused the cached solution ({_reason(problem)}); solving again")
    if progress is not None:
        progress(0)
    solver = Solver(shape, progress)
    value = solver.value()
    moves = solver.move_values()
    solution = Solution(shape, value, tuple(moves[cell] for cell in range(shape.size)),
                        solver.nodes, from_cache=False)
    try:
        _write(path, solution)
    except OSError as problem:
        notes.append(f"{cli.shown(path)}: could not keep the solution ({_reason(problem)})")
    return replace(solution, notes=tuple(notes))


def _record(solution: Solution) -> dict:
    shape = solution.shape
    return {"format": FORMAT_NAME, "version": FORMAT_VERSION, "rows": shape.rows,
            "cols": shape.cols, "k": shape.k, "value": solution.value,
            "move_values": list(solution.move_values), "nodes": solution.nodes}


def _checksum(record: dict) -> str:
    # Over a fixed spelling of the record, so that any changed value changes the sum.
    text = json.dumps([record[name] for name in _FIELDS], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _write(path: str, solution: Solution) -> None:
    record = _record(solution)
    record["checksum"] = _checksum(record)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    write_atomically(path, folder, (json.dumps(record) + "\n").encode())


def _read(path: str, shape: BoardShape) -> Solution:
    """The solution kept at ``path``; a ``ValueError`` saying what is wrong with it if it is not
    exactly a good solution of ``shape`` (``FileNotFoundError`` if there is no file)."""
    with open(path, "rb") as stream:
        data = stream.read(MAX_CACHE_BYTES + 1)
    if len(data) > MAX_CACHE_BYTES:
        raise ValueError(f"larger than {MAX_CACHE_BYTES:,} bytes")
    try:
        record = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ValueError("not a JSON file (damaged or cut short)") from None
    if not isinstance(record, dict) or set(record) != {*_FIELDS, "checksum"}:
        raise ValueError("not a solution file of this version")
    if (record["format"], record["version"]) != (FORMAT_NAME, FORMAT_VERSION):
        raise ValueError("not a solution file of this version")
    if (record["rows"], record["cols"], record["k"]) != (shape.rows, shape.cols, shape.k):
        raise ValueError(f"it is for another board, not {shape.name}")
    if record["checksum"] != _checksum(record):
        raise ValueError("its checksum does not match its contents")
    value, moves, nodes = record["value"], record["move_values"], record["nodes"]
    if not (_is_value(value) and isinstance(moves, list) and len(moves) == shape.size
            and all(map(_is_value, moves)) and type(nodes) is int and nodes > 0):
        raise ValueError("its values are not results of a game")
    if max(moves) != value:  # X moves first: the board is worth X's best first move
        raise ValueError("its value disagrees with its first moves' values")
    return Solution(shape, value, tuple(moves), nodes, from_cache=True)


def _is_value(value) -> bool:
    return type(value) is int and value in (-1, 0, 1)


def _reason(problem: Exception) -> str:
    if isinstance(problem, OSError) and problem.strerror:
        return problem.strerror
    return str(problem)
