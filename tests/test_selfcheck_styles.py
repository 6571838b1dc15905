"""Solve the kind, not the instance: a set of student solutions written for these tests, in
styles the chapter does not use, run through ``python check.py`` in a generated students'
version. Each correct one passes (what the contract leaves open is accepted); each subtly wrong
one fails with a hint that names its mistake.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from tests.test_selfcheck_verdicts import (  # noqa: F401  (students: a fixture, used by name)
    CHAPTER_LOOP, a_main, check, hand_in, piece_line, replace_function, students)
from tictactoe_rl.selfcheck import piece_td

ROOT = Path(__file__).resolve().parent.parent
PIECE_5_FILES = ("Episode.py", "SARSA_Trainer.py", "Q_Trainer.py", "nim/nim.py")

# --- piece 5, written otherwise ------------------------------------------------------------------
STEPS_BACKWARDS = '''def learning_steps(moves, side):
    steps, carried = [], 0
    for state, action, reward in reversed(moves):
        if state.player == side:
            steps.append((state, action, reward + carried))
            carried = 0
        else:
            carried += reward
    steps.reverse()
    return steps
'''
SARSA_INDICES = '''def update(Q, steps, final, side, gamma, alpha):
    for i in range(len(steps)):
        state, action, reward = steps[i]
        following = 0.0
        if i < len(steps) - 1:
            following = Q.get((steps[i + 1][0], steps[i + 1][1]), 0.0)
        old = Q.get((state, action), 0.0)
        Q[(state, action)] = old + alpha * (side * reward + gamma * following - old)
'''
SARSA_ZIP = '''def update(Q, steps, final, side, gamma, alpha):
    for (state, action, reward), after in zip(steps, steps[1:] + [None]):
        target = side * reward
        if after is not None:
            target += gamma * Q.get(after[:2], 0)
        Q[state, action] = (1 - alpha) * Q.get((state, action), 0) + alpha * target
'''
Q_GENERATOR = '''def update(Q, steps, final, side, gamma, alpha):
    for k, (state, action, reward) in enumerate(steps):
        target = side * reward
        if k + 1 < len(steps):
            after = steps[k + 1][0]
            target += gamma * max((Q.get((after, b), 0.0) for b in after.legal_actions()),
                                  default=0.0)
        Q[(state, action)] = Q.get((state, action), 0.0) + alpha * (
            target - Q.get((state, action), 0.0))
'''
Q_NUMPY = '''def update(Q, steps, final, side, gamma, alpha):
    import numpy as np
    for k, (state, action, reward) in enumerate(steps):
        following = 0.0
        if k + 1 < len(steps):
            after = steps[k + 1][0]
            following = np.max([Q.get((after, b), 0.0) for b in after.legal_actions()])
        old = Q.get((state, action), 0.0)
        Q[(state, action)] = old + alpha * (side * reward + gamma * following - old)
'''
# The final position as the last step's next state: it has no legal move, so its max is 0.
Q_WITH_FINAL = '''def update(Q, steps, final, side, gamma, alpha):
    following = [step[0] for step in steps[1:]] + [final]
    for (state, action, reward), after in zip(steps, following):
        best = max((Q.get((after, b), 0.0) for b in after.legal_actions()), default=0.0)
        Q[(state, action)] = Q.get((state, action), 0.0) + alpha * (
            side * reward + gamma * best - Q.get((state, action), 0.0))
'''
NIM_FIRST_OF_TIES = {
    "best_future_reward": '''    def best_future_reward(self, state):
        return max([self.get_q_value(state, move) for move in Nim.available_actions(state)],
                   default=0)
''',
    "choose_action": '''    def choose_action(self, state, epsilon=True):
        moves = sorted(Nim.available_actions(state))
        if epsilon and random.uniform(0, 1) < self.epsilon:
            return random.choice(moves)
        return max(moves, key=lambda move: self.q.get((tuple(state), move), 0))
''',
}


def sarsa_with(body: str) -> str:
    """A SARSA update whose loop over the steps is the solution's with ``body`` as its body."""
    return ("def update(Q, steps, final, side, gamma, alpha):\n"
            "    for number, (state, action, reward) in " + body)


SARSA_REVERSED = sarsa_with('''reversed(list(enumerate(steps))):
        target = side * reward
        if number + 1 < len(steps):
            target += gamma * Q.get((steps[number + 1][0], steps[number + 1][1]), 0.0)
        old = Q.get((state, action), 0.0)
        Q[(state, action)] = old + alpha * (target - old)
''')
SARSA_OWN_PAIR = sarsa_with('''enumerate(steps):
        target = side * reward
        if number + 1 < len(steps):
            target += gamma * Q.get((steps[number][0], steps[number][1]), 0.0)
        old = Q.get((state, action), 0.0)
        Q[(state, action)] = old + alpha * (target - old)
''')
SARSA_DISCOUNTED_END = sarsa_with('''enumerate(steps):
        if number + 1 < len(steps):
            target = side * reward + gamma * Q.get(steps[number + 1][:2], 0.0)
        else:
            target = gamma * side * reward
        old = Q.get((state, action), 0.0)
        Q[(state, action)] = old + alpha * (target - old)
''')
SARSA_NO_SIGN = sarsa_with('''enumerate(steps):
        target = reward
        if number + 1 < len(steps):
            target += gamma * Q.get(steps[number + 1][:2], 0.0)
        old = Q.get((state, action), 0.0)
        Q[(state, action)] = old + alpha * (target - old)
''')
SARSA_SIGN_ON_ALL = sarsa_with('''enumerate(steps):
        target = reward
        if number + 1 < len(steps):
            target += gamma * Q.get(steps[number + 1][:2], 0.0)
        old = Q.get((state, action), 0.0)
        Q[(state, action)] = old + alpha * (side * target - old)
''')
Q_EVERY_CELL = Q_GENERATOR.replace("for b in after.legal_actions()",
                                   "for b in [(r, c) for r in range(3) for c in range(3)]")
Q_AS_SARSA = SARSA_INDICES
Q_FROM_0 = '''def update(Q, steps, final, side, gamma, alpha):
    for k, (state, action, reward) in enumerate(steps):
        best = 0
        if k + 1 < len(steps):
            for move in steps[k + 1][0].legal_actions():
                best = max(best, Q.get((steps[k + 1][0], move), 0))
        old = Q.get((state, action), 0)
        Q[(state, action)] = old + alpha * (side * reward + gamma * best - old)
'''

# name -> (the function's file, its name, its code, what the piece 5 line must say)
PIECE_5 = {
    "learning_steps walked backwards": ("Episode.py", "learning_steps", STEPS_BACKWARDS,
                                        ": passed ("),
    "SARSA with indices": ("SARSA_Trainer.py", "update", SARSA_INDICES, ": passed ("),
    "SARSA with zip and a slice as the key": ("SARSA_Trainer.py", "update", SARSA_ZIP,
                                              ": passed ("),
    "Q-learning, max over a generator": ("Q_Trainer.py", "update", Q_GENERATOR, ": passed ("),
    "Q-learning, numpy's max": ("Q_Trainer.py", "update", Q_NUMPY, ": passed ("),
    "Q-learning that looks past the last step": ("Q_Trainer.py", "update", Q_WITH_FINAL,
                                                 ": passed ("),
    "SARSA walked from the last step": ("SARSA_Trainer.py", "update", SARSA_REVERSED,
                                        "the steps must be updated first to last"),
    "SARSA reads the step's own pair": ("SARSA_Trainer.py", "update", SARSA_OWN_PAIR,
                                        "is read from the step's own (state, action)"),
    "SARSA discounts the last reward": ("SARSA_Trainer.py", "update", SARSA_DISCOUNTED_END,
                                        "the last step's target is the learner's reward alone"),
    "SARSA never negates for O": ("SARSA_Trainer.py", "update", SARSA_NO_SIGN,   # values drawn
                                  "(O learns, gamma 0.9, alpha 0.5): Q of step 2 should be "),
    "SARSA negates the whole target for O": ("SARSA_Trainer.py", "update", SARSA_SIGN_ON_ALL,
                                             "only the reward is negated for O"),
    "Q-learning's max over every cell": ("Q_Trainer.py", "update", Q_EVERY_CELL,
                                         "counted a move that is not legal in the next state"),
    "Q-learning with SARSA's target": ("Q_Trainer.py", "update", Q_AS_SARSA,
                                       "that is SARSA's target (the move played next)"),
    "Q-learning's max starts at 0": ("Q_Trainer.py", "update", Q_FROM_0,
                                     "did the search for the largest value start at 0?"),
}


def replace_method(path: Path, cls: str, source: str) -> None:
    """Write ``source`` (a method, indented) in place of the method of that name in ``cls``."""
    text = path.read_text(encoding="utf-8")
    name = source.split("def ", 1)[1].split("(", 1)[0]
    klass = next(node for node in ast.parse(text).body
                 if isinstance(node, ast.ClassDef) and node.name == cls)
    method = next(node for node in klass.body
                  if isinstance(node, ast.FunctionDef) and node.name == name)
    lines = text.splitlines()
    path.write_text("\n".join(lines[:method.lineno - 1] + source.rstrip().splitlines()
                              + lines[method.end_lineno:]) + "\n", encoding="utf-8")


def piece_5_hand_in(students: Path, tmp_path: Path) -> Path:
    """The students' version with piece 5 written as the solved repository has it."""
    folder = tmp_path / "hand-in"
    shutil.copytree(students, folder)
    for name in PIECE_5_FILES:
        shutil.copy(ROOT / name, folder / name)
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(PIECE_5))
def test_piece_5_in_another_style_gets_its_verdict(students, tmp_path, case):
    path, function, code, wanted = PIECE_5[case]
    folder = piece_5_hand_in(students, tmp_path)
    replace_function(folder / path, function, code)
    status, output = check(folder, "--piece", "5")
    line = piece_line(output, 5)
    assert (status == 0) == (wanted == ": passed ("), output
    assert wanted in line, line


@pytest.mark.slow
def test_nim_with_the_first_of_tied_moves_and_a_default_passes(students, tmp_path):
    folder = piece_5_hand_in(students, tmp_path)
    for source in NIM_FIRST_OF_TIES.values():
        replace_method(folder / "nim" / "nim.py", "NimAI", source)
    status, output = check(folder, "--piece", "5")
    assert status == 0 and ": passed (" in piece_line(output, 5), output


@pytest.mark.parametrize("run", ["as written", *range(8)])
def test_each_update_mistake_leaves_values_of_its_own(monkeypatch, run):
    """The hand-made cases tell every mistake from the right update, and, on the case where it
    first shows, from every other mistake that the cases before it could not show, so that a
    hint can name it: as written (with the values listed), and as runs of the check draw them."""
    from tictactoe_rl.selfcheck import draw, td_cases
    from tictactoe_rl.selfcheck.reference import td_values

    if run == "as written":
        monkeypatch.setattr(td_cases, "drawn", lambda case: (draw.SYMMETRIES[0], 1.0))
    else:
        monkeypatch.setattr(draw, "RUN", f"test run {run}")
    cases = range(len(piece_td.CASES))
    for rule in piece_td.RULES:
        column = 3 + list(piece_td.RULES).index(rule)
        right = [td_values(rule, piece_td.CORRECT, case) for case in cases]
        if run == "as written":
            assert right == [pytest.approx(case[column]) for case in piece_td.CASES]
        values = {model: [td_values(rule, model, case) for case in cases]
                  for model in piece_td.MISTAKES}
        first = {model: next((case for case in cases
                              if values[model][case] != pytest.approx(right[case])), None)
                 for model in piece_td.MISTAKES}
        for model, case in first.items():
            if case is None:
                continue
            rivals = [other for other in piece_td.MISTAKES if other != model
                      and (first[other] is None or first[other] >= case)
                      and values[other][case] == pytest.approx(values[model][case])]
            assert rivals == [], (rule, model, rivals)
            assert piece_td.mistake(rule, case, values[model][case]) == model
        shown = {model for model, case in first.items() if case is not None}
        assert shown == set(piece_td.MISTAKES) - ({"illegal moves", "max from 0"}
                                                  if rule == piece_td.SARSA else set())


# --- pieces 1-3, written otherwise ---------------------------------------------------------------
EPSILON_CLAMPED = '''    def epsilon_greedy(self, epoch):
        return max(EPSILON_FINAL, EPSILON_START - (EPSILON_START - EPSILON_FINAL)
                   * epoch / self.decay_epochs)
'''
EPSILON_NUMPY_EXP = '''    def epsilon_greedy(self, epoch):
        import numpy as np
        return EPSILON_FINAL + (EPSILON_START - EPSILON_FINAL) * np.exp(
            -epoch / (self.decay_epochs / 5))
'''
GENERATE_WHILE_TRUE = '''def Generate_episode(player, epoch):
    episode, state = [], State()
    while True:
        action = player.get_action(state=state, epoch=epoch)
        after, reward = env.next_state(state, action)
        if not env.end_of_game(after):
            after, reward = env.next_state(after, player2.get_action(state=after))
        episode.append((state.copy(), action, reward))
        state = after
        if env.end_of_game(state):
            break
    episode.append((state,))
    return episode
'''
GENERATE_MOVE_COUNTER = GENERATE_WHILE_TRUE.replace(
    "    episode, state = [], State()\n",
    "    episode, state = [], State()\n    global moves_made\n").replace(
    "epoch=epoch)", "epoch=moves_made)\n        moves_made += 1").replace(
    "def Generate_episode", "moves_made = 0\n\n\ndef Generate_episode")
RUNNING_AVERAGE_INDICES = '''
    from collections import Counter
    visits = Counter()
    for epoch in range(epochs):
        episode = Generate_episode(player, epoch)
        steps = episode[:-1]
        G = 0.0
        for t in range(len(steps) - 1, -1, -1):
            state, action, reward = steps[t]
            G = reward + gamma * G
            visits[state, action] += 1
            q = player.Q.get((state, action), 0.0)
            player.Q[state, action] = q + (G - q) / visits[state, action]
'''
FRESH_DICT_FROM_ONE = '''
    player.Q = dict()
    Q = player.Q
    epoch = 1
    while epoch <= epochs:
        episode = Generate_episode(player, epoch)
        episode.pop()
        G = 0
        for state, action, reward in episode[::-1]:
            G = gamma * G + reward
            Q[state, action] = Q.get((state, action), 0) + alpha * (G - Q.get((state, action), 0))
        epoch += 1
'''
RETURNS_FIRST = '''
    for epoch in range(start, epochs):
        *steps, _ = Generate_episode(player, epoch)
        returns, G = [], 0
        for _, _, reward in reversed(steps):
            G = gamma * G + reward
            returns.append(G)
        for (state, action, _), G in zip(steps, reversed(returns)):
            old = player.Q.get((state, action), 0)
            player.Q[(state, action)] = old + alpha * (G - old)
'''
G_BEFORE_ITS_REWARD = '''
    for epoch in range(start, epochs):
        episode = Generate_episode(player, epoch)
        episode.pop()
        G = 0
        while episode:
            state, action, reward = episode.pop()
            old = player.Q.get((state, action), 0)
            player.Q[(state, action)] = old + alpha * (G - old)
            G = gamma * G + reward
'''
SAVE_EACH_EPISODE = CHAPTER_LOOP + "        player1.save_Q(PATH)\n"

# name -> (what to type, piece, whether it passes, words the piece's line must hold)
EARLIER = {
    "epsilon clamped with max()": ({"epsilon": EPSILON_CLAMPED}, 1, True,
                                   "passed (linear, down to 0.01 at episode 100,000)"),
    "epsilon as numpy's exp": ({"epsilon": EPSILON_NUMPY_EXP}, 1, True,
                               "passed (exponential, time constant 20,000)"),
    "Generate_episode as a while True": ({"generate": GENERATE_WHILE_TRUE}, 2, True,
                                         "passed (16 games as X"),
    "a running average with a Counter, by index": (
        {"main": a_main(RUNNING_AVERAGE_INDICES)}, 3, True, "passed (as X: 200,000 episodes, a "
                                                      "running average (1/N) for alpha"),
    "a fresh dict(), a while loop from 1": (
        {"main": a_main(FRESH_DICT_FROM_ONE)}, 3, True, "note: your episodes count from 1"),
    "the returns first, then the updates": (
        {"main": a_main(RETURNS_FIRST)}, 3, True, "passed (as X: 200,000 episodes, alpha 0.01"),
    "epsilon from a move counter": ({"generate": GENERATE_MOVE_COUNTER}, 2, False,
                                    "the same for every move of the game"),
    "G used before it takes the step's reward": ({"main": a_main(G_BEFORE_ITS_REWARD)}, 3, False,
                                                 "Q was updated with G before G took the "
                                                 "step's reward"),
    "a save after every episode": ({"main": a_main(SAVE_EACH_EPISODE)}, 3, False,
                                   "main saves the table inside its loop"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(EARLIER))
def test_pieces_1_to_3_in_another_style_get_their_verdict(students, tmp_path, chapter, case):
    code, piece, passes, wanted = EARLIER[case]
    folder = hand_in(students, tmp_path, chapter, **code)
    status, output = check(folder, "--piece", str(piece))
    line = piece_line(output, piece)
    assert status == (0 if passes else 1) and (": passed (" in line) == passes, output
    assert wanted in line, line
