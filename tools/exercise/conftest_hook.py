"""The hook that the students' version adds to tests/conftest.py (``students_conftest``): its
text only, which is why this module is long."""

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
# ends with the piece's message, or the script says so in one line), or one marked as needing a
# piece that does not pass yet.
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
_NOT_WRITTEN = "python check.py --hint"   # a script that says so in one line (cli.run) ends
# it with the stub's message, which survives the cut that pytest makes in a long report
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
    if "NotImplementedError" in text or _NOT_WRITTEN in text:
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
