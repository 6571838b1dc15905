"""The exercise: the students' version generated from the solved code, and its self-check.

The students' version is generated once (into a temporary folder) and then held to the issue:
complete and runnable, every stub states its contract in a few lines and raises its message,
nothing of a solution is left, the hints come one at a time, Classroom's autograding is there and
runs, its tests skip what needs a missing piece, and every command its README shows works. The
chapter's solution, typed into the stubs exactly as the chapter prints it (read from the
chapter's listings beside the project; the tests that need it skip without them), passes the
self-check and the students' own test suite, quietly. Plausible wrong answers (small changes to
the chapter's text) are rejected with a hint.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tictactoe_rl.selfcheck.hints import HINTS, HINTS_FILE, next_hint
from tictactoe_rl.selfcheck.pieces import PIECES
from tools.course.chapter_code import ListingMissing, listing, type_in_solution
from tools.exercise import classroom, stubs
from tools.exercise import make as make_exercise
from tools.exercise import students as exercise_students
from tools.exercise.contracts import INSTRUCTIONS
from tools.exercise.withheld import WITHHELD

pytestmark = pytest.mark.slow   # generates the exercise and runs its commands: minutes

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 180
UNUSED_TRAINERS = make_exercise.unused_trainers(ROOT)   # the trainers the exercise does not use
SUITE_TIMEOUT = 900          # the students' whole test suite
REQUIRED = [piece.number for piece in PIECES if piece.required]
STUB_LINES = 10              # the most comment lines a stub may have (heading and both languages)
QUIET_LINES = 150            # the most lines the students' test suite may print on the chapter's
QUIET_CHARS = 30_000         # solution, and the most characters
HEBREW = re.compile(r"[\u0590-\u05ff]")

EPSILON, GENERATE, MAIN = ("AI_Agent.epsilon_greedy", "MC_Trainer.Generate_episode",
                           "MC_Trainer.main")
# How to reach each stub from outside: the call that must raise its NotImplementedError.
STUB_CALLS = {
    EPSILON: "import AI_Agent; AI_Agent.AI_Agent(1).epsilon_greedy(0)",
    GENERATE: "import MC_Trainer; MC_Trainer.Generate_episode(MC_Trainer.player1, 0)",
    MAIN: "import MC_Trainer; MC_Trainer.main()",
    "Episode.learning_steps": "import Episode, State; "
                              "Episode.learning_steps([], 1)",
    "SARSA_Trainer.update": "import SARSA_Trainer, State; "
                            "SARSA_Trainer.update({}, [], State.State(), 1, 0.9, 0.1)",
    "Q_Trainer.update": "import Q_Trainer, State; "
                        "Q_Trainer.update({}, [], State.State(), 1, 0.9, 0.1)",
    "NimAI.get_q_value": "from nim.nim import NimAI; NimAI().get_q_value([1, 3], (0, 1))",
    "NimAI.update_q_value": "from nim.nim import NimAI; "
                            "NimAI().update_q_value([1], (0, 1), 0, 0, 0)",
    "NimAI.best_future_reward": "from nim.nim import NimAI; NimAI().best_future_reward([1, 3])",
    "NimAI.choose_action": "from nim.nim import NimAI; NimAI().choose_action([1, 3])",
}
# Body lines so generic that they may appear anywhere (the solution-text search skips them).
GENERIC_LINES = {"else:", "try:", "break", "continue", "pass", "return", ")", "]", "}", "})",
                 "return True", "return False", "return None", "if finished:", "return finished"}
# Solution text that other code contains for a reason of its own, and why that gives nothing away.
ALLOWED_ELSEWHERE = {
    "moves, final = play_game(x_agent, o_agent, env, epoch=epoch)":
        "playing a game is the trainers' shared plumbing (Episode.play_game, tictactoe_rl.training.loop); "
        "piece 2 is the episode format, and Episode.learning_steps, which makes it, is a stub "
        "(piece 5)",
    "def learn(epoch: int) -> State:":
        "the shape of the callback that tictactoe_rl.training.loop.train_loop runs for every trainer",
}


def run(args: list[str], cwd: Path, timeout: float = TIMEOUT,
        stdin: str = "") -> subprocess.CompletedProcess:
    environment = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
                   "PYTHONIOENCODING": "utf-8", "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(args if args[0] in (sys.executable, "bash") else [sys.executable, *args],
                          cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=environment, input=stdin)


def piece_lines(output: str) -> dict[int, str]:
    return {int(m[1]): m[0] for m in re.finditer(r"^piece (\d+) -- .*$", output, re.M)}


def passed(line: str) -> bool:
    """A piece line of the self-check that says the piece passed (perhaps with how, after it)."""
    return re.search(r": passed( \(.*\))?$", line) is not None


# The self-check's line on the agent it trained with the student's main.
TRAINED = re.compile(r"^Your ([XO]) after [\d,]+ .*?episodes .*?wins ([\d.]+)%", re.M)


# --- typing the chapter's solution into the stubs, as a student does ----------------------------

def chapter(name: str) -> str:
    """One of the chapter's listings, exactly as printed; skips the test without them."""
    try:
        return listing(name)
    except ListingMissing as missing:
        pytest.skip(str(missing))


def replace_function(path: Path, name: str, source: str, in_class: str | None = None) -> None:
    """Put ``source`` (a whole ``def``, as typed, with its own indentation) in place of the
    function ``name`` of ``path`` (a method of ``in_class``): its heading, docstring and body."""
    text = path.read_text(encoding="utf-8")
    body = ast.parse(text).body
    if in_class:
        body = next(node.body for node in body
                    if isinstance(node, ast.ClassDef) and node.name == in_class)
    node = next(node for node in body if isinstance(node, ast.FunctionDef) and node.name == name)
    first = (node.decorator_list[0] if node.decorator_list else node).lineno - 1
    lines = text.splitlines(keepends=True)
    lines[first:node.end_lineno] = [source.rstrip("\n") + "\n"]
    path.write_text("".join(lines), encoding="utf-8")


def methods(text: str) -> dict[str, str]:
    """The methods of a listing of indented methods (``solution_AI_Agent_methods.py``) by name."""
    parts = re.split(r"^(?=    def )", text, flags=re.M)
    return {re.match(r"    def (\w+)", part)[1]: part for part in parts if part.strip()}


def solution_main() -> tuple[str, str]:
    """The chapter's solution of ``main``: its module header lines, and the function."""
    header, _, function = chapter("solution_main.py").partition("def main")
    return header, "def main" + function


def type_in_chapter(repo: Path, main: str | None = None, generate: str | None = None,
                    agent_methods: dict[str, str] | None = None) -> Path:
    """The chapter's solution typed into the students' version ``repo``, exactly as printed
    (``tools/course/chapter_code.type_in_solution``: the header lines, ``main``,
    ``Generate_episode``, ``get_Q`` and ``epsilon_greedy``). The keywords put other texts in the
    place of the solution's (the wrong answers below); skips the test without the listings."""
    try:
        type_in_solution(repo, main=main, generate=generate,
                         epsilon=(agent_methods or {}).get("epsilon_greedy"))
    except ListingMissing as missing:
        pytest.skip(str(missing))
    return repo


def chapter_variant(name: str, old: str, new: str, count: int = 1) -> str:
    """A listing with ``old`` changed to ``new`` (which must be there ``count`` times)."""
    text = chapter(name)
    assert text.count(old) == count, f"{name}: {old!r} is not there {count} time(s)"
    return text.replace(old, new)


def both_sides_generate() -> str:
    """The chapter's Generate_episode as a student extends it for an O learner (piece 4)."""
    text = chapter_variant("solution_Generate_episode.py", "    state = State()\n",
                           "    state = State()\n    if player.player == -1:\n        state, _ = "
                           "env.next_state(state, player2.get_action(state=state))\n")
    return text.replace("player1.get_action", "player.get_action")


def both_sides_main() -> str:
    """The chapter's main with the rewards turned into the learner's own (piece 4)."""
    _, function = solution_main()
    assert function.count("G = gamma* G + reward") == 1
    return function.replace("G = gamma* G + reward", "G = gamma* G + player.player * reward")


def wrong_answer(mistake: str) -> tuple[int, dict, str]:
    """A plausible wrong answer: (its piece, type_in_chapter's keywords, what the hint says)."""
    if mistake == "epsilon that never decays":
        method = methods(chapter_variant("solution_AI_Agent_methods.py",
                                         "return  start - (start - final) * epoch/decay",
                                         "return start"))["epsilon_greedy"]
        return 1, {"agent_methods": {"epsilon_greedy": method}}, "epsilon should fall"
    if mistake == "episode with the position after the move":
        text = chapter_variant("solution_Generate_episode.py", "step = state.copy(), action,",
                               "step = after_state, action,", count=2)
        return 2, {"generate": text}, "must be a copy of the position before your move"
    if mistake == "a hard-coded episode":
        text = ("def Generate_episode (player, epoch):\n"
                "    return [(State(), (1, 1), 0), (State(),)]\n")
        return 2, {"generate": text}, "the learner was never asked for its move"
    if mistake == "returns summed forwards":
        _, function = solution_main()
        assert function.count("episode.pop() # LIFO") == 1
        return 3, {"main": function.replace("episode.pop() # LIFO", "episode.pop(0) # LIFO")}, \
            "walk the episode backwards"
    assert mistake == "an update with the wrong sign for O"
    return 4, {"generate": both_sides_generate()}, "negate the rewards"


WRONG_ANSWERS = ("epsilon that never decays", "episode with the position after the move",
                 "a hard-coded episode", "returns summed forwards",
                 "an update with the wrong sign for O")


# --- the repositories the tests look at ---------------------------------------------------------

def copy_of(repo: Path, folder: Path) -> Path:
    shutil.copytree(repo, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


@pytest.fixture(scope="module")
def exercise(students_copy) -> Path:
    """The students' version, as make exercise writes it."""
    return students_copy


@pytest.fixture(scope="module")
def chapter_repo(exercise, tmp_path_factory) -> Path:
    """The students' version with the chapter's solution typed into pieces 1-3."""
    return type_in_chapter(copy_of(exercise, tmp_path_factory.mktemp("chapter") / "repo"))


@pytest.fixture(scope="module")
def solved_repo(exercise, tmp_path_factory) -> Path:
    """Solved, then generated: the students' version with every file that has a stub, and every
    solved module it leaves out, put back as the solved repository has it (all five pieces
    written, the students' README, conftest and .github around them)."""
    repo = copy_of(exercise, tmp_path_factory.mktemp("solved") / "repo")
    for name in [*solution_regions(), *WITHHELD]:
        shutil.copy2(ROOT / name, repo / name)
    return repo


def solution_regions() -> dict[str, list[tuple[stubs.Region, list[str]]]]:
    """Every marked solution of the solved repository with its lines, by file."""
    found = {}
    for name in make_exercise.tracked_files(ROOT):
        if name.endswith(".py") and not make_exercise.teachers_only(name, UNUSED_TRAINERS):
            text = (ROOT / name).read_text(encoding="utf-8")
            lines = text.splitlines()
            regions = stubs.find_regions(name, text)
            if regions:
                found[name] = [(r, lines[r.begin:r.end - 1]) for r in regions]
    return found


def stub_blocks(repo: Path) -> dict[str, list[str]]:
    """Each stub's comment lines in ``repo``, by the function it names."""
    blocks = {}
    for path in repo.rglob("*.py"):
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            heading = re.match(r"\s*# Exercise piece \d+: write ([\w.]+) ", line)
            if heading:
                end = next(i for i in range(number, len(lines))
                           if lines[i].strip().startswith("raise NotImplementedError("))
                blocks[heading[1]] = lines[number:end]
    return blocks


# --- generating -----------------------------------------------------------------------------

def test_a_trainer_the_exercise_does_not_use_stays_out_with_its_tests(tmp_path):
    """A new algorithm is one file: the registry finds it, and the students' version leaves it
    and the tests that import it out without a list naming them."""
    (tmp_path / "tests").mkdir()
    for trainer in ("MC_Trainer.py", "New_Trainer.py"):
        (tmp_path / trainer).write_text("TRAINER = object()\n")
    (tmp_path / "tests" / "test_new.py").write_text("from New_Trainer import TRAINER\n")
    (tmp_path / "tests" / "test_mc.py").write_text("import MC_Trainer\n")
    assert make_exercise.unused_trainers(tmp_path) == {"New_Trainer.py", "tests/test_new.py"}
    assert {"ExpectedSARSA_Trainer.py", "tests/test_expected_sarsa.py"} <= UNUSED_TRAINERS
    assert not UNUSED_TRAINERS & set(make_exercise.EXERCISE_TRAINERS)



def test_every_tracked_file_is_there_and_the_tables_unchanged(exercise):
    expected = {name for name in make_exercise.tracked_files(ROOT)
                if not make_exercise.teachers_only(name, UNUSED_TRAINERS)}
    assert "tools/grading/results.py" not in expected and "check.py" in expected
    written = {str(p.relative_to(exercise)) for p in exercise.rglob("*") if p.is_file()}
    assert written == expected | set(make_exercise.STUDENTS_OWN)
    shipped = [name for name in expected if name.startswith("Data/") and name.endswith(".pth")]
    assert shipped   # the shipped tables, not the ignored ones a teacher's own runs leave there
    for table in shipped:
        assert (exercise / table).read_bytes() == (ROOT / table).read_bytes()


def test_the_required_pieces_are_marked_and_every_stub_names_its_piece(exercise):
    regions = [region for found in solution_regions().values() for region, _ in found]
    assert set(REQUIRED) <= {region.instructions.piece for region in regions}
    functions = {region.instructions.function for region in regions}
    assert functions <= set(STUB_CALLS), "add a call for each new stub to STUB_CALLS"
    assert {i.function for i in INSTRUCTIONS.values()} == functions, "instructions for no marker"
    for function in sorted(functions):
        result = run(["-c", STUB_CALLS[function]], exercise)
        message = next(i for i in INSTRUCTIONS.values() if i.function == function).stub_message()
        assert result.returncode != 0
        assert result.stderr.strip().splitlines()[-1] == f"NotImplementedError: {message}"


def test_every_stub_states_its_contract_in_a_few_lines_in_both_languages(exercise):
    blocks = stub_blocks(exercise)
    assert set(blocks) == {i.function for i in INSTRUCTIONS.values()}
    for function, lines in blocks.items():
        assert len(lines) <= STUB_LINES, f"{function}: {len(lines)} comment lines"
        assert all(line.strip().startswith("#") for line in lines), function
        assert all(len(line) <= stubs.LINE_WIDTH for line in lines), function
        text = "\n".join(lines)
        english = [line for line in lines if not HEBREW.search(line)]
        assert len(english) >= 3 and HEBREW.search(text), f"{function}: English and Hebrew"
        piece = re.search(r"Exercise piece (\d+)", lines[0])[1]
        assert f"python check.py --piece {piece}, --hint {piece}" in lines[0], lines[0]


def test_the_course_names_are_in_the_contracts():
    contract = {i.function: i.english + i.hebrew for i in INSTRUCTIONS.values()}
    for name in ("[(state, action, reward), ..., (final_state,)]", "player1", "player2",
                 "State()", "env", "get_action(state=state, epoch=epoch)"):
        assert name in contract[GENERATE], name
    for name in ("epochs", "Generate_episode(player1, epoch)", "player1.save_Q(PATH)",
                 "test(100)", "gamma", "alpha", "(final_state,)"):
        assert name in contract[MAIN], name
    for name in ("EPSILON_START", "EPSILON_FINAL", "self.decay_epochs"):
        assert name in contract[EPSILON], name


def test_refuses_a_folder_that_is_not_empty_unless_forced(tmp_path):
    target = tmp_path / "taken"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    refused = run(["tools/exercise/make.py", "--out", str(target)], ROOT)
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1
    assert "--force" in refused.stderr and "Traceback" not in refused.stderr
    assert sorted(p.name for p in target.iterdir()) == ["notes.txt"]
    forced = run(["tools/exercise/make.py", "--out", str(target), "--force"], ROOT)
    assert forced.returncode == 0, forced.stderr
    assert (target / "check.py").is_file() and (target / "notes.txt").read_text() == "mine"


def test_refuses_to_write_over_the_solved_repository():
    refused = run(["tools/exercise/make.py", "--out", ".", "--force"], ROOT)
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1
    assert "solved repository" in refused.stderr


def test_no_solution_text_is_left_anywhere(exercise):
    texts = {}
    for path in exercise.rglob("*"):
        if path.is_file():
            try:
                texts[path] = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue                                  # the binary tables
    assert exercise / "tictactoe_rl" / "selfcheck" / "hints.py" in texts     # the hints are searched too
    every_line = {line.strip() for text in texts.values() for line in text.splitlines()}
    everything = "\n".join(texts.values())
    checked = 0
    for name, found in solution_regions().items():
        for region, lines in found:
            for line in (line.strip() for line in lines):
                if not line or line in GENERIC_LINES or line.startswith("#"):
                    continue
                checked += 1
                if line in ALLOWED_ELSEWHERE:
                    continue
                assert line not in every_line, f"{name}: solution line left: {line}"
                if len(line) >= 20:
                    assert line not in everything, f"{name}: solution text left: {line}"
    assert checked >= 10
    for path, text in texts.items():          # no marker comment is left in any module
        if path.suffix == ".py":
            lines = text.splitlines()
            assert not [number for number in stubs.comment_lines(str(path), text)
                        if stubs.ANY_MARKER.match(lines[number - 1])], path


def test_the_students_module_keeps_the_chapters_names(exercise):
    result = run(["-c", "import MC_Trainer; print(' '.join(n for n in "
                  f"{stubs.CHAPTER_NAMES['MC_Trainer.py']!r} "
                  "if not hasattr(MC_Trainer, n)))"], exercise)
    assert result.returncode == 0 and result.stdout.strip() == "", result.stdout + result.stderr


def test_marker_mistakes_are_one_clear_error():
    good = ("def f(x):\n    \"\"\"Doc.\"\"\"\n"
            "    # [exercise piece 1: epsilon_greedy] solution begins\n"
            "    return x\n    # [exercise piece 1] solution ends\n")
    assert len(stubs.find_regions("m.py", good)) == 1
    mistakes = {
        "never ends": good.replace("    # [exercise piece 1] solution ends\n", ""),
        "unknown key": good.replace("epsilon_greedy]", "no_such_piece]"),
        "wrong piece": good.replace("piece 1: epsilon_greedy", "piece 2: epsilon_greedy"),
        "outside a function": "# [exercise piece 1: epsilon_greedy] solution begins\nx = 1\n"
                              "# [exercise piece 1] solution ends\n",
        "malformed": good.replace("solution begins", "solution starts"),
        "code after the end": good.replace("    # [exercise piece 1] solution ends\n",
                                           "    # [exercise piece 1] solution ends\n    y = 1\n"),
    }
    for text in mistakes.values():
        with pytest.raises(stubs.ExerciseError, match=r"^m\.py:\d+: "):
            stubs.find_regions("m.py", text)
    shown = ('"""Markers look like this:\n'
             '# [exercise piece 1: epsilon_greedy] solution begins\n"""\n')
    assert stubs.find_regions("m.py", shown) == []


def test_imports_only_the_solution_used_are_dropped():
    solved = ("import math\nfrom os import path, sep\n\n\ndef f(x):\n    \"\"\"Doc.\"\"\"\n"
              "    # [exercise piece 1: epsilon_greedy] solution begins\n"
              "    return math.sqrt(path.join(x, sep))\n"
              "    # [exercise piece 1] solution ends\n\n\ndef g():\n    return sep\n")
    students, made = stubs.replace_solutions("m.py", solved)
    assert "import math" not in students and "from os import sep\n" in students
    assert [stub.instructions.function for stub in made] == [EPSILON]
    assert "raise NotImplementedError(" in students and "math.sqrt" not in students


def test_the_answer_key_is_there_compressed_and_works_the_same(exercise):
    students = (exercise / "tictactoe_rl" / "selfcheck" / "reference.py").read_text(encoding="utf-8")
    teachers = (ROOT / "tictactoe_rl" / "selfcheck" / "reference.py").read_text(encoding="utf-8")
    assert not [line for line in teachers.splitlines() if len(line.strip()) >= 12
                and line.strip() in students]
    probe = ("import tictactoe_rl.selfcheck.reference as key; print(sorted(name for name in vars(key) "
             "if not name.startswith('_')), key.expected(1, 'correct', 0.01, 0.95)[(1, 0)])")
    assert run(["-c", probe], exercise).stdout == run(["-c", probe], ROOT).stdout != ""


def test_the_students_gitignore_keeps_the_hint_progress_out(exercise):
    ignored = (exercise / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert HINTS_FILE in ignored and ".venv" in ignored     # a folder or a link to one
    assert not set(exercise_students.TEACHERS_IGNORES) & set(ignored)


# --- the hints ------------------------------------------------------------------------------

def test_every_piece_has_hints_in_both_languages():
    assert sorted(HINTS) == [piece.number for piece in PIECES]
    for number, hints in HINTS.items():
        assert len(hints) >= 3, number
        for hint in hints:
            assert hint.english.strip() and not HEBREW.search(hint.english), hint
            assert HEBREW.search(hint.hebrew), hint


def test_next_hint_gives_the_hints_in_order_then_says_there_are_no_more(tmp_path):
    hints = HINTS[2]
    for count, hint in enumerate(hints, start=1):
        shown = next_hint(2, tmp_path)
        assert shown.startswith(f"Hint {count} of {len(hints)} for piece 2 -- ")
        assert hint.english in shown and hint.hebrew in shown
        assert ("--hint 2" in shown) == (count < len(hints))
    for _ in range(2):
        assert next_hint(2, tmp_path).startswith(f"No more hints for piece 2: you have seen all "
                                                 f"{len(hints)}")
    assert next_hint(1, tmp_path).startswith("Hint 1 of")     # each piece counts on its own
    assert json.loads((tmp_path / HINTS_FILE).read_text()) == {"1": 1, "2": len(hints)}


def test_next_hint_starts_over_on_a_damaged_file_and_refuses_an_unknown_piece(tmp_path):
    for damaged in ("{not json", "[1, 2]", '{"3": "two", "1": -4}'):
        (tmp_path / HINTS_FILE).write_text(damaged)
        assert next_hint(3, tmp_path).startswith("Hint 1 of")
    (tmp_path / HINTS_FILE).unlink()
    (tmp_path / HINTS_FILE).mkdir()          # cannot be written: the hint comes all the same
    assert next_hint(1, tmp_path).startswith("Hint 1 of")
    with pytest.raises(ValueError, match="no piece 9"):
        next_hint(9, tmp_path)


# --- GitHub Classroom -----------------------------------------------------------------------

def read_yaml(text: str):
    """The block YAML of a workflow (mappings, lists, plain and quoted scalars, ``|`` blocks),
    read without a YAML package: enough to hold the generated workflow to its structure."""
    lines = [(len(line) - len(line.lstrip(" ")), line.strip()) for line in text.splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    value, end = _yaml_block(lines, 0, lines[0][0])
    assert end == len(lines), f"YAML left unread from: {lines[end]}"
    return value


def _yaml_block(lines: list, i: int, indent: int):
    if lines[i][1].startswith("- "):
        items = []
        while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- "):
            item = lines[i][1][2:]
            if ":" not in item:
                items.append(_yaml_scalar(item))
                i += 1
                continue
            lines[i] = (indent + 2, item)          # "- key: value" opens a mapping
            value, i = _yaml_block(lines, i, indent + 2)
            items.append(value)
        return items, i
    mapping = {}
    while i < len(lines) and lines[i][0] == indent:
        key, colon, rest = lines[i][1].partition(":")
        assert colon, f"not a key: {lines[i][1]}"
        rest, i = rest.strip(), i + 1
        if rest == "|":
            block = []
            while i < len(lines) and lines[i][0] > indent:
                block.append(lines[i][1])
                i += 1
            mapping[key] = "\n".join(block) + "\n"
        elif rest:
            mapping[key] = _yaml_scalar(rest)
        elif i < len(lines) and lines[i][0] > indent:
            mapping[key], i = _yaml_block(lines, i, lines[i][0])
        else:
            mapping[key] = None
    return mapping, i


def _yaml_scalar(text: str) -> str:
    return text[1:-1] if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"" else text


def test_classroom_autograding_has_one_test_per_piece_with_its_points(exercise):
    tests = json.loads((exercise / classroom.AUTOGRADING).read_text(encoding="utf-8"))["tests"]
    assert [test["run"] for test in tests] == [f"python check.py --piece {piece.number}"
                                               for piece in PIECES]
    assert [test["points"] for test in tests] == [piece.points for piece in PIECES]
    assert sum(piece.points for piece in PIECES if piece.required) == 100
    for test in tests:
        assert set(test) == {"name", "setup", "run", "input", "output", "comparison", "timeout",
                             "points"}
        assert test["comparison"] == "included" and test["output"] == ""  # exit status decides
        assert 1 <= test["timeout"] <= 60                                  # minutes
    shown = run(["check.py", "--help"], exercise)
    assert shown.returncode == 0 and "--piece" in shown.stdout


def test_classroom_workflow_installs_the_cpu_torch_and_runs_the_autograding(exercise):
    text = (exercise / classroom.WORKFLOW).read_text(encoding="utf-8")
    workflow = read_yaml(text)
    try:
        import yaml
    except ImportError:
        pass
    else:             # where a YAML package is at hand, it reads the same ("on" is true to it)
        assert {("on" if key is True else key): value
                for key, value in yaml.safe_load(text).items()} == workflow
    assert "push" in workflow["on"] and workflow["permissions"]["checks"] == "write"
    (job,) = workflow["jobs"].values()
    steps = job["steps"]
    assert steps[0]["uses"].startswith("actions/checkout@")
    assert steps[0]["with"]["fetch-depth"] == "0"       # the first commit is needed
    assert steps[1]["name"] == "Put back the self-check as issued"
    assert steps[2]["uses"].startswith("actions/setup-python@")
    assert steps[2]["with"]["python-version"] == "3.11"
    torch = next(line for line in (ROOT / "requirements.txt").read_text().splitlines()
                 if line.startswith("torch"))
    commands = steps[3]["run"].splitlines()
    cpu = (f"pip install --timeout 20 --retries 1 {torch} --index-url "
           f"https://download.pytorch.org/whl/cpu || pip install {torch}")
    assert commands.index(cpu) < commands.index("pip install -r requirements.txt")
    assert steps[-1] == {"uses": "education/autograding@v1"}


def test_classroom_gives_every_point_to_the_solution_and_none_to_the_raw_exercise(
        exercise, solved_repo):
    tests = json.loads((exercise / classroom.AUTOGRADING).read_text(encoding="utf-8"))["tests"]
    for test in tests:
        words = shlex.split(test["run"])
        assert words[0] == "python"
        solved = run(words[1:], solved_repo)
        assert solved.returncode == 0, solved.stdout + solved.stderr
        if PIECES[tests.index(test)].required:
            assert run(words[1:], exercise).returncode != 0


# --- the self-check -------------------------------------------------------------------------

def test_the_raw_exercise_fails_naming_every_required_piece(exercise):
    result = run(["check.py"], exercise)
    assert result.returncode == 1 and "Traceback" not in result.stdout + result.stderr
    lines = piece_lines(result.stdout)
    assert sorted(lines) == [piece.number for piece in PIECES]
    for number in REQUIRED:
        assert "not written yet" in lines[number], lines[number]


def test_the_solved_repository_passes_every_piece():
    result = run(["check.py", "--all"], ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert all(passed(line) for line in piece_lines(result.stdout).values())
    trained = TRAINED.findall(result.stdout)
    assert [side for side, _ in trained] == ["X", "O"]
    assert float(trained[0][1]) > 58.49 + 25       # far better than random play (exact: 58.49 %)


def test_the_chapters_solution_trains_from_the_command_line(chapter_repo, tmp_path):
    """Its main sets epochs = 200000 itself: --epochs cannot shorten the run, and says so."""
    result = run(["MC_Trainer.py", "--epochs", "2000", "--seed", "3", "--out",
                  str(tmp_path / "mine.pth")], chapter_repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "note: --epochs does not reach your main, which sets epochs itself" in result.stdout
    assert "test(100): X wins" in result.stdout and (tmp_path / "mine.pth").is_file()
    assert "199999" in result.stdout      # the chapter's print(epoch, end="\r"): all of them


def test_an_o_learner_without_the_bonus_piece_is_refused_before_it_trains(chapter_repo, tmp_path):
    """The chapter's Generate_episode lets player1 open the game: as O its table would be
    refused only after all 200,000 episodes, so the trainer says so before the first one."""
    out = tmp_path / "o.pth"
    result = run(["MC_Trainer.py", "--side", "O", "--seed", "1", "--out", str(out)], chapter_repo)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--side O needs your Generate_episode" in result.stderr
    assert "piece 4" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "1999" not in result.stdout and not out.exists()


def test_an_o_learner_with_the_bonus_piece_trains(exercise, tmp_path):
    short_main = both_sides_main().replace("epochs = 200000", "epochs = 500")
    repo = type_in_chapter(copy_of(exercise, tmp_path / "o"), main=short_main,
                           generate=both_sides_generate())
    out = tmp_path / "o.pth"
    result = run(["MC_Trainer.py", "--side", "O", "--seed", "1", "--out", str(out)], repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Training with your main: O against" in result.stdout and out.is_file()


def test_a_solution_for_both_sides_passes_the_bonus_piece(exercise, tmp_path):
    repo = type_in_chapter(copy_of(exercise, tmp_path / "both"), main=both_sides_main(),
                           generate=both_sides_generate())
    result = run(["check.py", "--piece", "4"], repo)
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize("mistake", WRONG_ANSWERS)
def test_plausible_wrong_answers_are_rejected_with_a_hint(exercise, tmp_path, mistake):
    piece, typed, hint = wrong_answer(mistake)
    repo = type_in_chapter(copy_of(exercise, tmp_path / "wrong"), **typed)
    result = run(["check.py", "--piece", str(piece)], repo)
    assert result.returncode == 1, result.stdout
    line = piece_lines(result.stdout)[piece]
    assert "FAILED" in line and hint in line, line


# --- the students' repository runs ------------------------------------------------------------

def test_the_chapters_text_is_typed_in_exactly_as_printed(chapter_repo):
    trainer = (chapter_repo / "MC_Trainer.py").read_text(encoding="utf-8")
    agent = (chapter_repo / "AI_Agent.py").read_text(encoding="utf-8")
    header, function = solution_main()
    for text in (header.strip("\n"), function, chapter("solution_Generate_episode.py")):
        assert text.rstrip("\n") in trainer
    for method in methods(chapter("solution_AI_Agent_methods.py")).values():
        assert method.rstrip("\n") in agent
    assert not stub_blocks(chapter_repo).keys() & {EPSILON, GENERATE, MAIN}


def test_game_runs_headless_in_the_exercise(exercise):
    result = run(["Game.py", "--x", "Data/Q_MC_X.pth", "--o", "random", "--games", "1",
                  "--delay", "0"], exercise)
    assert result.returncode == 0, result.stderr


def test_the_students_tests_skip_what_needs_a_missing_piece(exercise):
    result = run(["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "tests/test_mc.py"],
                 exercise)
    assert result.returncode == 0, result.stdout[-3000:]
    assert " failed" not in result.stdout
    for number in (2, 3):
        assert re.search(rf"SKIPPED .*needs Exercise piece {number} .*python check\.py",
                         result.stdout), result.stdout[-3000:]


MARKED_TESTS = '''
import pytest


@pytest.mark.exercise_piece(4)
def test_needs_the_bonus_piece():
    assert False, "runs only once piece 4 passes"


@pytest.mark.exercise_piece(3)
def test_needs_the_update():
    pass


@pytest.mark.solved_only
def test_of_the_solved_version_only():
    assert False, "never runs in the students' version"
'''


def test_marked_tests_wait_for_their_piece(chapter_repo, tmp_path):
    repo = copy_of(chapter_repo, tmp_path / "marked")
    (repo / "tests" / "test_marked.py").write_text(MARKED_TESTS, encoding="utf-8")
    result = run(["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "tests/test_marked.py"],
                 repo)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "1 passed, 2 skipped" in result.stdout
    assert re.search(r"SKIPPED .*needs Exercise piece 4, which does not pass yet", result.stdout)
    assert re.search(r"SKIPPED .*only the teachers' solved version", result.stdout)


MAIN_IN_A_TEST = '''
import MC_Trainer


def test_runs_main_on_a_few_episodes(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(MC_Trainer, "epochs", 50)
    monkeypatch.setattr(MC_Trainer, "PATH", str(tmp_path / "q.pth"))
    monkeypatch.setattr(MC_Trainer, "test", lambda num: print("tested", num))
    MC_Trainer.main()
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "[main printed 52 lines; the last 10:]" and len(out) == 11, out
    assert out[-2:] == ["tested 100", "None"] and (tmp_path / "q.pth").is_file()
'''


def test_a_test_that_runs_a_students_main_skips_when_main_sets_its_own_epochs(chapter_repo,
                                                                             tmp_path):
    """The chapter's main keeps its own epochs = 200000: a test cannot make it short, and says
    so; a main that reads the module's epochs runs, and its prints are cut to the last lines."""
    repo = copy_of(chapter_repo, tmp_path / "main")
    (repo / "tests" / "test_main.py").write_text(MAIN_IN_A_TEST, encoding="utf-8")
    skipped = run(["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "tests/test_main.py"],
                  repo)
    assert "1 skipped" in skipped.stdout, skipped.stdout
    assert re.search(r"SKIPPED .*MC_Trainer\.main sets epochs = 200000 where the test set "
                     r"epochs = 50", skipped.stdout), skipped.stdout
    _, function = solution_main()
    replace_function(repo / "MC_Trainer.py", "main", function.replace(
        "    epochs = 200000\n", "").replace("print(epoch, end=\"\\r\")", "print(epoch)"))
    ran = run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_main.py"], repo)
    assert "1 passed" in ran.stdout, ran.stdout


# --- every command of the students' README, run there -------------------------------------------

@dataclass(frozen=True)
class Command:
    line: str           # as the README shows it
    words: tuple        # the command, its comment left out
    bonus: bool         # needs piece 4 or 5 (its comment says so)


# How a README command is run here: Python is the interpreter these tests run under (its
# environment has the requirements); pip only resolves (--dry-run: installing would change that
# environment, and everything it asks for is there already); `source` runs in bash; the game gets
# one game at full speed and a computer player for the human, who is O unless --o says otherwise
# (a headless window has no mouse);
# the trainers get a tiny size (a main that sets its own epochs still runs all of them).
PROGRAMS = {"python", "python3", "pip", "source"}
SHORTER = {"Game.py": ["--games", "1", "--delay", "0"], "MC_Trainer.py": ["--epochs", "3000"],
           "SARSA_Trainer.py": ["--epochs", "3000"], "Q_Trainer.py": ["--epochs", "3000"]}
# The README's commands that exit 1 on purpose in the chapter's repository: --all counts the
# bonus pieces, which the chapter does not write.
FAILS_ON_PURPOSE = {"python check.py --all": 1}


def readme_commands(readme: str) -> list[Command]:
    """The command lines of the README's code blocks (indented, or fenced without a language or
    as a shell); fenced Python is example code, not a command."""
    commands, fence, previous = [], None, ""
    for line in readme.splitlines():
        if line.startswith("```"):
            fence = None if fence is not None else line[3:].strip()
            continue
        shell = fence in ("", "sh", "bash", "shell", "console")
        indented = fence is None and line.startswith("    ") and line.strip() and \
            (not previous.strip() or previous.startswith("    "))
        if (shell or indented) and line.strip():
            words = tuple(shlex.split(line, comments=True))
            comment = line[len(line.split("#")[0]):] if "#" in line else ""
            commands.append(Command(line.strip(), words, bool(re.search(r"piece [45]", comment))))
        previous = line
    return commands


# The students' whole suite (python -m pytest -q) runs here as the slow tests of the files that
# call pieces 1-3: the README's quick suite before it ran the quick tests of every file, and the
# other files' slow tests are this repository's own, unchanged: make test-all runs them
# (test_install's too, which packages the pieces' files but never runs them).
CALLS_A_PIECE = re.compile(r"Generate_episode|epsilon_greedy|MC_Trainer\.(run|main)\(|"
                           r"\"MC_Trainer\.py\"")
WHOLE_SUITE = ("python", "-m", "pytest", "-q")


def piece_test_files(repo: Path) -> list[str]:
    """The test files of ``repo`` that call pieces 1-3 (``CALLS_A_PIECE``)."""
    return sorted(f"tests/{path.name}" for path in (repo / "tests").glob("test_*.py")
                  if path.name != "test_install.py"
                  and CALLS_A_PIECE.search(path.read_text(encoding="utf-8")))


def as_run(command: Command, repo: Path) -> tuple[list[str], str]:
    """The argv that runs ``command`` in ``repo``, and its standard input."""
    if command.words == WHOLE_SUITE:
        return [sys.executable, *WHOLE_SUITE[1:], "-m", "slow", *piece_test_files(repo)], ""
    program, *args = command.words
    if program == "pip":     # the first of "A || B": B runs only where A cannot
        args = args[:args.index("||")] if "||" in args else args
        return [sys.executable, "-m", "pip", *args, "--dry-run", "--quiet"], ""
    if program == "source":
        return ["bash", "-c", f"source {shlex.quote(args[0])}"], ""
    script = args[0] if args else ""
    if script == "Game.py":
        args = ["random" if word == "human" else word for word in args]
        args += [] if "--o" in args else ["--o", "random"]      # the human is O by default
    return [sys.executable, *args, *SHORTER.get(script, [])], ""


def run_readme(repo: Path, commands: list[Command]) -> dict[str, subprocess.CompletedProcess]:
    """Run ``commands`` in ``repo`` in order; their results by the command (without comment)."""
    results = {}
    for command in commands:
        assert command.words[0] in PROGRAMS, f"a command the tests cannot run: {command.line}"
        argv, stdin = as_run(command, repo)
        timeout = SUITE_TIMEOUT if "pytest" in command.words else TIMEOUT
        results[shlex.join(command.words)] = run(argv, repo, timeout=timeout, stdin=stdin)
    return results


@pytest.fixture(scope="module")
def readme(exercise) -> str:
    return (exercise / "README.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def chapter_run(readme, chapter_repo, tmp_path_factory):
    """Every command of the README that pieces 1-3 need, in order, in a copy of the chapter's
    repository: what a student who typed in the chapter has."""
    repo = copy_of(chapter_repo, tmp_path_factory.mktemp("readme") / "chapter")
    return repo, run_readme(repo, [c for c in readme_commands(readme) if not c.bonus])


def test_the_students_readme_describes_their_repository(readme, exercise):
    assert "make_exercise" not in readme and "make exercise" not in readme
    assert "(for teachers)" not in readme
    for function in stub_blocks(exercise):
        assert f"`{function}`" in readme, function
    for words in ("python check.py --piece 2", "python check.py --hint 2", "python MC_Trainer.py",
                  "python Tester.py", "python Game.py", "python -m pytest -q", "Ctrl-C",
                  "--plot", "--opponent self", "--epochs"):
        assert words in readme, words
    commands = readme_commands(readme)
    assert len(commands) >= 20 and all(c.words[0] in PROGRAMS for c in commands)
    shown = run(["Tester.py", "--help"], exercise).stdout
    for command in commands:
        if command.words[1:2] == ("Tester.py",):
            for flag in (word for word in command.words if word.startswith("--")):
                assert flag in shown, f"{command.line}: Tester.py has no {flag}"


def test_the_chapters_solution_passes(chapter_run):
    """The README's ``python check.py``, run on the chapter's code as printed."""
    _, results = chapter_run
    result = results["python check.py"]
    assert result.returncode == 0, result.stdout + result.stderr
    lines = piece_lines(result.stdout)
    assert all(passed(lines[n]) for n in REQUIRED)
    assert not passed(lines[4])                     # the chapter trains X only: no bonus 4
    wins = TRAINED.search(result.stdout)
    assert wins and wins[1] == "X" and float(wins[2]) > 58.49 + 25, result.stdout


def test_every_readme_command_works_with_the_chapters_solution(chapter_run):
    repo, results = chapter_run
    for line, result in results.items():
        wanted = FAILS_ON_PURPOSE.get(line, 0)
        assert result.returncode == wanted, \
            f"{line}: {result.stdout[-2000:]}{result.stderr[-2000:]}"
        assert "Traceback" not in result.stderr, f"{line}: {result.stderr[-2000:]}"
    assert (repo / "Data" / "my_Q_MC_X.pth").is_file()          # python MC_Trainer.py saved it
    outputs = {line: result.stdout for line, result in results.items()}
    assert passed(piece_lines(outputs["python check.py"])[3])
    assert "Hint 1 of" in outputs["python check.py --hint 2"]
    for line in ("python MC_Trainer.py", "python MC_Trainer.py --out Data/my_Q_MC_X.pth"):
        assert "test(100): X wins" in outputs[line] and "exact vs random" in outputs[line]
    assert re.search(r"^\(\d+, \d+, \d+\)$", outputs["python MC_Trainer.py"], re.M)  # its print
    assert (repo / "Data" / "Q_MC_2026_2.pth").is_file()     # the chapter's own PATH
    exact = next(out for line, out in outputs.items() if "--o random --exact" in line)
    assert re.search(r"as X\s+0\.\d{6}", exact), exact


def test_the_trainer_says_in_one_line_that_epochs_cannot_reach_the_chapters_main(chapter_run):
    """The README promises it: the chapter's main sets epochs = 200000 itself, so the --epochs
    the test adds to python MC_Trainer.py cannot reach it, and the trainer must say so."""
    _, results = chapter_run
    out = results["python MC_Trainer.py"].stdout
    said = [line for line in re.split(r"[\r\n]+", out) if "--epochs" in line and "main" in line]
    assert len(said) == 1, out[:1000]


def test_the_students_test_suite_passes_quietly_on_the_chapters_solution(chapter_run):
    _, results = chapter_run
    suite = results["python -m pytest -q"]
    output = suite.stdout + suite.stderr
    assert suite.returncode == 0, output[-5000:]
    assert re.search(r"^\d+ passed(, \d+ skipped)?(, \d+ deselected)? in ",
                     output.splitlines()[-1]), output[-2000:]
    assert len(output.splitlines()) <= QUIET_LINES and len(output) <= QUIET_CHARS, \
        f"{len(output.splitlines())} lines, {len(output)} characters: {output[:3000]}"


def test_every_bonus_readme_command_works_with_the_solved_pieces(readme, solved_repo):
    bonus = [command for command in readme_commands(readme) if command.bonus]
    assert {word for c in bonus for word in c.words} >= {"--side", "SARSA_Trainer.py",
                                                         "Q_Trainer.py", "nim/play.py"}
    for line, result in run_readme(copy_of(solved_repo, solved_repo.parent / "bonus"),
                                   bonus).items():
        assert result.returncode == 0, f"{line}: {result.stdout[-2000:]}{result.stderr[-2000:]}"
        assert "Traceback" not in result.stderr, f"{line}: {result.stderr[-2000:]}"


def test_the_students_docs_name_only_what_their_folder_has(exercise):
    """Every link, make target and file that a Markdown file of the students' version names is
    in it, or marked as the teachers' (the grader, make bench, GRADING.md stay out)."""
    from tools.exercise.docs import MARK, missing_references
    assert missing_references(exercise) == []
    teachers = (exercise / "docs" / "TEACHERS.md").read_text(encoding="utf-8")
    assert not (exercise / "docs" / "GRADING.md").exists()
    assert f"GRADING.md{MARK}" in teachers and "](GRADING.md)" not in teachers
    speed = (exercise / "docs" / "SPEED.md").read_text(encoding="utf-8")
    assert f"`make bench`{MARK}" in speed


def test_the_students_readme_says_how_long_its_tests_take(exercise):
    readme = (exercise / "README.md").read_text(encoding="utf-8")
    tests = readme.split("## Run the tests\n", 1)[1].split("\n## ", 1)[0]
    assert 'python -m pytest -q -m "not slow"    # the quick tests' in tests
    assert ("the quick suite " in tests and "load average" in tests) or \
        "python tools/benchmarks/timed.py python -m pytest" in tests
