"""The class report: ``report.csv``, ``report.html`` and ``results.png``, written atomically.

Contract: ``write_report(rows, folder, context)`` writes the three files into ``folder``, each
measured table into ``folder/tables/`` (``NN-name-X.pth``, to play or measure again) and what
each check printed into ``folder/logs/`` (``NN-name.txt``), every file through a temporary file
in the same folder and ``os.replace``, so a reader sees either the previous file or the complete
new one. ``table(rows)`` is the report's table: one row
per submission with the columns ``COLUMNS`` -- each piece's verdict; the exact wins / losses /
draws of the trained X against ``random`` and ``advanced`` and whether it is unbeatable; the same
for O when piece 4 passed; the seconds the check took; a note. The HTML page holds the same table
(every string escaped) and the plot, embedded, so it is one self-contained file.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tools.grading.results import PIECE_NUMBERS, Row

CSV_NAME, HTML_NAME, PLOT_NAME = "report.csv", "report.html", "results.png"
OPPONENTS = ("random", "advanced")
OUTCOMES = ("wins", "losses", "draws")
COLUMNS = (["name", "status"] + [f"piece {n}" for n in PIECE_NUMBERS]
           + [column for side in ("X", "O") for column in
              [f"{side} vs {opponent} {outcome}" for opponent in OPPONENTS for outcome in OUTCOMES]
              + [f"{side} unbeatable"]]
           + ["seconds", "note"])
# A spreadsheet runs a cell that starts with one of these as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
PLOT_LABEL = 32                  # characters of a name shown in the plot
TABLES_FOLDER, LOGS_FOLDER = "tables", "logs"
SAFE_NAME = 40                   # characters of a name in a table's file name
_UNSAFE_IN_FILE_NAME = re.compile(r"[^A-Za-z0-9._-]|^\.+")


@dataclass(frozen=True)
class Context:
    """What the page says about the run itself."""
    title: str
    when: str
    isolation: str
    limits: str
    unavailable: tuple[str, ...] = ()


def table(rows: list[Row]) -> list[list[str]]:
    """The report's cells, one list per submission, in ``COLUMNS`` order."""
    return [_cells(row) for row in rows]


def _cells(row: Row) -> list[str]:
    cells = [row.name, row.status] + [row.verdicts.get(n, "") for n in PIECE_NUMBERS]
    for side in ("X", "O"):
        measure = row.measures.get(side)
        for opponent in OPPONENTS:
            values = getattr(measure, opponent) if measure else ("", "", "")
            cells += [f"{value:.6f}" if measure else "" for value in values]
        cells.append(("yes" if measure.unbeatable else "no") if measure else "")
    notes = row.notes + [f"piece {n}: {message}" for n, message in sorted(row.messages.items())]
    return cells + [f"{row.seconds:.1f}", " | ".join(notes)]


def write_report(rows: list[Row], folder: Path, context: Context) -> list[Path]:
    """Write the three files and the measured tables (see the module docstring); return the
    three files' paths."""
    cells = table(rows)
    plot = plot_png(rows)
    files = {CSV_NAME: csv_text(cells).encode("utf-8"),
             HTML_NAME: html_page(cells, context, plot).encode("utf-8"),
             PLOT_NAME: plot}
    folder = Path(folder)
    for subfolder, extra in ((TABLES_FOLDER, table_files(rows)), (LOGS_FOLDER, log_files(rows))):
        # A submission may have deleted what it could reach; the report is written all the same.
        (folder / subfolder).mkdir(parents=True, exist_ok=True)
        for name, data in extra.items():
            atomic_write(folder / subfolder / name, data)
    return [atomic_write(folder / name, data) for name, data in files.items()]


def file_stem(number: int, row: Row) -> str:
    """``NN-name``: the row's number and its name made safe for a file name."""
    return f"{number:02d}-{_UNSAFE_IN_FILE_NAME.sub('_', row.name)[:SAFE_NAME] or 'submission'}"


def table_files(rows: list[Row]) -> dict[str, bytes]:
    """The measured tables by file name: ``NN-name-X.pth``."""
    return {f"{file_stem(number, row)}-{side}.pth": data
            for number, row in enumerate(rows, start=1)
            for side, data in sorted(row.tables.items())}


def log_files(rows: list[Row]) -> dict[str, bytes]:
    """What each check printed (its first and last bytes) by file name: ``NN-name.txt``."""
    return {f"{file_stem(number, row)}.txt": row.output.encode("utf-8")
            for number, row in enumerate(rows, start=1)}


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


def csv_text(cells: list[list[str]]) -> str:
    """The CSV: a header, then one line per submission (no cell can run as a formula)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in cells:
        writer.writerow(["'" + cell if cell.startswith(FORMULA_STARTS) else cell
                         for cell in row])
    return buffer.getvalue()


# --- the page -----------------------------------------------------------------------------------

STYLE = """
body { font-family: sans-serif; margin: 2em; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.4em; text-align: left; vertical-align: top; }
th { background: #eee; }
td.passed { background: #d9f2d9; } td.failed, td.bad { background: #f7d4d4; }
td.other { background: #eee; } td.number { text-align: right; font-variant-numeric: tabular-nums; }
"""


def html_page(cells: list[list[str]], context: Context, plot: bytes) -> str:
    """The self-contained page: the run's facts, the table and the plot."""
    escape = html.escape
    facts = [("Isolation", context.isolation), ("Limits", context.limits)]
    facts += [("Not available here", line) for line in context.unavailable]
    image = base64.b64encode(plot).decode("ascii")
    lines = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{escape(context.title)}</title><style>{STYLE}</style></head><body>",
             f"<h1>{escape(context.title)}</h1>",
             f"<p>{plural(len(cells), 'submission')}, graded {escape(context.when)}; what each "
             f"check printed is in {LOGS_FOLDER}/.</p><ul>"]
    lines += [f"<li><b>{escape(label)}:</b> {escape(text)}</li>" for label, text in facts]
    lines += ["</ul><table><thead><tr>"
              + "".join(f"<th>{escape(column)}</th>" for column in COLUMNS)
              + "</tr></thead><tbody>"]
    lines += ["<tr>" + "".join(_html_cell(column, cell) for column, cell in zip(COLUMNS, row))
              + "</tr>" for row in cells]
    lines += ["</tbody></table>",
              f'<p><img alt="The trained X of each submission against random and advanced" '
              f'src="data:image/png;base64,{image}"></p>', "</body></html>"]
    return "\n".join(lines) + "\n"


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _html_cell(column: str, cell: str) -> str:
    if column.startswith("piece") and cell:
        kind = cell if cell in ("passed", "failed") else "other"
    elif column == "status" and cell:
        kind = "passed" if cell == "graded" else "bad"
    elif column.endswith("unbeatable") and cell:
        kind = "passed" if cell == "yes" else "failed"
    elif column.startswith(("X ", "O ")) or column == "seconds":
        kind = "number"
    else:
        kind = ""
    attribute = f' class="{kind}"' if kind else ""
    return f"<td{attribute}>{html.escape(cell)}</td>"


# --- the plot -----------------------------------------------------------------------------------

COLOURS = {"wins": "tab:green", "draws": "tab:gray", "losses": "tab:red"}


def plot_png(rows: list[Row]) -> bytes:
    """One bar per submission and opponent: the trained X's exact wins, draws and losses."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(12, 1.5 + 0.35 * max(len(rows), 1)), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, 2, sharey=True)
    places = list(range(len(rows)))[::-1]          # the first submission on top
    names = [_label(row.name) for row in rows]
    for ax, opponent in zip(axes, OPPONENTS):
        for place, row in zip(places, rows):
            measure = row.measures.get("X")
            if measure is None:
                ax.text(0.01, place, "no trained X", va="center", fontsize=8, color="tab:gray")
                continue
            wins, losses, draws = getattr(measure, opponent)
            left = 0.0
            for outcome, value in (("wins", wins), ("draws", draws), ("losses", losses)):
                ax.barh(place, value, left=left, color=COLOURS[outcome], height=0.7)
                left += value
            if losses > 0:
                ax.text(1.01, place, f"loses {losses:.1%}", va="center", fontsize=8,
                        color=COLOURS["losses"])
        ax.set_xlim(0, 1.25)                       # room for the "loses" labels
        ax.set_xticks([0, 0.25, 0.5, 0.75, 1])
        ax.set_title(f"X against {opponent} (exact)")
        ax.set_xlabel("probability: wins (green), draws (grey), losses (red)")
    axes[0].set_yticks(places, names)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _label(name: str) -> str:
    # A name is the student's; matplotlib would read "$...$" in it as mathematics.
    short = name if len(name) <= PLOT_LABEL else name[:PLOT_LABEL - 3] + "..."
    return short.replace("$", r"\$")
