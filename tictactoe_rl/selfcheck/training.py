"""The self-check's last step: train the student's agent with the student's own ``main``.

``main`` runs as written, against the module's own ``player2``, with its own ``epochs``; only
``PATH`` points into a temporary folder (main's save and its ``test`` read it there) and
``Generate_episode`` is wrapped to count the episodes, note the pairs they hold, and stop main
cleanly once the time budget is spent. What is measured is the table main saved (or, stopped
early, the learner's table as it stands), once ``tictactoe_rl.selfcheck.saved`` finds it to be main's own:
no shipped table, no pair from outside its episodes. It is measured exactly and saved for whoever
wants it (the class grader measures it again with its own code). The project's players and
``random`` are seeded afresh on every run, so that two hand-ins never share a table by chance
(the class grader flags two tables that are the same: one was copied).

Judged apart, as the pieces are: main runs in the student's process (``gather``), which saves
the table into a folder and sends back what main did and the pairs its episodes held; the
judging process (``judge``) reads the table from the file with the safe loader, checks it is
main's own and measures it with the check's own greedy player, never the student's code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import hashlib
import os
import random
import tempfile
import time
from types import ModuleType

from Agent import Agent
from tictactoe_rl.training.curves import exact_results
from tictactoe_rl.tables.files import save_table
from tictactoe_rl.selfcheck import guard, saved
from tictactoe_rl.selfcheck.common import Failure, NotOwnWork, Stop, call
from tictactoe_rl.selfcheck.solved import solver_valued
from tictactoe_rl.exact.worst import worst_case
from State import O, X, State, position_of, symbol

if TYPE_CHECKING:
    from tictactoe_rl.selfcheck.student import Student

CHECK_EVERY = 256   # episodes between looks at the clock
MADE = "made.pth"   # the table main made, in the folder the two processes share
LONGEST_NAME = 80


def gather(student: Student, side: int, folder: str, seconds: float) -> dict:
    """In the student's process: train the student's learner for ``side`` with its main for at
    most ``seconds``; save the table it made into ``folder``; return ``{"episodes", "stopped",
    "opponent", "seen"}`` (``seen``: the pairs its episodes held, as ``[cells, player, row,
    column]``)."""
    trainer = student.trainer()
    if side == O:
        switch_sides(trainer)
    learner, generate = trainer.player1, trainer.Generate_episode
    run = os.urandom(8).hex()    # a seed of this run's: two hand-ins never train the same table
    for role, agent in (("learner", learner), ("opponent", trainer.player2)):
        if isinstance(agent, Agent):    # a student's own opponent may have no generator
            agent.rng.seed(f"check:train:{symbol(side)}:{role}:{run}")
    random.seed(f"check:train:{symbol(side)}:{run}")   # for code that draws from random itself
    count, seen = [0], set()
    deadline = time.monotonic() + seconds

    def Generate_episode(player, epoch):      # the name main's mistakes are told in
        count[0] += 1
        saves.episodes[0] = count[0]
        if count[0] % CHECK_EVERY == 0 and time.monotonic() > deadline:
            raise Stop()
        episode = generate(player, epoch)
        if isinstance(episode, list):
            seen.update(saved.pairs_of(episode))
        return episode

    stopped = False
    with tempfile.TemporaryDirectory() as scratch:
        guard.allow(scratch)
        saves = saved.Saves(learner, os.path.join(scratch, "q.pth"))
        saves.install()
        trainer.PATH = saves.path
        Generate_episode.__qualname__ = Generate_episode.__name__
        trainer.Generate_episode = Generate_episode
        try:
            call("main", trainer.main)
        except Stop:
            stopped = True
        made = dict(learner.Q) if stopped else saved.read_back(saves, count[0])
    if not made:
        raise Failure("your learner's table is empty after its main: update player1.Q")
    save_table(os.path.join(folder, MADE), made, side, {"episodes_done": count[0]})
    return {"episodes": count[0], "stopped": stopped,
            "opponent": type(trainer.player2).__name__,
            "seen": [[list(position_of(state).cells), position_of(state).player, *action]
                     for state, action in seen if is_pair(state, action)]}


def is_pair(state: object, action: object) -> bool:
    return (isinstance(state, State) and isinstance(action, tuple) and len(action) == 2
            and all(isinstance(index, int) for index in action))


def judge(facts: object, side: int, folder: str, table: str) -> dict:
    """In the judging process: the table main made, read from ``folder``, checked to be its own
    with the ``facts`` the student's process sent, saved to ``table`` and measured exactly:
    ``{"episodes", "stopped", "opponent", "exact", "unbeatable", "line", "sha256"}`` (the
    SHA-256 of the bytes written to ``table``)."""
    if not (isinstance(facts, dict) and type(facts.get("episodes")) is int
            and isinstance(facts.get("stopped"), bool) and isinstance(facts.get("opponent"), str)
            and isinstance(facts.get("seen"), list)):
        raise Failure("the run of your main sent back something that is not what it did")
    seen = {pair_of(entry) for entry in facts["seen"]}
    made = saved.load_saved(os.path.join(folder, MADE))
    who = "your learner" if facts["stopped"] else "your main"
    saved.check_own(made, seen, facts["episodes"], who=who)
    if solver_valued(made, side):
        raise NotOwnWork(f"the table {who} saved holds the exact solver's values (each move's "
                         "result under perfect play), which no training gives: the table must "
                         "be the one your own updates made")
    # The grader measures the file only if it still holds these bytes: a process the student's
    # code left behind could rewrite it once this one is done.
    written = save_table(table, made, side, {"episodes_done": facts["episodes"],
                                             "algorithm": "your main"})
    measured = Greedy(side, made)
    value, line = worst_case(measured)
    return {"episodes": facts["episodes"], "stopped": facts["stopped"],
            "opponent": facts["opponent"][:LONGEST_NAME], "exact": exact_results(measured),
            "unbeatable": value >= 0, "line": line, "sha256": hashlib.sha256(written).hexdigest()}


def pair_of(entry: object) -> tuple[State, tuple[int, int]]:
    """A ``(state, action)`` pair from what ``gather`` sent; ``Failure`` for anything else."""
    try:
        cells, player, row, column = entry
        if not (type(row) is int and type(column) is int and 0 <= row < 3 and 0 <= column < 3):
            raise ValueError
        return State(tuple(cells), player), (row, column)
    except (TypeError, ValueError):
        raise Failure("the run of your main sent back pairs that are not positions and "
                      "moves") from None


class Greedy(Agent):
    """A table's greedy policy as the course's agent plays it (a missing pair counts 0; ties go
    to the first legal move, row-major): the trained table measured by the check's own code."""

    def __init__(self, side: int, table: dict) -> None:
        super().__init__(side)
        self.Q = table

    def action_probs(self, state: State) -> dict:
        return {max(state.legal_actions(), key=lambda move: self.Q.get((state, move), 0.0)): 1.0}


def switch_sides(trainer: ModuleType) -> None:
    """Make the module's learner play O and its opponent X, keeping both objects, so that a name
    taken from them at import (the course's ``Q = player1.Q``) still means the learner's table."""
    trainer.player1.player, trainer.player2.player = O, X
    trainer.player1.Q.clear()
