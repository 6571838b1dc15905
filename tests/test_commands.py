"""Every command of the README and of docs/, and every make target, run as a user runs them (at
small sizes where the real one takes minutes) in a fresh git copy of the repository, which they
leave as clean as they found it (git status shows nothing).

A command here is a line of a shell or indented code block that starts with a program; lines
indented further are output. How each is made small, and the few that this test cannot run (and
who runs them instead), are listed below.
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tools import docs_figures

# every documented command, one after another: minutes; the students' version has other documents
pytestmark = [pytest.mark.slow, pytest.mark.solved_only]

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = re.compile(r"(python3?|make|cd|\.venv/bin/\w+|pip|source)$")
TIMEOUT = 900
# Flags appended to a script's command line (the last of a flag wins): a short run of the same.
SMALLER = {"MC_Trainer.py": ["--epochs", "2000"], "SARSA_Trainer.py": ["--epochs", "2000"],
           "Q_Trainer.py": ["--epochs", "2000"], "DQN_Trainer.py": ["--epochs", "300"],
           "Game.py": ["--games", "1", "--delay", "0"], "nim/play.py": ["--games", "300"],
           "examples/train_gymnasium.py": ["--episodes", "500"],
           "examples/train_maskable_ppo.py": ["--steps", "2000"],
           "tools/compare.py": ["--epochs", "300"],
           # 3x4 k=3: on 4x4 k=4 each of its three lines trains a table until proven (most of a
           # minute), which docs/BOARDS.md's Adversarial_Trainer.py line does once here; its
           # whole 4x4 k=4 run is make docs' boards figure
           "tools/board_compare.py": ["--epochs", "300", "--board", "3x4", "--k", "3"]}
# Flags made smaller only where a command gives them.
SMALLER_IF_GIVEN = {"Tester.py": {"--games": "4"}}
# make targets: the ARGS that keep them short (the target's own command line otherwise).
MAKE_ARGS = {"play": "--x random --o random --games 1 --delay 0", "train": "--epochs 2000",
             "dqn": "--epochs 300", "compare": "--epochs 300", "curves": "--epochs 2000",
             "nim": "--games 300", "bench": "--quick",
             # check.py in full (--all): tests/test_exercise.py runs it on the solved repository
             "check": "--piece 1",
             "bench-dqn": "--seeds 1 --modes self --kernels native -- --epochs 200", "docs": "--only tester exact optimum show-q",
             "notebook": "--version"}
# make data trains the shipped tables at full size (most of an hour): here its command lines run
# small, into a scratch folder, the Monte Carlo ones twice (a seed repeats bit for bit); at full
# size tools/benchmarks/data.py and adversarial.py (make bench) train them and compare with Data/.
DATA_SMALLER = {"MC_Trainer.py": ["--epochs", "2000"], "Adversarial_Trainer.py": ["--minutes", "0.01"]}
# What is not run here, and why: whole command lines, and programs.
NOT_RUN = {
    "make test": "the quick suite itself",
    "make test-all": "the full suite itself (CI runs it)",
    ".venv/bin/python -m pytest -q -m \"not slow\"": "the quick suite itself",
    "python3 -m venv .venv": "what make venv does; .ci/run's make extras creates the venv",
    "python SARSA_Trainer.py --side O ...": "an outline of a call, not a command",
    "python Tester.py --board 4x4 --k 4 --worst-case Data/Q_ADV_O_4x4k4.pth":
        "the longest walk of the shipped tables: tests/test_adversarial.py proves the table with "
        "the same worst_case (this command's road is run with the X table)",
    "python check.py --all": "tests/test_exercise.py runs it on the solved repository "
                             "(test_the_solved_repository_passes_every_piece)",
    "python check.py": "its pieces 1-3 are those of python check.py --all, which "
                       "tests/test_exercise.py runs on the solved repository",
    "python Adversarial_Trainer.py --board 4x4 --k 4 --side O --seed 1":
        "minutes: make data, which this test runs too, trains the same table (into Data/)",
    "python tools/grade.py hand-ins/*": "needs a class of hand-ins: tests/test_grade.py grades one",
    "python tools/grade.py hand-ins/*.zip --out grades-week-3 --timeout 300 --jobs 2":
        "needs a class of hand-ins: tests/test_grade.py grades one",
}
NOT_RUN_PROGRAMS = {"pip": "it installs packages (make venv and .ci/run do)",
                    ".venv/bin/pip": "it installs packages (make venv and .ci/run do)",
                    "source": "it changes the user's shell, not the repository"}
# The make targets that install packages, and what runs them.
INSTALLS = {"venv": "make extras runs it in .ci/run", "extras": ".ci/run runs it"}


# The documents whose commands run in a copy of their own, in tests/test_commands_docs.py (the
# other worker of make test-all runs it meanwhile): each makes every file its commands use.
OWN_COPY = ("docs/ALGORITHMS.md", "docs/BOARDS.md", "docs/ENVIRONMENTS.md")


def runs_here(line: str) -> bool:
    return line not in NOT_RUN and line.split()[0] not in NOT_RUN_PROGRAMS


def documented_commands(part: str = "all") -> list[tuple[str, str]]:
    """``(folder, command line)`` of every command in the README and docs/ (the book's README
    too), in order, the README first; the folder it runs in ("" for the project's root) and the
    line as shown, its comment left out. ``part``: "own copy" for the documents of
    ``OWN_COPY`` only, "rest" for all the others."""
    found = []
    documents = [(ROOT / "README.md", ""), *[(path, "") for path in sorted(
        (ROOT / "docs").glob("*.md"))], (ROOT / "book" / "README.md", "book")]
    if part != "all":
        documents = [(path, folder) for path, folder in documents
                     if (path.relative_to(ROOT).as_posix() in OWN_COPY) == (part == "own copy")]
    for path, folder in documents:
        fence, previous = None, ""
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("```"):
                fence = None if fence is not None else line[3:].strip()
                continue
            shell = fence in ("", "sh", "bash", "shell", "console") and line.strip()
            indented = (fence is None and line.startswith("    ") and line[4:5] != " "
                        and line.strip() and (not previous.strip() or previous.startswith("    ")))
            if shell or indented:
                command = " ".join(re.sub(r"(^|\s)#.*$", "", line).split())
                program = next((word for word in command.split() if "=" not in word), "")
                if PROGRAMS.match(program):
                    found.append((folder, command))
            previous = line
    return found


def git_copy(folder: Path) -> Path:
    """The repository's tracked files as they are now, committed in a new git repository (with
    the course's fixtures beside it, when this checkout has them)."""
    repo = docs_figures.scratch_copy(folder)
    shared = ROOT.parent / "shared"
    if shared.is_dir():
        (folder / "shared").symlink_to(shared)
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@example.com"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "copy"]):
        subprocess.run(git + command, cwd=repo, check=True, capture_output=True)
    return repo


def as_run(line: str, repo: Path, where: str = "") -> tuple[list[str], Path, dict]:
    """The argv that runs the documented ``line`` (shown for the folder ``where`` of ``repo``)
    here, its folder and its environment."""
    words = shlex.split(line)
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    while "=" in words[0]:
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    folder = repo / where
    if words[0] == "cd":
        folder, words = repo / words[1], words[3:]          # cd DIR && ...
    program, *args = words
    if program == "make":
        target = args[0]
        return (["make", "-s", "-o", ".venv/.installed", "-o", ".venv/.extras",
                 f"PY={sys.executable}", *args, f"ARGS={MAKE_ARGS.get(target, '')}"], folder, env)
    script = args[0] if args and args[0] != "-m" else ""
    if script == "Game.py":
        args = ["random" if word == "human" else word for word in args]
        args += [] if "--o" in args else ["--o", "random"]
    for flag, value in SMALLER_IF_GIVEN.get(script, {}).items():
        args += [flag, value] if flag in args else []
    return [sys.executable, *args, *SMALLER.get(script, [])], folder, env


def run(argv: list[str], folder: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=TIMEOUT)


def make_targets() -> set[str]:
    phony = re.search(r"^\.PHONY: (.*)$", (ROOT / "Makefile").read_text(), re.M).group(1)
    return set(phony.split())


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    return git_copy(tmp_path_factory.mktemp("commands"))


def run_documented(copy: Path, part: str) -> dict[str, subprocess.CompletedProcess]:
    """Every command of the documents of ``part`` that can run here, in their order."""
    results, by_argv = {}, {}
    for where, line in documented_commands(part):
        if runs_here(line) and line not in results:
            argv, folder, env = as_run(line, copy, where)
            # lines that are one command once made small (--epochs given and replaced) run once
            key = (tuple(argv), str(folder), tuple(sorted(env.items())))
            results[line] = by_argv.get(key) or run(argv, folder, env)
            by_argv[key] = results[line]
    return results


@pytest.fixture(scope="module")
def ran(copy) -> dict[str, subprocess.CompletedProcess]:
    """Every documented command that can run here but those of ``OWN_COPY``, in order."""
    return run_documented(copy, "rest")


@pytest.fixture(scope="module")
def made(ran, copy, tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    """After the documented commands: the make targets they do not show, a second make exercise
    without and with FORCE=1, and make clean last."""
    shown = {shlex.split(line)[1] for line in ran if line.startswith("make ")}
    rest = sorted(make_targets() - shown - set(INSTALLS) - {"test", "test-all", "clean", "data"})
    results = {f"make {target}": run(*as_run(f"make {target}", copy)) for target in rest}
    results["make data"] = make_data_small(copy, tmp_path_factory.mktemp("data"))
    results["make exercise (again)"] = run(*as_run("make exercise", copy))
    results["make exercise FORCE=1"] = run(*as_run("make exercise FORCE=1", copy))
    (copy / ".venv").mkdir()
    results["make clean"] = run(*as_run("make clean", copy))
    return results


def make_data_small(copy: Path, scratch: Path) -> subprocess.CompletedProcess:
    """make data's command lines (``make -n data``) run small, each saving into ``scratch``:
    the first that fails is the result, else the last. Each Monte Carlo line runs twice and its
    two tables must be the same bytes."""
    argv, folder, env = as_run("make data", copy)
    listed = run([argv[0], "-n", *argv[1:]], folder, env)
    assert listed.returncode == 0, listed.stderr
    lines = [shlex.split(line) for line in listed.stdout.splitlines() if line.strip()]
    assert [words[1] for words in lines] == ["MC_Trainer.py", "MC_Trainer.py",
                                             "Adversarial_Trainer.py", "Adversarial_Trainer.py"]
    for number, words in enumerate(lines):
        at = words.index("--out") + 1
        outs = [scratch / f"{number}-{n}-{Path(words[at]).name}" for n in range(2)]
        for out in outs[:2 if words[1] == "MC_Trainer.py" else 1]:
            result = run([*words[:at], str(out), *words[at + 1:], *DATA_SMALLER[words[1]]],
                         folder, env)
            if result.returncode != 0 and not (words[1] == "Adversarial_Trainer.py"
                                               and "Not proven: stopped" in result.stdout):
                return result
            assert out.is_file(), " ".join(words)
        if words[1] == "MC_Trainer.py":
            assert outs[0].read_bytes() == outs[1].read_bytes(), " ".join(words)
    return subprocess.CompletedProcess(listed.args, 0, listed.stdout, "")


def test_every_documented_command_is_run_here_or_says_who_runs_it():
    lines = {line for _, line in documented_commands()}
    assert len(lines) >= 50
    assert set(NOT_RUN) <= lines, f"no longer documented: {set(NOT_RUN) - lines}"
    assert {"make play", "make test", "python Tester.py", "python mc_tictactoe.py"} <= lines


def all_worked(results: dict[str, subprocess.CompletedProcess]) -> None:
    for line, result in results.items():
        assert result.returncode == 0, \
            f"{line}: {result.stdout[-2000:]}{result.stderr[-2000:]}"
        assert "Traceback" not in result.stderr, f"{line}: {result.stderr[-2000:]}"


def test_every_documented_command_works(ran):
    all_worked(ran)


def test_their_results_are_there_for_the_next_commands(ran, copy):
    for name in ("my_Q_MC_X.pth", "weak_O.pth", "my_table.pth"):
        assert (copy / "Data" / name).is_file(), name
    assert "CAN BE BEATEN" in ran["python Tester.py --worst-case Data/weak_O.pth"].stdout


def test_every_make_target_runs(ran, made, copy):
    for target in make_targets() - set(INSTALLS) - {"test", "test-all"}:
        result = ran.get(f"make {target}") or made[f"make {target}"]
        assert result.returncode == 0, f"make {target}: {result.stdout[-2000:]}{result.stderr}"
    assert not (copy / ".venv").exists()                        # make clean removed it


def test_a_second_make_exercise_says_how_a_make_user_forces_it(made):
    again = made["make exercise (again)"]
    assert again.returncode != 0 and "use make exercise FORCE=1 to write over it" in again.stderr
    assert made["make exercise FORCE=1"].returncode == 0, made["make exercise FORCE=1"].stderr


def git_status(copy: Path) -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=copy,
                          capture_output=True, text=True, check=True).stdout


def test_the_commands_leave_git_status_clean(made, copy):
    assert git_status(copy) == ""
