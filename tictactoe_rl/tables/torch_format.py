"""The bytes ``torch.save`` writes for plain Python data, produced without importing torch.

Importing torch takes a second or more, which every training run would pay only to save its
table. For an object holding no tensors, ``torch.save(obj, stream)`` writes a zip archive that
depends on nothing but ``pickle.dumps(obj, protocol=2)``; this module writes the same archive,
byte for byte (the tests compare it with torch.save's own output). Its layout, as PyTorch's
writer (miniz) makes it:

- members, in this order: ``archive/data.pkl`` (the pickle), ``archive/.format_version``
  (``1``), ``archive/.storage_alignment`` (``64``), ``archive/byteorder`` (``little`` or
  ``big``), ``archive/version`` (``3`` and a newline), ``archive/.data/serialization_id``;
- each stored uncompressed, with no time stamp (DOS time and date 0) and its data aligned to
  64 bytes by an extra field ``FB`` padded with ``Z``; sizes and CRC follow the data in a data
  descriptor (flag bit 3), and names are flagged UTF-8 (bit 11);
- the central directory, then zip64 end records (always), then the classic end record.

The serialization id is 40 digits: a hash combining the record names (a constant, since the names
never change; the value below is what torch computes with the C++ library of Linux builds) and
one combining the CRC-32 of each record, computed here as torch does. torch reads it back only
as information. The bytes therefore depend on the data alone: saving the same table twice gives
the same file.
"""

from __future__ import annotations

import pickle
import struct
import sys
import zlib

ARCHIVE = "archive"
ALIGNMENT = 64
_RECORDS = (".format_version", ".storage_alignment", "byteorder", "version")
_NAMES_HASH = "02908468677762923104"   # torch's combined hash of the names of the records above
_MASK = 2**64 - 1
_FLAGS = 0x0808   # a data descriptor follows each member's data; names are UTF-8


def torch_save_bytes(obj) -> bytes:
    """What ``torch.save(obj, stream)`` writes for ``obj``, an object holding no tensors."""
    records = [("data.pkl", pickle.dumps(obj, protocol=2)), (".format_version", b"1"),
               (".storage_alignment", str(ALIGNMENT).encode()),
               ("byteorder", sys.byteorder.encode()), ("version", b"3\n")]
    records.append((".data/serialization_id", _serialization_id(records)))
    return _zip(records)


def _serialization_id(records: list[tuple[str, bytes]]) -> bytes:
    combined = 0
    for _, data in records:   # c10::hash_combine, as torch folds each record's CRC-32 in
        combined ^= (zlib.crc32(data) + 0x9E3779B9 + (combined << 6) + (combined >> 2)) & _MASK
    return f"{_NAMES_HASH}{combined:020d}".encode()


def _zip(records: list[tuple[str, bytes]]) -> bytes:
    out = bytearray()
    directory = bytearray()
    for name, data in records:
        path = f"{ARCHIVE}/{name}".encode()
        offset, crc = len(out), zlib.crc32(data)
        start = offset + 30 + len(path) + 4        # where the data would start with no padding
        padding = -start % ALIGNMENT
        out += struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 0, _FLAGS, 0, 0, 0, 0, 0, 0,
                           len(path), 4 + padding)
        out += path + b"FB" + struct.pack("<H", padding) + b"Z" * padding + data
        out += struct.pack("<4sIII", b"PK\x07\x08", crc, len(data), len(data))
        directory += struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 0, 0, _FLAGS, 0, 0, 0,
                                 crc, len(data), len(data), len(path), 0, 0, 0, 0, 0, offset)
        directory += path
    start, count = len(out), len(records)
    out += directory
    zip64_end = len(out)
    out += struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 0x031E, 0x002D, 0, 0, count, count,
                       len(directory), start)
    out += struct.pack("<4sIQI", b"PK\x06\x07", 0, zip64_end, 1)
    out += struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, count, count, len(directory), start, 0)
    return bytes(out)
