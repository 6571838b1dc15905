"""The figures that README.md and docs/ quote, made again by the commands that produce them.

    python tools/docs_figures.py                          # make docs: every figure, written in
    python tools/docs_figures.py --only train dqn         # some of them
    python tools/docs_figures.py --check --cost instant   # exit 1 naming every figure that differs
    python tools/docs_figures.py --list                   # the figures, their cost and files

A figure is the text between ``<!-- figures:NAME -->`` and ``<!-- /figures -->`` in a Markdown file
of the repository, NAME one of ``FIGURES``. Each is made by running the documented command as a
user does, in a scratch copy of the repository, so that nothing changes but the marked text (and
docs/learning_curve.png, which the ``curves`` figure draws). Seconds and rates differ from run
to run, so ``--check`` compares everything else; the speed figures are quoted from the latest
``make bench`` (Data/bench.txt), with its date and machine.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cli  # noqa: E402  (the project root must be on the path first)

DOCUMENTS = ("README.md", "docs/*.md")
BLOCK = re.compile(r"(<!-- figures:([\w-]+) -->\n)(.*?)(<!-- /figures -->)", re.DOTALL)
# What differs between two runs of the same command: seconds, rates, dates.
VOLATILE = re.compile(r"\d[\d,]*(\.\d+)?( ms| s\b| episodes/s| games/s|-core)"
                      r"|\d{4}-\d\d-\d\d( \d\d:\d\d)?")
COSTS = ("instant", "seconds", "minutes")   # on an idle 2-core machine, per figure
BENCH_RECORD = ROOT / "Data" / "bench.txt"
TIMEOUT = 1800


class FigureError(RuntimeError):
    """A command failed, or a document has a figure this script does not know."""


@dataclass(frozen=True)
class Figure:
    name: str
    cost: str                              # one of COSTS
    make: Callable[[Path, bool], str]      # (scratch repository, writing?) -> the figure's text


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


def tester(repo: Path, writing: bool) -> str:
    return code(lines(run(repo, "Tester.py")))


def exact(repo: Path, writing: bool) -> str:
    return code(lines(run(repo, "Tester.py", "--x", "Data/Q_MC_X.pth", "--o", "advanced",
                          "--exact")))


def worst_case(repo: Path, writing: bool) -> str:
    run(repo, "MC_Trainer.py", "--side", "O", "--epochs", "2000", "--seed", "3", "--out",
        "Data/weak_O.pth")
    return code(lines(run(repo, "Tester.py", "--worst-case", "Data/weak_O.pth")).splitlines()[0])


def optimum(repo: Path, writing: bool) -> str:
    return code(lines(run(repo, "Tester.py", "--optimum")))


def show_q(repo: Path, writing: bool) -> str:
    return code(lines(run(repo, "Tester.py", "--show-q", "Data/Q_MC_X.pth", "--moves", "1,1 0,0")))


def analyse(repo: Path, writing: bool) -> str:
    printed = lines(run(repo, "Tester.py", "--analyse", "playout:scoring=score", "--moves", ""))
    return code(printed.split("\n\n", 1)[1])          # the board, without its heading


def tester_games(*args: str) -> Callable[[Path, bool], str]:
    """A figure of ``python Tester.py ARGS``'s table of games."""
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


def dqn(repo: Path, writing: bool) -> str:
    started = time.perf_counter()
    printed = lines(run(repo, "DQN_Trainer.py", "--seed", "1")).splitlines()
    seconds = time.perf_counter() - started
    shown = [line for line in printed if line.startswith(
        ("Trained", "Saved", "exact vs", "unbeatable", "CAN BE BEATEN", "perfect moves"))]
    return (f"\nA default run with `--seed 1` printed ({seconds:.0f} s in all, on a "
            f"{os.cpu_count()}-core machine, {time.strftime('%Y-%m-%d')}):\n"
            + code("\n".join(shown)))


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


def bench(repo: Path, writing: bool) -> str:
    """The latest full ``make bench`` of this repository, as it printed it."""
    if not BENCH_RECORD.is_file():
        raise FigureError(f"no {BENCH_RECORD.relative_to(ROOT)} yet: run make bench first")
    first, *rest = BENCH_RECORD.read_text(encoding="utf-8").strip("\n").splitlines()
    return f"\nThe latest run ({first}):\n" + code("\n".join(rest))


def tests(repo: Path, writing: bool) -> str:
    """How many tests each suite has."""
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
    return f"\n{every:,} tests: {every - slow:,} in the quick suite (make test), {slow:,} slow.\n\n"


FIGURES = {figure.name: figure for figure in (
    Figure("train", "seconds", train), Figure("tester", "instant", tester),
    Figure("exact", "instant", exact), Figure("worst-case", "seconds", worst_case),
    Figure("optimum", "instant", optimum), Figure("show-q", "instant", show_q),
    Figure("tests", "seconds", tests), Figure("curves", "seconds", curves),
    Figure("dqn", "minutes", dqn), Figure("compare", "minutes", compare),
    Figure("selfcheck", "minutes", selfcheck), Figure("bench", "minutes", bench),
    Figure("analyse", "instant", analyse), Figure("nim", "minutes", nim),
    Figure("playout-minimax", "minutes",
           tester_games("--x", "playout", "--o", "minimax", "--games", "200", "--both")),
    Figure("mcts-minimax", "minutes",
           tester_games("--x", "mcts", "--o", "minimax", "--games", "200", "--both")),
    Figure("playout-advanced", "minutes",
           tester_games("--x", "playout", "--o", "advanced", "--games", "1000", "--both")),
    Figure("mcts-advanced", "minutes",
           tester_games("--x", "mcts", "--o", "advanced", "--games", "1000", "--both")))}


def documents(root: Path = ROOT) -> list[Path]:
    return sorted({path for pattern in DOCUMENTS for path in root.glob(pattern)})


def marked(root: Path = ROOT) -> dict[str, list[Path]]:
    """Every figure name marked in the documents, with the files it is in."""
    found: dict[str, list[Path]] = {}
    for path in documents(root):
        for match in BLOCK.finditer(path.read_text(encoding="utf-8")):
            found.setdefault(match.group(2), []).append(path)
    return found


def scratch_copy(folder: Path) -> Path:
    """The repository's tracked files (as they are now) in ``folder``/repo."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout.decode().split("\0")
    repo = folder / "repo"
    for name in filter(None, tracked):
        if (ROOT / name).is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, repo / name)
    return repo


def comparable(text: str) -> str:
    return VOLATILE.sub("#", text)


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="docs_figures.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", choices=sorted(FIGURES), metavar="NAME",
                        help="these figures only (default: all): " + ", ".join(FIGURES))
    parser.add_argument("--cost", choices=COSTS,
                        help="the figures that cost at most this much "
                             "(instant < seconds < minutes)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 naming every figure that differs (its seconds "
                             "and rates aside)")
    parser.add_argument("--list", action="store_true", help="list the figures and stop")
    args = parser.parse_args(argv)
    found = marked()
    unknown = sorted(set(found) - set(FIGURES))
    if unknown:
        cli.fail(f"docs_figures.py: {found[unknown[0]][0].relative_to(ROOT)} marks a figure this "
                 f"script does not make: {unknown[0]}")
    chosen = [FIGURES[name] for name in (args.only or FIGURES) if name in found and
              (args.cost is None or COSTS.index(FIGURES[name].cost) <= COSTS.index(args.cost))]
    if args.list:
        for name, figure in FIGURES.items():
            where = ", ".join(str(p.relative_to(ROOT)) for p in found.get(name, [])) or "nowhere"
            print(f"{name:<17} {figure.cost:<8} {where}")
        return 0
    stale = []
    with tempfile.TemporaryDirectory(prefix="docs-figures-") as folder:
        repo = scratch_copy(Path(folder))
        for figure in chosen:
            print(f"{figure.name}: making it ...", file=sys.stderr, flush=True)
            try:
                text = figure.make(repo, not args.check)
            except FigureError as error:
                print(f"{figure.name}: not made: {error}", file=sys.stderr)
                stale += [f"{figure.name}: not made ({error})"] if args.check else []
                continue
            for path in found[figure.name]:
                stale += [f"{path.relative_to(ROOT)}: {figure.name}"] if replace(
                    path, figure.name, text, write=not args.check) else []
    if args.check and stale:
        print("figures that differ from what their commands print now (make docs):\n  "
              + "\n  ".join(stale))
        return 1
    print(f"{len(chosen)} figures {'checked' if args.check else 'made'}"
          + ("" if args.check else f", {len(stale)} changed"))
    return 0


def replace(path: Path, name: str, text: str, write: bool) -> bool:
    """Put ``text`` in the figure ``name`` of ``path`` (when ``write``); whether it differed."""
    document = path.read_text(encoding="utf-8")
    differs = False

    def new(match: re.Match) -> str:
        nonlocal differs
        if match.group(2) != name:
            return match.group(0)
        differs = differs or comparable(match.group(3)) != comparable(text)
        return match.group(1) + text + match.group(4)
    updated = BLOCK.sub(new, document)
    if write and updated != document:
        path.write_text(updated, encoding="utf-8")
    return differs


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
