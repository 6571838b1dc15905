"""``make data`` at full size: each of its command lines trained again, timed, and compared with
the table it makes in ``Data/``.

    python tools/benchmarks/data.py                                   # every line of make data
    python tools/benchmarks/data.py --skip Adversarial_Trainer.py     # what make bench runs

The lines are the Makefile's own (``make -n data``), each run as a process of its own with its
``--out`` moved into a scratch folder, so ``Data/`` is never touched; a run is deterministic for
its seed, so each table must hold the same entries as the shipped one. The test suite runs the
same lines small (tests/test_commands.py); ``tools/benchmarks/adversarial.py`` (make bench) trains
the 4x4 k=4 lines and measures them exactly.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)
from tictactoe_rl.geometry import BoardShape  # noqa: E402
from tictactoe_rl.players.specs import make_agent  # noqa: E402
from TicTacToe import TicTacToe  # noqa: E402
from tools.board_compare import train  # noqa: E402


def data_lines() -> list[list[str]]:
    """The command lines of ``make data`` as argument lists, the interpreter left out."""
    printed = subprocess.run(["make", "-n", "-s", "--no-print-directory", "data", "PY=python",
                              "-o", ".venv/.installed"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout
    return [shlex.split(line)[1:] for line in printed.splitlines() if line.startswith("python ")]


def moved_out(words: list[str], folder: str) -> tuple[list[str], Path]:
    """``words`` with the value of ``--out`` moved into ``folder``, and the shipped file it names."""
    at = words.index("--out") + 1
    shipped = ROOT / words[at]
    return [*words[:at], os.path.join(folder, shipped.name), *words[at + 1:]], shipped


def board_of(words: list[str]) -> TicTacToe:
    """The game a command line trains on (its --board and --k, else the course's 3x3)."""
    flag = {name: words[words.index(name) + 1] for name in ("--board", "--k") if name in words}
    return TicTacToe(board=BoardShape.parse(flag.get("--board", "3x3"), flag.get("--k")))


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="tools/benchmarks/data.py", description=__doc__.splitlines()[0])
    parser.add_argument("--skip", nargs="+", default=[], metavar="SCRIPT",
                        help="leave out the lines of these scripts")
    args = parser.parse_args(argv)
    print(f"make data on a {os.cpu_count()}-core machine (load average "
          f"{os.getloadavg()[0]:.1f} at the start):", flush=True)
    differ = 0
    with tempfile.TemporaryDirectory() as folder:
        for words in data_lines():
            if words[0] in args.skip:
                continue
            line, shipped = moved_out(words, folder)
            seconds, peak = train(line[0], line[1:])
            side = 1 if "--side" not in line or line[line.index("--side") + 1] == "X" else -1
            env = board_of(line)
            made = make_agent(line[line.index("--out") + 1], side, env)
            same = make_agent(str(shipped), side, env).Q == made.Q
            differ += not same
            print(f"{' '.join(words)}\n   {seconds:.0f} s of training, peak memory "
                  f"{peak / 2**20:,.0f} MB, {len(made.Q):,} entries: "
                  f"{'the same as' if same else 'NOT the same as'} {shipped.relative_to(ROOT)}",
                  flush=True)
    return 1 if differ else 0


if __name__ == "__main__":
    cli.run(main)
