"""What the student's code reaches for while a check runs: the self-check's own code, a table
that ships with the repository or any other table, or another Python.

The students' version holds no solved code (``tools/exercise/withheld.py``), but the check's own
files are there, and so are the trained tables in ``Data/``. A piece must be the student's own:
importing or reading the self-check's code, opening a shipped table, loading a table from outside
the check's own folders (a classmate's: ``allow`` names the check's), or starting a Python or a
fork (which this watch would not follow) from the student's code fails the piece, naming what it
reached for. A table's load is seen even when its file is missing (``tables.load``). The watch is an audit hook (``sys.addaudithook``),
which Python offers no way to remove; an event counts when a frame of one of the files that hold
the pieces, or of a file the students' version does not have, is on the stack, so the check's
own imports and reads do not.
"""

from __future__ import annotations

import importlib
import os
import site
import sys
from pathlib import Path

from tictactoe_rl.selfcheck.common import ROOT
from tictactoe_rl.selfcheck.saved import SHIPPED

# The files that hold the pieces (the student's own).
PIECE_FILES = ("AI_Agent.py", "MC_Trainer.py", "Episode.py", "SARSA_Trainer.py", "Q_Trainer.py",
               "nim/nim.py")
# The check's own code: modules (and the packages below them) and paths (and the files below them).
CHECKER_MODULES = ("tictactoe_rl.selfcheck", "check", "tools", "tests")
CHECKER_PATHS = ("tictactoe_rl/selfcheck", "check.py", "tools", "tests")
# Where Python reads source files to show them (not to run them): the standard library's own
# files, by their full path (a student's code compiled under the name "inspect.py" is no reader).
SOURCE_READERS = frozenset(os.path.join(os.path.dirname(os.__file__), name) for name in (
    "linecache.py", "tokenize.py", "inspect.py", "traceback.py"))

# The answer keys: loaded by the judging process up front, forgotten in the student's process
# (so that importing one there is an import the watch sees, not a look-up of a loaded module).
ANSWERS = ("tictactoe_rl.selfcheck.reference",)

_reached: list[str] = []
_allowed: list[str] = []
LOAD_EVENT = "tictactoe_rl.tables.load"      # raised by tictactoe_rl.tables.files.load_table, before it opens anything
# The files a table can be loaded from (tictactoe_rl.tables.files saves .pth; pickles and numpy files too).
TABLE_SUFFIXES = (".pth", ".pt", ".pkl", ".pickle", ".npy", ".npz")
_student_paths: set[str] = set()


def install(issued: set[str] | None) -> None:
    """Watch from now on. ``issued``: the files of the students' version as issued (relative
    paths, from its manifest), so that a frame of a file the student added counts as the
    student's too; None (the teachers' repository): the piece files alone."""
    _student_paths.update(str(ROOT / name) for name in PIECE_FILES)
    root = str(ROOT) + "/"
    # Python's own files and the installed packages, wherever they are (a student's .venv may
    # well be inside the folder): never the student's.
    installed = tuple(dict.fromkeys(os.path.join(prefix, "") for prefix in (
        sys.prefix, sys.base_prefix, sys.exec_prefix, *site.getsitepackages(),
        site.getusersitepackages())))

    def student_frame(filename: str) -> bool:
        if filename in _student_paths:
            return True
        return (issued is not None and filename.startswith(root)
                and filename[len(root):] not in issued and not filename.startswith(installed)
                and "site-packages" not in filename)

    def hook(event: str, args: tuple) -> None:
        path = None
        if event in PROCESS_EVENTS:
            what = started(event, args)
            if what is None:
                return
        elif event == "import":
            name = str(args[0])
            if not _within(name, CHECKER_MODULES, "."):
                return
            what = f"imports the self-check's own code ({name})"
        elif event in ("open", LOAD_EVENT):      # a table's load: even of a missing file
            args = args if event == "open" else (args[0], "r", None)
            path = _relative(args[0])
            if path is not None and (path in SHIPPED or _within(path, CHECKER_PATHS, "/")):
                what = (f"opens the shipped table {path}" if path in SHIPPED else
                        f"reads the self-check's own code ({path})")
            else:
                what = read_table(args)
                if what is None:
                    return
        else:
            return
        frame = sys._getframe(1)
        while frame is not None:
            if event == "open" and frame.f_code.co_filename in SOURCE_READERS \
                    and path not in SHIPPED:
                return      # a library showing source lines (a traceback, a warning, inspect)
            if student_frame(frame.f_code.co_filename):
                _reached.append(what)
                return
            frame = frame.f_back

    sys.addaudithook(hook)


# Starting a process: a Python started from the student's code runs without this watch, so it
# could import the check's own code unseen, and a fork of the student's process keeps what it
# found to itself.
PROCESS_EVENTS = ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
                  "os.fork", "os.forkpty")


def started(event: str, args: tuple) -> str | None:
    """What a process-starting audit ``event`` starts, said for the message, when it is a fork or
    a command that runs Python (the interpreter's path, or "python" in it); None otherwise (a
    program such as ``clear``)."""
    if event in ("os.fork", "os.forkpty"):
        return "forks its process (os.fork, multiprocessing)"
    words = [os.fsdecode(word) for word in _words(args)]
    words = words[1:] if words[1:2] == words[:1] else words   # Popen: the program, then argv
    text = " ".join([os.path.basename(words[0]), *words[1:]] if words else [])
    interpreter = os.path.realpath(sys.executable)
    if "python" in text.lower() or interpreter in text or any(
            os.path.realpath(word) == interpreter for word in words[:2] if word.strip()):
        return f"starts another Python ({text[:80]!r}), which the check cannot watch"
    return None


def _words(args: tuple) -> list:
    """The program and its arguments, from an audit event's arguments."""
    found = []
    for arg in args:
        if isinstance(arg, (str, bytes, os.PathLike)):
            found.append(os.fspath(arg))
        elif isinstance(arg, (list, tuple)):
            found.extend(os.fspath(item) for item in arg
                         if isinstance(item, (str, bytes, os.PathLike)))
    return found


def allow(folder: str) -> None:
    """Let the student's code read tables in ``folder``, one of the check's own (where its
    main saves, and may load what it saved)."""
    _allowed.append(os.path.join(os.path.realpath(folder), ""))


def read_table(args: tuple) -> str | None:
    """What an ``open`` event does, said for the message, when it reads a table file from
    outside the check's own folders (a classmate's, one trained before); None otherwise."""
    path, mode, flags = (tuple(args) + (None, None))[:3]
    if not isinstance(path, (str, bytes)) or not os.fsdecode(path).endswith(TABLE_SUFFIXES):
        return None
    reading = ("r" in mode and "+" not in mode) if isinstance(mode, str) else \
        isinstance(flags, int) and not flags & (os.O_WRONLY | os.O_RDWR)
    where = os.path.realpath(os.fsdecode(path))
    if not reading or where.startswith(tuple(_allowed)):
        return None
    return (f"reads the table {os.path.basename(where)!r}, which no update of this run made (a "
            "table of a classmate's, or of an earlier training)")


def _within(name: str, roots: tuple[str, ...], separator: str) -> bool:
    """Whether ``name`` is one of ``roots`` or below one (``a.b.c`` is below ``a.b``)."""
    return any(name == root or name.startswith(root + separator) for root in roots)


def load_answers() -> None:
    for name in ANSWERS:
        importlib.import_module(name)


def forget_answers() -> None:
    for name in ANSWERS:
        sys.modules.pop(name, None)
        package, _, attribute = name.rpartition(".")
        if hasattr(sys.modules.get(package), attribute):
            delattr(sys.modules[package], attribute)


def _relative(path) -> str | None:
    if isinstance(path, int):
        return None
    try:
        resolved = Path(path.decode() if isinstance(path, bytes) else path).resolve()
        return resolved.relative_to(ROOT).as_posix()
    except (ValueError, OSError, TypeError):
        return None


def reached() -> str | None:
    """The first thing the student's code reached for since the watch began, or None."""
    return _reached[0] if _reached else None
