"""Importing ``tictactoe_rl`` takes no name from anyone: each subpackage's name (``tables``,
``envs``, ``cli``, ...) stays free for PyTables and for a user's own module, in either order of
imports, and a user's module named like one of the course's flat modules (``State``, ``Agent``)
is never silently mixed in: importing the package then stops with one error naming it. After
the import the course's modules load from the course's folder, whatever the current folder and
``sys.path`` become.

Each case runs in a fresh interpreter from a folder of the user's, with the clone on
``PYTHONPATH`` (after the user's folder, as an installed package would be); tests/test_install.py
does the same after a real ``pip install``.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tictactoe_rl"
# every name the package has inside it, and more generic ones of the same kind
INSIDE = sorted({path.stem if path.suffix == ".py" else path.name
                 for path in PACKAGE.iterdir() if not path.name.startswith("_")
                 and (path.suffix == ".py" or (path / "__init__.py").is_file())})
# what loads the machinery, so that a clash would show: exports, subpackages, the exact tools
USE = ("import tictactoe_rl.training.run, tictactoe_rl.tables.files, tictactoe_rl.envs, "
       "tictactoe_rl.players.specs, tictactoe_rl.cli; from tictactoe_rl import exact_outcome, "
       "make_agent, State; import AI_Agent")


def run(folder: Path, code: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], cwd=folder, env=environment,
                          capture_output=True, text=True, timeout=120)


def test_the_names_inside_are_the_machinerys():
    assert {"tables", "envs", "cli", "training", "players", "geometry"} <= set(INSIDE)


@pytest.mark.slow
@pytest.mark.parametrize("first", ["mine", "package"])
@pytest.mark.parametrize("name", INSIDE)
def test_a_users_module_named_like_a_part_of_the_package_stays_the_users(tmp_path, name, first):
    (tmp_path / f"{name}.py").write_text("WHO = 'mine'\n")
    mine = f"import {name}"
    code = "; ".join([mine, USE] if first == "mine" else [USE, mine]) + f"; print({name}.WHO)"
    done = run(tmp_path, code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "mine"


@pytest.mark.parametrize("first", ["pytables", "package"])
def test_pytables_tables_keeps_working_beside_the_package(tmp_path, first):
    """A stand-in for PyTables, installed elsewhere on the path as a regular package."""
    site = tmp_path / "site"
    (site / "tables").mkdir(parents=True)
    (site / "tables" / "__init__.py").write_text(
        "__version__ = '3.9.2'\ndef open_file(name, mode='r'):\n    return ('hdf5', name)\n")
    pytables = "import tables; assert tables.open_file('x.h5') == ('hdf5', 'x.h5')"
    code = "; ".join([pytables, USE] if first == "pytables" else [USE, pytables])
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    done = subprocess.run([sys.executable, "-c", code + "; print(tables.__version__)"],
                          cwd=tmp_path, env=environment, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3.9.2"


@pytest.mark.parametrize("first", ["mine", "package"])
@pytest.mark.parametrize("name", ["State", "Agent", "TicTacToe", "Game"])
def test_a_users_module_named_like_a_course_module_is_named_in_one_error(tmp_path, name, first):
    (tmp_path / f"{name}.py").write_text("WHO = 'mine'\n")
    code = f"import {name}, tictactoe_rl" if first == "mine" else \
        f"import tictactoe_rl, {name}"
    done = run(tmp_path, code)
    assert done.returncode == 1
    last = done.stderr.splitlines()[-1]
    assert last.startswith("ImportError: tictactoe_rl: the course's modules keep their flat "
                           "names, and these are someone else's: ")
    assert f"{name} ({tmp_path / f'{name}.py'})" in last and last.endswith("rename yours")


def test_without_a_clash_the_course_modules_are_the_courses(tmp_path):
    done = run(tmp_path, "import tictactoe_rl, State; print(State.__file__)")
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) == ROOT / "State.py"


# What changes the current folder or sys.path after ``import tictactoe_rl``, run in a folder
# holding sub/TicTacToe.py and lib/State.py of the user's; the course's modules must stay its own.
AFTER_THE_IMPORT = {
    "chdir": "os.chdir('sub')",
    "sys.path.insert": "sys.path.insert(0, 'lib')",
    "State.py written": "open('State.py', 'w').write(MINE); importlib.invalidate_caches()",
}
# Both ways a module meets the course's names; their classes are one (isinstance across works).
COURSE_NAMES_USED = """
from tictactoe_rl import State, TicTacToe
from State import State as PlainState
import TicTacToe as plain_game
after, reward = TicTacToe(PlainState()).next_state(State(), (0, 0))
print(sys.modules['State'].__file__, plain_game.__file__)
print(PlainState is State, plain_game.TicTacToe is TicTacToe, isinstance(after, PlainState))
"""


def users_folder(folder: Path) -> Path:
    """``folder`` with a ``TicTacToe.py`` in ``sub/`` and a ``State.py`` in ``lib/``, the user's."""
    for sub, name in (("sub", "TicTacToe"), ("lib", "State")):
        (folder / sub).mkdir(parents=True)
        (folder / sub / f"{name}.py").write_text("WHO = 'mine'\n")
    return folder


def course_names_after(change: str) -> str:
    """A program that imports the package, makes ``change``, then uses the course's names."""
    return (f"import importlib, os, sys, tictactoe_rl\nMINE = \"WHO = 'mine'\"\n{change}\n"
            + COURSE_NAMES_USED)


def without_display() -> dict[str, str]:
    return {name: value for name, value in os.environ.items()
            if name not in ("DISPLAY", "WAYLAND_DISPLAY", "PYTHONPATH")}


@pytest.mark.parametrize("change", AFTER_THE_IMPORT)
def test_after_the_import_the_course_modules_stay_the_courses(tmp_path, change):
    """A user's TicTacToe.py in a folder changed to, a user's State.py on a path entry inserted,
    a State.py written later: each is the user's own business, never loaded for the course."""
    done = subprocess.run([sys.executable, "-c", course_names_after(AFTER_THE_IMPORT[change])],
                          cwd=users_folder(tmp_path), capture_output=True, text=True, timeout=120,
                          env={**without_display(), "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(ROOT / "State.py"), str(ROOT / "TicTacToe.py"),
                                   "True", "True", "True"]


def test_in_the_clone_a_chdir_outside_it_keeps_the_course_modules(tmp_path):
    """Started in the clone (its folder on sys.path only as the current folder, ''), then an
    os.chdir out of it: the course's modules still load."""
    done = subprocess.run([sys.executable, "-c", course_names_after(f"os.chdir({str(tmp_path)!r})")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=without_display())
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(ROOT / "State.py"), str(ROOT / "TicTacToe.py"),
                                   "True", "True", "True"]


def test_a_users_check_module_is_never_in_the_way(tmp_path):
    """The self-check is a script no course file imports: a user's ``check`` simply wins."""
    (tmp_path / "check.py").write_text("WHO = 'mine'\n")
    done = run(tmp_path, f"import check; {USE}; import check as again; print(again.WHO)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "mine"


def test_importing_the_package_adds_no_top_level_name_but_the_courses(tmp_path):
    done = run(tmp_path, "import sys; before = set(sys.modules); " + USE +
               "; print(' '.join(sorted(name for name in set(sys.modules) - before "
               "if '.' not in name)))")
    assert done.returncode == 0, done.stderr
    course = {path.stem for path in ROOT.glob("*.py")}
    added = set(done.stdout.split())
    assert "tictactoe_rl" in added
    ours = {name for name in added if (ROOT / f"{name}.py").is_file()
            or (ROOT / name / "__init__.py").is_file()}
    assert ours - {"tictactoe_rl"} <= course and "State" in ours
    assert not added & (set(INSIDE) - course)


def test_the_docs_list_the_top_level_names_the_package_makes_importable():
    import tictactoe_rl

    text = (ROOT / "docs" / "ENVIRONMENTS.md").read_text(encoding="utf-8")
    start = re.search(r"`AI_Agent\s", text).start()
    listed = text[start + 1:text.index("`", start + 1)].split()
    # every one listed (the students' version lacks some of the solved repository's)
    assert set(tictactoe_rl.course_modules()) <= set(listed) and listed == sorted(listed)
    assert {path.stem for path in ROOT.glob("*.py")} - {"check"} <= \
        set(tictactoe_rl.COURSE_MODULES) <= set(listed)
