"""GitHub Classroom in the students' version: the workflow grades with the self-check as issued,
whatever a hand-in changed, and the manifest lists what was issued for the class grader.

The workflow's restore step is run for real here, with git, on a students' version made into a
repository as Classroom makes it (one first commit), after a student's commits.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools.exercise import classroom
# the project's own reader of the workflow's YAML: the Classroom tests need no YAML package, so
# they run in the quick suite wherever the core requirements are installed
from tests.test_exercise import read_yaml

RESTORE_STEP = "Put back the self-check as issued"
ALWAYS_PASSES = "import sys\nsys.exit(0)\n"


@pytest.fixture(scope="module")
def students(students_copy) -> Path:
    return students_copy


def git(folder: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=student", "-c", "user.email=s@example.org",
                           "-c", "init.defaultBranch=main", *args], cwd=folder,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def repository(students: Path, folder: Path) -> Path:
    """The students' version as Classroom hands it out: a repository with one first commit."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    shutil.copytree(students, folder)
    git(folder, "init", "-q")
    git(folder, "add", "-A")
    git(folder, "commit", "-qm", "The assignment")
    return folder


def restore_script(folder: Path) -> str:
    """The shell commands of the workflow's restore step, as the workflow states them."""
    workflow = read_yaml((folder / classroom.WORKFLOW).read_text(encoding="utf-8"))
    (job,) = workflow["jobs"].values()
    return next(step["run"] for step in job["steps"] if step.get("name") == RESTORE_STEP)


def run_restore(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-e", "-c", restore_script(folder)], cwd=folder,
                          capture_output=True, text=True, timeout=120)


def test_an_edited_check_and_an_added_module_are_undone_before_grading(students, tmp_path):
    folder = repository(students, tmp_path / "repo")
    issued = (folder / "check.py").read_bytes()
    (folder / "check.py").write_text(ALWAYS_PASSES, encoding="utf-8")
    (folder / "tictactoe_rl" / "selfcheck" / "run.py").write_text("", encoding="utf-8")
    (folder / "json.py").write_text("raise SystemExit(0)\n", encoding="utf-8")   # shadows json
    with open(folder / "AI_Agent.py", "a", encoding="utf-8") as agent:
        agent.write("\n# the student's own work\n")
    git(folder, "add", "-A")
    git(folder, "commit", "-qm", "My pieces")
    done = run_restore(folder)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (folder / "check.py").read_bytes() == issued
    run = Path("tictactoe_rl", "selfcheck", "run.py")
    assert (folder / run).read_bytes() == (students / run).read_bytes()
    assert not (folder / "json.py").exists()
    assert (folder / "AI_Agent.py").read_text(encoding="utf-8").endswith(
        "# the student's own work\n")
    graded = subprocess.run([sys.executable, "check.py", "--piece", "1"], cwd=folder,
                            capture_output=True, text=True, timeout=120)
    assert graded.returncode == 1 and "not written yet" in graded.stdout


@pytest.mark.slow
def test_a_rewritten_first_commit_fails_the_hash_check(students, tmp_path):
    """A student who rewrites history so that the first commit holds an edited check.py: the
    restore brings back that check.py, and the hashes written into the workflow refuse it."""
    folder = tmp_path / "forged"
    shutil.copytree(students, folder)
    (folder / "check.py").write_text(ALWAYS_PASSES, encoding="utf-8")
    repository_folder = repository(folder, tmp_path / "repo")
    done = run_restore(repository_folder)
    assert done.returncode != 0
    assert "check.py: FAILED" in done.stdout + done.stderr


def test_the_manifest_lists_the_issued_files_with_their_hashes(students):
    manifest = json.loads((students / classroom.MANIFEST).read_text(encoding="utf-8"))
    assert manifest["format"] == 1 and manifest["algorithm"] == "sha256"
    assert manifest["student_files"] == list(classroom.STUDENT_FILES)
    files = {path.relative_to(students).as_posix() for path in students.rglob("*")
             if path.is_file()}
    listed = set(manifest["check_files"]) | set(manifest["workflow"]) | \
        set(manifest["student_files"]) | {classroom.MANIFEST}
    assert listed == files
    assert {"check.py", "tictactoe_rl/selfcheck/run.py", "tictactoe_rl/selfcheck/pieces.py", "Data/Q_MC_X.pth",
            "Data/Q_MC_O.pth"} <= set(manifest["check_files"])
    assert set(manifest["workflow"]) == {classroom.WORKFLOW, classroom.AUTOGRADING}
    for name, digest in {**manifest["check_files"], **manifest["workflow"]}.items():
        assert hashlib.sha256((students / name).read_bytes()).hexdigest() == digest, name
    workflow = (students / classroom.WORKFLOW).read_text(encoding="utf-8")
    for name, digest in manifest["check_files"].items():
        assert f"{digest}  {name}\n" in workflow, name


def test_tampered_names_each_changed_check_file_and_workflow(students, tmp_path):
    manifest = json.loads((students / classroom.MANIFEST).read_text(encoding="utf-8"))
    folder = tmp_path / "hand-in"
    shutil.copytree(students, folder)
    assert classroom.tampered(folder, manifest) == []
    (folder / "AI_Agent.py").write_text("# mine\n", encoding="utf-8")     # the student's own
    assert classroom.tampered(folder, manifest) == []
    (folder / "check.py").write_text(ALWAYS_PASSES, encoding="utf-8")
    (folder / classroom.WORKFLOW).write_text("name: nothing\n", encoding="utf-8")
    (folder / "Data" / "Q_MC_X.pth").unlink()
    assert classroom.tampered(folder, manifest) == sorted(
        ["check.py", classroom.WORKFLOW, "Data/Q_MC_X.pth"])


# A tictactoe_rl/selfcheck/run.py that says "passed" for any piece, the way the real one reports.
FORGED_RUN = '''
import json, os, sys
os.write(int(sys.argv[sys.argv.index("--result-fd") + 1]),
         json.dumps({"verdict": "passed", "message": "forged"}).encode())
os._exit(0)
'''


def planted_bytecode(folder: Path) -> Path:
    """``selfcheck/__pycache__/run.cpython-3X.pyc`` compiled from ``FORGED_RUN`` with an
    unchecked hash: Python runs it in place of run.py without looking at run.py."""
    import importlib.util
    import py_compile

    source = folder / "forged_run.py"
    source.write_text(FORGED_RUN, encoding="utf-8")
    target = Path(importlib.util.cache_from_source(str(folder / "tictactoe_rl" / "selfcheck" / "run.py")))
    py_compile.compile(str(source), cfile=str(target), doraise=True,
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    source.unlink()
    return target


@pytest.mark.slow
def test_committed_bytecode_and_startup_files_are_removed_before_grading(students, tmp_path):
    folder = repository(students, tmp_path / "repo")
    pyc = planted_bytecode(folder)
    startup = {"sitecustomize.py": "import os\nos._exit(0)\n", "usercustomize.py": "x = 1\n",
               "zz-planted.pth": "import os; os._exit(0)\n"}
    for name, text in startup.items():
        (folder / name).write_text(text, encoding="utf-8")
    forged = subprocess.run([sys.executable, "check.py", "--piece", "1"], cwd=folder,
                            capture_output=True, text=True, timeout=120)
    assert "forged" in forged.stdout          # the planted bytecode does forge the verdict
    git(folder, "add", "-A", "-f")
    git(folder, "commit", "-qm", "My pieces")
    done = run_restore(folder)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not pyc.exists() and not pyc.parent.exists()
    assert [name for name in startup if (folder / name).exists()] == []
    graded = subprocess.run([sys.executable, "check.py", "--piece", "1"], cwd=folder,
                            capture_output=True, text=True, timeout=120)
    assert graded.returncode == 1 and "not written yet" in graded.stdout, graded.stdout


def test_each_piece_puts_back_what_an_earlier_piece_rewrote(students, tmp_path):
    """In Classroom a piece's code may rewrite the check's files on disk: the next piece's
    setup (autograding.json) puts them back and removes what it made."""
    folder = repository(students, tmp_path / "repo")
    (folder / "AI_Agent.py").write_text("# the student's own\n", encoding="utf-8")
    git(folder, "commit", "-qam", "My pieces")
    assert run_restore(folder).returncode == 0
    issued = (folder / "tictactoe_rl" / "selfcheck" / "piece_main.py").read_bytes()
    (folder / "tictactoe_rl" / "selfcheck" / "piece_main.py").write_text("# forged\n", encoding="utf-8")
    planted_bytecode(folder)
    (folder / "sitecustomize.py").write_text("x = 1\n", encoding="utf-8")
    tests = json.loads((folder / classroom.AUTOGRADING).read_text(encoding="utf-8"))["tests"]
    setup = subprocess.run(["bash", "-e", "-c", tests[2]["setup"]], cwd=folder,
                           capture_output=True, text=True, timeout=120)
    assert setup.returncode == 0, setup.stderr
    assert (folder / "tictactoe_rl" / "selfcheck" / "piece_main.py").read_bytes() == issued
    assert not (folder / "tictactoe_rl" / "selfcheck" / "__pycache__").exists()
    assert not (folder / "sitecustomize.py").exists()
    assert (folder / "AI_Agent.py").read_text(encoding="utf-8") == "# the student's own\n"


def test_the_workflow_reads_and_writes_no_bytecode_in_the_repository(students):
    workflow = read_yaml((students / classroom.WORKFLOW).read_text(encoding="utf-8"))
    assert workflow["env"]["PYTHONDONTWRITEBYTECODE"] == "1"
    assert not workflow["env"]["PYTHONPYCACHEPREFIX"].startswith(".")
