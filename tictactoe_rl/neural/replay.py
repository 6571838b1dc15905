"""Experience replay: the learner's recent steps, drawn back at random in batches.

One transition is one learning step (SPEC section 2): the position before the learner's move, the
move, the reward of the step from the learner's side (-1, 0 or 1), and the position where the
learner chooses next -- or the final position, which has no move to choose. Positions are stored
as row numbers of ``network.POSITIONS``, the four numbers as one row of one tensor; when the
memory is full the oldest rows make room.

With ``symmetric`` every transition is stored as its eight images under the board's symmetries
(rotations and mirror images; a symmetric position repeats itself): the network learns from every
game as if it had seen all its turned copies, and a position and its images come out with the
same values far sooner. Drawing uniformly from the images is the same as turning each drawn
transition by a random symmetry, and cheaper.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import torch

from tictactoe_rl.neural.network import symmetry_tables


class Batch(NamedTuple):
    """Transitions drawn from the memory, one row each (tensors on the memory's device)."""
    states: torch.Tensor        # long: position rows before the move
    actions: torch.Tensor       # long: 0..8
    rewards: torch.Tensor       # float: from the mover's side
    next_states: torch.Tensor   # long: position rows where the learner moves next, or the end


class Replay:
    """A ring buffer of the last ``capacity`` transitions (each as 8 rows when ``symmetric``).
    ``sample`` draws with replacement using its own ``torch.Generator`` seeded with ``seed``, so a
    run is repeatable."""

    def __init__(self, capacity: int, seed: int, device: str = "cpu",
                 symmetric: bool = True, layout: Layout | None = None) -> None:
        if capacity < 1:
            raise ValueError(f"the replay memory needs room for at least 1 step, got {capacity}")
        self.layout = layout or TIC_TAC_TOE_ROWS
        self.images = self.layout.images if symmetric else 1
        self.device = device
        self.rows = torch.zeros(capacity * self.images, self.layout.width, dtype=torch.long,
                                device=device)
        self.size = 0           # rows held
        self.next = 0           # where the next row goes
        self.generator = torch.Generator().manual_seed(seed)

    def __len__(self) -> int:
        """The number of transitions held."""
        return self.size // self.images

    def push(self, transitions: list[tuple[int, int, int, int]]) -> None:
        """Add transitions ``(state, action, reward, next_state)`` (overwriting the oldest)."""
        if not transitions:
            return
        rows = torch.tensor(transitions, dtype=torch.long, device=self.device)
        if self.images > 1:
            rows = self.layout.turn(rows)
        capacity = len(self.rows)
        for start in range(0, len(rows), capacity):      # wraps round the end of the ring
            chunk = rows[start:start + capacity]
            first = min(len(chunk), capacity - self.next)
            self.rows[self.next:self.next + first] = chunk[:first]
            self.rows[:len(chunk) - first] = chunk[first:]
            self.next = (self.next + len(chunk)) % capacity
            self.size = min(self.size + len(chunk), capacity)

    def sample_rows(self, count: int) -> torch.Tensor:
        """``count`` rows drawn uniformly (with replacement) from those held."""
        if self.size == 0:
            raise ValueError("the replay memory is empty: nothing to sample")
        return self.rows[torch.randint(self.size, (count,), generator=self.generator)
                         .to(self.device)]

    def sample(self, count: int) -> Batch:
        """``count`` transitions of 3x3 rows (``sample_rows``), as a ``Batch``."""
        states, actions, rewards, next_states = self.sample_rows(count).unbind(1)
        return Batch(states, actions, rewards.float(), next_states)


class Layout(NamedTuple):
    """What one row of the memory holds: ``width`` numbers, and how ``turn`` makes the rows of a
    transition's ``images`` symmetric copies (``[transitions, width]`` in, ``images`` rows each,
    side by side, out). 3x3's rows are four position and action numbers (``TIC_TAC_TOE_ROWS``);
    a bigger board's hold its cells (``tictactoe_rl.neural.boards``)."""
    width: int
    images: int
    turn: Callable[[torch.Tensor], torch.Tensor]


def turn_positions(rows: torch.Tensor) -> torch.Tensor:
    """The eight images of 3x3 rows ``(state, action, reward, next state)``."""
    positions, cells = symmetry_tables(str(rows.device))
    states, actions, rewards, after = rows.T
    # [transitions, images, 4]: a transition's images side by side, so the oldest transition
    # leaves the ring whole
    return torch.stack((positions[:, states].T, cells[:, actions].T,
                        rewards.expand(len(positions), -1).T, positions[:, after].T),
                       dim=2).reshape(-1, 4)


TIC_TAC_TOE_ROWS = Layout(4, 8, turn_positions)
