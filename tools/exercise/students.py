"""The files the students' version writes for itself (README, conftest hook, .gitignore, Makefile,
Classroom autograding, workflow and manifest) and the compressed form of the answer key."""

from __future__ import annotations

import base64
import re
import textwrap
import zlib
from pathlib import Path

from tools.exercise.classroom import AUTOGRADING, MANIFEST, WORKFLOW, torch_pin, write_classroom
from tools.exercise.conftest_hook import STUDENTS_CONFTEST
from tools.exercise.docs import students_docs
from tools.exercise.stubs import LINE_WIDTH, Stub
from tictactoe_rl.selfcheck.hints import HINTS_FILE
from tictactoe_rl.selfcheck.pieces import PIECES
from tools.exercise.readme_template import STUDENTS_README

README = "README.md"
CONFTEST = "tests/conftest.py"
GITIGNORE = ".gitignore"
# Files the students' version writes itself instead of copying the teachers' ones.
MAKEFILE = "Makefile"
STUDENTS_OWN = (README, GITIGNORE, AUTOGRADING, WORKFLOW, MANIFEST, MAKEFILE)
# Make targets that need the solved trainers or the generator, so not the students'.
TEACHERS_TARGETS = ("exercise", "data", "compare", "curves", "docs", "bench")
# What the teachers' .gitignore lists that means nothing in the students' repository.
TEACHERS_IGNORES = ("/exercise/",)
# Sections of the teachers' README that hold for the students' version word for word.
BORROWED_SECTIONS = ("## The game and its conventions", "## Agent specs")
HEADING = re.compile(r"^(#+) ")


def students_readme(teachers: str | None, stubs: list[Stub], torch: str = "torch") -> str:
    """The students' README: what they write (the pieces as this run made them), how to check,
    train, measure and play, then the teachers' README's sections on the game's conventions and
    the agent specs (when it has them), which hold for both versions. ``torch`` is the torch
    requirement its set-up installs first (``torch_pin``)."""
    text = (STUDENTS_README.replace("{PIECES}", pieces_table(stubs))
            .replace("{POINTS}", points_summary()).replace("{HINTS_FILE}", HINTS_FILE)
            .replace("{TORCH}", torch).replace("{TEST_TIMES}", test_times()))
    borrowed = [readme_section(teachers or "", heading) for heading in BORROWED_SECTIONS]
    return "\n\n".join([text.strip("\n"), *[part for part in borrowed if part]]) + "\n"


def test_times() -> str:
    """How long the tests take, from the teachers' latest ``timed.py`` runs of their suites
    (Data/timings.txt): the students' suites are those suites less the teachers' tests, so they
    take at most as long. Without a record, how to time them."""
    from tools.benchmarks.timed import duration, read_record
    record = read_record()
    times = {name: record[command] for name, command in (("quick", "make test"),
                                                          ("full", "make test-all"))
             if command in record}
    if not times:
        return ("Time them on your machine with `python tools/benchmarks/timed.py python -m "
                "pytest -q -m \"not slow\"`.")
    said = "; ".join(f"the {name} suite {duration(timing.seconds)} (1-minute load average "
                     f"{timing.load_during:.1f} while it ran, {timing.cores} cores, "
                     f"{timing.when[:10]})" for name, timing in times.items())
    return textwrap.fill(f"On your teacher's machine the solved repository's suites, which hold "
                         f"more tests than yours, took: {said}. Yours take at most about as "
                         "long.", LINE_WIDTH)


def readme_section(text: str, heading: str) -> str:
    """The section of ``text`` that starts at the line ``heading``, up to the next heading of
    the same or a higher level; "" when there is none."""
    lines = text.splitlines()
    if heading not in lines:
        return ""
    start = lines.index(heading)
    level = len(HEADING.match(heading)[1])
    stop = next((i for i in range(start + 1, len(lines))
                 if HEADING.match(lines[i]) and len(HEADING.match(lines[i])[1]) <= level),
                len(lines))
    return "\n".join(lines[start:stop]).strip("\n")


def pieces_table(stubs: list[Stub]) -> str:
    """One row per piece: whether it counts, its points, and the functions and files it has."""
    rows = ["| piece | counts | you write | in |", "| --- | --- | --- | --- |"]
    for piece in PIECES:
        made = [stub for stub in stubs if stub.instructions.piece == piece.number]
        functions = ", ".join(dict.fromkeys(f"`{s.instructions.function}`" for s in made))
        files = ", ".join(dict.fromkeys(f"`{s.path}`" for s in made))
        if not made:          # a piece written into the functions of other pieces (4)
            functions = piece.title.removeprefix("bonus: ")
            files = "the same functions"
        counts = "required" if piece.required else "bonus"
        rows.append(f"| {piece.number} | {counts}, {piece.points} points | {functions} | "
                    f"{files} |")
    return "\n".join(rows)


def points_summary() -> str:
    """The pieces' Classroom points in words, required and bonus apart."""
    required = sum(piece.points for piece in PIECES if piece.required)
    bonus = sum(piece.points for piece in PIECES if not piece.required)
    return f"{required} points for the required pieces and {bonus} bonus points"


def students_conftest(text: str) -> str:
    """tests/conftest.py with the exercise's hooks added at the end."""
    return text.rstrip("\n") + "\n\n\n" + STUDENTS_CONFTEST.lstrip("\n")


def students_gitignore(text: str | None) -> str:
    """The teachers' .gitignore without what only the teachers have, and with the hint file."""
    kept = [line for line in (text or "").splitlines()
            if line.strip() not in (*TEACHERS_IGNORES, HINTS_FILE)]
    kept += ["# which hints python check.py --hint has shown you", HINTS_FILE]
    return "\n".join(kept) + "\n"


def write_students_files(root: Path, target: Path, stubs: list[Stub]) -> None:
    """The files the students' version has in place of, or besides, the teachers' ones (after
    every other file is in ``target``)."""
    def read(name: str) -> str | None:
        path = root / name
        return path.read_text(encoding="utf-8") if path.is_file() else None

    torch = torch_pin(read("requirements.txt"))
    made = {README: students_readme(read(README), stubs, torch),
            GITIGNORE: students_gitignore(read(GITIGNORE)),
            MAKEFILE: students_makefile(read(MAKEFILE))}
    for name, text in made.items():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        (target / name).write_text(text, encoding="utf-8")
    students_docs(target)               # after the Makefile: the docs name only what it has
    write_classroom(target, torch)      # last: it hashes every other file


def students_makefile(text: str) -> str:
    """The teachers' Makefile without the targets that need the solved code or the generator
    (each with the comment lines above it)."""
    kept: list[str] = []
    skipping = False
    for line in text.splitlines():
        target = line.split(":")[0] if line and not line[0].isspace() and ":" in line else None
        if line.startswith(".PHONY:"):
            line = " ".join(word for word in line.split() if word not in TEACHERS_TARGETS)
        elif target is not None:
            skipping = target in TEACHERS_TARGETS
            if skipping:
                while kept and kept[-1].startswith("#"):
                    kept.pop()
        elif not line.strip():
            skipping = False
        if not skipping and (line.strip() or (kept and kept[-1].strip())):
            kept.append(line)
    return "\n".join(kept).rstrip() + "\n"


def compressed_module(text: str) -> str:
    """A module that, imported, runs the module ``text``, which it holds compressed (zlib, then
    base85: no quote or backslash to escape)."""
    data = base64.b85encode(zlib.compress(text.encode("utf-8"), 9)).decode("ascii")
    rows = [data[i:i + LINE_WIDTH - 8] for i in range(0, len(data), LINE_WIDTH - 8)]
    return ('"""Compressed in the exercise: this module runs as if written out, but reading\n'
            'the code while you work does not show you the solutions."""\n\n'
            "import base64 as _base64\nimport zlib as _zlib\n\n_SOURCE = (\n"
            + "".join(f'    "{row}"\n' for row in rows) + ")\n"
            "exec(compile(_zlib.decompress(_base64.b85decode(_SOURCE)).decode(\"utf-8\"), "
            "__file__, \"exec\"))\n")
