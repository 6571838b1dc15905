"""Showing what a submission controls (names, messages) so that it hides and reorders nothing."""

from __future__ import annotations

import unicodedata

MAX_MESSAGE = 300               # characters kept of a message that came from a child
_SPACES = str.maketrans({"\n": " ", "\r": " ", "\t": " ", "\v": " ", "\f": " "})


def shown(text: object) -> str:
    """``text`` with every character that could hide or reorder what is shown escaped: control
    and format characters (U+202E among them) as ``\\uXXXX``, a byte that was not UTF-8 in a
    file name as ``\\xNN``, a lone surrogate as ``\\uXXXX``."""
    parts = []
    for char in str(text):
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:                 # os.fsdecode's stand-in for a raw byte
            parts.append(f"\\x{code - 0xDC00:02x}")
        elif 0xD800 <= code <= 0xDFFF or unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp"):
            parts.append(f"\\u{code:04x}")
        else:
            parts.append(char)
    return "".join(parts)


def one_line(text: object, limit: int = MAX_MESSAGE) -> str:
    """``text`` as one line of escaped characters (``shown``), at most ``limit`` long."""
    line = " ".join(shown(str(text).translate(_SPACES)).split())
    return line if len(line) <= limit else line[:limit - 3] + "..."
