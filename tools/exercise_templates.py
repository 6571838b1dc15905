"""The text of the files the students' version writes for itself: its README, the hook in
tests/conftest.py, and the Classroom workflow (``tools/make_exercise.py`` fills them in). Text
only, which is why this module is long."""

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
