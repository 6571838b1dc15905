"""Command-line plumbing shared by every script: argument types and one-line errors (exit 2)."""

from __future__ import annotations

import argparse
import difflib
import inspect
import os
import re
import signal
import sys
from typing import Callable

import environment_check

# A course script run by a Python without the project's packages stops here, with one line.
environment_check.check_running_script()

USAGE_ERROR = 2      # bad arguments or unusable input
INTERRUPTED = 130    # Ctrl-C (128 + SIGINT)
# The message of an exercise stub's NotImplementedError (tools/exercise/contracts.py):
# "Exercise piece 3: write MC_Trainer.main, then run python check.py".
EXERCISE_STUB = re.compile(r"Exercise piece (\d+): write ([\w.]+)")
MAX_COUNT = 10**9    # larger counts are typos, not plans
# The repository folder: default files (Data/...) live there, wherever a script is started from.
REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# ``pip install .`` puts the course's files into site-packages, in tictactoe_rl/course/: not a
# place for a user's own files, and its scripts are run as console commands.
INSTALLED = os.path.basename(REPOSITORY) == "course" and \
    os.path.basename(os.path.dirname(REPOSITORY)) == "tictactoe_rl"
# The project's version: every script's --version, and the installed package's metadata
# (pyproject.toml reads it from here)
VERSION = "1.0.0"


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line on stderr and exit status 2, whose
    flags must be written in full (no guessing ``--ep`` means ``--epochs``), and that answers
    ``--version``."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self.add_argument("--version", action="version", version=f"%(prog)s {VERSION}",
                          help="show the project's version and exit")

    def error(self, message: str):
        fail(f"{self.prog}: error: {message}{self.suggestion(message)} (see --help)")

    def suggestion(self, message: str) -> str:
        """``; did you mean --epochs?`` for an unknown flag close to a known one, else ``""``."""
        if not message.startswith("unrecognized arguments:"):
            return ""
        for word in message.split(":", 1)[1].split():
            close = difflib.get_close_matches(word.split("=")[0], self._option_string_actions,
                                              n=1, cutoff=0.75)
            if word.startswith("-") and close:
                return f"; did you mean {close[0]}?"
        return ""


def fail(message: str):
    """Print ``message`` as one line on stderr and exit with status 2."""
    print(" ".join(str(message).split()), file=sys.stderr)
    sys.exit(USAGE_ERROR)


def _number(text: str, kind: Callable, what: str):
    if not text.isascii() or not text.strip():
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None


def count(text: str) -> int:
    """A whole number from 1 to 10**9 (games, episodes)."""
    value = _number(text, int, "a whole number")
    if not 1 <= value <= MAX_COUNT:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_COUNT:,}, got {value}")
    return value


def seed(text: str) -> int:
    """A whole number from 0 to 2**32 - 1."""
    value = _number(text, int, "a whole number")
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"must be between 0 and 2**32 - 1, got {value}")
    return value


def path(text: str) -> str:
    """A file path; an empty one is a mistake, not a request for the default."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a file path, got {text!r}")
    return text


def unit_interval(text: str) -> float:
    """A number in (0, 1] (learning rates, discount factors)."""
    value = _number(text, float, "a number")
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {text}")
    return value


def seconds(text: str) -> float:
    """A number of seconds from 0 to one hour."""
    value = _number(text, float, "a number of seconds")
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"must be between 0 and 3600 seconds, got {text}")
    return value


def stop_at_unwritten_piece(*functions: Callable) -> None:
    """Raise the stub's ``NotImplementedError`` of the first of ``functions`` that is still an
    exercise stub (``run`` shows it as one line), before a script starts work that needs it."""
    for function in functions:
        code = getattr(inspect.unwrap(function), "__code__", None)
        stub = next((const for const in (code.co_consts if code else ())
                     if isinstance(const, str) and EXERCISE_STUB.match(const)), None)
        if stub is not None:
            raise NotImplementedError(stub)


def run(main: Callable[[], int | None]) -> None:
    """Run a script's ``main`` and exit with its status; bad input (``ValueError``, including a
    bad table file or agent spec) becomes one line and status 2, a piece of the exercise not
    written yet one line that names it and status 1, Ctrl-C a short note and 130, an
    output that cannot be written (a full disk, ``> /dev/full``) one line and status 1."""
    signal.signal(signal.SIGINT, signal.default_int_handler)   # from here on, Ctrl-C is ours
    try:
        status = main()
        sys.stdout.flush()    # now, so that a write error is reported here and not at exit
        # Python ignores a KeyboardInterrupt while it shuts down (torch's take a moment): a
        # Ctrl-C from here on ends the process at once, as interrupted; all is saved by now.
        signal.signal(signal.SIGINT, _interrupted_at_once)
    except ValueError as error:
        fail(f"error: {error}")
    except NotImplementedError as error:
        stub = EXERCISE_STUB.match(str(error))
        if stub is None:
            raise
        # a piece of the exercise not written yet: what to do, not a traceback
        print(f"Not written yet (its comments say what it does; a hint: python check.py "
              f"--hint {stub[1]}): {error}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("\nInterrupted.", file=sys.stderr)
        sys.exit(INTERRUPTED)
    except BrokenPipeError:  # the reader went away (e.g. `| head`): nothing left to say
        sys.stderr.close()
        sys.exit(0)
    except OSError as error:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # drop what cannot go
        print(f"error: cannot write the output: {error.strerror or error}", file=sys.stderr)
        sys.exit(1)
    sys.exit(status or 0)


def quiet_interrupt_while_starting() -> None:
    """A Ctrl-C before ``run`` starts (while a script still imports its modules) ends it with
    "Interrupted." and status 130, not a traceback. Called when this package is imported by a
    script of the repository run from the command line; ``run`` puts Python's handler back."""
    main = sys.modules.get("__main__")
    script = os.path.abspath(getattr(main, "__file__", "") or "")
    if os.path.dirname(script) == REPOSITORY and signal.getsignal(signal.SIGINT) is \
            signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupted_at_once)


def _interrupted_at_once(signum, frame) -> None:
    print("\nInterrupted.", file=sys.stderr)
    os._exit(INTERRUPTED)


def own_file(relative: str) -> str:
    """Where a file the user makes by default goes (e.g. ``Data/my_Q_MC_X.pth``): inside the
    repository (``repository_file``), or, installed from a wheel, into the current folder
    (``my_Q_MC_X.pth``)."""
    return os.path.basename(relative) if INSTALLED else repository_file(relative)


def measure_command() -> str:
    """How the user runs Tester.py from the current folder: ``tictactoe-measure`` when installed
    from a wheel, else ``python`` and its path (``python Tester.py`` in the repository)."""
    return "tictactoe-measure" if INSTALLED else f"python {repository_file('Tester.py')}"


def repository_file(relative: str) -> str:
    """The path of ``relative`` (e.g. ``Data/Q_MC_X.pth``) inside the repository, whatever the
    current folder is; written relative to the current folder when it lies below it."""
    full = os.path.join(REPOSITORY, relative)
    here = os.getcwd()
    return os.path.relpath(full, here) if full.startswith(here + os.sep) else full


quiet_interrupt_while_starting()
