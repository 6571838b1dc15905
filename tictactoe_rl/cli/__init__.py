"""Command-line plumbing shared by every script: argument types and one-line errors (exit 2)."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import difflib
import inspect
import os
import re
import signal
import sys
import threading
import time
import unicodedata
from typing import Callable

from tictactoe_rl import environment_check
from tictactoe_rl.home import COURSE, INSTALLED

# A course script run by a Python without the project's packages stops here, with one line.
environment_check.check_running_script()

USAGE_ERROR = 2      # bad arguments or unusable input
INTERRUPTED = 130    # Ctrl-C (128 + SIGINT); every signal that ends a script: 128 + its number
RESIGNAL_DELAY = 0.05   # seconds: long enough for the hook that drops an interrupt to return
# The signals that end a script as Ctrl-C does, but with their own exit status.
ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                       if hasattr(signal, name))
# The message of an exercise stub's NotImplementedError (tools/exercise/contracts.py):
# "Exercise piece 3: write MC_Trainer.main, then run python check.py".
EXERCISE_STUB = re.compile(r"Exercise piece (\d+): write ([\w.]+)")
MAX_COUNT = 10**9    # larger counts are typos, not plans
# The course's folder (the repository; installed, tictactoe_rl/course/): default files (Data/...)
# live there, wherever a script is started from.
REPOSITORY = COURSE
# INSTALLED: ``pip install .`` put the course's files into site-packages, in tictactoe_rl/course/:
# not a place for a user's own files, and its scripts are run as console commands.
# The project's version: every script's --version, and the installed package's metadata
# (pyproject.toml reads it from here)
VERSION = "1.0.0"
# The console command (``tictactoe-measure``) running a course script, which --version names;
# set by ``tictactoe_rl.commands``, None when the script runs as itself (``python Tester.py``).
COMMAND: str | None = None


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line on stderr and exit status 2, whose
    flags must be written in full (no guessing ``--ep`` means ``--epochs``), and that answers
    ``--version``."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self.add_argument("--version", action="version",
                          version=f"{COMMAND or '%(prog)s'} {VERSION}",
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
    """Print ``message`` as one line on stderr (``one_line``) and exit with status 2."""
    print(one_line(message), file=sys.stderr)
    sys.exit(USAGE_ERROR)


def shown(text: object) -> str:
    """``text`` (a path, a name) with every character that could hide, reorder or break what is
    shown escaped: control and format characters (a newline, U+202E) as ``\\uXXXX``, a byte of
    a file name that was not UTF-8 as ``\\xNN``, a lone surrogate as ``\\uXXXX``. Every script
    shows a path through it."""
    parts = []
    for char in str(text):
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:                 # os.fsdecode's stand-in for a raw byte
            parts.append(f"\\x{code - 0xDC00:02x}")
        elif 0xD800 <= code <= 0xDFFF or unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp"):
            parts.append(f"\\u{code:04x}")
        else:
            parts.append(char)
    return "".join(parts)


def one_line(message: object) -> str:
    """``message`` as one line: ``shown``, so that a newline inside it (in a file name, say) is
    seen as ``\\u000a`` rather than starting a line, with runs of spaces made one."""
    return re.sub(" {2,}", " ", shown(str(message).strip()))


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


def minutes(text: str) -> float:
    """A number of minutes from 0 to a day."""
    value = _number(text, float, "a number of minutes")
    if not 0 <= value <= 24 * 60:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1440 minutes, got {text}")
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


class Stopped(KeyboardInterrupt):
    """An ending signal other than Ctrl-C came (SIGTERM, SIGHUP): handled wherever Ctrl-C is (a
    ``KeyboardInterrupt``), and the script ends with status 128 + ``number``."""

    def __init__(self, number: int) -> None:
        super().__init__(f"stopped by {signal.Signals(number).name}")
        self.number = number


def stop_status(number: int | None) -> int:
    """The exit status after signal ``number``: 130 after Ctrl-C (or an interrupt whose signal
    is not known: None), 143 after SIGTERM."""
    return 128 + (signal.SIGINT if number is None else number)


def stop_note(number: int) -> str:
    """The one line a script ends with after signal ``number``."""
    return "Interrupted." if number == signal.SIGINT else \
        f"Stopped by {signal.Signals(number).name}."


def signal_of(interrupt: KeyboardInterrupt) -> int:
    """The signal that raised ``interrupt``: its own for ``Stopped``, else SIGINT."""
    return interrupt.number if isinstance(interrupt, Stopped) else signal.SIGINT


def _raise_stopped(signum, frame) -> None:
    raise Stopped(signum)


def _keep_dropped_interrupts(unraisable) -> None:
    """Python drops an exception raised where it cannot go on (a weakref callback, a
    ``__del__``, e.g. inside torch or tqdm) after printing "Exception ignored in ...". A
    Ctrl-C or SIGTERM dropped there is raised again a moment after this hook has returned
    (raised in here it would be dropped too), so the script still stops with its line and status."""
    if not isinstance(unraisable.exc_value, KeyboardInterrupt):
        sys.__unraisablehook__(unraisable)
        return
    number, returned = signal_of(unraisable.exc_value), threading.Event()
    main = threading.main_thread().ident

    def again() -> None:
        returned.wait()
        time.sleep(RESIGNAL_DELAY)
        if os.name == "posix":     # to the main thread, so that it wakes from a sleep or a wait
            signal.pthread_kill(main, number)
        else:
            signal.raise_signal(number)

    with contextlib.suppress(RuntimeError):    # no new thread while Python shuts down
        threading.Thread(target=again, daemon=True).start()
    returned.set()     # the last thing this hook does


def handle_stop_signals() -> None:
    """From now on Ctrl-C raises ``KeyboardInterrupt``, SIGTERM and SIGHUP raise ``Stopped``,
    and an interrupt Python would drop is sent again (``_keep_dropped_interrupts``)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for number in ENDING_SIGNALS:
        signal.signal(number, _raise_stopped)
    sys.unraisablehook = _keep_dropped_interrupts


def run(main: Callable[[], int | None]) -> None:
    """``run_main(main)``; called by a script run as ``__main__``, the process then ends at once
    after its exit handlers, without Python's teardown (``_end_now``)."""
    try:
        run_main(main)
    except SystemExit as end:
        alone = all(thread.daemon for thread in threading.enumerate()
                    if thread is not threading.main_thread())
        if alone and sys._getframe(1).f_globals.get("__name__") == "__main__":
            _end_now(end.code)
        raise


def run_main(main: Callable[[], int | None]) -> None:
    """Run a script's ``main`` and exit with its status; bad input (``ValueError``, including a
    bad table file or agent spec) becomes one line and status 2, a piece of the exercise not
    written yet one line that names it and status 1, Ctrl-C "Interrupted." and 130, SIGTERM
    "Stopped by SIGTERM." and 143 (``stop_status``), an output that cannot be written (a full
    disk, ``> /dev/full``) one line and status 1."""
    handle_stop_signals()      # from here on, Ctrl-C and SIGTERM are ours
    try:
        status = main()
        sys.stdout.flush()    # now, so that a write error is reported here and not at exit
        # Python ignores a KeyboardInterrupt while it shuts down (torch's take a moment): a
        # signal from here on ends the process at once, with its line; all is saved by now.
        _stop_at_once()
    except ValueError as error:
        fail(f"error: {error}")
    except NotImplementedError as error:
        stub = EXERCISE_STUB.match(str(error))
        if stub is None:
            raise
        # a piece of the exercise not written yet: what to do, not a traceback
        print(f"Not written yet (its comments say what it does; a hint: python check.py "
              f"--hint {stub[1]}): {one_line(error)}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt as interrupt:
        number = signal_of(interrupt)
        print(f"\n{stop_note(number)}", file=sys.stderr)
        sys.exit(stop_status(number))
    except BrokenPipeError:  # the reader went away (e.g. `| head`): nothing left to say
        sys.stderr.close()
        sys.exit(0)
    except OSError as error:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # drop what cannot go
        print(f"error: cannot write the output: {error.strerror or error}", file=sys.stderr)
        sys.exit(1)
    sys.exit(status or 0)


def quiet_interrupt_while_starting() -> None:
    """A Ctrl-C or SIGTERM before ``run`` starts (while a script still imports its modules) ends
    it with its line and status, not a traceback. Called when this package is imported by a
    script of the repository run from the command line; ``run`` puts the handlers it uses."""
    main = sys.modules.get("__main__")
    script = os.path.abspath(getattr(main, "__file__", "") or "")
    if os.path.dirname(script) == REPOSITORY and signal.getsignal(signal.SIGINT) is \
            signal.default_int_handler:
        _stop_at_once()


def _end_now(code: int | str | None) -> None:
    """End the process with ``sys.exit(code)``'s status after running its exit handlers, but
    without Python's teardown that would follow (torch's takes half a second): the teardown
    restores the default handlers first, so a Ctrl-C or SIGTERM in it would kill the process by
    the signal, with no line and no status of ours. Everything is saved by now; a signal from
    here on ends the process at once with its line (``_stop_at_once``)."""
    _stop_at_once()
    if isinstance(code, str):     # as Python does with sys.exit("message")
        print(code, file=sys.stderr)
    status = code if isinstance(code, int) else int(code is not None)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


def _stop_at_once() -> None:
    for number in (signal.SIGINT, *ENDING_SIGNALS):
        signal.signal(number, _ended_at_once)


def _ended_at_once(signum, frame) -> None:
    print(f"\n{stop_note(signum)}", file=sys.stderr)
    os._exit(stop_status(signum))


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
