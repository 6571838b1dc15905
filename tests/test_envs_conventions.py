"""The field's conventions, as a practitioner relies on them: the namespaced id, one action per
step, PettingZoo's warning, each console command's --version, the observation a model was trained
on, and the exploiter that beats a trained policy, offered as a Gymnasium opponent."""

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tictactoe_rl
from tictactoe_rl import cli
from tictactoe_rl.envs.board import board_shape
from tictactoe_rl.envs.measure import from_sb3, measure_policy
from tictactoe_rl.exact.fits import refusal

ROOT = Path(__file__).resolve().parent.parent
EXTRAS = "the optional extras are not installed (pip install -r requirements-extra.txt)"
COMMANDS = {"play": "tictactoe-play", "train": "tictactoe-train", "train_q": "tictactoe-train-q",
            "train_sarsa": "tictactoe-train-sarsa", "train_dqn": "tictactoe-train-dqn",
            "measure": "tictactoe-measure"}


@pytest.fixture
def gym():
    return pytest.importorskip("gymnasium", reason=f"gymnasium: {EXTRAS}")


@pytest.fixture
def aec():
    pytest.importorskip("pettingzoo", reason=f"pettingzoo: {EXTRAS}")
    from tictactoe_rl.envs import pettingzoo_env

    return pettingzoo_env


def first_empty(observation: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def test_the_exported_id_is_ours_whoever_registered_the_bare_one_first(gym, monkeypatch):
    from tictactoe_rl import envs

    for env_id in ("TicTacToe-v0", "tictactoe_rl/TicTacToe-v0"):
        monkeypatch.delitem(gym.registry, env_id)
    gym.register("TicTacToe-v0", entry_point="gymnasium.envs.toy_text:FrozenLakeEnv")
    assert envs.register() == tictactoe_rl.ENV_ID == "tictactoe_rl/TicTacToe-v0"
    assert type(gym.make(tictactoe_rl.ENV_ID).unwrapped).__name__ == "TicTacToeEnv"
    assert type(gym.make("TicTacToe-v0").unwrapped).__name__ == "FrozenLakeEnv"   # theirs


@pytest.mark.parametrize("batch", [np.array([4]), np.array([[4]]), np.array([4, 5])], ids=repr)
def test_a_batch_of_actions_is_refused_in_one_line_and_the_game_goes_on(gym, aec, batch):
    env = gym.make(tictactoe_rl.ENV_ID, opponent="minimax")
    env.reset(seed=0)
    with pytest.raises(ValueError) as refused:
        env.step(batch)
    assert str(refused.value) == (f"action {' '.join(repr(batch).split())} has shape "
                                  f"{batch.shape}: a step takes one cell index, such as 4 or "
                                  f"np.array(4) (action.item() of a batch of one)")
    seen, reward, terminated, _, info = env.step(4)           # nothing was played
    assert (seen[4], reward, terminated, "illegal_action" in info) == (1, 0.0, False, False)
    game = aec.env()
    game.reset(seed=0)
    with pytest.raises(ValueError, match=r"^action array\(.*a batch of one\)$"):
        game.step(batch)
    game.step(4)
    assert game.agent_selection == "player_2" and not any(game.terminations.values())


NO_DISPLAY_CHECKS = """
import gymnasium
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import render_test

import tictactoe_rl
from tictactoe_rl.envs import pettingzoo_env

for mode in (None, "human"):      # check_env makes the environment in every render mode
    check_env(gymnasium.make(tictactoe_rl.ENV_ID, render_mode=mode).unwrapped)
render_test(pettingzoo_env.env)
env = gymnasium.make(tictactoe_rl.ENV_ID, render_mode="human")
env.reset(seed=0)
seen = env.step(4)[0]                  # the learner's mark and the opponent's, drawn unseen
print(int((seen == 1).sum()), int((seen == -1).sum()), env.render())
env.close()
"""


@pytest.mark.slow
def test_without_a_display_the_checkers_pass_and_the_game_still_refuses(gym, aec, tmp_path):
    """As on a server: no DISPLAY, no WAYLAND_DISPLAY, no SDL_VIDEODRIVER asked for."""
    bare = {name: value for name, value in os.environ.items()
            if name not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    checked = subprocess.run([sys.executable, "-c", NO_DISPLAY_CHECKS], cwd=ROOT, env=bare,
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout == "1 1 None\n"
    game = subprocess.run([sys.executable, "Game.py"], cwd=ROOT, env=bare, capture_output=True,
                          text=True, timeout=120)
    assert game.returncode == 2
    assert game.stderr.startswith("error: no display to show the game window on")


def test_pettingzoo_render_without_a_mode_warns_as_pettingzoo_does(aec):
    game = aec.env()
    game.reset(seed=0)
    with pytest.warns(UserWarning, match="render\\(\\) was called without a render_mode"):
        assert game.render() is None


@pytest.mark.slow
@pytest.mark.parametrize("function, command", COMMANDS.items())
def test_each_console_command_names_itself_in_its_version(function, command):
    """Run as the installed command runs: its entry point, with the command as ``argv[0]``."""
    done = subprocess.run([sys.executable, "-c", f"import sys; sys.argv[0] = {command!r}; "
                           f"from tictactoe_rl.commands import {function}; sys.exit({function}())",
                           "--version"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"{command} {cli.VERSION}\n", "")


# --- measure_policy shows a policy the observation it was trained on --------------------------

def test_a_function_is_shown_the_observation_named_as_gymnasium_make_takes_it():
    seen = []

    def on_dict(observation: dict, mask: np.ndarray) -> int:
        seen.append(observation)
        assert (observation["action_mask"] == mask).all()
        return first_empty(observation["observation"], mask)

    assert measure_policy(on_dict, side="O", observation="dict") == \
        measure_policy(first_empty, side="O")
    assert set(seen[0]) == {"observation", "action_mask"} and seen[0]["action_mask"].dtype == np.int8
    with pytest.raises(ValueError, match="^observation must be one of board, planes, dict, "
                                         "got 'image'$"):
        measure_policy(first_empty, observation="image")


@pytest.mark.slow
@pytest.mark.parametrize("kind, policy", [("dict", "MultiInputPolicy"), ("planes", "MlpPolicy")])
def test_an_sb3_model_is_shown_what_its_observation_space_says(gym, kind, policy):
    sb3_contrib = pytest.importorskip("sb3_contrib", reason=f"sb3-contrib: {EXTRAS}")
    env = gym.make(tictactoe_rl.ENV_ID, observation=kind)
    model = sb3_contrib.MaskablePPO(policy, env, seed=1, device="cpu")

    def shown(cells: np.ndarray, mask: np.ndarray):
        """The observation of ``kind``, built here by hand from the flat board (X to move)."""
        grid = cells.reshape(3, 3)
        return ({"observation": cells, "action_mask": mask.astype(np.int8)} if kind == "dict"
                else np.stack([grid == 1, grid == -1, np.ones((3, 3))]).astype(np.float32))

    def twin(cells: np.ndarray, mask: np.ndarray) -> int:
        return model.predict(shown(cells, mask), action_masks=mask, deterministic=True)[0]

    def bare_twin(cells: np.ndarray, mask: np.ndarray) -> int:
        return model.predict(shown(cells, mask), deterministic=True)[0]

    report = measure_policy(model)
    assert report == measure_policy(twin) and set(report.illegal.values()) == {0}
    assert measure_policy(model, observation=kind) == report
    # wrapped to be measured without its mask, the model keeps its observation space
    assert measure_policy(from_sb3(model, masked=False)) == measure_policy(bare_twin)
    with pytest.raises(ValueError, match=f"^observation='board', but the model was trained on "
                                         f"observation='{kind}'$"):
        measure_policy(model, observation="board")
    with pytest.raises(ValueError, match=r"^the model observes .*, none of the observations of "
                                         r"3x4 k=3 \(board, planes, dict\): measure it on the "
                                         r"board it was trained on$"):
        measure_policy(model, board="3x4")


# --- the exploiter: the opponent that beats a policy, and the line that does it ----------------

def test_the_exploiter_beats_the_policy_in_the_environment_by_the_worst_case_line(gym):
    report = measure_policy(first_empty, side="X")
    assert report.worst == -1
    assert report.line_actions == [row * 3 + col for row, col in report.line]
    env = gym.make(tictactoe_rl.ENV_ID, side="X", opponent=tictactoe_rl.exploiter(first_empty))
    for seed in range(3):                            # every game: the same, lost
        seen, info = env.reset(seed=seed)
        played, terminated = [], False
        while not terminated:
            action = first_empty(seen, info["action_mask"].astype(bool))
            before = seen
            seen, reward, terminated, _, info = env.step(action)
            played.append(action)
            answered = np.flatnonzero((seen == -1) & (before == 0))
            played.extend(int(cell) for cell in answered)
        assert reward == -1.0 and played == report.line_actions


@pytest.mark.slow
def test_an_unbeatable_policy_has_no_line_and_nothing_for_the_exploiter(gym):
    from tictactoe_rl.boards.perfect import PerfectAgent
    from tictactoe_rl.envs.board import position_of
    from TicTacToe import TicTacToe

    perfect = PerfectAgent(-1, TicTacToe())

    def never_loses(cells: np.ndarray, mask: np.ndarray) -> int:
        row, col = perfect.best_actions(position_of(cells, -1))[0]
        return row * 3 + col

    report = measure_policy(never_loses, side="O")
    assert (report.worst, report.line, report.line_actions) == (0, None, None)
    assert tictactoe_rl.exploiter(never_loses, side="O").beaten == 0


def test_off_the_exploited_lines_the_fallback_plays_even_one_that_states_no_policy(gym):
    opponent = tictactoe_rl.exploiter(first_empty, fallback="mcts:iterations=20")
    env = gym.make(tictactoe_rl.ENV_ID, opponent=opponent)
    seen, _ = env.reset(seed=0)
    seen, reward, terminated, _, info = env.step(8)      # first_empty never opens in a corner
    assert (seen == -1).sum() == 1 and not terminated and "illegal_action" not in info


def test_the_environment_refuses_an_opponent_of_the_wrong_side_or_board(gym):
    opponent = tictactoe_rl.exploiter(first_empty, side="X")
    for kwargs, words in (({"side": "O"}, "plays O, the same side as the learner"),
                          ({"board": "3x4", "k": 3}, "plays on 3x3 k=3, the environment on 3x4")):
        with pytest.raises(ValueError) as refused:
            gym.make(tictactoe_rl.ENV_ID, opponent=opponent, **kwargs)
        assert words in str(refused.value) and "\n" not in str(refused.value)
    with pytest.raises(ValueError, match="^opponent must be an agent spec such as 'random', or "
                                         "an Agent, got 3$"):
        gym.make(tictactoe_rl.ENV_ID, opponent=3)


def test_the_boards_the_docs_say_are_measured_are_and_the_others_refused():
    """docs/ENVIRONMENTS.md's sentence on boards, held to ``measure_policy``'s own check."""
    text = (ROOT / "docs" / "ENVIRONMENTS.md").read_text(encoding="utf-8")
    said = re.search(r"Every board whose game the exact tools can walk is measured: (.*?)\.\n"
                     r"A bigger one \((.*?)\) is refused in one line", text, re.S)
    measured, refused = (re.findall(r"(\dx\d)(?: k=(\d))?", group) for group in said.groups())
    assert ("4x4", "4") in measured and len(measured) == 4 and len(refused) == 2
    for board, k in measured:
        assert refusal(board_shape(board, k or None)) is None, (board, k)
    for board, k in refused:
        with pytest.raises(ValueError, match=f"^the exact tools cannot walk the game of {board} "
                                             f"k={k}: it needs about"):
            measure_policy(first_empty, board=board, k=k)


@pytest.mark.slow
def test_the_documented_training_against_the_exploiter_runs(gym, capsys):
    """docs/ENVIRONMENTS.md's example, run as it stands but for one tiny round."""
    pytest.importorskip("sb3_contrib", reason=f"sb3-contrib: {EXTRAS}")
    text = (ROOT / "docs" / "ENVIRONMENTS.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text.split("## The exploiter", 1)[1], re.S).group(1)
    assert len(code.splitlines()) <= 40
    tiny = code.replace("STEPS, ROUNDS, POOL = 2_048, 60, 4 ", "STEPS, ROUNDS, POOL = 64, 1, 2 ")
    tiny = tiny.replace("n_steps=128,", "n_steps=32, batch_size=64,")
    assert tiny.count("64") == 2 and "n_steps=32" in tiny
    namespace: dict = {}
    exec(compile(tiny, "ENVIRONMENTS.md", "exec"), namespace)
    printed = capsys.readouterr().out.splitlines()
    model, report = namespace["model"], namespace["report"]
    assert namespace["rounds"] == 1 and model.num_timesteps == 64
    assert re.fullmatch(r"1 rounds of 64 steps in \d+ s", printed[0])
    assert "\n".join(printed[1:]) == str(report) == str(measure_policy(model))
