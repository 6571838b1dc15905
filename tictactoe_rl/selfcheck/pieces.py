"""The exercise's pieces: what each asks for, whether it counts, its points; ``check.py`` grades
them in this order, with these titles, and the stubs' messages name them.

What replaces each solution in the students' version is in ``tools/exercise/contracts.py``, the
how-to of each piece, one step at a time, in ``tictactoe_rl/selfcheck/hints.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

# Every stub's message starts with this; the students' tests skip a test that runs into one.
STUB_PREFIX = "Exercise piece"
SELF_CHECK = "python check.py"


@dataclass(frozen=True)
class Piece:
    """One graded piece of the exercise."""
    number: int
    title: str          # what the student writes, in a few words
    required: bool      # decides the self-check's exit status (a bonus piece only with --all)
    points: int = 0     # its weight in GitHub Classroom's autograding
    # A bonus piece's "not attempted": what the check saw that says the student has not started
    # it (never that an earlier piece failed: every piece is judged on its own).
    not_started: str = ""


# Required pieces make 100 points; the bonus pieces add 20 on top.
PIECES = (
    Piece(1, "AI_Agent.epsilon_greedy, the exploration schedule", True, 30),
    Piece(2, "MC_Trainer.Generate_episode, one game as a list of learning steps", True, 30),
    Piece(3, "MC_Trainer.main, the Monte Carlo update loop", True, 40),
    Piece(4, "bonus: Generate_episode and main for an agent that plays O", False, 10,
          "Generate_episode and main do not look at the learner's side (neither reads "
          "player.player), so they were not run for O; pieces 2 and 3 judge X apart"),
    Piece(5, "bonus: SARSA and Q-learning (Episode.learning_steps and the two updates), and "
             "Nim's Q-learning", False, 10,
          "Episode.learning_steps, the two updates and Nim's Q-learning are all still the "
          "issued stubs"),
)
