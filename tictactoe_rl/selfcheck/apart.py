"""The student's code kept out of the judging process.

A piece judged apart runs the student's code in a forked child. The child closes the piece's
result channel first, then imports and calls the student's code and sends back plain data only
(JSON: numbers, lists, strings) over a pipe of its own. The judging process never imports the
student's modules: it reads the data, checks its shape and judges it itself, so nothing the
student's code does in memory (patching the check, its ``json``, ``atexit``, walking frames or
``gc``) reaches the verdict. What the child says about itself can only make a piece fail: a
"passed" rests on the data the parent judged.

The judging process makes itself undumpable first (Linux, ``tictactoe_rl.selfcheck.seal``), so that a process
of the same user -- the child -- cannot attach to it, read its memory or open its descriptors
under ``/proc``; the child ends when the judging process does.
Without ``os.fork`` (Windows) the work runs in this process, as it did before.
"""

from __future__ import annotations

import json
import os
import signal
from typing import Callable

from tictactoe_rl.selfcheck import seal
from tictactoe_rl.selfcheck.common import Failure, NotOwnWork, one_line
from tictactoe_rl.selfcheck.verdicts import FAILED, NOT_ATTEMPTED, NOT_WRITTEN, PASSED

# More than any piece's data (the training's: a few bytes for each game main played, a few
# million games in its time); a child that sends more is broken.
MOST_BYTES = 64 * 1024 * 1024
# The verdicts a child may give on its own: each makes the piece fail (or not count).
CHILD_VERDICTS = (FAILED, NOT_WRITTEN, NOT_ATTEMPTED)
LONGEST_MESSAGE = 2000
_exit = os._exit     # taken now: the student's code may replace os._exit in the child


def in_child(work: Callable[[], dict], closed: tuple[int, ...]) -> dict:
    """``work()`` run in a forked child after closing the descriptors ``closed``; the dict it
    returned, as the JSON it sent. ``Failure`` when the child sends nothing or no JSON object."""
    if not hasattr(os, "fork"):
        return json.loads(json.dumps(work()))
    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:                                  # the child: the student's code runs here
        try:
            seal.end_with_parent()
            os.close(reading)
            for descriptor in closed:
                os.close(descriptor)
            found = json.dumps(work()).encode("utf-8")
            with os.fdopen(writing, "wb") as stream:
                stream.write(found)
        finally:
            _exit(0)
    os.close(writing)
    try:
        data = read_all(reading)
    finally:
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    try:
        answer = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        answer = None
    if data and code == 0 and not isinstance(answer, dict):
        # What the check's child sends is one JSON object, or nothing if it broke before: more
        # (or other) bytes came from the student's code, which found the channel and wrote on it.
        raise NotOwnWork("your code wrote into the check's own channel while its piece ran (a "
                         "thread or a hook that writes on every open descriptor): the verdict "
                         "comes from the check alone")
    if not isinstance(answer, dict):
        how = f"exit status {code}" if code >= 0 else f"killed by {signal_name(-code)}"
        raise Failure(f"your code ended the check's run of it before it sent what it found "
                      f"({how}: an exit(), os._exit(), a crash, or output that is not the "
                      "check's)")
    return answer


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def read_all(descriptor: int) -> bytes:
    chunks, size = [], 0
    with os.fdopen(descriptor, "rb") as stream:
        for chunk in iter(lambda: stream.read(65536), b""):
            size += len(chunk)
            if size > MOST_BYTES:
                raise Failure("your code sent the check far more data than a piece makes")
            chunks.append(chunk)
    return b"".join(chunks)


def judged(answer: dict, judge: Callable[[object], str | dict]) -> dict:
    """The verdict on a child's ``answer``: its own verdict if that is a failure, else the
    parent's ``judge`` of its data (a ``Failure`` fails the piece): the message after "passed",
    or the fields of the result (the training's figures)."""
    verdict, message = answer.get("verdict"), answer.get("message", "")
    if verdict in CHILD_VERDICTS and isinstance(message, str):
        own = {"not_own": True} if verdict == FAILED and answer.get("not_own") is True else {}
        return {"verdict": verdict, "message": one_line(message, LONGEST_MESSAGE), **own}
    if verdict != PASSED or "data" not in answer:
        raise Failure("the check's run of your code sent back something that is not a result")
    found = judge(answer["data"])
    return {"verdict": PASSED, **(found if isinstance(found, dict) else {"message": found})}
