"""Keeping the best network of a run, judged exactly: what makes the DQN's result the same on
every processor.

A network's last few hundred optimiser steps move its values by thousandths, and on 3x3 a few
thousandths decide X's first move (a corner is worth 0.7927 against random, the centre 0.7882
with gamma 0.9): 99.48 % or 98.96 % of wins. torch picks its CPU kernels by the processor
(plain, AVX2, AVX-512, and a BLAS path that depends on the model), they round differently, the
difference grows over the run, and so one seed's network opens in a corner on one machine and in
the centre on another. A run's networks wander around the values they learn: from one check to
the next (a hundred games) the first move flips between corner and centre. So two things decide
the network a run ends with:

- the *average* of the networks checked over the second half of the run (their weights, added up
  as they come: stochastic weight averaging). The wandering cancels out in it, so its values
  stand on what the whole second half learned, not on where the last steps happened to leave
  them; where the checked networks open in a corner more often than not, the average does too,
  whatever the rounding;
- the greedy policy of each checked network, measured exactly at ``CHECKS`` evenly spaced
  checkpoints (a few milliseconds each on 3x3), and at the end the average's too.

The run ends with the average unless a checked network is strictly better, judged in this order:

1. how many of the run's sides no line of play beats (``tictactoe_rl.exact.worst.worst_case``);
2. the mean outcome (wins - losses) against the opponent it trained against, when that is
   ``random`` or ``advanced``;
3. the mean outcomes against ``random`` and ``advanced`` added up;

among checked networks ties go to the later one. The report says how many of the checked
networks alone were as good as the one kept: the result's margin, which a change in the last bits
would have to take away entirely. Nothing here feeds the values: the exact tools only choose among
networks the run itself learned (and their average), as a validation set picks an epoch. ``--keep
last`` keeps the last network instead; on a bigger board the last network is kept (there an exact
check takes seconds, not milliseconds, and 201 of them would outlast the run).
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
    half of the whole plan of ``planned`` episodes), keeps the best one's weights and Adam's
    state and the average of all their weights; ``opponent``: the name of what the run trains
    against."""

    def __init__(self, agents: list, opponent: str, start: int, epochs: int,
                 planned: int) -> None:
        self.agents, self.opponent = agents, opponent
        first = max(start, planned // 2)
        self.due = set(checkpoint_episodes(first, epochs, CHECKS)) if first < epochs else set()
        self.last = epochs
        # (score, episodes, weights, Adam's state, optimiser steps taken)
        self.best: tuple | None = None
        self.scores: list[tuple] = []             # every check's, in order
        self.average: dict[str, torch.Tensor] = {}
        self.kept: tuple | None = None            # at the end: (score, episodes or None)

    @property
    def checks(self) -> int:
        return len(self.scores)

    def consider(self, episodes_done: int, network: torch.nn.Module,
                 optimizer: torch.optim.Optimizer) -> None:
        """After ``episodes_done`` episodes: measure the network if a checkpoint is due, add it to
        the average, and keep it if it is at least as good as the best so far; at the last
        episode put the network the run ends with into ``network`` (and ``optimizer``)."""
        if episodes_done not in self.due:
            return
        weights = network.state_dict()
        for name, tensor in weights.items():      # the running mean of the checked weights
            if name in self.average:
                self.average[name] += (tensor - self.average[name]) / (self.checks + 1)
            else:
                self.average[name] = tensor.detach().clone()
        score = policy_score(self.agents, self.opponent)
        self.scores.append(score)
        if self.best is None or score >= self.best[0]:
            self.best = (score, episodes_done, copy.deepcopy(weights),
                         copy.deepcopy(optimizer.state_dict()), network.updates)
        if episodes_done == self.last:
            self.finish(network, optimizer)

    def finish(self, network: torch.nn.Module, optimizer: torch.optim.Optimizer) -> None:
        """Measure the average; end with it (Adam's state and step count as they are now)
        unless the best checked network is strictly better (then its own state and count: a
        file whose count said more steps than its moments could not be resumed)."""
        best_score, episodes, weights, moments, steps = self.best
        network.load_state_dict(self.average)
        network.loads += 1           # other weights: the agents' cached policies are out of date
        average_score = policy_score(self.agents, self.opponent)
        if average_score >= best_score:
            self.kept = (average_score, None)
            return
        network.load_state_dict(weights)
        optimizer.load_state_dict(moments)
        network.updates = steps
        network.loads += 1
        self.kept = (best_score, episodes)

    def record(self) -> dict:
        """What the file records of the network kept: ``{"kept_episode": N}`` for a checked one,
        ``{"kept_average": checks}`` for the average; nothing before the run's last episode (an
        interrupted run keeps its last network, to be resumed)."""
        if self.kept is None:
            return {}
        episodes = self.kept[1]
        return {"kept_average": self.checks} if episodes is None else {"kept_episode": episodes}

    def describe(self) -> str:
        """One line: which network was kept, and how many checked networks were as good alone
        (empty before the end)."""
        if self.kept is None:
            return ""
        score, episodes = self.kept
        as_good = sum(checked >= score for checked in self.scores)
        margin = (f"{as_good} of the {self.checks} were as good alone" if as_good else
                  f"better than each of the {self.checks} alone")
        kept = (f"the average of the {self.checks} networks checked exactly over the second half "
                "of the run" if episodes is None else
                f"the network after {episodes:,} episodes, the best of {self.checks} checked "
                "exactly over the second half of the run and better than their average")
        return f"kept {kept} ({margin}; --keep last keeps the last)"
