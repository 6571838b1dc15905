"""Q-table files of the bigger boards (any m,n,k board but 3x3 k=3): numpy ``.npz`` archives.

A 4x4 table holds millions of entries, far past what the course's torch format is for (its reader
refuses more than 16,384), so a bigger board's table is stored as flat arrays: each entry a
position as two bitboards (``x_bits``, ``o_bits``: bit ``i`` is flat cell ``i``), the move's flat
cell and its value, beside the board (``rows``, ``cols``, ``k``), the side and the record of its
training (``meta``, as JSON). ``numpy.load(allow_pickle=False)`` reads it: no code runs from a file.
Before a byte is inflated every member's declared size is checked, and each array's header
against its member; then every entry is checked at once (a position of a game still going with
the table's side to move, an empty cell, a finite value). Anything wrong is one ``TableError``.
"""

from __future__ import annotations

import io
import json
import math
import os
import zipfile
from numbers import Real
from typing import TYPE_CHECKING

from Board import TIC_TAC_TOE, BoardShape
from Board_State import intern
from State import O, X, State, symbol

if TYPE_CHECKING:
    import numpy as np

FORMAT_NAME = "mnk-q-table"
FORMAT_VERSION = 1
# 16 bytes an entry: some 16 million entries, ten times a 200,000-game 4x4 table; reading one
# takes about twenty times its size in memory.
MAX_FILE_BYTES = 1 << 28
# Each member's type, exactly as ``encode`` writes it ("U": text, "i": a whole number).
KINDS = {"format": "U", "version": "i", "rows": "i", "cols": "i", "k": "i", "side": "i",
         "meta": "U", "x_bits": "uint32", "o_bits": "uint32", "actions": "uint8",
         "values": "float64"}
MEMBERS = tuple(KINDS)   # in the order encode writes them
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


def encode(shape: BoardShape, Q: dict, side: int, meta: dict) -> bytes:
    """The bytes of the file holding table ``Q`` (keys ``(state, (row, col))`` of ``shape``)."""
    import numpy as np   # here: a training run that saves no bigger table skips it
    bits = {}
    x_bits, o_bits, actions, values = [], [], [], []
    for (state, (row, col)), value in Q.items():
        if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) \
                or state.player != side or (row, col) not in state.legal_actions():
            raise ValueError(f"{state!r}, {(row, col)}: {value!r} is not a finite value of a "
                             f"legal move with {symbol(side)} to move")
        pair = bits.get(state)
        if pair is None:
            pair = bits[state] = shape.encode(state.cells)
        x_bits.append(pair[0])
        o_bits.append(pair[1])
        actions.append(shape.index(row, col))
        values.append(value)
    buffer = io.BytesIO()
    np.savez(buffer, format=np.array(FORMAT_NAME), version=np.array(FORMAT_VERSION),
             rows=np.array(shape.rows), cols=np.array(shape.cols), k=np.array(shape.k),
             side=np.array(side), meta=np.array(json.dumps(meta, sort_keys=True)),
             x_bits=np.array(x_bits, dtype=np.uint32), o_bits=np.array(o_bits, dtype=np.uint32),
             actions=np.array(actions, dtype=np.uint8), values=np.array(values, dtype=np.float64))
    return buffer.getvalue()


def decode(path: str, data: bytes, board: BoardShape,
           side: int | None) -> tuple[dict, int, dict, BoardShape]:
    """``(Q, side, meta, board)`` of the file's bytes, checked; ``ValueError`` (one line, without
    the path: the caller adds it) for anything a table of ``board`` for ``side`` cannot be."""
    import numpy as np
    arrays = _arrays(data)
    if str(arrays["format"]) != FORMAT_NAME or int(arrays["version"]) != FORMAT_VERSION:
        raise ValueError("not a bigger board's Q-table of a version this code reads; retrain it")
    shape = BoardShape(int(arrays["rows"]), int(arrays["cols"]), int(arrays["k"]))
    if shape != board:
        raise ValueError(f"is a table for the {shape.name} board, not for {board.name}: use it "
                         f"with --board {shape.rows}x{shape.cols} --k {shape.k}")
    file_side = int(arrays["side"])
    if file_side not in (X, O):
        raise ValueError("damaged table (its side is not 1 or -1); retrain it")
    if side is not None and file_side != side:
        raise ValueError(f"is a table for {symbol(file_side)}, not for {symbol(side)}")
    meta = json.loads(str(arrays["meta"]))
    if type(meta) is not dict:
        raise ValueError("damaged table (its meta is not a record); retrain it")
    x, o = arrays["x_bits"].astype(np.int64), arrays["o_bits"].astype(np.int64)
    actions, values = arrays["actions"].astype(np.int64), arrays["values"]
    _check_entries(shape, file_side, x, o, actions, values)
    states: dict[tuple[int, int], object] = {}
    Q = {}
    # 3x3 k=3 positions are the course's States: a BoardState equal to one would hash apart
    make = State.from_valid_cells if shape == TIC_TAC_TOE else \
        (lambda cells, player: intern(shape, cells, player))
    for xb, ob, action, value in zip(x.tolist(), o.tolist(), actions.tolist(), values.tolist()):
        state = states.get((xb, ob))
        if state is None:
            state = states[xb, ob] = make(shape.decode((xb, ob)), file_side)
        Q[(state, shape.cells[action])] = value
    if not Q:
        raise ValueError("empty Q-table (no state-action values); train one first")
    return Q, file_side, meta, shape


def _arrays(data: bytes) -> dict[str, np.ndarray]:
    """The archive's arrays, each member's size checked against its header before it is read."""
    import numpy as np
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = {info.filename: info for info in archive.infolist()}
        if len(archive.infolist()) != len(MEMBERS) or \
                sorted(infos) != sorted(name + ".npy" for name in MEMBERS):
            raise ValueError("not a bigger board's Q-table (other members); retrain it")
        found = {}
        for name in MEMBERS:
            info = infos[name + ".npy"]
            if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
                raise ValueError("a member compressed as numpy never writes; retrain it")
            with archive.open(info) as stream:
                version = np.lib.format.read_magic(stream)
                if version not in HEADER_VERSIONS:
                    raise ValueError(f"member {name} is in a numpy format version this code "
                                     "does not read; retrain it")
                read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                               else np.lib.format.read_array_header_2_0)
                shape, _, dtype = read_header(stream)
                if dtype.hasobject or len(shape) > 1:
                    raise ValueError(f"member {name} holds objects or a table of tables")
                count = int(np.prod(shape)) if shape else 1
                if count * dtype.itemsize > info.file_size:
                    raise ValueError(f"member {name} is cut short")
            with archive.open(info) as stream:
                found[name] = np.lib.format.read_array(stream, allow_pickle=False)
            kind = found[name].dtype
            if (kind.kind if len(KINDS[name]) == 1 else kind.name) != KINDS[name]:
                raise ValueError(f"member {name} holds {kind.name}, not what a table's does; "
                                 "retrain it")
    except (zipfile.BadZipFile, OSError, EOFError, KeyError) as error:
        raise ValueError(f"not a readable bigger board's Q-table ({error}); copy it again or "
                         "retrain it") from None
    return found


def _check_entries(shape: BoardShape, side: int, x: np.ndarray, o: np.ndarray,
                   actions: np.ndarray, values: np.ndarray) -> None:
    """Every entry at once: bits on the board and on distinct cells, the counts of a position
    with ``side`` to move, no finished game, the move an empty cell, the value finite."""
    import numpy as np
    if not (len(x) == len(o) == len(actions) == len(values)):
        raise ValueError("damaged table (its arrays differ in length); retrain it")
    full = (1 << shape.size) - 1
    counts = [np.array([bin(v).count("1") for v in bits.tolist()], dtype=np.int64)
              for bits in (x, o)]
    lead = 0 if side == X else 1
    bad = ((x & o) != 0) | ((x | o) > full) | (counts[0] - counts[1] != lead)
    for mask in shape.line_masks:
        bad |= ((x & mask) == mask) | ((o & mask) == mask)
    bad |= (actions >= shape.size) | (((x | o) >> np.minimum(actions, 62)) & 1 == 1)
    bad |= ~np.isfinite(values)
    if bad.any():
        where = int(np.argmax(bad))
        raise ValueError(f"damaged or not a {shape.name} table: entry {where} is not a position "
                         f"of a game going on with {symbol(side)} to move, an empty cell and a "
                         "finite value; retrain it")
