"""The course's own code runs here unchanged: the chapter's trainer as printed, the course
repository's scripts (dropped into a copy of this repository in place of ours), and the calls
they make, one by one.

The scripts in ``tests/course_scripts/`` are the course's, rewritten from its description; the
chapter's trainer is put together from the chapter's listings at test time (``chapter_code``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pygame
import pytest

from AI_Agent import AI_Agent
from Graphics import Graphics
from tictactoe_rl.players.specs import make_agent
from Human_Agent import HumanMoveError, Human_Agent
from tictactoe_rl.players.minimax import MinimaxAgent
from tictactoe_rl.tables.files import load_table
from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced
from tictactoe_rl.exact.solver import exact_result
from State import O, X, Live_State, State
from TicTacToe import TicTacToe
from tools.course.chapter_code import repo_copy, run_script

SCRIPTS = Path(__file__).resolve().parent / "course_scripts"
RESULT = re.compile(r"\((\d+), (\d+), (\d+)\)\s*$")


def script(name: str) -> str:
    return (SCRIPTS / name).read_text(encoding="utf-8")


def last_tuple(output: str) -> tuple[int, int, int]:
    """The ``(x, o, ties)`` that a course script prints last."""
    found = RESULT.search(output)
    assert found, f"no (x, o, ties) at the end of: {output[-300:]!r}"
    return tuple(int(n) for n in found.groups())


# --- the chapter's trainer and the course's scripts, run as a teacher runs them -------------------

@pytest.fixture(scope="module")
def course_repo(tmp_path_factory) -> Path:
    """A copy of the repository with the chapter's solved MC_Trainer.py and the course's scripts
    in place of ours, after ``python MC_Trainer.py`` has run in it (the other scripts need its
    table)."""
    from tools.course import chapter_code
    try:
        trainer = chapter_code.solved_trainer()
    except chapter_code.ListingMissing as missing:
        pytest.skip(str(missing))
    files = {name: script(name) for name in ("Tester.py", "MC_Trainer_o.py", "SARSA_Trainer.py",
                                             "Game.py")}
    files["MC_Trainer.py"] = trainer
    repo = repo_copy(tmp_path_factory.mktemp("course"), files)
    trained = run_script(repo, "MC_Trainer.py")
    repo.joinpath("trained.log").write_text(trained.stdout + "\n--stderr--\n" + trained.stderr)
    assert trained.returncode == 0, trained.stderr[-2000:]
    return repo


@pytest.mark.slow
def test_the_chapters_trainer_as_printed_trains_saves_and_tests(course_repo):
    output = course_repo.joinpath("trained.log").read_text().split("\n--stderr--\n")
    assert output[1] == ""
    # print(epoch, end="\r") for every one of the 200,000 episodes, then test(100)'s counter
    counters = output[0].replace("\r", "\n").split()
    assert counters[:3] == ["0", "1", "2"] and "199999" in counters
    x_wins, o_wins, ties = last_tuple(output[0])
    assert x_wins + o_wins + ties == 100 and x_wins >= 80
    table, side, _ = load_table(str(course_repo / "Data" / "Q_MC_2026_2.pth"))
    assert side == X and all(type(state) is State for state, _ in table)
    agent = AI_Agent(X, Q_table_PATH=str(course_repo / "Data" / "Q_MC_2026_2.pth"), train=False)
    wins, losses, _ = exact_result(agent, Random_Agent_Advanced(O))
    assert wins > 0.85 and losses < 0.02, (wins, losses)


@pytest.mark.slow
def test_the_course_tester_measures_the_table_the_trainer_saved(course_repo):
    done = run_script(course_repo, "Tester.py")
    assert done.returncode == 0, done.stderr[-2000:]
    last = done.stdout.strip().splitlines()[-1]
    found = re.fullmatch(r"x_win: (\d+), tie: (\d+), o_win: (\d+)", last)
    assert found, last
    x_wins, ties, o_wins = map(int, found.groups())
    assert x_wins + ties + o_wins == 1000 and x_wins > 850


@pytest.mark.slow
def test_the_course_trainer_for_o_negates_rewards_by_hand_and_learns(course_repo):
    done = run_script(course_repo, "MC_Trainer_o.py")
    assert done.returncode == 0, done.stderr[-2000:]
    x_wins, o_wins, ties = last_tuple(done.stdout)
    assert x_wins + o_wins + ties == 100 and o_wins > x_wins
    table, side, _ = load_table(str(course_repo / "Data" / "Q_MC_o_course.pth"))
    assert side == O and all(state.player == O for state, _ in table)


@pytest.mark.slow
def test_the_course_sarsa_trainer_updates_the_table_through_names_taken_at_import(course_repo):
    done = run_script(course_repo, "SARSA_Trainer.py")
    assert done.returncode == 0, done.stderr[-2000:]
    x_wins, o_wins, ties = last_tuple(done.stdout)
    assert x_wins + o_wins + ties == 100 and x_wins > 70
    table, side, _ = load_table(str(course_repo / "Data" / "Q_SARSA_course.pth"))
    assert side == X and len(table) > 1000  # Q = player1.Q trained player1's own table


DRIVER = """
import json, sys
import pygame
import Game as course

GAMES = 2
record = {"finals": [], "waits": [], "frames": 0, "clicks": 0, "starts": []}

def click(cell):
    x, y = course.graphics.cell_rect(cell).center
    return pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(x, y), button=1)

def scripted_events():
    record["frames"] += 1
    state = course.env.state
    if len(record["finals"]) >= GAMES:
        return [pygame.event.Event(pygame.QUIT)]
    if state.player != -1 or state.end_of_game:
        return []
    taken = [c for c in [(r, k) for r in range(3) for k in range(3)] if state.board[c] != 0]
    empty = [c for c in [(r, k) for r in range(3) for k in range(3)] if state.board[c] == 0]
    record["clicks"] += 1
    stray = [click(taken[0]), pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(1, 1), button=1)]
    return stray + [click(empty[-1])]

def wait(ms):
    record["waits"].append(ms)
    record["finals"].append([list(course.env.state.copy().cells), course.env.state.end_of_game])

pygame.event.get = scripted_events
pygame.time.wait = wait
course.main()
record["after"] = [list(course.env.state.cells), course.env.state.player]
print(json.dumps(record))
"""


@pytest.mark.slow
def test_the_course_game_loop_plays_resets_and_quits_headless(course_repo):
    (course_repo / "drive.py").write_text(DRIVER)
    done = run_script(course_repo, "drive.py", stdin="", env={"SDL_VIDEODRIVER": "dummy"})
    assert done.returncode == 0, done.stderr[-2000:]
    record = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(record["finals"]) == 2 and record["waits"] == [2000, 2000]
    for cells, result in record["finals"]:
        final = State(cells, X if cells.count(0) % 2 else O)
        assert result == final.end_of_game != 0 and result != -1  # the shipped X is unbeatable
    assert record["finals"][0] == record["finals"][1]  # env.state.reset() started it afresh
    # the loop asks the player to move once more in the frame that quits: the new game's first X
    cells, player = record["after"]
    assert cells.count(X) <= 1 and cells.count(O) == 0 and player == (O if X in cells else X)


# --- the calls themselves ---------------------------------------------------------------------

def test_the_live_game_resets_while_positions_and_table_keys_never_change():
    env = TicTacToe(State())
    learner = AI_Agent(1, env, graphics=None, Q_table_PATH=None)
    opponent = Random_Agent(-1, env, graphics=None)
    for epoch in range(300):              # play on the live game, as the course's Game.py does
        while not env.end_of_game(env.state):
            player = learner if env.state.player == X else opponent
            before = env.state.copy()
            action = player.get_action(state=env.state, epoch=epoch)
            env.move(action)
            learner.Q[(before, action)] = learner.get_Q(before, action) + 0.1
        env.state.reset()
    keys = {key: (key[0].cells, key[0].player, hash(key[0])) for key in learner.Q}
    played = [env.move(action)[0] for action in [(1, 1), (0, 0), (2, 2)]]
    env.state.reset()
    for state in played:
        assert state.reset() == State() and state.cells != State().cells  # a position stays
    assert all(type(state) is State for state, _ in learner.Q)
    assert {key: (key[0].cells, key[0].player, hash(key[0])) for key in learner.Q} == keys
    with pytest.raises(TypeError, match="env.state.copy()"):
        learner.Q[(env.state, (0, 0))] = 1.0
    assert env.state == State() and isinstance(env.state, Live_State)


def test_env_state_reads_like_a_position_and_follows_the_game():
    env = TicTacToe(State())
    live = env.state
    env.move((1, 1))
    assert env.state is live and live.board[1, 1] == X and live.player == O
    assert env.legal(env.state, (0, 0)) and not env.legal(env.state, (1, 1))
    after, reward = env.next_state(env.state, (0, 0))
    assert reward == 0 and after.board[0, 0] == O and live.board[0, 0] == 0
    assert env.end_of_game(live) is False and live.end_of_game == 0
    for action in [(0, 1), (0, 0), (2, 1), (2, 2)]:
        env.move(action)
    assert env.end_of_game(env.state) is True and env.state.end_of_game == X
    snapshot = env.state.copy()
    env.state.reset()
    assert env.state == State() and snapshot.end_of_game == X and type(snapshot) is State
    assert str(env.state) == str(State())


def test_every_agent_takes_the_course_graphics_argument_and_calls():
    env = TicTacToe(State())
    graphics = Graphics(window=False)
    agents = [Random_Agent(1, env, graphics), Random_Agent_Advanced(-1, env=env, graphics=None),
              AI_Agent(1, env, graphics=None, Q_table_PATH=None, train=True),
              AI_Agent(1, env, graphics, "Data/Q_MC_X.pth", False),
              MinimaxAgent(1, env, graphics)]
    state = State()
    for agent in agents:
        assert agent.get_action(state=state, epoch=5) in state.legal_actions()
        assert agent.get_action(state, 5) in state.legal_actions()
        assert agent([], env.state) in state.legal_actions()
    human = Human_Agent(-1, env, graphics)
    env.move((0, 0))
    centre = graphics.cell_rect((2, 2)).center
    clicks = [pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=centre, button=1)]
    assert human.get_action(clicks) == (2, 2) and human(clicks, env.state) == (2, 2)
    assert human.get_action([]) is None
    for asked_as_a_computer in ({"events": State()}, {"state": State()},
                                {"state": env.state, "epoch": 3}):
        with pytest.raises(HumanMoveError):
            human.get_action(**asked_as_a_computer)


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["random", "advanced", "minimax", "playout:pnum=5",
                                  "mcts:iterations=20", "Data/Q_MC_O.pth", "random+advanced"])
def test_every_computer_agent_reads_the_live_game_as_its_position(spec):
    env = TicTacToe(State())
    env.move((1, 1))
    agent = make_agent(spec, O, env, seed=4)
    for ask in (lambda: agent.get_action(env.state), lambda: agent.get_action(state=env.state),
                lambda: agent(None, env.state), lambda: agent()):
        assert ask() in env.position.legal_actions()


def test_the_live_game_takes_only_positions():
    env = TicTacToe(State())
    for wrong in ([0] * 9, np.zeros((3, 3)), None, {"board": 0}):
        with pytest.raises(TypeError, match="expected a State"):
            env.state = wrong
        with pytest.raises(TypeError, match="expected a State"):
            TicTacToe(wrong if wrong is not None else 0)
    after = env.next_state(State(), (0, 0))[0]
    env.state = after
    assert env.position is after and type(env.position) is State
    other = TicTacToe(env.state)
    assert other.position is after and other.state is not env.state
    nested = Live_State(Live_State(after))
    assert type(nested.copy()) is State and nested.reset() == State()
    assert env.state.reset() is State() and env.reset() is State()


def test_q_taken_at_import_stays_the_agents_table_after_load_q(tmp_path):
    player1 = AI_Agent(1, TicTacToe(State()), graphics=None, Q_table_PATH=None)
    Q = player1.Q
    Q[(State(), (1, 1))] = 0.5
    player1.save_Q(str(tmp_path / "q.pth"))
    Q[(State(), (1, 1))] = -1.0
    player1.load_Q(str(tmp_path / "q.pth"))
    assert Q is player1.Q and Q[(State(), (1, 1))] == 0.5 and player1.get_Q(State(), (1, 1)) == 0.5


def test_the_course_window_opens_draws_and_maps_clicks():
    namespace: dict = {}
    exec("from Graphics import *", namespace)
    assert isinstance(namespace["FPS"], int) and namespace["Graphics"] is Graphics
    pygame.init()
    try:
        graphics = Graphics()
        assert pygame.display.get_surface() is graphics.screen
        graphics(State())
        state = TicTacToe().next_state(State(), (1, 1))[0]
        graphics(state)
        centre = graphics.cell_rect((1, 1)).center
        assert graphics.screen.get_at(centre) != graphics.screen.get_at((2, graphics.size[1] // 2))
        assert graphics.calc_row_col(centre) == (1, 1) and graphics.calc_row_col((0, 0)) is None
    finally:
        pygame.quit()


@pytest.mark.slow
def test_the_chapters_agent_as_printed_trains_with_the_chapters_trainer(tmp_path, chapter):
    """The chapter's whole AI_Agent.py (skeleton with the solution's methods), which finds the
    empty cells with np.where, in place of ours."""
    trainer = chapter.solved_trainer().replace("epochs = 200000", "epochs = 20000")
    repo = repo_copy(tmp_path, {"AI_Agent.py": chapter.chapter_agent(), "MC_Trainer.py": trainer})
    done = run_script(repo, "MC_Trainer.py")
    assert done.returncode == 0, done.stderr[-2000:]
    x_wins, o_wins, ties = last_tuple(done.stdout)
    assert x_wins + o_wins + ties == 100
    table, side, _ = load_table(str(repo / "Data" / "Q_MC_2026_2.pth"))
    assert side == X and len(table) > 1000
