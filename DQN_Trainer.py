"""Deep Q-learning: a small neural network learns the Q-values that the other trainers keep in a
table.

The network reads the board as the side to move sees it (its own marks, the opponent's, the
empty cells) and gives nine numbers, the value of playing each cell; illegal cells are never
chosen. It learns Q-learning's rule, Q(s, a) <- r + gamma * Q(s', best move), one learning step at
a time (the learner's move plus the opponent's reply, as in Q_Trainer.py), with the pieces that
make a network learn it steadily:

- experience replay: the steps of recent games are kept, each with its seven turned and mirrored
  copies, and learned from in random batches;
- a target network: the value of the best move in s' is read from the network as it was at the
  last sync (every --sync steps), and the best move is picked by the network being trained
  (double DQN), so that values do not creep upwards;
- the Huber loss and Adam, whose learning rate falls over the run so the values settle
  (in self-play it stays: the opponent it learns against is itself, still changing);
- a network's value of a move is the average over the board's eight symmetries;
- the run ends with the average of the networks it checked over its second half, whose values
  do not hang on where the last steps (and the processor's rounding) left them, unless one of
  those networks alone is better (tictactoe_rl/training/checkpoints.py).

After training it prints what it learned, exactly: results against random and advanced over
every possible game, whether any line of play beats it, and in how many of its side's positions
its move keeps the perfect-play value. The saved network is an agent like the tables:
`python Tester.py --x dqn:Data/my_DQN_X.pt --o random --exact`, `--mistakes`, `Game.py`.

    python DQN_Trainer.py                            # X against random
    python DQN_Trainer.py --side O --opponent advanced
    python DQN_Trainer.py --opponent self            # one network that plays X and O
    python DQN_Trainer.py --plot dqn.png --seed 1    # learning curves with exact checkpoints
"""

from __future__ import annotations

import sys

from tictactoe_rl import cli
from tictactoe_rl.exploration.schedules import DEFAULT_SCHEDULE
from tictactoe_rl.training.dqn_options import NetworkDefaults, parse_network_arguments
from tictactoe_rl.training.loop import learn_from_episodes, train_loop
from tictactoe_rl.training.report import print_reports

DEFAULTS = NetworkDefaults(
    # Episodes. The first move decides the last half per cent: a corner is worth 0.7927 against
    # random, the centre 0.7882 (gamma 0.9), so the values must settle to a few thousandths. With
    # 20,000 games and a batch of 256 every fourth step, X opened in the centre in seeds 1 and 4
    # (98.96 %); twice the games with twice the batch, half as often, take the same number of
    # optimiser steps at 1.4 times the CPU time, and every seed 1-10 opens in a corner (99.48 %).
    epochs=40_000,
    gamma=0.9,
    alpha=0.001,              # Adam's learning rate, falling linearly to ...
    final_alpha=0.00002,      # ... this at the last game
    # Two hidden layers of 64. With 128, seeds 1 and 4 reach 99.48 % against random where 64
    # ended at 98.96 % (20,000 games), but seeds 3 and 9 then end at 98.96 % instead.
    hidden=(64, 64),
    batch=512,                # transitions per optimiser step
    memory=50_000,            # transitions kept for replay (the last ~12,500 games)
    sync=400,                 # optimiser steps between copies into the target network
    steps_per_update=8,       # new learning steps per optimiser step: about one per two games
    epsilon=DEFAULT_SCHEDULE,  # linear: from 1.0 towards 0.01 ...
    # ... over twice the run, so it ends at 0.5: the greedy policy is what is measured, and the
    # moves it does not play keep being tried, so their values do not drift up unchecked (with
    # 1, epsilon reaching 0.01 at the end, X opened in the centre in 3 of 4 seeds: 98.96 %,
    # with 20,000 games and a batch of 256).
    epsilon_span=2.0,
    out_name="my_DQN_{side}.pt",
    # In self-play the opponent is the network itself, and it keeps changing: a move that beats
    # it today is found and punished only later, so the network must keep learning at full speed
    # to the end (with the falling rate, O ended beatable in 4 of 5 seeds). And the opponent's
    # exploring moves are part of what each side learns against: with epsilon still at 0.5 at
    # the end, O learnt to answer a half-random X and ended beatable in seeds 1 and 3; with
    # epsilon down to 0.01 at the last game (a span of one run) both sides learn against a
    # nearly greedy one, and 10,000 games suffice. Here an optimiser step on 256 transitions
    # every fourth step: with X's 512 every eighth, O ended beatable in seed 7 of 1-10.
    self_play={"final_alpha": 0.001, "epsilon_span": 1.0, "epochs": 10_000, "batch": 256,
               "steps_per_update": 4},
)


def run(argv: list[str] | None = None) -> int:
    """Train from the command line ``argv``; return the exit status."""
    args = parse_network_arguments("DQN_Trainer.py", __doc__.split("\n\n")[0], DEFAULTS, argv)
    # torch takes seconds to import: only now, so that a mistyped flag is refused as fast as
    # the table trainers refuse theirs
    import torch
    from tictactoe_rl.training.dqn import build_network_run
    torch.set_num_threads(args.threads)
    network_run = build_network_run(args, DEFAULTS, "Deep Q-learning")
    finished = train_loop(network_run, learn_from_episodes(network_run))
    print_reports(network_run.learners, network_run.paths)
    return 0 if finished else cli.stop_status(network_run.stopped_by)


if __name__ == "__main__":
    cli.run(lambda: run(sys.argv[1:]))
