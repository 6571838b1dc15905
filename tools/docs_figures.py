"""The figures that README.md and docs/ quote, made again by the commands that produce them.

    python tools/docs_figures.py                          # make docs: every figure, written in
    python tools/docs_figures.py --only train dqn         # some of them
    python tools/docs_figures.py --check --cost instant   # exit 1 naming every figure that differs
    python tools/docs_figures.py --list                   # the figures, their cost and files

A figure is the text between ``<!-- figures:NAME -->`` and ``<!-- /figures -->`` in a Markdown file
of the repository, NAME one of ``FIGURES``. Each is made by running the documented command as a
user does, in a scratch copy of the repository, so that nothing changes but the marked text (and
docs/learning_curve.png, which the ``curves`` figure draws). Seconds and rates differ from run
to run, so ``--check`` compares everything else, and a figure whose seconds, rates or dates alone
differ is left as it is (a rerun on an unchanged tree changes nothing). The speed figures and the
commands' durations are quoted from the latest ``make bench`` (Data/bench.txt) and
``tools/benchmarks/timed.py`` runs (Data/timings.txt), with their date, machine and load.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)
from tools.figures import COSTS, FIGURES, FigureError, MissingInput  # noqa: E402

DOCUMENTS = ("README.md", "docs/*.md")
BLOCK = re.compile(r"(<!-- figures:([\w-]+) -->\n)(.*?)(<!-- /figures -->)", re.DOTALL)
# What differs between two runs of the same command: seconds, rates, dates, the processor
# named (a figure that names none is made again).
VOLATILE = re.compile(r"\d[\d,]*(\.\d+)?( ms| s\b| episodes/s| games/s|-core)|processor [^,;)\n]+"
                      r"|\d{4}-\d\d-\d\d( \d\d:\d\d)?"
                      r"|load average [\d.]+ before(,| and) [\d.]+ (after|while it ran)")


def documents(root: Path = ROOT) -> list[Path]:
    return sorted({path for pattern in DOCUMENTS for path in root.glob(pattern)})


def marked(root: Path = ROOT) -> dict[str, list[Path]]:
    """Every figure name marked in the documents, with the files it is in."""
    found: dict[str, list[Path]] = {}
    for path in documents(root):
        for match in BLOCK.finditer(path.read_text(encoding="utf-8")):
            found.setdefault(match.group(2), []).append(path)
    return found


def scratch_copy(folder: Path) -> Path:
    """The repository's tracked files (as they are now) in ``folder``/repo."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout.decode().split("\0")
    repo = folder / "repo"
    for name in filter(None, tracked):
        if (ROOT / name).is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, repo / name)
    return repo


def comparable(text: str, varies: str = "") -> str:
    """``text`` without what differs between two runs of its command: seconds, rates, dates, the
    machine's load, and the figure's own ``varies`` (what a per-run seed draws)."""
    text = VOLATILE.sub("#", text)
    return re.sub(varies, "#", text) if varies else text


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="docs_figures.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", choices=sorted(FIGURES), metavar="NAME",
                        help="these figures only (default: all): " + ", ".join(FIGURES))
    parser.add_argument("--cost", choices=COSTS,
                        help="the figures that cost at most this much "
                             "(instant < seconds < minutes)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 naming every figure that differs (its seconds "
                             "and rates aside)")
    parser.add_argument("--list", action="store_true", help="list the figures and stop")
    args = parser.parse_args(argv)
    found = marked()
    unknown = sorted(set(found) - set(FIGURES))
    if unknown:
        cli.fail(f"docs_figures.py: {found[unknown[0]][0].relative_to(ROOT)} marks a figure this "
                 f"script does not make: {unknown[0]}")
    chosen = [FIGURES[name] for name in (args.only or FIGURES) if name in found and
              (args.cost is None or COSTS.index(FIGURES[name].cost) <= COSTS.index(args.cost))]
    if args.list:
        for name, figure in FIGURES.items():
            where = ", ".join(str(p.relative_to(ROOT)) for p in found.get(name, [])) or "nowhere"
            print(f"{name:<17} {figure.cost:<8} {where}")
        return 0
    stale = []
    with tempfile.TemporaryDirectory(prefix="docs-figures-") as folder:
        repo = scratch_copy(Path(folder))
        for figure in chosen:
            print(f"{figure.name}: making it ...", file=sys.stderr, flush=True)
            try:
                text = figure.make(repo, not args.check)
            except FigureError as error:
                print(f"{figure.name}: not made: {error}", file=sys.stderr)
                failed = args.check and not isinstance(error, MissingInput)
                stale += [f"{figure.name}: not made ({error})"] if failed else []
                continue
            for path in found[figure.name]:
                stale += [f"{path.relative_to(ROOT)}: {figure.name}"] if replace(
                    path, figure.name, text, write=not args.check,
                    always=figure.quoted, varies=figure.varies) else []
    if args.check and stale:
        print("figures that differ from what their commands print now (make docs):\n  "
              + "\n  ".join(stale))
        return 1
    print(f"{len(chosen)} figures {'checked' if args.check else 'made'}"
          + ("" if args.check else f", {len(stale)} changed"))
    return 0


def replace(path: Path, name: str, text: str, write: bool, always: bool = False,
            varies: str = "") -> bool:
    """Put ``text`` in the figure ``name`` of ``path`` (when ``write``) if it differs in more
    than its seconds, rates and dates, or in anything when ``always`` (a quoted record); whether
    it differed in more. A rerun on an unchanged tree so leaves the files as they are."""
    document = path.read_text(encoding="utf-8")
    differs = False

    def new(match: re.Match) -> str:
        nonlocal differs
        if match.group(2) != name:
            return match.group(0)
        same = comparable(match.group(3), varies) == comparable(text, varies)
        differs = differs or not same
        return match.group(0) if same and not always else match.group(1) + text + match.group(4)
    updated = BLOCK.sub(new, document)
    if write and updated != document:
        path.write_text(updated, encoding="utf-8")
    return differs


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
