"""check.py's pieces end with it: a piece's process (and its children) never outlives check.py,
however check.py ends -- Ctrl-C, SIGTERM, SIGHUP, or SIGKILL, which it cannot handle."""

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

from tests.test_selfcheck_verdicts import students  # noqa: F401  (a fixture, used by name)

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
        assert status == 130, check.stderr.read()


def test_the_attempted_probe_of_a_module_that_does_not_load_is_a_verdict(students, tmp_path):
    folder = tmp_path / "hand-in"
    shutil.copytree(students, folder)
    (folder / "MC_Trainer.py").write_text("def main(:\n", encoding="utf-8")
    reading, writing = os.pipe()
    done = subprocess.run([sys.executable, "-m", "selfcheck.run", "--piece", "4", "--attempted",
                           "--result-fd", str(writing)], cwd=folder, pass_fds=(writing,),
                          capture_output=True, text=True, timeout=120)
    os.close(writing)
    with os.fdopen(reading, "rb") as stream:
        sent = json.loads(stream.read())
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert sent["verdict"] == "failed" and "cannot even be loaded" in sent["message"], sent
