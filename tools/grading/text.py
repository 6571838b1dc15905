"""Showing what a submission controls (names, messages) so that it hides and reorders nothing."""

from __future__ import annotations

from tictactoe_rl.cli import shown   # the one escaping of what a script shows

MAX_MESSAGE = 300               # characters kept of a message that came from a child
_SPACES = str.maketrans({"\n": " ", "\r": " ", "\t": " ", "\v": " ", "\f": " "})


def one_line(text: object, limit: int = MAX_MESSAGE) -> str:
    """``text`` as one line of escaped characters (``shown``), at most ``limit`` long."""
    line = " ".join(shown(str(text).translate(_SPACES)).split())
    return line if len(line) <= limit else line[:limit - 3] + "..."
