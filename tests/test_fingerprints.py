"""The ten seeded configurations of ``tools/fingerprints.py`` against their recorded hashes.

A refactoring of the training code must leave every saved table the same bytes for the same seed.
The tables are pure Python arithmetic, the same on every machine, so their hashes are recorded
here (``tests/data/table_fingerprints.txt``, seed 1). A network's weights come from torch's CPU
kernels, which may round differently on another processor, so its lines are compared before and
after a change on one machine (the tool's own docstring), not against a record.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "tests" / "data" / "table_fingerprints.txt"


@pytest.mark.slow      # ten short trainings: about a quarter of a minute
@pytest.mark.solved_only   # the students' version trains with the student's own pieces
def test_every_seeded_table_is_the_recorded_bytes():
    done = subprocess.run([sys.executable, "tools/fingerprints.py", "--seed", "1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    tables = [line for line in lines if not line.startswith("DQN")]
    assert len(lines) - len(tables) == 2      # the two networks were made too
    assert tables == RECORD.read_text().splitlines()
