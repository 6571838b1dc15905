"""Q-table files: save atomically with ``torch.save``, load safely with ``torch.load``.

A file holds a dict::

    {"format": "tictactoe-q-table", "version": 1, "side": 1 or -1,
     "meta": {"algorithm": ..., "epochs": ..., "opponent": ..., "gamma": ..., "alpha": ..., ...},
     "Q": {(State, (row, col)): float}}

Files written by the course's original code (a bare ``{(State, action): float}`` dict whose states
carry a numpy board) load too; their side is read off the states.

Loading never runs code from the file: ``torch.load(weights_only=True)`` only rebuilds the classes
allowlisted below (our ``State`` and plain numpy arrays and numbers). Anything wrong with a file is
reported as one ``TableError`` naming the file, the problem and what to do.
"""

from __future__ import annotations

import math
import os
import pickle
import tempfile
import zipfile
from numbers import Real

import numpy as np
import torch

from State import ALL_CELLS, State, symbol

FORMAT_NAME = "tictactoe-q-table"
FORMAT_VERSION = 1



class _StoredState:
    """A position as a file describes it, before it is checked and turned into a ``State``.

    Files name the class ``State.State``; reading them into this plain holder (never into a real,
    shared ``State``) means nothing in a file can alter a position the program already uses.
    Our files pickle ``State(cells, player)``; the course's files pickle a board and a player.
    """

    def __init__(self, board=None, player=None) -> None:
        self.board, self.player = board, player

    def __setstate__(self, data) -> None:
        if not isinstance(data, dict):
            raise ValueError("a stored State must be a dict")
        self.board, self.player = data.get("board"), data.get("player")

    def to_state(self) -> State:
        return State(self.board, self.player)


# What a table file may contain besides plain containers, numbers and strings.
SAFE_GLOBALS = [
    (_StoredState, "State.State"),
    np.ndarray,
    np.dtype,
    np._core.multiarray._reconstruct,
    np._core.multiarray.scalar,
    np.dtypes.Float64DType,
    np.dtypes.Int64DType,
]

QTable = dict  # {(State, (row, col)): float}


class TableError(ValueError):
    """A Q-table file that cannot be used; the message says which file, what is wrong, what to do."""


def save_table(path: str, Q: QTable, side: int, meta: dict | None = None) -> None:
    """Write ``Q`` for ``side`` with its training ``meta`` to ``path`` atomically.

    The data goes to a temporary file in the same folder, is flushed to disk, and only then
    replaces ``path``: a crash or a full disk mid-save leaves the previous file as it was.
    """
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    payload = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "side": int(side),
               "meta": dict(meta or {}), "Q": dict(Q)}
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".pth")
    try:
        with os.fdopen(handle, "wb") as stream:
            torch.save(payload, stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


def load_table(path: str, side: int | None = None) -> tuple[QTable, int, dict]:
    """Read a table file; return ``(Q, side, meta)``. Raise ``TableError`` for any unusable file.

    With ``side`` given, a table for the other side is refused.
    """
    payload = _read(path)
    if isinstance(payload, dict) and payload.get("format") == FORMAT_NAME:
        if payload.get("version") != FORMAT_VERSION:
            raise TableError(f"{path}: table format version {payload.get('version')!r} is not "
                             f"supported (this code reads version {FORMAT_VERSION}); retrain it")
        raw_q, file_side, meta = payload.get("Q"), payload.get("side"), payload.get("meta")
        if not isinstance(raw_q, dict) or file_side not in (1, -1) or not isinstance(meta, dict):
            raise TableError(f"{path}: damaged table (missing Q, side or meta); retrain it")
    elif isinstance(payload, dict):
        raw_q, file_side, meta = payload, None, {"algorithm": "course original"}
    else:
        raise TableError(f"{path}: holds a {type(payload).__name__}, not a Q-table dict; "
                         "pass a file saved by save_Q")
    Q, states_side = _clean(path, raw_q)
    file_side = file_side if file_side is not None else states_side
    if states_side is not None and states_side != file_side:
        raise TableError(f"{path}: says it plays {symbol(file_side)} but its positions are "
                         f"{symbol(states_side)} to move; retrain it")
    if file_side is None:
        raise TableError(f"{path}: empty Q-table (no state-action values); train one first")
    if side is not None and file_side != side:
        raise TableError(f"{path}: is a table for {symbol(file_side)}, not for {symbol(side)}; "
                         f"use a table made for {symbol(side)} (e.g. Data/Q_MC_{symbol(side)}.pth)")
    return Q, file_side, meta


def _read(path: str):
    if not os.path.isfile(path):
        raise TableError(f"{path}: no such file; train a table first or check the path")
    if os.path.getsize(path) == 0:
        raise TableError(f"{path}: the file is empty; retrain it or restore it from git")
    try:
        with torch.serialization.safe_globals(SAFE_GLOBALS):
            return torch.load(path, weights_only=True, map_location="cpu")
    except pickle.UnpicklingError as error:
        raise TableError(f"{path}: refused to load: it asks for code or objects a Q-table never "
                         f"holds ({_unpickler_reason(error)}); use a table saved by this course"
                         ) from None
    except (EOFError, RuntimeError, zipfile.BadZipFile, ValueError, TypeError, KeyError,
            AttributeError, IndexError, OSError, MemoryError) as error:
        raise TableError(f"{path}: not a readable Q-table file ({type(error).__name__}); "
                         "it may be truncated or not a torch.save file -- retrain it") from None


def _unpickler_reason(error: Exception) -> str:
    """The one line of torch's long refusal message that says what the file asked for."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("Unsupported", "Can only", "Trying to", "Unsupported global")):
            return line[:150]
    return lines[-1][:150] if lines else "unreadable pickle"


def _clean(path: str, raw_q: dict) -> tuple[QTable, int | None]:
    """Check every entry and return the table with shared ``State`` keys and int actions."""
    Q: QTable = {}
    side = None
    for key, value in raw_q.items():
        if not (isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], _StoredState)):
            raise TableError(f"{path}: key {_short(key)} is not a (State, action) pair -- not a "
                             "Tic-Tac-Toe Q-table (another game's file?)")
        try:
            state = key[0].to_state()
        except ValueError as error:
            raise TableError(f"{path}: a stored position is not valid ({error})") from None
        action = key[1]
        if not (isinstance(action, tuple) and len(action) == 2
                and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in action)):
            raise TableError(f"{path}: action {_short(action)} is not a (row, col) pair of ints")
        action = (int(action[0]), int(action[1]))
        if action not in ALL_CELLS:
            raise TableError(f"{path}: action {action} is off the board")
        if isinstance(value, bool) or not isinstance(value, (Real, np.floating, np.integer)) \
                or not math.isfinite(float(value)):
            raise TableError(f"{path}: value {_short(value)} for {action} is not a finite number")
        if side is None:
            side = state.player
        elif state.player != side:
            raise TableError(f"{path}: mixes positions for X and for O; one table plays one side")
        Q[(state, action)] = float(value)
    return Q, side


def _short(thing) -> str:
    text = repr(thing)
    return text if len(text) <= 60 else text[:57] + "..."
