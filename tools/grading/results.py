"""From what a child left behind to a row of the class report.

Contract: ``make_row(submission, outcome, limits, measure_tables, weights)`` returns a ``Row``.
When the check ended by itself and its verdict (sent over the pipe, ``Outcome.verdict``) is well
formed, the row holds each piece's verdict, message and points (``weights``: piece -> points,
the Classroom weights by default); otherwise its status says why not: timed out, killed (memory,
CPU time, a signal) or crashed, with the last line the child wrote to stderr. The verdict is the
check's format 1: ``{"format": 1, "pieces": [{"number", "verdict", "message", ...}, ...],
"tables": {"X": path or null, "O": path or null}, ...}``.

The trained tables are measured by ``measure_tables({side: bytes})`` (``measure.measure_all``,
in one limited child). X's table is measured when the check trained one; O's only when piece 4
passed.
A piece that passed although its function is still the issued stub (``Submission.untouched``)
is "flagged": no honest check passes a function that always raises. So is a piece the check
failed as not the student's own work (``not_own``: it reached into the check's code or a
shipped table, or main saved a table its updates did not make). When the real training with the
student's main failed, the note says why; when it was not the student's own work, the piece whose
main trained that side (3 for X, 4 for O) is flagged too.
When piece 3 passes and piece 2 does not, a note says that piece 3 was judged on the check's
own episodes. A table that the games of its training, played again by the grader on the stream
it drew, do not give (``Measure.unexplained``: a shipped table, a classmate's, whatever the check
in the box said) is flagged, and the piece that trained it (3 for X, 4 for O) is "flagged" and
earns nothing; so is one whose file is not the one the check judged (its bytes' SHA-256 is not
the ``sha256`` of the verdict's ``training``). Every
string that came from a submission is shown as one line, its control and bidirectional
characters escaped (``shown``).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from tictactoe_rl.selfcheck.pieces import PIECES
from tictactoe_rl.selfcheck.verdicts import FAILED, PASSED, VERDICTS
from tools.grading.box import TABLES
from tools.grading.handin import Submission
from tools.grading.launch import SIGNAL_BASE
from tools.grading.limits import Limits
from tools.grading.measure import Measure, MeasureError, Trained
from tools.grading.sandbox import CHECK_STATUSES, Outcome
from tools.grading.text import one_line

RESULT_FORMAT = 1
FLAGGED = "flagged"
PIECE_NUMBERS = tuple(piece.number for piece in PIECES)
CLASSROOM_WEIGHTS = {piece.number: piece.points for piece in PIECES}
TRAINED_BY = {"X": 3, "O": 4}       # the piece whose main trained each side's table
GRADED = "graded"
# Piece 3 runs main on the check's own episodes, not on the student's Generate_episode.
OWN_EPISODES = ("piece 3 passed although piece 2 did not: the check judges main on episodes of "
                "its own, in place of the student's Generate_episode, so each piece counts "
                "alone")
MEMORY_SIGNS = ("MemoryError", "Cannot allocate memory", "bad_alloc", "out of memory")


@dataclass
class Row:
    """One submission's line of the report."""
    name: str
    status: str
    verdicts: dict[int, str] = field(default_factory=dict)
    messages: dict[int, str] = field(default_factory=dict)
    points: dict[int, int] = field(default_factory=dict)
    measures: dict[str, Measure] = field(default_factory=dict)    # "X" / "O"
    tables: dict[str, bytes] = field(default_factory=dict)        # the measured tables' bytes
    output: str = ""            # the first and last bytes the check printed, for the teacher
    seconds: float = 0.0
    flags: list[str] = field(default_factory=list)                # signs of cheating
    notes: list[str] = field(default_factory=list)
    origin: str = ""            # where the hand-in was read from, as the grader was given it
    log: str = ""               # the report's file of what its check printed (``Report.add``)

    @property
    def total(self) -> int:
        return sum(self.points.values())


class ResultError(ValueError):
    """The check's verdict is not what the format says."""


def make_row(submission: Submission, outcome: Outcome, limits: Limits,
             measure_tables: Callable[[dict[str, bytes]], dict[str, Measure | MeasureError]],
             weights: dict[int, int] = CLASSROOM_WEIGHTS) -> Row:
    """The row of ``submission`` from the ``outcome`` of its child; see the module docstring."""
    row = Row(submission.name, GRADED, origin=submission.origin, seconds=outcome.seconds, notes=list(submission.notes),
              flags=list(submission.flags),
              output=f"--- stdout ---\n{outcome.stdout}\n--- stderr ---\n{outcome.stderr}\n")
    if outcome.timed_out:
        row.status = "timed out"
        row.notes.append(f"still running after {limits.seconds:g} s: stopped")
        return row
    # The box's path says nothing to a teacher (and is gone): messages name "its copy" instead.
    private = (lambda text: text.replace(outcome.box, "(its copy)")) if outcome.box else str
    try:
        if outcome.returncode not in CHECK_STATUSES:
            raise ResultError("the check did not end by itself, so it left no verdict")
        result = parse_result(outcome.verdict)
    except ResultError as problem:
        row.status, reason = failure_status(outcome)
        row.notes.append(private(f"{problem}; {reason}" if reason else str(problem)))
        return row
    for piece in result["pieces"]:
        row.verdicts[piece["number"]] = piece["verdict"]
        if piece["verdict"] != PASSED and piece["message"]:
            row.messages[piece["number"]] = private(piece["message"])
        if piece["not_own"] and piece["verdict"] == FAILED:
            row.verdicts[piece["number"]] = FLAGGED
            row.flags.append(f"piece {piece['number']}: not the student's own work")
    for side, failure in result["training_failed"].items():
        _training_failed(row, side, failure, private)
    for number, stub in sorted(submission.untouched.items()):
        if row.verdicts.get(number) == PASSED:      # a stub always raises: a forged verdict
            row.verdicts[number] = FLAGGED
            row.flags.append(f"piece {number} passed with {stub} still the issued stub")
    tables = {}
    for side in ("X", "O"):
        if side == "O" and row.verdicts.get(TRAINED_BY["O"]) != PASSED:
            continue
        data = _table_bytes(result["tables"].get(side), outcome)
        if isinstance(data, str):
            row.notes.append(f"{side} table: {data}")
        elif data is not None and hashlib.sha256(data).hexdigest() != result["hashes"].get(side):
            row.flags.append(f"the {side} table is not the one the check judged")
            row.verdicts[TRAINED_BY[side]] = FLAGGED
            row.messages[TRAINED_BY[side]] = ("the table its main left was changed after the "
                                              "check had judged it")
        elif data is not None:
            tables[side] = Trained(data, outcome.tables.get(f"{side}.games"), outcome.stream)
    for side, measure in (measure_tables(tables) if tables else {}).items():
        _measure_into(row, side, tables[side].table, measure)
    if row.verdicts.get(2) != PASSED and row.verdicts.get(3) == PASSED:
        row.notes.append(OWN_EPISODES)
    row.points = {number: weights.get(number, 0) for number, verdict in row.verdicts.items()
                  if verdict == PASSED}
    return row


def _training_failed(row: Row, side: str, failure: dict, private: Callable[[str], str]) -> None:
    """The real training with the student's main failed: a note says why. When it was not the
    student's own work, the piece that trained that side (if it passed) is flagged and earns
    nothing; a run stopped at the check's time limit, or that ended without a table to measure,
    costs nothing (the piece was judged on the check's own episodes)."""
    piece = TRAINED_BY[side]
    message = private(f"the training of {side} with its main: {failure['message']}")
    if failure["not_own"] and row.verdicts.get(piece) == PASSED:
        row.flags.append(f"the {side} training: not the student's own work")
        row.verdicts[piece], row.messages[piece] = FLAGGED, message
    else:
        row.notes.append(message)


def parse_result(data: bytes | None) -> dict:
    """The check's verdict, validated; ``ResultError`` says what is wrong with it."""
    if data is None:
        raise ResultError("no verdict from the check")
    try:
        result = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ResultError("the check's verdict is not JSON") from None
    if not isinstance(result, dict) or result.get("format") != RESULT_FORMAT:
        raise ResultError(f"the check's verdict is not in format {RESULT_FORMAT}")
    pieces, tables = result.get("pieces"), result.get("tables") or {}
    if not isinstance(pieces, list) or not isinstance(tables, dict):
        raise ResultError("the check's verdict has no list of pieces")
    clean = {}
    for piece in pieces:
        number = piece.get("number") if isinstance(piece, dict) else None
        if number not in PIECE_NUMBERS or piece.get("verdict") not in VERDICTS:
            raise ResultError("the check's verdict names an unknown piece or verdict")
        clean[number] = {"number": number, "verdict": piece["verdict"],
                         "message": one_line(piece.get("message") or ""),
                         "not_own": piece.get("not_own") is True}
    paths = {side: tables.get(side) for side in ("X", "O")
             if isinstance(tables.get(side), str)}
    training = result.get("training") if isinstance(result.get("training"), dict) else {}
    hashes = {side: training[side].get("sha256") for side in paths
              if isinstance(training.get(side), dict)}
    failed = {side: {"message": one_line(run.get("message") or "no reason given"),
                     "not_own": run.get("not_own") is True}
              for side, run in training.items() if side in ("X", "O") and isinstance(run, dict)
              and run.get("verdict") != PASSED}
    return {"pieces": [clean[n] for n in sorted(clean)], "tables": paths,
            "hashes": {side: value for side, value in hashes.items() if isinstance(value, str)},
            "training_failed": failed}


def failure_status(outcome: Outcome) -> tuple[str, str]:
    """Why a child left no usable verdict: a status and the last line of its stderr."""
    lines = [line for line in outcome.stderr.splitlines() if line.strip()]
    last = one_line(lines[-1]) if lines else ""
    memory = outcome.out_of_memory or any(sign in outcome.stderr for sign in MEMORY_SIGNS)
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
    """The bytes of the table the verdict names, if it is one the check wrote into its tables
    folder; a string says what is wrong; ``None`` when no table was named."""
    if path is None:
        return None
    tables = Path(outcome.box) / TABLES
    named = Path(path) if os.path.isabs(path) else Path(outcome.box) / "repo" / path
    try:
        relative = Path(os.path.normpath(named)).relative_to(tables)
    except ValueError:
        return "not in the tables folder given to the check; ignored"
    data = outcome.tables.get(str(relative))
    return data if data is not None else "missing, too large or not a regular file"


def _measure_into(row: Row, side: str, data: bytes, measure: Measure | MeasureError) -> None:
    if isinstance(measure, MeasureError):
        row.notes.append(f"{side} table: {one_line(measure)}")
        return
    row.measures[side] = measure
    row.tables[side] = data
    if measure.unexplained:
        piece = TRAINED_BY[side]
        row.flags.append(f"the {side} training: not the student's own work")
        row.verdicts[piece] = FLAGGED
        row.messages[piece] = f"the training of {side} with its main: {measure.unexplained}"
