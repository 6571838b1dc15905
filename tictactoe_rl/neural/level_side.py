"""The network's moves for a whole level of a walk at once: the ``Side`` of a ``DQNAgent``.

The exact walks (``tictactoe_rl.exact.levels``) ask a side about every position of a ply in one
call. Asking the agent's ``action_probs`` position by position costs a forward pass each: on 4x4
k=4 some minutes for one walk. Here the positions go through the network in a few batched passes
instead, and the answer is the agent's own greedy rule (``greedy_indices``: the legal cell of the
largest value, ties to the first, row-major), so it is the policy ``action_probs`` states:

- on 3x3 the agent already knows the greedy move of all 5,478 positions (``DQNAgent._policy``):
  each key is looked up in that list;
- on a bigger board the cells of each position, from the mover's view, are averaged over the
  board's symmetries as the agent does (``Symmetries.values``), ``CHUNK`` positions a pass so that
  a level of millions of positions does not hold all its network inputs at once.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

from tictactoe_rl.exact.arena import Arena, Keys, arena_of
from tictactoe_rl.exact.levels import Side
from tictactoe_rl.geometry import TIC_TAC_TOE
from tictactoe_rl.neural.network import POSITIONS, greedy_indices

CHUNK = 16_384     # positions a forward pass (times the board's symmetries: 131,072 rows on 4x4)


def one_hot(cells: np.ndarray, size: int) -> np.ndarray:
    """Probability 1 on ``cells[i]`` in row ``i``: ``(len(cells), size)`` floats."""
    probs = np.zeros((len(cells), size))
    probs[np.arange(len(cells)), cells] = 1.0
    return probs


@lru_cache(maxsize=2)
def position_keys(player: int) -> tuple[np.ndarray, np.ndarray]:
    """``(keys, rows)``: the sorted keys of the 3x3 positions with ``player`` to move and each
    one's row of ``POSITIONS`` (worked out once: a walk on 3x3 takes milliseconds)."""
    arena = arena_of(TIC_TAC_TOE)
    rows = np.array([row for row, state in enumerate(POSITIONS) if state.player == player])
    keys = np.array([arena.key(POSITIONS[row].cells) for row in rows], dtype=np.uint64)
    order = np.argsort(keys)
    return keys[order], rows[order]


def table_side(agent, arena: Arena) -> Side:
    """3x3: the agent's greedy move of every position, looked up by key."""
    keys, rows = position_keys(agent.player)
    moves = np.array(agent._policy()[1], dtype=np.int64)[rows]

    def side(asked: Keys) -> tuple[np.ndarray, np.ndarray]:
        found = np.searchsorted(keys, asked)
        if len(asked) and (found.max() >= len(keys) or (keys[found] != asked).any()):
            raise KeyError("a position the game cannot reach from the empty board")
        return one_hot(moves[found], arena.cells), np.zeros(len(asked))
    return side


def batched_side(agent, arena: Arena) -> Side:
    """A bigger board: the network asked about ``CHUNK`` positions a pass."""
    network, symmetries, player = agent.network, agent.symmetries, agent.player

    def side(keys: Keys) -> tuple[np.ndarray, np.ndarray]:
        moves = np.zeros(len(keys), dtype=np.int64)
        for start in range(0, len(keys), CHUNK):
            board = arena.board(keys[start:start + CHUNK])
            cells = torch.from_numpy(board.astype(np.int64) * player).to(network.device)
            with torch.no_grad():
                values = symmetries.values(network, cells)
            moves[start:start + CHUNK] = greedy_indices(values, cells == 0).cpu().numpy()
        return one_hot(moves, arena.cells), np.zeros(len(keys))
    return side


def network_side(agent, arena: Arena) -> Side:
    """The ``Side`` of the greedy ``agent`` (a ``DQNAgent``) on ``arena``'s board."""
    return table_side(agent, arena) if arena.shape == TIC_TAC_TOE else batched_side(agent, arena)
