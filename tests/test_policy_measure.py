"""``measure_policy``: a plain function, a torch module and an SB3 model measured exactly, each
figure equal to what the exact tools give for the same policy written another way."""

import re
import zlib
from pathlib import Path

import numpy as np
import pytest

import tictactoe_rl
from Agent import Agent, seats
from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced
from State import position_of
from TicTacToe import TicTacToe
from tictactoe_rl.boards.perfect import PerfectAgent
from tictactoe_rl.boards.solver import Solver
from tictactoe_rl.envs.board import board_shape, observation, position_of as seen_position
from tictactoe_rl.envs.measure import from_sb3, from_torch, measure_policy
from tictactoe_rl.exact.solver import exact_outcome, side_result
from tictactoe_rl.exact.worst import worst_case
from tictactoe_rl.positions import start_position

ROOT = Path(__file__).resolve().parent.parent
EXTRAS = "the optional extras are not installed (pip install -r requirements-extra.txt)"
BOARDS = [("3x3", None), ("3x4", 3)]


def hashed(observation: np.ndarray, mask: np.ndarray) -> int:
    """Random-looking but deterministic: a legal cell picked by a hash of the observation."""
    legal = np.flatnonzero(mask)
    return int(legal[zlib.crc32(observation.tobytes()) % len(legal)])


class HashedAgent(Agent):
    """``hashed`` written against the course's positions, without the environment's encoding."""

    def action_probs(self, state):
        position = position_of(state)
        cells = np.array(position.cells, dtype=np.int8) * np.int8(self.player)
        legal = [index for index, value in enumerate(position.cells) if value == 0]
        index = legal[zlib.crc32(cells.tobytes()) % len(legal)]
        return {divmod(index, self.env.shape.cols): 1.0}


@pytest.mark.slow
@pytest.mark.parametrize("side", ["X", "O"])
@pytest.mark.parametrize("board, k", BOARDS)
def test_a_plain_function_gets_the_exact_tools_figures(board, k, side):
    report = measure_policy(hashed, side=side, board=board, k=k)
    shape = board_shape(board, k)
    env, player = TicTacToe(board=shape), 1 if side == "X" else -1
    agent = HashedAgent(player, env)
    opponents = {"random": Random_Agent(-player, env), "advanced": Random_Agent_Advanced(-player, env),
                 "perfect": PerfectAgent(-player, env)}
    assert report.board == shape and report.side == player
    assert list(report.results) == list(opponents)
    for name, opponent in opponents.items():
        outcome = exact_outcome(*seats(agent, opponent), start_position(shape))
        assert report.results[name] == pytest.approx(side_result(outcome, player), abs=1e-12)
        assert report.illegal[name] == 0
    assert (report.worst, report.line) == worst_case(agent, start_position(shape))
    assert report.worst == -1 and report.results["perfect"][1] > 0   # a random policy loses


def perfect(shape):
    """The perfect player as a function of the observation: the first of its best moves."""
    player = PerfectAgent(1, TicTacToe(board=shape))

    def policy(observation, mask):
        side = 1 if observation.sum() == 0 else -1    # X to move on an even count of marks
        row, col = player.best_actions(seen_position(observation, side, shape))[0]
        return row * shape.cols + col
    return policy


@pytest.mark.parametrize("side", ["X", "O"])
@pytest.mark.parametrize("board, k", [("3x3", None), ("3x4", 4),
                                     pytest.param("4x4", 4, marks=pytest.mark.slow)])
def test_the_perfect_player_never_loses(board, k, side):
    shape = board_shape(board, k)
    assert Solver(shape).value() == 0           # all three boards are draws under perfect play
    report = measure_policy(perfect(shape), side=side, board=board, k=k)
    assert [losses for _, losses, _ in report.results.values()] == [0, 0, 0]
    assert report.results["perfect"] == pytest.approx((0, 0, 1))
    assert report.results["random"][0] > 0.2 and (report.worst, report.line) == (0, None)
    assert report.worst_line().startswith("unbeatable")


def test_an_illegal_answer_loses_and_is_the_line_that_beats_it():
    report = measure_policy(lambda observation, mask: 0, side="O")
    assert all(result == pytest.approx((0, 1, 0)) for result in report.results.values())
    assert report.illegal == pytest.approx({"random": 1, "advanced": 1, "perfect": 1})
    assert (report.worst, report.line) == (-1, [(0, 0), (0, 0)])   # X takes cell 0, O plays it
    assert report.worst_line() == "can be beaten, e.g. by the line 0,0 0,0"
    off_board = measure_policy(lambda observation, mask: 9)
    assert off_board.illegal["random"] == 1 and off_board.line == [(3, 0)]


@pytest.mark.parametrize("policy, kwargs, error, words", [
    (hashed, {"board": "5x5", "k": 4}, ValueError, "cannot walk the game of 5x5 k=4: it needs"),
    (hashed, {"side": "Z"}, ValueError, "side must be 'X' or 'O'"),
    (hashed, {"board": "9x9"}, ValueError, "1 to 5 rows, got 9"),
    (42, {}, TypeError, "not int"),
    (lambda observation, mask: "centre", {}, ValueError, "not a cell index"),
    (lambda observation, mask: 4.0, {}, ValueError, "not a cell index"),
])
def test_what_does_not_fit_is_refused_in_one_line(policy, kwargs, error, words):
    with pytest.raises(error) as refused:
        measure_policy(policy, **kwargs)
    assert words in str(refused.value) and "\n" not in str(refused.value)


def test_the_package_exports_the_entry():
    assert tictactoe_rl.measure_policy is measure_policy
    assert (tictactoe_rl.from_sb3, tictactoe_rl.from_torch) == (from_sb3, from_torch)


def report_of(policy, side="X", board="3x3", k=None):
    report = measure_policy(policy, side=side, board=board, k=k)
    return report.results, report.illegal, report.worst, report.line


@pytest.mark.slow
@pytest.mark.parametrize("board, k", BOARDS)
def test_a_torch_module_is_its_masked_argmax(board, k):
    torch = pytest.importorskip("torch", reason="torch is not installed")
    cells = board_shape(board, k).size
    torch.manual_seed(3)
    module = torch.nn.Sequential(torch.nn.Linear(cells, 16), torch.nn.ReLU(),
                                 torch.nn.Linear(16, cells))

    def twin(observation, mask):
        with torch.no_grad():
            scores = module(torch.tensor(observation, dtype=torch.float32)).numpy()
        return int(np.argmax(np.where(mask, scores, -np.inf)))

    for side in ("X", "O"):
        assert report_of(module, side, board, k) == report_of(twin, side, board, k)
        assert report_of(from_torch(module), side, board, k) == report_of(twin, side, board, k)
    wrong = torch.nn.Linear(cells, cells + 1)
    with pytest.raises(ValueError, match=f"gives {cells + 1} scores, the board has {cells} cells"):
        measure_policy(wrong, board=board, k=k)


@pytest.fixture(scope="module")
def maskable_ppo():
    gymnasium = pytest.importorskip("gymnasium", reason=f"gymnasium: {EXTRAS}")
    sb3_contrib = pytest.importorskip("sb3_contrib", reason=f"sb3-contrib: {EXTRAS}")
    env = gymnasium.make("tictactoe_rl/TicTacToe-v0", opponent="random")
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, seed=2, device="cpu", n_steps=128,
                                    batch_size=64, n_epochs=2)
    return model.learn(total_timesteps=256)


@pytest.mark.slow
def test_an_sb3_model_gets_the_figures_of_its_predict(maskable_ppo):
    def twin(observation, mask):
        return maskable_ppo.predict(observation, action_masks=mask, deterministic=True)[0]

    def bare_twin(observation, mask):
        return maskable_ppo.predict(observation, deterministic=True)[0]

    for side in ("X", "O"):
        masked = report_of(maskable_ppo, side)
        assert masked == report_of(twin, side) == report_of(from_sb3(maskable_ppo), side)
        assert set(masked[1].values()) == {0}                       # the mask holds
        bare = report_of(from_sb3(maskable_ppo, masked=False), side)
        assert bare == report_of(bare_twin, side)
        assert bare[1]["random"] > 0     # the bare policy, barely trained, plays illegally


@pytest.mark.slow
def test_the_documented_example_runs(maskable_ppo, capsys):
    """docs/ENVIRONMENTS.md's example, run as it stands but for a tiny number of steps."""
    text = (ROOT / "docs" / "ENVIRONMENTS.md").read_text(encoding="utf-8")
    section = text.split("## Any policy, measured exactly", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(code.splitlines()) <= 25
    tiny, replaced = re.subn(r"^STEPS = [\d_]+$", "STEPS = 64", code, flags=re.M)
    assert replaced == 1
    namespace: dict = {}
    exec(compile(tiny, "ENVIRONMENTS.md", "exec"), namespace)
    printed = capsys.readouterr().out
    model = namespace["model"]

    def twin(observation, mask):
        return model.predict(observation, action_masks=mask, deterministic=True)[0]

    assert str(namespace["report"]) == str(measure_policy(twin)) and str(namespace["report"]) in printed
    assert namespace["report"].results["perfect"] == (namespace["wins"], namespace["losses"],
                                                       namespace["draws"])
    assert f"beaten by {namespace['report'].line}" in printed
    assert printed.rstrip().endswith(measure_policy(namespace["first_empty"], side="O",
                                                    board="3x4", k=3).worst_line())


def test_an_sb3_model_without_masks_is_measured_bare_or_refused_in_one_line():
    gymnasium = pytest.importorskip("gymnasium", reason=f"gymnasium: {EXTRAS}")
    sb3 = pytest.importorskip("stable_baselines3", reason=f"stable-baselines3: {EXTRAS}")
    model = sb3.PPO("MlpPolicy", gymnasium.make("tictactoe_rl/TicTacToe-v0"), seed=1, device="cpu")
    with pytest.raises(ValueError, match=r"^PPO.predict takes no action_masks: .*masked=False\)$"):
        measure_policy(model)
    assert report_of(from_sb3(model, masked=False)) == report_of(
        lambda observation, mask: model.predict(observation, deterministic=True)[0])


@pytest.mark.slow
def test_a_policy_of_another_encoding_is_shown_its_own_observation():
    """``observe``: the cells as a rows x cols grid instead of the flat vector."""
    def grid(position, side):
        return observation(position, side).reshape(3, 4)

    def hashed_grid(seen, mask):
        assert seen.shape == (3, 4)
        return hashed(seen.reshape(-1), mask)

    grid_report = measure_policy(hashed_grid, side="O", board="3x4", k=3, observe=grid)
    flat_report = measure_policy(hashed, side="O", board="3x4", k=3)
    assert grid_report == flat_report
