"""The students' version's Markdown points only at what its folder has.

The teachers' docs/ are copied into the students' version, but some of what they name stays out
of it (the grader, the generator, the benchmarks, ``make bench`` and the other teachers' make
targets). ``students_docs`` rewrites the copies so that everything they still name is there:

- a link to a file the folder lacks becomes its plain text, marked ``(teachers' version)``;
- a command line of a code block that runs such a file or make target is dropped;
- such a file or make target named in the prose (in backticks) is marked ``(teachers' version)``.

``missing_references`` lists what a document names that the folder lacks, unmarked: the test of
the students' version asks for none.
"""

from __future__ import annotations

import re
from pathlib import Path

MARK = " (teachers' version)"
LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
# `make bench`, `tools/bench.py`, `docs/GRADING.md`, `tests/test_book.py` in backticks
INLINE = re.compile(r"`([^`\n]+)`")
MAKE_WORD = re.compile(r"(?:^|\s|&&\s*)make(?:\s+-\S+)*\s+([a-z][\w-]*)")
PATH_WORD = re.compile(r"(?<![\w./-])((?:tools|docs|tests|examples|notebooks|book|\.ci|Data)/"
                       r"[\w./*-]*\w/?|[\w-]+\.(?:md|py|ipynb))(?![\w/-])")
CODE_LINE = re.compile(r"^( {4}|\t)(?! )")
FIGURE_START, FIGURE_END = "<!-- figures:", "<!-- /figures -->"   # tools/docs_figures.py's blocks


def make_targets(folder: Path) -> set[str]:
    """The targets of ``folder``'s Makefile."""
    makefile = folder / "Makefile"
    text = makefile.read_text(encoding="utf-8") if makefile.is_file() else ""
    return set(re.findall(r"^([\w-]+):", text, re.M))


def lacks(text: str, folder: Path, here: Path, targets: set[str]) -> list[str]:
    """What ``text`` (a command or a backticked name, in the document folder ``here``) names
    that ``folder`` lacks: make targets and repository paths."""
    missing = [f"make {target}" for target in MAKE_WORD.findall(text) if target not in targets]
    for path in PATH_WORD.findall(text):
        path = path.rstrip("/")
        if "*" in path or "{" in path or path.startswith("Data/"):
            continue            # a pattern, or a file a run writes
        if "/" not in path and not path.endswith((".md", ".ipynb")):
            continue            # a bare script name: found from whichever folder runs it
        if not ((folder / path).exists() or (here / path).exists()):
            missing.append(path)
    return missing


def _link_missing(target: str, here: Path) -> bool:
    if target.startswith(("http://", "https://", "mailto:", "#")):
        return False
    return not (here / target.split("#")[0]).exists()


def rewrite(text: str, folder: Path, here: Path, targets: set[str]) -> str:
    """``text`` of a Markdown file in ``here`` with what ``folder`` lacks unlinked, dropped or
    marked (the module's docstring)."""
    kept, figure = [], False
    for line in text.splitlines():
        figure = line.startswith(FIGURE_START) or (figure and not line.startswith(FIGURE_END))
        if figure:            # what a command printed stays as it printed it
            kept.append(line)
            continue
        if CODE_LINE.match(line) and lacks(line.split("#")[0], folder, here, targets):
            continue
        line = LINK.sub(lambda m: m.group(1) + MARK if _link_missing(m.group(2), here)
                        else m.group(0), line)
        line = INLINE.sub(lambda m: m.group(0) + MARK
                          if lacks(m.group(1), folder, here, targets) else m.group(0), line)
        kept.append(line.replace(MARK + MARK, MARK))
    return "\n".join(kept) + ("\n" if text.endswith("\n") else "")


def students_docs(folder: Path) -> None:
    """Rewrite every Markdown file of the students' version in ``folder`` (its README too)."""
    targets = make_targets(folder)
    for path in sorted(folder.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        path.write_text(rewrite(text, folder, path.parent, targets), encoding="utf-8")


def missing_references(folder: Path) -> list[str]:
    """``file: what`` for each link, command or backticked name in ``folder``'s Markdown that
    names something the folder lacks and is not marked as the teachers'."""
    targets = make_targets(folder)
    found = []
    for path in sorted(folder.rglob("*.md")):
        name, figure = path.relative_to(folder), False
        for line in path.read_text(encoding="utf-8").splitlines():
            figure = line.startswith(FIGURE_START) or (figure and not line.startswith(FIGURE_END))
            if figure:
                continue
            if CODE_LINE.match(line):
                found += [f"{name}: {what}" for what in
                          lacks(line.split("#")[0], folder, path.parent, targets)]
                continue
            for match in LINK.finditer(line):
                if _link_missing(match.group(2), path.parent) and \
                        not line[match.end():].startswith(MARK):
                    found.append(f"{name}: link {match.group(2)}")
            for match in INLINE.finditer(line):
                if not line[match.end():].startswith(MARK):
                    found += [f"{name}: {what}" for what in
                              lacks(match.group(1), folder, path.parent, targets)]
    return found
