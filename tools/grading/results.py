"""From what a child left behind to a row of the class report.

Contract: ``make_row(submission, outcome, limits)`` returns a ``Row``. When the check's JSON
result is there and well formed, the row holds each piece's verdict and message (the check's
format 1: ``{"format": 1, "pieces": [{"number", "title", "required", "verdict", "message",
"seconds"}, ...], "tables": {"X": path or null, "O": path or null}, "seconds": s}``); otherwise
its status says why not: timed out, killed (memory, CPU time, a signal) or crashed, with the
last line the child wrote to stderr. Every string that came from the child is cut to one short
line of printable characters.

The trained tables are measured here, in the grader's own process, with the repository's own
code: loaded with the safe loader (``AI_Agent(side, Q_table_PATH=..., train=False)``), then the
exact win / loss / draw probabilities against ``random`` and ``advanced``
(``training.curves.exact_results``) and whether any opponent can beat it (``exact.solver.worst_case``).
X's table is measured when the check trained one; O's only when piece 4 passed.
"""

from __future__ import annotations

import json
import os
import re
import signal
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from AI_Agent import AI_Agent
from training.curves import exact_results
from tables.files import TableError
from exact.solver import worst_case
from State import O, X
from tools.exercise_pieces import PIECES
from tools.grading.launch import SIGNAL_BASE
from tools.grading.sandbox import TABLES_NAME, Limits, Outcome
from tools.grading.submissions import Submission

RESULT_FORMAT = 1
# "skipped": the check did not run the piece again after an earlier one running the same
# functions timed out.
VERDICTS = ("passed", "failed", "not written", "not attempted", "timed out", "skipped")
PIECE_NUMBERS = tuple(piece.number for piece in PIECES)
O_PIECE = 4                     # the agent for O
MAX_MESSAGE = 300               # characters kept of a message that came from a child
GRADED = "graded"
MEMORY_SIGNS = ("MemoryError", "Cannot allocate memory", "bad_alloc", "out of memory")
# torch.load's allowlist of safe globals is one setting for the whole process: two loads at once
# (two submissions finishing together under --jobs) would undo each other's.
_LOADING = threading.Lock()
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


@dataclass(frozen=True)
class Measure:
    """A trained table's exact results, from its own side: (wins, losses, draws) each."""
    random: tuple[float, float, float]
    advanced: tuple[float, float, float]
    unbeatable: bool


@dataclass
class Row:
    """One submission's line of the report."""
    name: str
    status: str
    verdicts: dict[int, str] = field(default_factory=dict)
    messages: dict[int, str] = field(default_factory=dict)
    measures: dict[str, Measure] = field(default_factory=dict)    # "X" / "O"
    tables: dict[str, bytes] = field(default_factory=dict)        # the measured tables' bytes
    output: str = ""            # the first and last bytes the check printed, for the teacher
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


class ResultError(ValueError):
    """The check's result file is not what the format says."""


def one_line(text: object, limit: int = MAX_MESSAGE) -> str:
    """``text`` as one line of printable characters, at most ``limit`` long."""
    line = " ".join(_UNPRINTABLE.sub(" ", str(text)).split())
    return line if len(line) <= limit else line[:limit - 3] + "..."


def make_row(submission: Submission, outcome: Outcome, limits: Limits) -> Row:
    """The row of ``submission`` from the ``outcome`` of its child; see the module docstring."""
    row = Row(submission.name, GRADED, seconds=outcome.seconds, notes=list(submission.notes),
              output=f"--- stdout ---\n{outcome.stdout}\n--- stderr ---\n{outcome.stderr}\n")
    if outcome.timed_out:
        row.status = "timed out"
        row.notes.append(f"still running after {limits.seconds:g} s: stopped")
        return row
    # The box's path says nothing to a teacher (and is gone): messages name "its copy" instead.
    private = (lambda text: text.replace(outcome.box, "(its copy)")) if outcome.box else str
    try:
        result = parse_result(outcome.result)
    except ResultError as problem:
        row.status, reason = failure_status(outcome)
        row.notes.append(private(f"{problem}; {reason}" if reason else str(problem)))
        return row
    for piece in result["pieces"]:
        row.verdicts[piece["number"]] = piece["verdict"]
        if piece["verdict"] != "passed" and piece["message"]:
            row.messages[piece["number"]] = private(piece["message"])
    for side in ("X", "O"):
        if side == "O" and row.verdicts.get(O_PIECE) != "passed":
            continue
        data = _table_bytes(result["tables"].get(side), outcome)
        if isinstance(data, str):
            row.notes.append(f"{side} table: {data}")
        elif data is not None:
            _measure_into(row, side, data)
    return row


def parse_result(data: bytes | None) -> dict:
    """The check's result, validated; ``ResultError`` says what is wrong with it."""
    if data is None:
        raise ResultError("no result file")
    try:
        result = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ResultError("the result file is not JSON") from None
    if not isinstance(result, dict) or result.get("format") != RESULT_FORMAT:
        raise ResultError(f"the result file is not in format {RESULT_FORMAT}")
    pieces, tables = result.get("pieces"), result.get("tables", {})
    if not isinstance(pieces, list) or not isinstance(tables, dict):
        raise ResultError("the result file has no list of pieces")
    clean = {}
    for piece in pieces:
        number = piece.get("number") if isinstance(piece, dict) else None
        if number not in PIECE_NUMBERS or piece.get("verdict") not in VERDICTS:
            raise ResultError("the result file names an unknown piece or verdict")
        clean[number] = {"number": number, "verdict": piece["verdict"],
                         "message": one_line(piece.get("message") or "")}
    paths = {side: tables.get(side) for side in ("X", "O")
             if isinstance(tables.get(side), str)}
    return {"pieces": [clean[n] for n in sorted(clean)], "tables": paths}


def failure_status(outcome: Outcome) -> tuple[str, str]:
    """Why a child left no usable result: a status and the last line of its stderr."""
    lines = [line for line in outcome.stderr.splitlines() if line.strip()]
    last = one_line(lines[-1]) if lines else ""
    memory = any(sign in outcome.stderr for sign in MEMORY_SIGNS)
    code = outcome.returncode
    if code is not None and code >= SIGNAL_BASE:
        number = code - SIGNAL_BASE
        name = signal.Signals(number).name if number in signal.valid_signals() else str(number)
        if memory:
            return "killed (memory)", last
        if number == signal.SIGXCPU:
            return "killed (CPU time)", last
        return f"killed ({name})", last
    if memory:
        return "killed (memory)", last
    return (f"crashed (exit status {code})" if code else "crashed"), last


def _table_bytes(path: str | None, outcome: Outcome) -> bytes | str | None:
    """The bytes of the table the result names, if it is one the child wrote into its tables
    folder; a string says what is wrong; ``None`` when no table was named."""
    if path is None:
        return None
    tables = Path(outcome.box) / "out" / TABLES_NAME
    named = Path(path) if os.path.isabs(path) else Path(outcome.box) / "repo" / path
    try:
        relative = Path(os.path.normpath(named)).relative_to(tables)
    except ValueError:
        return "not in the tables folder given to the check; ignored"
    data = outcome.tables.get(str(relative))
    return data if data is not None else "missing, too large or not a regular file"


def _measure_into(row: Row, side: str, data: bytes) -> None:
    try:
        row.measures[side] = measure(data, X if side == "X" else O)
        row.tables[side] = data
    except TableError as error:
        row.notes.append(f"{side} table: {one_line(error)}")


def measure(data: bytes, side: int) -> Measure:
    """The exact results of the table in ``data`` (a table file's bytes) for ``side``; raises
    ``TableError`` (naming the table, not a file of the grader's) for an unusable table."""
    with tempfile.TemporaryDirectory(prefix="grade-table-") as folder:
        path = os.path.join(folder, "table.pth")
        with open(path, "wb") as stream:
            stream.write(data)
        try:
            with _LOADING:
                agent = AI_Agent(side, Q_table_PATH=path, train=False)
        except TableError as error:
            raise TableError(str(error).replace(path, "the table")) from None
    results = exact_results(agent)
    return Measure(results["random"], results["advanced"], worst_case(agent)[0] >= 0)
