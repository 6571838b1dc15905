"""Reading a network file without handing it to ``torch.load``: every record is checked first.

``torch.save`` writes a zip archive: ``<name>/data.pkl``, the pickle of the payload, in which a
tensor is a call of ``torch._utils._rebuild_tensor_v2`` on a storage named by a persistent id,
``("storage", torch.FloatStorage, key, location, elements)``, and ``<name>/data/<key>``, that
storage's bytes. ``torch.load`` believes what the records declare -- a storage of 2**31 elements,
a view that repeats one element 2**31 times (stride 0), a member that inflates a thousandfold, a
meta, sparse or nested tensor -- and allocates or fails accordingly. Here, before the bytes of
any tensor are read:

- the archive's directory (``tictactoe_rl.tables.guard``): at most ``MAX_MEMBERS`` members, no two of one
  name, each stored uncompressed, as torch.save stores them; ``data.pkl`` at most 32 KiB;
- the pickle is rebuilt by an unpickler that knows three names, ``collections.OrderedDict``,
  ``torch.FloatStorage`` and ``torch._utils._rebuild_tensor_v2``, and refuses every other;
- a storage: float32, at most ``MAX_ELEMENTS``, its member exactly 4 bytes an element;
- a tensor: a row-major view of at most two dimensions inside its storage, without hooks.

Only then is a tensor made: a copy of exactly its bytes. The caller checks the payload's shapes
against the architecture (``tictactoe_rl.neural.files``).
"""

from __future__ import annotations

import collections
import io
import math
import pickle
import sys
import zipfile
import zlib

import torch

from tictactoe_rl.neural import pickle_shape
from tictactoe_rl.tables import guard

MAX_MEMBERS = 64                 # the largest network with Adam's state has 46
MAX_PICKLE_BYTES = 32 * 2**10    # a network's data.pkl is 2-5 KB: the tensors are elsewhere
MAX_ELEMENTS = 1024 * 1024       # the largest weight: two hidden layers of 1,024
MAX_ALL_ELEMENTS = 16 * 2**20    # of all tensors: the largest file's are under 10 million
MAX_DIMENSIONS = 2
FLOAT_BYTES = 4


class ArchiveError(ValueError):
    """What in the file is not what a network file holds, in a few words."""


class _Storage:
    """A storage as the pickle names it: its bytes, checked against the size it declares."""

    __slots__ = ("data", "elements")

    def __init__(self, data: bytes, elements: int) -> None:
        self.data, self.elements = data, elements


def _contiguous_strides(size: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for length in reversed(size):
        strides.append(step)
        step *= length
    return tuple(reversed(strides))


def _rebuild_tensor(storage, offset, size, stride, requires_grad, hooks, metadata=None):
    """``torch._utils._rebuild_tensor_v2`` for a plain float32 tensor, its records checked (the
    unpickler counts the elements it makes)."""
    if not isinstance(storage, _Storage):
        raise ArchiveError("a tensor without a storage of its own")
    if not (type(size) is tuple and len(size) <= MAX_DIMENSIONS
            and all(type(n) is int and 0 <= n <= MAX_ELEMENTS for n in size)
            and math.prod(size) <= MAX_ELEMENTS):
        raise ArchiveError(f"a tensor of shape {str(size)[:40]} (a network's have at most "
                           f"{MAX_DIMENSIONS} dimensions and {MAX_ELEMENTS:,} elements)")
    if stride != _contiguous_strides(size):
        raise ArchiveError(f"a tensor of strides {str(stride)[:40]} for shape {size} (a saved "
                           "weight is stored row by row; stride 0 would repeat its elements)")
    elements = math.prod(size)
    if type(offset) is not int or not 0 <= offset <= storage.elements - elements:
        raise ArchiveError("a tensor reaching outside its storage")
    if type(requires_grad) is not bool or not isinstance(hooks, collections.OrderedDict) \
            or hooks or metadata:
        raise ArchiveError("a tensor with gradient hooks or extra settings")
    if elements == 0:
        return torch.zeros(size)
    raw = bytearray(storage.data[offset * FLOAT_BYTES:(offset + elements) * FLOAT_BYTES])
    return torch.frombuffer(raw, dtype=torch.float32).reshape(size)


_FLOAT_STORAGE = object()        # what the pickle gets for torch.FloatStorage: only a marker
_NAMES = {("collections", "OrderedDict"): collections.OrderedDict,
          ("torch", "FloatStorage"): _FLOAT_STORAGE}


class _Unpickler(pickle.Unpickler):
    """The C unpickler with three names, and storages read from the checked archive."""

    def __init__(self, pickled: bytes, archive: zipfile.ZipFile, prefix: str) -> None:
        super().__init__(io.BytesIO(pickled))
        self.archive, self.prefix = archive, prefix
        self.storages: dict[str, _Storage] = {}
        self.elements = 0     # made so far: a storage named by many tensors is copied as often

    def rebuild_tensor(self, *args):
        tensor = _rebuild_tensor(*args)
        self.elements += tensor.numel()
        if self.elements > MAX_ALL_ELEMENTS:
            raise ArchiveError(f"tensors of more than {MAX_ALL_ELEMENTS:,} elements in all (one "
                               "storage named again and again?)")
        return tensor

    def find_class(self, module: str, name: str):
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return self.rebuild_tensor
        try:
            return _NAMES[(module, name)]
        except KeyError:
            raise ArchiveError(f"it asks for {module}.{name}"[:90] + ", which no network file "
                               "holds (loading never runs code from a file)") from None

    def persistent_load(self, pid):
        if not (type(pid) is tuple and len(pid) == 5 and pid[0] == "storage"):
            raise ArchiveError("a reference to something other than a storage")
        _, kind, key, _, elements = pid
        if kind is not _FLOAT_STORAGE:
            raise ArchiveError("a storage that is not float32 (a network's weights are)")
        if type(key) is not str or type(elements) is not int \
                or not 0 <= elements <= MAX_ELEMENTS:
            raise ArchiveError(f"a storage of {str(elements)[:20]} elements (at most "
                               f"{MAX_ELEMENTS:,})")
        if key not in self.storages:
            self.storages[key] = _Storage(self._member(f"data/{key}", elements), elements)
        storage = self.storages[key]
        if storage.elements != elements:
            raise ArchiveError("one storage declared with two sizes")
        return storage

    def _member(self, name: str, elements: int) -> bytes:
        try:
            info = self.archive.getinfo(f"{self.prefix}/{name}")
        except KeyError:
            raise ArchiveError(f"a storage without its data ({name[:40]})") from None
        if info.file_size != elements * FLOAT_BYTES:
            raise ArchiveError(f"a storage of {elements:,} elements whose data is "
                               f"{info.file_size:,} bytes")
        return self.archive.read(info)


def read_payload(data: bytes):
    """The object a network file's bytes hold, every record checked before it is read."""
    if not data.startswith(b"PK\x03\x04"):
        raise ArchiveError("not a zip archive as torch.save writes it")
    try:
        guard.check_member_count(data, MAX_MEMBERS)
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
        guard.check_unique_names(members)
        for member in members:
            if member.compress_type != zipfile.ZIP_STORED or \
                    member.compress_size != member.file_size:
                raise ArchiveError(f"a compressed member ({member.filename[:40]}); torch.save "
                                   "stores them as they are (a zip bomb?)")
        prefix = members[0].filename.split("/", 1)[0] if members else ""
        order = archive.read(f"{prefix}/byteorder") if f"{prefix}/byteorder" in \
            archive.namelist() else b"little"
        if order != sys.byteorder.encode():
            raise ArchiveError(f"numbers in {order.decode('ascii', 'replace')[:10]}-endian "
                               "order, not this machine's")
        info = archive.getinfo(f"{prefix}/data.pkl")
        if info.file_size > MAX_PICKLE_BYTES:
            raise ArchiveError(f"a data.pkl of {info.file_size:,} bytes (a network's is a few "
                               "thousand)")
        pickled = archive.read(info)
        pickle_shape.check(pickled)
        return _Unpickler(pickled, archive, prefix).load()
    except (ArchiveError, guard.Unlike, guard.Unreadable, pickle_shape.TooLarge) as error:
        raise ArchiveError(str(error)) from None
    except KeyError:
        raise ArchiveError("a zip archive without data.pkl, not a torch.save file") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, pickle.UnpicklingError,
            ValueError, TypeError, IndexError, AttributeError, RecursionError,
            MemoryError) as error:
        first = " ".join(str(error).split())[:60]
        raise ArchiveError(f"a damaged archive or pickle ({type(error).__name__}: {first})") \
            from None
