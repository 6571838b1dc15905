"""pip install the project into a fresh virtual environment, then use it from another folder.

The fresh environment sees this interpreter's packages through a .pth file (the dependencies are
already installed here), and pip runs without build isolation, so nothing is downloaded.
"""

import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIPPED_IN_THE_COPY = shutil.ignore_patterns(".venv", ".git", "build", "*.egg-info", "__pycache__",
                                             ".pytest_cache", ".hypothesis", "exercise")
# a file in the other folder, so that spawn workers re-import it (and with it tictactoe_rl)
USER_SCRIPT = '''
import sys
from functools import partial

import gymnasium as gym
import numpy as np
from gymnasium.vector import AsyncVectorEnv

import tictactoe_rl   # registers TicTacToe-v0 here and in every spawn worker (re-imported)


def main():
    env = gym.make("TicTacToe-v0", opponent="minimax")
    observation, info = env.reset(seed=0)
    print("mask", info["action_mask"].sum(), env.get_wrapper_attr("action_masks")().sum())
    vector = AsyncVectorEnv([partial(gym.make, "TicTacToe-v0")] * 2, context="spawn")
    observations, _ = vector.reset(seed=0)
    observations, *_ = vector.step(np.array([4, 4]))
    vector.close()
    print("spawn", observations[:, 4].tolist())
    print("course", tictactoe_rl.COURSE)
    print("version", tictactoe_rl.__version__)


if __name__ == "__main__":
    main()
'''


def fresh_venv(folder: Path) -> Path:
    """A new virtual environment without pip that sees this interpreter's packages; its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                              "['purelib'])"], capture_output=True, text=True, check=True)
    Path(purelib.stdout.strip(), "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def test_every_package_of_the_course_is_in_the_distribution():
    """A subpackage of tictactoe_rl that the pyproject's list leaves out is missing from
    ``pip install .``: its first import fails. Nothing else of the project is a package."""
    listed = re.findall(r'"(tictactoe_rl(?:\.\w+)?)"', (ROOT / "pyproject.toml").read_text())
    packages = {".".join(path.parent.relative_to(ROOT).parts)
                for path in (ROOT / "tictactoe_rl").rglob("__init__.py")}
    assert sorted(set(listed) - {"tictactoe_rl.course"}) == sorted(packages)
    assert [path.parent.name for path in ROOT.glob("*/__init__.py")] == ["tictactoe_rl"]


def test_a_shipped_table_resolves_here_first_then_to_the_installed_copy(tmp_path, monkeypatch,
                                                                         capsys):
    from tictactoe_rl.tables import shipped

    course = tmp_path / "site" / "tictactoe_rl" / "course"
    (course / "Data").mkdir(parents=True)
    (course / "Data" / "Q_MC_X.pth").write_bytes(b"installed")
    monkeypatch.setattr(shipped, "COURSE", str(course))
    monkeypatch.setattr(shipped, "INSTALLED", True)
    monkeypatch.chdir(tmp_path)
    assert shipped.resolve("Data/Q_MC_X.pth") == str(course / "Data" / "Q_MC_X.pth")
    assert capsys.readouterr().err == (f"Data/Q_MC_X.pth: not in this folder; using the "
                                       f"installed copy {course / 'Data' / 'Q_MC_X.pth'}\n")
    for missing in ("Data/Q_MC_O.pth", "../outside.pth", str(tmp_path / "Data" / "Q_MC_X.pth")):
        assert shipped.resolve(missing) == missing         # its own error follows
    (tmp_path / "Data").mkdir()
    (tmp_path / "Data" / "Q_MC_X.pth").write_bytes(b"mine")
    assert shipped.resolve("Data/Q_MC_X.pth") == "Data/Q_MC_X.pth"      # here first
    monkeypatch.setattr(shipped, "INSTALLED", False)
    (tmp_path / "Data" / "Q_MC_X.pth").unlink()
    assert shipped.resolve("Data/Q_MC_X.pth") == "Data/Q_MC_X.pth"      # a clone: as given
    assert capsys.readouterr().err == ""


def install(folder: Path, editable: bool) -> tuple[Path, Path]:
    """A copy of the clone pip-installed into a fresh virtual environment in ``folder``; its
    python and the copy."""
    source = folder / "clone"
    shutil.copytree(ROOT, source, ignore=SKIPPED_IN_THE_COPY)
    python = fresh_venv(folder / "venv")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
         "--no-build-isolation", "--no-index", "--quiet", *(["-e"] if editable else []),
         str(source)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return python, source


@pytest.fixture(scope="module")
def installs(tmp_path_factory):
    """``installs(editable)``: one install of each kind for the whole module (each takes tens of
    seconds), shared by the tests, which use it from folders of their own."""
    made = {}

    def get(editable: bool) -> tuple[Path, Path]:
        if editable not in made:
            made[editable] = install(tmp_path_factory.mktemp("install"), editable)
        return made[editable]
    return get


def installed(installs, tmp_path: Path, editable: bool) -> tuple[Path, Path, Path]:
    """The shared install of that kind: its python, the copy it was made from, and an empty
    folder elsewhere to use it from."""
    python, source = installs(editable)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return python, source, elsewhere


def run_in(folder: Path, *command) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
@pytest.mark.parametrize("editable", [False, True], ids=["pip install .", "pip install -e ."])
def test_pip_install_then_gym_make_from_another_folder(installs, tmp_path, editable):
    pytest.importorskip("gymnasium", reason="gymnasium: the optional extras are not installed "
                        "(pip install -r requirements-extra.txt)")
    python, source, elsewhere = installed(installs, tmp_path, editable)
    (elsewhere / "user.py").write_text(USER_SCRIPT)

    def run(*command):
        return run_in(elsewhere, *command)

    # no generic module name is installed at the top level
    bare = run(str(python), "-c", "import State")
    assert bare.returncode != 0 and "No module named 'State'" in bare.stderr
    used = run(str(python), "user.py")
    assert used.returncode == 0, used.stderr
    report = dict(line.split(" ", 1) for line in used.stdout.splitlines())
    assert report["mask"] == "9 9" and report["spawn"] == "[1, 1]"
    course = Path(report["course"])
    assert course == source if editable else course.parent.name == "tictactoe_rl"
    for table in ("Q_MC_X.pth", "Q_MC_O.pth", "Q_ADV_X_4x4k4.pth", "Q_ADV_O_4x4k4.pth"):
        assert (course / "Data" / table).is_file(), table
    # the console commands run the course's scripts; the version is the metadata's
    version = run(str(python), "-c", "from importlib import metadata; "
                  "print(metadata.version('tictactoe-rl-course'))").stdout.strip()
    assert report["version"] == version
    measured = run(str(python.parent / "tictactoe-measure"), "--o", "random", "--exact")
    assert measured.returncode == 0, measured.stderr
    assert measured.stdout.splitlines()[-1].split()[:2] == ["as", "X"]
    # the shipped tables by the README's names, from a folder that has none: the installed copy
    # (an editable install is the clone: its paths are the clone's, as there)
    shipped = run(str(python.parent / "tictactoe-measure"), "--x", "Data/Q_MC_X.pth", "--o",
                  "random", "--exact")
    assert (shipped.returncode == 0) != editable, shipped.stderr
    assert editable or "Data/Q_MC_X.pth: not in this folder; using the installed copy " in shipped.stderr
    for command in ("tictactoe-play", "tictactoe-train", "tictactoe-train-q",
                    "tictactoe-train-sarsa", "tictactoe-train-dqn", "tictactoe-measure"):
        assert run(str(python.parent / command), "--version").stdout.strip() == \
            f"{command} {version}"
    # PEP 561's marker, installed from the wheel (an editable install is the clone's package)
    package = source / "tictactoe_rl" if editable else course.parent
    assert (package / "py.typed").is_file()
    # the package's own names are not the top level's: a user's package envs stays the user's, either
    # order; one named like a course module is named in one error, either order
    (elsewhere / "envs").mkdir()
    (elsewhere / "envs" / "__init__.py").write_text("WHO = 'mine'\n")
    for code in ("import envs, tictactoe_rl", "import tictactoe_rl, envs"):
        mine = run(str(python), "-c", code + "; tictactoe_rl.make_agent; print(envs.WHO)")
        assert mine.stdout.strip() == "mine", mine.stderr
    (elsewhere / "State.py").write_text("")
    for code in ("import State, tictactoe_rl", "import tictactoe_rl, State"):
        clash = run(str(python), "-c", code)
        assert clash.returncode == 1
        assert clash.stderr.splitlines()[-1].startswith("ImportError: tictactoe_rl: the course's "
                                                        "modules keep their flat names")
        assert "State (" in clash.stderr.splitlines()[-1]


@pytest.mark.slow
@pytest.mark.solved_only      # the students' version trains with the student's own main
def test_a_table_trained_from_the_installed_package_lands_in_the_users_folder(installs,
                                                                                tmp_path):
    """Not in site-packages, and the hints name the installed commands."""
    python, _, elsewhere = installed(installs, tmp_path, editable=False)
    trained = run_in(elsewhere, str(python.parent / "tictactoe-train"), "--epochs", "300",
                     "--seed", "1")
    assert trained.returncode == 0, trained.stderr
    assert "Saved the table to my_Q_MC_X.pth" in trained.stdout
    assert (elsewhere / "my_Q_MC_X.pth").is_file()
    assert "python Tester.py" not in trained.stdout
    assert "unbeatable: no sequence" in trained.stdout or \
        "tictactoe-measure --worst-case my_Q_MC_X.pth" in trained.stdout


@pytest.mark.slow
def test_installed_the_course_modules_load_from_the_package_whatever_the_folder_and_path(
        installs, tmp_path):
    """From a wheel, in a folder of the user's, without a display: after the import a chdir into
    a folder with a TicTacToe.py, a path entry with a State.py, a State.py written, or a chdir
    anywhere else, the course's modules are the package's own, one module by either name."""
    from tests.test_names import AFTER_THE_IMPORT, course_names_after, users_folder, \
        without_display

    python, _, elsewhere = installed(installs, tmp_path, editable=False)
    course = Path(run_in(elsewhere, str(python), "-c",
                         "import tictactoe_rl; print(tictactoe_rl.COURSE)").stdout.strip())
    assert course.parent.name == "tictactoe_rl" and course.parent.parent.name == "site-packages"
    changes = [*AFTER_THE_IMPORT.values(), f"os.chdir({str(tmp_path)!r})"]
    for number, change in enumerate(changes):
        done = subprocess.run([str(python), "-c", course_names_after(change)],
                              cwd=users_folder(elsewhere / str(number)), env=without_display(),
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{change}: {done.stderr}"
        assert done.stdout.split() == [str(course / "State.py"), str(course / "TicTacToe.py"),
                                       "True", "True", "True"], change


@pytest.mark.slow
def test_the_version_is_one_value_everywhere():
    """cli.VERSION is what --version prints and what pyproject.toml gives the package (the
    installed metadata is compared in test_pip_install_then_gym_make_from_another_folder)."""
    import tomllib

    from tictactoe_rl import cli

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"]["attr"] == \
        "tictactoe_rl.cli.VERSION"
    for script in ("MC_Trainer.py", "Tester.py", "Q_Trainer.py"):
        shown = subprocess.run([sys.executable, script, "--version"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout
        assert shown.strip() == f"{script} {cli.VERSION}"


def test_every_extra_is_listed_in_the_readme_and_the_docs_with_torchs_cpu_index():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    docs = (ROOT / "docs" / "ENVIRONMENTS.md").read_text(encoding="utf-8")
    teachers = (ROOT / "tools" / "exercise").is_dir()   # the students' README is the exercise's
    for name in extras:
        assert f"`{name}`" in docs and (f"`{name}`" in readme or not teachers), name
    assert 'pip install ".[sb3]" --extra-index-url https://download.pytorch.org/whl/cpu' in docs


# --- the Makefile: which torch, and the notebook's front end --------------------------------------

def make_dry_run(*arguments):
    """The commands ``make -n`` would run (as if requirements*.txt had changed)."""
    # --no-print-directory: under `make test` the inner make would add "Leaving directory" lines
    return subprocess.run(["make", "-n", "--no-print-directory", "-W", "requirements.txt",
                           "-W", "requirements-extra.txt", *arguments], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout.splitlines()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the CUDA build is Linux's")
def test_without_an_nvidia_gpu_make_asks_for_the_cpu_torch_first():
    pin = next(line for line in (ROOT / "requirements.txt").read_text().splitlines()
               if line.startswith("torch=="))
    cpu_first = [line for line in make_dry_run("venv", "NVIDIA_GPU=") if "whl/cpu" in line]
    assert len(cpu_first) == 1 and f'"{pin}"' in cpu_first[0]
    assert "|| echo" in cpu_first[0]   # an index that cannot be reached falls back to the pin
    assert not [line for line in make_dry_run("venv", "NVIDIA_GPU=yes") if "whl/cpu" in line]
    assert [line for line in make_dry_run("venv", "NVIDIA_GPU=yes", "TORCH=cpu")
            if "whl/cpu" in line]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the CUDA build is Linux's")
def test_make_extras_asks_no_other_index_and_play_and_test_need_no_extras():
    """The extras keep the torch make venv installed (a constraint) and ask PyPI alone: an index
    beside it that cannot be reached would be retried for every package."""
    def installs(target, *arguments):
        return [line for line in make_dry_run(target, *arguments) if "pip install" in line]

    for arguments in (["NVIDIA_GPU="], ["NVIDIA_GPU=yes"], ["NVIDIA_GPU=yes", "TORCH=cpu"]):
        extras = [line for line in installs("extras", *arguments) if "requirements-extra" in line]
        assert len(extras) == 1 and extras[0].endswith("--constraint requirements.txt")
        assert "index-url" not in extras[0]
    for target in ("play", "test"):
        lines = installs(target, "NVIDIA_GPU=")
        # the CPU torch comes first, so requirements.txt finds its pin met; no extras at all
        torch = next(index for index, line in enumerate(lines) if "torch==" in line)
        assert "--index-url https://download.pytorch.org/whl/cpu" in lines[torch]
        assert torch < next(index for index, line in enumerate(lines)
                            if "-r requirements.txt" in line)
        assert not [line for line in lines if "requirements-extra" in line]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_notebook_installs_the_extras_then_opens_jupyterlab_on_the_notebooks():
    assert any(line.startswith("pip") or "requirements-extra.txt" in line
               for line in make_dry_run("notebook"))
    command = make_dry_run("notebook")[-1].split()
    assert command == [".venv/bin/python", "-m", "jupyter", "lab", "notebooks/"]


@pytest.mark.slow      # starts JupyterLab; the dry run above is the quick suite's
def test_the_jupyterlab_the_notebook_opens_is_the_pinned_one():
    jupyter = Path(sys.executable).parent / "jupyter"
    if not jupyter.is_file():
        pytest.skip("JupyterLab: the optional extras are not installed (make extras)")
    version = subprocess.run([str(jupyter), "lab", "--version"], capture_output=True, text=True,
                             timeout=120)
    assert version.returncode == 0 and version.stdout.strip()[0].isdigit(), version.stderr
    extras = (ROOT / "requirements-extra.txt").read_text()
    assert f"jupyterlab=={version.stdout.strip()}" in extras.splitlines()


def test_the_dqn_command_without_torch_says_which_extra_to_install(monkeypatch, capsys):
    from tictactoe_rl import commands
    monkeypatch.setattr(commands.importlib.util, "find_spec",
                        lambda name: None if name == "torch" else object())
    with pytest.raises(SystemExit) as stopped:
        commands.train_dqn()
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "tictactoe-rl-course[dqn]" in error


@pytest.mark.slow     # builds the sdist (about half a minute on a busy machine)
def test_the_sdist_holds_what_its_own_test_suite_needs(tmp_path):
    """Everything git tracks (the tests, their data and fixtures, pytest.ini, the docs they
    read), so that ``python -m pytest`` runs in the unpacked folder."""
    import tarfile

    built = subprocess.run(
        [sys.executable, "-c", "import sys, setuptools.build_meta as b; "
         "print(b.build_sdist(sys.argv[1]))", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    shutil.rmtree(ROOT / "tictactoe_rl_course.egg-info", ignore_errors=True)
    with tarfile.open(tmp_path / built.stdout.split()[-1]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git clone: nothing to compare the sdist with")
    wanted = set(tracked.stdout.split()) - {".gitignore"}
    assert wanted - names == set()
    assert {"tests/conftest.py", "pytest.ini", "LICENSE", "tests/data/table_fingerprints.txt"} \
        <= names
