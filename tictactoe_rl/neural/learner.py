"""The deep Q-learning update: Q-learning's rule, with a network in place of the table.

For a batch of transitions ``(s, a, r, s')`` drawn from the replay memory the network's value
``Q(s, a)`` is pulled towards

    r + gamma * Q_target(s', b*),   b* = the legal move of s' with the largest Q(s', b)

(just ``r`` when the game ended) by one Adam step on the Huber loss of the difference. ``s'`` is
where the learner chooses again after the opponent's reply (SPEC section 2), so ``b*`` is one of
the learner's own moves, and ``r`` is from the learner's side.

Two networks share the work (double DQN): the one being trained picks ``b*``, the target values
it. Taking the target's own max would pick, among moves of about the same worth, the one whose
value happens to be too high, and the values would creep upwards -- here, enough to make X
prefer the centre to a corner on the first move (98.96 % wins against random instead of 99.48 %)
in one seed of six.

``Q_target`` is the network as it was at the last sync, every ``sync_every`` steps, so the
target does not move with every step the network takes. The game has only 5,478 positions, so
instead of keeping a frozen copy of the network and running it on every batch, the learner keeps
what the copy would answer: the value of every move in every position (averaged over the board's
symmetries, ``network.symmetric_values``), worked out in one batch at each sync; a final
position is worth nothing beyond its reward.
"""

from __future__ import annotations

import torch
from torch.nn import functional

from State import State
from TicTacToe import Action
from tictactoe_rl.neural.network import (ACTION_INDEX, INDEX, QNetwork, inputs, legal_masks,
                                         masked, symmetric_values)
from tictactoe_rl.neural.replay import Replay


def learning_rate(start: float, final: float, epoch: int, epochs: int) -> float:
    """Adam's learning rate at episode ``epoch`` of ``epochs``: from ``start`` straight down to
    ``final`` at the last episode. Late in a run the small steps average the noisy targets (the
    opponent's replies are random), so the values settle instead of wandering."""
    return start + (final - start) * min(1.0, epoch / max(1, epochs - 1))


class DQNLearner:
    """Trains ``network`` from the transitions it is shown (``remember``). ``gamma``: discount;
    ``lr``: Adam's learning rate (``set_learning_rate`` changes it); ``batch``: transitions per
    optimiser step; ``steps_per_update``: new transitions per optimiser step (``catch_up`` takes
    the steps that are due); ``sync_every``: optimiser steps between syncs of the target.
    ``optimizer``: Adam's moments to go on from (a resumed run), by parameter number."""

    def __init__(self, network: QNetwork, replay: Replay, gamma: float, lr: float, batch: int,
                 steps_per_update: int, sync_every: int, optimizer: dict | None = None) -> None:
        self.network = network
        self.replay = replay
        self.gamma = gamma
        self.batch = batch
        self.steps_per_update = steps_per_update
        self.sync_every = sync_every
        self.pending = 0          # transitions stored since the last optimiser step
        # fused: one kernel for the whole step, several times faster than a loop over tensors
        self.optimizer = torch.optim.Adam(network.parameters(), lr=lr, fused=True)
        if optimizer:      # checked moments (tictactoe_rl.neural.files); the settings are this run's
            settings = self.optimizer.state_dict()["param_groups"]
            self.optimizer.load_state_dict({"state": optimizer, "param_groups": settings})
        device = network.device
        self.inputs, self.masks = inputs(device), legal_masks(device)
        self.sync()

    def set_learning_rate(self, lr: float) -> None:
        for group in self.optimizer.param_groups:
            group["lr"] = lr

    def remember(self, steps: list[tuple[State, Action, int]], final: State, side: int) -> None:
        """Store one game's learning steps of ``side`` (``Episode.learning_steps``: rewards are
        X's, negated here for O); ``final`` is where the game ended."""
        following = [step[0] for step in steps[1:]] + [final]
        self.replay.push([(INDEX[state], ACTION_INDEX[action], side * reward, INDEX[after])
                          for (state, action, reward), after in zip(steps, following)])
        self.pending += len(steps)

    def catch_up(self) -> list[float]:
        """The optimiser steps due for the transitions stored since the last one (none until the
        memory holds a whole batch); their losses."""
        if len(self.replay) < self.batch:
            return []
        count, self.pending = divmod(self.pending, self.steps_per_update)
        return [self.update() for _ in range(count)]

    def update(self) -> float:
        """One optimiser step on a batch from the memory; returns the batch's Huber loss."""
        loss = self.batch_loss()
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        self.network.updates += 1
        if self.network.updates % self.sync_every == 0:
            self.sync()
        return loss.item()

    def batch_loss(self) -> torch.Tensor:
        """The Huber loss of a batch drawn from the memory, against the double-DQN target."""
        batch = self.replay.sample(self.batch)
        values = self.network(self.inputs[batch.states])
        chosen = values.gather(1, batch.actions.unsqueeze(1)).squeeze(1)
        with torch.no_grad():   # double DQN: the network picks the move, the target values it
            after = batch.next_states
            picked = masked(self.network(self.inputs[after]), self.masks[after]).argmax(dim=1)
            ahead = self.target_values[after].gather(1, picked.unsqueeze(1)).squeeze(1)
        target = batch.rewards + self.gamma * ahead
        return functional.smooth_l1_loss(chosen, target)

    def sync(self) -> None:
        """Freeze the target: the network's values now, of every move in every position."""
        with torch.no_grad():
            values = symmetric_values(self.network)
        # a final position has no move: nothing follows its reward
        self.target_values = torch.where(self.masks.any(dim=1, keepdim=True), values, 0.0)
