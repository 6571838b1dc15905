"""Q-learning: the agent learns a Q-table one step at a time, from its best next move.

After every learning step -- the learner's move plus the opponent's reply -- the value of the move
is pulled towards the reward of the step plus the discounted value of the *best* move in the next
position, whatever the learner then actually plays (exploration does not lower the target):

    Q(s, a) <- Q(s, a) + alpha * (r + gamma * max_b Q(s', b) - Q(s, a))  (no max term at the end)

Rewards are X's; a learner playing O negates them. The shared code plays the whole game first and
this rule then walks the steps in order. That is the same as updating during play: an update of
Q(s, a) never changes the values in the next position s', so it cannot change the move chosen
there.

``--lecture`` selects the classic lecture notebook's settings: learning rate 0.2, epsilon 1.0
multiplied by 0.9999 after every game, 50,000 games.

    python Q_Trainer.py                              # X against random
    python Q_Trainer.py --lecture --plot lecture.png
    python Q_Trainer.py --opponent self              # self-play: an X table and an O table
"""

from __future__ import annotations

import math
import sys

from tictactoe_rl import cli
from tictactoe_rl.training.command import Trainer, main
from tictactoe_rl.training.options import Defaults, Variant
from tictactoe_rl.training.rules import chapter_rule
from State import State
from TicTacToe import Action

# The same parameters as SARSA, so that the two can be compared one for one. Self-play needs a
# larger learning rate and more games; with these both tables were unbeatable for each of 24
# seeds tried.
DEFAULTS = Defaults(epochs=100_000, gamma=0.9, alpha=0.1, out_name="my_Q_QL_{side}.pth",
                            self_play={"epochs": 200_000, "alpha": 0.5})
LECTURE = {"epochs": 50_000, "alpha": 0.2, "epsilon": "geometric"}


def update(Q: dict[tuple[State, Action], float], steps: list[tuple], final: State, side: int,
           gamma: float, alpha: float) -> None:
    """Apply the Q-learning rule to every one of ``steps`` (the learner's ``(state, action,
    reward)`` of one game that ended in ``final``), first to last, changing ``Q`` in place.
    ``side`` is 1 for X, -1 for O (whose rewards are the negated X rewards)."""
    # [exercise piece 5: q_update] solution begins
    for number, (state, action, reward) in enumerate(steps):
        target = side * reward
        if number + 1 < len(steps):  # not the last step: the learner moves again from next_state
            next_state = steps[number + 1][0]
            best = -math.inf
            for move in next_state.legal_actions():
                value = Q.get((next_state, move), 0.0)
                if value > best:
                    best = value
            target += gamma * best
        old = Q.get((state, action), 0.0)
        Q[(state, action)] = old + alpha * (target - old)
    # [exercise piece 5] solution ends


LECTURE_OUT = "my_Q_QL_lecture_{side}.pth"   # not the default run's file: another table
LECTURE_HELP = ("the lecture's settings: --alpha 0.2 --epsilon geometric --epochs 50000 "
                "(flags given as well still win); the table goes to "
                f"Data/{LECTURE_OUT.format(side='X')} unless --out says otherwise")
TRAINER = Trainer("Q-learning", "Q-learning", "Q_Trainer.py", __doc__.split("\n\n")[0],
                  chapter_rule(update), DEFAULTS,
                  variants={"lecture": Variant(LECTURE_HELP, LECTURE, out_name=LECTURE_OUT)})


def run(argv: list[str] | None = None) -> int:
    """Train from the command line ``argv``; return the exit status."""
    return main(TRAINER, argv)


if __name__ == "__main__":
    cli.run(lambda: run(sys.argv[1:]))
