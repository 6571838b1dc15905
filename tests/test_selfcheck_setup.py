"""A student's set-up: the self-check and the trainers run by a Python without the project's
packages say in one line what to run, and judge nothing; and the chapter's header, typed over
the stub's, leaves the machinery below the student's part working."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import environment_check

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


@pytest.mark.parametrize("args", [["check.py"], ["check.py", "--piece", "3"], ["check.py", "--all"]])
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
