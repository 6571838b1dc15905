"""A child process's streams and its process group, for ``check.py`` and the class grader alike:
one reader that keeps only what is needed of a stream, one way to end a whole group."""

from __future__ import annotations

import os
import signal
import threading
from typing import BinaryIO


class Tail:
    """Reads a stream as it comes on a thread of its own, keeping its first and last ``keep``
    bytes (a student's code may print without end); ``whole``: keep at most ``keep`` bytes and
    note whether there was more."""

    def __init__(self, stream: BinaryIO, keep: int, whole: bool = False) -> None:
        self.stream, self.keep, self.whole_only = stream, keep, whole
        self.head, self.last, self.dropped = b"", b"", 0
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            while chunk := self.stream.read1(65536):
                if len(self.head) < self.keep:
                    room = self.keep - len(self.head)
                    self.head, chunk = self.head + chunk[:room], chunk[room:]
                self.dropped += len(chunk) if self.whole_only else 0
                if not self.whole_only:
                    joined = self.last + chunk
                    self.dropped += max(0, len(joined) - self.keep)
                    self.last = joined[-self.keep:] if len(joined) > self.keep else joined
        except (OSError, ValueError):
            pass

    def join(self, seconds: float = 5.0) -> None:
        """Wait for the end of the stream, at most ``seconds``: a process that escaped may hold
        it open, and then what came so far is all there is."""
        self.thread.join(timeout=seconds)
        if not self.thread.is_alive():
            self.stream.close()

    def whole(self) -> bytes | None:
        """Everything read, or ``None`` when it was more than ``keep`` bytes or still open."""
        return None if self.dropped or self.thread.is_alive() else self.head

    def text(self) -> str:
        gap = f"\n[... {self.dropped:,} bytes left out ...]\n" if self.dropped else ""
        return (self.head + gap.encode() + self.last).decode("utf-8", "replace")


def kill_group(group: int) -> bool:
    """SIGKILL to every process of the process group ``group``; False when there is none (or
    it is not ours to kill)."""
    try:
        os.killpg(group, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return False
    return True
