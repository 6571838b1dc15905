"""Deep Q-learning on a bigger board (any m,n,k board but 3x3 k=3): the same algorithm, without
the list of every position.

On 3x3 the learner and the agent give each of the 5,478 positions a row number and work out the
values of all of them at once (``tictactoe_rl.neural.network``). 4x4 has about ten million positions, so here a
position is its cells, read by the network when it is met:

- the replay memory's rows hold the cells (from the learner's side: +1 its own, -1 the other's),
  the move, the reward, the cells where the learner moves next and whether the game ended there,
  each transition with its copies under the board's symmetries (``BoardShape.symmetries``);
- the target is a frozen copy of the network, copied again every ``sync_every`` steps; the
  network being trained picks the next move, the copy values it (double DQN), as on 3x3;
- the agent (``tictactoe_rl.neural.agent.BoardDQNAgent``) asks the network about each position it plays in,
  averaging the values over the board's symmetries as on 3x3 (``Symmetries.values``).
"""

from __future__ import annotations

import copy

import torch
from torch.nn import functional

from tictactoe_rl.geometry import BoardShape
from tictactoe_rl.neural.learner import DQNLearner
from tictactoe_rl.neural.network import QNetwork, masked
from tictactoe_rl.neural.replay import Layout, Replay
from State import State
from TicTacToe import Action


def planes(cells: torch.Tensor) -> torch.Tensor:
    """The network's inputs of cells seen from the mover's side (``[rows, n]`` of 1, -1, 0):
    three planes, own marks, the opponent's, the empty cells (``[rows, 3n]`` floats)."""
    return torch.cat((cells == 1, cells == -1, cells == 0), dim=1).float()


class Symmetries:
    """The board's symmetries as index tensors: ``sources[s, i]`` is the cell that lands on cell
    ``i`` under symmetry ``s``, ``targets[s, i]`` where cell ``i`` goes."""

    def __init__(self, shape: BoardShape, device: str) -> None:
        self.targets = torch.tensor(shape.symmetries, dtype=torch.long, device=device)
        self.sources = torch.argsort(self.targets, dim=1)
        self.count = len(shape.symmetries)

    def values(self, network: QNetwork, cells: torch.Tensor) -> torch.Tensor:
        """``[rows, n]``: the network's value of each move, averaged over the symmetries (the
        value of the turned move in the turned position)."""
        turned = cells[:, self.sources]                        # [rows, S, n]
        out = network(planes(turned.reshape(-1, cells.shape[1])))
        out = out.reshape(cells.shape[0], self.count, -1)       # [rows, S, n]
        back = self.targets.unsqueeze(0).expand(cells.shape[0], -1, -1)
        return out.gather(2, back).mean(dim=1)

    def turn(self, rows: torch.Tensor) -> torch.Tensor:
        """Each memory row ``(cells, move, reward, next cells, ended)`` as its ``count`` images,
        side by side."""
        n = self.targets.shape[1]
        cells, move, reward, after, ended = rows.split([n, 1, 1, n, 1], dim=1)
        images = [torch.cat((cells[:, source], self.targets[s][move], reward, after[:, source],
                             ended), dim=1) for s, source in enumerate(self.sources)]
        return torch.stack(images, dim=1).reshape(-1, rows.shape[1])


class BoardDQNLearner(DQNLearner):
    """``DQNLearner`` on a bigger board: the same steps and rule, with the memory's rows holding
    cells (``remember``), the target a copy of the network (``sync``) and the batch read from
    those rows (``batch_loss``)."""

    def __init__(self, network: QNetwork, shape: BoardShape, capacity: int, seed: int,
                 gamma: float, lr: float, batch: int, steps_per_update: int, sync_every: int,
                 optimizer: dict | None = None) -> None:
        self.shape = shape
        self.symmetries = Symmetries(shape, network.device)
        replay = Replay(capacity, seed, network.device, layout=Layout(
            2 * shape.size + 3, self.symmetries.count, self.symmetries.turn))
        super().__init__(network, replay, gamma, lr, batch, steps_per_update, sync_every,
                         optimizer)

    def remember(self, steps: list[tuple[State, Action, int]], final: State, side: int) -> None:
        """Store one game's learning steps of ``side`` (rewards X's, negated here for O)."""
        following = [step[0] for step in steps[1:]] + [final]
        cols = self.shape.cols
        self.replay.push([
            [side * v for v in state.cells] + [action[0] * cols + action[1], side * reward]
            + [side * v for v in after.cells] + [int(after is final)]
            for (state, action, reward), after in zip(steps, following)])
        self.pending += len(steps)

    def batch_loss(self) -> torch.Tensor:
        """The Huber loss of a batch of cell rows against the double-DQN target."""
        n = self.shape.size
        cells, move, reward, after, ended = self.replay.sample_rows(self.batch).split(
            [n, 1, 1, n, 1], dim=1)
        chosen = self.network(planes(cells)).gather(1, move).squeeze(1)
        with torch.no_grad():
            legal = (after == 0) & (ended == 0)              # a final position has no move
            seen = planes(after)
            picked = masked(self.network(seen), legal).argmax(dim=1, keepdim=True)
            ahead = self.target(seen).gather(1, picked).squeeze(1)
            ahead = torch.where(legal.any(dim=1), ahead, 0.0)
        target = reward.squeeze(1).float() + self.gamma * ahead
        return functional.smooth_l1_loss(chosen, target)

    def sync(self) -> None:
        """Freeze the target: a copy of the network as it is now."""
        self.target = copy.deepcopy(self.network).requires_grad_(False)
