"""Network files built to hurt the loader (``dqn:PATH``, a ``.pt`` agent, ``--resume``): each a
real network file of ``DQN_Trainer.py`` with one record changed. ``tests/test_hostile_tables.py``
checks that each is refused with one line and left as it was; ``tools/benchmarks/hostile.py``
measures the CPU time and memory each refusal takes.

``NETWORKS``: refused wherever a network is read; ``RESUMES``: Adam's state changed, refused by
``load_network(resume=True)`` and so by ``--resume`` before any training (a player reads them:
it needs no optimiser state). Each maps a name to ``(build, words
the one line must contain)``; ``build(good)`` takes the bytes of a good file.
"""

from __future__ import annotations

import contextlib
import io
import sys
import warnings
import zipfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import DQN_Trainer  # noqa: E402  (the project root must be on the path first)
from tictactoe_rl.training.dqn import build_network_run  # noqa: E402
from tictactoe_rl.training.dqn_options import parse_network_arguments  # noqa: E402
from tictactoe_rl.training.loop import learn_from_episodes, train_loop  # noqa: E402

# A good file: a short run with these flags (the shapes below are those of --hidden 64,64);
# RESUME goes on from it, as --resume must, with the same --hidden.
GOOD_RUN = ("--epochs", "40", "--batch", "16", "--hidden", "64,64", "--seed", "1")
RESUME = ("--epochs", "80", "--batch", "16", "--hidden", "64,64", "--threads", "1")
BOMB_BYTES = 4_400_000_000            # what the 4 MB deflate bomb of issue 21 inflates to


def good_network(path: str) -> bytes:
    """Train a network for a few games (no report) and save it at ``path``; its bytes."""
    args = parse_network_arguments("hostile", "", DQN_Trainer.DEFAULTS, [*GOOD_RUN, "--out", path])
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        run = build_network_run(args, DQN_Trainer.DEFAULTS, "hostile")
        train_loop(run, learn_from_episodes(run), show_progress=False)
    return Path(path).read_bytes()


def changed(good: bytes, change) -> bytes:
    """``good``'s payload after ``change(payload)``, saved by torch.save."""
    payload = torch.load(io.BytesIO(good), weights_only=True)
    change(payload)
    out = io.BytesIO()
    torch.save(payload, out)
    return out.getvalue()


def weight(name: str, value):
    """A change that puts ``value()`` in place of the weight ``name``."""
    return lambda payload: payload["weights"].__setitem__(name, value())


def moment(key: str, value):
    """A change that puts ``value(old)`` in place of Adam's ``key`` for the first weight."""
    def change(payload):
        entry = payload["optimizer"]["state"][0]
        entry[key] = value(entry[key])
    return change


def many_views(payload) -> None:
    """300 more weights, each a view of one storage of 2**20 elements: each is its own record."""
    storage = torch.zeros(2**20)
    payload["weights"].update({f"view{n}": storage[:] for n in range(300)})


def deflate_bomb(good: bytes, inflated: int = BOMB_BYTES) -> bytes:
    """``good`` with its first weight's storage member replaced by ``inflated`` zero bytes,
    deflated (about 1,000 to 1), written in pieces so that it is never held whole."""
    out = io.BytesIO()
    chunk = bytes(2**24)
    with zipfile.ZipFile(io.BytesIO(good)) as source, zipfile.ZipFile(out, "w") as archive:
        for member in source.infolist():
            if not member.filename.endswith("/data/0"):
                archive.writestr(member, source.read(member))
                continue
            with archive.open(zipfile.ZipInfo(member.filename), "w", force_zip64=True) as bomb:
                bomb._compressor = zipfile._get_compressor(zipfile.ZIP_DEFLATED, 9)
                bomb._zinfo.compress_type = zipfile.ZIP_DEFLATED
                for _ in range(inflated // len(chunk)):
                    bomb.write(chunk)
                bomb.write(bytes(inflated % len(chunk)))
    return out.getvalue()


def nested_weight() -> torch.Tensor:
    """A nested tensor where a weight should be (torch warns that their API is a prototype: the
    file only has to hold one)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return torch.nested.nested_tensor([torch.zeros(27)] * 64)


NETWORKS = {
    "a stride-0 view of 2**31 elements": (
        lambda good: changed(good, weight("layers.0.weight", lambda: torch.zeros(1)
                                          .expand(2**31))), "a tensor of shape (2147483648,)"),
    "a stride-0 view of a weight's shape": (
        lambda good: changed(good, weight("layers.0.weight", lambda: torch.zeros(1)
                                          .expand(64, 27))), "strides (0, 0)"),
    "a 4 MB deflate bomb of 4.4 GB": (deflate_bomb, "a compressed member"),
    "a meta tensor": (lambda good: changed(good, weight("layers.0.weight", lambda: torch.empty(
        64, 27, device="meta"))), "_rebuild_meta_tensor_no_storage"),
    "a sparse tensor": (lambda good: changed(good, weight("layers.0.weight", lambda: torch.zeros(
        64, 27).to_sparse())), "_rebuild_sparse_tensor"),
    "a nested tensor": (lambda good: changed(good, weight("layers.0.weight", nested_weight)),
                        "_rebuild_nested_tensor"),
    "a float64 weight": (lambda good: changed(good, weight("layers.0.weight", lambda: torch.zeros(
        64, 27, dtype=torch.float64))), "DoubleStorage"),
    "one 4 MB storage viewed by 300 tensors (1.2 GB as copies)": (
        lambda good: changed(good, many_views), "elements in all"),
    "a weight of another shape": (lambda good: changed(good, weight(
        "layers.0.weight", lambda: torch.zeros(64, 28))), "do not fit"),
}
RESUMES = {
    "Adam's moments of the wrong shape": (
        lambda good: changed(good, moment("exp_avg", lambda old: torch.zeros(3))),
        "does not fit the weight of shape (64, 27)"),
    "an empty optimiser state": (
        lambda good: changed(good, lambda payload: payload["optimizer"].__setitem__("state", {})),
        "has 0 entries for 6 weights"),
    "a negative exp_avg_sq": (
        lambda good: changed(good, moment("exp_avg_sq", lambda old: -torch.ones_like(old))),
        "negative second moment"),
}
