"""The checks a table file passes before a single object is rebuilt from it.

A table file is a torch.save zip archive holding ``<archive>/data.pkl`` (or, from old torch
versions, the legacy layout: a few fixed pickles around the data's). The archive's declared sizes
-- number of members, uncompressed sizes, compression ratio -- are read from its central directory
before anything is inflated, and the pickle is then walked by ``tictactoe_rl.tables.opcodes.scan``; both in
time and memory proportional to the file's size.

``table_pickle(data)`` returns the pickle to rebuild, or raises ``Unreadable`` (not a table file
at all, or a damaged one), ``Refused`` (it names something to import or call that no table needs)
or ``Unlike`` (a value no table holds, or more of something than any table has).
"""

from __future__ import annotations

import _compat_pickle
import io
import pickle
import struct
import zipfile
import zlib

from tictactoe_rl.tables.opcodes import Unlike, Unreadable, scan

# A complete X table in the course's bulky format is about 2.6 MB; a file far larger is not a
# table.
MAX_FILE_BYTES = 16 * 2**20
# A table's pickle: 16,384 entries (tictactoe_rl.tables.opcodes.MAX_ENTRIES) in the course's format, about 300
# bytes each, are 4.9 MB; one larger is refused from its declared size, before a byte is read.
MAX_PICKLE_BYTES = 6 * 2**20
MAX_MEMBERS = 16                # a torch.save archive of plain data has six
MAX_RATIO = 100                 # torch.save stores members uncompressed (ratio 1)

# What a torch legacy (non-zip) file holds around its data: these pickles, exactly.
_LEGACY_MAGIC = pickle.dumps(0x1950A86A20F9469CFC6C, protocol=2)
_LEGACY_PROTOCOL = pickle.dumps(1001, protocol=2)
_LEGACY_NO_STORAGES = pickle.dumps([], protocol=2)

_ZIP_SIGNATURE = b"PK\x03\x04"
_END_OF_DIRECTORY = b"PK\x05\x06"
_ZIP64_END = b"PK\x06\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"


def table_pickle(data: bytes) -> bytes:
    """The checked pickle of the table a torch.save file (zip or legacy) holds."""
    if data.startswith(_ZIP_SIGNATURE):
        pickled = archive_pickle(data)
        scan(pickled)
        return pickled
    stream = io.BytesIO(data)
    first = _next_pickle(stream)    # a bare pickle still gets its names read, to say what it asks
    if first != _LEGACY_MAGIC:
        raise Unreadable("not a zip archive as torch.save writes, nor its legacy format")
    parts = [_next_pickle(stream) for _ in range(4)]
    if parts[0] != _LEGACY_PROTOCOL or parts[3] != _LEGACY_NO_STORAGES:
        raise Unreadable("a legacy torch file with tensors or an unknown layout")
    return parts[2]


def _next_pickle(stream: io.BytesIO) -> bytes:
    start = stream.tell()
    if start == len(stream.getbuffer()):
        raise Unreadable("the file ends early (cut short?)")
    scan(stream)
    return bytes(stream.getbuffer()[start:stream.tell()])


# --- the zip archive ----------------------------------------------------------------------------

def archive_pickle(data: bytes) -> bytes:
    """``<archive>/data.pkl`` from a torch.save zip, its sizes checked before it is inflated."""
    check_member_count(data)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
        check_unique_names(members)
        if not members or "/" not in members[0].filename:
            raise Unreadable("a zip archive that torch.save did not write (no data.pkl)")
        name = members[0].filename.split("/", 1)[0] + "/data.pkl"
        for member in members:
            _check_member(member)
        if archive.getinfo(name).file_size > MAX_PICKLE_BYTES:
            raise Unlike(f"a data.pkl of {archive.getinfo(name).file_size:,} bytes (a table's "
                         f"is at most about 5 MB)")
        with archive.open(name) as stream:
            pickled = stream.read(MAX_FILE_BYTES + 1)
    except KeyError:
        raise Unreadable("a zip archive without data.pkl, not a torch.save file") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, RuntimeError, NotImplementedError,
            ValueError, struct.error) as error:
        if isinstance(error, (Unreadable, Unlike)):
            raise
        raise Unreadable("an incomplete zip archive") from None
    if len(pickled) > MAX_FILE_BYTES:    # more than its declared size said
        raise Unlike(f"a data.pkl of more than {MAX_FILE_BYTES:,} bytes")
    return pickled


def check_member_count(data: bytes, limit: int = MAX_MEMBERS) -> None:
    """Refuse an archive whose directory lists more than ``limit`` members (a table file has six),
    before the zipfile module builds an object for each. The classic end record and, when there
    is one, the zip64 record are both read, as zipfile reads both: the larger count and size are
    checked."""
    end = data.rfind(_END_OF_DIRECTORY, max(0, len(data) - 22 - 0xFFFF))
    if end < 0 or end + 22 > len(data):
        raise Unreadable("an incomplete zip archive")
    count, directory_bytes = struct.unpack_from("<10xHI", data, end)
    counts, sizes = [count], [directory_bytes]
    if end >= 20 and data[end - 20:end - 16] == _ZIP64_LOCATOR:
        (located,) = struct.unpack_from("<8xQ", data, end - 20)
        # zipfile takes the record just before the locator; the locator names one too
        for record in {located, end - 20 - 56}:
            if 0 <= record and record + 56 <= len(data) and \
                    data[record:record + 4] == _ZIP64_END:
                counts += struct.unpack_from("<24xQQ", data, record)
                sizes += struct.unpack_from("<40xQ", data, record)
    if max(counts) > limit or max(sizes) > limit * 1024:
        raise Unlike(f"a zip archive of {max(counts):,} members (at most {limit})")


def check_unique_names(members: list[zipfile.ZipInfo]) -> None:
    """Refuse an archive with two members of one name: which one is read would be a guess."""
    names = [member.filename for member in members]
    if len(set(names)) != len(names):
        raise Unlike("a zip archive with two members of the same name")


def _check_member(member: zipfile.ZipInfo) -> None:
    if member.file_size > MAX_FILE_BYTES:
        raise Unlike(f"a zip member of {member.file_size:,} bytes (at most {MAX_FILE_BYTES:,})")
    if member.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise Unreadable("a zip archive compressed in a way torch.save never uses")
    if member.file_size > MAX_RATIO * max(member.compress_size, 1):
        raise Unlike(f"a zip member compressed {member.file_size // max(member.compress_size, 1):,}"
                     " times (a zip bomb?)")


def python3_name(dotted: str) -> str:
    """A global's name as Python 3 knows it (protocol-2 pickles may use Python 2's names, e.g.
    ``commands.call`` for ``subprocess.call``)."""
    module, _, name = dotted.rpartition(".")
    module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
    return f"{_compat_pickle.IMPORT_MAPPING.get(module, module)}.{name}"
