"""The exercise's self-check: grades each piece you write, then trains your agent with your code.

    python check.py            # pieces 1-3 (required); the bonus pieces 4 and 5 are reported
    python check.py --all      # the bonus pieces count too
    python check.py --piece 2  # only this piece (may be given more than once; no training)
    python check.py --hint 3   # the next hint for piece 3

Each piece runs your code in a process of its own and holds it to the contract in its docstring,
judging what it does, not how it is written: the schedule at many episodes, games against a
seeded opponent step by step, your main on hand-made episodes. It prints one line per piece --
passed, or what is wrong with a hint -- and, once pieces 1-3 pass, trains your agent with your
own main and prints its exact results. Exit status 0 when the pieces that count pass, 1 when one
does not, 2 for bad arguments, 130 after Ctrl-C.
"""

import os
import sys

# Python put this file's folder -- the student's -- first on sys.path: the check's own modules
# are loaded from the standard library before it goes back there, and a student's file named
# like one of them (a json.py) stops the check (no "from __future__": it would be looked up there
# too).
ROOT_TEXT = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or os.curdir) != ROOT_TEXT]

import argparse  # noqa: E402  (loaded before the folder is on the path)
import ctypes  # noqa: E402,F401  (tictactoe_rl.selfcheck.seal's)
import json  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(ROOT_TEXT)
sys.path.append(ROOT_TEXT)
from tictactoe_rl.selfcheck import shadow  # noqa: E402  (standard library only)

if __name__ == "__main__" and shadow.shadowing_in(ROOT_TEXT):
    print(f"check.py: {shadow.message(shadow.shadowing_in(ROOT_TEXT))}", file=sys.stderr)
    sys.exit(2)
sys.path.remove(ROOT_TEXT)
sys.path.insert(0, ROOT_TEXT)

from tictactoe_rl import environment_check  # noqa: E402  (the project root first on the path)
environment_check.require("check.py")   # judge nothing with a Python that is not the project's
from tictactoe_rl import cli  # noqa: E402
from tictactoe_rl.selfcheck import seal, streams  # noqa: E402
from tictactoe_rl.selfcheck.verdicts import (  # noqa: E402
    FAILED, NOT_ATTEMPTED, NOT_WRITTEN, PASSED, SKIPPED, TIMED_OUT)
from tictactoe_rl.selfcheck.pieces import PIECES  # noqa: E402

# A piece takes a second or two; one still running after this is stuck in a loop. A stuck main
# is not run again for the later pieces, so a stuck loop costs about this much in all.
PIECE_SECONDS = 20
# The training runs your main as it is (the course's 200,000 episodes take seconds); it is
# stopped cleanly after TRAIN_SECONDS and measured as far as it got.
TRAIN_SECONDS = 60
PROBE_SECONDS = 5   # to look at the code of a piece without running it
# After the training: the judge plays every game of it again (never slower than main played
# them) to check the table against them, then measures the table.
GRACE_SECONDS = 15 + TRAIN_SECONDS
RESULT_BYTES = 1 << 20   # far more than a result; a process that sends more sent no result
STDERR_BYTES = 4096      # of each end of a piece's stderr (its last line explains a crash)
FORMAT = 1
# Which earlier pieces run the same functions: if one of them hung, these are not run again.
RUNS_MAIN, RUNS_EPISODES = {3}, {2}
TRAINED_BY = {"X": 3, "O": 4}       # the piece whose main trains each side


def run_child(arguments: list[str], seconds: float) -> dict:
    """``python -m tictactoe_rl.selfcheck.run ARGUMENTS`` with a time limit; the result it sent, or what
    became of it. The result comes over a pipe the child inherits (a file only where there are
    none, on Windows): nothing a student's code could write as a file is read as a verdict, and
    it counts only when the child ended by itself, with status 0, after sending it. A file
    that shadows a needed module, left by an earlier piece's code, would run in the child's
    judge: the piece fails instead, as not the student's own work."""
    planted = shadow.shadowing_in(ROOT_TEXT)
    if planted:
        return {"verdict": FAILED, "not_own": True,
                "message": f"written while the check ran: {shadow.message(planted)}"}
    with tempfile.TemporaryDirectory() as folder:
        if os.name == "nt":
            result_file, reading, writing = Path(folder, "result.json"), None, None
            channel, kept = ["--result", str(result_file)], ()
        else:
            reading, writing = os.pipe()
            channel, kept = ["--result-fd", str(writing)], (writing,)
        child = subprocess.Popen(piece_command(arguments + channel),
                                 cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, start_new_session=True, pass_fds=kept)
        tail = streams.Tail(child.stderr, STDERR_BYTES)
        if writing is not None:
            os.close(writing)
            sent = streams.Tail(os.fdopen(reading, "rb"), RESULT_BYTES, whole=True)
        try:
            code = child.wait(seconds)
        except subprocess.TimeoutExpired:
            return {"verdict": TIMED_OUT, "message": f"still running after {seconds:.0f} s: is "
                    "there a loop that never ends (a while that never stops, an episode loop "
                    "without end)?"}
        finally:                       # whatever it started goes too (after Ctrl-C as well)
            stop(child)
            seal.end_descendants()     # even what left its session: the next piece starts alone
        if writing is not None:
            sent.join(1)
        text = ((sent.whole() or b"").decode("utf-8", "replace") if writing is not None else
                result_file.read_text(encoding="utf-8") if result_file.is_file() else "")
        if code == 0 and text:
            return parsed(text, training="--train" in arguments)
        tail.join(1)
        last = tail.text().strip().splitlines()
        how = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
        return {"verdict": FAILED, "message": f"your code ended the check before it finished "
                f"({how}{': ' + last[-1] if last else ''}): an exit() or os._exit(), a "
                "killed process, or a crash of Python itself"}


def piece_command(arguments: list[str]) -> list[str]:
    """The command of a piece's process. ``-s``: no user site-packages, where the code of an
    earlier piece could have planted a ``.pth`` file that would run in every later piece's
    judge before the check's own code (``python -m`` still finds selfcheck in the cwd)."""
    return [sys.executable, "-s", "-m", "tictactoe_rl.selfcheck.run", *arguments]


# What a result holds (a piece's; the training's adds the rest): anything else is no result.
# "not_own": the piece's result is not the student's own work (the grader flags it)
RESULT_FIELDS = {"verdict": str, "message": str, "seconds": (int, float), "not_own": bool}
TRAINING_FIELDS = {"episodes": int, "stopped": bool, "opponent": str, "exact": dict,
                   "unbeatable": bool, "line": (list, type(None)),   # None: unbeatable
                   "sha256": str}    # of the table the judge wrote


def parsed(text: str, training: bool = False) -> dict:
    """The result a piece's process sent, or a failure if it is not one."""
    try:
        result = json.loads(text)
    except (ValueError, RecursionError):
        result = None
    fields = {**RESULT_FIELDS, **(TRAINING_FIELDS if training else {})}
    if isinstance(result, dict) and set(result) <= set(fields) and "verdict" in result \
            and all(isinstance(value, fields[key]) and not (fields[key] is int
                                                             and isinstance(value, bool))
                    for key, value in result.items()) \
            and (not training or result["verdict"] != PASSED or well_formed_training(result)):
        return result
    return {"verdict": FAILED, "message": "the check's process of this piece sent back "
            "something that is not a result"}


def well_formed_training(result: dict) -> bool:
    """Whether a passed training's result holds every figure ``measurement_line`` shows."""
    if not set(TRAINING_FIELDS) <= set(result):
        return False
    exact, line = result["exact"], result["line"]
    return (all(isinstance(name, str) and isinstance(figures, list) and len(figures) == 3
                and all(isinstance(f, (int, float)) and not isinstance(f, bool) for f in figures)
                for name, figures in exact.items())
            and (line is None) == result["unbeatable"]
            and all(isinstance(move, list) and len(move) == 2
                    and all(isinstance(n, int) for n in move) for move in line or ()))


def stop(child: subprocess.Popen) -> None:
    """End ``child`` and everything it started (its process group)."""
    if not streams.kill_group(child.pid) and child.poll() is None:
        child.kill()
    child.wait()


def grade(numbers: list[int]) -> dict[int, dict]:
    """Run the pieces ``numbers`` in order, printing a line for each."""
    results: dict[int, dict] = {}
    for number in numbers:
        hung = [n for n in results if results[n]["verdict"] == TIMED_OUT
                and n in RUNS_MAIN | RUNS_EPISODES]
        if number == 4 and hung and run_child(["--piece", "4", "--attempted"],
                                              PROBE_SECONDS)["verdict"] == PASSED:
            result = {"verdict": SKIPPED, "message": f"not run again: piece {hung[0]} timed out "
                      "with the same functions"}
        elif number == 4 and hung:
            result = {"verdict": NOT_ATTEMPTED, "message": PIECES[3].not_started}
        else:
            result = run_child(["--piece", str(number)], PIECE_SECONDS)
        results[number] = result
        print(piece_line(number, result), flush=True)
    return results


def piece_line(number: int, result: dict) -> str:
    piece = PIECES[number - 1]
    label, verdict, message = f"piece {number} -- {piece.title}", result["verdict"], \
        result.get("message", "")
    if verdict == PASSED:
        return f"{label}: passed" + (f" ({message})" if message else "")
    if verdict == NOT_WRITTEN:
        function = message.split(" write ")[-1].split(",")[0]
        return f"{label}: not written yet ({function} still raises NotImplementedError)"
    if verdict == NOT_ATTEMPTED:
        return f"{label}: not attempted" + (f" ({message})" if message else "")
    return f"{label}: {verdict.upper()} -- {message}"


def train_and_measure(side: str, folder: Path, stream: str | None = None) -> dict:
    """Train the student's agent for ``side`` with their main and measure it exactly (both in a
    child process: this one never runs the student's code); ``stream``: the seed of the
    opponent's random stream, when the caller chose it (the class grader, to play the games
    again itself)."""
    table = folder / f"{side}.pth"
    given = ["--stream", stream] if stream else []
    result = run_child(["--train", side, "--table", str(table), "--seconds", str(TRAIN_SECONDS),
                        *given], TRAIN_SECONDS + GRACE_SECONDS)
    if result["verdict"] != PASSED:
        print(f"Training your {side} with your main: {result['verdict']} -- {result['message']}")
        return result
    result["table"] = str(table)
    print(measurement_line(side, result), flush=True)
    return result


def measurement_line(side: str, result: dict) -> str:
    how = (f"after {result['episodes']:,} episodes of your main against {result['opponent']}"
           + (f" (stopped after {TRAIN_SECONDS} s)" if result["stopped"] else ""))
    numbers = "; ".join(f"vs {name} wins {w:.2%}, losses {l:.2%}, draws {d:.2%}"
                        for name, (w, l, d) in result["exact"].items())
    beaten = ("unbeatable" if result["unbeatable"] else
              "can be beaten, e.g. by " + " ".join(f"{r},{c}" for r, c in result["line"]))
    return f"Your {side} {how}, exact: {numbers}; {beaten}"


def disown(results: dict[int, dict], training: dict[str, dict]) -> None:
    """A training that was not the student's own work (a shipped table loaded by a thread, the
    check's code reached for) fails the piece whose main trained that side, as not own work: the
    piece passed on the check's episodes, but main does something else when it really trains."""
    for side, run in training.items():
        piece = TRAINED_BY[side]
        if run.get("not_own") and results.get(piece, {}).get("verdict") == PASSED:
            results[piece] = {**results[piece], "verdict": FAILED, "not_own": True,
                              "message": f"the training of your {side} with your main: "
                                         f"{run['message']}"}
            print(piece_line(piece, results[piece]), flush=True)


def report(path: str, results: dict[int, dict], training: dict[str, dict], seconds: float) -> None:
    """The machine-readable result (``--json``), for the class grader."""
    pieces = [{"number": n, "title": PIECES[n - 1].title, "required": PIECES[n - 1].required,
               "verdict": r["verdict"], "message": r.get("message", ""),
               "seconds": r.get("seconds"), "not_own": r.get("not_own", False)}
              for n, r in results.items()]
    tables = {side: training.get(side, {}).get("table") for side in ("X", "O")}
    Path(path).write_text(json.dumps({"format": FORMAT, "pieces": pieces, "tables": tables,
                                      "training": training, "seconds": round(seconds, 2)},
                                     indent=1), encoding="utf-8")


def stream_seed(text: str) -> str:
    """``--stream``: 1 to 64 hexadecimal digits."""
    if not (0 < len(text) <= 64 and all(c in "0123456789abcdef" for c in text)):
        raise argparse.ArgumentTypeError(f"{cli.shown(text)}: 1 to 64 digits 0-9 and a-f")
    return text


def check_flags(parser: cli.Parser, args) -> None:
    """Refuse flags that the run would leave unused (``--hint`` only shows a hint; ``--piece``
    trains nothing, so keeps no tables) and a ``--json`` file that cannot be written, before any
    piece runs; say that ``--all`` adds nothing to ``--piece``."""
    if args.hint is not None:
        unused = [flag for flag, value in (("--piece", args.piece), ("--all", args.all),
                                           ("--json", args.json), ("--tables", args.tables))
                  if value]
        if unused:
            parser.error(f"--hint shows the next hint for a piece and stops; it does not go "
                         f"with {', '.join(unused)}")
    if args.piece and args.tables:
        parser.error("--piece checks pieces without training them, so there are no tables to "
                     "keep; leave out --tables")
    if args.piece and args.all:
        print("note: --piece counts every piece it names; --all adds nothing to it")
    if args.tables is not None and os.path.exists(args.tables) and not os.path.isdir(args.tables):
        parser.error(f"--tables {cli.shown(args.tables)}: is a file, not a folder")
    if args.json is not None:
        folder = os.path.dirname(os.path.abspath(args.json))
        if os.path.isdir(args.json):
            parser.error(f"--json {cli.shown(args.json)}: is a folder; give a file name")
        if not os.path.isdir(folder):
            parser.error(f"--json {cli.shown(args.json)}: the folder {cli.shown(folder)} does "
                         "not exist")


def main(argv: list[str] | None = None) -> int:
    """The command line: grade the pieces, train, and return the exit status."""
    parser = cli.Parser(prog="check.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true",
                        help="the bonus pieces (4: the agent for O; 5: SARSA, Q-learning, Nim) "
                             "count for the exit status too")
    parser.add_argument("--piece", type=int, action="append", choices=range(1, len(PIECES) + 1),
                        metavar="N", help="check only piece N (may be repeated); no training")
    parser.add_argument("--hint", type=int, choices=range(1, len(PIECES) + 1), metavar="N",
                        help="show the next hint for piece N, then stop")
    parser.add_argument("--json", type=cli.path, metavar="FILE",
                        help="also write the results to FILE as JSON")
    parser.add_argument("--tables", type=cli.path, metavar="DIR",
                        help="keep the trained tables in DIR (default: thrown away), each with "
                             "the learner's moves of the games it was trained on (SIDE.games)")
    parser.add_argument("--stream", type=stream_seed, metavar="HEX",
                        help="the seed of the training opponent's random stream (default: a new "
                             "one each run; the class grader gives its own)")
    args = parser.parse_args(argv)
    check_flags(parser, args)
    # First: the pieces' code runs as this account, so no process of it may open this one's
    # descriptors (the pieces' results come in through them), and none outlives its piece.
    seal.undumpable()
    seal.become_subreaper()
    cli.handle_stop_signals()    # SIGTERM and SIGHUP end the running piece, as Ctrl-C does
    if args.hint is not None:
        from tictactoe_rl.selfcheck.hints import next_hint
        print(next_hint(args.hint, ROOT))
        return 0
    started = time.perf_counter()
    numbers = sorted(set(args.piece)) if args.piece else [piece.number for piece in PIECES]
    results = grade(numbers)
    required = [piece.number for piece in PIECES if piece.required]
    training: dict[str, dict] = {}
    if not args.piece:
        if all(results[n]["verdict"] == PASSED for n in required):
            with tempfile.TemporaryDirectory() as scratch:
                folder = Path(args.tables) if args.tables else Path(scratch)
                folder.mkdir(parents=True, exist_ok=True)
                for side, piece in (("X", None), ("O", 4)):
                    if piece is None or results[piece]["verdict"] == PASSED:
                        training[side] = train_and_measure(side, folder, args.stream)
                disown(results, training)
        else:
            print("Pieces 1-3 must pass before your agent is trained and measured.")
    counted = [n for n in numbers if PIECES[n - 1].required or args.all or args.piece]
    failing = [str(n) for n in counted if results[n]["verdict"] != PASSED]
    failing += [f"the training of {side}" for side, r in training.items()
                if r["verdict"] != PASSED]
    print(f"Pieces that count: {', '.join(map(str, counted))} -- " +
          (f"not passing yet: {', '.join(failing)}." if failing else "all pass."))
    if args.json:
        report(args.json, results, training, time.perf_counter() - started)
    return 1 if failing else 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
