"""Monte Carlo training: the episode format, the update arithmetic, repeatability, learning, and
the tables that ship in Data/."""

from pathlib import Path

import pytest

import MC_Trainer
from AI_Agent import AI_Agent
from tictactoe_rl.tables.files import load_table
from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced
from tictactoe_rl.exact.solver import exact_outcome
from tictactoe_rl.exact.worst import worst_case
from State import O, ONGOING, X, State
from tictactoe_rl.exact.symmetry import images
from TicTacToe import REWARD, TicTacToe

DATA = Path(__file__).resolve().parent.parent / "Data"


@pytest.fixture
def trainer(monkeypatch):
    """MC_Trainer with fresh players (its module globals are the course's interface)."""
    def setup(side, opponent_cls=Random_Agent, seed=0):
        env = TicTacToe()
        monkeypatch.setattr(MC_Trainer, "env", env)
        monkeypatch.setattr(MC_Trainer, "player1", AI_Agent(side, env, seed=f"{seed}:l"))
        monkeypatch.setattr(MC_Trainer, "player2", opponent_cls(-side, env, seed=f"{seed}:o"))
        return MC_Trainer
    return setup


@pytest.mark.parametrize("side", [X, pytest.param(O, marks=pytest.mark.exercise_piece(4))])
def test_generate_episode_structure(trainer, side):
    mc = trainer(side)
    for epoch in range(200):
        episode = mc.Generate_episode(mc.player1, epoch)
        *steps, last = episode
        assert len(last) == 1 and isinstance(last[0], State) and last[0].end_of_game != ONGOING
        assert 1 <= len(steps) <= 5
        for index, (state, action, reward) in enumerate(steps):
            assert state.player == side and action in state.legal_actions()
            is_last = index == len(steps) - 1
            assert reward == (REWARD[last[0].end_of_game] if is_last else 0)
        # Each step's state is reached from the previous step by the move and one reply.
        for (state, action, _), (following, _, _) in zip(steps, steps[1:]):
            after_move = state.children()[action]
            assert following in after_move.children().values()
        final_parent = steps[-1][0].children()[steps[-1][1]]
        assert last[0] == final_parent or last[0] in final_parent.children().values()


@pytest.mark.exercise_piece(4)
def test_o_episodes_start_after_xs_first_move(trainer):
    mc = trainer(O)
    first_state = mc.Generate_episode(mc.player1, 0)[0][0]
    assert sum(first_state.cells) == X and first_state.cells.count(X) == 1


def run_main_on(mc, monkeypatch, tmp_path, episode, side):
    monkeypatch.setattr(mc, "Generate_episode", lambda player, epoch: list(episode))
    monkeypatch.setattr(mc, "epochs", 1)
    monkeypatch.setattr(mc, "PATH", str(tmp_path / "q.pth"))
    monkeypatch.setattr(mc, "test", lambda num: (0, 0, 0))
    assert mc.main() is not False  # a main() typed in from the chapter returns None
    return mc.player1.Q


@pytest.mark.parametrize("side", [X, pytest.param(O, marks=pytest.mark.exercise_piece(4))])
def test_mc_update_arithmetic(trainer, monkeypatch, tmp_path, side):
    """The chapter's update (``--plain``): returns walked backwards, every step updated."""
    mc = trainer(side)
    if side == X:
        s1, s2, s3 = State(), State([1, -1, 0, 0, 0, 0, 0, 0, 0]), State([1, -1, 1, 0, -1, 0, 0, 0, 0])
    else:
        s1 = State([1, 0, 0, 0, 0, 0, 0, 0, 0], O)
        s2 = State([1, -1, 1, 0, 0, 0, 0, 0, 0], O)
        s3 = State([1, -1, 1, 0, -1, 0, 1, 0, 0], O)
    mc.player1.Q[(s2, (2, 2))] = 0.5
    final = State([[1, -1, 1], [1, -1, 0], [1, 0, -1]], player=O)
    episode = [(s1, (1, 1), 0), (s2, (2, 2), 0), (s3, (2, 1), 1), (final,)]
    Q = run_main_on(mc, monkeypatch, tmp_path, episode, side)
    gamma, alpha, sign = mc.gamma, mc.alpha, side
    g3 = sign * 1
    g2 = gamma * g3
    g1 = gamma * g2
    assert Q[(s3, (2, 1))] == pytest.approx(alpha * g3)
    assert Q[(s2, (2, 2))] == pytest.approx(0.5 + alpha * (g2 - 0.5))
    assert Q[(s1, (1, 1))] == pytest.approx(alpha * g1)
    saved, saved_side, meta = load_table(str(tmp_path / "q.pth"))
    assert saved == Q and saved_side == side


def greedy_episode(side):
    """An episode whose every move is the learner's greedy one under an empty table (the first
    legal cell), ending in a win for ``side``."""
    if side == X:
        steps = [(State(), (0, 0)), (State([1, -1, 0, 0, 0, 0, 0, 0, 0]), (0, 2)),
                 (State([1, -1, 1, -1, 0, 0, 0, 0, 0]), (1, 1))]
        final = State([1, -1, 1, -1, 1, 0, 0, 0, 0], O)
    else:
        steps = [(State([0, 0, 0, 0, 1, 0, 0, 0, 0], O), (0, 0)),
                 (State([-1, 1, 0, 0, 1, 0, 0, 0, 0], O), (0, 2)),
                 (State([-1, 1, -1, 1, 1, 0, 0, 0, 0], O), (1, 2))]
        final = State([-1, 1, -1, 1, 1, -1, 1, 0, 0], O)  # the reward below says O won
    return [(state, action, 0) for state, action in steps[:-1]] + \
        [(steps[-1][0], steps[-1][1], side), (final,)]


def refined(mc, episode: list, side: int) -> dict:
    """The solved trainer's update (``python MC_Trainer.py``) of an empty table by ``episode``
    (the course's format), with the module's gamma and alpha."""
    from tictactoe_rl.training.monte_carlo import refined_update
    Q: dict = {}
    refined_update(Q, episode[:-1], episode[-1][0], side, mc.gamma, mc.alpha)
    return Q


@pytest.mark.solved_only
@pytest.mark.parametrize("side", [X, O])
def test_refined_update_teaches_every_mirror_image(trainer, monkeypatch, tmp_path, side):
    mc = trainer(side)
    episode = greedy_episode(side)
    Q = refined(mc, episode, side)
    G = 1.0
    for state, action, _ in reversed(episode[:-1]):
        for image in images(state, action):
            assert Q[image] == pytest.approx(mc.alpha * G)
        G *= mc.gamma
    assert len(Q) == sum(len(images(s, a)) for s, a, _ in episode[:-1])


@pytest.mark.solved_only
def test_refined_update_stops_at_an_exploratory_move(trainer, monkeypatch, tmp_path):
    mc = trainer(X)
    (s1, a1, _), (s2, _, _), (s3, a3, _), final = greedy_episode(X)
    explored = (2, 2)  # not the greedy (first legal) cell of s2
    episode = [(s1, a1, 0), (s2, explored, 0), (s3, a3, 1), final]
    Q = refined(mc, episode, X)
    assert Q[(s3, a3)] == pytest.approx(mc.alpha)
    assert Q[(s2, explored)] == pytest.approx(mc.alpha * mc.gamma)  # the explored move is learned
    assert (s1, a1) not in Q  # its return went through a random move: no update


@pytest.mark.solved_only  # the chapter's main saves the table without a record of the run
def test_the_saved_table_records_its_episode_count(trainer, monkeypatch, tmp_path):
    mc = trainer(X)
    run_main_on(mc, monkeypatch, tmp_path, greedy_episode(X), X)
    assert load_table(str(tmp_path / "q.pth"))[2]["episodes_done"] == 1


def train_table(tmp_path, name, *args):
    out = tmp_path / name
    assert MC_Trainer.run([*args, "--out", str(out)]) == 0
    return load_table(str(out))


@pytest.mark.slow
def test_same_seed_same_table_bit_for_bit(tmp_path, monkeypatch):
    monkeypatch.setattr(MC_Trainer, "player1", MC_Trainer.player1)
    first, _, meta = train_table(tmp_path, "a.pth", "--epochs", "3000", "--seed", "7")
    second, _, _ = train_table(tmp_path, "b.pth", "--epochs", "3000", "--seed", "7")
    other, _, _ = train_table(tmp_path, "c.pth", "--epochs", "3000", "--seed", "8")
    assert list(first.items()) == list(second.items())
    assert first != other
    assert (meta["seed"], meta["epochs"], meta["opponent"], meta["side"]) == (7, 3000, "random", "X")


@pytest.mark.slow
@pytest.mark.parametrize("side, random_wins", [
    (X, 0.584921), pytest.param(O, 0.288095, marks=pytest.mark.exercise_piece(4))])
def test_short_training_beats_random_play_by_far(tmp_path, side, random_wins):
    name = "X" if side == X else "O"
    Q, _, _ = train_table(tmp_path, "short.pth", "--side", name, "--epochs", "20000", "--seed", "1")
    agent = AI_Agent(side, train=False)
    agent.Q = Q
    other = Random_Agent(-side)
    outcome = exact_outcome(*((agent, other) if side == X else (other, agent)))
    wins = outcome["x_wins"] if side == X else outcome["o_wins"]
    assert wins > random_wins + 0.25


@pytest.mark.slow
@pytest.mark.solved_only
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_default_run_meets_the_quality_target(tmp_path, seed):
    """The course's run (X against random, 200,000 episodes, its parameters): at least 98.5 %
    wins against random, exactly, never a loss."""
    Q, _, meta = train_table(tmp_path, "default.pth", "--seed", str(seed))
    assert (meta["epochs"], meta["gamma"], meta["alpha"]) == (200_000, 0.95, 0.01)
    agent = AI_Agent(X, train=False)
    agent.Q = Q
    outcome = exact_outcome(agent, Random_Agent(O))
    assert outcome["x_wins"] >= 0.985 and outcome["o_wins"] == 0


def shipped(name, side):
    path = DATA / name
    assert path.is_file(), f"{path} must ship with the repository"
    return AI_Agent(side, Q_table_PATH=str(path), train=False)


def test_shipped_x_table():
    agent = shipped("Q_MC_X.pth", X)
    vs_random = exact_outcome(agent, Random_Agent(O))
    vs_advanced = exact_outcome(agent, Random_Agent_Advanced(O))
    assert vs_random["o_wins"] == 0 and vs_advanced["o_wins"] == 0
    assert vs_random["x_wins"] >= 0.985
    assert vs_advanced["x_wins"] >= 0.935
    assert worst_case(agent) == (0, None)
    assert agent.meta["algorithm"] == "MC" and agent.meta["episodes_done"] == agent.meta["epochs"]


def test_shipped_o_table():
    agent = shipped("Q_MC_O.pth", O)
    vs_random = exact_outcome(Random_Agent(X), agent)
    assert vs_random["x_wins"] == 0 and vs_random["o_wins"] >= 0.90
    assert exact_outcome(Random_Agent_Advanced(X), agent)["x_wins"] == 0
    assert worst_case(agent) == (0, None)
