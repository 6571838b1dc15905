"""The exercise: the students' version generated from the solved code, and its self-check.

The students' version is generated once (into a temporary folder) and then held to the issue:
complete and runnable, every stub raises its message, nothing of a solution is left, its tests
skip what needs a missing piece, and Game.py plays there. The self-check fails the raw exercise
naming each required piece, passes the solved repository and the chapter's own solution typed
into the stubs, and rejects plausible wrong answers (written as small patches to the stubs).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tools import make_exercise
from tools.exercise_pieces import INSTRUCTIONS, PIECES, STUDENTS_SECTION, TEACHERS_HEADING

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 120
REQUIRED = [piece.number for piece in PIECES if piece.required]

# --- the chapter's solution, as a student types it into the stubs (plain loops, the chapter's
# names and calls) ---------------------------------------------------------------------------
CHAPTER_EPSILON = """
    if epoch is None or epoch >= EPSILON_DECAY_EPOCHS:
        return EPSILON_FINAL
    return EPSILON_START - (EPSILON_START - EPSILON_FINAL) * epoch / EPSILON_DECAY_EPOCHS
"""
CHAPTER_GENERATE_EPISODE = """
    episode = []
    state = State()
    while not env.end_of_game(state):
        action = player1.get_action(state=state, epoch=epoch)
        next_state, reward = env.next_state(state, action)
        if not env.end_of_game(next_state):
            reply = player2.get_action(state=next_state)
            next_state, reward = env.next_state(next_state, reply)
        episode.append((state.copy(), action, reward))
        state = next_state
    episode.append((state,))
    return episode
"""
CHAPTER_MAIN = """
    for epoch in range(epochs):
        episode = Generate_episode(player1, epoch)
        episode.pop()
        G = 0
        for state, action, reward in reversed(episode):
            G = gamma * G + reward
            Q = player1.Q.get((state, action), 0)
            player1.Q[(state, action)] = Q + alpha * (G - Q)
    player1.save_Q(PATH)
    test(100)
"""
# The bonus: the same loops for a learner of either side.
BOTH_SIDES_GENERATE_EPISODE = """
    episode = []
    state = State()
    if player.player == O:
        state, _ = env.next_state(state, player2.get_action(state=state))
    while not env.end_of_game(state):
        action = player.get_action(state=state, epoch=epoch)
        next_state, reward = env.next_state(state, action)
        if not env.end_of_game(next_state):
            next_state, reward = env.next_state(next_state, player2.get_action(state=next_state))
        episode.append((state.copy(), action, reward))
        state = next_state
    episode.append((state,))
    return episode
"""
BOTH_SIDES_MAIN = CHAPTER_MAIN.replace("G = gamma * G + reward",
                                       "G = gamma * G + player1.player * reward")

EPSILON, GENERATE, MAIN = ("AI_Agent.epsilon_greedy", "MC_Trainer.Generate_episode",
                           "MC_Trainer.main")
CHAPTER = {EPSILON: CHAPTER_EPSILON, GENERATE: CHAPTER_GENERATE_EPISODE, MAIN: CHAPTER_MAIN}

# Plausible wrong answers: (piece, the stubs filled differently from the chapter, what the
# self-check's hint must say).
WRONG_ANSWERS = {
    "epsilon that never decays": (1, {EPSILON: "\n    return EPSILON_START\n"}, "never decays"),
    "episode with the position after the move": (2, {GENERATE: CHAPTER_GENERATE_EPISODE.replace(
        "episode.append((state.copy(), action, reward))",
        "episode.append((env.next_state(state, action)[0], action, reward))")},
        "must be a copy of the position before your move"),
    "a hard-coded episode": (2, {GENERATE: "\n    return [(State(), (1, 1), 0), (State(),)]\n"},
                             "the game stopped before its end"),
    "returns summed forwards": (3, {MAIN: CHAPTER_MAIN.replace("reversed(episode)", "episode")},
                                "walk the episode backwards"),
    "an update with the wrong sign for O": (4, {GENERATE: BOTH_SIDES_GENERATE_EPISODE},
                                            "negate the rewards"),
}

# How to reach each stub from outside: the call that must raise its NotImplementedError.
STUB_CALLS = {
    EPSILON: "import AI_Agent; AI_Agent.AI_Agent(1).epsilon_greedy(0)",
    GENERATE: "import MC_Trainer; MC_Trainer.Generate_episode(MC_Trainer.player1, 0)",
    MAIN: "import MC_Trainer; MC_Trainer.main()",
    "Episode.learning_steps": "import Episode, State; Episode.learning_steps([], State.State(), 1)",
    "SARSA_Trainer.update": "import SARSA_Trainer, State; "
                            "SARSA_Trainer.update({}, [(State.State(),)], 1, 0.9, 0.1)",
    "Q_Trainer.update": "import Q_Trainer, State; "
                        "Q_Trainer.update({}, [(State.State(),)], 1, 0.9, 0.1)",
    "NimAI.get_q_value": "from nim.nim import NimAI; NimAI().get_q_value([1, 3], (0, 1))",
    "NimAI.update_q_value": "from nim.nim import NimAI; "
                            "NimAI().update_q_value([1], (0, 1), 0, 0, 0)",
    "NimAI.best_future_reward": "from nim.nim import NimAI; NimAI().best_future_reward([1, 3])",
    "NimAI.choose_action": "from nim.nim import NimAI; NimAI().choose_action([1, 3])",
    "NimAI.action_probs": "from nim.nim import NimAI; NimAI().action_probs([1, 3])",
    "NimAI._best_actions": "from nim.nim import NimAI; NimAI()._best_actions((1, 3), ((0, 1),))",
}
# Body lines so generic that they may appear anywhere (the solution-text search skips them).
GENERIC_LINES = {"else:", "try:", "break", "continue", "pass", "return", ")", "]", "}", "})",
                 "return True", "return False", "return None"}
# Solution text that other code contains for a reason of its own, and why that gives nothing away.
ALLOWED_ELSEWHERE = {
    "return EPSILON_FINAL": "Trainer.Geometric_Learner's own schedule (0.9999 ** epoch) ends in "
                            "the same final value; copied, it fails piece 1 (below 0.01)",
    "moves, final = play_game(x_agent, o_agent, env, epoch=epoch)":
        "playing a game is the trainers' shared plumbing (Episode.play_game); piece 2 is the "
        "episode format, and Episode.learning_steps, which makes it, is a stub (piece 5)",
    "learners = Trainer.learners_of(player1, player2)":
        "which agents learn (one, or two in self-play): MC_Trainer.test asks the same",
    "def learn(epoch: int) -> State:":
        "the shape of the callback that Trainer.train_loop runs for every trainer",
    "return probs": "every agent's action_probs ends by returning its dict (Agents.py's mixture)",
}


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    environment = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
                   "PYTHONIOENCODING": "utf-8", "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=TIMEOUT, env=environment)


def fill(repo: Path, function: str, body: str) -> None:
    """Type ``body`` into the stub of ``function`` (e.g. "MC_Trainer.main") in place of its
    instructions and ``raise``, as a student would."""
    path = repo / (function.split(".")[0] + ".py")
    text = path.read_text(encoding="utf-8")
    stub = re.compile(rf"^(?P<indent> *)# Exercise piece \d+: write {re.escape(function)} .*\n"
                      rf"(?:(?P=indent)#.*\n)*"
                      rf"(?P=indent)raise NotImplementedError\(\n.*\n", re.M)
    found = stub.search(text)
    assert found, f"no stub for {function} in {path}"
    code = textwrap.indent(textwrap.dedent(body).strip("\n") + "\n", found["indent"])
    path.write_text(text[:found.start()] + code + text[found.end():], encoding="utf-8")


def copy_of(repo: Path, folder: Path, fills: dict[str, str]) -> Path:
    shutil.copytree(repo, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for function, body in fills.items():
        fill(folder, function, body)
    return folder


def piece_lines(output: str) -> dict[int, str]:
    return {int(m[1]): m[0] for m in re.finditer(r"^piece (\d+) -- .*$", output, re.M)}


@pytest.fixture(scope="module")
def exercise(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("exercise") / "students"
    result = run(["tools/make_exercise.py", "--out", str(out)], ROOT)
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def chapter(exercise, tmp_path_factory) -> Path:
    """The exercise with the chapter's solution typed into the stubs of pieces 1-3."""
    return copy_of(exercise, tmp_path_factory.mktemp("chapter") / "repo", CHAPTER)


def solution_regions() -> dict[str, list[tuple[make_exercise.Region, list[str]]]]:
    """Every marked solution of the solved repository with its lines, by file."""
    found = {}
    for name in make_exercise.tracked_files(ROOT):
        if name.endswith(".py") and name not in make_exercise.TEACHERS_ONLY:
            text = (ROOT / name).read_text(encoding="utf-8")
            lines = text.splitlines()
            regions = make_exercise.find_regions(name, text)
            if regions:
                found[name] = [(r, lines[r.begin:r.end - 1]) for r in regions]
    return found


# --- generating -----------------------------------------------------------------------------

def test_every_tracked_file_is_there_and_the_tables_unchanged(exercise):
    expected = set(make_exercise.tracked_files(ROOT)) - set(make_exercise.TEACHERS_ONLY)
    written = {str(p.relative_to(exercise)) for p in exercise.rglob("*") if p.is_file()}
    assert written == expected | {"README.md"}
    for table in (ROOT / "Data").glob("*.pth"):
        assert (exercise / "Data" / table.name).read_bytes() == table.read_bytes()
    readme = (exercise / "README.md").read_text(encoding="utf-8")
    assert STUDENTS_SECTION.splitlines()[0] in readme and TEACHERS_HEADING not in readme


def test_the_required_pieces_are_marked_and_every_stub_names_its_piece(exercise):
    regions = [region for found in solution_regions().values() for region, _ in found]
    assert set(REQUIRED) <= {region.instructions.piece for region in regions}
    functions = {region.instructions.function for region in regions}
    assert functions <= set(STUB_CALLS), "add a call for each new stub to STUB_CALLS"
    for function in sorted(functions):
        result = run(["-c", STUB_CALLS[function]], exercise)
        message = INSTRUCTIONS[next(key for key, i in INSTRUCTIONS.items()
                                    if i.function == function)].stub_message()
        assert result.returncode != 0
        assert result.stderr.strip().splitlines()[-1] == f"NotImplementedError: {message}"


def test_refuses_a_folder_that_is_not_empty_unless_forced(tmp_path):
    target = tmp_path / "taken"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    refused = run(["tools/make_exercise.py", "--out", str(target)], ROOT)
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1
    assert "--force" in refused.stderr and "Traceback" not in refused.stderr
    assert sorted(p.name for p in target.iterdir()) == ["notes.txt"]
    forced = run(["tools/make_exercise.py", "--out", str(target), "--force"], ROOT)
    assert forced.returncode == 0, forced.stderr
    assert (target / "check.py").is_file() and (target / "notes.txt").read_text() == "mine"


def test_refuses_to_write_over_the_solved_repository():
    refused = run(["tools/make_exercise.py", "--out", ".", "--force"], ROOT)
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
    every_line = {line.strip() for text in texts.values() for line in text.splitlines()}
    everything = "\n".join(texts.values())
    checked = 0
    for name, found in solution_regions().items():
        for region, lines in found:
            for line in (line.strip() for line in lines):
                if not line or line in GENERIC_LINES:
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
            assert not [number for number in make_exercise.comment_lines(str(path), text)
                        if make_exercise.ANY_MARKER.match(lines[number - 1])], path


def test_the_episode_format_is_not_left_in_episode_py(exercise):
    result = run(["-c", STUB_CALLS["Episode.learning_steps"]], exercise)
    assert "NotImplementedError: Exercise piece 5" in result.stderr


def test_the_students_module_keeps_the_chapters_names(exercise):
    result = run(["-c", "import MC_Trainer; print(' '.join(n for n in "
                  f"{make_exercise.CHAPTER_NAMES['MC_Trainer.py']!r} "
                  "if not hasattr(MC_Trainer, n)))"], exercise)
    assert result.returncode == 0 and result.stdout.strip() == "", result.stdout + result.stderr


def test_marker_mistakes_are_one_clear_error():
    good = ("def f(x):\n    \"\"\"Doc.\"\"\"\n"
            "    # [exercise piece 1: epsilon_greedy] solution begins\n"
            "    return x\n    # [exercise piece 1] solution ends\n")
    assert len(make_exercise.find_regions("m.py", good)) == 1
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
        with pytest.raises(make_exercise.ExerciseError, match=r"^m\.py:\d+: "):
            make_exercise.find_regions("m.py", text)
    shown = ('"""Markers look like this:\n'
             '# [exercise piece 1: epsilon_greedy] solution begins\n"""\n')
    assert make_exercise.find_regions("m.py", shown) == []


def test_imports_only_the_solution_used_are_dropped():
    solved = ("import math\nfrom os import path, sep\n\n\ndef f(x):\n    \"\"\"Doc.\"\"\"\n"
              "    # [exercise piece 1: epsilon_greedy] solution begins\n"
              "    return math.sqrt(path.join(x, sep))\n"
              "    # [exercise piece 1] solution ends\n\n\ndef g():\n    return sep\n")
    students, stubs = make_exercise.replace_solutions("m.py", solved)
    assert "import math" not in students and "from os import sep\n" in students
    assert [stub.instructions.function for stub in stubs] == [EPSILON]
    assert "raise NotImplementedError(" in students and "math.sqrt" not in students


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
    assert all(line.endswith(": passed") for line in piece_lines(result.stdout).values())
    trained = re.findall(r"^Your ([XO]) after [\d,]+ training episodes .*wins ([\d.]+)%",
                         result.stdout, re.M)
    assert [side for side, _ in trained] == ["X", "O"]
    assert float(trained[0][1]) > 58.49 + 25       # far better than random play (SPEC 6)


def test_the_chapters_solution_passes(chapter):
    result = run(["check.py"], chapter)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = piece_lines(result.stdout)
    assert all(lines[n].endswith(": passed") for n in REQUIRED)
    assert "player2 (X) moves first" in lines[4]   # the chapter trains X only: no bonus 4
    wins = re.search(r"^Your X after [\d,]+ training episodes .*wins ([\d.]+)%", result.stdout,
                     re.M)
    assert wins and float(wins[1]) > 58.49 + 25, result.stdout


def test_the_chapters_solution_trains_from_the_command_line(chapter, tmp_path):
    result = run(["MC_Trainer.py", "--epochs", "2000", "--seed", "3", "--out",
                  str(tmp_path / "mine.pth")], chapter)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "test(100): X wins" in result.stdout and (tmp_path / "mine.pth").is_file()


def test_a_solution_for_both_sides_passes_the_bonus_piece(chapter, tmp_path):
    repo = copy_of(chapter, tmp_path / "both", {})
    for function, body in ((GENERATE, BOTH_SIDES_GENERATE_EPISODE), (MAIN, BOTH_SIDES_MAIN)):
        replace_solution(repo, function, body)
    result = run(["check.py", "--piece", "4"], repo)
    assert result.returncode == 0, result.stdout


def replace_solution(repo: Path, function: str, body: str) -> None:
    """Replace what the chapter's solution typed into ``function`` with ``body``."""
    path = repo / (function.split(".")[0] + ".py")
    text = path.read_text(encoding="utf-8")
    code = textwrap.dedent(CHAPTER[function]).strip("\n") + "\n"
    indent = next(indent for indent in ("    ", "        ")
                  if textwrap.indent(code, indent) in text)
    path.write_text(text.replace(textwrap.indent(code, indent), textwrap.indent(
        textwrap.dedent(body).strip("\n") + "\n", indent)), encoding="utf-8")


@pytest.mark.parametrize("mistake", WRONG_ANSWERS)
def test_plausible_wrong_answers_are_rejected_with_a_hint(chapter, tmp_path, mistake):
    piece, bodies, hint = WRONG_ANSWERS[mistake]
    repo = copy_of(chapter, tmp_path / "wrong", {})
    for function, body in bodies.items():
        replace_solution(repo, function, body)
    result = run(["check.py", "--piece", str(piece)], repo)
    assert result.returncode == 1, result.stdout
    line = piece_lines(result.stdout)[piece]
    assert "FAILED" in line and hint in line, line


# --- the students' repository runs ------------------------------------------------------------

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


def test_marked_tests_wait_for_their_piece(chapter, tmp_path):
    repo = copy_of(chapter, tmp_path / "marked", {})
    (repo / "tests" / "test_marked.py").write_text(MARKED_TESTS, encoding="utf-8")
    result = run(["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "tests/test_marked.py"],
                 repo)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "1 passed, 2 skipped" in result.stdout
    assert re.search(r"SKIPPED .*needs Exercise piece 4, which does not pass yet", result.stdout)
    assert re.search(r"SKIPPED .*only the teachers' solved version", result.stdout)
