"""GitHub Classroom in the students' version: the autograding tests, the workflow that runs them
with the self-check as issued, and the manifest of the issued files.

The workflow does not trust the hand-in's own copy of the self-check: it puts every file back as
it was in the assignment's first commit except the files the student writes in (``STUDENT_FILES``),
removes every file added since (whatever its name: a ``.pyc`` in a ``__pycache__``, a
``sitecustomize.py``, a ``.pth``, a ``selfcheck.py`` would all run) and everything untracked,
and checks every restored file against the hashes written into it, so that neither an edited
``check.py`` nor a rewritten first commit can change a verdict. Python runs with no bytecode
written or read in the repository (``PYCACHE``). Before each piece, autograding's ``setup`` puts
the check files back again, so that a piece's code that rewrote them on disk changes nothing
for the next piece. The student's code still runs on the runner as the runner's own account,
so this is no sandbox: docs/GRADING.md says what stays open.

The manifest, ``MANIFEST`` (JSON), says the same for the class grader::

    {"format": 1, "algorithm": "sha256",
     "student_files": ["AI_Agent.py", ...],          # the student writes here: may differ
     "check_files": {"check.py": "<sha256>", ...},   # every other file, as issued
     "workflow": {".github/workflows/classroom.yml": "<sha256>",
                  ".github/classroom/autograding.json": "<sha256>"}}

A hand-in whose check files or workflow differ from these is not the assignment as issued:
``tampered(folder, manifest)`` names them (the grader takes the manifest from its own freshly
made students' version, never from the hand-in).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from tictactoe_rl.selfcheck.pieces import PIECES, SELF_CHECK

AUTOGRADING = ".github/classroom/autograding.json"
WORKFLOW = ".github/workflows/classroom.yml"
MANIFEST = ".github/classroom/issued.json"
MANIFEST_FORMAT = 1
# The files that hold the pieces: the only ones whose hand-in version the check runs.
STUDENT_FILES = ("AI_Agent.py", "MC_Trainer.py", "Episode.py", "SARSA_Trainer.py", "Q_Trainer.py",
                 "nim/nim.py")
# Classroom's limit for one piece's check, in minutes (a piece takes seconds; this is for a loop
# that never ends).
PIECE_MINUTES = 10
# Where Python keeps bytecode in the workflow: outside the repository, so that a .pyc the student
# committed (or one that a piece's code wrote) is never read.
PYCACHE = "/tmp/classroom-pycache"

WORKFLOW_TEMPLATE = """\
# GitHub Classroom's autograding: on every push, the self-check grades each piece
# (.github/classroom/autograding.json: python check.py --piece N, with the piece's points).
# It grades with the self-check as issued: every file except the ones you write in
# ({STUDENT_FILES}) is put back as it was in the assignment's first commit and
# checked against the hashes below, so a changed check.py changes nothing.
name: GitHub Classroom Workflow

on:
  push:
  workflow_dispatch:

permissions:
  checks: write
  actions: read
  contents: read

env:
  PYTHONDONTWRITEBYTECODE: "1"
  PYTHONPYCACHEPREFIX: {PYCACHE}
  PYTHONNOUSERSITE: "1"

jobs:
  build:
    name: Autograding
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: "0"
      - name: Put back the self-check as issued
        run: |
          first=$(git rev-list --max-parents=0 HEAD | tail -n 1)
          git diff --name-only -z --diff-filter=A "$first" HEAD | xargs -0 -r git rm -q -f --
          git checkout "$first" -- .
          git checkout HEAD -- {STUDENT_FILES}
          git clean -ffdxq
          sha256sum --check --strict --quiet <<'ISSUED'
{SUMS}
          ISSUED
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install the requirements (the CPU build of torch)
        run: |
          python -m pip install --upgrade pip
          pip install --timeout 20 --retries 1 {TORCH} --index-url https://download.pytorch.org/whl/cpu || pip install {TORCH}
          pip install -r requirements.txt
      - uses: education/autograding@v1
"""


def restore_again() -> str:
    """The shell command that puts the check files back before a piece (the workflow's first
    restore removed every added file from git, so ``git clean`` removes any the code made)."""
    return ('git checkout -f "$(git rev-list --max-parents=0 HEAD | tail -n 1)" -- . && '
            f"git checkout -f HEAD -- {' '.join(STUDENT_FILES)} && git clean -ffdxq")


def autograding() -> str:
    """GitHub Classroom's autograding tests: one per piece, ``python check.py --piece N``, which
    exits 0 when that piece passes, after the check files are put back (``restore_again``); the
    points are the pieces' own."""
    tests = [{"name": f"Piece {piece.number}: {piece.title}", "setup": restore_again(),
              "run": f"{SELF_CHECK} --piece {piece.number}", "input": "", "output": "",
              "comparison": "included", "timeout": PIECE_MINUTES, "points": piece.points}
             for piece in PIECES]
    return json.dumps({"tests": tests}, indent=2, ensure_ascii=False) + "\n"


def torch_pin(requirements: str | None) -> str:
    """The torch line of requirements.txt (``torch==2.13.0``): the CPU build installed first must
    be the version that the rest of the requirements then find already there."""
    lines = (requirements or "").splitlines()
    return next((line.replace(" ", "") for line in lines if re.match(r"\s*torch\s*[=<>~]", line)),
                "torch")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_files(target: Path) -> dict[str, str]:
    """``{path: sha256}`` of every file of the students' version in ``target`` that the student
    does not write in (the workflow and the manifest aside), autograding.json included."""
    names = sorted(path.relative_to(target).as_posix() for path in target.rglob("*")
                   if path.is_file())
    return {name: sha256(target / name) for name in names
            if name not in (*STUDENT_FILES, WORKFLOW, MANIFEST)}


def workflow(torch: str, sums: dict[str, str]) -> str:
    """The Classroom workflow: the self-check put back as issued and checked against ``sums``,
    Python 3.11, the CPU build of ``torch`` (the pinned requirement), the rest of
    requirements.txt, then Classroom's autograding action (which runs autograding.json)."""
    lines = "\n".join(f"          {digest}  {name}" for name, digest in sums.items())
    return (WORKFLOW_TEMPLATE.replace("{TORCH}", torch).replace("{SUMS}", lines)
            .replace("{STUDENT_FILES}", " ".join(STUDENT_FILES)).replace("{PYCACHE}", PYCACHE))


def write_classroom(target: Path, torch: str) -> None:
    """autograding.json, then the workflow (with the hashes of every other file), then the
    manifest (with the workflow's hash), into the students' version in ``target``."""
    (target / AUTOGRADING).parent.mkdir(parents=True, exist_ok=True)
    (target / AUTOGRADING).write_text(autograding(), encoding="utf-8")
    sums = check_files(target)
    (target / WORKFLOW).parent.mkdir(parents=True, exist_ok=True)
    (target / WORKFLOW).write_text(workflow(torch, sums), encoding="utf-8")
    manifest = {"format": MANIFEST_FORMAT, "algorithm": "sha256",
                "student_files": list(STUDENT_FILES),
                "check_files": {name: digest for name, digest in sums.items()
                                if name != AUTOGRADING},
                "workflow": {WORKFLOW: sha256(target / WORKFLOW),
                             AUTOGRADING: sums[AUTOGRADING]}}
    (target / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


def tampered(folder: Path, manifest: dict) -> list[str]:
    """The check files and workflow files of the hand-in ``folder`` that are missing or differ
    from the issued ones in ``manifest`` (the dict of ``MANIFEST``), sorted; [] when none."""
    issued = {**manifest["check_files"], **manifest["workflow"]}
    changed = []
    for name, digest in issued.items():
        path = folder / name
        if path.is_symlink() or not path.is_file() or sha256(path) != digest:
            changed.append(name)
    return sorted(changed)
