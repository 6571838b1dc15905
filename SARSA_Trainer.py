"""SARSA: the agent learns a Q-table one step at a time, from the move it actually plays next.

After every learning step -- the learner's move plus the opponent's reply -- the value of the move
is pulled towards the reward of the step plus the discounted value of the learner's *next* move,
the one its epsilon-greedy policy really chose (State, Action, Reward, State', Action'):

    Q(s, a) <- Q(s, a) + alpha * (r + gamma * Q(s', a') - Q(s, a))      (no Q(s', a') at the end)

Rewards are X's; a learner playing O negates them. The shared code plays the whole game first and
this rule then walks the steps in order. That is the same as updating during play: an update of
Q(s, a) never changes the values in the next position s', so it cannot change the move chosen
there.

    python SARSA_Trainer.py                          # X against random, the course's parameters
    python SARSA_Trainer.py --side O --opponent advanced --plot sarsa_O.png
    python SARSA_Trainer.py --opponent self          # self-play: an X table and an O table
"""

from __future__ import annotations

import sys

from tictactoe_rl import cli
from tictactoe_rl.training.command import Trainer, main
from tictactoe_rl.training.options import Defaults
from tictactoe_rl.training.rules import chapter_rule
from State import State
from TicTacToe import Action

# The course repository's parameters for its SARSA trainer (the course's parameters). Self-play, where the
# opponent keeps changing, needs a larger learning rate and more games: SARSA learns the values of
# its exploring play, so it needs longer than Q-learning; with these both tables were unbeatable
# for each of 24 seeds tried (seeds 0-23; with 400,000 games, 21 of them).
DEFAULTS = Defaults(epochs=100_000, gamma=0.9, alpha=0.1, out_name="my_Q_SARSA_{side}.pth",
                            self_play={"epochs": 800_000, "alpha": 0.5})


def update(Q: dict[tuple[State, Action], float], steps: list[tuple], final: State, side: int,
           gamma: float, alpha: float) -> None:
    """Apply the SARSA rule to every one of ``steps`` (the learner's ``(state, action, reward)``
    of one game that ended in ``final``), first to last, changing ``Q`` in place. ``side`` is 1
    for X, -1 for O (whose rewards are the negated X rewards)."""
    # [exercise piece 5: sarsa_update] solution begins
    for number, (state, action, reward) in enumerate(steps):
        target = side * reward
        if number + 1 < len(steps):  # not the last step: the learner's next move is known
            next_state, next_action, _ = steps[number + 1]
            target += gamma * Q.get((next_state, next_action), 0.0)
        old = Q.get((state, action), 0.0)
        Q[(state, action)] = old + alpha * (target - old)
    # [exercise piece 5] solution ends


TRAINER = Trainer("SARSA", "SARSA", "SARSA_Trainer.py", __doc__.split("\n\n")[0],
                  chapter_rule(update), DEFAULTS)


def run(argv: list[str] | None = None) -> int:
    """Train from the command line ``argv``; return the exit status."""
    return main(TRAINER, argv)


if __name__ == "__main__":
    cli.run(lambda: run(sys.argv[1:]))
