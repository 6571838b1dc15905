"""One piece of the self-check, in a process of its own: ``check.py`` runs this for every piece
(and for the training) and reads the result it writes on the descriptor ``--result-fd``, a pipe
it inherited (no file a student's code could write). A student's code that hangs, calls
``exit()`` or crashes the interpreter takes only this process with it.

Every piece, the ``--attempted`` probe and the training are judged apart (``tictactoe_rl.selfcheck.apart``):
the student's code runs in a forked child that sends back plain data (and saves its table into a
folder this process reads it from), and this process judges it without ever importing the
student's modules.

    python -m tictactoe_rl.selfcheck.run --piece N --result-fd FD
    python -m tictactoe_rl.selfcheck.run --train X|O --table FILE --seconds S [--stream HEX] --result-fd FD
"""

from __future__ import annotations

from tictactoe_rl.selfcheck import seal

if __name__ == "__main__":     # first of all, before the student's code could be near it
    seal.piece_process()

import argparse  # noqa: E402
import dis  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from typing import Callable  # noqa: E402

from tictactoe_rl.selfcheck import (  # noqa: E402
    apart, guard, piece_episode, piece_epsilon, piece_main, piece_td, training)
# Every module the judging needs, loaded before any of the student's code runs: code that
# rewrites the check's files on disk (nothing stops it under GitHub Classroom) changes nothing.
guard.load_answers()
from tictactoe_rl.selfcheck.common import (  # noqa: E402
    ROOT, STUB_PREFIX, Failure, NotOwnWork, NotWritten, where_it_broke)
from tictactoe_rl.selfcheck.student import Student  # noqa: E402
from tictactoe_rl.selfcheck.pieces import PIECES  # noqa: E402
from tictactoe_rl.selfcheck.verdicts import FAILED, NOT_ATTEMPTED, NOT_WRITTEN, PASSED  # noqa: E402
from State import O, X  # noqa: E402

# The students' version's manifest (tools/exercise/classroom.py writes it): its files as issued.
MANIFEST = ROOT / ".github" / "classroom" / "issued.json"
# The pieces judged apart: what the student's process gathers (given a folder to save into),
# and how this process judges it (with the same folder).
APART = {
    1: (lambda student, folder: piece_epsilon.gather(student),
        lambda asked, folder: piece_epsilon.judge(asked)),
    2: (lambda student, folder: piece_episode.gather(student, X),
        lambda games, folder: piece_episode.judge(games, X)),
    3: (lambda student, folder: piece_main.gather(student, X, folder),
        lambda facts, folder: piece_main.judge(facts, X, folder)),
    4: (lambda student, folder: [piece_episode.gather(student, O),
                                 piece_main.gather(student, O, folder)],
        lambda both, folder: judge_for_o(both, folder)),
    5: (lambda student, folder: piece_td.gather(student),
        lambda answers, folder: piece_td.judge(answers)),
}
BONUS = (4, 5)    # not attempted until the student starts them (``attempted``)


def judge_for_o(both: object, folder: str) -> str:
    """Piece 4: the episodes, then main, for O."""
    if not (isinstance(both, list) and len(both) == 2):
        raise Failure("the run of your code sent back something that is not what it did")
    piece_episode.judge(both[0], O)
    return piece_main.judge(both[1], O, folder)


def students_code() -> Student:
    """The student's modules, for a child that runs them: first the answer key, loaded before any
    of the student's code ran, is dropped from the modules it could find it in."""
    guard.forget_answers()
    return Student()


def attempted(number: int, student: Student) -> bool:
    """Whether the student has started a bonus piece. Piece 4 asks the same functions to work
    for O, so it counts as started once they look at the learner's side (``.player``); piece 5
    once one of its functions is no longer the stub."""
    if number == 4:
        trainer = student.trainer()
        return any(reads_attribute(function, "player")
                   for function in (trainer.main, trainer.Generate_episode))
    functions = [student.module("Episode").learning_steps, student.module("SARSA_Trainer").update,
                 student.module("Q_Trainer").update]
    functions += [getattr(student.module("nim.nim").NimAI, name) for name in
                  ("get_q_value", "update_q_value", "best_future_reward", "choose_action")]
    return not all(is_stub(function) for function in functions)


def reads_attribute(function: Callable, name: str) -> bool:
    """Whether ``function``'s own code reads ``something.name`` (a global of that name does not
    count)."""
    return any(instruction.opname in ("LOAD_ATTR", "LOAD_METHOD") and instruction.argval == name
               for instruction in dis.get_instructions(inspect.unwrap(function)))


def is_stub(function: Callable) -> bool:
    return any(isinstance(const, str) and const.startswith(f"{STUB_PREFIX} 5")
               for const in function.__code__.co_consts)


def grade(number: int, result_fd: int) -> dict:
    """The verdict on piece ``number``; ``result_fd`` is closed where the student's code runs."""
    gather, judge = APART[number]
    with tempfile.TemporaryDirectory() as folder:
        guard.allow(folder)

        def in_the_child() -> dict:
            student = students_code()
            if number in BONUS and not attempted(number, student):
                return {"verdict": NOT_ATTEMPTED, "message": PIECES[number - 1].not_started}
            return {"verdict": PASSED, "data": gather(student, folder)}

        return apart_verdict(in_the_child, result_fd, lambda data: judge(data, folder))


def probe(number: int, result_fd: int) -> dict:
    """Whether the student has started the bonus piece ``number`` ("passed" if so), asked in a
    child: what it says can only be a yes, a no, or a failure (its code does not load)."""
    answer = verdict_of(lambda: apart.in_child(lambda: own_work(verdict_of(lambda: {
        "verdict": PASSED, "data": attempted(number, students_code())})), closed=(result_fd,)))
    if answer.get("verdict") == FAILED:     # e.g. the student's module does not even load
        return verdict_of(lambda: apart.judged(answer, lambda data: ""))
    started = answer.get("verdict") == PASSED and answer.get("data") is True
    return {"verdict": PASSED if started else NOT_ATTEMPTED}


def train(side: str, table: str, seconds: float, result_fd: int, stream: str | None) -> dict:
    """Training the student's agent for ``side`` with its main, measured here; ``stream``: the
    seed of its opponent's random stream, when the caller chose it."""
    learner = X if side == "X" else O
    # The opponent's stream: new on every run (or the caller's), played again here.
    seed = f"{stream}:{side}" if stream else os.urandom(8).hex()
    with tempfile.TemporaryDirectory() as folder:
        guard.allow(folder)
        return apart_verdict(
            lambda: {"verdict": PASSED, "data": training.gather(students_code(), learner, folder,
                                                                seconds, seed)},
            result_fd, lambda facts: training.judge(facts, learner, folder, table, seed))


def apart_verdict(work: Callable[[], dict], result_fd: int,
                  judge: Callable[[object], str | dict]) -> dict:
    """``work()`` in a child that closes ``result_fd``; its data judged here by ``judge``."""
    return verdict_of(lambda: apart.judged(apart.in_child(
        lambda: own_work(verdict_of(work)), closed=(result_fd,)), judge))


def verdict_of(work: Callable[[], dict]) -> dict:
    """``work()``, or the verdict that what it raised gives."""
    try:
        return work()
    except NotWritten as stub:
        return {"verdict": NOT_WRITTEN, "message": str(stub)}
    except NotOwnWork as failure:       # the grader flags it: "not_own"
        return {"verdict": FAILED, "message": str(failure), "not_own": True}
    except Failure as failure:
        return {"verdict": FAILED, "message": str(failure)}
    except Exception as error:  # the check itself could not go on with this code
        return {"verdict": FAILED, "message": could_not_run(error)}


def issued_files() -> set[str] | None:
    """The files of the students' version as issued, from its manifest; None without one (the
    teachers' repository) or with one that cannot be read."""
    try:
        manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
        return {*manifest["student_files"], *manifest["check_files"], *manifest["workflow"]}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def own_work(result: dict) -> dict:
    """``result``, unless the student's code reached into the self-check's code or a shipped
    table while it ran: then a failure that says so."""
    reached = guard.reached()
    if reached is None:
        return result
    return {"verdict": FAILED, "not_own": True,
            "message": f"your code {reached} while the check runs: each piece "
            "must be your own code, and the table main saves the one its own updates made (not "
            "the self-check's code, nor a table that ships in Data/)"}


def could_not_run(error: Exception) -> str:
    return (f"the check could not run with your modules: {type(error).__name__}: {error}"
            f"{where_it_broke(error)} (did a name the course's code needs change?)")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m tictactoe_rl.selfcheck.run")
    parser.add_argument("--piece", type=int, choices=sorted(APART))
    parser.add_argument("--attempted", action="store_true",
                        help="with --piece 4 or 5: only say whether it was started")
    parser.add_argument("--train", choices=("X", "O"))
    parser.add_argument("--table")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--stream", help="with --train: the seed of the opponent's stream")
    channel = parser.add_mutually_exclusive_group(required=True)
    channel.add_argument("--result-fd", type=int, help="the inherited pipe to write the result to")
    channel.add_argument("--result", help="the file to write it to (Windows: no inherited pipes)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    result = (open(args.result, "w", encoding="utf-8") if args.result else
              os.fdopen(args.result_fd, "w", encoding="utf-8"))
    guard.install(issued_files())
    if args.piece is not None and args.attempted:
        verdict = probe(args.piece, result.fileno())
    elif args.piece is not None:
        verdict = grade(args.piece, result.fileno())
    else:
        verdict = train(args.train, args.table, args.seconds, result.fileno(), args.stream)
    verdict["seconds"] = round(time.perf_counter() - started, 3)
    with result:
        json.dump(verdict, result)
    sys.stdout.flush()
    os._exit(0)  # the student's threads or atexit hooks must not hold the result back


if __name__ == "__main__":
    main(sys.argv[1:])
