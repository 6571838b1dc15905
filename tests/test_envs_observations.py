"""The Gymnasium environment's observations: the flat board, image planes and PettingZoo's dict,
on every board, each passing the checkers and each trained on once."""

import warnings

import numpy as np
import pytest

from State import O, X, State
from tictactoe_rl.envs import board

EXTRAS = "the optional extras are not installed (pip install -r requirements-extra.txt)"
BOARDS = [("3x3", None), ("3x4", 3), ("4x4", 4), ("5x5", 4)]
KINDS = ("board", "planes", "dict")
# What SB3's checker says of any small float image; the planes are meant for a network of one's
# own (or MlpPolicy), not for CnnPolicy, as the environment's docstring says.
SB3_IMAGE_ADVICE = ("It seems that your observation  is an image but its `dtype`",
                    "It seems that your observation space  is an image but the upper",
                    "The minimal resolution for an image is 36x36")


@pytest.fixture(scope="module")
def gym():
    gymnasium = pytest.importorskip("gymnasium", reason=f"gymnasium: {EXTRAS}")
    from tictactoe_rl import envs

    envs.register()
    return gymnasium


def make(gym, kind, size="3x3", k=None, **kwargs):
    return gym.make("tictactoe_rl/TicTacToe-v0", board=size, k=k, observation=kind, **kwargs)


def test_the_default_observation_is_the_flat_board_as_before(gym):
    env = gym.make("tictactoe_rl/TicTacToe-v0", side="O")
    seen, info = env.reset(seed=5)
    assert env.unwrapped.observation_kind == "board"
    assert seen.dtype == np.int8 and seen.shape == (9,)
    assert np.array_equal(seen, board.observation(env.unwrapped.position, O))


@pytest.mark.parametrize("size,k", BOARDS)
def test_the_planes_are_the_learners_marks_the_opponents_and_who_is_to_move(gym, size, k):
    env = make(gym, "planes", size, k, side="O")
    planes, info = env.reset(seed=1)
    shape = env.unwrapped.shape
    assert planes.shape == (3, shape.rows, shape.cols) and planes.dtype == np.float32
    assert env.observation_space.contains(planes)
    # O to move after the opponent's first move: one opponent mark, none of the learner's
    assert planes[0].sum() == 0 and planes[1].sum() == 1 and planes[2].sum() == 0
    move = int(np.flatnonzero(info["action_mask"])[0])
    planes, _, terminated, _, info = env.step(move)
    assert not terminated
    assert planes[0].reshape(-1)[move] == 1 and planes[0].sum() == 1 and planes[1].sum() == 2
    flat = board.observation(env.unwrapped.position, O).reshape(shape.rows, shape.cols)
    assert np.array_equal(planes[0], flat == 1) and np.array_equal(planes[1], flat == -1)


def test_the_to_move_plane_is_ones_for_an_x_learner(gym):
    planes, _ = make(gym, "planes").reset(seed=0)
    assert planes[2].tolist() == [[1.0] * 3] * 3 and planes[:2].sum() == 0


@pytest.mark.parametrize("size,k", BOARDS)
def test_the_dict_holds_the_board_and_the_mask_of_the_info(gym, size, k):
    env = make(gym, "dict", size, k)
    seen, info = env.reset(seed=2)
    assert set(seen) == {"observation", "action_mask"}
    assert np.array_equal(seen["action_mask"], info["action_mask"])
    assert np.array_equal(seen["observation"], board.observation(env.unwrapped.position, X))
    terminated = False
    while not terminated:
        move = int(np.flatnonzero(seen["action_mask"])[-1])
        seen, _, terminated, _, info = env.step(move)
        assert env.observation_space.contains(seen)
        assert np.array_equal(seen["action_mask"], info["action_mask"])
    assert seen["action_mask"].sum() == 0


def test_the_planes_of_a_position():
    position = State([[1, -1, 0], [0, 1, 0], [0, 0, -1]], X)
    seen = board.planes(position, O)
    assert seen[0].tolist() == [[0, 1, 0], [0, 0, 0], [0, 0, 1]]
    assert seen[1].tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 0]]
    assert seen[2].sum() == 9


@pytest.mark.parametrize("bad", ["image", "Board", None, 3, "planes " * 20])
def test_an_unknown_observation_is_one_line_naming_the_allowed(gym, bad):
    with pytest.raises(ValueError) as caught:
        make(gym, bad)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 120
    assert message.startswith("observation must be one of board, planes, dict, got ")


@pytest.mark.slow
@pytest.mark.parametrize("size,k", BOARDS)
@pytest.mark.parametrize("kind", KINDS)
def test_both_checkers_pass(gym, kind, size, k):
    pytest.importorskip("stable_baselines3", reason=f"stable-baselines3: {EXTRAS}")
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = make(gym, kind, size, k, opponent="advanced").unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # any complaint of Gymnasium's checker fails the test
        assert check_env(env) is None
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        sb3_check_env(env)
    advice = [str(w.message) for w in said]
    expected = SB3_IMAGE_ADVICE if kind == "planes" else ()
    assert len(advice) == len(expected)
    assert all(text.startswith(start) for text, start in zip(advice, expected))


def small_cnn():
    """A feature extractor of two 3x3 convolutions for boards too small for SB3's CnnPolicy."""
    import torch
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    class SmallCNN(BaseFeaturesExtractor):
        def __init__(self, observation_space, features_dim: int = 32) -> None:
            super().__init__(observation_space, features_dim)
            channels, rows, cols = observation_space.shape
            self.net = torch.nn.Sequential(
                torch.nn.Conv2d(channels, 16, 3, padding=1), torch.nn.ReLU(),
                torch.nn.Conv2d(16, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.Flatten(),
                torch.nn.Linear(16 * rows * cols, features_dim), torch.nn.ReLU())

        def forward(self, observations):
            return self.net(observations)

    return {"features_extractor_class": SmallCNN}


TRAINED = [("board", "MlpPolicy", "3x3", None), ("planes", "MlpPolicy", "3x4", 3),
           ("planes", "cnn", "4x4", 4), ("dict", "MultiInputPolicy", "5x5", 4)]


@pytest.mark.slow
@pytest.mark.parametrize("kind,policy,size,k", TRAINED)
def test_maskable_ppo_trains_on_each_and_then_plays_only_legal_moves(gym, kind, policy, size, k):
    pytest.importorskip("sb3_contrib", reason=f"sb3-contrib: {EXTRAS}")
    from sb3_contrib import MaskablePPO

    env = make(gym, kind, size, k, illegal="raise")    # an illegal move fails the test
    kwargs = {"policy_kwargs": small_cnn()} if policy == "cnn" else {}
    model = MaskablePPO("CnnPolicy" if policy == "cnn" else policy, env, n_steps=64,
                        batch_size=32, n_epochs=2, seed=0, device="cpu", **kwargs)
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    results = []
    for game in range(5):
        seen, info = env.reset(seed=100 + game)
        terminated = False
        while not terminated:
            action, _ = model.predict(seen, action_masks=env.unwrapped.action_masks(),
                                      deterministic=True)
            assert info["action_mask"][int(action)] == 1
            seen, reward, terminated, _, info = env.step(action)
        results.append(reward)
    assert len(results) == 5 and set(results) <= {-1.0, 0.0, 1.0}
