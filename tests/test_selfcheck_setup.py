"""A student's set-up: the self-check and the trainers run by a Python without the project's
packages say in one line what to run, and judge nothing; and the chapter's header, typed over
the stub's, leaves the machinery below the student's part working."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tictactoe_rl import environment_check

ROOT = Path(__file__).resolve().parent.parent
SETUP_LINE = "is not the project's: it lacks"


def bare(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``python ARGS`` with no site-packages at all (``-S``: none of the venv's packages), as a
    student's system Python without them runs it; the script's folder stays on the path."""
    return subprocess.run([sys.executable, "-S", "-E", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=60)


def assert_setup_line(result: subprocess.CompletedProcess, script: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr            # one line, no traceback
    assert lines[0].startswith(f"{script}: this Python") and SETUP_LINE in lines[0]
    assert "make venv" in lines[0] and ".venv" in lines[0] and "requirements.txt" in lines[0]
    assert "tqdm" in lines[0] and "torch" in lines[0]
    assert result.stdout == ""                        # no piece judged, nothing trained


def test_needed_packages_are_the_requirements():
    listed = {line.split("=")[0].split("[")[0].strip().lower()
              for line in (ROOT / "requirements.txt").read_text().splitlines() if line.strip()}
    assert set(environment_check.NEEDED) <= listed
    assert environment_check.missing() == []         # the project's own Python has them all


@pytest.mark.parametrize("args", [["check.py"], ["check.py", "--piece", "3"],
                                  ["check.py", "--all"]])
def test_check_with_a_bare_python_says_what_to_run(args):
    assert_setup_line(bare(args, ROOT), "check.py")


@pytest.mark.parametrize("script", ["MC_Trainer.py", "Q_Trainer.py", "SARSA_Trainer.py"])
def test_trainers_with_a_bare_python_say_what_to_run(script):
    assert_setup_line(bare([script], ROOT), script)


def test_check_from_another_folder_names_the_paths(tmp_path):
    result = bare([str(ROOT / "check.py")], tmp_path)
    assert_setup_line(result, "check.py")
    assert str(Path("..")) in result.stderr or str(ROOT) in result.stderr


def test_the_chapters_trainer_with_a_bare_python_says_what_to_run(tmp_path):
    """The chapter's skeleton typed over the whole of MC_Trainer.py (its own imports, the
    header as printed): the set-up line still comes before its first import fails."""
    chapter = ROOT.parent / "shared" / "fixtures" / "chapter" / "skeleton_MC_Trainer.py"
    if not chapter.is_file():
        pytest.skip(f"the chapter's listings are not beside the project ({chapter.parent})")
    for path in ROOT.glob("*.py"):
        shutil.copy2(path, tmp_path / path.name)
    shutil.copytree(ROOT / "tictactoe_rl", tmp_path / "tictactoe_rl",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(chapter, tmp_path / "MC_Trainer.py")
    assert_setup_line(bare(["MC_Trainer.py"], tmp_path), "MC_Trainer.py")


def test_a_fresh_venv_without_the_packages(tmp_path):
    """A virtual environment made fresh, without pip or the project's packages."""
    base = getattr(sys, "_base_executable", sys.executable)
    made = subprocess.run([base, "-m", "venv", "--without-pip", str(tmp_path / "venv")],
                          capture_output=True, text=True, timeout=120)
    if made.returncode != 0:
        pytest.skip(f"no venv here: {made.stderr.strip()[-200:]}")
    python = tmp_path / "venv" / ("Scripts" if sys.platform == "win32" else "bin") / "python"
    result = subprocess.run([str(python), "check.py"], cwd=ROOT, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2 and SETUP_LINE in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1 and result.stdout == ""


# --- the chapter's header typed over the stub's -------------------------------------------------

def over_the_header(folder: Path, chapter, header: str | None = None,
                    main: str | None = None) -> Path:
    """The students' version in ``folder`` with everything between MC_Trainer.py's docstring
    and its Generate_episode -- the stub's imports and module names -- replaced by the chapter's
    imports and header as printed (or ``header``), and the chapter's solution typed into the
    pieces (its ``main``, or ``main``)."""
    import ast

    path = folder / "MC_Trainer.py"
    text = path.read_text(encoding="utf-8")
    docstring_end = ast.parse(text).body[0].end_lineno
    lines = text.splitlines()
    imports = [line for line in chapter.listing("skeleton_MC_Trainer.py").splitlines()
               if line.startswith(("from ", "import "))]
    imports.append("from Random_Agent_Advanced import Random_Agent_Advanced")
    printed, _, _ = chapter.listing("solution_main.py").partition("def main")
    at = text.index("\ndef Generate_episode")
    path.write_text("\n".join(lines[:docstring_end]) + "\n\n" + "\n".join(imports) + "\n\n"
                    + (printed if header is None else header) + "\n" + text[at:],
                    encoding="utf-8")
    chapter.type_in_solution(folder, main=main, header="")
    return folder


def run_in(folder: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=folder, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def students_version(students_copy) -> Path:
    return students_copy


@pytest.mark.slow
def test_the_chapters_header_over_the_stubs_passes_the_check(students_version, tmp_path,
                                                              chapter):
    folder = over_the_header(Path(shutil.copytree(students_version, tmp_path / "s")), chapter)
    text = (folder / "MC_Trainer.py").read_text(encoding="utf-8")
    assert "\nepochs = " not in text and "\nalpha = " not in text   # the header as printed
    assert "\ngamma = 0.95" in text and "Q_MC_2026_2" in text
    done = run_in(folder, "check.py", "--piece", "1", "--piece", "2", "--piece", "3")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "NameError" not in done.stdout + done.stderr
    for piece in (1, 2, 3):
        assert re.search(rf"^piece {piece} -- .*: passed", done.stdout, re.M), done.stdout


def test_the_chapters_header_over_the_stubs_trains_from_the_command_line(
        students_version, tmp_path, chapter):
    """``python MC_Trainer.py`` runs the student's main under the chapter's header (no module
    ``epochs`` or ``alpha``: its main sets them)."""
    loop_main = chapter.listing("solution_main.py").partition("def main")[2]
    quick = "def main" + loop_main.replace("epochs = 200000", "epochs = 3000")
    folder = over_the_header(Path(shutil.copytree(students_version, tmp_path / "s")), chapter,
                             main=quick)
    out = tmp_path / "t.pth"
    done = run_in(folder, "MC_Trainer.py", "--seed", "1", "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert out.is_file() and "Traceback" not in done.stderr


def test_a_header_without_path_is_named_in_one_line(students_version, tmp_path, chapter):
    """A header that renamed PATH: the command line says in one line that it needs it (and
    ``--out`` makes do without it); the check does not need it."""
    printed = chapter.listing("solution_main.py").partition("def main")[0]
    header = printed.replace("PATH = ", "TABLE_FILE = ")
    main = ("def main ():\n    player1.Q[(State(), (1, 1))] = 1.0\n"
            "    player1.save_Q(TABLE_FILE)\n")
    folder = over_the_header(Path(shutil.copytree(students_version, tmp_path / "s")), chapter,
                             header=header, main=main)
    done = run_in(folder, "MC_Trainer.py", "--seed", "1")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == [
        "error: MC_Trainer.py has no module-level PATH, which python MC_Trainer.py needs to run "
        "your main: define it as the chapter's header does, PATH = 'Data/my_Q_MC_X.pth' (or "
        "give --out FILE)"]


@pytest.mark.slow
def test_the_chapters_whole_trainer_passes_the_check(students_version, tmp_path, chapter):
    """The chapter's MC_Trainer.py as printed, solution typed in, over the whole file: no
    machinery at all, and the check still judges the pieces."""
    folder = Path(shutil.copytree(students_version, tmp_path / "s"))
    (folder / "MC_Trainer.py").write_text(chapter.solved_trainer(), encoding="utf-8")
    done = run_in(folder, "check.py", "--piece", "2", "--piece", "3")
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^piece 3 -- .*: passed \(as X: 200,000 episodes", done.stdout, re.M)


@pytest.mark.slow
def test_a_name_the_check_needs_is_named_in_one_line(students_version, tmp_path, chapter):
    """A header that renamed player1: the check cannot hand main its learner, and its line
    names the missing name instead of a traceback."""
    printed = chapter.listing("solution_main.py").partition("def main")[0]
    header = printed.replace("player1 = ", "learner = ")
    main = "def main ():\n    learner.save_Q(PATH)\n"
    folder = over_the_header(Path(shutil.copytree(students_version, tmp_path / "s")), chapter,
                             header=header, main=main)
    done = run_in(folder, "check.py", "--piece", "3")
    line = next(line for line in done.stdout.splitlines() if line.startswith("piece 3 "))
    assert "FAILED" in line and "'player1'" in line, done.stdout
    assert "Traceback" not in done.stdout + done.stderr
