"""Network files: a ``torch.save`` of plain data -- the weights as a state dict, the layer sizes,
the sides it plays and how it was trained -- read back by ``tictactoe_rl.neural.archive``, not torch.load.

A file holds one dict::

    {"format": "tictactoe-dqn", "version": 1, "hidden": [64, 64], "sides": ["X"] or ["X", "O"],
     "weights": {name: tensor}, "updates": optimiser steps taken, "meta": {...},
     "optimizer": Adam's state dict (to resume) or None}

and on a bigger board also ``"board": [rows, cols, k]`` (none: 3x3 k=3, so 3x3 files keep their
bytes); a network is refused for another board.

Loading never runs code from the file (the archive's reader rebuilds plain float32 tensors and
plain Python values only, each record checked before it is read) and checks everything before it
is used: the layer sizes, every weight's name, shape and finiteness, the sides, the metadata, and,
only for a run that resumes the file, Adam's state against the weights (a player needs none: a
network saved before its first optimiser step has none, and plays). Anything wrong is one
``NetworkError`` naming the file, the problem and what to do. Saving is atomic: a temporary file
in the same folder, flushed to disk, then renamed over ``path``, so an interrupted save leaves
the previous file as it was.
"""

from __future__ import annotations

import io
import os
from typing import NamedTuple

import torch

from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from State import O, X, symbol
from tictactoe_rl.neural.archive import ArchiveError, read_payload
from tictactoe_rl.neural.network import QNetwork
from tictactoe_rl.tables import destinations
from tictactoe_rl.tables.files import keep_safely, read_bounded, write_atomically

FORMAT_NAME = "tictactoe-dqn"
FORMAT_VERSION = 1
SUFFIX = ".pt"
SIDE_NAMES = {"X": X, "O": O}
# The largest network allowed (hidden layers of 1,024) with its optimiser state is ~20 MB.
MAX_FILE_BYTES = 64 * 2**20
_PLAIN = (str, int, float, bool, type(None))


class NetworkError(ValueError):
    """A network file that cannot be used; the message says which file, what is wrong, what to
    do."""


class Saved(NamedTuple):
    """What a network file holds, checked."""
    network: QNetwork
    sides: tuple[int, ...]       # the sides it was trained to play: (1,), (-1,) or (1, -1)
    meta: dict
    # Adam's moments by parameter number, checked against the weights; read only to resume
    # (None otherwise, and when the file has none)
    optimizer: dict | None


def save_network(path: str, network: QNetwork, sides: tuple[int, ...], meta: dict,
                 optimizer: dict | None = None) -> None:
    """Write ``network`` (playing ``sides``) with its training record ``meta`` and, to resume,
    the ``optimizer`` state, to ``path`` atomically. Values of ``meta`` other than text, numbers,
    booleans and ``None`` are stored as their text."""
    payload = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "hidden": list(network.hidden),
               "sides": [symbol(side) for side in sides],
               "weights": {k: v.detach().cpu() for k, v in network.state_dict().items()},
               "updates": network.updates,
               "meta": {str(k): v if isinstance(v, _PLAIN) else str(v) for k, v in meta.items()},
               "optimizer": optimizer}
    if network.board != TIC_TAC_TOE:
        payload["board"] = [network.board.rows, network.board.cols, network.board.k]
    data = io.BytesIO()
    torch.save(payload, data)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    destinations.remove_orphans(folder)
    # the tables' writer: a temporary file in the folder, flushed, renamed over path
    write_atomically(path, folder, data.getvalue())


NETWORK_FILE = destinations.Kind(SUFFIX, "network", "network file", "DQN")


def save_or_keep(path: str, network: QNetwork, sides: tuple[int, ...], meta: dict,
                 optimizer: dict | None = None) -> str:
    """``save_network``, and if writing at ``path`` fails (a full disk, a folder gone), keep the
    network in a fallback file as the table trainers do (``tictactoe_rl.tables.files.keep_safely``: beside
    ``path``, else in the temporary folder) and raise ``NotSaved`` naming it. A network whose
    weights or Adam's moments are not all finite (a run that diverged) is never written: a
    ``NetworkError``, and a good file at ``path`` stays as it was."""
    moments = (optimizer or {}).get("state", {}).values()
    tensors = [*network.state_dict().values(), *(t for m in moments for t in m.values())]
    if not all(bool(torch.isfinite(tensor).all()) for tensor in tensors):
        raise NetworkError(f"{path}: not saved: the network's weights are no longer finite "
                           "numbers (the training diverged); the file is left as it was -- "
                           "train again, e.g. with a smaller --alpha")
    return keep_safely(path, sides[0], lambda where: save_network(where, network, sides, meta,
                                                                  optimizer), NETWORK_FILE)


def check_writable(path: str, force: bool = False) -> None:
    """Raise ``NetworkError`` unless a network can be saved at ``path``; trainers call it before
    training, not after. The checks are the tables' (``tictactoe_rl.tables.destinations``): a name ending in
    ``.pt`` that a file system allows, never a folder, device or pipe, an existing file only if
    it is a network (unless ``force``), missing folders made only under the repository or the
    current folder, and a folder where a file can be created."""
    problem = destinations.destination_problem(path, is_network_file, force, NETWORK_FILE)
    if problem:
        raise NetworkError(f"{path}: {problem}")


def is_network_file(path: str) -> bool:
    """Whether ``path`` holds a network that ``load_network`` accepts."""
    try:
        load_network(path)
    except NetworkError:
        return False
    return True


def load_network(path: str, side: int | None = None, board: BoardShape | None = None,
                 resume: bool = False) -> Saved:
    """Read and check a network file. With ``side``, a network not trained for it is refused;
    with ``board``, one of another board; with ``resume``, Adam's state is read too, and one that
    does not fit the weights is refused."""
    payload = _read(path)
    if not isinstance(payload, dict) or payload.get("format") != FORMAT_NAME:
        raise NetworkError(f"{path}: not a Tic-Tac-Toe network file; use one saved by "
                           "DQN_Trainer.py")
    if payload.get("version") != FORMAT_VERSION:
        raise NetworkError(f"{path}: network format version {payload.get('version')!r:.20} is not "
                           f"supported (this code reads {FORMAT_VERSION}); retrain it")
    network = _network(path, payload)
    names = payload.get("sides")
    if not isinstance(names, list) or not names or not set(names) <= set(SIDE_NAMES) \
            or len(set(names)) != len(names):
        raise NetworkError(f"{path}: damaged network file (its sides); retrain it")
    meta, optimizer = payload.get("meta"), payload.get("optimizer")
    if not isinstance(meta, dict) or not all(isinstance(k, str) and isinstance(v, _PLAIN)
                                             for k, v in meta.items()):
        raise NetworkError(f"{path}: damaged network file (its metadata); retrain it")
    optimizer = _moments(path, optimizer, network) if resume and optimizer is not None else None
    sides = tuple(SIDE_NAMES[name] for name in names)
    if board is not None and network.board != board:
        mine = network.board
        raise NetworkError(f"{path}: is a network for the {mine.name} board, not for "
                           f"{board.name}: use it with --board {mine.rows}x{mine.cols} "
                           f"--k {mine.k}")
    if side is not None and side not in sides:
        raise NetworkError(f"{path}: is a network for {' and '.join(names)}, not for "
                           f"{symbol(side)}; train one with --side {symbol(side)} or "
                           "--opponent self")
    return Saved(network, sides, meta, optimizer)


def _read(path: str):
    """The object the file holds, its archive and tensor records checked before any is read
    (``tictactoe_rl.neural.archive``)."""
    path = os.fspath(path)
    data = read_bounded(path, MAX_FILE_BYTES, NetworkError, "a network",
                        f"give the path of a network saved by DQN_Trainer.py (a {SUFFIX} file)")
    try:
        return read_payload(data)
    except ArchiveError as error:
        raise NetworkError(f"{path}: not a readable network file ({error}); it may be cut short "
                           "or not a network saved by DQN_Trainer.py -- copy it again or retrain "
                           "it") from None


def _network(path: str, payload: dict) -> QNetwork:
    """The network the payload describes, its weights checked and loaded."""
    hidden, weights, updates = (payload.get(key) for key in ("hidden", "weights", "updates"))
    if not isinstance(hidden, list) or not isinstance(weights, dict) \
            or not isinstance(updates, int) or isinstance(updates, bool) or updates < 0:
        raise NetworkError(f"{path}: damaged network file (its layers, weights or step count); "
                           "retrain it")
    board = payload.get("board", [3, 3, 3])
    try:
        if not isinstance(board, list) or len(board) != 3:
            raise ValueError("its board is not [rows, cols, k]")
        network = QNetwork(tuple(hidden), BoardShape(*board))
    except (TypeError, ValueError) as error:
        raise NetworkError(f"{path}: damaged network file ({error}); retrain it") from None
    for name, tensor in weights.items():
        if not isinstance(tensor, torch.Tensor) or tensor.dtype != torch.float32 \
                or not bool(torch.isfinite(tensor).all()):
            raise NetworkError(f"{path}: damaged network file (weight {str(name)[:40]!r} is not "
                               "a finite float32 tensor); retrain it")
    try:
        network.load_state_dict(weights, strict=True)
    except (RuntimeError, TypeError) as error:
        first = " ".join(str(error).split())[:100]
        raise NetworkError(f"{path}: its weights do not fit its layer sizes ({first}); "
                           "retrain it") from None
    network.updates = updates
    return network


_MOMENTS = {"step", "exp_avg", "exp_avg_sq"}


def _moments(path: str, optimizer, network: QNetwork) -> dict:
    """Adam's moments from a file's optimiser state, checked against ``network``'s weights: one
    entry per weight (none before the first step), each a finite step count and finite moments of
    the weight's shape, the second non-negative. Its settings (learning rate, betas) are not
    taken from the file: the resumed run has its own."""
    state = optimizer.get("state") if isinstance(optimizer, dict) else None
    weights = list(network.parameters())
    if not isinstance(state, dict) or (not state and network.updates > 0) or \
            (state and set(state) != set(range(len(weights)))):
        raise NetworkError(f"{path}: its optimiser state does not fit its weights (it has "
                           f"{len(state) if isinstance(state, dict) else 'no'} entries for "
                           f"{len(weights)} weights), so it cannot be resumed; start afresh")
    for number, weight in enumerate(weights if state else []):
        entry = state[number]
        if not isinstance(entry, dict) or set(entry) != _MOMENTS or not all(
                isinstance(entry[key], torch.Tensor) and entry[key].dtype == torch.float32
                and bool(torch.isfinite(entry[key]).all()) for key in _MOMENTS):
            raise NetworkError(f"{path}: its optimiser state for weight {number} is not Adam's "
                               "step count and moments as finite numbers; start afresh")
        if entry["step"].shape != () or float(entry["step"]) < 0 or \
                entry["exp_avg"].shape != weight.shape or \
                entry["exp_avg_sq"].shape != weight.shape or bool((entry["exp_avg_sq"] < 0).any()):
            raise NetworkError(f"{path}: its optimiser state for weight {number} does not fit "
                               f"the weight of shape {tuple(weight.shape)} (or has a negative "
                               "second moment), so it cannot be resumed; start afresh")
    return state
