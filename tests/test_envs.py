"""The game in Gymnasium and PettingZoo: both checkers pass, and the games are the repo's."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

from Random_Agent_Advanced import Random_Agent_Advanced
from State import O, X, State
from TicTacToe import REWARD
from tictactoe_rl.exact.solver import exact_outcome, side_result
from tictactoe_rl.envs import board

EXTRAS = "the optional extras are not installed (pip install -r requirements-extra.txt)"


@pytest.fixture(scope="module")
def gym():
    gymnasium = pytest.importorskip("gymnasium", reason=f"gymnasium: {EXTRAS}")
    from tictactoe_rl import envs

    envs.register()
    return gymnasium


@pytest.fixture(scope="module")
def aec():
    pytest.importorskip("pettingzoo", reason=f"pettingzoo: {EXTRAS}")
    from tictactoe_rl.envs import pettingzoo_env

    return pettingzoo_env


def test_the_package_imports_no_optional_package():
    code = "import sys, tictactoe_rl.envs; print(sorted({'gymnasium', 'pettingzoo'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.slow
@pytest.mark.parametrize("kwargs", [{}, {"side": "O", "opponent": "advanced"},
                                    {"opponent": "Data/Q_MC_O.pth"},
                                    {"side": "O", "opponent": "random+mcts:iterations=30"}])
def test_gymnasium_checker_passes_without_a_warning(gym, kwargs):
    from gymnasium.utils.env_checker import check_env

    env = gym.make("TicTacToe-v0", **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # any complaint of the checker fails the test
        assert check_env(env.unwrapped) is None


def test_the_module_path_makes_it_too(gym):
    env = gym.make("tictactoe_rl.envs.gymnasium_env:TicTacToe-v0", side="O")
    observation, info = env.reset(seed=3)
    assert sorted(observation.tolist()).count(-1) == 1 and observation.sum() == -1
    assert info["action_mask"].sum() == 8 and info["action_mask"][observation == -1] == 0


def play_first_legal(env, seed=None):
    """One episode (``reset(seed=seed)`` first) where the learner always marks the first empty
    cell; its final reward."""
    observation, info = env.reset(seed=seed)
    while True:
        action = int(np.argmax(info["action_mask"]))
        observation, reward, terminated, truncated, info = env.step(action)
        assert not truncated
        if terminated:
            return reward


@pytest.mark.slow
def test_opponent_moves_follow_its_stated_policy(gym):
    """Sampled results against 'advanced' agree with the exact ones for the same learner."""
    env = gym.make("TicTacToe-v0", opponent="advanced")
    rewards = [play_first_legal(env, seed) for seed in range(3000)]

    class First_Legal:
        player = X

        def action_probs(self, state):
            return {state.legal_actions()[0]: 1.0}

    wins, losses, _ = side_result(exact_outcome(First_Legal(), Random_Agent_Advanced(O)), X)
    # the standard error of a mean of 3,000 results in [-1, 1] is below 0.019
    assert abs(np.mean(rewards) - (wins - losses)) < 0.06


def test_rewards_and_observations_are_the_learners(gym):
    for side, name in ((X, "X"), (O, "O")):
        env = gym.make("TicTacToe-v0", side=name).unwrapped
        for seed in range(40):
            observation, info = env.reset(seed=seed)
            terminated = False
            while not terminated:
                assert board.position_of(observation, side) == env.position
                legal = np.flatnonzero(info["action_mask"])
                observation, reward, terminated, _, info = env.step(int(legal[seed % len(legal)]))
            assert reward == REWARD[env.position.end_of_game] * side
            assert env.position.end_of_game != 0 and info["action_mask"].sum() == 0


def test_same_seed_same_game_other_seed_other_game(gym):
    env = gym.make("TicTacToe-v0", opponent="random")

    def games(seed):
        """The final positions of 20 games, only the first reset seeded."""
        finals = []
        for game in range(20):
            play_first_legal(env, seed if game == 0 else None)
            finals.append(env.unwrapped.position)
        return finals

    assert games(7) == games(7)
    assert games(7) != games(8)


def test_an_illegal_move_loses_or_raises(gym):
    env = gym.make("TicTacToe-v0", side="O", opponent="minimax").unwrapped
    observation, _ = env.reset(seed=0)
    taken = int(np.flatnonzero(observation)[0])
    before = env.position
    observation, reward, terminated, truncated, info = env.step(taken)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert env.position is before and info["action_mask"].sum() == 0
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)
    for bad in (9, -1, True, 2.0):
        env.reset(seed=0)
        assert env.step(bad)[1] == -1.0
    strict = gym.make("TicTacToe-v0", illegal="raise").unwrapped
    strict.reset(seed=0)
    strict.step(4)
    with pytest.raises(ValueError, match="illegal action 4"):
        strict.step(4)


@pytest.mark.slow
def test_bad_arguments_are_one_clear_error(gym):
    with pytest.raises(ValueError, match="side must be 'X' or 'O'"):
        gym.make("TicTacToe-v0", side="x?")
    with pytest.raises(ValueError, match="is a table for O, not for X"):
        gym.make("TicTacToe-v0", side="O", opponent="Data/Q_MC_O.pth")
    with pytest.raises(ValueError, match="unknown agent"):
        gym.make("TicTacToe-v0", opponent="grandmaster")
    with pytest.raises(ValueError, match="illegal must be one of"):
        gym.make("TicTacToe-v0", illegal="ignore")


def test_renders_text_and_frames(gym):
    env = gym.make("TicTacToe-v0", render_mode="ansi")
    env.reset(seed=0)
    env.step(4)
    rows = env.render().splitlines()
    assert rows[1][2] == "X" and "".join(rows[:3]).count("O") == 1
    assert rows[3:] == ["X to move (the learner plays X)"]
    frames = gym.make("TicTacToe-v0", render_mode="rgb_array")
    frames.reset(seed=0)
    frame = frames.render()
    assert frame.shape == (600, 480, 3) and frame.dtype == np.uint8 and frame.std() > 0
    frames.close()
    frames.close()


# What api_test says of every dict observation with an action mask (PettingZoo's own classic
# games are exempted by name) and of the empty board at the start: advice, not failures.
DICT_OBSERVATION_ADVICE = {
    "Observation is not a NumPy array",
    "Observation numpy array is all zeros.",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
}


@pytest.mark.filterwarnings("ignore:The old environment creation API:DeprecationWarning")
def test_pettingzoo_api_test_passes(aec, capsys):
    from pettingzoo.test import api_test, seed_test

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(aec.env(), num_cycles=1000)
        seed_test(aec.env, num_cycles=100)
    assert "Passed API test" in capsys.readouterr().out
    assert {str(warning.message) for warning in caught} <= DICT_OBSERVATION_ADVICE


def test_pettingzoo_game_is_the_repos(aec):
    game = aec.env(render_mode="ansi")
    game.reset(seed=0)
    for cell in (0, 3, 1, 4):
        mover = game.agent_selection
        seen = game.observe(mover)
        other = game.observe("player_2" if mover == "player_1" else "player_1")
        assert (seen["observation"] == -other["observation"]).all()
        assert other["action_mask"].sum() == 0
        assert seen["action_mask"][cell] == 1
        game.step(cell)
    game.step(2)   # X completes the top row
    assert game.rewards == {"player_1": 1.0, "player_2": -1.0}
    assert all(game.terminations.values())
    assert game.unwrapped.position == State([1, 1, 1, -1, -1, 0, 0, 0, 0], O)
    assert game.render().startswith("X X X\nO O .\n. . .\nX wins")


def test_pettingzoo_illegal_move_ends_the_game(aec):
    game = aec.env()
    game.reset()
    game.step(4)
    game.step(4)
    assert game.rewards == {"player_1": 0.0, "player_2": -1.0}
    assert game.infos["player_2"] == {"illegal_action": True}
    assert all(game.terminations.values())


@pytest.mark.slow
def test_the_example_trains_a_table_that_tester_measures_exactly(gym, tmp_path):
    """examples/train_gymnasium.py: Q-learning through the Gymnasium API, then Tester --exact."""
    table = str(tmp_path / "gym_X.pth")
    trained = subprocess.run([sys.executable, "examples/train_gymnasium.py", "--episodes", "30000",
                              "--seed", "1", "--out", table], capture_output=True, text=True)
    assert trained.returncode == 0, trained.stderr
    assert "30,000 episodes" in trained.stdout and f"saved to {table}" in trained.stdout
    exact = subprocess.run([sys.executable, "Tester.py", "--x", table, "--o", "random", "--exact"],
                           capture_output=True, text=True, check=True).stdout
    win, lose, draw = map(float, exact.splitlines()[-1].split()[2:])
    assert abs(win + lose + draw - 1) < 1e-9 and win > 0.95 and lose == 0
    worst = subprocess.run([sys.executable, "Tester.py", "--worst-case", table],
                           capture_output=True, text=True, check=True).stdout
    assert "unbeatable" in worst


# --- what the field's libraries hand the environments -----------------------------------------
# Every form of "cell 4" that Discrete(9).contains accepts (SB3's predict returns the 0-d array),
# and forms it refuses, which are illegal moves.
CELL_4 = [4, np.int64(4), np.int8(4), np.uint8(4), np.array(4), np.array(4, dtype=np.int32)]
NOT_A_CELL = [4.0, np.array(4.0), np.float32(4), "4", None, np.bool_(True)]


@pytest.mark.parametrize("action", CELL_4, ids=repr)
def test_gymnasium_takes_every_integer_the_action_space_takes(gym, action):
    env = gym.make("TicTacToe-v0", opponent="minimax")
    env.reset(seed=0)
    assert env.action_space.contains(action)
    observation, reward, terminated, truncated, info = env.step(action)
    assert "illegal_action" not in info and not terminated
    assert observation[4] == 1 and (observation == -1).sum() == 1


@pytest.mark.parametrize("action", NOT_A_CELL, ids=repr)
def test_gymnasium_refuses_what_the_action_space_refuses(gym, action):
    env = gym.make("TicTacToe-v0").unwrapped
    env.reset(seed=0)
    assert not env.action_space.contains(action)
    _, reward, terminated, _, info = env.step(action)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)


@pytest.mark.parametrize("action", CELL_4, ids=repr)
def test_pettingzoo_takes_every_integer_the_action_space_takes(aec, action):
    game = aec.env()
    game.reset(seed=0)
    game.step(action)
    assert game.agent_selection == "player_2" and not any(game.terminations.values())
    assert game.observe("player_2")["observation"][4] == -1


def test_action_masks_are_the_info_masks(gym, aec):
    env = gym.make("TicTacToe-v0", opponent="advanced")
    _, info = env.reset(seed=2)
    masks = env.get_wrapper_attr("action_masks")
    while True:
        assert masks().dtype == bool and (masks() == info["action_mask"].astype(bool)).all()
        if not masks().any():
            break
        _, _, terminated, _, info = env.step(np.array(int(np.flatnonzero(masks())[0])))
    assert terminated
    game = aec.env()
    game.reset()
    for cell in (0, 4, 8):
        mover = game.agent_selection
        assert (game.action_masks() == game.observe(mover)["action_mask"].astype(bool)).all()
        game.step(cell)
    assert game.action_masks().tolist() == [False, True, True, True, False, True, True, True,
                                            False]


@pytest.mark.filterwarnings("ignore:The old environment creation API:DeprecationWarning")
def test_pettingzoo_follows_tictactoe_v3_where_it_says_it_does(aec):
    """Lock-step games with PettingZoo's own game: rewards, terminations and agent_selection
    agree after every step; truncations and the masks after the end are the documented
    differences."""
    from pettingzoo.classic import tictactoe_v3

    rng = np.random.default_rng(5)
    for game_number in range(60):
        ours, theirs = aec.env(), tictactoe_v3.env()
        ours.reset(seed=game_number)
        theirs.reset(seed=game_number)
        illegal_at = game_number % 6 if game_number % 3 == 0 else None   # now and then a bad move
        for move_number in range(9):
            mask = ours.observe(ours.agent_selection)["action_mask"]
            legal = np.flatnonzero(mask)
            taken = np.flatnonzero(ours.observe(ours.agent_selection)["observation"])
            illegal = illegal_at == move_number and len(taken) > 0
            action = int(taken[0]) if illegal else int(rng.choice(legal))
            ours.step(np.array(action))
            theirs.step(action)
            assert ours.agent_selection == theirs.agent_selection
            assert ours.rewards == theirs.rewards and ours.terminations == theirs.terminations
            if all(ours.terminations.values()):
                assert not any(ours.truncations.values())
                assert all(theirs.truncations.values()) == illegal
                assert all(ours.observe(a)["action_mask"].sum() == 0 for a in ours.agents)
                break


@pytest.mark.filterwarnings("ignore:The old environment creation API:DeprecationWarning")
def test_the_flat_observation_passes_the_api_test_and_keeps_the_mask_in_info(aec, capsys):
    from pettingzoo.test import api_test

    game = aec.env(observation="box")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # the empty board is "all zeros": advice, not a failure
        api_test(game, num_cycles=300)
    assert "Passed API test" in capsys.readouterr().out
    game.reset()
    assert game.observation_space("player_1").shape == (9,)
    game.step(4)
    seen = game.observe("player_2")
    assert seen.shape == (9,) and seen[4] == -1
    assert game.infos["player_2"]["action_mask"].tolist() == [1, 1, 1, 1, 0, 1, 1, 1, 1]
    assert game.infos["player_1"]["action_mask"].sum() == 0
    with pytest.raises(ValueError, match="observation must be one of dict, box"):
        aec.env(observation="planes")


def test_spawn_workers_make_the_env_by_its_module_id(gym):
    """``tictactoe_rl:TicTacToe-v0`` imports the package in each worker, which registers it."""
    from functools import partial

    from gymnasium.vector import AsyncVectorEnv

    make = partial(gym.make, "tictactoe_rl:TicTacToe-v0", opponent="minimax")
    vector = AsyncVectorEnv([make, make], context="spawn")
    try:
        observations, infos = vector.reset(seed=0)
        assert observations.shape == (2, 9) and infos["action_mask"].sum() == 18
        masks = vector.call("action_masks")
        assert [mask.sum() for mask in masks] == [9, 9]
        observations, rewards, terminated, truncated, infos = vector.step(np.array([4, 4]))
        assert (observations[:, 4] == 1).all() and not terminated.any()
    finally:
        vector.close()


@pytest.mark.slow
def test_maskable_ppo_trains_and_is_measured_exactly(gym, tmp_path):
    """examples/train_maskable_ppo.py at a small size; its exact figures agree with games played
    through the environment by SB3's own predict -> step loop. It leaves no folder of its own in
    the temp folder (SB3's default logger makes one there on every run; torch keeps one cache
    folder there for every run)."""
    pytest.importorskip("sb3_contrib", reason=f"sb3-contrib: {EXTRAS}")
    from sb3_contrib import MaskablePPO

    model_path, temp = tmp_path / "ppo_X.zip", tmp_path / "temp"
    temp.mkdir()
    environment = {key: value for key, value in os.environ.items() if key != "SB3_LOGDIR"}
    run = subprocess.run([sys.executable, "examples/train_maskable_ppo.py", "--steps", "3000",
                          "--seed", "1", "--out", str(model_path)], capture_output=True, text=True,
                         env={**environment, "TMPDIR": str(temp)})
    assert run.returncode == 0, run.stderr
    assert not list(temp.glob("SB3-*"))
    lines = run.stdout.splitlines()
    assert lines[0].startswith("MaskablePPO: 3,000 steps") and f"saved to {model_path}" in lines[1]
    figures = {}
    for line in lines[2:8]:
        label, numbers = line.split(":", 1)
        wins, losses, draws, illegal = (float(word.rstrip("%")) / 100 for word in numbers.split()
                                        if word.endswith("%"))
        assert abs(wins + losses + draws - 1) < 1e-6 and illegal <= losses
        figures[label.split(maxsplit=1)[1].strip()] = (wins, losses, illegal)
    assert figures["vs random"][2] == figures["vs advanced"][2] == figures["vs perfect"][2] == 0
    assert set(figures) == {f"vs {name}{bare}" for name in ("random", "advanced", "perfect")
                            for bare in ("", ", no mask")}
    assert lines[8].startswith(("unbeatable", "can be beaten"))

    model = MaskablePPO.load(model_path, device="cpu")
    env = gym.make("TicTacToe-v0", opponent="random")
    rewards = []
    for seed in range(1000):
        observation, _ = env.reset(seed=seed)
        done = False
        while not done:
            action, _ = model.predict(observation, deterministic=True,
                                      action_masks=env.get_wrapper_attr("action_masks")())
            observation, reward, terminated, truncated, _ = env.step(action)   # array(4) etc.
            done = terminated or truncated
        rewards.append(reward)
    wins, losses, _ = figures["vs random"]
    # the standard error of a mean of 1,000 results in [-1, 1] is at most 0.032
    assert abs(np.mean(rewards) - (wins - losses)) < 0.1


@pytest.mark.filterwarnings("ignore:The old environment creation API:DeprecationWarning")
def test_supersuits_observation_wrappers_take_the_flat_observation(aec, capsys):
    supersuit = pytest.importorskip("supersuit", reason=f"supersuit: {EXTRAS}")
    from pettingzoo.test import api_test

    wrappers = {"dtype_v0": lambda game: supersuit.dtype_v0(game, np.float32),
                "flatten_v0": supersuit.flatten_v0,
                "frame_stack_v1": lambda game: supersuit.frame_stack_v1(game, 3),
                "normalize_obs_v0": lambda game: supersuit.normalize_obs_v0(
                    supersuit.dtype_v0(game, np.float32), env_min=-1, env_max=1)}
    shapes = {}
    for name, wrap in wrappers.items():
        game = wrap(aec.env(observation="box"))
        game.reset(seed=0)
        game.step(np.int64(4))
        seen = game.observe("player_2")
        shapes[name] = seen.shape
        assert seen.reshape(-1)[-9:][4] == -1   # the newest frame: O sees X in the centre
        assert game.infos["player_2"]["action_mask"][4] == 0
        with pytest.raises((AttributeError, AssertionError)):   # the dict observation: no Box
            wrap(aec.env())
    assert shapes == {"dtype_v0": (9,), "flatten_v0": (9,), "frame_stack_v1": (27,),
                      "normalize_obs_v0": (9,)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(supersuit.frame_stack_v1(aec.env(observation="box"), 2), num_cycles=100)
    assert "Passed API test" in capsys.readouterr().out
