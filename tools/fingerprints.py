"""Train ten seeded configurations and print the SHA-256 of every file they save.

A change that should not change what training computes (a refactoring) must leave every line of
this output the same: run it before the change and after it, and compare.

    python tools/fingerprints.py > before.txt
    ... change the code ...
    python tools/fingerprints.py | diff before.txt -

The runs are shortened (fewer games than the defaults) so that all ten take a few minutes; every
other parameter is the trainer's own default, so the runs go through the same code as a full run.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (after the path is set)

# name, then the command after "python": every run is seeded and saves into the run's folder.
CONFIGURATIONS = (
    ("MC default", ["MC_Trainer.py", "--epochs", "30000", "--out", "{dir}/mc.pth"]),
    ("MC --plain", ["MC_Trainer.py", "--plain", "--epochs", "30000", "--out", "{dir}/plain.pth"]),
    ("MC O vs advanced", ["MC_Trainer.py", "--side", "O", "--opponent", "advanced",
                          "--epochs", "30000", "--out", "{dir}/o_advanced.pth"]),
    ("MC self-play", ["MC_Trainer.py", "--opponent", "self", "--epochs", "30000",
                      "--out", "{dir}/self.pth"]),
    ("SARSA", ["SARSA_Trainer.py", "--epochs", "30000", "--out", "{dir}/sarsa.pth"]),
    ("Q-learning", ["Q_Trainer.py", "--epochs", "30000", "--out", "{dir}/q.pth"]),
    ("Q-learning --lecture", ["Q_Trainer.py", "--lecture", "--epochs", "30000",
                              "--out", "{dir}/q_lecture.pth"]),
    ("DQN X", ["DQN_Trainer.py", "--epochs", "1500", "--out", "{dir}/dqn_x.pt"]),
    ("DQN self-play", ["DQN_Trainer.py", "--opponent", "self", "--epochs", "1500",
                       "--out", "{dir}/dqn_self.pt"]),
    # A resume: the MC default run's table, trained on to 40,000 episodes.
    ("MC resume", ["MC_Trainer.py", "--resume", "{dir}/mc.pth", "--epochs", "40000",
                   "--out", "{dir}/mc_resumed.pth"]),
)


def fingerprint(path: Path) -> str:
    """The SHA-256 of the file at ``path``, in hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_all(seed: int) -> list[str]:
    """Run every configuration with ``seed``; one line per saved file: name, file, hash."""
    lines = []
    with tempfile.TemporaryDirectory() as folder:
        for name, arguments in CONFIGURATIONS:
            command = [sys.executable, *(part.format(dir=folder) for part in arguments),
                       "--seed", str(seed)]
            before = set(Path(folder).iterdir())
            done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"{name} failed: {done.stderr.strip().splitlines()[-1:]}")
            for path in sorted(set(Path(folder).iterdir()) - before):
                lines.append(f"{name:22} {path.name:22} {fingerprint(path)}")
            print(lines[-1], file=sys.stderr, flush=True)  # progress
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="fingerprints.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=cli.seed, default=1,
                        help="the seed of every run (default: 1)")
    arguments = parser.parse_args(argv)
    print("\n".join(run_all(arguments.seed)))
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
