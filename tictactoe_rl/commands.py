"""The console commands that ``pip install`` puts on the PATH: each runs one of the course's
scripts exactly as ``python SCRIPT`` runs it in a clone (same arguments, same output)."""

from __future__ import annotations

import importlib.util
import os
import runpy
import sys

from tictactoe_rl import cli
from tictactoe_rl.home import COURSE


def run_script(script: str, command: str) -> None:
    """Run the course's ``script`` as ``__main__`` with this command's arguments, its
    ``--version`` naming ``command``."""
    cli.COMMAND = command
    path = os.path.join(COURSE, script)
    sys.argv[0] = path
    runpy.run_path(path, run_name="__main__")


def play() -> None:
    """``tictactoe-play``: the game window (Game.py)."""
    run_script("Game.py", "tictactoe-play")


def train() -> None:
    """``tictactoe-train``: Monte Carlo control (MC_Trainer.py)."""
    run_script("MC_Trainer.py", "tictactoe-train")


def train_q() -> None:
    """``tictactoe-train-q``: Q-learning (Q_Trainer.py)."""
    run_script("Q_Trainer.py", "tictactoe-train-q")


def train_sarsa() -> None:
    """``tictactoe-train-sarsa``: SARSA (SARSA_Trainer.py)."""
    run_script("SARSA_Trainer.py", "tictactoe-train-sarsa")


def train_dqn() -> None:
    """``tictactoe-train-dqn``: the neural Q-function (DQN_Trainer.py, needs torch)."""
    if importlib.util.find_spec("torch") is None:     # an extra: say how to get it
        print("error: tictactoe-train-dqn needs torch: pip install 'tictactoe-rl-course[dqn]' (on "
              "Linux without a GPU add --extra-index-url https://download.pytorch.org/whl/cpu)",
              file=sys.stderr)
        sys.exit(2)
    run_script("DQN_Trainer.py", "tictactoe-train-dqn")


def measure() -> None:
    """``tictactoe-measure``: statistics, exact results, the worst case (Tester.py)."""
    run_script("Tester.py", "tictactoe-measure")
