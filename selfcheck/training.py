"""The self-check's last step: train the student's agent with the student's own ``main``.

``main`` runs as written, against the module's own ``player2``, with its own ``epochs``; only
``PATH`` points into a temporary folder (main's save and its ``test`` read it there) and
``Generate_episode`` is wrapped to count the episodes, note the pairs they hold, and stop main
cleanly once the time budget is spent. What is measured is the table main saved (or, stopped
early, the learner's table as it stands), once ``selfcheck.saved`` finds it to be main's own:
no shipped table, no pair from outside its episodes. It is measured exactly and saved for whoever
wants it (the class grader measures it again with its own code). The project's players and
``random`` are seeded, so the same code gives the same table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import os
import random
import tempfile
import time

from Agent import Agent
from training.curves import exact_results
from tables.files import save_table
from selfcheck import saved
from selfcheck.common import Stop, call
from exact.solver import worst_case
from State import O, X, symbol

if TYPE_CHECKING:
    from selfcheck.student import Student

CHECK_EVERY = 256   # episodes between looks at the clock


def train(student: Student, side: int, table: str, seconds: float) -> dict:
    """Train the student's learner for ``side``; save its table to ``table``; return what was
    done and how good it is: ``{"episodes", "stopped", "opponent", "exact", "unbeatable",
    "line"}``."""
    trainer = student.trainer()
    if side == O:
        switch_sides(trainer)
    learner, generate = trainer.player1, trainer.Generate_episode
    for role, agent in (("learner", learner), ("opponent", trainer.player2)):
        if isinstance(agent, Agent):    # a student's own opponent may have no generator
            agent.rng.seed(f"check:train:{symbol(side)}:{role}")
    random.seed(f"check:train:{symbol(side)}")   # for code that draws from random itself
    count, seen = [0], set()
    deadline = time.monotonic() + seconds

    def counted(player, epoch):
        count[0] += 1
        saves.episodes[0] = count[0]
        if count[0] % CHECK_EVERY == 0 and time.monotonic() > deadline:
            raise Stop()
        episode = generate(player, epoch)
        if isinstance(episode, list):
            seen.update(saved.pairs_of(episode))
        return episode

    stopped = False
    with tempfile.TemporaryDirectory() as folder:
        saves = saved.Saves(learner, os.path.join(folder, "q.pth"))
        saves.install()
        trainer.PATH = saves.path
        trainer.Generate_episode = counted
        try:
            call("main", trainer.main)
        except Stop:
            stopped = True
        made = dict(learner.Q) if stopped else saved.read_back(saves, count[0])
    saved.check_own(made, seen, count[0], who="your main" if not stopped else "your learner")
    save_table(table, made, side, {"episodes_done": count[0], "algorithm": "your main"})
    measured = student.learner(side, trainer.env)
    measured.train = False
    measured.Q.clear()
    measured.Q.update(made)
    value, line = worst_case(measured)
    return {"episodes": count[0], "stopped": stopped, "opponent": type(trainer.player2).__name__,
            "exact": exact_results(measured), "unbeatable": value >= 0, "line": line}


def switch_sides(trainer) -> None:
    """Make the module's learner play O and its opponent X, keeping both objects, so that a name
    taken from them at import (the course's ``Q = player1.Q``) still means the learner's table."""
    trainer.player1.player, trainer.player2.player = O, X
    trainer.player1.Q.clear()
