"""The rule for a network's hidden layer sizes, without torch: DQN_Trainer.py reads ``--hidden``
by it before torch is imported (seconds), and ``QNetwork`` checks every network against it."""

from __future__ import annotations

DEFAULT_HIDDEN = (64, 64)
MAX_LAYERS, MAX_WIDTH = 4, 1024       # far more than the game needs; larger is a typo


def hidden_problem(hidden: tuple) -> str | None:
    """Which part of the rule ``hidden`` breaks (1 to ``MAX_LAYERS`` layers, each of 1 to
    ``MAX_WIDTH`` units), in a few words; ``None`` when it keeps it."""
    if not hidden or len(hidden) > MAX_LAYERS:
        return f"{len(hidden)} layers; a network has 1 to {MAX_LAYERS}"
    for size in hidden:
        if type(size) is not int or size < 1:
            return f"a layer of {size!r:.20}; each has at least 1 unit"
        if size > MAX_WIDTH:
            return f"a layer of {size:,}; each has at most {MAX_WIDTH:,} units"
    return None
