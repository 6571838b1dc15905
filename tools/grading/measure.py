"""Measuring a table a submission trained, in a limited child process of its own.

    python -I -B tools/grading/measure.py TABLE X|O SHIPPED_X SHIPPED_O     (prints one JSON line)

A table came from a submission's box: loading it may stall or eat memory, so the grader never
loads one in its own process. ``measure(data, side, ...)`` writes the bytes to a file of the
run folder and runs this file as a child with the sandbox's limits (``launch``) and a time
limit; the child loads the table with the safe loader (``AI_Agent(side, Q_table_PATH=...,
train=False)``), computes its exact win / loss / draw probabilities against ``random`` and
``advanced`` (``training.curves.exact_results``) and whether any opponent can beat it
(``exact.solver.worst_case``), and says whether it holds one of the course's shipped tables
(most of a shipped table's pairs with exactly its values: no training gives that by chance).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
MEASURE_SECONDS = 120
SHIPPED_SHARE = 0.5        # of a shipped table's pairs, with its exact values: "holds it"


@dataclass(frozen=True)
class Measure:
    """A trained table's exact results, from its own side: (wins, losses, draws) each."""
    random: tuple[float, float, float]
    advanced: tuple[float, float, float]
    unbeatable: bool
    shipped: str = ""          # the shipped table it holds, if any


class MeasureError(ValueError):
    """The table could not be measured; the message says why, in one line."""


def measure(data: bytes, side: str, run_dir: Path, shipped: dict[str, str], limits) -> Measure:
    """The exact results of the table in ``data`` for ``side`` ("X" / "O"), measured in a
    limited child; ``shipped``: side -> the grader's own shipped table file to compare with."""
    from tools.grading.isolation import Isolation
    from tools.grading.sandbox import run_program

    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="table-", dir=run_dir) as folder:
        path = os.path.join(folder, "table.pth")
        with open(path, "wb") as stream:
            stream.write(data)
        command = Isolation().command(python, limits, Path(folder), [
            python, "-I", "-B", str(Path(__file__).resolve()), path, side,
            shipped.get("X", ""), shipped.get("O", "")])
        done = run_program(command, Path(folder), {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
                                                   "MPLBACKEND": "Agg"},
                           replace(limits, seconds=MEASURE_SECONDS))
    if done.timed_out:
        raise MeasureError(f"loading and measuring it took more than {MEASURE_SECONDS} s")
    try:
        answer = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        lines = done.stderr.strip().splitlines()
        raise MeasureError(f"it could not be measured (exit status {done.returncode}"
                           f"{': ' + lines[-1] if lines else ''})") from None
    if "error" in answer:
        raise MeasureError(answer["error"])
    return Measure(tuple(answer["random"]), tuple(answer["advanced"]), answer["unbeatable"],
                   answer["shipped"])


def holds(table: dict, shipped: dict) -> bool:
    same = sum(1 for pair, value in shipped.items() if table.get(pair) == value)
    return bool(shipped) and same >= SHIPPED_SHARE * len(shipped)


def main(argv: list[str]) -> None:
    sys.path.insert(0, str(ROOT))
    from AI_Agent import AI_Agent
    from exact.solver import worst_case
    from State import O, X
    from tables.files import TableError, load_table
    from training.curves import exact_results

    path, side = argv[0], X if argv[1] == "X" else O
    try:
        agent = AI_Agent(side, Q_table_PATH=path, train=False)
    except TableError as error:
        print(json.dumps({"error": " ".join(str(error).replace(path, "the table").split())}))
        return
    found = ""
    for name in argv[2:]:
        try:
            if name and holds(agent.Q, load_table(name)[0]):
                found = f"Data/{os.path.basename(name)}"
        except TableError:
            pass
    results = exact_results(agent)
    print(json.dumps({"random": results["random"], "advanced": results["advanced"],
                      "unbeatable": worst_case(agent)[0] >= 0, "shipped": found}))


if __name__ == "__main__":
    main(sys.argv[1:])
