"""Expected SARSA: the agent learns a Q-table one step at a time, from the value its policy
expects of the next position.

After every learning step -- the learner's move plus the opponent's reply -- the value of the move
is pulled towards the reward of the step plus the discounted *average* value of the learner's
next moves, each weighted by how likely its epsilon-greedy policy is to play it:

    Q(s, a) <- Q(s, a) + alpha * (r + gamma * sum_b pi(b | s') Q(s', b) - Q(s, a))

(no sum at the end). It is SARSA without the luck of the move actually drawn, and with epsilon 0
it is Q-learning. Rewards are X's; a learner playing O negates them.

    python ExpectedSARSA_Trainer.py                  # X against random
    python ExpectedSARSA_Trainer.py --side O --opponent advanced
"""

from __future__ import annotations

import sys

from tictactoe_rl import cli
from tictactoe_rl.training.command import Trainer, main
from tictactoe_rl.training.options import Defaults
from tictactoe_rl.training.rules import Step
from State import State
from TicTacToe import Action

# SARSA's and Q-learning's parameters, so that the three compare one for one; self-play takes
# Q-learning's preset.
DEFAULTS = Defaults(epochs=100_000, gamma=0.9, alpha=0.1, out_name="my_Q_ESARSA_{side}.pth",
                    self_play={"epochs": 200_000, "alpha": 0.5})


def expected_value(Q: dict[tuple[State, Action], float], state: State, step: Step) -> float:
    """The value of ``state`` under the learner's policy: its moves' values, weighted."""
    return sum(p * Q.get((state, move), 0.0) for move, p in step.policy(state).items())


def update(Q: dict[tuple[State, Action], float], steps: list[tuple], step: Step) -> None:
    """Apply the Expected SARSA rule to every one of ``steps`` (the learner's ``(state, action,
    reward)`` of one episode), first to last, changing ``Q`` in place."""
    for number, (state, action, reward) in enumerate(steps):
        ahead = expected_value(Q, steps[number + 1][0], step) if number + 1 < len(steps) else 0.0
        value = Q.get((state, action), 0.0)
        Q[state, action] = value + step.alpha * (step.side * reward + step.gamma * ahead - value)


TRAINER = Trainer("Expected SARSA", "Expected SARSA", "ExpectedSARSA_Trainer.py",
                  __doc__.split("\n\n")[0], update, DEFAULTS)


def run(argv: list[str] | None = None) -> int:
    """Train from the command line ``argv``; return the exit status."""
    return main(TRAINER, argv)


if __name__ == "__main__":
    cli.run(lambda: run(sys.argv[1:]))
