"""A hand-in as the grader holds it (``Submission``), and the limits on reading one: what both
readers of hand-ins, folders (``submissions.py``) and zips (``zips.py``), fill and obey."""

from __future__ import annotations

from dataclasses import dataclass, field

from tictactoe_rl.selfcheck.shadow import shadowing

# A student's source file is a few kilobytes; anything this large is not one.
MAX_FILE_BYTES = 1 * 2**20
MAX_MEMBERS = 20_000
# The files that decide a verdict, here and in GitHub Classroom: compared with the issued ones.
CHECK_FILES = ("check.py", "tictactoe_rl/selfcheck/", ".github/")
MAX_CHECK_FILES = 200         # files looked at under a hand-in's tictactoe_rl/selfcheck/ and .github/
NOTED_NAMES = 3          # a note lists at most this many refused names
# Files that Python runs by itself when they lie beside check.py (or that shadow its modules): a
# hand-in has no reason to add one, so one is flagged like a changed check file (a ``.pth`` too).
STARTUP_FILES = ("sitecustomize.py", "usercustomize.py", "selfcheck.py")
# The grader's own files: never taken from a submission, whatever they hold.
TRUSTED = ("check.py", "tictactoe_rl/selfcheck/", "tools/", "tests/", "tictactoe_rl/exact/")
# The student's own modules (a helper that MC_Trainer.py imports): Python files the students'
# version does not have, at most this many, outside hidden folders, caches and environments.
MAX_OWN_FILES = 40
NOT_OWN_PARTS = ("__pycache__", "site-packages", "venv", "node_modules", "__MACOSX")


@dataclass
class Submission:
    """One student's work: a name for the report, where it came from, the editable files and
    the student's own modules found (relative path -> bytes) and notes for the report's row."""
    name: str
    origin: str
    files: dict[str, bytes] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    refused: str = ""            # why nothing of it can be graded, or ""
    checks: dict[str, bytes] = field(default_factory=dict)     # its check files, as found
    untouched: dict[int, str] = field(default_factory=dict)    # piece -> a stub left as issued
    # The folders that hold it, by the name given and by what that name resolves to (a link's
    # target, a linked folder on the way): every box covers them, so that no hand-in reads
    # another through the folder a link points to. Empty when it was refused for its kind.
    folders: tuple[str, ...] = ()


def is_check_file(name: str) -> bool:
    """Whether the hand-in's file ``name`` (a relative path) is one that decides a verdict."""
    return (name == CHECK_FILES[0] or name.startswith(CHECK_FILES[1:]) or name in STARTUP_FILES
            or ("/" not in name and name.endswith(".pth")) or bool(shadowing_name(name)))


def shadowing_name(name: str) -> str:
    """The module that the hand-in's file ``name`` would be imported as in place of one Python
    or the check needs (``json.py``, ``random/__init__.py``: ``tictactoe_rl.selfcheck.shadow``), or ""."""
    top = name[:-len("/__init__.py")] + "/" if name.count("/") == 1 and name.endswith(
        "/__init__.py") else name
    found = shadowing([top]) if "/" not in top.rstrip("/") else []
    return found[0].rstrip("/").split(".")[0] if found else ""


def is_own_file(name: str, issued: dict[str, bytes]) -> bool:
    """Whether the hand-in's file ``name`` is a module of the student's own, which the box gets
    beside the editable files: a Python file that is not one of the students' version
    (``issued``), nor a check file, nor under the grader's own folders."""
    parts = name.split("/")
    return (name.endswith(".py") and name not in issued and not is_check_file(name)
            and not name.startswith((*TRUSTED, "tictactoe_rl/"))
            and not any(part.startswith(".") or part in NOT_OWN_PARTS for part in parts))
