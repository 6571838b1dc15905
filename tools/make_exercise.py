"""Write the students' version of this repository: the exercise, generated from the solved code.

    python tools/make_exercise.py --out exercise            # (make exercise)
    python tools/make_exercise.py --out exercise --force    # write over an earlier one

Every file that git tracks is copied (the tables in Data/ too, so that Game.py plays the trained
agent at once), except the teachers' own tools. In the Python files every marked solution (the
markers and the contracts are described in tools/exercise_pieces.py) becomes its contract as a
few comment lines and a ``raise NotImplementedError`` naming the piece; an import that only the
solutions used goes as well, so that it gives no hint. The students' version gets a README of its
own (what they write, how to check, train, measure and play), a hook in tests/conftest.py that
skips rather than fails a test that needs a piece not written yet, a .gitignore for their hint
progress, and GitHub Classroom autograding under .github/ (one test per piece, with points).
"""

from __future__ import annotations

import ast
import base64
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import tokenize
import zlib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cli  # noqa: E402  (the project root must be on the path first)
from tools.exercise_pieces import (  # noqa: E402
    HINTS_FILE, INSTRUCTIONS, PIECES, SELF_CHECK, STUB_PREFIX, Instructions)

# Teachers' tools that make no sense in the students' version (a name ending in "/" is a folder):
# this generator, the class grader, and the tests of both and of the self-check (which hold
# solutions, and import the generator).
# The course-compatibility tests and the book's files hold whole solutions (the course's scripts,
# the book's program), and the project's own CI is not the students'.
TEACHERS_ONLY = ("tools/make_exercise.py", "tests/test_exercise.py", "tests/test_selfcheck.py",
                 "tools/grade.py", "tools/grading/", "tests/test_grade.py", "docs/GRADING.md",
                 "tests/test_course.py", "tests/course_scripts/", "book/", "tests/test_book.py",
                 "tools/bench_book.py", ".ci/")
# Files the code needs but that show solutions: the self-check's answer key, the exploration
# schedules (piece 1) and the Monte Carlo updates (piece 3). The students' version carries them
# compressed, out of plain sight while a student reads the code.
COMPRESSED = ("selfcheck/reference.py", "training/schedules.py", "training/monte_carlo.py")
README = "README.md"
CONFTEST = "tests/conftest.py"
GITIGNORE = ".gitignore"
AUTOGRADING = ".github/classroom/autograding.json"
WORKFLOW = ".github/workflows/classroom.yml"
# Files the students' version writes itself instead of copying the teachers' ones.
MAKEFILE = "Makefile"
STUDENTS_OWN = (README, GITIGNORE, AUTOGRADING, WORKFLOW, MAKEFILE)
# Make targets that need the solved trainers or the generator, so not the students'.
TEACHERS_TARGETS = ("exercise", "data", "compare", "curves", "bench")
# What the teachers' .gitignore lists that means nothing in the students' repository.
TEACHERS_IGNORES = ("/exercise/",)
# Sections of the teachers' README that hold for the students' version word for word.
BORROWED_SECTIONS = ("## The game and its conventions", "## Agent specs")
HEADING = re.compile(r"^(#+) ")
# Classroom's limit for one piece's check, in minutes (a piece takes seconds; this is for a loop
# that never ends).
PIECE_MINUTES = 10
# Names the course's chapter uses at module level; they stay even when only a solution used them.
CHAPTER_NAMES = {
    "MC_Trainer.py": ("env", "player1", "player2", "gamma", "alpha", "epochs", "PATH", "test",
                      "State", "Generate_episode", "main"),
}
LINE_WIDTH = 99
BEGIN = re.compile(r"^(?P<indent>\s*)# \[exercise piece (?P<piece>\d+): (?P<key>\w+)\] "
                   r"solution begins\s*$")
END = re.compile(r"^(?P<indent>\s*)# \[exercise piece (?P<piece>\d+)\] solution ends\s*$")
ANY_MARKER = re.compile(r"\s*#\s*\[exercise piece")


class ExerciseError(ValueError):
    """A marker that cannot be turned into a stub; the message names the file and line."""


@dataclass(frozen=True)
class Region:
    """A marked solution: lines ``begin`` to ``end`` (1-based, markers included)."""
    begin: int
    end: int
    indent: str
    instructions: Instructions


@dataclass(frozen=True)
class Stub:
    """What the generator replaced: where, and by which piece's instructions."""
    path: str
    line: int
    instructions: Instructions


# --- finding the solutions -------------------------------------------------------------------

def find_regions(path: str, text: str) -> list[Region]:
    """The marked solutions of one file, checked: begin and end pair up, the key is known and
    belongs to the piece the marker names, and the solution is the rest of a function's body
    (so that nothing is left behind the stub's ``raise``). Raises ``ExerciseError``."""
    lines = text.splitlines()
    regions: list[Region] = []
    open_marker = None
    for number in comment_lines(path, text):
        line = lines[number - 1]
        begin, end = BEGIN.match(line), END.match(line)
        if begin:
            if open_marker:
                raise ExerciseError(f"{path}:{number}: a piece begins inside the piece that "
                                    f"begins on line {open_marker[0]}")
            key, piece = begin["key"], int(begin["piece"])
            instructions = INSTRUCTIONS.get(key)
            if instructions is None:
                raise ExerciseError(f"{path}:{number}: no instructions for {key!r} in "
                                    "tools/exercise_pieces.py")
            if instructions.piece != piece:
                raise ExerciseError(f"{path}:{number}: {key!r} belongs to piece "
                                    f"{instructions.piece}, not {piece}")
            open_marker = (number, begin["indent"], instructions)
        elif end:
            if not open_marker:
                raise ExerciseError(f"{path}:{number}: a piece ends that never began")
            start, indent, instructions = open_marker
            if int(end["piece"]) != instructions.piece or end["indent"] != indent:
                raise ExerciseError(f"{path}:{number}: this end does not match the begin on "
                                    f"line {start} (same piece, same indentation)")
            regions.append(Region(start, number, indent, instructions))
            open_marker = None
        elif ANY_MARKER.match(line):
            raise ExerciseError(f"{path}:{number}: malformed exercise marker: {line.strip()}")
    if open_marker:
        raise ExerciseError(f"{path}:{open_marker[0]}: the piece that begins here never ends")
    if regions:
        tree = ast.parse(text, filename=path)
        for region in regions:
            _check_is_function_tail(path, tree, region)
    return regions


def comment_lines(path: str, text: str) -> list[int]:
    """The numbers of the lines that hold nothing but a comment (a marker inside a string, such
    as a docstring that shows how markers look, is not a marker)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError) as error:
        raise ExerciseError(f"{path}: cannot be read as Python ({error})") from None
    return [token.start[0] for token in tokens
            if token.type == tokenize.COMMENT and not token.line[:token.start[1]].strip()]


def _check_is_function_tail(path: str, tree: ast.AST, region: Region) -> None:
    functions = [node for node in ast.walk(tree)
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and node.lineno < region.begin < node.end_lineno]
    if not functions:
        raise ExerciseError(f"{path}:{region.begin}: a marked solution must be inside a function")
    function = max(functions, key=lambda node: node.lineno)      # the innermost one
    if any(function.end_lineno < node.lineno < region.end
           for node in ast.walk(tree) if isinstance(node, ast.stmt)):
        raise ExerciseError(f"{path}:{region.end}: the end of the piece must come right after "
                            f"the last line of {function.name}")
    for statement in function.body:
        inside = region.begin < statement.lineno and statement.end_lineno < region.end
        before = statement.end_lineno < region.begin
        if not (inside or before):
            raise ExerciseError(f"{path}:{statement.lineno}: the marked solution of "
                                f"{function.name} must run to the end of its body")
    if not any(region.begin < s.lineno for s in function.body):
        raise ExerciseError(f"{path}:{region.begin}: the marked solution is empty")


# --- writing the students' version of a file ----------------------------------------------------

def _comment_block(text: str, indent: str) -> list[str]:
    width = LINE_WIDTH - len(indent) - 2
    paragraphs = [" ".join(p.split()) for p in text.strip().split("\n\n")]
    lines: list[str] = []
    for paragraph in paragraphs:
        if lines:
            lines.append(f"{indent}#")
        lines += [f"{indent}# {line}" for line in textwrap.wrap(
            paragraph, width, break_long_words=False, break_on_hyphens=False)]
    return lines


def stub_lines(instructions: Instructions, indent: str) -> list[str]:
    """The heading, the contract (English, then Hebrew) as comments, and the piece's ``raise``.
    The how-to is not here: ``python check.py --hint N`` gives it a step at a time."""
    number = instructions.piece
    heading = (f"Exercise piece {number}: write {instructions.function} -- {SELF_CHECK} "
               f"--piece {number}, --hint {number}")
    return [*_comment_block(heading, indent),
            *_comment_block(instructions.english, indent),
            f"{indent}#",
            *_comment_block(instructions.hebrew, indent),
            f"{indent}raise NotImplementedError(",
            f"{indent}    {instructions.stub_message()!r})"]


def replace_solutions(path: str, text: str) -> tuple[str, list[Stub]]:
    """``text`` with every marked solution replaced by its stub, and the stubs made."""
    regions = find_regions(path, text)
    if not regions:
        return text, []
    lines = text.splitlines()
    students: list[str] = []
    done = 0
    for region in regions:
        students += lines[done:region.begin - 1] + stub_lines(region.instructions, region.indent)
        done = region.end
    students += lines[done:]
    result = prune_imports(path, text, "\n".join(students) + ("\n" if text.endswith("\n") else ""))
    ast.parse(result, filename=path)
    headings = [number for number, line in enumerate(result.splitlines(), start=1)
                if line.lstrip().startswith(f"# {STUB_PREFIX} ")]
    return result, [Stub(path, line, region.instructions)
                    for line, region in zip(headings, regions)]


def _used_names(tree: ast.AST) -> set[str]:
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value.isidentifier():
            used.add(node.value)      # a name in a string annotation
    return used


def prune_imports(path: str, solved: str, students: str) -> str:
    """Drop from the module-level imports of ``students`` the names that only the removed
    solutions used (a leftover import would say how to solve the piece). Names the chapter
    relies on, and imports the solved file never used (re-exports), stay."""
    used_before, used_after = _used_names(ast.parse(solved)), _used_names(ast.parse(students))
    keep = set(CHAPTER_NAMES.get(path, ()))
    lines = students.splitlines()
    for node in reversed(ast.parse(students).body):
        if (not isinstance(node, (ast.Import, ast.ImportFrom))
                or getattr(node, "module", "") == "__future__"):
            continue
        names = [(alias, (alias.asname or alias.name).split(".")[0]) for alias in node.names]
        kept = [alias for alias, bound in names
                if bound in used_after or bound in keep or bound not in used_before]
        if len(kept) == len(names):
            continue
        indent = lines[node.lineno - 1][:node.col_offset]
        replacement = []
        if kept:
            listed = ", ".join(alias.name + (f" as {alias.asname}" if alias.asname else "")
                               for alias in kept)
            statement = (f"from {'.' * node.level}{node.module or ''} import {listed}"
                         if isinstance(node, ast.ImportFrom) else f"import {listed}")
            replacement = [indent + statement]
            if len(replacement[0]) > LINE_WIDTH and isinstance(node, ast.ImportFrom):
                head = f"{indent}from {'.' * node.level}{node.module or ''} import ("
                inner = indent + "    "
                replacement = [head, *textwrap.wrap(listed, LINE_WIDTH, initial_indent=inner,
                                                    subsequent_indent=inner), indent + ")"]
        lines[node.lineno - 1:node.end_lineno] = replacement
    return "\n".join(lines) + ("\n" if students.endswith("\n") else "")


# --- the students' own files ------------------------------------------------------------------

def students_readme(teachers: str | None, stubs: list[Stub], torch: str = "torch") -> str:
    """The students' README: what they write (the pieces as this run made them), how to check,
    train, measure and play, then the teachers' README's sections on the game's conventions and
    the agent specs (when it has them), which hold for both versions. ``torch`` is the torch
    requirement its set-up installs first (``torch_pin``)."""
    text = (STUDENTS_README.replace("{PIECES}", pieces_table(stubs))
            .replace("{POINTS}", points_summary()).replace("{HINTS_FILE}", HINTS_FILE)
            .replace("{TORCH}", torch))
    borrowed = [readme_section(teachers or "", heading) for heading in BORROWED_SECTIONS]
    return "\n\n".join([text.strip("\n"), *[part for part in borrowed if part]]) + "\n"


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


def autograding() -> str:
    """GitHub Classroom's autograding tests: one per piece, ``python check.py --piece N``, which
    exits 0 when that piece passes; the points are the pieces' own."""
    tests = [{"name": f"Piece {piece.number}: {piece.title}", "setup": "",
              "run": f"{SELF_CHECK} --piece {piece.number}", "input": "", "output": "",
              "comparison": "included", "timeout": PIECE_MINUTES, "points": piece.points}
             for piece in PIECES]
    return json.dumps({"tests": tests}, indent=2, ensure_ascii=False) + "\n"


def workflow(torch: str) -> str:
    """The Classroom workflow: Python 3.11, the CPU build of ``torch`` (the pinned requirement),
    the rest of requirements.txt, then Classroom's autograding action (which runs
    autograding.json)."""
    return WORKFLOW_TEMPLATE.replace("{TORCH}", torch)


def torch_pin(requirements: str | None) -> str:
    """The torch line of requirements.txt (``torch==2.13.0``): the CPU build installed first must
    be the version that the rest of the requirements then find already there."""
    lines = (requirements or "").splitlines()
    return next((line.replace(" ", "") for line in lines if re.match(r"\s*torch\s*[=<>~]", line)),
                "torch")


def write_students_files(root: Path, target: Path, stubs: list[Stub]) -> None:
    """The files the students' version has in place of, or besides, the teachers' ones."""
    def read(name: str) -> str | None:
        path = root / name
        return path.read_text(encoding="utf-8") if path.is_file() else None

    torch = torch_pin(read("requirements.txt"))
    made = {README: students_readme(read(README), stubs, torch),
            GITIGNORE: students_gitignore(read(GITIGNORE)),
            MAKEFILE: students_makefile(read(MAKEFILE)),
            AUTOGRADING: autograding(),
            WORKFLOW: workflow(torch)}
    for name, text in made.items():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        (target / name).write_text(text, encoding="utf-8")


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


# --- the whole repository ---------------------------------------------------------------------

def teachers_only(name: str) -> bool:
    """Whether the tracked file ``name`` stays out of the students' version."""
    return any(name == entry or (entry.endswith("/") and name.startswith(entry))
               for entry in TEACHERS_ONLY)


def tracked_files(root: Path) -> list[str]:
    """The files git tracks in ``root`` (so .venv, caches and untracked files stay out)."""
    try:
        listing = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True,
                                 check=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        raise ExerciseError(f"cannot list the tracked files of {root} with git ({error}); "
                            "run this in a git clone of the solved repository") from None
    return sorted(name for name in listing.decode("utf-8").split("\0")
                  if name and (root / name).is_file())


def build(root: Path, target: Path) -> list[Stub]:
    """Write the students' version of the repository ``root`` into the empty folder ``target``;
    return the stubs it made."""
    stubs: list[Stub] = []
    files = [name for name in tracked_files(root) if not teachers_only(name)]
    for name in files:
        source, destination = root / name, target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith(".py"):
            text, made = replace_solutions(name, source.read_text(encoding="utf-8"))
            if name == CONFTEST:
                text = students_conftest(text)
            elif name in COMPRESSED:
                text = compressed_module(text)
            destination.write_text(text, encoding="utf-8")
            shutil.copymode(source, destination)
            stubs += made
        elif name not in STUDENTS_OWN:
            shutil.copy2(source, destination)
    write_students_files(root, target, stubs)
    return stubs


def check_target(root: Path, out: Path, files: list[str], force: bool) -> None:
    """Refuse a target that is a file, a non-empty folder (without ``force``), or one where the
    students' files would land on the solved repository's own files."""
    if out.exists() and not out.is_dir():
        raise ExerciseError(f"--out {out}: is a file, not a folder")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise ExerciseError(f"--out {out}: the folder is not empty; choose an empty or new "
                            "folder, or add --force to write over it")
    solved = {(root / name).resolve() for name in files}
    if any((out / name).resolve() in solved for name in files):
        raise ExerciseError(f"--out {out}: would write over the solved repository's own files; "
                            "choose a folder outside it or a new subfolder")


# --- the text of the students' own files ------------------------------------------------------
# {PIECES}, {POINTS}, {HINTS_FILE} and {TORCH} are filled in by students_readme and workflow.
STUDENTS_README = """\
# Tic-Tac-Toe by Monte Carlo control: the exercise

This is your copy of the course repository for the Monte Carlo chapter. Everything in it runs --
the game window, the opponents, the tools that measure an agent, the trained tables in `Data/` --
except the pieces you write. Each piece is a function whose body, for now, is a few comment lines
that state its contract (what goes in, what comes out, the course's names; in English and in
Hebrew) and a `raise NotImplementedError("Exercise piece N: ...")`. Replace the comments and the
`raise` with your code; keep the function's name and arguments.

## Set up

Python 3.11, in this folder:

    python3 -m venv .venv
    source .venv/bin/activate
    pip install {TORCH} --index-url https://download.pytorch.org/whl/cpu
    pip install -r requirements.txt

On Windows: `py -3.11 -m venv .venv` and `.venv\\Scripts\\activate`, then the same two `pip`
lines. The first one installs the CPU build of torch, which is all this needs and much smaller
than the default one.

## What you write

{PIECES}

Pieces 1-3 are the exercise: a learner for X. Piece 4 makes the functions of pieces 2 and 3 work
for a learner that plays O as well (`--side O`). Piece 5 is the repository's two other trainers,
SARSA and Q-learning, and the AI course's Nim.

## Check your work

    python check.py             # every piece in order; exit status 0 when pieces 1-3 pass
    python check.py --piece 2   # one piece only
    python check.py --all       # the bonus pieces count for the exit status too
    python check.py --hint 2    # the next hint for piece 2

It prints one line per piece: passed, not written yet, or what is wrong. Stuck? `--hint N` shows
the next hint for piece N, one step of the how-to at a time, in English and in Hebrew; it
remembers which hints you have seen in `{HINTS_FILE}` (git ignores it; delete it to start the
hints again from the first). Once pieces 1-3 pass, `python check.py` also trains your agent with
your own `main` and prints its exact results against `random` and `advanced`.

## Train your agent

    python MC_Trainer.py                            # your module as you wrote it, to your PATH
    python MC_Trainer.py --out Data/my_Q_MC_X.pth   # the same, saving to the file used below

`python MC_Trainer.py` runs `MC_Trainer.py` as you wrote it -- your `player1`, `player2`, `gamma`
and `PATH` at the top of the file (a header typed in from the chapter too), and your `main` --
and then prints the exact results of what `player1` learned. It says first, in one line, what it
trains, against whom and where it saves. Only the flags you give change your module:

| flag | what it does with your `main` |
| --- | --- |
| `--out PATH` | sets `PATH`, where your `player1.save_Q(PATH)` saves |
| `--opponent SPEC` | sets `player2`: `random`, `advanced` (the chapter's stronger opponent), ... (the agent specs below) |
| `--side O` | makes `player1` a new learner for O, and `player2` the same kind of player for X (piece 4) |
| `--epochs N`, `--alpha A`, `--gamma G` | set the module's `epochs`, `alpha` and `gamma`. One that your `main` sets for itself, like the chapter's `epochs = 200000` and `alpha = 0.01` inside `main`, is out of reach: the trainer says so in one line, and your `main` keeps its own value |
| `--seed N` | seeds the random moves of `player1` (and of a `player2` that `--opponent` makes) |
| `--plot`, `--resume`, `--opponent self` | need the teachers' training loop, which your `main` replaces: refused in one line |

Other flags that `python MC_Trainer.py --help` lists (`--epsilon`, `--plain`) belong to the
teachers' trainer and change nothing in yours. Ctrl-C stops your `main` at once, and the trainer
says so; nothing is saved unless your `main` saved before: the chapter's `main` saves after its
last episode, so an interrupted run leaves no table behind.

An agent for O, once piece 4 passes:

    python MC_Trainer.py --side O --out Data/my_Q_MC_O.pth    # piece 4

## Measure it

    python Tester.py --x Data/my_Q_MC_X.pth --o random --exact      # exact probabilities
    python Tester.py --x Data/my_Q_MC_X.pth --o advanced --exact
    python Tester.py --x Data/my_Q_MC_X.pth --o advanced            # 1,000 sampled games
    python Tester.py --worst-case Data/my_Q_MC_X.pth                # can any opponent beat it?
    python Tester.py --optimum                                      # the best that is possible
    python Tester.py --show-q Data/my_Q_MC_X.pth --moves "1,1 0,0"  # its values after these moves

For comparison: the best possible X wins 99.48 % of its games against `random`, or 94.28 %
against `advanced` (no X does both at once), and never loses; a good run of the chapter's
algorithm comes close. For your O (piece 4):

    python Tester.py --x random --o Data/my_Q_MC_O.pth --exact      # piece 4

## Play against it

    python Game.py                          # the shipped Data/Q_MC_X.pth: what yours can become
    python Game.py --x Data/my_Q_MC_X.pth   # your agent plays X, you play O

Click an empty cell to move; H shows on the board what the agent thinks of each cell; R starts a
new game; Esc quits. You play X against your O with:

    python Game.py --x human --o Data/my_Q_MC_O.pth   # piece 4

## The bonus trainers (piece 5)

    python SARSA_Trainer.py    # piece 5: Episode.learning_steps and SARSA_Trainer.update
    python Q_Trainer.py        # piece 5: Q_Trainer.update
    python nim/play.py         # piece 5: Nim; 10,000 games of self-play, then a game against you

The two trainers have `MC_Trainer.py`'s flags, and since they use only your update rule, all of
them work, `--plot` and `--opponent self` too.

## Run the tests

    python -m pytest -q

The tests skip, and name the piece, whatever needs a piece you have not written yet. A test that
runs your `main` makes it short by setting the module's `epochs` first; if your `main` sets its
own, that test is skipped and says why. What your `main` prints while a test runs it is cut to
its last lines.

## Handing in with GitHub Classroom

`.github/` holds GitHub Classroom's autograding. On every push, GitHub runs
`python check.py --piece N` for each piece (`.github/classroom/autograding.json`) and gives the
piece's points when it passes, in all
{POINTS}. The Actions tab of your repository shows each run.
"""

# Added to tests/conftest.py of the students' version. Two marks let a test say what it needs
# (the solved version registers them in pytest.ini and ignores them):
#   @pytest.mark.exercise_piece(4)  needs piece 4; skipped until python check.py passes it
#   @pytest.mark.solved_only        checks what only the solved version does (e.g. Ctrl-C in the
#                                   trainer's main); always skipped in the students' version
STUDENTS_CONFTEST = r'''
# --- The exercise ------------------------------------------------------------------------------
# A test that needs a piece of the exercise you have not written yet is skipped, naming the
# piece, instead of failing: `python check.py` grades the pieces themselves. That is a test that
# runs into a piece's NotImplementedError (in this process, or in a script it runs: the traceback
# ends with the piece's message), or one marked as needing a piece that does not pass yet.
#
# A test that runs MC_Trainer.main first sets the module's epochs (and alpha, gamma) to keep the
# run short. When your main sets one of them itself, as the chapter's does (epochs = 200000), the
# test cannot reach it: it is skipped, saying so. And what your main prints while a test runs it
# is cut to its last lines, so that a print per episode does not flood the report.
import ast as _ast
import contextlib as _contextlib
import functools as _functools
import inspect as _inspect
import io as _io
import re as _re
import subprocess as _subprocess
import sys as _sys
import textwrap as _textwrap
from pathlib import Path as _Path

import pytest

_ROOT = _Path(__file__).resolve().parent.parent
_EXERCISE_STUB = _re.compile(r"(Exercise piece \d+): write ([\w.]+)")
_PIECE_PASSES = {}
# A name main may set for itself -> the module's name that a test sets instead.
_MAIN_SETTINGS = {"epochs": "epochs", "alpha": "alpha", "gamma": "gamma", "start": "start_epoch",
                  "start_epoch": "start_epoch"}
_LINES_KEPT = 10
_IN_A_TEST = [False]    # only a test's own call of main is watched, not the self-check's
_NOT_A_CONSTANT = object()


def pytest_configure(config):
    config.addinivalue_line("markers", "exercise_piece(n): needs piece n of the exercise; skipped "
                                       "until python check.py passes it")
    config.addinivalue_line("markers", "solved_only: checks what only the teachers' solved "
                                       "version does; skipped here")


def pytest_runtest_setup(item):
    if item.get_closest_marker("solved_only"):
        pytest.skip("checks what only the teachers' solved version does, not part of the exercise")
    for mark in item.iter_markers("exercise_piece"):
        number = mark.args[0]
        if number not in _PIECE_PASSES:      # asked once per run, as Classroom asks: exit status
            _PIECE_PASSES[number] = _subprocess.run(
                [_sys.executable, "check.py", "--piece", str(number)], cwd=_ROOT,
                capture_output=True).returncode == 0
        if not _PIECE_PASSES[number]:
            pytest.skip(f"needs Exercise piece {number}, which does not pass yet: see "
                        f"python check.py --piece {number}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    trainer = _sys.modules.get("MC_Trainer")
    main = getattr(trainer, "main", None)
    if callable(main) and not hasattr(main, "students_main"):
        trainer.main = _watched(trainer, main)
    _IN_A_TEST[0] = True
    try:
        yield
    finally:
        _IN_A_TEST[0] = False


def _watched(trainer, main):
    # main, skipping a test whose settings cannot reach it, and with its prints cut short.
    @_functools.wraps(main)
    def watched_main(*args, **kwargs):
        if not _IN_A_TEST[0]:
            return main(*args, **kwargs)
        reason = _unreachable(trainer, main)
        if reason:
            pytest.skip(reason)
        printed = _io.StringIO()
        try:
            with _contextlib.redirect_stdout(printed):
                return main(*args, **kwargs)
        finally:
            lines = [line for line in _re.split(r"[\r\n]+", printed.getvalue()) if line.strip()]
            if len(lines) > _LINES_KEPT:
                print(f"[main printed {len(lines):,} lines; the last {_LINES_KEPT}:]")
            for line in lines[-_LINES_KEPT:]:
                print(line)

    watched_main.students_main = main
    return watched_main


def _unreachable(trainer, main):
    # Why the module's settings cannot reach main (it sets them itself), or None.
    clashes = []
    for local, value in _own_settings(main).items():
        name = _MAIN_SETTINGS[local]
        if not hasattr(trainer, name):
            continue
        wanted = getattr(trainer, name)
        if value is _NOT_A_CONSTANT or value != wanted:
            shown = "its own value" if value is _NOT_A_CONSTANT else repr(value)
            clashes.append(f"{local} = {shown} where the test set {name} = {wanted!r}")
    if not clashes:
        return None
    return (f"your MC_Trainer.main sets {', '.join(clashes)}, so the test cannot keep the run "
            "short: skipped (python check.py grades your main as it is)")


def _own_settings(main):
    # The settings main assigns as its own locals: {name: value, or _NOT_A_CONSTANT}.
    try:
        tree = _ast.parse(_textwrap.dedent(_inspect.getsource(main)))
    except (OSError, TypeError, SyntaxError):
        return {}
    function = tree.body[0] if tree.body else None
    if not isinstance(function, (_ast.FunctionDef, _ast.AsyncFunctionDef)):
        return {}
    own = set(main.__code__.co_varnames) | set(main.__code__.co_cellvars)
    found, todo = {}, list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (_ast.FunctionDef, _ast.AsyncFunctionDef, _ast.Lambda, _ast.ClassDef)):
            continue            # the names of a function inside main are that function's own
        if isinstance(node, _ast.Assign):
            targets = node.targets
        elif isinstance(node, _ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        else:
            targets = []
        for target in targets:
            if isinstance(target, _ast.Name) and target.id in _MAIN_SETTINGS and target.id in own:
                try:
                    found[target.id] = _ast.literal_eval(node.value)
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    found[target.id] = _NOT_A_CONSTANT
        todo.extend(_ast.iter_child_nodes(node))
    return found


def _exercise_stub(error, text):
    # The piece (and function) of the exercise stub behind ``error`` -- the error itself, what
    # caused it, or a traceback in the test's report ``text`` -- or None.
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, NotImplementedError) and _EXERCISE_STUB.match(str(error)):
            return _EXERCISE_STUB.match(str(error))
        error = error.__cause__ or error.__context__
    if "NotImplementedError" in text:
        return _EXERCISE_STUB.search(text)
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    if report.failed and call.excinfo is not None:
        text = report.longreprtext + "".join(content for _, content in report.sections)
        stub = _exercise_stub(call.excinfo.value, text)
        if stub is not None:
            # One place for every test that waits for the same function: the summary then
            # says once per function how many tests wait for it.
            report.outcome = "skipped"
            report.longrepr = (__file__, pytest_runtest_makereport.__code__.co_firstlineno,
                               f"needs {stub[1]} ({stub[2]}), not written yet: "
                               "see python check.py")
'''

WORKFLOW_TEMPLATE = """\
# GitHub Classroom's autograding: on every push, the self-check grades each piece
# (.github/classroom/autograding.json: python check.py --piece N, with the piece's points).
name: GitHub Classroom Workflow

on:
  push:
  workflow_dispatch:

permissions:
  checks: write
  actions: read
  contents: read

jobs:
  build:
    name: Autograding
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install the requirements (the CPU build of torch)
        run: |
          python -m pip install --upgrade pip
          pip install {TORCH} --index-url https://download.pytorch.org/whl/cpu
          pip install -r requirements.txt
      - uses: education/autograding@v1
"""


def main(argv: list[str] | None = None) -> int:
    """The command line: check the target, build the exercise in a scratch folder, copy it."""
    parser = cli.Parser(prog="make_exercise.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=cli.path, metavar="DIR",
                        help="the folder to write the students' version into (new or empty)")
    parser.add_argument("--force", action="store_true",
                        help="write into a folder that is not empty (files of the same name are "
                             "replaced, other files stay)")
    args = parser.parse_args(argv)
    out = Path(args.out).expanduser().absolute()
    try:
        check_target(ROOT, out, tracked_files(ROOT), args.force)
        with tempfile.TemporaryDirectory(prefix="exercise-") as scratch:
            stubs = build(ROOT, Path(scratch))
            for made in sorted(Path(scratch).rglob("*")):
                if made.is_file():
                    destination = out / made.relative_to(scratch)
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(made, destination)
    except OSError as error:
        raise ExerciseError(f"--out {args.out}: cannot write the exercise there "
                            f"({error.strerror or error}: {error.filename})") from None
    print(f"Wrote the students' version to {args.out} ({len(stubs)} stubs):")
    for stub in stubs:
        print(f"  piece {stub.instructions.piece}: {stub.instructions.function} "
              f"({stub.path}:{stub.line})")
    print("Students fill in the stubs and check them with: python check.py")
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
