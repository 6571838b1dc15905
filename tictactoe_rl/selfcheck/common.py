"""What every piece's check shares: how a check says "wrong" and how it runs a student's code."""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import numbers
import textwrap
import traceback
from pathlib import Path
from typing import Callable

from tictactoe_rl.home import COURSE
from tictactoe_rl.selfcheck.pieces import STUB_PREFIX  # every stub's message starts with it

ROOT = Path(COURSE).resolve()    # the course's files: the student's folder
TOLERANCE = 1e-9


class Failure(Exception):
    """A piece does not meet its contract; the message is the hint shown to the student."""


class NotOwnWork(Failure):
    """A piece's result is not the student's own work: it reached into the self-check's code or
    a shipped table, or main saved a table its updates did not make. The class grader flags it."""


class NotWritten(Exception):
    """A piece still raises the stub's ``NotImplementedError``."""


def where_it_broke(error: BaseException) -> str:
    """`` (at file:line)`` of the last line of project code outside ``selfcheck`` the error came
    through, or ``""``."""
    place = ""
    for frame in traceback.extract_tb(error.__traceback__):
        path = Path(frame.filename).resolve()
        if ROOT in path.parents and Path(__file__).parent not in path.parents:
            place = f" (at {path.relative_to(ROOT)}:{frame.lineno})"
    return place


class Discard(io.TextIOBase):
    """A stream that swallows what is written: the chapter's ``print(epoch, end="\\r")`` prints
    200,000 times, and none of it should reach the terminal or fill memory."""

    def write(self, text: str) -> int:
        return len(text)


class Stop(BaseException):
    """Raised by the check's own stand-ins to end a student's function early (not an
    ``Exception``, so a student's ``except Exception`` does not swallow it)."""


def call(what: str, function: Callable, *args, **kwargs) -> object:
    """Run a student's function with its prints swallowed. A stub's ``NotImplementedError``
    becomes ``NotWritten``; any other error, and ``exit()``, a ``Failure`` naming what happened
    and where."""
    with contextlib.redirect_stdout(Discard()), contextlib.redirect_stderr(Discard()):
        try:
            return function(*args, **kwargs)
        except (Failure, NotWritten, Stop):
            raise
        except NotImplementedError as error:
            if str(error).startswith(STUB_PREFIX):
                raise NotWritten(str(error)) from None
            raise Failure(f"{what} raised NotImplementedError: {error}{where_it_broke(error)}") \
                from None
        except SystemExit as error:
            raise Failure(f"{what} called exit() or sys.exit({error.code!r})"
                          f"{where_it_broke(error)}: leave ending the program to the script "
                          "that runs it") from None
        except Exception as error:  # a student's bug of any kind is reported, not a traceback
            raise Failure(f"{what} raised {type(error).__name__}: {error}"
                          f"{where_it_broke(error)}{known_cause(error)}") from None


def known_cause(error: Exception) -> str:
    """What the usual cause of ``error`` is in this exercise, as the end of a hint, or ``""``."""
    text = str(error)
    if isinstance(error, ValueError) and "unpack" in text and "got 1" in text:
        return (" -- an episode ends with the one-element tuple (final_state,): take it off with "
                "episode.pop() before walking the steps")
    if isinstance(error, KeyError) and isinstance(error.args[0], tuple):
        return (" -- a pair the table has never seen has no entry yet: read it with "
                "player.Q.get((state, action), 0), since a missing pair counts 0")
    return ""


def close(a: object, b: float, tolerance: float = TOLERANCE) -> bool:
    """``a`` is a real number (not a bool) within ``tolerance`` of ``b``."""
    return isinstance(a, (int, float)) and not isinstance(a, bool) and abs(a - b) <= tolerance


def fmt(value: object) -> str:
    """A value as a hint shows it: floats to six significant digits."""
    return f"{value:.6g}" if isinstance(value, float) else repr(value)


def one_line(text: object, limit: int) -> str:
    """Text that came from the student's process as one line of at most ``limit`` characters:
    line breaks as spaces, other characters that could move the cursor (escapes) as ``\\uXXXX``,
    so that it cannot print a line of its own ("piece 3 ... passed")."""
    line = " ".join("".join(char if char.isprintable() or char.isspace() else
                            f"\\u{ord(char):04x}" for char in str(text)).split())
    return line if len(line) <= limit else line[:limit - 3] + "..."


def as_plain(value: object) -> object:
    """A value the student's code passed (an epoch, say) as JSON: a whole number as an int,
    a float, bool, None or str as it is, anything else as its repr."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return value if value is None or isinstance(value, (bool, float, str)) else repr(value)


def plural(count: int, word: str) -> str:
    """``"1 step"``, ``"2 steps"``."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def duration(seconds: float) -> str:
    """A length of time as a student reads it: "40 s", "25 min", "3.1 h"."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def own_constant(function: Callable, name: str) -> object:
    """The value that ``function`` assigns to its local ``name`` as a literal (the chapter's
    ``epochs = 200000`` inside ``main``), or None."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == name for target in node.targets):
            try:
                return ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return None
    return None
