"""Keeping the best network of a run, judged exactly: what makes the DQN's result the same on
every processor.

A network's last few hundred optimiser steps move its values by thousandths, and on 3x3 a few
thousandths decide X's first move (a corner is worth 0.7927 against random, the centre 0.7882
with gamma 0.9): 99.48 % or 98.96 % of wins. torch picks its CPU kernels by the processor
(plain, AVX2, AVX-512), they round differently, and so one seed's last network opens in a corner
on one machine and in the centre on another. Which network the run ends with is chance; which of
its recent networks is best is not. So over the second half of a run the greedy policy is
measured exactly at ``CHECKS`` evenly spaced checkpoints (a few milliseconds each on 3x3) and the best
one is kept, judged in this order:

1. how many of the run's sides no line of play beats (``tictactoe_rl.exact.worst.worst_case``);
2. the mean outcome (wins - losses) against the opponent it trained against, when that is
   ``random`` or ``advanced``;
3. the mean outcomes against ``random`` and ``advanced`` added up;

ties go to the later network. Nothing here feeds the values: the exact tools only choose among
networks the run itself learned, as a validation set picks an epoch. ``--keep last`` keeps the
last network instead; on a bigger board the last network is kept (there an exact check takes
seconds, not milliseconds, and 201 of them would outlast the run).
"""

from __future__ import annotations

import copy

import torch

from tictactoe_rl.positions import start_position
from tictactoe_rl.exact.worst import worst_case
from tictactoe_rl.training.curves import checkpoint_episodes, exact_results

CHECKS = 200        # intervals between exact checks over a run's second half (201 checks)
ROUNDING = 9       # decimals of a score compared: far below a game's share, far above rounding


def policy_score(agents: list, opponent: str) -> tuple[int, float, float]:
    """How good the greedy policies of ``agents`` (the run's sides, sharing one network) are:
    ``(sides unbeatable, mean outcome against opponent, mean outcomes against random and advanced
    added up)``; ``opponent`` is the name the run trained against."""
    unbeaten, against_own, overall = 0, 0.0, 0.0
    for agent in agents:
        unbeaten += worst_case(agent, start_position(agent.env.shape))[0] >= 0
        for name, (wins, losses, _) in exact_results(agent).items():
            overall += wins - losses
            if name == opponent:
                against_own += wins - losses
    # rounded: the same policy reached by another order of additions scores the same
    return unbeaten, round(against_own, ROUNDING), round(overall, ROUNDING)


class BestCheckpoint:
    """Measures ``agents``' network at the checkpoints of episodes ``start .. epochs`` (the second
    half of the whole plan of ``planned`` episodes) and keeps the best one's weights and Adam's
    state; ``opponent``: the name of what the run trains against."""

    def __init__(self, agents: list, opponent: str, start: int, epochs: int,
                 planned: int) -> None:
        self.agents, self.opponent = agents, opponent
        first = max(start, planned // 2)
        self.due = set(checkpoint_episodes(first, epochs, CHECKS)) if first < epochs else set()
        self.last = epochs
        # (score, episodes, weights, Adam's state, optimiser steps taken)
        self.best: tuple | None = None
        self.checks = 0
        self.restored = False      # the best is back in the network: the run reached its end

    def consider(self, episodes_done: int, network: torch.nn.Module,
                 optimizer: torch.optim.Optimizer) -> None:
        """After ``episodes_done`` episodes: measure the network if a checkpoint is due and keep
        it if it is at least as good as the best so far; at the last episode put the best one
        back into ``network`` and ``optimizer``."""
        if episodes_done not in self.due:
            return
        self.checks += 1
        score = policy_score(self.agents, self.opponent)
        if self.best is None or score >= self.best[0]:
            self.best = (score, episodes_done, copy.deepcopy(network.state_dict()),
                         copy.deepcopy(optimizer.state_dict()), network.updates)
        if episodes_done == self.last:
            _, _, weights, moments, steps = self.best
            network.load_state_dict(weights)
            optimizer.load_state_dict(moments)
            # The kept network's own step count, which its Adam state was taken at (a file that
            # said one step more than its moments could not be resumed). Within a run the count
            # names the weights, so the agents' cached policies follow it.
            network.updates = steps
            self.restored = True

    @property
    def kept_episode(self) -> int | None:
        """The episode count of the network the run ends with; None until the run's last
        episode (an interrupted run keeps its last network, to be resumed)."""
        return self.best[1] if self.restored else None

    def describe(self) -> str:
        """One line: which network was kept, of how many checks (empty before the end)."""
        if not self.restored:
            return ""
        return (f"kept the network after {self.best[1]:,} episodes: the best of {self.checks} "
                "exact checks over the second half of the run (--keep last keeps the last)")
