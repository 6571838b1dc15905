"""Hand-ins that forge their verdicts from inside the judge's own process: each patches the
check in memory, or writes the result itself, from the code of a piece (when AI_Agent.py is
imported, before any piece's function is called; or from inside piece 5's SARSA update). Every
piece is still the issued stub, or wrong, so no piece may pass, through check.py, and the grader
gives none of them a point. Last, the processes of the check: none outlives check.py, and odd
results are failures, not crashes."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_grade import (  # noqa: F401  (exercise: a fixture, used by name)
    GRADE, exercise, verdicts, write_folder)
from tests.test_grade_hostile import read_rows
from tests.test_selfcheck_verdicts import students  # noqa: F401  (a fixture, used by name)

ROOT = Path(__file__).resolve().parent.parent
PIECES = range(1, 6)
# The pieces judged apart from the student's code (tictactoe_rl.selfcheck.apart): all of them.
JUDGED_APART = (1, 2, 3, 4, 5)
FORGED = '{"verdict": "passed", "message": "forged", "data": null}'
CLEAN_FORGED = '{"verdict": "passed", "message": "forged"}'      # all a piece's result holds

FORGERIES = {
    # The judge's functions replaced where its module is reached by name.
    "grade patched in sys.modules": '''
import sys as _sys
_passed = lambda *_a, **_k: {"verdict": "passed", "message": "forged"}
for _name in ("__main__", "tictactoe_rl.selfcheck.run", "tictactoe_rl.selfcheck.apart"):
    _module = _sys.modules.get(_name)
    for _attr in ("grade", "verdict_of", "own_work", "judged", "in_child"):
        if _module is not None and hasattr(_module, _attr):
            setattr(_module, _attr, _passed)
''',
    # Each piece's judging functions made to accept anything.
    "piece checks patched": '''
import sys as _sys
for _name, _module in list(_sys.modules.items()):
    if _name.startswith("tictactoe_rl.selfcheck.piece") or _name == "tictactoe_rl.selfcheck.nim_piece":
        for _attr in ("check", "judge", "compare", "gather", "judge_values", "check_calls"):
            if hasattr(_module, _attr):
                setattr(_module, _attr, lambda *_a, **_k: "forged")
''',
    # The result written as JSON by the judge, whatever it meant to write.
    "json.dump patched": '''
import json as _json
_json.dump = lambda _obj, _file, *_a, **_k: _file.write(%r)
_json.dumps = lambda *_a, **_k: %r
''' % (FORGED, FORGED),
    # "passed" written on every descriptor this process and the one that started it hold, then
    # gone.
    "result written, then os._exit": '''
import glob as _glob, os as _os
for _fd in range(3, 256):
    try:
        _os.write(_fd, %r.encode())
    except OSError:
        pass
for _path in _glob.glob("/proc/self/fd/*") + _glob.glob(f"/proc/{_os.getppid()}/fd/*"):
    try:
        with open(_path, "w") as _file:
            _file.write(%r)
    except OSError:
        pass
_os._exit(0)
''' % (FORGED, FORGED),
    # The same writes at exit, with os._exit turned into a normal exit so that they run.
    "atexit writer": '''
import atexit as _atexit, os as _os, sys as _sys

def _write():
    for _fd in range(3, 256):
        try:
            _os.write(_fd, %r.encode())
        except OSError:
            pass

_atexit.register(_write)
_os._exit = lambda _code=0: _sys.exit(0)
''' % FORGED,
    # Up the stack from the import: every verdict in reach made "passed", every judging
    # function in the frames' globals replaced.
    "frame walk": '''
import sys as _sys
_frame = _sys._getframe()
while _frame is not None:
    for _value in list(_frame.f_locals.values()):
        if isinstance(_value, dict) and "verdict" in _value:
            _value.update(verdict="passed", message="forged")
    for _attr in ("grade", "verdict_of", "judged", "judge", "check"):
        if callable(_frame.f_globals.get(_attr)):
            _frame.f_globals[_attr] = lambda *_a, **_k: {"verdict": "passed", "message": "f"}
    _frame = _frame.f_back
''',
    # Every object the collector knows: verdicts rewritten, the judge's code swapped out.
    "gc.get_objects search": '''
import gc as _gc

def _passed(*_a, **_k):
    return {"verdict": "passed", "message": "forged"}

for _obj in _gc.get_objects():
    if isinstance(_obj, dict) and _obj.get("verdict") not in (None, "passed"):
        _obj["verdict"] = "passed"
    elif (type(_obj).__name__ == "function" and not _obj.__code__.co_freevars
          and str(getattr(_obj, "__module__", "")).startswith(("selfcheck", "__main__"))
          and _obj.__name__ in ("grade", "verdict_of", "judged", "own_work", "in_child")):
        _obj.__code__ = _passed.__code__
''',
    # From piece 1's run, a process that leaves its session (double fork, setsid) and outlives
    # the piece; it opens each later piece's result descriptor through /proc while that process
    # is still dumpable, writes "passed" there and kills it. Only its own check's pieces (those
    # working in its folder): the check of another test running beside it is no target.
    "a process left behind": '''
import os as _os, signal as _signal, sys as _sys, time as _time
if _sys.argv[1:3] == ["--piece", "1"] and _os.fork() == 0:
    _os.setsid()
    if _os.fork():
        _os._exit(0)
    _done, _end, _here = set(), _time.monotonic() + 120, _os.getcwd()
    while _time.monotonic() < _end:
        for _pid in [_p for _p in _os.listdir("/proc") if _p.isdigit() and _p not in _done]:
            try:
                if _os.readlink(f"/proc/{_pid}/cwd") != _here:
                    continue
                with open(f"/proc/{_pid}/cmdline", "rb") as _file:
                    _args = _file.read().split(b"\\0")
                if b"tictactoe_rl.selfcheck.run" not in _args or b"--piece" not in _args:
                    continue
                _fd = _args[_args.index(b"--result-fd") + 1].decode()
                _out = _os.open(f"/proc/{_pid}/fd/{_fd}", _os.O_WRONLY)
            except (OSError, ValueError, IndexError):
                continue
            _done.add(_pid)
            _os.write(_out, %r.encode())
            _os.close(_out)
            _os.kill(int(_pid), _signal.SIGKILL)
        _time.sleep(0.002)
    _os._exit(0)
''' % CLEAN_FORGED,
    # check.py's own end of a piece's result pipe, opened again through /proc by the student's
    # code (in the child of the piece's process), written to, and the piece's process killed.
    "check.py's pipe reopened": '''
import os as _os, signal as _signal, sys as _sys
if _sys.argv[1:3] in [["--piece", str(_n)] for _n in range(1, 5)]:   # in a judged child
    _judge = _os.getppid()
    with open(f"/proc/{_judge}/stat") as _file:
        _check = int(_file.read().rsplit(")", 1)[1].split()[1])
    for _fd in _os.listdir(f"/proc/{_check}/fd"):
        try:
            if _os.readlink(f"/proc/{_check}/fd/{_fd}").startswith("pipe:"):
                _out = _os.open(f"/proc/{_check}/fd/{_fd}", _os.O_WRONLY | _os.O_NONBLOCK)
                _os.write(_out, %r.encode())
                _os.close(_out)
        except OSError:
            pass
    _os.kill(_judge, _signal.SIGKILL)
    _os._exit(0)
''' % CLEAN_FORGED,
}


def forged_hand_in(folder: Path, stubs: Path, forgery: str) -> Path:
    """The stubs' version with ``forgery`` run when AI_Agent.py is imported."""
    files = {"AI_Agent.py": (stubs / "AI_Agent.py").read_text(encoding="utf-8")
             + "\n\n" + FORGERIES[forgery].strip("\n") + "\n"}
    return write_folder(folder, files)


def check_verdicts(folder: Path) -> dict[int, str]:
    """``check.py --all --json`` in ``folder``: each piece's verdict."""
    subprocess.run([sys.executable, "check.py", "--all", "--json", "out.json"], cwd=folder,
                   capture_output=True, text=True, timeout=600)
    report = json.loads((folder / "out.json").read_text(encoding="utf-8"))
    return {piece["number"]: piece["verdict"] for piece in report["pieces"]}


@pytest.mark.slow
@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_a_forged_verdict_passes_no_piece_through_check_py(students, tmp_path, forgery):
    folder = tmp_path / "hand-in"
    shutil.copytree(students, folder)
    forged_hand_in(folder, students, forgery)
    found = check_verdicts(folder)
    assert sorted(found) == list(PIECES), found
    assert [found[piece] for piece in JUDGED_APART if found[piece] == "passed"] == [], found


@pytest.mark.slow
def test_forged_verdicts_get_no_points_through_grade_py(exercise, tmp_path):
    hand_ins = tmp_path / "hand-ins"
    names = {"patched": "grade patched in sys.modules", "writer": "result written, then os._exit",
             "walker": "frame walk"}
    paths = [forged_hand_in(hand_ins / name, exercise, forgery) for name, forgery in
             names.items()]
    done = subprocess.run([sys.executable, str(GRADE), *map(str, paths), "--out",
                           str(tmp_path / "report"), "--timeout", "60"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=900,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-3000:]
    rows = read_rows(tmp_path / "report")
    for name in names:
        assert "passed" not in verdicts(rows[name])[:4], rows[name]
        assert rows[name]["total"] == "0", rows[name]


# --- piece 5: forgeries from inside its own functions ------------------------------------------
# Each is the body of a SARSA update that learns nothing; the rest of piece 5 is the solved
# code, so that the check reaches the update. Piece 5 can only pass by forgery.
PIECE5_FORGERIES = {
    # The judge's functions replaced wherever the check's modules are reached by name.
    "judge patched": '''
    import sys
    passed = lambda *args, **kwargs: {"verdict": "passed", "message": "forged"}
    for name, module in list(sys.modules.items()):
        if name.startswith("selfcheck") or name == "__main__":
            for attr in ("check", "judge", "judged", "in_child", "grade", "verdict_of",
                         "own_work", "apart_verdict", "check_update", "judge_nim"):
                if hasattr(module, attr):
                    setattr(module, attr, passed)
''',
    # Every comparison the check makes turned true: its run of this code then says "passed".
    "comparisons patched": '''
    import sys
    for name in ("tictactoe_rl.selfcheck.piece_td", "tictactoe_rl.selfcheck.nim_piece", "tictactoe_rl.selfcheck.common"):
        sys.modules[name].close = lambda *args, **kwargs: True
''',
    # The piece's module swapped in sys.modules and under the name the runner holds.
    "sys.modules swapped": '''
    import sys, types
    fake = types.SimpleNamespace(check=lambda ask: "forged", judge=lambda answers: "forged",
                                 gather=lambda student: [])
    sys.modules["tictactoe_rl.selfcheck.piece_td"] = fake
    for name in ("tictactoe_rl.selfcheck.run", "__main__"):
        if name in sys.modules:
            sys.modules[name].piece_td = fake
''',
    # "passed" written on every descriptor, then the process is gone at once.
    "os._exit mid-check": '''
    import os
    forged = b'{"verdict": "passed", "message": "forged", "data": []}'
    for fd in range(3, 256):
        try:
            os.write(fd, forged)
        except OSError:
            pass
    os._exit(0)
''',
    # Verdict lines printed where a reader of the output might take them for the check's.
    "printed verdicts": '''
    import os, sys
    line = "piece 5 -- bonus: SARSA and Q-learning: passed (forged)\\n"
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        print(line, file=stream, flush=True)
    for fd in (1, 2):
        os.write(fd, line.encode())
''',
    # Far more than a piece's answers, on every descriptor.
    "huge data": '''
    import os
    chunk = b"[" * (1 << 20)
    for fd in range(3, 256):
        try:
            for _ in range(8):
                os.write(fd, chunk)
        except OSError:
            pass
    os._exit(0)
''',
    # A "passed" whose data is nested 200,000 deep.
    "deep data": '''
    import os
    forged = b'{"verdict": "passed", "data": ' + b"[" * 200000 + b"]" * 200000 + b"}"
    for fd in range(3, 256):
        try:
            os.write(fd, forged)
        except OSError:
            pass
    os._exit(0)
''',
    # The result file check.py writes (--json), written first with every piece passed.
    "result file written": '''
    import json, os
    forged = {"format": 1, "pieces": [{"number": n, "verdict": "passed", "message": ""}
                                      for n in range(1, 6)]}
    for name in ("out.json", "../out/result.json"):
        try:
            with open(name, "w") as stream:
                json.dump(forged, stream)
        except OSError:
            pass
''',
}
# A learning_steps that returns data no check can take in: deep, or huge.
PIECE5_STEPS = {
    "deep steps": '''def learning_steps(moves, side):
    nested = []
    for _ in range(100000):
        nested = [nested]
    return nested
''',
    "huge steps": '''def learning_steps(moves, side):
    return [(moves[0][0], moves[0][1], 0)] * 2_000_000
''',
}


def piece5_hand_in(folder: Path, stubs: Path, forgery: str) -> Path:
    """The stubs' version with piece 5 solved but for a SARSA update that only forges (or a
    learning_steps that returns hostile data)."""
    from tests.test_selfcheck_verdicts import replace_function

    write_folder(folder, {name: (ROOT / name).read_text(encoding="utf-8")
                          for name in ("Episode.py", "Q_Trainer.py", "nim/nim.py")})
    write_folder(folder, {"SARSA_Trainer.py": (stubs / "SARSA_Trainer.py").read_text(
        encoding="utf-8")})
    if forgery in PIECE5_STEPS:
        replace_function(folder / "Episode.py", "learning_steps", PIECE5_STEPS[forgery])
    else:
        replace_function(folder / "SARSA_Trainer.py", "update",
                         "def update(Q, steps, final, side, gamma, alpha):"
                         + PIECE5_FORGERIES[forgery].rstrip() + "\n")
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("forgery", sorted({*PIECE5_FORGERIES, *PIECE5_STEPS}))
def test_a_piece_5_forgery_fails_the_piece_in_one_line_through_check_py(
        students, tmp_path, forgery):
    folder = tmp_path / "hand-in"
    shutil.copytree(students, folder)
    piece5_hand_in(folder, students, forgery)
    done = subprocess.run([sys.executable, "check.py", "--piece", "5", "--json", "out.json"],
                          cwd=folder, capture_output=True, text=True, timeout=300)
    lines = done.stdout.splitlines()
    assert done.returncode == 1 and len(lines) == 2, done.stdout + done.stderr
    assert lines[0].startswith("piece 5 -- ") and ": FAILED -- " in lines[0], lines
    assert "forged" not in lines[0] and done.stderr == "", done.stdout + done.stderr
    report = json.loads((folder / "out.json").read_text(encoding="utf-8"))
    assert [piece["verdict"] for piece in report["pieces"]] == ["failed"], report


@pytest.mark.slow
def test_piece_5_forgeries_get_no_points_through_grade_py(exercise, tmp_path):
    hand_ins = tmp_path / "hand-ins"
    names = {forgery.replace(" ", "-").replace(".", ""): forgery
             for forgery in (*PIECE5_FORGERIES, *PIECE5_STEPS)}
    paths = [piece5_hand_in(hand_ins / name, exercise, forgery) for name, forgery in
             names.items()]
    done = subprocess.run([sys.executable, str(GRADE), *map(str, paths), "--out",
                           str(tmp_path / "report"), "--timeout", "60", "--jobs", "2"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=1200,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-3000:]
    rows = read_rows(tmp_path / "report")
    for name in names:
        row = rows[name]
        # a forgery the watch sees as not the student's own work is flagged: no points either
        assert row["status"] == "graded" and verdicts(row)[4] in ("failed", "flagged"), \
            f"{name}: {row['status']}: {row['note']}"
        assert row["total"] == "0" and "\n" not in row["note"], row


def not_stubs(source: str) -> str:
    """``source`` with every stub raising another error: still wrong, but no longer the issued
    stub, so the grader's check for a stub that passed cannot catch a forged verdict."""
    return source.replace("raise NotImplementedError(", "raise RuntimeError(")


@pytest.mark.slow
def test_a_process_left_behind_forges_no_verdict_through_grade_py(exercise, tmp_path):
    files = {name: not_stubs((exercise / name).read_text(encoding="utf-8"))
             for name in ("AI_Agent.py", "MC_Trainer.py")}
    files["AI_Agent.py"] += "\n\n" + FORGERIES["a process left behind"].strip("\n") + "\n"
    path = write_folder(tmp_path / "hand-ins" / "daemon", files)
    done = subprocess.run([sys.executable, str(GRADE), str(path), "--out",
                           str(tmp_path / "report"), "--timeout", "60"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=900,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-3000:]
    row = read_rows(tmp_path / "report")["daemon"]
    assert "passed" not in verdicts(row), row
    assert row["total"] == "0", row


# A main that updates nothing (every pair of its episodes 0.5) and, through a shell the watch on
# its opens does not see, rewrites the check's answer key so that 0.5 is the right value.
ANSWER_KEY_REWRITER = '''
def main():
    import subprocess
    forged = ("import collections\\\\ndef expected(side, model, rate, gamma):\\\\n"
              "    return collections.defaultdict(lambda: 0.5 if gamma == 0.95 else 9.0)\\\\n")
    subprocess.run(["sh", "-c", f"printf '{forged}' > tictactoe_rl/selfcheck/reference.py"], check=True)
    for epoch in range(epochs):
        episode = Generate_episode(player1, epoch)
        for state, action, _ in episode[:-1]:
            player1.Q[(state, action)] = 0.5
    player1.save_Q(PATH)
    print(test(100))
'''


@pytest.mark.slow
def test_an_answer_key_rewritten_on_disk_changes_no_verdict(students, tmp_path):
    """Where nothing keeps the check's files read-only (a student's own copy, GitHub
    Classroom), piece 3's code rewrites the module that its judge would load after it."""
    folder = tmp_path / "hand-in"
    shutil.copytree(students, folder)
    trainer = (folder / "MC_Trainer.py").read_text(encoding="utf-8")
    stub = trainer.index("def main(")
    end = trainer.index("\ndef ", stub + 1) if "\ndef " in trainer[stub + 1:] else len(trainer)
    (folder / "MC_Trainer.py").write_text(trainer[:stub] + ANSWER_KEY_REWRITER.strip("\n")
                                          + "\n\n" + trainer[end:], encoding="utf-8")
    done = subprocess.run([sys.executable, "check.py", "--piece", "3"], cwd=folder,
                          capture_output=True, text=True, timeout=300)
    assert "collections" in (folder / "tictactoe_rl" / "selfcheck" / "reference.py").read_text()   # rewritten
    assert "piece 3" in done.stdout and ": passed" not in done.stdout, done.stdout


@pytest.mark.parametrize("sent", [
    {"verdict": "passed", "episodes": 10, "stopped": False, "opponent": "Random_Agent",
     "exact": {"random": "all wins"}, "unbeatable": True, "line": None},
    {"verdict": "passed", "episodes": 10, "stopped": False, "opponent": "Random_Agent",
     "exact": {"random": [1, 0, 0]}, "unbeatable": False, "line": None},
    {"verdict": "passed", "message": {"nested": "a whole result"}},
    {"verdict": "passed", "message": "", "extra": "a field no result has"},
])
def test_a_result_not_of_the_check_s_shape_is_a_failure_not_a_crash(sent):
    import check

    result = check.parsed(json.dumps(sent), training="episodes" in sent)
    assert result["verdict"] == "failed" and "not a result" in result["message"]


def test_a_well_formed_training_result_is_shown():
    import check

    sent = {"verdict": "passed", "episodes": 10, "stopped": False, "opponent": "Random_Agent",
            "exact": {"random": [0.5, 0.25, 0.25]}, "unbeatable": False, "line": [[1, 1], [0, 0]],
            "sha256": "0" * 64}
    result = check.parsed(json.dumps(sent), training=True)
    assert result == sent
    assert "wins 50.00%" in check.measurement_line("X", result) and "1,1 0,0" in \
        check.measurement_line("X", result)


# --- check.py's pieces end with it: a piece's process (and its children) never outlives
# check.py, however check.py ends: Ctrl-C, SIGTERM, SIGHUP, or SIGKILL, which it cannot handle.
LOOP = '''    def epsilon_greedy(self, epoch):
        while True:
            pass
'''


def processes_in(folder: Path) -> list[int]:
    """The processes whose working folder is ``folder`` (a piece's run there)."""
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and os.readlink(f"/proc/{name}/cwd") == str(folder):
                found.append(int(name))
        except OSError:
            pass
    return found


def until(condition, seconds: float = 20.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_no_piece_outlives_check_py(students, tmp_path, number):
    folder = (tmp_path / "hand-in").resolve()
    shutil.copytree(students, folder)
    agent = (folder / "AI_Agent.py").read_text(encoding="utf-8")
    start = agent.index("    def epsilon_greedy(")
    end = agent.index("\n    def ", start + 1)
    (folder / "AI_Agent.py").write_text(agent[:start] + LOOP + agent[end:], encoding="utf-8")
    check = subprocess.Popen([sys.executable, "check.py", "--piece", "1"], cwd=folder,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert until(lambda: len(processes_in(folder)) >= 3), "the piece never started"
        check.send_signal(number)
        status = check.wait(20)
        assert until(lambda: processes_in(folder) == []), processes_in(folder)
    finally:
        check.kill()
        for pid in processes_in(folder):
            os.kill(pid, signal.SIGKILL)
    if number != signal.SIGKILL:
        assert status == 128 + number, check.stderr.read()    # 143 after SIGTERM, 129 SIGHUP


def test_the_attempted_probe_of_a_module_that_does_not_load_is_a_verdict(students, tmp_path):
    folder = tmp_path / "hand-in"
    shutil.copytree(students, folder)
    (folder / "MC_Trainer.py").write_text("def main(:\n", encoding="utf-8")
    reading, writing = os.pipe()
    done = subprocess.run([sys.executable, "-m", "tictactoe_rl.selfcheck.run", "--piece", "4", "--attempted",
                           "--result-fd", str(writing)], cwd=folder, pass_fds=(writing,),
                          capture_output=True, text=True, timeout=120)
    os.close(writing)
    with os.fdopen(reading, "rb") as stream:
        sent = json.loads(stream.read())
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert sent["verdict"] == "failed" and "cannot even be loaded" in sent["message"], sent
