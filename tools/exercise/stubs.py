"""Turning the marked solutions of a solved file into the students' stubs.

Inside a function, a solution is marked (``tools/exercise/contracts.py`` shows how); every marked
solution becomes its piece's contract as a few comment lines and a ``raise NotImplementedError``
naming the piece, and an import that only the solutions used goes as well, so that it gives no
hint.
"""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize
from dataclasses import dataclass

from tictactoe_rl.selfcheck.pieces import SELF_CHECK, STUB_PREFIX
from tools.exercise.contracts import INSTRUCTIONS, Instructions

LINE_WIDTH = 99
# Names a file's chapter code relies on at module level: they stay even when only a solution
# used them (the chapter's header names; the constants piece 1 starts from).
CHAPTER_NAMES = {
    "MC_Trainer.py": ("env", "player1", "player2", "gamma", "alpha", "epochs", "PATH", "test",
                      "State", "Generate_episode", "main"),
    "AI_Agent.py": ("EPSILON_START", "EPSILON_FINAL", "math"),
}
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
    if "[exercise piece" not in text:       # no marker, well formed or not: nothing to tokenize
        return []
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
                                    "tools/exercise/contracts.py")
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
