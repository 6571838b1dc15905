"""The engine's batch operations agree with the game's own positions, one at a time."""

import numpy as np
import pytest

from tictactoe_rl.exact.arena import arena_of, popcount
from tictactoe_rl.geometry import BoardShape
from tictactoe_rl.positions import result_of

BOARDS = [BoardShape(3, 3, 3), BoardShape(3, 4, 3), BoardShape(4, 4, 3), BoardShape(4, 4, 4)]


def test_popcount_counts_every_bit():
    values = np.random.default_rng(1).integers(0, 2**63, 20_000, dtype=np.uint64)
    values[:3] = [0, 2**64 - 1, 2**63]
    assert popcount(values).tolist() == [bin(int(v)).count("1") for v in values]


def random_positions(shape: BoardShape, count: int, seed: int) -> list[tuple[int, ...]]:
    """Boards of alternate marks, X first, stopped at a random length (some finished)."""
    rng, boards = np.random.default_rng(seed), []
    for _ in range(count):
        cells = [0] * shape.size
        for ply, cell in enumerate(rng.permutation(shape.size)[:rng.integers(0, shape.size + 1)]):
            cells[cell] = 1 if ply % 2 == 0 else -1
            if result_of(shape, tuple(cells)):
                break
        boards.append(tuple(cells))
    return boards


@pytest.mark.parametrize("shape", BOARDS, ids=lambda shape: shape.name)
def test_keys_results_and_images_agree_with_the_positions(shape):
    arena = arena_of(shape)
    boards = random_positions(shape, 400, seed=shape.size)
    keys = np.array([arena.key(cells) for cells in boards], dtype=np.uint64)
    assert [tuple(row) for row in arena.board(keys).tolist()] == boards
    assert arena.results(keys).tolist() == [result_of(shape, cells) for cells in boards]
    images = arena.images(keys)
    for row, cells in enumerate(boards):
        expected = set()
        for permutation in shape.symmetries:
            image = [0] * shape.size
            for cell, value in enumerate(cells):
                image[permutation[cell]] = value
            expected.add(arena.key(image))
        assert {int(found[row]) for found in images} == expected
        assert int(arena.canonical(keys[row:row + 1])[0]) == min(expected)
