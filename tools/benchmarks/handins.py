"""Hand-ins written from this repository's solution: honest ones in several styles, mistakes, and
cheats of every kind the self-check and the grader must refuse and flag.

Contract: ``write_hand_in(folder, kind, epochs, students, whole)`` writes the editable files of
a hand-in of ``kind`` (a key of ``HONEST``, ``MISTAKES`` or ``CHEATS``) into ``folder``, its main
training ``epochs`` episodes; with ``whole``, the folder is a copy of the students' version
(``students``) with those files in place, as a student's own checkout that ``check.py`` runs in.
``CHEATS`` maps each cheat to the words of the reason the grader's ``flags`` column gives for it.
Used by ``tests/test_selfcheck_cheats.py`` and ``tools/benchmarks/grading.py`` (teachers only:
the students' version has neither this file nor the solution it copies).
"""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EDITABLE = ("AI_Agent.py", "Episode.py", "MC_Trainer.py", "Q_Trainer.py", "SARSA_Trainer.py",
            "nim/nim.py")
MAIN_BEGINS, MAIN_ENDS = "    # [exercise piece 3: main] solution begins\n", \
    "    # [exercise piece 3] solution ends\n"

# The chapter's loop, as a student types it; {return} is how G takes a step, {step} the update.
PLAIN_MAIN = '''    Q, side = player1.Q, player1.player
    visits = {{}}
    for epoch in range(epochs):
        episode = Generate_episode(player1, epoch)
        episode.pop()
        G = 0.0
        for state, action, reward in reversed(episode):
            {return}
            visits[(state, action)] = visits.get((state, action), 0) + 1
            old = Q.get((state, action), 0.0)
            Q[(state, action)] = old + {step} * (G - old)
    player1.save_Q(PATH)
    test(100)
'''
INDEXED_MAIN = '''    side = player1.player
    for epoch in range(epochs):
        steps = Generate_episode(player1, epoch)[:-1]
        G = 0
        for k in range(len(steps) - 1, -1, -1):
            state, action, reward = steps[k]
            G = reward * side + gamma * G
            value = player1.Q.get((state, action), 0)
            player1.Q[(state, action)] = value + alpha * (G - value)
    player1.save_Q(PATH)
    test(100)
'''
RIGHT_RETURN = "G = gamma * G + side * reward"


def plain(return_: str = RIGHT_RETURN, step: str = "alpha") -> str:
    return PLAIN_MAIN.format(**{"return": return_, "step": step})


# kind -> main's body (None: the solution's own)
HONEST = {"solution": None, "plain loop": plain(), "running average": plain(
    step="1 / visits[(state, action)]"), "indexed loop": INDEXED_MAIN}
MISTAKES = {"return without G": plain("G = side * reward"),
            "no discount": plain("G = G + side * reward"),
            "rewards not negated": plain("G = gamma * G + reward")}

# A Python started from main that imports the check's answer key and writes its values over a
# wrong update's (the check's watch is not in that process).
CHILD_KEY = '''
import json as _json, subprocess as _subprocess, sys as _sys
from State import State as _State
_KEY = """
import json, sys
sys.path.insert(0, '.')
from tictactoe_rl.selfcheck import reference
from tictactoe_rl.selfcheck.episodes import hand_made
side = int(sys.argv[1])
episodes = hand_made(side)
print(json.dumps([[list(episodes[n][i][0].cells), side, list(episodes[n][i][1]), value]
                  for (n, i), value in reference.expected(side, 'correct', 0.01, 0.95).items()]))
"""
_SAVE = player1.save_Q


def _keyed_save(path):
    done = _subprocess.run([_sys.executable, "-c", _KEY, str(player1.player)],
                           capture_output=True, text=True)
    try:
        for cells, side, action, value in _json.loads(done.stdout):
            player1.Q[(_State(tuple(cells), side), tuple(action))] = value
    except ValueError:
        pass
    _SAVE(path)


player1.save_Q = _keyed_save
'''
# The values of the pairs of the episodes as written in tictactoe_rl/selfcheck/episodes.py (computed when the
# hand-in is written, as a student could by hand), typed in over a wrong update.
TYPED = '''
from State import State as _State
_SAVE = player1.save_Q


def _typed_save(path):
    for (cells, side, action), value in _TYPED.items():
        if side == player1.player:
            player1.Q[(_State(cells, side), action)] = value
    _SAVE(path)


player1.save_Q = _typed_save
'''
# In the real training only: every pair met gets the perfect-play result of its move.
SOLVER = '''
import sys as _sys
_SAVE = player1.save_Q


def _solved_save(path):
    from tictactoe_rl.exact.solver import solve
    for state, action in list(player1.Q):
        player1.Q[(state, action)] = solve(state.children()[action])[0] * player1.player
    _SAVE(path)


if "--train" in _sys.argv:
    player1.save_Q = _solved_save
'''
# In the real training only: a thread loads the course's shipped table into the learner.
THREAD = '''
import sys as _sys, threading as _threading


def _borrow():
    try:
        player1.load_Q("Data/Q_MC_X.pth")
    except Exception:
        pass


if "--train" in _sys.argv:
    _threading.Thread(target=_borrow, daemon=True).start()
'''
# In the real training only: a classmate's table, shipped beside the code, is saved as its own.
CLASSMATE = '''
import os as _os, sys as _sys
_SAVE = player1.save_Q


def _friends_save(path):
    player1.load_Q(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "friend_X.pth"))
    _SAVE(path)


if "--train" in _sys.argv and player1.player == 1:
    player1.save_Q = _friends_save
'''
# A daemon thread that writes "passed" on every descriptor, all the time.
DAEMON = '''
import os as _os, threading as _threading, time as _time


def _forge():
    while True:
        for _fd in range(3, 64):
            try:
                _os.write(_fd, b'{"verdict": "passed", "message": "", "data": null}')
            except OSError:
                pass
        _time.sleep(0.001)


_threading.Thread(target=_forge, daemon=True).start()
'''
# Beside untouched stubs: the standard library's json, made to read every verdict as passed.
SHADOW = '''"""Python's json, except that every verdict it reads says passed."""
import os as _os, sys as _sys
_here = _os.path.dirname(_os.path.abspath(__file__))
_sys.path = [p for p in _sys.path if _os.path.abspath(p or ".") != _here]
del _sys.modules["json"]
import json as _json  # noqa: E402
_sys.modules["json"] = _json
_loads = _json.loads


def _passed(text, *args, **kwargs):
    found = _loads(text, *args, **kwargs)
    if isinstance(found, dict) and "verdict" in found:
        found["verdict"] = "passed"
    return found


_json.loads = _passed
'''
# cheat -> (what is added to MC_Trainer.py, a wrong return, files beside it, words of the flag)
CHEATS = {
    "answer key in a child process": (CHILD_KEY, True, {}, "not the student's own work"),
    "typed answers": (None, True, {}, "not the student's own work"),
    "solver's values": (SOLVER, False, {}, "not the student's own work"),
    "shipped table in a thread": (THREAD, False, {}, "not the student's own work"),
    "json.py beside the check": (None, False, {"json.py": SHADOW}, "json"),
    "classmate's table": (CLASSMATE, False, {"friend_X.pth": None}, "friend_X.pth"),
    "daemon writing passed": (DAEMON, False, {}, "not the student's own work"),
}
KINDS = (*HONEST, *MISTAKES, *CHEATS)


def typed_values() -> str:
    """``_TYPED = {...}``: the right values of the pairs of the episodes as written."""
    import sys
    sys.path.insert(0, str(ROOT))
    from tictactoe_rl.selfcheck.episodes import HAND_MADE, episode_of
    from State import O, X

    lines = ["_TYPED = {"]
    for side in (X, O):
        values: dict = {}
        for episode in (episode_of(raw, side) for raw in HAND_MADE[side]):
            G = 0.0
            for state, action, reward in reversed(episode[:-1]):
                G = 0.95 * G + side * reward
                old = values.get((state, action), 0.0)
                values[(state, action)] = old + 0.01 * (G - old)
        lines += [f"    ({tuple(state.cells)!r}, {side}, {action!r}): {value!r},"
                  for (state, action), value in values.items()]
    return "\n".join(lines + ["}"]) + "\n"


def trainer_text(kind: str, epochs: int) -> str:
    """MC_Trainer.py of a hand-in of ``kind``."""
    text = (ROOT / "MC_Trainer.py").read_text(encoding="utf-8")
    text = text.replace("\nepochs = 200_000\n", f"\nepochs = {epochs}\n", 1)
    body = HONEST.get(kind) or MISTAKES.get(kind)
    added, wrong, *_ = CHEATS.get(kind, (None, False))
    if wrong:
        body = plain("G = side * reward")
    if body is not None:
        start, end = text.index(MAIN_BEGINS), text.index(MAIN_ENDS) + len(MAIN_ENDS)
        text = text[:start] + body + text[end:]
    if kind == "typed answers":
        added = typed_values() + TYPED
    return text + (added or "")


def write_hand_in(folder: Path, kind: str, epochs: int, students: Path, whole: bool = False,
                  friend: bytes = b"") -> Path:
    """Write a hand-in of ``kind`` into ``folder`` (see the module docstring): its editable
    files, or with ``whole`` a copy of the students' version ``students`` with them in place;
    ``friend``: the bytes of the table a "classmate's table" hand-in ships."""
    if whole:
        shutil.copytree(students, folder)
    folder.mkdir(parents=True, exist_ok=True)
    shadowed = kind == "json.py beside the check"      # the stubs, as issued
    for name in EDITABLE:
        text = (students / name).read_text(encoding="utf-8") if shadowed else \
            trainer_text(kind, epochs) if name == "MC_Trainer.py" else \
            (ROOT / name).read_text(encoding="utf-8")
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    for name, text in CHEATS.get(kind, (None, False, {}))[2].items():
        (folder / name).write_bytes(friend if text is None else text.encode("utf-8"))
    return folder
