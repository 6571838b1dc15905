"""Grading the whole class: ``jobs`` submissions at a time, each row reported as it is done.

Contract: ``grade_all(submissions, pristine, settings, report, measure_tables, weights)`` grades
every submission on a pool of ``settings.jobs`` threads (each waits for its child, so threads
are enough), hands each row to ``report.add`` as it is done, and returns the rows in input
order. Nothing a submission does can cost another its row: a refused one gets its row at once,
and an error of the grader's own while grading one (a bug, a table that cannot be measured, a
full disk) becomes that row's status, in one line. An ending signal (``stop_on_signals``:
SIGTERM, SIGHUP; and SIGINT) stops everything at once: the running sandboxes are killed
(``stop_all``), the workers clean their boxes up, and ``Stopped`` (or ``KeyboardInterrupt``)
reaches the caller, which keeps the rows done so far.
"""

from __future__ import annotations

import signal
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import TYPE_CHECKING, Callable

from tools.grading.handin import Submission
from tools.grading.results import Row, make_row
from tools.grading.sandbox import Settings, run_submission, stop_all
from tools.grading.text import one_line

if TYPE_CHECKING:
    from tools.grading.report import Report

REFUSED = "refused"
GRADER_ERROR = "grader error"


class Stopped(Exception):
    """SIGTERM (or another ending signal) came: the grading stops, keeping what it has."""

    def __init__(self, number: int) -> None:
        super().__init__(f"stopped by {signal.Signals(number).name}")
        self.number = number


ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def _stop(number: int, _frame) -> None:
    raise Stopped(number)


def stop_on_signals() -> None:
    """From now on SIGTERM and SIGHUP raise ``Stopped`` (SIGINT raises KeyboardInterrupt)."""
    for number in ENDING_SIGNALS:
        signal.signal(number, _stop)


def grade_one(submission: Submission, pristine: dict[str, bytes], settings: Settings,
              measure_tables: Callable, weights: dict[int, int]) -> Row:
    """One submission's row, whatever happens while it is graded."""
    if submission.refused:
        return Row(submission.name, REFUSED, notes=[submission.refused],
                   flags=list(submission.flags), origin=submission.origin)
    try:
        outcome = run_submission(submission, pristine, settings)
        return make_row(submission, outcome, settings.limits, measure_tables, weights)
    except Exception as error:  # noqa: BLE001  (one submission's trouble stays in its row)
        return Row(submission.name, GRADER_ERROR, flags=list(submission.flags),
                   notes=[one_line(f"grading it failed: {type(error).__name__}: {error}")],
                   origin=submission.origin)


def grade_all(submissions: list[Submission], pristine: dict[str, bytes], settings: Settings,
              report: Report, measure_tables: Callable,
              weights: dict[int, int]) -> list[Row]:
    """Grade every submission (see the module docstring); rows in input order."""
    from tqdm import tqdm

    rows: dict[int, Row] = {}
    pool = ThreadPoolExecutor(max_workers=settings.jobs)
    try:
        with tqdm(total=len(submissions), desc="grading", unit="submission") as bar:
            futures = {pool.submit(grade_one, submission, pristine, settings, measure_tables,
                                   weights): index
                       for index, submission in enumerate(submissions)}
            for future in as_completed(futures):
                index = futures[future]
                rows[index] = future.result()
                report.add(index, rows[index])
                bar.set_postfix_str(submissions[index].name[:30], refresh=False)
                bar.update()
    except BaseException:        # Ctrl-C, SIGTERM: no child may go on running
        stop_all()
        pool.shutdown(wait=True, cancel_futures=True)   # the workers remove their boxes
        raise
    pool.shutdown()
    return [rows[index] for index in range(len(submissions))]
