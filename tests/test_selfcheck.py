"""The self-check, tried as students use it: the chapter's solution typed in as printed, correct
mains in other styles, and each common mistake -- every one must get its own hint.

Each case types code into a fresh copy of the students' version and runs ``python check.py``
there, as a student does.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tools.course import chapter_code

pytestmark = pytest.mark.slow   # a check.py process per case, on a generated exercise

ROOT = Path(__file__).resolve().parent.parent

# The chapter's own loop, read from its listing: the cases below are changes to it.
try:
    CHAPTER_LOOP = chapter_code.training_loop()
except chapter_code.ListingMissing as missing:
    pytest.skip(str(missing), allow_module_level=True)


def a_main(loop: str, head: str = "    start = 0\n    epochs = 200000\n    alpha = 0.01\n",
           tail: str = "    player.save_Q(PATH)\n    print(test(100))\n") -> str:
    """A main of the chapter's shape with its loop (and head or tail) replaced."""
    return "def main ():\n    player = player1\n" + head + loop + tail


STYLES = {
    "reversed": a_main('''
    for epoch in range(start, epochs):
        episode = Generate_episode(player, epoch)
        final = episode.pop()
        G = 0.0
        for state, action, reward in reversed(episode):
            G = gamma * G + reward
            player.Q[(state, action)] = player.get_Q(state, action) + alpha * (
                G - player.get_Q(state, action))
'''),
    "while episode": a_main('''
    for epoch in range(epochs):
        episode = Generate_episode(player1, epoch)
        episode.pop()
        G = 0
        while episode:
            state, action, reward = episode.pop()
            G = reward + gamma * G
            old = player1.Q.get((state, action), 0)
            player1.Q[(state, action)] = (1 - alpha) * old + alpha * G
'''),
    "slice without pop, tqdm, local gamma": a_main('''
    from tqdm import tqdm
    gamma = 0.9
    for epoch in tqdm(range(start, epochs)):
        episode = Generate_episode(player, epoch)
        G = 0
        for state, action, reward in episode[-2::-1]:
            G = gamma * G + reward
            key = (state, action)
            player.Q[key] = player.Q.get(key, 0) + alpha * (G - player.Q.get(key, 0))
'''),
    "module alpha, fewer episodes": "alpha = 0.05\n\n" + a_main(
        CHAPTER_LOOP, head="    start = 0\n    epochs = 30000\n"),
    "all updates after all episodes": a_main('''
    episodes = [Generate_episode(player, epoch) for epoch in range(start, epochs)]
    for episode in episodes:
        G = 0
        for state, action, reward in reversed(episode[:-1]):
            G = gamma * G + reward
            player.Q[(state, action)] = player.Q.get((state, action), 0) + alpha * (
                G - player.Q.get((state, action), 0))
'''),
    "numpy epochs": a_main(CHAPTER_LOOP.replace("range(start, epochs)",
                                                "__import__('numpy').arange(start, epochs)")),
}

# A Generate_episode and a main that work for either side, taking Q = player1.Q at import.
EITHER_SIDE_HEADER = ("PATH = 'Data/Q_MC_both.pth'\n\nenv = TicTacToe(State())\n"
                      "player1 = AI_Agent(1, env, graphics=None, Q_table_PATH=None)\n"
                      "player2 = Random_Agent(-1, env, graphics=None)\nQ = player1.Q\n\n"
                      "gamma = 0.9\n\n")
EITHER_SIDE_GENERATE = '''def Generate_episode(player, epoch):
    steps, state = [], State()
    while not env.end_of_game(state):
        if state.player != player.player:
            state, _ = env.next_state(state, player2.get_action(state=state))
            continue
        action = player.get_action(state=state, epoch=epoch)
        after, reward = env.next_state(state, action)
        if not env.end_of_game(after):
            after, reward = env.next_state(after, player2.get_action(state=after))
        steps.append((state, action, reward))
        state = after
    return steps + [(state,)]
'''
EITHER_SIDE_MAIN = a_main('''
    for epoch in range(start, epochs):
        episode = Generate_episode(player, epoch)
        episode.pop()
        G = 0
        for state, action, reward in reversed(episode):
            G = gamma * G + player.player * reward
            Q[(state, action)] = Q.get((state, action), 0) + alpha * (G - Q.get((state, action), 0))
''')

# mistake -> (piece, what to type, a piece of the hint it must get)
MISTAKES = {
    "forwards walk": (3, {"main": a_main(CHAPTER_LOOP.replace(
        "episode.pop()\n        for t in range(len(episode)):\n            state, action, reward "
        "= episode.pop() # LIFO - Stack",
        "episode.pop()\n        for state, action, reward in episode:"))},
        "walk the episode backwards"),
    "reward instead of G": (3, {"main": a_main(CHAPTER_LOOP.replace(
        "alpha * (G - Q_value)", "alpha * (reward - Q_value)"))}, "towards its own reward"),
    "no gamma": (3, {"main": a_main(CHAPTER_LOOP.replace("G = gamma* G + reward",
                                                         "G = G + reward"))},
                 "G is not discounted"),
    "alpha ignored": (3, {"main": a_main(CHAPTER_LOOP.replace(
        "Q_value + alpha * (G - Q_value)", "G"))}, "Q is set to G itself"),
    "G not reset per episode": (3, {"main": a_main(
        CHAPTER_LOOP.replace("        G = 0\n", ""), head="    start = 0\n    epochs = 200000\n"
        "    alpha = 0.01\n    G = 0\n")}, "G must start again at 0"),
    "dropped last step": (3, {"main": a_main(CHAPTER_LOOP.replace(
        "episode.pop()\n        for t", "episode.pop()\n        episode.pop()\n        for t"))},
        "is never updated"),
    "no pop of the final tuple": (3, {"main": a_main(CHAPTER_LOOP.replace(
        "        episode.pop()\n        for t", "        for t"))},
        "take it off with episode.pop()"),
    "Q read without a default": (3, {"main": a_main(CHAPTER_LOOP.replace(
        "player.Q.get((state, action),0)", "player.Q[(state, action)]"))},
        "has no entry yet: read it with player.Q.get((state, action), 0)"),
    "no save_Q": (3, {"main": a_main(CHAPTER_LOOP, tail="    print(test(100))\n")},
                  "main must save the trained table"),
    "no test(100)": (3, {"main": a_main(CHAPTER_LOOP, tail="    player.save_Q(PATH)\n")},
                     "print(test(100))"),
    "a state after the move": (2, {"generate": "the chapter's, storing after_state"},
                               "a copy of the position before your move"),
    "epsilon never decays": (1, {"epsilon": "    def epsilon_greedy(self, epoch):\n"
                                            "        return 1.0\n"}, "never decays"),
    "epsilon rises again": (1, {"epsilon": '''    def epsilon_greedy (self, epoch):
        if epoch > 100000:
            return 1.0
        return 1.0 - 0.99 * epoch / 100000
'''}, "must never grow"),
    "epsilon below its floor": (1, {"epsilon": '''    def epsilon_greedy (self, epoch):
        return max(0.0, 1.0 - 0.99 * epoch / 100000)
'''}, "must not go below 0.01"),
    "exponential, time constant too long": (1, {"epsilon": '''    def epsilon_greedy (self, epoch):
        start = 1.0
        final = 0.01
        decay = 100000
        return final + (start - final)* math.exp(-1*epoch/decay)
'''}, "decays too slowly (exponential, time constant 100,000)"),
    "the skeleton's decay of 100": (1, {"epsilon": '''    def epsilon_greedy (self, epoch):
        start = 1.0
        final = 0.01
        decay = 100
        if epoch > decay:
            return final
        return  start - (start - final) * epoch/decay
'''}, "decays too fast (linear, down to 0.01 at episode 100)"),
    "exit() in main": (3, {"main": a_main(CHAPTER_LOOP, tail="    exit()\n")}, "called exit()"),
}
def chapter_generate(chapter) -> str:
    return chapter.listing("solution_Generate_episode.py")


@pytest.fixture(scope="module")
def students(students_copy) -> Path:
    """The students' version, generated once."""
    return students_copy


def typed(students: Path, tmp_path: Path, chapter, **code) -> Path:
    folder = tmp_path / "student"
    shutil.copytree(students, folder)
    chapter.type_in_solution(folder, **code)
    return folder


def check(folder: Path, *args: str, timeout: float = 200) -> tuple[int, str, float]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "check.py", *args], cwd=folder, capture_output=True,
                          text=True, timeout=timeout)
    return done.returncode, done.stdout + done.stderr, time.monotonic() - started


def test_the_chapters_solution_as_printed_passes_and_is_trained(students, tmp_path, chapter):
    folder = typed(students, tmp_path, chapter)
    code, output, _ = check(folder, "--json", str(tmp_path / "r.json"))
    assert code == 0, output
    lines = output.splitlines()
    assert len(lines) == 7, output        # five pieces, one training line, the summary
    assert lines[0].startswith("piece 1") and lines[0].endswith(
        "passed (linear, down to 0.01 at episode 100,000)")
    assert "passed (as X: 200,000 episodes, alpha 0.01, gamma 0.95, saved, test(100))" in lines[2]
    assert lines[3].endswith("not attempted (Generate_episode and main do not look at the "
                             "learner's side (neither reads player.player), so they were not run "
                             "for O; pieces 2 and 3 judge X apart)"), lines[3]
    assert lines[4].endswith("not attempted (Episode.learning_steps, the two updates and Nim's "
                             "Q-learning are all still the issued stubs)"), lines[4]
    assert "Your X after 200,000 episodes of your main against Random_Agent_Advanced" in lines[5]
    assert lines[6] == "Pieces that count: 1, 2, 3 -- all pass."
    result = json.loads((tmp_path / "r.json").read_text())
    assert [p["verdict"] for p in result["pieces"]] == ["passed"] * 3 + ["not attempted"] * 2
    wins, losses, _ = result["training"]["X"]["exact"]["random"]
    assert losses < 0.01 and wins > 0.9


@pytest.mark.parametrize("style", sorted(STYLES))
def test_a_correct_main_in_any_reasonable_style_passes(students, tmp_path, chapter, style):
    folder = typed(students, tmp_path, chapter, main=STYLES[style])
    code, output, _ = check(folder, "--piece", "3")
    assert code == 0 and "piece 3" in output and ": passed (as X" in output, output


@pytest.mark.parametrize("style", sorted(STYLES))
def test_a_correct_main_in_any_reasonable_style_trains_a_table_its_games_explain(
        students, tmp_path, chapter, style):
    """The training (alone: ``run --train``, as check.py starts it) of each style, for 2,000
    episodes: the table it saves is the update of the games the check witnessed."""
    main = STYLES[style].replace("epochs = 200000", "epochs = 2000").replace(
        "epochs = 30000", "epochs = 2000")
    folder = typed(students, tmp_path, chapter, main=main)
    done = subprocess.run([sys.executable, "-m", "tictactoe_rl.selfcheck.run", "--train", "X",
                           "--table", str(tmp_path / "X.pth"), "--seconds", "60", "--result",
                           str(tmp_path / "result.json")], cwd=folder, capture_output=True,
                          text=True, timeout=300)
    result = json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))
    assert done.returncode == 0 and result["verdict"] == "passed", result
    assert result["episodes"] == 2000 and not result["stopped"], result


def test_a_main_for_either_side_through_q_taken_at_import_passes_for_x_and_o(
        students, tmp_path, chapter):
    folder = typed(students, tmp_path, chapter, header=EITHER_SIDE_HEADER,
                   generate=EITHER_SIDE_GENERATE, main=EITHER_SIDE_MAIN)
    code, output, _ = check(folder, "--piece", "2", "--piece", "3", "--piece", "4")
    assert code == 0, output
    assert "passed (as O: 200,000 episodes, alpha 0.01, gamma 0.9, saved, test(100))" in output


def test_o_learning_from_x_rewards_gets_its_hint(students, tmp_path, chapter):
    folder = typed(students, tmp_path, chapter, header=EITHER_SIDE_HEADER,
                   generate=EITHER_SIDE_GENERATE,
                   main=EITHER_SIDE_MAIN.replace("player.player * reward", "reward"))
    code, output, _ = check(folder, "--piece", "4")
    assert code == 1 and "for O, negate the rewards" in output, output


def test_a_global_named_player_does_not_start_the_bonus_piece(students, tmp_path, chapter):
    header = chapter.listing("solution_main.py").partition("def main")[0] + "player = None\n"
    folder = typed(students, tmp_path, chapter, header=header)
    code, output, _ = check(folder, "--piece", "4")
    assert "piece 4" in output and "not attempted (Generate_episode and main do not look at " \
        "the learner's side" in output.splitlines()[0], output


def test_a_process_started_by_the_students_code_ends_with_its_check(students, tmp_path, chapter):
    """A program the student's code starts (a shell here: another Python the check refuses as
    not the student's own work) does not outlive the check."""
    marker = tmp_path / "still-running.txt"
    later = f"sleep 3; echo x > '{marker}'"
    spawn = f"    __import__('subprocess').Popen(['/bin/sh', '-c', {later!r}])\n"
    folder = typed(students, tmp_path, chapter,
                   main=a_main(CHAPTER_LOOP, tail=spawn + "    player.save_Q(PATH)\n"
                                                          "    print(test(100))\n"))
    code, output, _ = check(folder, "--piece", "3")
    assert code == 0, output
    time.sleep(4)
    assert not marker.exists()


def test_more_episodes_than_the_check_plays_are_named_not_called_endless(
        students, tmp_path, chapter):
    main = a_main(CHAPTER_LOOP, head="    start = 0\n    epochs = 3000000\n    alpha = 0.01\n")
    folder = typed(students, tmp_path, chapter, main=main)
    code, output, _ = check(folder, "--piece", "3")
    assert code == 1 and "more than 2,000,000 episodes, so the check stopped it" in output


def test_the_skeletons_header_trains_against_its_own_player2(students, tmp_path, chapter):
    """The skeleton's header (Random_Agent as player2, gamma 0.9) with the chapter's main: the
    check reads gamma 0.9 from the module and trains against random."""
    header = ("PATH = 'Data/Q_MC_4.pth'\n\nenv = TicTacToe(State())\nplayer1 = AI_Agent(1, env, "
              "graphics=None, Q_table_PATH=None)\nplayer2 = Random_Agent(-1, env,graphics=None)"
              "\n\ngamma = 0.9\n\n")
    folder = typed(students, tmp_path, chapter, header=header)
    code, output, _ = check(folder)
    assert code == 0, output
    assert "passed (as X: 200,000 episodes, alpha 0.01, gamma 0.9, saved, test(100))" in output
    assert "Your X after 200,000 episodes of your main against Random_Agent," in output


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_each_mistake_gets_its_own_hint(students, tmp_path, chapter, mistake):
    piece, code_typed, hint = MISTAKES[mistake]
    if "generate" in code_typed:
        code_typed = {"generate": chapter_generate(chapter).replace(
            "step = state.copy(), action, reward\n            state = next_state",
            "step = after_state, action, reward\n            state = next_state")}
    folder = typed(students, tmp_path, chapter, **code_typed)
    code, output, _ = check(folder, "--piece", str(piece))
    assert code == 1 and f"piece {piece}" in output and "FAILED" in output, output
    assert hint in output, output
    others = [other for name, (_, _, other) in MISTAKES.items() if name != mistake]
    assert not any(other in output for other in others if other not in hint), output


def test_a_stuck_loop_costs_about_twenty_five_seconds_in_all(students, tmp_path, chapter):
    stuck = a_main("    side = player.player\n    while True:\n        pass\n")
    folder = typed(students, tmp_path, chapter, main=stuck)
    code, output, seconds = check(folder, timeout=120)
    lines = output.splitlines()
    assert code == 1 and "TIMED OUT -- still running after 20 s" in lines[2], output
    assert "SKIPPED -- not run again: piece 3 timed out" in lines[3], output
    # 20 s for the stuck piece and the rest; a second 20 s timeout would pass 40 s on any machine
    assert "Pieces 1-3 must pass" in output and seconds < 40, (seconds, output)


def test_the_raw_exercise_says_not_written_and_bonus_not_attempted(students):
    code, output, _ = check(students)
    assert code == 1
    assert output.count("not written yet") == 3 and output.count("not attempted") == 2, output


def test_the_students_copy_shows_no_reference_arithmetic(students):
    text = "\n".join(path.read_text(encoding="utf-8")
                     for path in (students / "tictactoe_rl" / "selfcheck").glob("*.py"))
    text += (students / "check.py").read_text(encoding="utf-8")
    for solution_line in ("gamma * G + rewards[k]", "old + alpha * (target - old)",
                          "START + (FINAL - START) * min(epoch, decay) / decay"):
        assert solution_line not in text


@pytest.mark.skipif(sys.platform == "win32", reason="sends a POSIX SIGINT to a process group")
def test_ctrl_c_while_the_agent_trains_ends_the_check_with_status_130(students, tmp_path,
                                                                      chapter):
    """A Ctrl-C in the terminal reaches the check's whole process group: it must stop there,
    exit 130 and claim no training result."""
    import os
    import signal
    folder = typed(students, tmp_path, chapter)
    child = subprocess.Popen([sys.executable, "check.py"], cwd=folder, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
    lines = []
    while not any(line.startswith("piece 5") for line in lines):   # the training comes next
        lines.append(child.stdout.readline())
        assert lines[-1], "".join(lines)
    time.sleep(2)
    os.killpg(child.pid, signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130, out + err
    assert "Your X after" not in out and "all pass" not in out
    assert err.strip().endswith("Interrupted.")
