"""The environments as the field's libraries find them: Gymnasium's namespaced id with its entry
point in the package (a saved spec rebuilds in another process), registration in either order of
imports, and the PettingZoo module under a versioned name with env, raw_env and parallel_env."""

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
EXTRAS = "the optional extras are not installed (pip install -r requirements-extra.txt)"
# What PettingZoo's api_test advises for every dict observation with an action mask and for the
# empty board (its own classic games are exempted by name): advice, not failures.
DICT_OBSERVATION_ADVICE = {
    "Observation is not a NumPy array",
    "Observation numpy array is all zeros.",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
}


def python(code: str, folder: Path) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter started in ``folder``, the clone on the path after it."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], cwd=folder, env=environment,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def gym():
    return pytest.importorskip("gymnasium", reason=f"gymnasium: {EXTRAS}")


@pytest.fixture(scope="module")
def v1():
    pytest.importorskip("pettingzoo", reason=f"pettingzoo: {EXTRAS}")
    from tictactoe_rl import tictactoe_v1

    return tictactoe_v1


def test_the_namespaced_id_names_the_package_and_ends_every_game(gym):
    import tictactoe_rl.envs

    tictactoe_rl.envs.register()
    spec = gym.spec("tictactoe_rl/TicTacToe-v0")
    assert (spec.namespace, spec.name, spec.version) == ("tictactoe_rl", "TicTacToe", 0)
    assert spec.entry_point == "tictactoe_rl.envs.gymnasium_env:TicTacToeEnv"
    assert spec.max_episode_steps == 25          # the cells of the biggest board, 5x5
    assert gym.spec("TicTacToe-v0").entry_point == spec.entry_point     # the old id still works
    env = gym.make("tictactoe_rl/TicTacToe-v0", opponent="minimax")
    assert env.metadata["render_modes"] == ["ansi", "rgb_array", "human"]
    observation, info = env.reset(seed=0)
    assert observation.tolist() == [0] * 9 and info["action_mask"].sum() == 9


@pytest.mark.parametrize("order", ["import gymnasium as gym, tictactoe_rl",
                                   "import tictactoe_rl, gymnasium as gym",
                                   "import TicTacToe, gymnasium as gym"])
def test_the_ids_are_registered_in_any_order_of_imports(gym, tmp_path, order):
    """The course's own modules import the package too, so a script of the course registers."""
    done = python(f"{order}; print(gym.make('tictactoe_rl/TicTacToe-v0').spec.id, "
                  f"gym.make('TicTacToe-v0').spec.max_episode_steps)", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["tictactoe_rl/TicTacToe-v0", "25"]


def test_the_module_form_works_in_a_fresh_process(gym, tmp_path):
    done = python("import gymnasium as gym; print(gym.make('tictactoe_rl:tictactoe_rl/"
                  "TicTacToe-v0', opponent='advanced').spec.kwargs)", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "{'opponent': 'advanced'}"


@pytest.mark.slow
def test_a_saved_spec_is_rebuilt_in_another_process(gym, tmp_path):
    import tictactoe_rl.envs

    tictactoe_rl.envs.register()
    env = gym.make("tictactoe_rl/TicTacToe-v0", opponent="minimax", side="O", board="4x4", k=4)
    saved = tmp_path / "spec.json"
    saved.write_text(env.spec.to_json())
    assert json.loads(saved.read_text())["entry_point"].startswith("tictactoe_rl.")
    # a process that imported nothing of the project: the entry point imports it
    done = python("import sys; from pathlib import Path; from gymnasium.envs.registration "
                  "import EnvSpec; env = EnvSpec.from_json(Path('spec.json').read_text()).make(); "
                  "observation, info = env.reset(seed=0); u = env.unwrapped; "
                  "print(env.spec.id, u.shape.rows, u.shape.cols, u.shape.k, u.side, "
                  "int(observation.sum()), env.spec.max_episode_steps)", tmp_path)
    assert done.returncode == 0, done.stderr
    # as O on 4x4 the opponent (X) has moved once: one mark of the other's, seen as -1
    assert done.stdout.split() == ["tictactoe_rl/TicTacToe-v0", "4", "4", "4", "-1", "-1", "25"]


@pytest.mark.filterwarnings("ignore:The old environment creation API:DeprecationWarning")
def test_the_versioned_module_passes_pettingzoos_tests(v1, capsys):
    from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(v1.env(), num_cycles=300)
        seed_test(v1.env, num_cycles=50)
        parallel_api_test(v1.parallel_env(), num_cycles=300)
        parallel_seed_test(v1.parallel_env, num_cycles=50)
    assert {str(warning.message) for warning in caught} <= DICT_OBSERVATION_ADVICE
    assert "Passed API test" in capsys.readouterr().out
    assert v1.raw_env.metadata["name"] == "tictactoe_v1"


@pytest.mark.filterwarnings("ignore:The old environment creation API:DeprecationWarning")
def test_the_versioned_module_passes_the_render_test(v1, monkeypatch):
    from pettingzoo.test import render_test

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")     # the "human" mode draws unseen
    monkeypatch.setenv("DISPLAY", os.environ.get("DISPLAY", ":0"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        render_test(lambda render_mode=None: v1.env(render_mode=render_mode, observation="box"))


def test_the_parallel_game_moves_the_mover_and_ends_with_the_rewards(v1):
    game = v1.parallel_env()
    observations, infos = game.reset(seed=0)
    assert game.agents == ["player_1", "player_2"]
    assert observations["player_2"]["action_mask"].sum() == 0      # not its turn
    # X takes the top row while O answers below; each step also carries the idle agent's action
    for x_cell, o_cell in ((0, 3), (1, 4)):
        game.step({"player_1": x_cell, "player_2": 8})
        observations, *_ = game.step({"player_1": 8, "player_2": o_cell})
    assert observations["player_1"]["observation"].tolist() == [1, 1, 0, -1, -1, 0, 0, 0, 0]
    _, rewards, terminations, truncations, _ = game.step({"player_1": 2, "player_2": 0})
    assert rewards == {"player_1": 1.0, "player_2": -1.0}
    assert terminations == {"player_1": True, "player_2": True}
    assert truncations == {"player_1": False, "player_2": False} and game.agents == []


def test_an_illegal_move_in_parallel_loses_for_the_mover(v1):
    game = v1.parallel_env(observation="box")
    game.reset()
    game.step({"player_1": 4, "player_2": 0})
    _, rewards, terminations, _, infos = game.step({"player_1": 0, "player_2": 4})
    assert rewards == {"player_1": 0.0, "player_2": -1.0} and all(terminations.values())
    assert infos["player_2"]["illegal_action"] and np.all(infos["player_2"]["action_mask"] == 0)
