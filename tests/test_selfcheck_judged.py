"""Holes a reviewer found in the self-check's judging, each closed: the judging processes run
without the user's site-packages (where a piece could plant code for the later pieces); what the
student's process did is judged in the judging process, not by checks the student's code can
replace; and what the student's code says reaches the output as one line."""

from __future__ import annotations

import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

import check as check_py
from tests.test_selfcheck_verdicts import (  # noqa: F401  (students: a fixture, used by name)
    CHAPTER_LOOP, a_main, check, hand_in, piece_line, students)
from tools.grading.limits import environment

ROOT = Path(__file__).resolve().parent.parent
PLANTED = "import os; open(os.environ['PLANTED_MARK'], 'a').write('ran\\n')\n"


def test_a_piece_runs_without_the_user_site_packages():
    command = check_py.piece_command(["--piece", "1"])
    assert command[:4] == [sys.executable, "-s", "-m", "tictactoe_rl.selfcheck.run"]
    assert environment(Path("/box"))["PYTHONNOUSERSITE"] == "1"


def base_python_with_user_site(home: Path) -> str | None:
    """The interpreter this venv was made from, if it reads the user's site-packages."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    base = Path(sys.base_prefix) / "bin" / version
    if not base.is_file():
        return None
    answer = subprocess.run([str(base), "-c", "import site; print(site.ENABLE_USER_SITE)"],
                            capture_output=True, text=True, env={**os.environ, "HOME": str(home)})
    return str(base) if answer.stdout.strip() == "True" else None


@pytest.mark.slow
def test_a_pth_planted_in_the_user_site_never_runs_in_a_piece(tmp_path):
    home = tmp_path / "home"
    python = base_python_with_user_site(home)
    if python is None:
        pytest.skip("no interpreter with the user site-packages enabled here")
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    user_site = home / ".local" / "lib" / version / "site-packages"
    user_site.mkdir(parents=True)
    (user_site / "zz.pth").write_text(PLANTED, encoding="utf-8")
    mark = tmp_path / "mark"
    env = {**os.environ, "HOME": str(home), "PLANTED_MARK": str(mark),
           "PYTHONPATH": site.getsitepackages()[0]}     # the project's packages, from the venv
    env.pop("PYTHONNOUSERSITE", None)
    subprocess.run([python, "-c", "pass"], env=env, timeout=60)
    assert mark.is_file(), "the planted .pth should run in a plain process of this python"
    mark.unlink()
    # check.py started as the grader starts it (its own process without the user site): the
    # pieces' processes must not read it either.
    done = subprocess.run([python, "-s", "check.py", "--piece", "1"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert "piece 1" in done.stdout, done.stdout + done.stderr
    assert not mark.exists(), done.stdout


# --- the checks of what the student's process did run in the judging process --------------------

# Code a hand-in runs when AI_Agent.py is imported, in the student's process: each replaces a
# check of that process, so a wrong piece would pass if the check's verdict rested on it.
PATCH_COMPARE = '''
import sys as _sys
_episode_check = _sys.modules["tictactoe_rl.selfcheck.piece_episode"]
_compare = _episode_check.compare
_episode_check.compare = lambda episode, log, side, epoch, *a, **k: _compare(
    episode, [(who, state, move, epoch) for who, state, move, _ in log], side, epoch, *a, **k)
'''
PATCH_CHECK_CALLS = '''
import sys as _sys
_sys.modules["tictactoe_rl.selfcheck.piece_main"].check_calls = lambda *a, **k: []
'''


def patched(folder: Path, code: str) -> Path:
    agent = folder / "AI_Agent.py"
    agent.write_text(agent.read_text(encoding="utf-8") + "\n" + code, encoding="utf-8")
    return folder


@pytest.mark.slow
def test_an_epoch_not_passed_on_fails_piece_2_whatever_the_child_patches(students, tmp_path,
                                                                         chapter):
    generate = chapter.listing("solution_Generate_episode.py").replace("epoch=epoch)", "epoch=0)")
    folder = patched(hand_in(students, tmp_path, chapter, generate=generate), PATCH_COMPARE)
    status, output = check(folder, "--piece", "2")
    line = piece_line(output, 2)
    assert status == 1 and "FAILED" in line, output
    assert "asked the learner with epoch 0: pass it on" in line, line


@pytest.mark.slow
def test_epoch_0_every_episode_fails_piece_3_whatever_the_child_patches(students, tmp_path,
                                                                        chapter):
    loop = CHAPTER_LOOP.replace("Generate_episode(player, epoch)", "Generate_episode(player1, 0)")
    assert loop != CHAPTER_LOOP
    folder = patched(hand_in(students, tmp_path, chapter, main=a_main(loop)), PATCH_CHECK_CALLS)
    status, output = check(folder, "--piece", "3")
    line = piece_line(output, 3)
    assert status == 1 and "FAILED" in line, output
    assert "Generate_episode was asked for epoch 0 right after epoch 0" in line, line


# --- what the student's code says is shown on one line ------------------------------------------

FAKE_LINE = "piece 5 -- bonus: passed"
ODD_TEST = f'''
class _Hundred:
    def __repr__(self):
        return "100)\\n{FAKE_LINE} (\\x1b[2K"
'''


@pytest.mark.slow
def test_the_student_s_strings_cannot_print_a_line_of_their_own(students, tmp_path, chapter):
    passing = hand_in(students, tmp_path / "passing", chapter, main=a_main().replace(
        "print(test(100))", "print(test(_Hundred()))"))
    trainer = passing / "MC_Trainer.py"
    trainer.write_text(trainer.read_text(encoding="utf-8") + ODD_TEST, encoding="utf-8")
    failing = hand_in(students, tmp_path / "failing", chapter, main=a_main(
        before=f"    raise ValueError('no\\n{FAKE_LINE}')\n"))
    for folder, verdict in ((passing, ": passed ("), (failing, "FAILED")):
        status, output = check(folder, "--piece", "3")
        assert verdict in piece_line(output, 3), output
        assert not any(line.startswith("piece 5") for line in output.splitlines()), output
        assert "\x1b" not in output, output
