"""The self-check's last step: train the student's agent with the student's own ``main``.

``main`` runs as written, against the module's own ``player2``, with its own ``epochs``; only
``PATH`` points into a temporary folder (main's save and its ``test`` read it there) and
``Generate_episode`` is wrapped to count the episodes and to stop main cleanly once the time
budget is spent. The table is then saved for the exact measurement, which the caller does.
"""

from __future__ import annotations

import os
import tempfile
import time

from Q_Table import save_table
from selfcheck.common import Stop, call
from State import O, X

CHECK_EVERY = 256   # episodes between looks at the clock


def train(student, side: int, table: str, seconds: float) -> dict:
    """Train the student's learner for ``side``; save its table to ``table``; return what was
    done: ``{"episodes", "stopped", "opponent"}``."""
    trainer = student.trainer()
    if side == O:
        opponent_class = type(trainer.player2)
        trainer.player1 = student.learner(O, trainer.env)
        trainer.player2 = opponent_class(X, trainer.env)
    learner, generate = trainer.player1, trainer.Generate_episode
    count = [0]
    deadline = time.monotonic() + seconds

    def counted(player, epoch):
        count[0] += 1
        if count[0] % CHECK_EVERY == 0 and time.monotonic() > deadline:
            raise Stop()
        return generate(player, epoch)

    stopped = False
    with tempfile.TemporaryDirectory() as folder:
        trainer.PATH = os.path.join(folder, "q.pth")
        trainer.Generate_episode = counted
        try:
            call("main", trainer.main)
        except Stop:
            stopped = True
    save_table(table, learner.Q, side, {"episodes_done": count[0], "algorithm": "your main"})
    return {"episodes": count[0], "stopped": stopped,
            "opponent": type(trainer.player2).__name__}
