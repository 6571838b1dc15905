"""The chapter's code as students have it, read from its listings beside the project (the
course's fixtures, which a user's clone does not have), and a way to run it in a copy of this
repository. The tests and ``tools/bench.py`` use it.

The chapter prints its trainer in pieces: the skeleton (module header, stubs, the given ``test``,
``print_episodes`` and ``switch_players``) and the solution (its module header and ``main``, and
``Generate_episode``). ``solved_trainer()`` puts them together as a student who copies the
solution into the skeleton does: the solution's header and functions take the place of the
skeleton's, every other line stays as printed. The only line added is the import of
``Random_Agent_Advanced``, which the solution's header uses and the skeleton does not import.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = ROOT.parent / "shared" / "fixtures" / "chapter"
# What a copy of the repository leaves out: history, the environment, generated and cached files.
NOT_COPIED = shutil.ignore_patterns(".git", ".venv", "exercise", "__pycache__", ".pytest_cache",
                                    ".hypothesis", "my_*.pth", "grading-report")


class ListingMissing(FileNotFoundError):
    """The chapter's listings are not beside the project (a user's clone has none)."""


def listing(name: str) -> str:
    """The text of one of the chapter's listings; ``ListingMissing`` when they are absent."""
    path = CHAPTER / name
    if not path.is_file():
        raise ListingMissing(f"the chapter's listing {name} is not beside the project "
                             f"({CHAPTER})")
    return path.read_text(encoding="utf-8")


def _spans(text: str) -> dict[str, tuple[int, int]]:
    """``{name: (first line, last line)}`` (0-based, inclusive) of each top-level function."""
    return {node.name: (node.lineno - 1, node.end_lineno - 1)
            for node in ast.parse(text).body if isinstance(node, ast.FunctionDef)}


def solved_trainer(main: str | None = None, generate: str | None = None) -> str:
    """The chapter's ``MC_Trainer.py`` with its solution typed in (or the given ``main`` and
    ``Generate_episode`` texts instead of the solution's)."""
    skeleton = listing("skeleton_MC_Trainer.py").splitlines()
    solution = listing("solution_main.py")
    head, _, solved_main = solution.partition("def main")
    main = main if main is not None else "def main" + solved_main
    generate = generate if generate is not None else listing("solution_Generate_episode.py")
    spans = _spans("\n".join(skeleton))
    imports = [line for line in skeleton[:spans["main"][0]] if line.startswith(("from", "import"))]
    imports.append("from Random_Agent_Advanced import Random_Agent_Advanced")
    rest = skeleton[spans["Generate_episode"][1] + 1:]
    return "\n".join(imports + ["", head.strip(), "", main.rstrip(), "", generate.rstrip(), ""]
                     + rest) + "\n"


def training_loop() -> str:
    """The ``for epoch`` loop of the chapter's ``main``, as printed, from its first line to the
    blank line after it: the tests write the students' variants and mistakes as changes to it."""
    lines = listing("solution_main.py").splitlines()
    first = next(number for number, line in enumerate(lines) if line.startswith("    for epoch"))
    end = next(number for number in range(first, len(lines)) if not lines[number].strip())
    return "\n" + "\n".join(lines[first:end]) + "\n"


def chapter_agent() -> str:
    """The chapter's ``AI_Agent.py`` with its solution's ``get_Q`` and ``epsilon_greedy``."""
    skeleton = listing("skeleton_AI_Agent.py").splitlines()
    methods = listing("solution_AI_Agent_methods.py")
    tree = ast.parse("\n".join(skeleton))
    cls = next(node for node in tree.body if isinstance(node, ast.ClassDef))
    replaced = {node.name: (node.lineno - 1, node.end_lineno - 1) for node in cls.body
                if isinstance(node, ast.FunctionDef) and node.name in ("get_Q", "epsilon_greedy")}
    lines = list(skeleton)
    for name, (first, last) in sorted(replaced.items(), key=lambda item: -item[1][0]):
        lines[first:last + 1] = ["    # (the solution's method follows)"]
    insert_at = cls.end_lineno
    return "\n".join(lines[:insert_at] + [""] + methods.rstrip().splitlines()
                     + lines[insert_at:]) + "\n"


def repo_copy(folder: Path, files: dict[str, str] | None = None) -> Path:
    """A copy of this repository in ``folder``, with ``files`` ({name: text}) written over it, as
    a teacher who drops the course's scripts into the repo has it."""
    target = folder / "repo"
    shutil.copytree(ROOT, target, ignore=NOT_COPIED)
    for name, text in (files or {}).items():
        (target / name).write_text(text, encoding="utf-8")
    return target


def run_script(folder: Path, name: str, timeout: float = 180, stdin: str = "",
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``python NAME`` in ``folder``, as a user runs it: its own process, the folder as the
    current directory, no window."""
    environment = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
                   **(env or {})}
    environment.pop("PYTHONPATH", None)
    return subprocess.run([sys.executable, name], cwd=folder, capture_output=True, text=True,
                          timeout=timeout, input=stdin, env=environment)


def _replace_function(text: str, name: str, new: str, in_class: str | None = None) -> str:
    """``text`` with the function (or method of ``in_class``) ``name`` replaced by ``new``,
    which is indented as it must stand."""
    tree = ast.parse(text)
    body = tree.body
    if in_class is not None:
        body = next(node for node in body if isinstance(node, ast.ClassDef)
                    and node.name == in_class).body
    node = next(node for node in body if isinstance(node, ast.FunctionDef) and node.name == name)
    lines = text.splitlines()
    first = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
    return "\n".join(lines[:first] + new.rstrip().splitlines() + lines[node.end_lineno:]) + "\n"


def _methods(text: str) -> dict[str, str]:
    """The methods in a listing of indented methods, by name, each with its lines."""
    lines = text.splitlines()
    tree = ast.parse("class _Listing:\n" + text)
    return {node.name: "\n".join(lines[node.lineno - 2:node.end_lineno - 1])
            for node in tree.body[0].body if isinstance(node, ast.FunctionDef)}


def type_in_solution(folder: Path, main: str | None = None, generate: str | None = None,
                     epsilon: str | None = None, header: str | None = None) -> None:
    """Type the chapter's solution into the students' version in ``folder`` as a student does:
    its module header lines into MC_Trainer.py (as printed: the file imports what they use),
    its ``main`` and ``Generate_episode`` in place of the stubs, its ``get_Q`` and
    ``epsilon_greedy`` into AI_Agent.py. ``main``, ``generate``, ``epsilon`` and ``header``
    type other code in their place."""
    solved_header, _, solved_main = listing("solution_main.py").partition("def main")
    header = solved_header if header is None else header
    trainer = (folder / "MC_Trainer.py").read_text(encoding="utf-8")
    trainer = _replace_function(trainer, "main", main or "def main" + solved_main)
    trainer = _replace_function(trainer, "Generate_episode",
                                generate or listing("solution_Generate_episode.py"))
    at = trainer.index("\ndef Generate_episode")
    (folder / "MC_Trainer.py").write_text(trainer[:at] + "\n" + header + trainer[at:],
                                          encoding="utf-8")
    agent = (folder / "AI_Agent.py").read_text(encoding="utf-8")
    methods = _methods(listing("solution_AI_Agent_methods.py"))
    if epsilon is not None:
        methods["epsilon_greedy"] = epsilon
    for name, text in methods.items():
        agent = _replace_function(agent, name, text, in_class="AI_Agent")
    (folder / "AI_Agent.py").write_text(agent, encoding="utf-8")
