"""Every wrong Monte Carlo update the check knows of is told from the right one and named:
first on the judge itself (each model of ``tictactoe_rl.selfcheck.episodes`` against the answer key), then
with hand-ins written here, in styles of their own, through ``python check.py`` in a generated
students' version and, for a few, through ``tools/grade.py`` as one class. Each message says
what the code did, what it should do and the chapter's line that says so.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tictactoe_rl.selfcheck import reference
from tictactoe_rl.selfcheck.common import Failure
from tictactoe_rl.selfcheck.episodes import CORRECT, MODELS, RUNNING_AVERAGE, hand_made
from tictactoe_rl.selfcheck.piece_main import fit, judge_values
from State import O, X
from tests.test_selfcheck_verdicts import (  # noqa: F401  (students: a fixture, used by name)
    check, hand_in, piece_line, students)

ROOT = Path(__file__).resolve().parent.parent


def table_of(side: int, values: dict) -> dict:
    """The table whose hand-made pairs hold ``values`` ({(episode, step): value})."""
    return {(state, action): values[(number, index)]
            for number, episode in enumerate(hand_made(side))
            for index, (state, action, _) in enumerate(episode[:-1])}


# --- the judge: every model told apart, every one named ---------------------------------------

@pytest.mark.parametrize("side", [X, O])
@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("alpha, gamma", [(0.01, 0.95), (0.1, 0.9), (RUNNING_AVERAGE, 0.99)])
def test_the_episodes_tell_each_update_from_every_other(side, model, alpha, gamma):
    """The fit tries the right update first, with every step size and gamma it knows: that it
    lands on the mistake means no alpha or gamma makes the right update give that table."""
    got = reference.expected(side, model, alpha, gamma)
    assert fit(side, got, gamma, 0.01 if alpha == RUNNING_AVERAGE else alpha)[:2] == (model,
                                                                                       alpha)


NAMED = {
    "forwards": "walk the episode backwards",
    "reward": "moved towards its own reward",
    "carry": "carries the return of the last episode",
    "drop last": "the last step of each episode, the one with the result, is never updated",
    "late G": "Q was updated with G before G took the step's reward",
    "no minus Q": "(Q + alpha * G: the - Q is left out)",
    "extra discount": "discounted once too often",
    "first visit ever": "only the first time any episode meets it",
    "flip G": "flips from one step to the next",
    "flip G, reversed": "flips from one step to the next",
    "flip reward": "flips from one step to the next",
    "flip reward, reversed": "flips from one step to the next",
    "Q-learning target": "its target is Q-learning's",
    "Q-learning target, forwards": "its target is Q-learning's",
    "TD target": "its target is a TD one",
    "TD target, forwards": "its target is a TD one",
    "discount from the start": "discounted from the start of the episode",
    "last mover's sign": "taken from who moved last in the episode",
    "next mover's sign": "taken from who moved last in the episode",
}


@pytest.mark.parametrize("side", [X, O])
@pytest.mark.parametrize("model", [model for model in MODELS if model != CORRECT])
def test_each_mistake_is_named_with_the_chapters_line(side, model):
    table = table_of(side, reference.expected(side, model, 0.01, 0.95))
    with pytest.raises(Failure) as failed:
        judge_values(side, table, 0.95, False, 0.01, "main's alpha = 0.01")
    message = str(failed.value)
    wanted = NAMED.get(model) or ("its values for O have X's sign" if side == O
                                  else "its values for X have the wrong sign")
    assert wanted in message and "the chapter's main says so: " in message \
        or (model == "no negation" and side == O and "G = gamma* G + reward" in message), message


@pytest.mark.parametrize("side", [X, O])
def test_a_step_size_that_is_not_alpha_is_named(side):
    table = table_of(side, reference.expected(side, CORRECT, 0.0095, 0.95))
    with pytest.raises(Failure, match=r"your update moves by 0\.0095 of the way; alpha is 0\.01 "
                                      r"\(main's alpha = 0\.01\)") as failed:
        judge_values(side, table, 0.95, False, 0.01, "main's alpha = 0.01")
    assert "player.Q[(state, action)] = Q_value + alpha * (G - Q_value)" in str(failed.value)


@pytest.mark.parametrize("side", [X, O])
def test_the_alpha_main_was_given_and_a_running_average_pass(side):
    for alpha in (0.01, 0.1):
        table = table_of(side, reference.expected(side, CORRECT, alpha, 0.95))
        assert judge_values(side, table, 0.95, False, alpha, f"main's alpha = {alpha}") \
            == (alpha, 0.95)
    table = table_of(side, reference.expected(side, CORRECT, RUNNING_AVERAGE, 0.95))
    assert judge_values(side, table, 0.95, False, 0.01, "main's alpha = 0.01") \
        == (RUNNING_AVERAGE, 0.95)
    # no alpha anywhere: the chapter's 0.01 holds
    table = table_of(side, reference.expected(side, CORRECT, 0.1, 0.95))
    with pytest.raises(Failure, match=r"moves by 0\.1 of the way; alpha is 0\.01 \(the "
                                      r"chapter's alpha = 0\.01\)"):
        judge_values(side, table, 0.95, False, None, "")


# --- hand-ins in styles of their own, through check.py -------------------------------------------

def a_main(update: str, *, before: str = "", alpha: str = "    alpha = 0.01\n",
           save: str = "    player1.save_Q(PATH)\n") -> str:
    """A main that walks ``steps`` (the episode without its final tuple) with ``update``."""
    return ("def main():\n" + alpha + before
            + "    for epoch in range(200000):\n"
              "        *steps, _ = Generate_episode(player1, epoch)\n"
              "        G = 0.0\n" + update + save + "    print(test(100))\n")


BACKWARDS = "        for state, action, reward in steps[::-1]:\n"
RIGHT = BACKWARDS + ("            G = reward + gamma * G\n"
                     "            old = player1.Q.get((state, action), 0.0)\n"
                     "            player1.Q[state, action] = old + alpha * (G - old)\n")
BOTH_SIDES_RETURN = "            G = gamma * G + player1.player * reward\n"

# name -> (hand-in, piece, what the piece's line must say)
MISTAKES = {
    "the - Q left out": ({"main": a_main(BACKWARDS + (
        "            G = reward + gamma * G\n"
        "            player1.Q[state, action] = player1.Q.get((state, action), 0.0) "
        "+ alpha * G\n"))}, 3, "(Q + alpha * G: the - Q is left out)"),
    "the - Q left out, with +=": ({"main": a_main(BACKWARDS + (
        "            G = reward + gamma * G\n"
        "            player1.Q.setdefault((state, action), 0.0)\n"
        "            player1.Q[state, action] += alpha * G\n"))}, 3, "the - Q is left out"),
    "G = gamma * (G + reward)": ({"main": a_main(RIGHT.replace(
        "G = reward + gamma * G", "G = gamma * (G + reward)"))}, 3,
        "discounted once too often"),
    "gamma ** (k + 1) summed by index": ({"main": a_main(
        "        for k, (state, action, reward) in enumerate(steps):\n"
        "            G = sum(gamma ** (j - k + 1) * steps[j][2] for j in range(k, len(steps)))\n"
        "            old = player1.Q.get((state, action), 0.0)\n"
        "            player1.Q[state, action] = old + alpha * (G - old)\n")}, 3,
        "discounted once too often"),
    "a step size typed into the update": ({"main": a_main(RIGHT.replace(
        "old + alpha * (G - old)", "old + 0.02 * (G - old)"))}, 3,
        "your update moves by 0.02 of the way; alpha is 0.01 (main's alpha = 0.01)"),
    "a step size typed in, alpha from the module": ({"main": a_main(RIGHT.replace(
        "old + alpha * (G - old)", "old + 0.05 * (G - old)"), alpha="")}, 3,
        "your update moves by 0.05 of the way; alpha is 0.01 (the module's alpha = 0.01)"),
    "save_Q with the string 'PATH'": ({"main": a_main(RIGHT, save="    player1.save_Q('PATH')\n")},
                                      3, "main saved its table with save_Q('PATH'), a path of "
                                         "its own, not PATH"),
    "save_Q with the chapter's own file": ({"main": a_main(
        RIGHT, save="    player1.save_Q('Data/Q_MC_4.pth')\n")}, 3,
        "main saved its table with save_Q('Data/Q_MC_4.pth'), a path of its own"),
    "the Q-learning target": ({"main": a_main(
        "        for k in reversed(range(len(steps))):\n"
        "            state, action, reward = steps[k]\n"
        "            target = reward\n"
        "            if k + 1 < len(steps):\n"
        "                after = steps[k + 1][0]\n"
        "                target += gamma * max(player1.Q.get((after, b), 0.0)\n"
        "                                      for b in after.legal_actions())\n"
        "            old = player1.Q.get((state, action), 0.0)\n"
        "            player1.Q[state, action] = old + alpha * (target - old)\n")}, 3,
        "its target is Q-learning's"),
    "first visit counted over all episodes": ({"main": a_main(RIGHT.replace(
        "            old = ", "            if (state, action) in seen:\n                continue\n"
                             "            seen.add((state, action))\n            old = "),
        before="    seen = set()\n")}, 3, "only the first time any episode meets it"),
    "the sign reversed for X": ({"main": a_main(RIGHT.replace(
        "G = reward + gamma * G", "G = gamma * G - reward"))}, 3,
        "its values for X have the wrong sign"),
    "a discount applied from the start": ({"main": a_main(
        "        for k, (state, action, reward) in enumerate(steps):\n"
        "            G = sum(gamma ** j * steps[j][2] for j in range(k, len(steps)))\n"
        "            old = player1.Q.get((state, action), 0.0)\n"
        "            player1.Q[state, action] = old + alpha * (G - old)\n")}, 3,
        "discounted from the start of the episode (the reward of step t by gamma ** t"),
    "an optimistic initial Q": ({"main": a_main(RIGHT.replace(
        "player1.Q.get((state, action), 0.0)", "player1.Q.get((state, action), 0.5)"))}, 3,
        "a pair not yet in the table was read as 0.5, not 0"),
    "a table written as JSON, save_Q never called": ({"main": a_main(RIGHT, save=(
        "    import json\n"
        "    with open(PATH, 'w') as stream:\n"
        "        json.dump({repr(key): value for key, value in player1.Q.items()}, stream)\n"))},
        3, "main never called save_Q: it wrote PATH itself, as JSON text"),
    "a sign taken from the last mover": ({"main": a_main(
        "        mover = -_[0].player        # who made the last move\n" + RIGHT.replace(
            "G = reward + gamma * G", "G = mover * reward + gamma * G"))}, 3,
        "the rewards' sign was taken from who moved last in the episode"),
}


def both_sides_generate(chapter) -> str:
    """The chapter's Generate_episode, extended for an O learner (piece 4)."""
    text = chapter.listing("solution_Generate_episode.py")
    return text.replace("    state = State()\n", "    state = State()\n    if player.player == -1:"
                        "\n        state, _ = env.next_state(state, player2.get_action(state="
                        "state))\n").replace("player1.get_action", "player.get_action")


@pytest.mark.slow
@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_each_mistake_fails_its_piece_and_is_named(students, tmp_path, chapter, mistake):
    code, piece, wanted = MISTAKES[mistake]
    folder = hand_in(students, tmp_path, chapter, **code)
    status, output = check(folder, "--piece", str(piece))
    line = piece_line(output, piece)
    assert status == 1 and "FAILED" in line and wanted in line, output
    assert "the chapter's main says so: " in line, line


@pytest.mark.slow
def test_the_minus_q_left_out_fails_through_check(students, tmp_path, chapter):
    """The headline case, in the quick suite: it passed piece 3 before the episodes updated a
    pair twice."""
    code, piece, wanted = MISTAKES["the - Q left out"]
    status, output = check(hand_in(students, tmp_path, chapter, **code), "--piece", "3")
    assert status == 1 and wanted in piece_line(output, 3), output


@pytest.mark.slow
def test_a_literal_path_fails_through_check_and_leaves_no_file(students, tmp_path, chapter):
    code, piece, wanted = MISTAKES["save_Q with the string 'PATH'"]
    folder = hand_in(students, tmp_path, chapter, **code)
    status, output = check(folder, "--piece", "3")
    assert status == 1 and wanted in piece_line(output, 3), output
    assert not (folder / "PATH").exists()


@pytest.mark.slow
def test_a_sign_that_flips_on_each_step_for_o_is_named(students, tmp_path, chapter):
    main = a_main(BACKWARDS + ("            G = player1.player * reward - gamma * G\n"
                               "            old = player1.Q.get((state, action), 0.0)\n"
                               "            player1.Q[state, action] = old + alpha * (G - old)\n"))
    folder = hand_in(students, tmp_path, chapter, main=main, generate=both_sides_generate(chapter))
    status, output = check(folder, "--piece", "4")
    assert "flips from one step to the next" in piece_line(output, 4), output


@pytest.mark.slow
def test_epsilon_without_its_floor_is_told_the_plus_is_missing(students, tmp_path, chapter):
    epsilon = ("    def epsilon_greedy(self, epoch):\n"
               "        return (1.0 - 0.01) * math.exp(-epoch / 20000)\n")
    folder = hand_in(students, tmp_path, chapter, epsilon=epsilon)
    status, output = check(folder, "--piece", "1")
    line = piece_line(output, 1)
    assert "should be 1.0, got 0.99: the `0.01 +` is missing" in line, output
    assert "final + (start - final)* math.exp(-1*epoch/decay)" in line


CORRECT_STYLES = {
    "a running average with a Counter": a_main(BACKWARDS + (
        "            G = reward + gamma * G\n"
        "            visits[state, action] += 1\n"
        "            old = player1.Q.get((state, action), 0.0)\n"
        "            player1.Q[state, action] = old + (G - old) / visits[state, action]\n"),
        before="    from collections import Counter\n    visits = Counter()\n"),
    "the module's alpha, none of main's own": a_main(RIGHT, alpha=""),
    "an alpha of 0.1 of main's own, used by name": a_main(RIGHT, alpha="    alpha = 0.1\n"),
    "O and X alike, the reward made the learner's": a_main(RIGHT.replace(
        "            G = reward + gamma * G\n", BOTH_SIDES_RETURN)),
}


@pytest.mark.slow
@pytest.mark.parametrize("style", sorted(CORRECT_STYLES))
def test_a_correct_main_in_a_style_of_its_own_passes(students, tmp_path, chapter, style):
    folder = hand_in(students, tmp_path, chapter, main=CORRECT_STYLES[style],
                     generate=both_sides_generate(chapter))
    both = "alike" in style             # the others leave the rewards X's: piece 3 alone
    status, output = check(folder, "--piece", "3", *(["--piece", "4"] if both else []))
    assert status == 0, output
    assert ": passed (as X: 200,000 episodes" in piece_line(output, 3)
    if both:
        assert ": passed (as O: 200,000 episodes" in piece_line(output, 4)


@pytest.mark.slow
def test_mistakes_are_named_through_the_class_grader(students, tmp_path, chapter):
    """A few of the hand-ins graded as one class by ``tools/grade.py``: each mistake costs its
    piece and its note names it; the correct one earns it."""
    cases = {"mistake": MISTAKES["the - Q left out"],
             "literal": MISTAKES["save_Q with the string 'PATH'"],
             "discount": MISTAKES["G = gamma * (G + reward)"],
             "alpha": MISTAKES["a step size typed into the update"],
             "start": MISTAKES["a discount applied from the start"],
             "optimistic": MISTAKES["an optimistic initial Q"],
             "mover": MISTAKES["a sign taken from the last mover"],
             "json": MISTAKES["a table written as JSON, save_Q never called"],
             "unasked": ({"generate": "import random\n" + generate_with(
                 chapter, *EPISODE_MISTAKES["the learner's move chosen at random"][:2])}, 2,
                 EPISODE_MISTAKES["the learner's move chosen at random"][2]),
             "right": ({"main": CORRECT_STYLES["a running average with a Counter"]}, 3, "")}
    folders = tmp_path / "class"
    folders.mkdir()
    for name, (code, _, _) in cases.items():
        shutil.move(hand_in(students, tmp_path / name, chapter, **dict(code)), folders / name)
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"),
                           *sorted(map(str, folders.iterdir())), "--out", str(tmp_path / "report"),
                           "--timeout", "300"], capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    with open(tmp_path / "report" / "report.csv", newline="", encoding="utf-8") as stream:
        rows = {row["name"]: row for row in csv.DictReader(stream)}
    for name, (_, piece, wanted) in cases.items():
        row = rows[name]
        assert row["status"] == "graded", (name, row)
        if not wanted:
            assert row["piece 3"] == "passed" and row["flags"] == "", (name, row)
            continue
        assert row[f"piece {piece}"] == "failed" and row[f"points {piece}"] == "0", (name, row)
        assert wanted in row["note"], (name, row["note"])


# --- Generate_episode: what the learner was (not) asked, and the agents the student knows -------

def generate_with(chapter, old: str, new: str) -> str:
    text = chapter.listing("solution_Generate_episode.py")
    assert old in text
    return text.replace(old, new)


EPISODE_MISTAKES = {
    "the learner's move chosen at random": (
        "player1.get_action(state=state, epoch=epoch)",
        "random.choice(env.legal_actions(state))",
        "the learner was never asked for its move"),
    "the learner's move read off its table": (
        "player1.get_action(state=state, epoch=epoch)",
        "max(env.legal_actions(state), key=lambda a: player1.Q.get((state, a), 0))",
        "the learner was never asked for its move"),
    "a method the opponent does not have": (
        "player2.get_action(state=after_state)", "player2.choose_move(after_state)",
        "'Random_Agent' object has no attribute 'choose_move'"),
}


@pytest.mark.slow
@pytest.mark.parametrize("mistake", sorted(EPISODE_MISTAKES))
def test_each_episode_mistake_is_named_as_the_student_knows_it(students, tmp_path, chapter,
                                                                mistake):
    old, new, wanted = EPISODE_MISTAKES[mistake]
    generate = "import random\n" + generate_with(chapter, old, new)
    status, output = check(hand_in(students, tmp_path, chapter, generate=generate),
                           "--piece", "2")
    line = piece_line(output, 2)
    assert status == 1 and wanted in line, output
    assert "not the game's current one" not in line and "Recording" not in output, line


@pytest.mark.slow
def test_a_file_that_is_no_table_is_named_without_the_checks_scratch_path(students, tmp_path,
                                                                          chapter):
    """save_Q called, then PATH overwritten with bytes of no table: the message names PATH,
    never the file the check chose for it."""
    folder = hand_in(students, tmp_path, chapter, main=a_main(RIGHT, save=(
        "    player1.save_Q(PATH)\n"
        "    with open(PATH, 'wb') as stream:\n"
        "        stream.write(bytes(range(256)))\n")))
    status, output = check(folder, "--piece", "3")
    line = piece_line(output, 3)
    assert status == 1 and "the file main saved at PATH cannot be read as a table: " in line
    assert "q.pth" not in line and "/tmp" not in line, line


@pytest.mark.slow
def test_a_call_that_does_not_fit_is_told_in_the_students_names(students, tmp_path, chapter):
    """main calls Generate_episode without its epoch: the message names Generate_episode as the
    student wrote it, not the check's stand-in for it."""
    main = a_main(RIGHT).replace("Generate_episode(player1, epoch)", "Generate_episode(player1)")
    status, output = check(hand_in(students, tmp_path, chapter, main=main), "--piece", "3")
    line = piece_line(output, 3)
    assert status == 1 and "Generate_episode() missing 1 required positional argument: " \
        "'epoch'" in line, line
    assert "StandIns" not in line and "generate()" not in line, line
