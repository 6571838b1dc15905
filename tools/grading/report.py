"""The class report: ``report.csv``, ``report.html`` and ``results.png``, written as grading goes.

Contract: a ``Report(folder, hand_ins, context)`` (each hand-in's name and origin) is told each
row as it is done (``add``): it writes that row's measured tables into ``folder/tables/``
(``NN-name-X.pth``, to play or measure again) and what its check printed into ``folder/logs/``
(``NN-name.txt``), then writes ``report.csv`` again with every row done so far, so that a crash
or Ctrl-C keeps them. No cell of the CSV starts a formula in a spreadsheet that reads it with
"," or with ";" as the separator (``inert``).
``finish(stopped)`` writes the three files with every row (one not graded says so). Every file
goes through a temporary file in the same folder and ``os.replace``: a reader sees the previous
file or the complete new one. When the folder cannot be written (a full disk), the CSV goes to a
fallback file instead (``fallback``: in the temporary folder, else the home folder), and the
grader says where; with no room anywhere, the grader prints them (``grades``).

Its table (``cells.table``) is the CSV's, and the page's (``page.html_page``).
"""

from __future__ import annotations

import csv
import io
import os
import re
import tempfile
import time
from pathlib import Path

from tools.grading.cells import COLUMNS, table
from tools.grading.page import Context, html_page, plot_png
from tools.grading.results import Row
from tools.grading.text import one_line

CSV_NAME, HTML_NAME, PLOT_NAME = "report.csv", "report.html", "results.png"
# A spreadsheet runs a cell that starts with one of these as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# A spreadsheet whose list separator is ";" (German, French, Dutch... locales) splits each line
# at ";" and no longer honours the quotes after its first field: what follows a ";" in a cell
# starts a cell of its own there, also after spaces or quotes.
_AFTER_SEMICOLON = re.compile(r";(?=[\s\"]*[=+\-@])")
TABLES_FOLDER, LOGS_FOLDER = "tables", "logs"
SAFE_NAME = 40                   # characters of a name in a table's file name
STOPPED = "not graded (the grading was stopped)"
_UNSAFE_IN_FILE_NAME = re.compile(r"[^A-Za-z0-9._-]|^\.+")


def csv_text(cells: list[list[str]]) -> str:
    """The CSV: a header, then one line per submission (no cell can run as a formula, read with
    "," or ";" as the separator)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in cells:
        writer.writerow([inert(cell) for cell in row])
    return buffer.getvalue()


def inert(cell: str) -> str:
    """``cell`` with a ``'`` before whatever would start a formula: at its start, and after a
    ``;`` (see ``_AFTER_SEMICOLON``)."""
    cell = "'" + cell if cell.startswith(FORMULA_STARTS) else cell
    return _AFTER_SEMICOLON.sub(";'", cell)


class Report:
    """The report of one grading run, written as rows come (see the module docstring)."""

    def __init__(self, folder: Path, hand_ins: list[tuple[str, str]], context: Context) -> None:
        self.folder, self.hand_ins, self.context = Path(folder), hand_ins, context
        self.rows: dict[int, Row] = {}
        self.fallback: Path | None = None
        self.problem = ""           # why the folder could not be written
        self.grades = b""           # the CSV as last written

    def add(self, index: int, row: Row) -> None:
        self.rows[index] = row
        stem = file_stem(index + 1, row)
        row.log = f"{LOGS_FOLDER}/{stem}.txt"
        extra = {row.log: row.output.encode("utf-8", "backslashreplace")}
        extra.update({f"{TABLES_FOLDER}/{stem}-{side}.pth": data
                      for side, data in sorted(row.tables.items())})
        for name, data in extra.items():
            self._write(name, data)
        self._write(CSV_NAME, csv_text(table(self.done())).encode("utf-8"))

    def done(self) -> list[Row]:
        return [self.rows[index] for index in sorted(self.rows)]

    def finish(self, stopped: bool = False) -> list[Path]:
        """Write the three files with every row; return where they are."""
        rows = [self.rows.get(index) or Row(name, STOPPED if stopped else "not graded",
                                                origin=origin)
                for index, (name, origin) in enumerate(self.hand_ins)]
        cells = table(rows)
        self._write(CSV_NAME, csv_text(cells).encode("utf-8"))
        try:
            plot, narrow = plot_png(rows), plot_png(rows, narrow=True)
        except Exception as error:  # noqa: BLE001  (a report without its plot is still one)
            plot = narrow = b""
            self.context = self.context.with_note(f"the plot could not be drawn: "
                                                  f"{one_line(error, 120)}")
        written = [self._write(HTML_NAME, html_page(cells, self.context, plot, narrow)
                                        .encode("utf-8"))]
        if plot:
            written.append(self._write(PLOT_NAME, plot))
        if self.problem:
            return [self.fallback] if self.fallback else []
        return [self.folder / CSV_NAME, *written]

    def _write(self, name: str, data: bytes) -> Path | None:
        if name == CSV_NAME:
            self.grades = data
        if not self.problem:
            try:
                path = self.folder / name
                path.parent.mkdir(parents=True, exist_ok=True)
                return atomic_write(path, data)
            except OSError as error:
                self.problem = error.strerror or str(error)
                self.fallback = fallback_path()
        if name == CSV_NAME and self.fallback is not None:
            try:             # only the grades go to the fallback: it may be small too
                atomic_write(self.fallback, data)
            except OSError:
                self.fallback = None     # the caller prints the grades instead
        return self.fallback


def fallback_path() -> Path | None:
    """A file for the grades where there is room: the temporary folder, else the home folder
    (``None``: nowhere)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for folder in (tempfile.gettempdir(), os.path.expanduser("~")):
        try:
            with tempfile.TemporaryFile(dir=folder) as probe:
                probe.write(b"x" * 65536)
                probe.flush()
                os.fsync(probe.fileno())
            return Path(folder) / f"grade-report-{stamp}-{os.getpid()}.csv"
        except OSError:
            continue
    return None


def file_stem(number: int, row: Row) -> str:
    """``NN-name``: the row's number and its name made safe for a file name."""
    return f"{number:02d}-{_UNSAFE_IN_FILE_NAME.sub('_', row.name)[:SAFE_NAME] or 'submission'}"


def atomic_write(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file beside it and ``os.replace``."""
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    return path
