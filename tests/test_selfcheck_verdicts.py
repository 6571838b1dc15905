"""Verdicts a teacher can trust, tried through ``python check.py`` in a generated students'
version with hand-ins written here: correct solutions in styles other than the chapter's pass,
each way of reaching for solved code or a shipped table fails and says so, and each mistake gets
a message that names it.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools.course import chapter_code
from tools.exercise import make as make_exercise

# The chapter's own loop, read from its listing: the cases below are changes to it.
try:
    CHAPTER_LOOP = chapter_code.training_loop().replace('        print(epoch, end="\\r")\n', '')
except chapter_code.ListingMissing as missing:
    pytest.skip(str(missing), allow_module_level=True)
SAVE_AND_TEST = "    player.save_Q(PATH)\n    print(test(100))\n"


def a_main(loop: str = CHAPTER_LOOP, before: str = "", after: str = "",
           epochs: int = 200000) -> str:
    """A main of the chapter's shape: ``before`` the loop, ``loop``, ``after`` it, then the save
    and test(100)."""
    return ("def main ():\n    player = player1\n    start = 0\n"
            f"    epochs = {epochs}\n    alpha = 0.01\n" + before + loop + after + SAVE_AND_TEST)


# A copy of a shipped table's pairs made outside the checked process (no shipped file is
# opened by the hand-in itself): only the saved table can show it.
COPY_PROGRAM = ("import pickle, sys; from tictactoe_rl.tables.files import load_table; "
                "pickle.dump(load_table('Data/Q_MC_X.pth')[0], open(sys.argv[1], 'wb'))")
COPY_SHIPPED = f'''    import subprocess, sys, tempfile, os, pickle
    copy = os.path.join(tempfile.mkdtemp(), "pairs.pkl")
    subprocess.run([sys.executable, "-c", {COPY_PROGRAM!r}, copy], check=True)
    player.Q.update(pickle.load(open(copy, "rb")))
'''

# What a verdict says of a piece that is not the student's own work (the grader flags it).
NOT_OWN_WORK = ("self-check's own code", "positions that none of", "starts another Python",
                "reads the table", "opens the shipped table")
# name -> (what to type, piece, what the verdict line must say)
CORRECT = {
    "running average with visit counts": ({"main": a_main(before="    N = {}\n", loop='''
    for epoch in range(start, epochs):
        episode = Generate_episode(player, epoch)
        episode.pop()
        G = 0
        for state, action, reward in reversed(episode):
            G = gamma * G + reward
            N[(state, action)] = N.get((state, action), 0) + 1
            old = player.Q.get((state, action), 0)
            player.Q[(state, action)] = old + (G - old) / N[(state, action)]
''')}, 3, ["a running average (1/N) for alpha",
           "note: a running average (1/N, with a visit count) is Monte Carlo control too; the "
           "chapter uses a constant alpha = 0.01"]),
    "a fresh defaultdict": ({"main": a_main(
        before="    from collections import defaultdict\n    player1.Q = defaultdict(float)\n",
        loop=CHAPTER_LOOP.replace("player.Q.get((state, action),0)",
                                  "player.Q[(state, action)]"))},
        3, ["passed (as X: 200,000 episodes, alpha 0.01, gamma 0.95, saved, test(100))"]),
    "a fresh {} filled then handed to the agent": ({"main": a_main(
        before="    Q = {}\n",
        loop=CHAPTER_LOOP.replace("player.Q.", "Q.").replace("player.Q[", "Q["),
        after="    player.Q = Q\n")},
        3, ["passed (as X: 200,000 episodes, alpha 0.01, gamma 0.95, saved, test(100))"]),
    "range(1, epochs + 1)": ({"main": a_main(CHAPTER_LOOP.replace("range(start, epochs)",
                                                                  "range(1, epochs + 1)"))},
                             3, ["as X: 200,000 episodes", "note: your episodes count from 1"]),
    "torch.save of the table, a checkpoint on the way": ({"main": a_main(
        CHAPTER_LOOP + "        if epoch % 50000 == 0:\n            player.save_Q(PATH)\n")
        .replace(SAVE_AND_TEST, "    import torch\n    torch.save(player.Q, PATH)\n"
                                "    print(test(100))\n")},
        3, ["passed (as X: 200,000 episodes, alpha 0.01, gamma 0.95, saved, test(100))"]),
    "a checkpoint every 10,000 episodes": ({"main": a_main(
        CHAPTER_LOOP + "        if epoch % 10000 == 0:\n            player.save_Q(PATH)\n")},
        3, ["passed (as X: 200,000 episodes, alpha 0.01, gamma 0.95, saved, test(100))"]),
    "every legal action of a visited state set to 0 first": ({"main": a_main(
        CHAPTER_LOOP.replace("        G = 0\n", "        G = 0\n        for step in episode[:-1]:\n"
                             "            for legal in step[0].legal_actions():\n"
                             "                player.Q.setdefault((step[0], legal), 0.0)\n"))},
        3, ["passed (as X: 200,000 episodes, alpha 0.01, gamma 0.95, saved, test(100))"]),
    # the textbook's start, Q(s, a) = 0 for all s, a: pairs no episode reaches, but worth 0
    "every pair of the learner's positions set to 0 first": ({"main": a_main(before='''
    from State import all_states
    for state in all_states():
        if state.player == player.player:
            for legal in state.legal_actions():
                player.Q[(state, legal)] = 0.0
''')}, 3, ["passed (as X: 200,000 episodes, alpha 0.01, gamma 0.95, saved, test(100))"]),
    "its own gamma written as a number": ({"main": a_main(
        CHAPTER_LOOP.replace("G = gamma* G + reward", "G = 0.9 * G + reward"))},
        3, ["passed (as X: 200,000 episodes, alpha 0.01, gamma 0.9, saved, test(100))"]),
}

CHEATS = {
    "piece 1 calls the repository's schedule": ({"epsilon": '''    def epsilon_greedy(self, epoch):
        from tictactoe_rl.exploration.schedules import epsilon_at
        return epsilon_at("linear", epoch)
'''}, 1, "the 'linear' schedule is the chapter's: AI_Agent.epsilon_greedy computes it"),
    "piece 1 imports the self-check's answer key": ({"epsilon": '''
    def epsilon_greedy(self, epoch):
        import tictactoe_rl.selfcheck.reference
        return max(0.01, 1 - 0.99 * epoch / 100000)
'''}, 1, "your code imports the self-check's own code (tictactoe_rl.selfcheck.reference)"),
    "piece 1 imports the answer key under a source reader's name": ({"epsilon": '''
    def epsilon_greedy(self, epoch):
        exec(compile("import tictactoe_rl.selfcheck.reference", "inspect.py", "exec"), {})
        return max(0.01, 1 - 0.99 * epoch / 100000)
'''}, 1, "your code imports the self-check's own code (tictactoe_rl.selfcheck.reference)"),
    "piece 3 reads the self-check's code": ({"main": a_main(
        before="    source = open('tictactoe_rl/selfcheck/reference.py').read()\n")},
        3, "your code reads the self-check's own code (tictactoe_rl/selfcheck/reference.py)"),
    "main calls the solved update": ({"main": a_main('''
    from tictactoe_rl.training.monte_carlo import plain_update
    for epoch in range(start, epochs):
        episode = Generate_episode(player, epoch)
        final = episode.pop()
        plain_update(player.Q, episode, final[0], 1, gamma, alpha)
''')}, 3, "the solved trainer's Monte Carlo update is not part of the exercise"),
    "main loads a shipped table before it saves": ({"main": a_main(
        after="    player.load_Q('Data/Q_MC_X.pth')\n")},
        3, "your code opens the shipped table Data/Q_MC_X.pth while the check runs"),
    # (it reads the table in another Python, which the check's watch refuses first)
    "main copies a shipped table's pairs into its table": ({"main": a_main(after=COPY_SHIPPED)},
                                                           3, "your code starts another Python"),
    "main loads a copy of a shipped table kept under another name": ({
        "copy": ("Data/Q_MC_X.pth", "Data/my_start.pth"), "main": a_main(
            after="    from tictactoe_rl.tables.files import load_table\n"
                  "    player.Q.update(load_table('Data/my_start.pth')[0])\n")},
        3, "your code reads the table 'my_start.pth', which no update of this run made"),
    "main makes up pairs no episode had": ({"main": a_main(after='''
    for cell in range(9):
        board = [0] * 9
        board[cell], board[(cell + 1) % 9] = 1, -1
        player.Q[(State(board, 1), divmod((cell + 2) % 9, 3))] = 0.5
''')}, 3, "of them of positions that none of the 200,000 episodes it was given reached"),
    # (how many of the 9 depends on the episodes drawn for the run)
    "main saves before it trains": ({"main": a_main().replace(
        "    player = player1\n", "    player = player1\n    player.save_Q(PATH)\n").replace(
        SAVE_AND_TEST, "    print(test(100))\n")},
        3, "empty Q-table (no state-action values); train one first"),
}

MISTAKES = {
    "epsilon asked per move": ({"generate": "per move"}, 2,
                               "with the epochs 0, 1"),
    "epsilon that shrinks on each call": ({"epsilon": '''    def epsilon_greedy(self, epoch):
        self.shrinking = getattr(self, "shrinking", 1.0 / 0.9999) * 0.9999
        return max(0.01, self.shrinking)
'''}, 1, "when asked again after 13 other calls: epsilon must follow from `epoch` alone"),
    "G used before it is updated": ({"main": a_main(CHAPTER_LOOP.replace(
        "            G = gamma* G + reward\n", "").replace(
        "alpha * (G - Q_value)\n", "alpha * (G - Q_value)\n            G = gamma* G + reward\n"))},
        3, "Q was updated with G before G took the step's reward"),
    "saving inside the loop": ({"main": a_main(CHAPTER_LOOP + "        player.save_Q(PATH)\n")},
                               3, "main saves the table inside its loop (10 saves in its first "
                                  "10 episodes)"),
    "a one-step episode left out": ({"main": a_main(CHAPTER_LOOP.replace(
        "        for t in range", "        if len(episode) < 2:\n            continue\n"
                                  "        for t in range"))},
        3, "step 1 of hand-made episode 1 (1 step) was never updated"),
}


def replace_function(path: Path, name: str, source: str) -> None:
    """Write ``source`` (indented as it stands) in place of the top-level function ``name``."""
    text = path.read_text(encoding="utf-8")
    node = next(node for node in ast.parse(text).body
                if isinstance(node, ast.FunctionDef) and node.name == name)
    lines = text.splitlines()
    path.write_text("\n".join(lines[:node.lineno - 1] + source.rstrip().splitlines()
                              + lines[node.end_lineno:]) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def students(students_copy) -> Path:
    """The students' version, generated once for the module."""
    return students_copy


def hand_in(students: Path, tmp_path: Path, chapter, **code) -> Path:
    """A copy of the students' version with the chapter's solution typed in, ``code`` in place
    of its parts (main, generate, epsilon, header), ``steps`` for Episode.learning_steps and
    ``copy`` (source, copy) for a file the hand-in brings."""
    folder = tmp_path / "hand-in"
    shutil.copytree(students, folder)
    steps = code.pop("steps", None)
    if "copy" in code:                          # a file the hand-in brings along
        source, copy = code.pop("copy")
        shutil.copy(folder / source, folder / copy)
    if code.get("generate") == "per move":      # the epoch counts the moves of the game
        code["generate"] = chapter.listing("solution_Generate_episode.py").replace(
            "epoch=epoch)", "epoch=epoch + len(episods))")
    chapter.type_in_solution(folder, **code)
    if steps:
        replace_function(folder / "Episode.py", "learning_steps", steps)
    return folder


def check(folder: Path, *args: str, timeout: float = 300) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "check.py", *args], cwd=folder, capture_output=True,
                          text=True, timeout=timeout)
    return done.returncode, done.stdout + done.stderr


def piece_line(output: str, piece: int) -> str:
    return next(line for line in output.splitlines() if line.startswith(f"piece {piece} "))


@pytest.mark.slow
@pytest.mark.parametrize("style", sorted(CORRECT))
def test_a_correct_solution_in_another_style_passes(students, tmp_path, chapter, style):
    code, piece, wanted = CORRECT[style]
    folder = hand_in(students, tmp_path, chapter, **code)
    status, output = check(folder, "--piece", str(piece))
    line = piece_line(output, piece)
    assert status == 0 and ": passed (" in line, output
    for words in wanted:
        assert words in line, line
    assert "should be" not in output and "preset" not in output


@pytest.mark.slow
@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_a_piece_that_reaches_for_solved_code_or_a_shipped_table_fails_saying_so(
        students, tmp_path, chapter, cheat):
    code, piece, wanted = CHEATS[cheat]
    folder = hand_in(students, tmp_path, chapter, **code)
    status, output = check(folder, "--piece", str(piece))
    line = piece_line(output, piece)
    assert status == 1 and "FAILED" in line, output
    assert wanted in line, line


@pytest.mark.slow
@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_each_mistake_gets_a_message_that_names_it(students, tmp_path, chapter, mistake):
    code, piece, wanted = MISTAKES[mistake]
    folder = hand_in(students, tmp_path, chapter, **code)
    status, output = check(folder, "--piece", str(piece))
    line = piece_line(output, piece)
    assert status == 1 and "FAILED" in line, output
    assert wanted in line, line
    assert "(1 steps" not in output


@pytest.mark.slow
def test_saving_inside_the_loop_is_told_how_long_the_run_would_take(students, tmp_path, chapter):
    code, _, _ = MISTAKES["saving inside the loop"]
    folder = hand_in(students, tmp_path, chapter, **code)
    _, output = check(folder, "--piece", "3")
    found = re.search(r"takes (\d+) ms here, so its 200,000 episodes would spend about "
                      r"([\d.]+) (h|min) saving", piece_line(output, 3))
    assert found, output
    milliseconds, length, unit = int(found[1]), float(found[2]), found[3]
    hours = length if unit == "h" else length / 60
    assert milliseconds >= 1 and hours == pytest.approx(milliseconds * 200 / 3600, rel=0.1)


@pytest.mark.slow
def test_the_learner_that_plays_o_in_piece_5_is_named(students, tmp_path, chapter):
    x_only = '''def learning_steps(moves, side):
    steps = []
    for state, action, reward in moves:
        if state.player == 1:
            steps.append((state, action, reward))
        elif steps and reward:
            steps[-1] = (steps[-1][0], steps[-1][1], steps[-1][2] + reward)
    return steps
'''
    folder = hand_in(students, tmp_path, chapter, steps=x_only)
    status, output = check(folder, "--piece", "5")
    assert status == 1
    assert "Episode.learning_steps(moves, side=-1), the learner playing O:" in \
        piece_line(output, 5), output


@pytest.mark.slow
def test_a_main_that_copies_a_shipped_table_only_in_the_training_fails_the_training(
        students, tmp_path, chapter):
    """Honest on the check's own episodes, a copy of Data/Q_MC_X.pth once it plays real games:
    the table it saves there is judged too."""
    sneaky = a_main(epochs=3000, after="    if player.Q.get((State(), (1, 1)), 0):\n"
                    + "\n".join("    " + line for line in COPY_SHIPPED.splitlines()) + "\n")
    folder = hand_in(students, tmp_path, chapter, main=sneaky)
    status, output = check(folder, timeout=400)
    assert piece_line(output, 3).endswith("saved, test(100))"), output
    assert status == 1 and "Training your X with your main: failed -- your code starts another " \
        "Python" in output, output
    assert "the training of X" in output.splitlines()[-1]


@pytest.mark.slow
def test_a_trainer_run_before_its_piece_is_written_names_the_piece_in_one_line(students):
    for script, piece in (("MC_Trainer.py", 1), ("SARSA_Trainer.py", 1), ("Q_Trainer.py", 1)):
        done = subprocess.run([sys.executable, script], cwd=students, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.strip().splitlines() == [
            f"Not written yet (its comments say what it does; a hint: python check.py --hint "
            f"{piece}): Exercise piece {piece}: write AI_Agent.epsilon_greedy, then run python "
            "check.py"]
        assert done.stdout == ""


def test_the_students_version_holds_no_solved_schedule_or_update(students):
    probe = ("import tictactoe_rl.exploration.schedules as s, tictactoe_rl.training.monte_carlo as m\n"
             "for call in (lambda: s.epsilon_at('linear', 5), lambda: s.epsilon_at('exp', 5),"
             " lambda: m.refined_update({}, [], None, 1, 0.9, 0.1)):\n"
             "    try:\n        call()\n    except ValueError as error:\n"
             "        print(type(error).__name__)\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=students, capture_output=True,
                          text=True, timeout=60)
    assert done.stdout.split() == ["ValueError", "ValueError", "NotInTheExercise"], done.stderr
    text = (students / "tictactoe_rl" / "exploration" / "schedules.py").read_text(encoding="utf-8")
    assert "import math" not in text and "decay_epochs" not in text.split("def epsilon_at")[1]


@pytest.mark.slow
@pytest.mark.skipif(sys.prefix == sys.base_prefix, reason="needs to run in a virtualenv")
def test_a_virtualenv_inside_the_students_folder_is_not_the_students_code(
        students, tmp_path, chapter):
    """The README sets up .venv in the students' folder: the installed packages there, through
    which the check loads tables, are not the student's code."""
    folder = hand_in(students, tmp_path, chapter)
    (folder / ".venv").symlink_to(sys.prefix, target_is_directory=True)
    done = subprocess.run([str(folder / ".venv" / "bin" / "python"), "check.py", "--piece", "3"],
                          cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and ": passed (as X" in done.stdout, done.stdout + done.stderr


# The cases the grader's road sees differently from check.py's, graded as a class below: every
# cheat (its box holds no shipped table and takes no file a hand-in brings), the correct styles
# that write a file of their own or keep pairs no episode reached, and a mistake. The verdict of
# every other case is check.py's own, which the tests above prove case by case.
THROUGH_THE_GRADER = {
    **{f"cheat {name}": (case, False) for name, case in CHEATS.items()},
    **{f"correct {name}": (CORRECT[name], True) for name in (
        "torch.save of the table, a checkpoint on the way", "running average with visit counts",
        "every pair of the learner's positions set to 0 first")},
    "mistake G used before it is updated": (MISTAKES["G used before it is updated"], False)}


@pytest.mark.slow
def test_every_case_gets_its_verdict_through_the_class_grader_too(students, tmp_path, chapter):
    """Hand-ins graded as one class by ``tools/grade.py`` (the teacher's road): every correct
    style earns its piece, every cheat and mistake earns nothing for it, and the note carries
    the check's message."""
    import csv

    folders, names = tmp_path / "class", {}
    folders.mkdir()
    for number, (name, ((code, piece, wanted), right)) in enumerate(
            sorted(THROUGH_THE_GRADER.items())):
        made = hand_in(students, tmp_path / f"{number}", chapter, **dict(code))
        names[name] = f"{number:02d}"
        shutil.move(made, folders / names[name])
    done = subprocess.run([sys.executable, str(Path(make_exercise.ROOT) / "tools" / "grade.py"),
                           *sorted(map(str, folders.iterdir())), "--out", str(tmp_path / "report"),
                           "--timeout", "300"], capture_output=True, text=True, timeout=3000)
    assert done.returncode == 0, done.stderr[-3000:]
    with open(tmp_path / "report" / "report.csv", newline="", encoding="utf-8") as stream:
        rows = {row["name"]: row for row in csv.DictReader(stream)}
    for name, ((code, piece, wanted), right) in THROUGH_THE_GRADER.items():
        row = rows[names[name]]
        assert row["status"] == "graded", (name, row)
        if right:
            assert row[f"piece {piece}"] == "passed" and row[f"points {piece}"] != "0", (name, row)
            assert row["flags"] == "", (name, row["flags"])
            continue
        # reaching into the check's code, for a table (even one the box lacks) or another
        # Python, or pairs made up: not the student's own work, flagged; every other cheat or
        # mistake fails
        flagged = any(words in wanted for words in NOT_OWN_WORK)
        assert row[f"piece {piece}"] == ("flagged" if flagged else "failed"), (name, row)
        assert row[f"points {piece}"] == "0", (name, row)
        assert ("not the student's own work" in row["flags"]) == flagged, (name, row["flags"])
        # the box holds no shipped table (and takes no file a hand-in brings): a cheat that
        # reaches for one fails there for want of it, in other words
        if "shipped" not in wanted and "copy" not in code:
            assert wanted[:60] in row["note"], (name, row["note"])
