"""The report's page and plot: ``html_page(cells, context, plot)`` and ``plot_png(rows)``.

The page is one self-contained file (the plot embedded) that reads well on a 1280-pixel screen:
each piece's verdict and points in one cell, each side's exact results against an opponent in
one cell, and long notes folded (``<details>``) so that rows stay short. Every string is
escaped.
"""

from __future__ import annotations

import base64
import html
import io
from dataclasses import dataclass, replace

from tools.grading.cells import COLUMNS, OPPONENTS
from tools.grading.results import PIECE_NUMBERS

PLOT_LABEL = 32                  # characters of a name shown in the plot
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
body { font-family: sans-serif; margin: 1em; max-width: 1260px; }
table { border-collapse: collapse; font-size: 0.8em; width: 100%; table-layout: auto; }
th, td { border: 1px solid #ccc; padding: 0.15em 0.3em; text-align: left; vertical-align: top; }
th { background: #eee; }
td { overflow-wrap: anywhere; }
td.note { max-width: 22em; } td.name { max-width: 10em; }
td.passed { background: #d9f2d9; } td.failed, td.bad { background: #f7d4d4; }
td.other { background: #eee; } td.number { text-align: right; font-variant-numeric: tabular-nums;
  white-space: nowrap; }
summary { cursor: pointer; }
"""
HEADERS = (["name", "status"] + [f"piece {n}" for n in PIECE_NUMBERS] + ["total"]
           + [f"{side} vs {opponent}" for side in ("X", "O") for opponent in OPPONENTS]
           + ["X unbeatable", "O unbeatable", "seconds", "flags", "note"])


def html_page(cells: list[list[str]], context: Context, plot: bytes) -> str:
    """The self-contained page: the run's facts, the table and the plot."""
    escape = html.escape
    facts = [("Isolation", context.isolation), ("Limits", context.limits)]
    facts += [("Not available here", line) for line in context.unavailable]
    facts += [("Note", line) for line in context.notes]
    lines = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width">',
             f"<title>{escape(context.title)}</title><style>{STYLE}</style></head><body>",
             f"<h1>{escape(context.title)}</h1>",
             f"<p>{len(cells)} submission{'' if len(cells) == 1 else 's'}, graded "
             f"{escape(context.when)}; report.csv has every number; what each check printed "
             "is in logs/.</p><ul>"]
    lines += [f"<li><b>{escape(label)}:</b> {escape(text)}</li>" for label, text in facts]
    lines += ["</ul><table><thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in HEADERS)
              + "</tr></thead><tbody>"]
    lines += [_html_row(dict(zip(COLUMNS, row))) for row in cells]
    lines.append("</tbody></table>")
    if plot:
        image = base64.b64encode(plot).decode("ascii")
        lines.append('<p><img style="max-width: 100%" alt="The trained X of each submission '
                     f'against random and advanced" src="data:image/png;base64,{image}"></p>')
    lines.append("</body></html>")
    return "\n".join(lines) + "\n"


def _html_row(cell: dict[str, str]) -> str:
    tds = [_td(cell["name"], "name"), _td(cell["status"], "passed" if cell["status"] == "graded"
                                          else "bad")]
    for n in range(1, 6):
        verdict, points = cell[f"piece {n}"], cell[f"points {n}"]
        kind = verdict if verdict in ("passed", "failed") else "other" if verdict else ""
        tds.append(_td(f"{verdict} ({points})" if verdict else "", kind))
    tds.append(_td(cell["total"], "number"))
    for side in ("X", "O"):
        for opponent in OPPONENTS:
            values = [cell[f"{side} vs {opponent} {outcome}"] for outcome in
                      ("wins", "losses", "draws")]
            text = (" / ".join(f"{float(value):.1%}" for value in values)
                    if values[0] else "")
            tds.append(_td(text, "number"))
    for side in ("X", "O"):
        verdict = cell[f"{side} unbeatable"]
        tds.append(_td(verdict, ("passed" if verdict == "yes" else "failed") if verdict else ""))
    tds += [_td(cell["seconds"], "number"), _td(cell["flags"], "bad" if cell["flags"] else ""),
            _folded(cell["note"])]
    return "<tr>" + "".join(tds) + "</tr>"


def _td(text: str, kind: str = "") -> str:
    attribute = f' class="{kind}"' if kind else ""
    return f"<td{attribute}>{html.escape(text)}</td>"


def _folded(note: str) -> str:
    if len(note) <= FOLD_AT:
        return f'<td class="note">{html.escape(note)}</td>'
    return (f'<td class="note"><details><summary>{html.escape(note[:FOLD_AT])}...</summary>'
            f"{html.escape(note)}</details></td>")


# --- the plot -----------------------------------------------------------------------------------

COLOURS = {"wins": "tab:green", "draws": "tab:gray", "losses": "tab:red"}


def plot_png(rows: list) -> bytes:
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
    # A name is the student's (already escaped); matplotlib would read "$...$" as mathematics.
    short = name if len(name) <= PLOT_LABEL else name[:PLOT_LABEL - 3] + "..."
    return short.replace("$", r"\$")
