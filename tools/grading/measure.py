"""Measuring the tables a submission trained, in a limited child process of its own.

    python -I -B tools/grading/measure.py '{"X": {"table", "games", "stream"}, ...}'
    (one JSON line)

A table came from a submission's box: loading it may stall or eat memory, so the grader never
loads one in its own process. ``measure_all(tables, run_dir, limits)`` writes each
table's bytes to a file of the run folder and runs this file once for all of them, as a child
with the sandbox's limits (``launch``) and a time limit; the child loads each table with the
safe loader (``AI_Agent(side, Q_table_PATH=..., train=False)``), computes its exact win / loss /
draw probabilities against ``random`` and ``advanced`` (``tictactoe_rl.training.curves.exact_results``) and
whether any opponent can beat it (``tictactoe_rl.exact.worst.worst_case``). It also plays the games of
the training again on the opponent's stream the grader drew (``tictactoe_rl.selfcheck.witnessed``):
a table they do not explain (a shipped table, a classmate's, the solver's values, whatever the
box's check said) is named (``Measure.unexplained``).
A table that cannot be measured gets a ``MeasureError`` in its place, its message one line.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tools.grading.sandbox import Limits

ROOT = Path(__file__).resolve().parent.parent.parent
MEASURE_SECONDS = 240    # the training's games played again (as long as it took), then measured


@dataclass(frozen=True)
class Trained:
    """A table a submission's training left, with what explains it: the games it was trained
    on (``SIDE.games``, None if the check left none) and the opponent's stream they were played
    on (the grader's own)."""
    table: bytes
    games: bytes | None
    stream: str


@dataclass(frozen=True)
class Measure:
    """A trained table's exact results, from its own side: (wins, losses, draws) each."""
    random: tuple[float, float, float]
    advanced: tuple[float, float, float]
    unbeatable: bool
    signature: tuple = ()      # a sample of its values (``twins.signature``)
    unexplained: str = ""      # why the games of its training do not give it ("": they do)


class MeasureError(ValueError):
    """The table could not be measured; the message says why, in one line."""


def measure_all(tables: dict[str, Trained], run_dir: Path,
                limits: Limits) -> dict[str, Measure | MeasureError]:
    """Each table's measure (side "X" / "O" -> what it trained), all in one limited child."""
    from tools.grading.isolation import Isolation
    from tools.grading.sandbox import run_program

    if not tables:
        return {}
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="tables-", dir=run_dir) as folder:
        named = {}
        for side, trained in tables.items():
            path = os.path.join(folder, f"{side}.pth")
            Path(path).write_bytes(trained.table)
            if trained.games is not None:
                Path(path).with_suffix(".games").write_bytes(trained.games)
            named[side] = {"table": path, "stream": trained.stream,
                           "games": trained.games is not None}
        command, config = Isolation().command(python, limits, Path(folder), [
            python, "-I", "-B", str(Path(__file__).resolve()), json.dumps(named)])
        done = run_program(command, Path(folder), {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
                                                   "MPLBACKEND": "Agg"},
                           replace(limits, seconds=MEASURE_SECONDS), config=config)
    try:
        answers = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        lines = done.stderr.strip().splitlines()
        failed = MeasureError(
            f"loading and measuring it took more than {MEASURE_SECONDS} s" if done.timed_out
            else f"it could not be measured (exit status {done.returncode}"
                 f"{': ' + lines[-1] if lines else ''})")
        return {side: failed for side in tables}
    return {side: MeasureError(answer["error"]) if "error" in answer else
            Measure(tuple(answer["random"]), tuple(answer["advanced"]), answer["unbeatable"],
                    tuple(map(tuple, answer.get("signature", ()))), answer["unexplained"])
            for side, answer in answers.items()}


def main(argv: list[str]) -> None:
    sys.path.insert(0, str(ROOT))
    from tictactoe_rl.tables.files import TableError

    answers = {}
    for side, named in json.loads(argv[0]).items():
        path = named["table"]
        try:
            answers[side] = measured(path, side, named["games"], named["stream"])
        except TableError as error:
            answers[side] = {"error": " ".join(str(error).replace(path, "the table").split())}
    print(json.dumps(answers))


def measured(path: str, side: str, games: bool, stream: str) -> dict:
    from AI_Agent import AI_Agent
    from tictactoe_rl.exact.worst import worst_case
    from tictactoe_rl.selfcheck.witnessed import check_games
    from State import O, X
    from tools.grading.twins import signature
    from tictactoe_rl.training.curves import exact_results

    learner = X if side == "X" else O
    agent = AI_Agent(learner, Q_table_PATH=path, train=False)
    # The games are played again on the grader's stream: the table must be their update.
    unexplained = (check_games(agent.Q, Path(path).with_suffix(".games").read_text(
        encoding="utf-8", errors="replace"), learner, f"{stream}:{side}") if games else
        "the check left no record of the games its training played")
    results = exact_results(agent)
    return {"random": results["random"], "advanced": results["advanced"],
            "unbeatable": worst_case(agent)[0] >= 0, "signature": signature(agent.Q),
            "unexplained": unexplained}


if __name__ == "__main__":
    main(sys.argv[1:])
