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

import cli
from training import trainer as Trainer
from State import State
from TicTacToe import Action

# The course repository's parameters for its SARSA trainer (SPEC section 5). Self-play, where the
# opponent keeps changing, needs a larger learning rate and more games: SARSA learns the values of
# its exploring play, so it needs longer than Q-learning; with these both tables were unbeatable
# for each of 24 seeds tried (seeds 0-23; with 400,000 games, 21 of them).
DEFAULTS = Trainer.Defaults(epochs=100_000, gamma=0.9, alpha=0.1, out_name="my_Q_SARSA_{side}.pth",
                            self_play={"epochs": 800_000, "alpha": 0.5})


def update(Q: dict[tuple[State, Action], float], episode: list[tuple], side: int, gamma: float,
           alpha: float) -> None:
    """Apply the SARSA rule to every step of ``episode`` (learning steps ``(state, action,
    reward)``, then ``(final,)``), in order, changing ``Q`` in place. ``side`` is 1 for X,
    -1 for O (whose rewards are the negated X rewards)."""
    # [exercise piece 5: sarsa_update] solution begins
    for (state, action, reward), following in zip(episode, episode[1:]):
        target = side * reward
        if len(following) == 3:      # not the end: the learner moves again, and this is its move
            next_state, next_action, _ = following
            target += gamma * Q.get((next_state, next_action), 0.0)
        old = Q.get((state, action), 0.0)
        Q[(state, action)] = old + alpha * (target - old)
    # [exercise piece 5] solution ends


def run(argv: list[str] | None = None) -> int:
    """Train from the command line ``argv``; return the exit status."""
    return Trainer.main("SARSA", "SARSA", update, DEFAULTS, argv, prog="SARSA_Trainer.py",
                        description=__doc__.split("\n\n")[0])


if __name__ == "__main__":
    cli.run(lambda: run(sys.argv[1:]))
