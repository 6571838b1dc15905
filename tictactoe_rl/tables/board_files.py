"""Q-table files of the bigger boards (any m,n,k board but 3x3 k=3): numpy ``.npz`` archives.

A 4x4 table holds millions of entries, far past what the course's torch format is for (its reader
refuses more than 16,384), so a bigger board's table is stored as flat arrays: each entry a
position as two bitboards (``x_bits``, ``o_bits``: bit ``i`` is flat cell ``i``), the move's flat
cell and its value, beside the board (``rows``, ``cols``, ``k``), the side and the record of its
training (``meta``, as JSON). ``numpy.load(allow_pickle=False)``'s reader reads it: no code runs
from a file. Before a byte is inflated every member's header is checked against what a table
holds (its type, a single value or a column, the columns of one length, a record of bounded
size) and against its member's size; then every entry is checked at once, with numpy (a position
of a game still going with the table's side to move, an empty cell, a finite value, no position
and move twice). Anything wrong is one ``ValueError`` naming the member or the entry. The
entries are written sorted by position, then move (``tictactoe_rl.tables.board_table.entry_keys``).

The entries are not turned into a dict: ``tictactoe_rl.tables.board_table.BoardTable`` reads them when asked.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import sys
import zipfile
from typing import TYPE_CHECKING

from tictactoe_rl.geometry import BoardShape
from State import O, X, symbol
from tictactoe_rl.tables.checks import clip, meta_problem

if TYPE_CHECKING:
    import numpy as np

    from tictactoe_rl.tables.board_table import BoardTable

FORMAT_NAME = "mnk-q-table"
FORMAT_VERSION = 1
# 16 bytes an entry: some 16 million entries, ten times a 200,000-game 4x4 table; reading one
# takes about four times its size in memory.
MAX_FILE_BYTES = 1 << 28
# Each member's type, exactly as ``encode`` writes it ("U": text, "i": a whole number): the
# single values first, then the columns (one entry each).
FIELDS = {"format": "U", "version": "i", "rows": "i", "cols": "i", "k": "i", "side": "i",
          "meta": "U"}
COLUMNS = {"x_bits": "uint32", "o_bits": "uint32", "actions": "uint8", "values": "float64"}
KINDS = {**FIELDS, **COLUMNS}
MEMBERS = tuple(KINDS)   # in the order encode writes them
# Past this size a table may take more than a second or two to read (some four million entries;
# tools/benchmarks/table_load.py): its load says so on standard error first.
NOTICE_BYTES = 64 << 20
MAX_TEXT_CHARS = 1 << 16   # a record of a training run is a few hundred characters
NPZ_START = b"PK\x03\x04"
HEADER_VERSIONS = ((1, 0), (2, 0))   # the .npy header versions numpy writes


def is_board_file(path: str) -> bool:
    """Whether the file ``path`` looks like this format (a zip whose first member is
    ``format.npy``); a file that cannot be read is not (its full read will say why)."""
    if not os.path.isfile(path):   # nothing to open (and no attempt for an audit hook to see)
        return False
    try:
        with open(path, "rb") as stream:
            start = stream.read(40)
    except (OSError, ValueError):
        return False
    return start.startswith(NPZ_START) and start[30:40] == b"format.npy"


def notice_if_large(path: str) -> None:
    """One line on standard error before a large table is read, so that a wait has a reason."""
    with contextlib.suppress(OSError):
        size = os.path.getsize(path)
        if size > NOTICE_BYTES:
            print(f"reading {path}: a table of {size / 2**20:,.0f} MB, a few seconds...",
                  file=sys.stderr, flush=True)


def encode(shape: BoardShape, Q, side: int, meta: dict) -> bytes:
    """The bytes of the file holding table ``Q`` (keys ``(state, (row, col))`` of ``shape``, a
    dict or a loaded ``BoardTable``); a ``ValueError`` for an entry loading would refuse."""
    import numpy as np   # here: a training run that saves no bigger table skips it

    from tictactoe_rl.tables.board_table import BoardTable, entry_columns, entry_keys
    if isinstance(Q, BoardTable) and Q.shape == shape and Q.side == side:
        columns = Q.columns()    # its file's entries are checked already
    else:
        columns = entry_columns(shape, side, dict(Q).items())
    # Sorted by position, then move: the bytes depend on the table alone, and a reader finds
    # the order it needs already made.
    order = np.argsort(entry_keys(*columns[:3]), kind="stable")
    x_bits, o_bits, actions, values = (column[order] for column in columns)
    buffer = io.BytesIO()
    np.savez(buffer, format=np.array(FORMAT_NAME), version=np.array(FORMAT_VERSION),
             rows=np.array(shape.rows), cols=np.array(shape.cols), k=np.array(shape.k),
             side=np.array(side), meta=np.array(json.dumps(meta, sort_keys=True)),
             x_bits=x_bits, o_bits=o_bits, actions=actions, values=values)
    return buffer.getvalue()


def decode(data: bytes, board: BoardShape,
           side: int | None) -> tuple[BoardTable, int, dict, BoardShape]:
    """``(Q, side, meta, board)`` of the file's bytes, checked; ``ValueError`` (one line, without
    the path: the caller adds it) for anything a table of ``board`` for ``side`` cannot be."""
    from tictactoe_rl.tables.board_table import BoardTable
    arrays = _arrays(data)
    shape, file_side, meta = _fields(arrays, board, side)
    columns = tuple(arrays[name] for name in COLUMNS)
    _check_entries(shape, file_side, *columns)
    if len(columns[0]) == 0:
        raise ValueError("empty Q-table (no state-action values); train one first")
    table = BoardTable(shape, file_side, columns)
    repeated = table.repeated()
    if repeated:
        first, second, count = repeated
        raise ValueError(f"damaged table: entries {first:,} and {second:,} hold the same position "
                         f"and move, which a table holds once ({count:,} such repeats in all); "
                         "retrain it")
    return table, file_side, meta, shape


def _fields(arrays: dict[str, np.ndarray], board: BoardShape,
            side: int | None) -> tuple[BoardShape, int, dict]:
    """The file's board, side and meta, each checked (and ``board`` and ``side`` if given)."""
    if str(arrays["format"]) != FORMAT_NAME or int(arrays["version"]) != FORMAT_VERSION:
        raise ValueError("not a bigger board's Q-table of a version this code reads; retrain it")
    sizes = [int(arrays[name]) for name in ("rows", "cols", "k")]
    try:
        shape = BoardShape(*sizes)
    except ValueError as error:
        raise ValueError(f"damaged table: its fields rows, cols and k ({sizes[0]}, {sizes[1]}, "
                         f"{sizes[2]}) are no board ({error}); retrain it") from None
    if shape != board:
        raise ValueError(f"is a table for the {shape.name} board, not for {board.name}: use it "
                         f"with --board {shape.rows}x{shape.cols} --k {shape.k}")
    file_side = int(arrays["side"])
    if file_side not in (X, O):
        raise ValueError(f"damaged table: its field side is {clip(str(file_side))}, not 1 or -1; "
                         "retrain it")
    if side is not None and file_side != side:
        raise ValueError(f"is a table for {symbol(file_side)}, not for {symbol(side)}")
    try:
        meta = json.loads(str(arrays["meta"]))
    except ValueError as error:      # not JSON, or a number of more digits than Python reads
        raise ValueError(f"damaged table: its field meta is not JSON ({clip(str(error))}); "
                         "retrain it") from None
    except RecursionError:
        raise ValueError("damaged table: its field meta nests too deep; retrain it") from None
    if type(meta) is not dict:
        raise ValueError(f"damaged table: its field meta is not a record (a JSON object), "
                         f"it is a {type(meta).__name__}; retrain it")
    problem = meta_problem(meta)
    if problem:
        raise ValueError(f"damaged table: its field meta: {problem}; retrain it")
    return shape, file_side, meta


def _arrays(data: bytes) -> dict[str, np.ndarray]:
    """The archive's arrays; every member's header is checked (``_check_header``) before any
    member is read."""
    import numpy as np
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = {info.filename: info for info in archive.infolist()}
        if len(archive.infolist()) != len(MEMBERS) or \
                sorted(infos) != sorted(name + ".npy" for name in MEMBERS):
            raise ValueError("not a bigger board's Q-table (other members); retrain it")
        lengths = {name: _check_header(archive, infos[name + ".npy"], name) for name in MEMBERS}
        if len({lengths[name] for name in COLUMNS}) > 1:
            shown = ", ".join(f"{name} {lengths[name]:,}" for name in COLUMNS)
            raise ValueError(f"damaged table: its columns differ in length ({shown}); retrain it")
        found = {}
        for name in MEMBERS:
            with archive.open(infos[name + ".npy"]) as stream:
                found[name] = np.lib.format.read_array(stream, allow_pickle=False)
    except (zipfile.BadZipFile, OSError, EOFError, KeyError) as error:
        raise ValueError(f"not a readable bigger board's Q-table ({clip(str(error))}); copy it "
                         "again or retrain it") from None
    return found


def _check_header(archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> int:
    """Member ``name``'s entry count (1 for a field), from its header: stored as numpy stores
    it, a header numpy reads, its type ``KINDS[name]``, a single value (a field) or a column,
    no larger than the member, text of at most ``MAX_TEXT_CHARS``."""
    import numpy as np
    if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
        raise ValueError("a member compressed as numpy never writes; retrain it")
    with archive.open(info) as stream:
        try:
            version = np.lib.format.read_magic(stream)
            if version not in HEADER_VERSIONS:
                raise ValueError(f"version {version} of numpy's format")
            read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                           else np.lib.format.read_array_header_2_0)
            shape, _, dtype = read_header(stream)
        except ValueError as error:     # numpy's own refusals: a bad start, a huge header
            raise ValueError(f"member {name} has no header this code reads "
                             f"({clip(str(error))}); retrain it") from None
    if dtype.hasobject:
        raise ValueError(f"member {name} holds objects, which no table's does; retrain it")
    if len(shape) != (0 if name in FIELDS else 1):
        raise ValueError(f"member {name} has the shape {clip(str(shape))}, not that of "
                         f"{'a single value' if name in FIELDS else 'a column'}; retrain it")
    if (dtype.kind if len(KINDS[name]) == 1 else dtype.name) != KINDS[name]:
        raise ValueError(f"member {name} holds {dtype.name}, not what a table's does; retrain it")
    count = math.prod(shape)
    if count * dtype.itemsize > info.file_size:
        raise ValueError(f"member {name} is cut short (its header promises {count:,} values)")
    if dtype.kind == "U" and dtype.itemsize // 4 > MAX_TEXT_CHARS:
        raise ValueError(f"member {name} is {dtype.itemsize // 4:,} characters long, more than "
                         f"a table's record holds ({MAX_TEXT_CHARS:,}); retrain it")
    return count


def _check_entries(shape: BoardShape, side: int, x: np.ndarray, o: np.ndarray,
                   actions: np.ndarray, values: np.ndarray) -> None:
    """Every entry at once (the columns as the file holds them: ``uint32``, ``uint32``,
    ``uint8``, ``float64``): bits on the board and on distinct cells, the counts of a position
    with ``side`` to move, no finished game, the move an empty cell, the value finite."""
    import numpy as np
    full = (1 << shape.size) - 1
    lead = 0 if side == X else 1
    marks = x | o
    bad = ((x & o) != 0) | (marks > full) | \
        (np.bitwise_count(x).astype(np.int8) - np.bitwise_count(o).astype(np.int8) != lead)
    for mask in shape.line_masks:
        bad |= ((x & mask) == mask) | ((o & mask) == mask)
    # the move's bit, shifted by less than the 32 bits of the column even when off the board
    bad |= (actions >= shape.size) | ((marks >> np.minimum(actions, 31)) & 1 == 1)
    bad |= ~np.isfinite(values)
    if bad.any():
        where = int(np.argmax(bad))
        raise ValueError(f"damaged or not a {shape.name} table: entry {where:,} is not a position "
                         f"of a game going on with {symbol(side)} to move, an empty cell and a "
                         "finite value; retrain it")
