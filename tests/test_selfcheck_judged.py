"""Holes a reviewer found in the self-check's judging, each closed: the judging processes run
without the user's site-packages (where a piece could plant code for the later pieces)."""

from __future__ import annotations

import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

import check
from tools.grading.limits import environment

ROOT = Path(__file__).resolve().parent.parent
PLANTED = "import os; open(os.environ['PLANTED_MARK'], 'a').write('ran\\n')\n"


def test_a_piece_runs_without_the_user_site_packages():
    command = check.piece_command(["--piece", "1"])
    assert command[:4] == [sys.executable, "-s", "-m", "selfcheck.run"]
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
