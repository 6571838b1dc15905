"""The self-check's last step: train the student's agent with the student's own ``main``.

``main`` runs as written, against the module's own ``player2``, with its own ``epochs``; only
``PATH`` points into a temporary folder (main's save and its ``test`` read it there) and
``Generate_episode`` is wrapped to count the episodes, note the game each one holds, and stop
main cleanly once the time budget is spent. The opponent draws its moves from a stream the
judge chose for this run, seeded afresh for every episode, so the judge knows every game main
learned from (``tictactoe_rl.selfcheck.witnessed``). What is measured is the table main saved (or,
stopped early, the learner's table as it stands), once it is found to be exactly what the Monte
Carlo update gives on those games. It is measured exactly and saved for whoever wants it (the
class grader measures it again with its own code). The learner and ``random`` are seeded afresh
on every run too, so that two hand-ins never share a table by chance.

Judged apart, as the pieces are: main runs in the student's process (``gather``), which saves
the table into a folder and sends back what main did and the games it played; the judging
process (``judge``) reads the table from the file with the safe loader, replays the games,
checks the table against them and measures it with the check's own greedy player, never the
student's code.
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
from tictactoe_rl.selfcheck import guard, saved, witnessed
from tictactoe_rl.selfcheck.common import Failure, Stop, call
from tictactoe_rl.exact.worst import worst_case
from State import O, X, State, symbol

if TYPE_CHECKING:
    from tictactoe_rl.selfcheck.student import Student

CHECK_EVERY = 256   # episodes between looks at the clock
MADE = "made.pth"   # the table main made, in the folder the two processes share
LONGEST_NAME = 80


def gather(student: Student, side: int, folder: str, seconds: float, seed: str) -> dict:
    """In the student's process: train the student's learner for ``side`` with its main for at
    most ``seconds``, its opponent drawing from the judge's stream ``seed``; save the table it
    made into ``folder``; return ``{"episodes", "stopped", "opponent", "replay", "games"}``
    (``replay``: what the judge needs to replay the opponent; ``games``: each episode's game,
    the learner's moves, ``witnessed.moves_of``)."""
    trainer = student.trainer()
    if side == O:
        switch_sides(trainer)
    learner, opponent, generate = trainer.player1, trainer.player2, trainer.Generate_episode
    replay = witnessed.opponent_of(opponent)
    if isinstance(learner, Agent):      # two hand-ins never train the same table
        learner.rng.seed(f"check:train:{symbol(side)}:learner:{seed}")
    random.seed(f"check:train:{symbol(side)}:{seed}")   # for code that draws from random itself
    count, games = [0], []
    deadline = time.monotonic() + seconds

    def Generate_episode(player, epoch):      # the name main's mistakes are told in
        count[0] += 1
        saves.episodes[0] = count[0]
        if count[0] % CHECK_EVERY == 0 and time.monotonic() > deadline:
            raise Stop()
        if replay is not None:
            opponent.rng.seed(witnessed.stream(seed, len(games)))
        episode = generate(player, epoch)
        games.append(witnessed.moves_of(episode))
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
    save_table(os.path.join(folder, MADE), made, side, {"episodes_done": len(games)})
    return {"episodes": len(games), "stopped": stopped,
            "opponent": type(opponent).__name__, "replay": replay, "games": games}


def judge(facts: object, side: int, folder: str, table: str, seed: str) -> dict:
    """In the judging process: the table main made, read from ``folder``, checked against the
    games the student's process sent (replayed with the opponent's stream ``seed``), saved to
    ``table`` (its games beside it, ``witnessed.write_games``) and measured exactly: ``{"episodes", "stopped", "opponent", "exact",
    "unbeatable", "line", "sha256"}`` (the SHA-256 of the bytes written to ``table``)."""
    if not (isinstance(facts, dict) and type(facts.get("episodes")) is int
            and isinstance(facts.get("stopped"), bool) and isinstance(facts.get("opponent"), str)
            and isinstance(facts.get("games"), list)
            and len(facts["games"]) == facts["episodes"]):
        raise Failure("the run of your main sent back something that is not what it did")
    games = witnessed.replayed(facts["games"], side, facts.get("replay"), seed)
    made = saved.load_saved(os.path.join(folder, MADE))
    who = "your learner" if facts["stopped"] else "your main"
    witnessed.explain(made, games, side, who)
    # The grader measures the file only if it still holds these bytes: a process the student's
    # code left behind could rewrite it once this one is done.
    written = save_table(table, made, side, {"episodes_done": facts["episodes"],
                                             "algorithm": "your main"})
    witnessed.write_games(table, facts["replay"], facts["games"])
    measured = Greedy(side, made)
    value, line = worst_case(measured)
    return {"episodes": facts["episodes"], "stopped": facts["stopped"],
            "opponent": facts["opponent"][:LONGEST_NAME], "exact": exact_results(measured),
            "unbeatable": value >= 0, "line": line, "sha256": hashlib.sha256(written).hexdigest()}


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
