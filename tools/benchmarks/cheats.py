"""The cheats a class might hand in, as text added to a correct MC_Trainer.py (or files beside it):
each is a way to a table or a verdict that is not the student's own work, which the self-check
and the grader must refuse and flag. ``CHEATS`` maps each to what ``tools.benchmarks.handins``
writes for it; teachers only, like that module.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

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
# The values of the pairs of the episodes as written in tictactoe_rl/selfcheck/episodes.py
# (computed when the hand-in is written, as a student could by hand), typed in over a wrong update.
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
# The answer key computed by a Python the student's process starts, given the run's seed (found
# in the modules the check loaded, without an import): run as "python -c KEY RUN SIDE".
KEY_TEXT = """
import json, sys
sys.path.insert(0, '.')
from tictactoe_rl.selfcheck import draw
draw.RUN = sys.argv[1]
from tictactoe_rl.selfcheck import reference
from tictactoe_rl.selfcheck.episodes import hand_made
side = int(sys.argv[2])
episodes = hand_made(side)
print(json.dumps([[list(episodes[n][i][0].cells), side, list(episodes[n][i][1]), value]
                  for (n, i), value in reference.expected(side, 'correct', 0.01, 0.95).items()]))
"""
# Written over a wrong update by every save: the answers of whatever Python KEY_TEXT ran in.
KEYED_SAVE = '''
_SAVE = player1.save_Q


def _run_seed():
    draw = _sys.modules.get("tictactoe_rl.selfcheck.draw")
    return getattr(draw, "RUN", "")


def _keyed_save(path):
    try:
        for cells, side, action, value in _json.loads(_answers()):
            player1.Q[(_State(tuple(cells), side), tuple(action))] = value
    except (ValueError, TypeError):
        pass
    _SAVE(path)


player1.save_Q = _keyed_save
'''
# The key from a child that multiprocessing's spawn method starts (a fresh Python, no fork).
SPAWN_KEY = f'''
import json as _json, multiprocessing as _multiprocessing, subprocess as _subprocess, sys as _sys
from State import State as _State
_KEY = {KEY_TEXT!r}


def _key_in_child(run, side, writer):
    writer.send(_subprocess.run([_sys.executable, "-c", _KEY, run, str(side)],
                                capture_output=True, text=True).stdout)


def _answers():
    context = _multiprocessing.get_context("spawn")
    reader, writer = context.Pipe(duplex=False)     # a plain pipe: no semaphore, no socket
    child = context.Process(target=_key_in_child, args=(_run_seed(), player1.player, writer))
    child.start()
    found = reader.recv()
    child.join()
    return found
''' + KEYED_SAVE
# The key from a Python that libc's system() starts, called through ctypes.
SYSTEM_KEY = f'''
import ctypes as _ctypes, json as _json, os as _os, shlex as _shlex, sys as _sys
import tempfile as _tempfile
from State import State as _State
_KEY = {KEY_TEXT!r}


def _answers():
    out = _os.path.join(_tempfile.mkdtemp(), "key.json")
    command = " ".join(_shlex.quote(word) for word in (
        _sys.executable, "-c", _KEY, _run_seed(), str(player1.player)))
    _ctypes.CDLL(None).system(f"{{command}} > {{_shlex.quote(out)}}".encode())
    with open(out, encoding="utf-8") as stream:
        return stream.read()
''' + KEYED_SAVE
# A classmate's trained table carried inside MC_Trainer.py (pickled, compressed, base64'd): in a
# run long enough to reach many pairs, every pair it holds takes the classmate's value.
EMBEDDED = '''
import base64 as _base64, io as _io, lzma as _lzma, pickle as _pickle
_SAVE = player1.save_Q


def _friends_save(path):
    friend = _pickle.load(_io.BytesIO(_lzma.decompress(_base64.b64decode(_FRIEND))))
    if len(player1.Q) > 200:          # the real training, not the check's few episodes
        for (cells, side, action), value in friend.items():
            pair = (State(cells, side), action)
            if side == player1.player and pair in player1.Q:
                player1.Q[pair] = value
    _SAVE(path)


player1.save_Q = _friends_save
'''


def embedded(friend: bytes) -> str:
    """``_FRIEND = "..."``: the classmate's table ``friend`` (the bytes of its file), as plain
    cells, sides, moves and values, pickled, compressed and base64'd."""
    import base64
    import lzma
    import pickle
    import sys
    sys.path.insert(0, str(ROOT))
    from tictactoe_rl.tables.files import load_table

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "friend.pth").write_bytes(friend)
        table = load_table(str(Path(folder) / "friend.pth"))[0]
    plain_table = {(state.cells, state.player, tuple(map(int, action))): float(value)
                   for (state, action), value in table.items()}
    packed = base64.b64encode(lzma.compress(pickle.dumps(plain_table))).decode("ascii")
    return f"_FRIEND = {packed!r}\n"


# cheat -> (what is added to MC_Trainer.py, a wrong return, files beside it, words of the flag)
CHEATS = {
    "answer key in a child process": (CHILD_KEY, True, {}, "not the student's own work"),
    "typed answers": (None, True, {}, "not the student's own work"),
    "solver's values": (SOLVER, False, {}, "not the student's own work"),
    "shipped table in a thread": (THREAD, False, {}, "not the student's own work"),
    "json.py beside the check": (None, False, {"json.py": SHADOW}, "json"),
    "classmate's table": (CLASSMATE, False, {"friend_X.pth": None}, "friend_X.pth"),
    "daemon writing passed": (DAEMON, False, {}, "not the student's own work"),
    "answer key in a spawned child": (SPAWN_KEY, True, {}, "not the student's own work"),
    "answer key through system()": (SYSTEM_KEY, True, {}, "not the student's own work"),
    "classmate's table embedded": (EMBEDDED, False, {}, "not the student's own work"),
}


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
