"""The eight symmetries of the board: four rotations, each with or without a mirror.

A position and its rotated or mirrored copies are the same situation, so they have the same value
and the same best move (turned the same way). Trainers use this to learn from every game eight
times over: an update of ``(state, action)`` is also an update of each of its images.
"""

from __future__ import annotations

from tictactoe_rl.positions import BoardState, PositionCache, intern
from State import ALL_CELLS, SIZE, State
from TicTacToe import Action


def _rotate(cell: int) -> int:
    """The flat index a cell moves to when the board turns a quarter clockwise."""
    row, col = divmod(cell, SIZE)
    return col * SIZE + (SIZE - 1 - row)


def _mirror(cell: int) -> int:
    """The flat index a cell moves to when the board is mirrored left to right."""
    row, col = divmod(cell, SIZE)
    return row * SIZE + (SIZE - 1 - col)


def _all_transforms() -> tuple[tuple[int, ...], ...]:
    """Each symmetry as a tuple: position i of the tuple says where cell i goes."""
    transforms = []
    for mirrored in (False, True):
        for quarter_turns in range(4):
            image = []
            for cell in range(SIZE * SIZE):
                target = _mirror(cell) if mirrored else cell
                for _ in range(quarter_turns):
                    target = _rotate(target)
                image.append(target)
            transforms.append(tuple(image))
    return tuple(transforms)


TRANSFORMS = _all_transforms()  # TRANSFORMS[0] is the identity

# Position i of SOURCES[k] says which cell of the original lands on cell i under TRANSFORMS[k]
# (the inverse permutation), so an image's cells are read off in one pass.
SOURCES = tuple(tuple(transform.index(cell) for cell in range(SIZE * SIZE))
                for transform in TRANSFORMS)

_STATE_IMAGES: dict[State, tuple[State, ...]] = PositionCache()
_IMAGE_CACHE: dict[tuple[State, Action], tuple[tuple[State, Action], ...]] = PositionCache()


def transform_state(state: State, transform: tuple[int, ...]) -> State:
    """``state`` with every cell moved as ``transform`` says (the side to move is kept)."""
    cells = [0] * (SIZE * SIZE)
    for cell, target in enumerate(transform):
        cells[target] = state.cells[cell]
    # A permutation of a valid position's cells is a valid position: no need to check it again.
    return State.from_valid_cells(tuple(cells), state.player)


def state_images(state: State) -> tuple[State, ...]:
    """``state`` under each of the eight ``TRANSFORMS``, in their order (itself first); computed
    once per position."""
    found = _STATE_IMAGES.get(state)
    if found is None:
        cells, player = state.cells, state.player
        found = _STATE_IMAGES[state] = tuple(
            State.from_valid_cells(tuple([cells[i] for i in source]), player)
            for source in SOURCES)
    return found


def transform_action(action: Action, transform: tuple[int, ...]) -> Action:
    """Where the cell ``action`` goes under ``transform``."""
    return ALL_CELLS[transform[action[0] * SIZE + action[1]]]


def images(state: State, action: Action) -> tuple[tuple[State, Action], ...]:
    """The distinct ``(state, action)`` pairs that ``(state, action)`` turns into under the eight
    symmetries, itself first. A symmetric position gives fewer than eight."""
    key = (state, action)
    found = _IMAGE_CACHE.get(key)
    if found is None and isinstance(state, BoardState):
        found = _IMAGE_CACHE[key] = board_images(state, action)
    elif found is None:
        cell = action[0] * SIZE + action[1]
        distinct = dict.fromkeys((image, ALL_CELLS[transform[cell]])
                                 for image, transform in zip(state_images(state), TRANSFORMS))
        found = _IMAGE_CACHE[key] = tuple(distinct)
    return found


def board_images(state: BoardState, action: Action) -> tuple[tuple[State, Action], ...]:
    """``images`` on a bigger board: under its own symmetries (``BoardShape.symmetries``: eight on
    a square board, four on any other)."""
    shape, cells = state.shape, state.cells
    cell = shape.index(*action)
    found = {}
    for move in shape.symmetries:
        image = [0] * shape.size
        for source, target in enumerate(move):
            image[target] = cells[source]
        found.setdefault((intern(shape, tuple(image), state.player), shape.cells[move[cell]]))
    return tuple(found)
