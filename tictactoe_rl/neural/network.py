"""The Q-network and what it sees: the board from the side to move, nine action values out.

Every reachable position (5,478 of them) gets a fixed row number, ``INDEX[state]``; ``inputs()``
holds their encodings and ``legal_masks()`` their legal moves, one row each, built once. The replay
memory then stores row numbers, not boards, and a batch is a lookup.

Encoding (27 numbers): three planes of nine cells -- the mover's own marks, the opponent's marks,
the empty cells -- so X to move and O to move in mirrored positions look the same to the network,
and one network can play both sides.

The board's eight symmetries (rotations and mirror images) map positions to positions with the
same values, so ``symmetry_tables()`` gives each row's images and each action's image cells.

Actions are the cells 0..8, row-major (``ACTIONS[i]`` is the pair ``(row, col)``). An illegal
move is masked to ``-inf`` wherever values are compared: in the choice of a move and in the max of
the learning target.
"""

from __future__ import annotations

from functools import lru_cache

import torch
from torch import nn

from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from tictactoe_rl.exact.symmetry import TRANSFORMS, state_images
from tictactoe_rl.neural.sizes import DEFAULT_HIDDEN, hidden_problem
from State import ALL_CELLS, EMPTY, State, all_states

ACTIONS = ALL_CELLS                   # action index -> (row, col)
ACTION_INDEX = {action: i for i, action in enumerate(ACTIONS)}


def _position_order(state: State) -> tuple:
    """A fixed order of positions (by marks on the board, then cells), the same in every run."""
    return (9 - state.cells.count(EMPTY), state.cells, state.player)


POSITIONS: tuple[State, ...] = tuple(sorted(all_states(), key=_position_order))
INDEX: dict[State, int] = {state: i for i, state in enumerate(POSITIONS)}


def encode(state: State) -> list[float]:
    """The 27 inputs of ``state`` from its side to move's view."""
    me = state.player
    own = [1.0 if v == me else 0.0 for v in state.cells]
    other = [1.0 if v == -me else 0.0 for v in state.cells]
    empty = [1.0 if v == EMPTY else 0.0 for v in state.cells]
    return own + other + empty


def legal_mask(state: State) -> list[bool]:
    """Nine booleans, true where the move is legal (none once the game is over)."""
    legal = set(state.legal_actions())
    return [action in legal for action in ACTIONS]


@lru_cache(maxsize=None)
def inputs(device: str = "cpu") -> torch.Tensor:
    """``[positions, 27]``: the encoding of every position, row ``INDEX[state]``, on ``device``."""
    return torch.tensor([encode(s) for s in POSITIONS], dtype=torch.float32, device=device)


@lru_cache(maxsize=None)
def legal_masks(device: str = "cpu") -> torch.Tensor:
    """``[positions, 9]``: the legal moves of every position (bool), row ``INDEX[state]``."""
    return torch.tensor([legal_mask(s) for s in POSITIONS], dtype=torch.bool, device=device)


@lru_cache(maxsize=None)
def symmetry_tables(device: str = "cpu") -> tuple[torch.Tensor, torch.Tensor]:
    """``(position_images [8, positions], action_images [8, 9])``: the row of each position and
    the cell of each action under each of the board's eight symmetries (``tictactoe_rl/exact/symmetry.py``;
    the identity first). A turned position has the turned values, so one game teaches eight."""
    positions = torch.tensor([[INDEX[image] for image in state_images(s)] for s in POSITIONS],
                             dtype=torch.long, device=device).T.contiguous()
    actions = torch.tensor(TRANSFORMS, dtype=torch.long, device=device)
    return positions, actions


class QNetwork(nn.Module):
    """A small multilayer perceptron: 27 inputs, ReLU hidden layers of the sizes ``hidden``,
    nine outputs -- the value of each cell's move for the side to move (its wins count +1). On a
    bigger ``board`` three planes of its cells in, one value per cell out (``tictactoe_rl.neural.boards``).

    ``updates`` counts the optimiser steps taken on it; an agent that remembers its moves uses it
    to know when they are out of date.
    """

    def __init__(self, hidden: tuple[int, ...] = DEFAULT_HIDDEN,
                 board: BoardShape = TIC_TAC_TOE) -> None:
        super().__init__()
        problem = hidden_problem(tuple(hidden))
        if problem:
            raise ValueError(f"hidden layers {hidden!r:.60}: {problem}")
        self.hidden = tuple(hidden)
        self.board = board
        layers: list[nn.Module] = []
        width = 3 * board.size       # own, opponent, empty: 27 on 3x3
        for size in self.hidden:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        layers.append(nn.Linear(width, board.size))
        self.layers = nn.Sequential(*layers)
        self.updates = 0        # optimiser steps taken (Adam's moments are at this count)
        self.loads = 0          # weights put in from elsewhere since (a kept checkpoint)

    @property
    def weights_version(self) -> tuple[int, int]:
        """Names the weights as they are now, for the caches worked out from them."""
        return self.updates, self.loads

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)

    @property
    def device(self) -> str:
        return str(next(self.parameters()).device)


def symmetric_values(network: QNetwork, rows: torch.Tensor | None = None) -> torch.Tensor:
    """``[len(rows), 9]``: the values of the positions ``rows`` (default: every position), each
    the average over the board's eight symmetries of the network's value of the turned move in
    the turned position. A network learns the eight alike only roughly; the average has them
    exactly alike, and less noise."""
    device = network.device
    positions, cells = symmetry_tables(device)
    if rows is None:        # every position: the network once on each, then the images looked up
        turned = network(inputs(device))[positions]                   # [8, positions, 9]
    else:
        turned = network(inputs(device)[positions[:, rows]])          # [8, rows, 9]
    back = cells.unsqueeze(1).expand(-1, turned.shape[1], -1)         # action a -> its image
    return turned.gather(2, back).mean(dim=0)


def masked(values: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """``values`` with every illegal move (``masks`` false) set to ``-inf``."""
    return values.masked_fill(~masks, -torch.inf)


def greedy_indices(values: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """The best legal action of each row; ties go to the first cell, row-major (``argmax`` returns
    the first of equal maxima)."""
    return masked(values, masks).argmax(dim=-1)
