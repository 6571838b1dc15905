"""A progress line on stderr for a long walk, and none for a short one.

A walk of 3x3 takes milliseconds and should print nothing; one of 4x4 k=4 takes seconds, and a
user waiting that long should see that it moves. ``walk_progress("exact vs random")`` gives the
``progress`` a walk takes (``tictactoe_rl.exact.levels.reach``): the line appears only once the walk
has run ``AFTER`` seconds, shows the level it is at, and goes away when the walk ends.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from time import perf_counter

from tqdm import tqdm

from tictactoe_rl.exact.levels import Progress

AFTER = 1.0      # seconds of walking before the line appears


class WalkProgress:
    """The ``Progress`` of one walk named ``what``: a tqdm line once ``after`` seconds passed."""

    def __init__(self, what: str, after: float = AFTER) -> None:
        self.what, self.after = what, after
        self.started = perf_counter()
        self.bar: tqdm | None = None

    def __call__(self, line: str) -> None:
        seconds = perf_counter() - self.started
        if self.bar is None and seconds >= self.after:
            self.bar = tqdm(desc=self.what, file=sys.stderr, leave=False, bar_format="{desc}{postfix}")
        if self.bar is not None:      # the seconds since the walk began, not since the line
            self.bar.set_postfix_str(f"{line} [{seconds:.0f} s]")

    def close(self) -> None:
        """Take the line away (if it was shown)."""
        if self.bar is not None:
            self.bar.close()


@contextlib.contextmanager
def walk_progress(what: str, after: float = AFTER) -> Iterator[Progress]:
    """A ``WalkProgress`` for the walks inside the block, closed at its end."""
    progress = WalkProgress(what, after)
    try:
        yield progress
    finally:
        progress.close()
