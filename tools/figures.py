"""The figures that README.md and docs/ quote, each made by the command that produces it (for
``tools/docs_figures.py``, which finds them in the documents and writes them in). A maker gets a
scratch copy of the repository and returns the figure's Markdown."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.benchmarks.machine import machine  # noqa: E402  (the project root must be on the path)
from tools.benchmarks.timed import TIMED, quoted_lines, read_slowest  # noqa: E402

COSTS = ("instant", "seconds", "minutes")   # on an idle 2-core machine, per figure
BENCH_RECORD = ROOT / "Data" / "bench.txt"
DQN_BENCH_RECORD = ROOT / "Data" / "bench-dqn.txt"
TIMEOUT = 1800


class FigureError(RuntimeError):
    """A command failed, or a document has a figure this script does not know."""


class MissingInput(FigureError):
    """What a figure quotes is not here (no make bench run, no course fixtures): it stays."""


@dataclass(frozen=True)
class Figure:
    name: str
    cost: str                              # one of COSTS
    make: Callable[[Path, bool], str]      # (scratch repository, writing?) -> the figure's text
    # A quote of a record (make bench's, timed.py's) is written whenever the record changed; a
    # figure made afresh keeps its old text when only its seconds, rates and dates differ.
    quoted: bool = False
    varies: str = ""   # what differs between runs by design (a per-run seed's), not compared


def run(repo: Path, *args: str) -> str:
    """``python ARGS`` in ``repo`` as a user runs it; its standard output."""
    done = subprocess.run([sys.executable, *args], cwd=repo, capture_output=True, text=True,
                          timeout=TIMEOUT)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise FigureError(f"python {' '.join(args)} exited {done.returncode}: {last}")
    return done.stdout


def code(text: str) -> str:
    """``text`` as an indented Markdown code block, with the blank lines around it."""
    return "\n" + textwrap.indent(text.strip("\n"), "    ") + "\n\n"


def lines(text: str) -> str:
    """``text`` without a progress bar's carriage-return updates and trailing blanks."""
    return "\n".join(line.split("\r")[-1].rstrip() for line in text.strip("\n").splitlines())


def train(repo: Path, writing: bool) -> str:
    return code(lines(run(repo, "MC_Trainer.py", "--seed", "1")))


def worst_case(repo: Path, writing: bool) -> str:
    run(repo, "MC_Trainer.py", "--side", "O", "--epochs", "2000", "--seed", "3", "--out",
        "Data/weak_O.pth")
    return code(lines(run(repo, "Tester.py", "--worst-case", "Data/weak_O.pth")).splitlines()[0])


def analyse(repo: Path, writing: bool) -> str:
    printed = lines(run(repo, "Tester.py", "--analyse", "playout:scoring=score", "--moves", ""))
    return code(printed.split("\n\n", 1)[1])          # the board, without its heading


def tester_games(*args: str) -> Callable[[Path, bool], str]:
    """A figure of what ``python Tester.py ARGS`` prints."""
    return lambda repo, writing: code(lines(run(repo, "Tester.py", *args)))


NIM_SEEDS = range(10)
NIM_SAID = re.compile(r"wins in (\d+) of (\d+) winning positions \(([\d.]+) %\).*?"
                      r"it wins from (\d+) positions and loses from (\d+)", re.S)


def nim(repo: Path, writing: bool) -> str:
    """The judge's verdict on the course's training and the project's, seed by seed."""
    rows = ["| seed | course's `train`: greedy move wins in | AI to move vs a perfect player: "
            "wins / loses | `train_better`: greedy move wins in | wins / loses |",
            "| --- | --- | --- | --- | --- |"]
    for seed in NIM_SEEDS:
        cells = []
        for better in ([], ["--better"]):
            said = NIM_SAID.search(run(repo, "nim/play.py", *better, "--seed", str(seed),
                                       "--quiet", "--judge"))
            if said is None:
                raise FigureError(f"nim/play.py {' '.join(better)} --seed {seed}: no verdict")
            won, of, share, wins, losses = said.groups()
            cells += [f"{won} of {of} ({share} %)", f"{wins} / {losses}"]
        rows.append(f"| {seed} | " + " | ".join(cells) + " |")
    return "\n" + "\n".join(rows) + "\n\n"


def torch_kernels() -> str:
    """``torch 2.13.0+cpu, AVX512 kernels``: the torch and the CPU kernels it picks here, which
    decide a network's last bits (docs/SPEED.md, the DQN on every processor)."""
    done = subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__, "
                           "torch.backends.cpu.get_cpu_capability())"], capture_output=True,
                          text=True, timeout=TIMEOUT, check=True)
    version, kernels = done.stdout.split()
    return f"torch {version}, {kernels} kernels"


def timed_run(repo: Path, *args: str) -> tuple[str, str]:
    """What ``python ARGS`` printed (through ``lines``), and how long it took on what processor
    under what load: ``12 s in all, on a 2-core machine, processor AMD EPYC, load average 0.4
    before and 1.9 after``."""
    before = os.getloadavg()[0]
    started = time.perf_counter()
    printed = lines(run(repo, *args))
    seconds = time.perf_counter() - started
    return printed, (f"{seconds:.0f} s in all, on {machine()}, load average "
                     f"{before:.1f} before and {os.getloadavg()[0]:.1f} after")


def dqn(repo: Path, writing: bool) -> str:
    printed, how = timed_run(repo, "DQN_Trainer.py", "--seed", "1")
    shown = [line for line in printed.splitlines() if line.startswith(
        ("Trained", "Saved", "kept", "exact vs", "unbeatable", "CAN BE BEATEN", "perfect moves"))]
    return (f"\nA default run (`make dqn`, `--seed 1`) printed ({how}, {torch_kernels()}, "
            f"{time.strftime('%Y-%m-%d')}):\n" + code("\n".join(shown)))


def optimum_4x4(repo: Path, writing: bool) -> str:
    """The best replies on 4x4 k=4, with the time the walks took."""
    printed, how = timed_run(repo, "Tester.py", "--optimum", "--board", "4x4", "--k", "4")
    return (f"\n`python Tester.py --optimum --board 4x4 --k 4` printed ({how}, "
            f"{time.strftime('%Y-%m-%d')}):\n" + code(printed))


def adversarial_4x4(repo: Path, writing: bool) -> str:
    """The learner proven unbeatable on 4x4 k=4, trained again for each side, and measured."""
    printed, how = timed_run(repo, "tools/benchmarks/adversarial.py")
    return (f"\n`python tools/benchmarks/adversarial.py` printed ({how}, "
            f"{time.strftime('%Y-%m-%d')}):\n" + code(printed))


def processor() -> str:
    """The processor's model name, as ``lscpu`` gives it (``AMD EPYC``)."""
    done = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=TIMEOUT, check=True)
    return re.search(r"^Model name:\s*(.+)$", done.stdout, re.M).group(1).strip()


def exploiter(repo: Path, writing: bool) -> str:
    """docs/ENVIRONMENTS.md's example that trains against the exploiter, run as it stands."""
    text = (repo / "docs" / "ENVIRONMENTS.md").read_text(encoding="utf-8")
    section = text.split("## The exploiter", 1)[1]
    (repo / "exploiter_example.py").write_text(
        re.search(r"```python\n(.*?)```", section, re.S).group(1), encoding="utf-8")
    printed, how = timed_run(repo, "exploiter_example.py")
    return (f"\nIt printed ({how}, {processor()}, {time.strftime('%Y-%m-%d')}):\n"
            + code(printed))


def compare(repo: Path, writing: bool) -> str:
    return "\n" + lines(run(repo, "tools/compare.py")) + "\n\n"


def selfcheck(repo: Path, writing: bool) -> str:
    return code(lines(run(repo, "check.py")))


def curves(repo: Path, writing: bool) -> str:
    figure = repo / "Data" / "learning_curve.png"
    run(repo, "Q_Trainer.py", "--lecture", "--seed", "1", "--plot", str(figure))
    if writing:
        shutil.copyfile(figure, ROOT / "docs" / "learning_curve.png")
    return "\n![Learning curves of Q-learning with the lecture's settings](learning_curve.png)\n\n"


@lru_cache(maxsize=1)
def board_comparison(repo: Path) -> tuple[str, str]:
    """What ``tools/board_compare.py`` prints (run once for both of its figures), its curves
    drawn into the scratch copy's Data/, and how long it took where (``timed_run``)."""
    return timed_run(repo, "tools/board_compare.py", "--plot",
                     str(repo / "Data" / "boards_curves.png"))


def boards(repo: Path, writing: bool) -> str:
    """The table, the network and the proven table on 4x4 k=4, in full, and the first two's
    curves."""
    printed, how = board_comparison(repo)
    if writing:
        shutil.copyfile(repo / "Data" / "boards_curves.png",
                        ROOT / "docs" / "images" / "boards_curves.png")
    table = printed.split("\n\nIn short")[0]
    return (f"\n`python tools/board_compare.py` printed ({how}, {torch_kernels()}, "
            f"{time.strftime('%Y-%m-%d')}):\n\n{table}\n\n")


def boards_short(repo: Path, writing: bool) -> str:
    """The same comparison's closing lines: each player's losses."""
    return board_comparison(repo)[0].split("\n\nIn short, ")[1].split("\n", 1)[1] + "\n"


NOT_TIMED = ": not timed ("     # make bench's line for what it could not find here
EARLIER = " (an earlier run's)"


def bench(repo: Path, writing: bool) -> str:
    """The latest full ``make bench`` of this repository, as it printed it; a line it could not
    time here (the course's chapter code is not in the repository) stays as the document has it."""
    if not BENCH_RECORD.is_file():
        raise MissingInput(f"no {BENCH_RECORD.relative_to(ROOT)} yet: run make bench first")
    first, *rest = BENCH_RECORD.read_text(encoding="utf-8").strip("\n").splitlines()
    documented = [line.strip() for line in (repo / "docs" / "SPEED.md").read_text(
        encoding="utf-8").splitlines()] if (repo / "docs" / "SPEED.md").is_file() else []
    kept = []
    for line in rest:
        # "the chapter's own code: not timed (...)" stands for "the chapter's own MC_Trainer.py
        # as printed ...: 2.17 s ...": the same first three words
        head = " ".join(line.split()[:3])
        earlier = [old.removesuffix(EARLIER) for old in documented
                   if old.startswith(head) and NOT_TIMED not in old]
        kept.append(line.replace(line.strip(), earlier[0] + EARLIER)
                    if NOT_TIMED in line and earlier else line)
    return f"\nThe latest run ({first}):\n" + code("\n".join(kept))


def dqn_bench(repo: Path, writing: bool) -> str:
    """The latest whole ``make bench-dqn``, as it printed it."""
    if not DQN_BENCH_RECORD.is_file():
        raise MissingInput(f"no {DQN_BENCH_RECORD.relative_to(ROOT)} yet: run make bench-dqn first")
    first, *rest = DQN_BENCH_RECORD.read_text(encoding="utf-8").strip("\n").splitlines()
    return f"\nThe latest run ({first}):\n" + code("\n".join(rest))


# The course's own tables are not part of this repository: make docs COURSE_TABLES=FOLDER
# measures them too; without it their rows stay as the documents have them.
COURSE_TABLES = Path(os.environ["COURSE_TABLES"]) if os.environ.get("COURSE_TABLES") else None
SHIPPED = (("`Q_MC_X.pth` (trained vs `advanced+minimax`)", "Data/Q_MC_X.pth", True),
           ("`Q_MC_O.pth` (trained vs `random+minimax`)", "Data/Q_MC_O.pth", True),
           ("the course's X table (for comparison)", "Q_MC_X_vs_advanced.pth", False),
           ("the course's O table", "Q_MC_O_vs_random.pth", False))
RESULT = re.compile(r"^as ([XO])\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", re.M)


def shipped(repo: Path, writing: bool) -> str:
    """The shipped tables and the course's, measured exactly, each against the best possible."""
    best = {line[:29].strip(): line[29:].split()[0] for line in
            run(repo, "Tester.py", "--optimum").splitlines() if " vs " in line}
    rows = ["| table | vs random: win / loss / draw | vs advanced: win / loss / draw | "
            "can be beaten? |", "| --- | --- | --- | --- |"]
    for label, name, ours in SHIPPED:
        if not ours and (COURSE_TABLES is None or not (COURSE_TABLES / name).is_file()):
            raise MissingInput(f"no {name} in COURSE_TABLES={COURSE_TABLES or ''} (the folder "
                               "of the course's tables: make docs COURSE_TABLES=FOLDER)")
        path = name if ours else str(COURSE_TABLES / name)
        cells = []
        for opponent in ("random", "advanced"):
            side, *rates = RESULT.search(run(repo, "Tester.py", "--x", path, "--o", opponent,
                                             "--exact")).groups()
            cell = " / ".join("0" if rate == "0.000000" else f"{100 * float(rate):.4f}"
                              for rate in rates) + " %"
            win, rest = cell.split(" ", 1)
            if ours and rates[0] == best[f"{side} vs {opponent}"]:
                cell = f"**{win}** {rest} (the best possible)"
            elif ours and rates[0] == best[f"{side} vs {opponent}, unbeatable"]:
                cell = f"**{win}** {rest} (the best possible for an {side} that cannot be beaten)"
            cells.append(cell)
        said = run(repo, "Tester.py", "--worst-case", path)
        beaten = re.search(r"CAN BE BEATEN in (\d+) moves", said)
        cells.append(f"yes, in {beaten.group(1)} moves" if beaten else "no")
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n" + "\n".join(rows) + "\n\n"


def tests(repo: Path, writing: bool) -> str:
    """How many tests each suite has, and how long each took here (Data/timings.txt)."""
    def collected(*options: str) -> int:
        done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p",
                               "no:cacheprovider", *options], cwd=repo, capture_output=True,
                              text=True, timeout=TIMEOUT)
        said = re.search(r"^(no|\d+)(?:/\d+)? tests? collected", done.stdout, re.M)
        if done.returncode not in (0, 5) or not said:        # 5: none selected
            raise FigureError(f"pytest --collect-only {' '.join(options)} exited "
                              f"{done.returncode}")
        return 0 if said.group(1) == "no" else int(said.group(1))
    every, slow = collected(), collected("-m", "slow")
    # counted in a copy of the tracked files, as a clone has them (without the course's files)
    suites = code(f"make test        # the quick suite: {every - slow:,} tests, all but the slow "
                  f"ones\nmake test-all    # all {every:,} tests of a clone with make extras, the "
                  f"{slow:,} slow ones too (CI)")
    return suites + "\n".join(timing_lines(repo, "README.md", ("make test", "make test-all"))) \
        + "\n\n"


def timing_lines(repo: Path, document: str, commands: Sequence[str]) -> list[str]:
    """``- `make test`: 1 min 04 s (load average ...)`` for each command: its latest timed.py
    run here (Data/timings.txt), else the line ``document`` (of ``repo``) has for it."""
    return quoted_lines(commands, (repo / document).read_text(encoding="utf-8").splitlines())


def timings(repo: Path, writing: bool) -> str:
    """How long each long command took here, and under what load."""
    heading = "\n\nThe ten slowest tests of that `make test-all` run, as pytest printed them:\n"
    slowest = read_slowest().get("make test-all")
    found = re.search(re.escape(heading) + r"((?:\n|    .*\n)*?)\n<!-- /figures -->",
                      (repo / "docs/SPEED.md").read_text(encoding="utf-8"))
    # no record (a clone): the list the document quotes, as timing_lines keeps its lines
    quoted = code("\n".join(slowest)) if slowest else found.group(1) if found else ""
    listed = heading + quoted.rstrip("\n") if quoted else ""
    return "\n" + "\n".join(timing_lines(repo, "docs/SPEED.md", TIMED)) + listed + "\n\n"


FIGURES = {figure.name: figure for figure in (
    Figure("train", "seconds", train), Figure("tester", "instant", tester_games()),
    Figure("exact", "instant",
           tester_games("--x", "Data/Q_MC_X.pth", "--o", "advanced", "--exact")),
    Figure("worst-case", "seconds", worst_case), Figure("exploiter", "minutes", exploiter),
    Figure("optimum", "instant", tester_games("--optimum")),
    Figure("optimum-4x4", "minutes", optimum_4x4),
    Figure("adversarial-4x4", "minutes", adversarial_4x4),
    Figure("show-q", "instant", tester_games("--show-q", "Data/Q_MC_X.pth", "--moves", "1,1 0,0")),
    Figure("tests", "seconds", tests, quoted=True), Figure("curves", "seconds", curves),
    Figure("dqn", "minutes", dqn), Figure("compare", "minutes", compare),
    Figure("selfcheck", "minutes", selfcheck, varies=r"(?m)^ *Your [XO] after .*$"),
    Figure("bench", "minutes", bench, quoted=True),
    Figure("dqn-bench", "minutes", dqn_bench, quoted=True),
    Figure("timings", "instant", timings, quoted=True),
    Figure("analyse", "instant", analyse), Figure("nim", "minutes", nim),
    Figure("shipped", "seconds", shipped), Figure("boards", "minutes", boards),
    Figure("boards-short", "minutes", boards_short),
    Figure("playout-minimax", "minutes",
           tester_games("--x", "playout", "--o", "minimax", "--games", "200", "--both")),
    Figure("mcts-minimax", "minutes",
           tester_games("--x", "mcts", "--o", "minimax", "--games", "200", "--both")),
    Figure("playout-advanced", "minutes",
           tester_games("--x", "playout", "--o", "advanced", "--games", "1000", "--both")),
    Figure("mcts-advanced", "minutes",
           tester_games("--x", "mcts", "--o", "advanced", "--games", "1000", "--both")))}
