"""The temporal-difference trainers (SARSA, Q-learning), self-play, learning curves, the agent's
view of its Q-values, and the shared trainer plumbing they use."""

import os
import signal
from pathlib import Path

import pytest

import MC_Trainer
import Q_Trainer
from tictactoe_rl.tables import view as Q_View
import SARSA_Trainer
from tictactoe_rl.training import loop, options
from tictactoe_rl.training.report import exact_report
from tictactoe_rl.training.run import Run, make_learner
from AI_Agent import AI_Agent
from tictactoe_rl.players.specs import make_agent
from tictactoe_rl.training.curves import (BINS, CHECKPOINTS, EPSILON_POINTS, LearningCurve,
                                          checkpoint_episodes)
from tictactoe_rl.training.curves import exact_results
from tictactoe_rl.tables.files import load_table, save_table
from tictactoe_rl.exact.worst import is_unbeatable, worst_case
from State import DRAW, O, O_WON, X, X_WON, State, parse_moves
from TicTacToe import TicTacToe

ROOT = Path(__file__).resolve().parent.parent
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Dyadic numbers, so that every update below is exact in binary floating point.
ALPHA, GAMMA = 0.5, 0.5
SHORT_RUN = 10_000            # episodes of a "does it learn" run
RANDOM_X = (0.584921, 0.288095)   # random X against random O: P(win), P(loss) (exact, pinned in tests/test_solver.py)


# --- the update rules on hand-made episodes ------------------------------------------------------

def apply(update, Q, episode, side):
    """``update`` on an episode in the course's format (steps, then ``(final,)``)."""
    update(Q, episode[:-1], episode[-1][0], side, GAMMA, ALPHA)


@pytest.fixture
def x_episode():
    """X's episode: centre, O takes a corner; X plays 0,1, O replies 2,2; X then wins at 2,1."""
    s0 = State()
    s1 = parse_moves("1,1 0,0")
    s2 = parse_moves("1,1 0,0 0,1 2,2")
    final = parse_moves("1,1 0,0 0,1 2,2 2,1")
    assert final.end_of_game == X_WON
    return [(s0, (1, 1), 0), (s1, (0, 1), 0), (s2, (2, 1), 1), (final,)]


def test_sarsa_bootstraps_from_the_move_actually_taken(x_episode):
    (s0, a0, _), (s1, a1, _), _, _ = x_episode
    Q = {(s1, a1): 0.25, (s1, (2, 2)): 0.75}      # 2,2 looks better, but 0,1 was played
    apply(SARSA_Trainer.update, Q, x_episode, X)
    assert Q[(s0, a0)] == 0.5 * (0 + 0.5 * 0.25)   # target r + gamma * Q(s1, 0,1)


def test_sarsa_walks_a_whole_episode_in_order(x_episode):
    (s0, a0, _), (s1, a1, _), (s2, a2, _), _ = x_episode
    Q = {(s0, a0): 0.5, (s1, a1): 0.25, (s2, a2): 0.5, (s1, (2, 2)): 0.75}
    apply(SARSA_Trainer.update, Q, x_episode, X)
    assert Q[(s0, a0)] == 0.5 + 0.5 * (0.5 * 0.25 - 0.5)      # uses Q(s1, a1) before its update
    assert Q[(s1, a1)] == 0.25 + 0.5 * (0.5 * 0.5 - 0.25)      # uses Q(s2, a2) before its update
    assert Q[(s2, a2)] == 0.5 + 0.5 * (1 - 0.5)                # terminal: the reward alone
    assert Q[(s1, (2, 2))] == 0.75                             # untouched


def test_q_learning_bootstraps_from_the_best_next_move(x_episode):
    (s0, a0, _), (s1, a1, _), (s2, a2, _), _ = x_episode
    Q = {(s1, a1): 0.25, (s1, (2, 2)): 0.75, (s2, a2): 0.5}
    apply(Q_Trainer.update, Q, x_episode, X)
    assert Q[(s0, a0)] == 0.5 * (0.5 * 0.75)                   # the max over s1, not Q(s1, a1)
    # s2's best move is a2 (0.5); the others are unseen and count as 0
    assert Q[(s1, a1)] == 0.25 + 0.5 * (0.5 * 0.5 - 0.25)
    assert Q[(s2, a2)] == 0.75


def test_q_learning_counts_unseen_moves_as_zero_in_the_max(x_episode):
    (s0, a0, _), (s1, a1, _), _, _ = x_episode
    Q = {(s1, move): -0.5 for move in s1.legal_actions() if move != (2, 2)}
    apply(Q_Trainer.update, Q, x_episode[:2] + [(x_episode[-1][0],)], X)
    assert Q[(s0, a0)] == 0.0                                  # max is the unseen 2,2: 0


@pytest.mark.parametrize("update", [SARSA_Trainer.update, Q_Trainer.update])
@pytest.mark.parametrize("reward, side, expected", [
    (1, X, 0.625), (-1, X, -0.375), (0, X, 0.125),             # X won, X lost, draw
    (-1, O, 0.625), (1, O, -0.375), (0, O, 0.125),             # O's rewards are negated
])
def test_a_terminal_step_moves_towards_the_learners_reward(update, reward, side, expected):
    state = parse_moves("0,0 1,1 0,1 2,2") if side == X else parse_moves("0,0 1,1 0,1")
    Q = {(state, (0, 2)): 0.25}
    apply(update, Q, [(state, (0, 2), reward), (State(),)], side)
    assert Q[(state, (0, 2))] == expected


@pytest.mark.parametrize("update", [SARSA_Trainer.update, Q_Trainer.update])
def test_o_bootstraps_from_its_own_values_unnegated(update):
    """O's Q-values are already from O's side: only the reward is negated, never Q(s', a')."""
    s0, s1 = parse_moves("1,1"), parse_moves("1,1 0,0 2,2")
    s2 = parse_moves("1,1 0,0 2,2 0,2 1,0")
    final = parse_moves("1,1 0,0 2,2 0,2 1,0 0,1")
    assert final.end_of_game == O_WON
    Q = {(s1, (0, 2)): 0.5, (s2, (0, 1)): 0.5}
    apply(update, Q, [(s0, (0, 0), 0), (s1, (0, 2), 0), (s2, (0, 1), -1), (final,)], O)
    assert Q[(s0, (0, 0))] == 0.5 * (0.5 * 0.5)
    assert Q[(s1, (0, 2))] == 0.5 + 0.5 * (0.5 * 0.5 - 0.5)
    assert Q[(s2, (0, 1))] == 0.5 + 0.5 * (1 - 0.5)


@pytest.fixture
def restore_mc(monkeypatch):
    """MC_Trainer keeps its players and parameters in module globals (the course's layout), and
    its command line rebinds them: put every one back after the test."""
    for name, value in list(vars(MC_Trainer).items()):
        if not name.startswith("__"):
            monkeypatch.setattr(MC_Trainer, name, value)
    return MC_Trainer


def test_the_mc_trainer_still_computes_returns_backwards(restore_mc, monkeypatch, x_episode,
                                                          tmp_path, capsys):
    """MC_Trainer.main (the chapter's update, --plain) on a one-episode run of a fixed episode:
    G = gamma * G + reward."""
    monkeypatch.setattr(MC_Trainer, "Generate_episode", lambda player, epoch: list(x_episode))
    monkeypatch.setattr(MC_Trainer, "test", lambda num: (0, 0, 0))
    for name, value in (("epochs", 1), ("gamma", GAMMA), ("alpha", ALPHA),
                        ("player1", AI_Agent(X, MC_Trainer.env)),
                        ("PATH", str(tmp_path / "mc.pth"))):
        monkeypatch.setattr(MC_Trainer, name, value)
    assert MC_Trainer.main() is not False
    (s0, a0, _), (s1, a1, _), (s2, a2, _), _ = x_episode
    Q = MC_Trainer.player1.Q
    assert (Q[(s2, a2)], Q[(s1, a1)], Q[(s0, a0)]) == (0.5, 0.25, 0.125)


# --- each trainer learns -------------------------------------------------------------------------

def train(module, tmp_path, *args) -> list[str]:
    """Run a trainer's command line in this process (quietly); return the tables it saved."""
    out = str(tmp_path / "t.pth")
    status = module.run(["--seed", "7", "--out", out, *args])
    assert status == 0
    return [p for p in (out, str(tmp_path / "t_X.pth"), str(tmp_path / "t_O.pth"))
            if os.path.exists(p)]


@pytest.mark.slow
@pytest.mark.parametrize("module", [MC_Trainer, SARSA_Trainer, Q_Trainer])
def test_a_short_run_beats_random_play_by_a_wide_margin(module, tmp_path, restore_mc, capsys):
    (path,) = train(module, tmp_path, "--epochs", str(2 * SHORT_RUN if module is MC_Trainer
                                                     else SHORT_RUN))
    wins, losses, _ = exact_results(make_agent(path, X))["random"]
    assert wins > RANDOM_X[0] + 0.3 and losses < RANDOM_X[1] / 10, (wins, losses)
    assert "exact vs random" in capsys.readouterr().out


@pytest.mark.slow
def test_self_play_saves_an_x_table_and_an_o_table(tmp_path, capsys):
    paths = train(Q_Trainer, tmp_path, "--opponent", "self", "--epochs", "3000")
    assert [os.path.basename(p) for p in paths] == ["t_X.pth", "t_O.pth"]
    sides = [load_table(p)[1] for p in paths]
    metas = [load_table(p)[2] for p in paths]
    assert sides == [X, O]
    assert all(m["opponent"] == "self" and m["episodes_done"] == 3000 for m in metas)
    assert metas[0]["alpha"] == Q_Trainer.DEFAULTS.self_play["alpha"]   # the self-play preset
    out = capsys.readouterr().out
    assert "X table:" in out and "O table:" in out


@pytest.mark.slow
def test_self_play_learns_both_sides(tmp_path, capsys):
    """20,000 self-play games: both tables far better than random play on their side."""
    x_path, o_path = train(Q_Trainer, tmp_path, "--opponent", "self", "--epochs", "20000")
    x_wins, x_losses, _ = exact_results(make_agent(x_path, X))["random"]
    o_wins, o_losses, _ = exact_results(make_agent(o_path, O))["random"]
    assert x_wins > 0.9 and x_losses < 0.02
    assert o_wins > 0.6 and o_losses < 0.05          # random O wins only 0.288 (exact)


def test_flags_given_win_over_the_presets():
    parse = Q_Trainer.TRAINER.parse
    args = parse(["--lecture"])
    assert (args.epochs, args.alpha, args.epsilon) == (50_000, 0.2, "geometric")
    args = parse(["--lecture", "--alpha", "0.3"])
    assert (args.epochs, args.alpha) == (50_000, 0.3)
    args = parse(["--opponent", "self"])
    assert (args.epochs, args.alpha) == (200_000, 0.5)
    args = parse(["--opponent", "random"])
    assert (args.epochs, args.alpha, args.epsilon) == (100_000, 0.1, "linear")


def test_the_lecture_and_the_default_run_save_to_different_default_files(monkeypatch, capsys):
    from tictactoe_rl.training import command
    paths = []
    monkeypatch.setattr(command, "train_loop", lambda run, learn: paths.append(run.paths[0]))
    monkeypatch.setattr(command, "print_reports", lambda learners, where: None)
    Q_Trainer.run(["--epochs", "10", "--seed", "1"])
    Q_Trainer.run(["--epochs", "10", "--seed", "1", "--lecture"])
    assert [os.path.relpath(path, ROOT) for path in paths] == [
        os.path.join("Data", "my_Q_QL_X.pth"), os.path.join("Data", "my_Q_QL_lecture_X.pth")]
    assert "my_Q_QL_lecture_X.pth" in Q_Trainer.LECTURE_HELP


def test_the_lectures_epsilon_is_multiplied_by_0_9999_after_every_game():
    from tictactoe_rl.exploration.schedules import epsilon_at
    assert epsilon_at("geometric", 0) == 1.0
    assert epsilon_at("geometric", 1) == 0.9999
    assert epsilon_at("geometric", 3) == pytest.approx(0.9999 ** 3, rel=1e-15)
    assert epsilon_at("geometric", 50_000) == pytest.approx(0.006737, abs=1e-6)
    learner = make_learner(X, TicTacToe(), 1, "geometric", 50_000)
    greedy = learner.get_Q_action(State())
    # epsilon 1.0 at the first game: the move is a uniform draw, the greedy one 1 time in 9;
    # at game 60,000 epsilon is 0.0025: nearly always the greedy move
    first = [learner.get_action(State(), 0) for _ in range(900)]
    late = [learner.get_action(State(), 60_000) for _ in range(900)]
    assert 50 < first.count(greedy) < 160 and late.count(greedy) > 890


def test_table_paths_of_self_play_sit_side_by_side():
    assert options.table_paths("Data/t.pth", 1) == ["Data/t.pth"]
    assert options.table_paths("Data/t.pth", 2) == ["Data/t_X.pth", "Data/t_O.pth"]
    assert options.table_paths("Data/t_O.pth", 2) == ["Data/t_X.pth", "Data/t_O.pth"]


def test_self_play_resumes_both_tables(tmp_path, capsys):
    train(SARSA_Trainer, tmp_path, "--opponent", "self", "--epochs", "500")
    out = str(tmp_path / "more.pth")
    assert SARSA_Trainer.run(["--opponent", "self", "--epochs", "800", "--seed", "2",
                              "--resume", str(tmp_path / "t_X.pth"), "--out", out]) == 0
    for name in ("more_X.pth", "more_O.pth"):
        assert load_table(str(tmp_path / name))[2]["episodes_done"] == 800


@pytest.mark.skipif(os.name != "posix", reason="sends a POSIX SIGINT")
def test_ctrl_c_saves_every_learner_and_says_so(tmp_path, capsys):
    env = TicTacToe()
    learners = [AI_Agent(X, env), AI_Agent(O, env)]
    final = State([1, 1, 1, -1, -1, 0, 0, 0, 0], O)

    def learn(epoch: int) -> State:
        for agent in learners:
            start = State() if agent.player == X else parse_moves("1,1")
            agent.Q[(start, (0, 0))] = float(epoch)
        if epoch == 4:
            os.kill(os.getpid(), signal.SIGINT)
        return final

    run = Run.of_module(learners[0], learners[1], env, str(tmp_path / "cut.pth"), 100, GAMMA,
                        ALPHA)
    assert loop.train_loop(run, learn) is False
    out = capsys.readouterr().out
    assert "Interrupted: saved 5 of 100 episodes" in out and "--resume" in out
    for name, side in (("cut_X.pth", X), ("cut_O.pth", O)):
        Q, saved_side, meta = load_table(str(tmp_path / name))
        assert saved_side == side and meta["episodes_done"] == 5
        assert list(Q.values()) == [4.0]


# --- learning curves -----------------------------------------------------------------------------

def finals() -> dict[str, State]:
    return {"x": State([1, 1, 1, -1, -1, 0, 0, 0, 0], O),
            "o": State([1, 1, 0, -1, -1, -1, 1, 0, 0], X),
            "draw": State([1, -1, 1, 1, -1, -1, -1, 1, 1], O)}


@pytest.mark.slow
def test_binned_outcomes_are_the_learners_view():
    results = finals()
    assert (results["x"].end_of_game, results["o"].end_of_game,
            results["draw"].end_of_game) == (X_WON, O_WON, DRAW)
    games = 4 * BINS
    for side in (X, O):
        curve = LearningCurve([AI_Agent(side)], side, 0, games, "test")
        for epoch in range(games):   # first half: X wins; then draws, then O wins
            kind = "x" if epoch < games // 2 else "draw" if epoch < 3 * games // 4 else "o"
            curve.record(epoch, results[kind])
        centres, shares, mean = curve.binned()
        assert len(centres) == BINS and centres[0] == 2.0
        sign = 1 if side == X else -1
        assert mean == [sign] * (BINS // 2) + [0] * (BINS // 4) + [-sign] * (BINS // 4)
        assert shares["draws"] == [0] * (BINS // 2) + [1] * (BINS // 4) + [0] * (BINS // 4)


def test_checkpoints_are_spread_over_the_run():
    assert checkpoint_episodes(0, 100, 4) == [0, 25, 50, 75, 100]
    assert checkpoint_episodes(1000, 1010, 20) == list(range(1000, 1011))


@pytest.mark.slow
def test_the_figure_has_the_lectures_panels_with_the_recorded_data(tmp_path, capsys):
    plot = tmp_path / "curves.png"
    train(SARSA_Trainer, tmp_path, "--epochs", "2000", "--plot", str(plot))
    assert plot.read_bytes()[:8] == PNG_SIGNATURE
    assert "Saved the learning curves to" in capsys.readouterr().out
    # the figure object of a curve recorded from known results
    env = TicTacToe()
    learner = make_learner(X, env, 7, "linear", 2000)
    curve = LearningCurve([learner], X, 0, 2000, "SARSA")
    results = finals()
    for epoch in range(2000):
        curve.record(epoch, results["x" if epoch % 3 else "draw"])
    figure = curve.figure()
    titles = [ax.get_title() for ax in figure.axes]
    assert len(figure.axes) == 4
    assert titles[0].startswith("Mean outcome for X") and titles[1].startswith("Wins, losses")
    assert titles[2] == "Exploration rate epsilon" and "exact results" in titles[3]
    assert all(ax.get_xlabel() == "episodes" for ax in figure.axes)
    assert all(ax.get_ylabel() for ax in figure.axes)
    mean_line = figure.axes[0].get_lines()[0]        # then the zero line
    assert len(mean_line.get_xdata()) == BINS
    assert [line.get_label() for line in figure.axes[1].get_lines()] == ["wins", "losses", "draws"]
    epsilon, = figure.axes[2].get_lines()
    assert len(epsilon.get_ydata()) == EPSILON_POINTS + 1
    assert epsilon.get_ydata()[0] == 1.0 and epsilon.get_ydata()[-1] == 0.01
    exact = figure.axes[3].get_lines()
    assert len(exact) == 4 and all(len(line.get_xdata()) == CHECKPOINTS + 1 for line in exact)
    assert {line.get_label() for line in exact} == {"wins vs random", "losses vs random",
                                                   "wins vs advanced", "losses vs advanced"}


def test_self_play_figure_has_an_exact_panel_per_table(tmp_path):
    env = TicTacToe()
    curve = LearningCurve([AI_Agent(X, env), AI_Agent(O, env)], X, 0, 10, "self-play")
    for epoch in range(10):
        curve.record(epoch, finals()["draw"])
    titles = [ax.get_title() for ax in curve.figure().axes]
    assert len(titles) == 5
    assert "Greedy X policy" in titles[3] and "Greedy O policy" in titles[4]


def test_a_bad_plot_name_is_one_line_and_status_2(capsys):
    with pytest.raises(SystemExit) as stop:
        SARSA_Trainer.run(["--plot", "curves.txt"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--plot" in err and ".png" in err


# --- the agent's view ----------------------------------------------------------------------------

def view_table() -> dict:
    state = parse_moves("1,1 0,0")
    return {(state, (0, 1)): 0.5, (state, (2, 2)): 0.875, (state, (1, 0)): -0.25}


def test_the_view_lays_out_the_values_as_the_board():
    text = Q_View.format_view(view_table(), X, parse_moves("1,1 0,0"), 2)
    assert text.splitlines()[0] == ("X to move after 2 moves; Q-values of X's table "
                                    "(the bracketed cell is the greedy move):")
    assert text.splitlines()[2:] == [
        "    O    |  +0.500 |  unseen ",
        "---------+---------+---------",
        "  -0.250 |    X    |  unseen ",
        "---------+---------+---------",
        "  unseen |  unseen | [+0.875]",
    ]


def test_the_view_reads_a_table_file_and_checks_the_side(tmp_path):
    path = str(tmp_path / "view.pth")
    save_table(path, view_table(), X)
    assert "[+0.875]" in Q_View.show_q(path, "1,1 0,0")
    with pytest.raises(ValueError, match="O is to move here, but the table plays X"):
        Q_View.show_q(path, "1,1")
    with pytest.raises(ValueError, match="not legal"):
        Q_View.show_q(path, "1,1 1,1")
    with pytest.raises(ValueError, match="game is over"):
        Q_View.show_q(path, "0,0 1,0 0,1 1,1 0,2")


def test_the_greedy_cell_is_the_agents_move():
    """The bracketed cell is the move AI_Agent plays, unseen moves counting as 0."""
    state = parse_moves("1,1 0,0")
    agent = AI_Agent(X)
    agent.Q = {(state, (0, 1)): -0.5, (state, (1, 0)): -0.25, (state, (2, 2)): -0.875}
    values = Q_View.cell_values(agent.Q, state)
    assert Q_View.greedy_move(values) == agent.get_Q_action(state) == (0, 2)


def test_unbeatable_is_reported_for_a_perfect_table():
    """exact_report agrees with Solver on a table that plays the minimax moves."""
    from tictactoe_rl.exact.solver import safe_actions
    from State import all_states
    agent = AI_Agent(X)
    agent.Q = {(s, safe_actions(s)[0]): 1.0 for s in all_states()
               if s.player == X and not s.end_of_game}
    assert is_unbeatable(agent)
    assert "unbeatable" in exact_report(agent)


def test_a_beatable_table_s_report_names_its_file_in_the_command_that_shows_the_line():
    """The line that beats an empty table (its first cell everywhere), checked against the solver,
    and the Tester command that shows it, with the table's own path."""
    agent = AI_Agent(X)
    value, line = worst_case(agent)
    assert value < 0
    report = exact_report(agent, "Data/weak.pth")
    assert f"by the line {' '.join(f'{r},{c}' for r, c in line)} " in report
    assert report.endswith("(see: python Tester.py --worst-case Data/weak.pth)")


def test_the_progress_shares_are_the_learner_s_and_name_unfinished_episodes():
    """The progress bar's shares, by result code, from the learner's side; episodes that stopped
    before their game ended (a student's Generate_episode may) get a share of their own."""
    from State import DRAW, O, O_WON, ONGOING, X_WON
    from tictactoe_rl.training.loop import outcome_shares
    results = {X_WON: 6, O_WON: 2, DRAW: 2, ONGOING: 0}
    assert outcome_shares(X, results) == "win 60% loss 20% draw 20%"
    assert outcome_shares(O, results) == "win 20% loss 60% draw 20%"
    assert outcome_shares(X, {**results, ONGOING: 10}) == "win 30% loss 10% draw 10% unfinished 50%"
