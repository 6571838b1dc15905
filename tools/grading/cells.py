"""The report's table, one row of cells per submission (``table(rows)``) with the columns
``COLUMNS``: the hand-in's name (unique in the run) and where it was read from (its origin, as
the grader was given it), each piece's verdict and points, the total, the exact wins / losses /
draws of the trained X against ``random`` and ``advanced`` and whether it is unbeatable, the
same for O when piece 4 passed, the seconds the check took, the flags (signs of cheating), a
note and the report's file of what the check printed (its log). The CSV (``report.py``) and the page (``page.py``) both show it."""

from __future__ import annotations

from tools.grading.results import PIECE_NUMBERS, Row
from tools.grading.text import one_line, shown

OPPONENTS = ("random", "advanced")
OUTCOMES = ("wins", "losses", "draws")
MEASURE_COLUMNS = [column for side in ("X", "O") for column in
                   [f"{side} vs {opponent} {outcome}" for opponent in OPPONENTS
                    for outcome in OUTCOMES] + [f"{side} unbeatable"]]
COLUMNS = (["name", "origin", "status"] + [f"piece {n}" for n in PIECE_NUMBERS]
           + [f"points {n}" for n in PIECE_NUMBERS] + ["total"] + MEASURE_COLUMNS
           + ["seconds", "flags", "note", "log"])


def table(rows: list[Row]) -> list[list[str]]:
    """The report's cells, one list per submission, in ``COLUMNS`` order."""
    return [_cells(row) for row in rows]


def _cells(row: Row) -> list[str]:
    graded = bool(row.verdicts)
    cells = [shown(row.name), shown(row.origin), row.status]
    cells += [row.verdicts.get(n, "") for n in PIECE_NUMBERS]
    cells += [str(row.points.get(n, 0)) if graded else "" for n in PIECE_NUMBERS]
    cells.append(str(row.total))
    for side in ("X", "O"):
        measure = row.measures.get(side)
        for opponent in OPPONENTS:
            values = getattr(measure, opponent) if measure else ("", "", "")
            cells += [f"{value:.6f}" if measure else "" for value in values]
        cells.append(("yes" if measure.unbeatable else "no") if measure else "")
    notes = row.notes + [f"piece {n}: {message}" for n, message in sorted(row.messages.items())]
    return cells + [f"{row.seconds:.1f}", one_line(" | ".join(row.flags), 10_000),
                    one_line(" | ".join(notes), 10_000), row.log]
