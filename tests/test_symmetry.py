"""The eight board symmetries used to learn from every game eight times over."""

import pytest

from tictactoe_rl.exact.solver import minimax_value
from State import State, all_states
from tictactoe_rl.exact.symmetry import TRANSFORMS, images, transform_action, transform_state


def compose(first, second):
    return tuple(second[first[cell]] for cell in range(9))


def test_the_eight_transforms_form_the_symmetry_group_of_the_square():
    assert TRANSFORMS[0] == tuple(range(9))
    assert len(set(TRANSFORMS)) == 8
    for a in TRANSFORMS:
        for b in TRANSFORMS:
            assert compose(a, b) in TRANSFORMS
    # the centre never moves; corners go to corners and edges to edges
    for transform in TRANSFORMS:
        assert transform[4] == 4
        assert {transform[c] for c in (0, 2, 6, 8)} == {0, 2, 6, 8}


def test_images_keep_results_values_and_legality():
    for state in all_states()[::7]:
        for action in state.legal_actions():
            for image, moved in images(state, action):
                assert image.end_of_game == state.end_of_game
                assert image.player == state.player
                assert moved in image.legal_actions()
                assert minimax_value(image.children()[moved]) == \
                    minimax_value(state.children()[action])


@pytest.mark.parametrize("state, action, count", [
    (State(), (1, 1), 1),        # the centre of the empty board is its own image
    (State(), (0, 0), 4),        # the four corners
    (State(), (0, 1), 4),        # the four edges
    (State([1, 0, 0, 0, -1, 0, 0, 0, 0], 1), (2, 2), 4),  # the diagonal mirror keeps it
    (State([1, -1, 0, 0, 0, 0, 0, 0, 0], 1), (2, 2), 8),
])
def test_images_are_distinct_and_start_with_the_pair_itself(state, action, count):
    found = images(state, action)
    assert found[0] == (state, action) and len(found) == len(set(found)) == count


def test_transforms_move_a_cell_and_its_mark_together():
    state = State([1, 0, 0, 0, 0, 0, 0, 0, 0], -1)
    for transform in TRANSFORMS:
        moved = transform_action((0, 0), transform)
        assert transform_state(state, transform).board[moved] == 1


def test_state_images_are_the_transforms_of_the_state_in_order():
    from tictactoe_rl.exact.symmetry import state_images
    for state in all_states()[::5]:
        found = state_images(state)
        assert found == tuple(transform_state(state, t) for t in TRANSFORMS)
        # every image is the one shared object of its position, as State() would give
        assert all(image is State(image.cells, image.player) for image in found)
        assert found[0] is state


def test_images_are_the_pairs_of_the_eight_transforms_first_seen_first():
    for state in all_states()[::11]:
        for action in state.legal_actions():
            expected = {}
            for transform in TRANSFORMS:
                expected[(transform_state(state, transform),
                          transform_action(action, transform))] = None
            assert images(state, action) == tuple(expected)
