"""Measuring the tables a submission trained, in a limited child process of its own.

    python -I -B tools/grading/measure.py SHIPPED_X SHIPPED_O SIDE=TABLE ...  (one JSON line)

A table came from a submission's box: loading it may stall or eat memory, so the grader never
loads one in its own process. ``measure_all(tables, run_dir, shipped, limits)`` writes each
table's bytes to a file of the run folder and runs this file once for all of them, as a child
with the sandbox's limits (``launch``) and a time limit; the child loads each table with the
safe loader (``AI_Agent(side, Q_table_PATH=..., train=False)``), computes its exact win / loss /
draw probabilities against ``random`` and ``advanced`` (``tictactoe_rl.training.curves.exact_results``) and
whether any opponent can beat it (``tictactoe_rl.exact.worst.worst_case``), and says whether it holds one
of the course's shipped tables (``tictactoe_rl.selfcheck.saved.holds_copy``, the rule the self-check uses: a
share of a shipped table's values, each within a hair of it -- no training gives that by
chance, and a copy nudged in its last digits is still one). A table that cannot be measured gets a ``MeasureError`` in its
place, its message one line.
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
MEASURE_SECONDS = 120


@dataclass(frozen=True)
class Measure:
    """A trained table's exact results, from its own side: (wins, losses, draws) each."""
    random: tuple[float, float, float]
    advanced: tuple[float, float, float]
    unbeatable: bool
    shipped: str = ""          # the shipped table it holds, if any
    signature: tuple = ()      # a sample of its values (``twins.signature``)


class MeasureError(ValueError):
    """The table could not be measured; the message says why, in one line."""


def measure_all(tables: dict[str, bytes], run_dir: Path, shipped: dict[str, str],
                limits: Limits) -> dict[str, Measure | MeasureError]:
    """Each table's measure (side "X" / "O" -> its bytes), all in one limited child;
    ``shipped``: side -> the grader's own copy of the issued table, to compare with."""
    from tools.grading.isolation import Isolation
    from tools.grading.sandbox import run_program

    if not tables:
        return {}
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="tables-", dir=run_dir) as folder:
        named = []
        for side, data in tables.items():
            path = os.path.join(folder, f"{side}.pth")
            with open(path, "wb") as stream:
                stream.write(data)
            named.append(f"{side}={path}")
        command, config = Isolation().command(python, limits, Path(folder), [
            python, "-I", "-B", str(Path(__file__).resolve()), shipped.get("X", ""),
            shipped.get("O", ""), *named])
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
                    answer["shipped"], tuple(map(tuple, answer.get("signature", ()))))
            for side, answer in answers.items()}


def main(argv: list[str]) -> None:
    sys.path.insert(0, str(ROOT))
    from tictactoe_rl.tables.files import TableError, load_table

    shipped = []
    for path in argv[:2]:
        try:
            shipped.append((f"Data/{os.path.basename(path)}", load_table(path)[0]))
        except (TableError, OSError):
            pass
    answers = {}
    for named in argv[2:]:
        side, path = named.split("=", 1)
        try:
            answers[side] = measured(path, side, shipped)
        except TableError as error:
            answers[side] = {"error": " ".join(str(error).replace(path, "the table").split())}
    print(json.dumps(answers))


def measured(path: str, side: str, shipped: list) -> dict:
    from AI_Agent import AI_Agent
    from tictactoe_rl.exact.worst import worst_case
    from tictactoe_rl.selfcheck.saved import holds_copy
    from State import O, X
    from tools.grading.twins import signature
    from tictactoe_rl.training.curves import exact_results

    agent = AI_Agent(X if side == "X" else O, Q_table_PATH=path, train=False)
    found = next((name for name, table in shipped if holds_copy(agent.Q, table)), "")
    results = exact_results(agent)
    return {"random": results["random"], "advanced": results["advanced"],
            "unbeatable": worst_case(agent)[0] >= 0, "shipped": found,
            "signature": signature(agent.Q)}


if __name__ == "__main__":
    main(sys.argv[1:])
