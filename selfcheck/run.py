"""One piece of the self-check, in a process of its own: ``check.py`` runs this for every piece
(and for the training) and reads the result file it writes. A student's code that hangs, calls
``exit()`` or crashes the interpreter takes only this process with it.

    python -m selfcheck.run --piece N --result FILE
    python -m selfcheck.run --train X|O --table FILE --seconds S --result FILE
"""

from __future__ import annotations

import argparse
import dis
import inspect
import json
import os
import sys
import time

from selfcheck import guard, piece_episode, piece_epsilon, piece_main, piece_td, training
from selfcheck.common import ROOT, STUB_PREFIX, Failure, NotWritten, where_it_broke
from selfcheck.student import Student
from State import O, X

PASSED, FAILED, NOT_WRITTEN, NOT_ATTEMPTED = "passed", "failed", "not written", "not attempted"
# The students' version's manifest (tools/exercise/classroom.py writes it): its files as issued.
MANIFEST = ROOT / ".github" / "classroom" / "issued.json"
CHECKS = {
    1: piece_epsilon.check,
    2: lambda student: piece_episode.check(student, X),
    3: lambda student: piece_main.check(student, X),
    4: lambda student: (piece_episode.check(student, O), piece_main.check(student, O))[1],
    5: piece_td.check,
}


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


def reads_attribute(function, name: str) -> bool:
    """Whether ``function``'s own code reads ``something.name`` (a global of that name does not
    count)."""
    return any(instruction.opname in ("LOAD_ATTR", "LOAD_METHOD") and instruction.argval == name
               for instruction in dis.get_instructions(inspect.unwrap(function)))


def is_stub(function) -> bool:
    return any(isinstance(const, str) and const.startswith(f"{STUB_PREFIX} 5")
               for const in function.__code__.co_consts)


def grade(number: int) -> dict:
    student = Student()
    try:
        if number in (4, 5) and not attempted(number, student):
            return {"verdict": NOT_ATTEMPTED, "message": ""}
        return {"verdict": PASSED, "message": CHECKS[number](student)}
    except NotWritten as stub:
        return {"verdict": NOT_WRITTEN, "message": str(stub)}
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
    return {"verdict": FAILED, "message": f"your code {reached} while the check runs: each piece "
            "must be your own code, and the table main saves the one its own updates made (not "
            "the self-check's code, nor a table that ships in Data/)"}


def could_not_run(error: Exception) -> str:
    return (f"the check could not run with your modules: {type(error).__name__}: {error}"
            f"{where_it_broke(error)} (did a name the course's code needs change?)")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m selfcheck.run")
    parser.add_argument("--piece", type=int, choices=sorted(CHECKS))
    parser.add_argument("--attempted", action="store_true",
                        help="with --piece 4 or 5: only say whether it was started")
    parser.add_argument("--train", choices=("X", "O"))
    parser.add_argument("--table")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--result", required=True)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    guard.install(issued_files())
    if args.piece is not None and args.attempted:
        result = {"verdict": PASSED if attempted(args.piece, Student()) else NOT_ATTEMPTED}
    elif args.piece is not None:
        result = grade(args.piece)
    else:
        try:
            result = {"verdict": PASSED, **training.train(Student(), X if args.train == "X" else O,
                                                          args.table, args.seconds)}
        except (Failure, NotWritten) as problem:
            result = {"verdict": FAILED, "message": str(problem)}
        except Exception as error:  # the check itself could not go on with this code
            result = {"verdict": FAILED, "message": could_not_run(error)}
    result = own_work(result)
    result["seconds"] = round(time.perf_counter() - started, 3)
    with open(args.result, "w", encoding="utf-8") as file:
        json.dump(result, file)
    sys.stdout.flush()
    os._exit(0)  # the student's threads or atexit hooks must not hold the result back


if __name__ == "__main__":
    main(sys.argv[1:])
