"""The report's page and plot: ``html_page(cells, context, plot, narrow_plot)`` and
``plot_png(rows, narrow)``.

The page is one self-contained file (the plots embedded) for the teacher, readable on a 1280-
and an 800-pixel screen and on a phone 390 pixels wide (checked in a browser:
docs/images/grading_report_*.png): the grades first, so that the first hand-in's shows on the
first screen, then a legend of the columns in their order, the run's facts and the plot (on a
narrow screen, its panels one above the other). In the table: the pieces' verdicts and points
in one cell, each side's exact results against an opponent in one cell (wins / draws / losses,
as the plot stacks them), flags and notes one a line, the check's messages to the student
quoted as such, long notes folded (``<details>``), a message cut short ("...") linked to the
log that holds it whole; words break only between words, and the table scrolls sideways rather
than overlap when the screen is narrower. Every string is escaped.
"""

from __future__ import annotations

import base64
import html
import io
from dataclasses import dataclass, replace

from tools.grading.cells import COLUMNS, OPPONENTS

PLOT_LABEL = {False: 32, True: 18}    # characters of a name shown in the plot (narrow: True)
NARROW = 600                     # pixels: a screen this narrow gets the plot's narrow form
FOLD_AT = 90                     # characters of a note shown before it folds


@dataclass(frozen=True)
class Context:
    """What the page says about the run itself."""
    title: str
    when: str
    isolation: str
    limits: str
    unavailable: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def with_note(self, note: str) -> "Context":
        return replace(self, notes=(*self.notes, note))


STYLE = """
body { font-family: sans-serif; margin: 1em; max-width: 1260px; line-height: 1.3; }
.wide { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.8em; width: 100%; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.35em; text-align: left; vertical-align: top;
  overflow-wrap: normal; word-break: normal; hyphens: manual; }
th { background: #eee; font-weight: bold; }
td.name { min-width: 7em; max-width: 12em; overflow-wrap: break-word; }
small.origin { color: #555; }
td.note { min-width: 16em; max-width: 26em; } td.flags { min-width: 9em; max-width: 14em; }
td.note ul, td.flags ul, td.pieces ul { margin: 0; padding-left: 1em; }
td.pieces ul { list-style: none; padding: 0; } td.pieces li { white-space: nowrap; }
.passed { background: #d9f2d9; } .failed, .bad { background: #f7d4d4; }
.other { background: #eee; }
td.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
dl.legend { display: grid; grid-template-columns: max-content 1fr; gap: 0.1em 0.8em;
  font-size: 0.9em; } dl.legend dt { font-weight: bold; } dl.legend dd { margin: 0; }
summary { cursor: pointer; }
@media (max-width: 1000px) {  /* a narrow screen: one card per hand-in, each value labelled */
  body { margin: 0.5em; } thead { display: none; } table, tbody, tr { display: block; }
  tr { border: 1px solid #999; margin-bottom: 0.8em; }
  td { display: grid; grid-template-columns: 11em 1fr; gap: 0.6em; border: none;
    border-bottom: 1px solid #ddd; max-width: none !important; text-align: left !important; }
  td::before { content: attr(data-label); font-weight: bold; white-space: normal; }
  dl.legend { grid-template-columns: 1fr; } dl.legend dd { margin-bottom: 0.3em; } }
"""
# The result of a side against an opponent, in the order the plot stacks its bars.
SHOWN_OUTCOMES = ("wins", "draws", "losses")


def headers(sides: tuple[str, ...]) -> list[str]:
    """The table's column headings, with the results of ``sides`` ("X", and "O" when any
    hand-in's O was measured)."""
    return (["name", "status", "pieces: verdict (points)", "total points"]
            + [f"{side} vs {opponent}: % wins / draws / losses" for side in sides
               for opponent in OPPONENTS]
            + [f"{side} can be beaten?" for side in sides] + ["seconds", "flags", "notes for you"])
# What each column holds, in the columns' order: the page's legend.
LEGEND = (("name", "the hand-in's name (a number added when an earlier one has it), and below "
                   "it, where it was read from (its folder or zip, as the grader was given it)"),
          ("status", "graded, or why the check did not end by itself (timed out, killed, ...)"),
          ("pieces", "each piece's verdict and the points it earned: passed, failed, not "
                     "written (a required piece still the issued stub), not attempted (a bonus "
                     "piece the student has not started: piece 4 while Generate_episode and main "
                     "never look at the learner's side, piece 5 while its functions are the "
                     "issued stubs; the notes say which), "
                     "timed out, skipped (not run again: an earlier piece with the same "
                     "functions timed out), flagged (not the student's own work: no points)"),
          ("total points", "the points of the pieces passed (by --weights)"),
          ("X vs random ... O vs advanced", "the trained table's exact results against that "
           "opponent, in percent: wins / draws / losses (O only when piece 4 passed)"),
          ("can be beaten?", "no: no opponent can ever beat the trained table; yes: one line "
           "of play beats it"),
          ("seconds", "how long the whole check of the hand-in took"),
          ("flags", "signs that the work may not be the student's own: look at these hand-ins "
                    "before their points count"),
          ("notes for you", "files missing or refused, and for each piece that did not pass, "
                            "what the self-check told the student"))


def html_page(cells: list[list[str]], context: Context, plot: bytes,
              narrow_plot: bytes = b"") -> str:
    """The self-contained page: the table, the legend, the run's facts and the plot (its narrow
    form, when given, on a narrow screen)."""
    escape = html.escape
    facts = [("Isolation", context.isolation), ("Limits", context.limits)]
    facts += [("Not available here", line) for line in context.unavailable]
    facts += [("Note", line) for line in context.notes]
    lines = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width">',
             f"<title>{escape(context.title)}</title><style>{STYLE}</style></head><body>",
             f"<h1>{escape(context.title)}</h1>",
             f"<p>{len(cells)} submission{'' if len(cells) == 1 else 's'}, graded "
             f"{escape(context.when)}. What each column means and how the run was sealed: "
             '<a href="#legend">below the table</a>.</p>']
    rows = [dict(zip(COLUMNS, row)) for row in cells]
    # O's columns only when some O was measured (piece 4 is a bonus): a narrower table
    sides = ("X", "O") if any(row["O unbeatable"] for row in rows) else ("X",)
    lines += ['<div class="wide"><table><thead><tr>'
              + "".join(f"<th>{escape(h)}</th>" for h in headers(sides)) + "</tr></thead><tbody>"]
    labels = [escape(h, quote=True) for h in headers(sides)]
    lines += ["<tr>" + "".join(td.replace("<td", f'<td data-label="{label}"', 1)
                               for td, label in zip(_html_row(row, sides), labels)) + "</tr>"
              for row in rows]
    lines.append("</tbody></table></div>")
    lines.append('<dl class="legend" id="legend">' + "".join(
        f"<dt>{escape(column)}</dt><dd>{escape(meaning)}</dd>" for column, meaning in LEGEND)
        + "</dl><p>report.csv has every number; what each check printed is in logs/.</p><ul>")
    lines += [f"<li><b>{escape(label)}:</b> {escape(text)}</li>" for label, text in facts]
    lines.append("</ul>")
    if plot:
        narrow = (f'<source media="(max-width: {NARROW}px)" srcset="{_data(narrow_plot)}">'
                  if narrow_plot else "")
        lines.append(f'<p><picture>{narrow}<img style="max-width: 100%" alt="The trained X of '
                     f'each submission against random and advanced" src="{_data(plot)}">'
                     "</picture></p>")
    lines.append("</body></html>")
    return "\n".join(lines) + "\n"


def _data(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _html_row(cell: dict[str, str], sides: tuple[str, ...]) -> list[str]:
    """The row's cells (``<td>``), in the order of ``headers(sides)``."""
    # a name breaks after its - _ and / rather than inside a word
    name, origin = (html.escape(cell[key]).replace("-", "-<wbr>").replace("_", "_<wbr>")
                    .replace("/", "/<wbr>") for key in ("name", "origin"))
    tds = [f'<td class="name"><span>{name}<br><small class="origin">{origin}</small></span></td>',
           _td(cell["status"], "passed" if cell["status"] == "graded" else "bad")]
    pieces = []
    for n in range(1, 6):
        verdict, points = cell[f"piece {n}"], cell[f"points {n}"]
        if verdict:
            kind = verdict if verdict in ("passed", "failed") else "other"
            pieces.append(f'<li class="{kind}">{n}: {html.escape(verdict)} ({points})</li>')
    tds.append(f'<td class="pieces"><ul>{"".join(pieces)}</ul></td>' if pieces else "<td></td>")
    tds.append(_td(cell["total"], "number"))
    for side in sides:
        for opponent in OPPONENTS:
            values = [cell[f"{side} vs {opponent} {outcome}"] for outcome in SHOWN_OUTCOMES]
            text = " / ".join(f"{100 * float(value):.1f}" for value in values) if values[0] else ""
            tds.append(_td(text, "number"))
    for side in sides:
        verdict = cell[f"{side} unbeatable"]
        beaten = {"yes": "no", "no": "yes"}.get(verdict, "")
        tds.append(_td(beaten, ("passed" if beaten == "no" else "failed") if beaten else ""))
    return tds + [_td(cell["seconds"], "number"), _listed(cell["flags"], "flags"),
                  _notes(cell["note"], cell["log"])]


def _td(text: str, kind: str = "") -> str:
    attribute = f' class="{kind}"' if kind else ""
    return f"<td{attribute}>{html.escape(text)}</td>"


def _listed(joined: str, kind: str) -> str:
    """A cell of `` | ``-joined items, one item a line (red when there is any)."""
    items = [item for item in joined.split(" | ") if item]
    if not items:
        return f'<td class="{kind}"></td>'
    return (f'<td class="{kind} bad"><ul>'
            + "".join(f"<li>{html.escape(item)}</li>" for item in items) + "</ul></td>")


CUT, CLOSING = "...", "\u201d"          # how a cut note ends; what may follow it


def for_the_teacher(note: str) -> str:
    """A note as the teacher reads it: ``piece 3: <the check's message>`` becomes "Piece 3: the
    check told the student: <message>"; the grader's own notes stay as they are."""
    piece, colon, message = note.partition(": ")
    if colon and piece.startswith("piece ") and piece[6:].isdigit():
        return f"Piece {piece[6:]}: the check told the student: \u201c{message}\u201d"
    return note


def _notes(joined: str, log: str) -> str:
    """The notes, one a line, addressed to the teacher; folded when long; a note cut short
    links to ``log``, which holds it whole."""
    notes = [for_the_teacher(note) for note in joined.split(" | ") if note]
    if not notes:
        return '<td class="note"></td>'
    whole = (f' (<a href="{html.escape(log, quote=True)}">whole in {html.escape(log)}</a>)'
             if log else "")
    listed = "<ul>" + "".join(
        f"<li>{html.escape(note)}{whole if note.rstrip(CLOSING).endswith(CUT) else ''}</li>"
        for note in notes) + "</ul>"
    text = " · ".join(notes)
    if len(text) <= FOLD_AT:
        return f'<td class="note">{listed}</td>'
    return (f'<td class="note"><details><summary>{html.escape(text[:FOLD_AT])}...</summary>'
            f"{listed}</details></td>")


# --- the plot -----------------------------------------------------------------------------------

COLOURS = {"wins": "tab:green", "draws": "tab:gray", "losses": "tab:red"}


def plot_png(rows: list, narrow: bool = False) -> bytes:
    """One bar per submission and opponent: the trained X's exact wins, draws and losses; the
    two opponents side by side, or with ``narrow`` one above the other, for a phone."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    tall = 1.5 + 0.35 * max(len(rows), 1)
    figure = Figure(figsize=(4, 2 * tall) if narrow else (12, tall), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.subplots(2, 1) if narrow else figure.subplots(1, 2, sharey=True)
    places = list(range(len(rows)))[::-1]          # the first submission on top
    names = [_label(row.name, PLOT_LABEL[narrow]) for row in rows]
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
        ax.set_ylim(-0.6, len(rows) - 0.4)         # the last row's words clear of the axis
        ax.set_xticks([0, 0.25, 0.5, 0.75, 1])
        ax.set_title(f"X against {opponent} (exact)")
        ax.set_xlabel("wins (green), draws (grey), losses (red)" if narrow
                      else "probability: wins (green), draws (grey), losses (red)")
        ax.set_yticks(places, names)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _label(name: str, length: int) -> str:
    # A name is the student's (already escaped); matplotlib would read "$...$" as mathematics.
    short = name if len(name) <= length else name[:length - 3] + "..."
    return short.replace("$", r"\$")
