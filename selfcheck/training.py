"""The self-check's last step: train the student's agent with the student's own ``main``.

``main`` runs as written, against the module's own ``player2``, with its own ``epochs``; only
``PATH`` points into a temporary folder (main's save and its ``test`` read it there) and
``Generate_episode`` is wrapped to count the episodes and to stop main cleanly once the time
budget is spent. The trained agent is then measured exactly, and its table saved for whoever wants it (the
class grader measures it again with its own code). The players' random generators are seeded,
so the same code gives the same table.
"""

from __future__ import annotations

import os
import tempfile
import time

import random

from Learning_Curves import exact_results
from Q_Table import save_table
from selfcheck.common import Stop, call
from Solver import worst_case
from State import O, X, symbol

CHECK_EVERY = 256   # episodes between looks at the clock


def train(student, side: int, table: str, seconds: float) -> dict:
    """Train the student's learner for ``side``; save its table to ``table``; return what was
    done and how good it is: ``{"episodes", "stopped", "opponent", "exact", "unbeatable",
    "line"}``."""
    trainer = student.trainer()
    if side == O:
        opponent_class = type(trainer.player2)
        trainer.player1 = student.learner(O, trainer.env)
        trainer.player2 = opponent_class(X, trainer.env)
    learner, generate = trainer.player1, trainer.Generate_episode
    for role, agent in (("learner", learner), ("opponent", trainer.player2)):
        agent.rng.seed(f"check:train:{symbol(side)}:{role}")
    random.seed(f"check:train:{symbol(side)}")   # for a main that draws from random itself
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
    learner.train = False
    value, line = worst_case(learner)
    return {"episodes": count[0], "stopped": stopped, "opponent": type(trainer.player2).__name__,
            "exact": exact_results(learner), "unbeatable": value >= 0, "line": line}
