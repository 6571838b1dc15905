"""The book chapter's four files (book/): the same game as the project's engine, the contract the
chapter states, and that the four run alone, with nothing but the standard library.

The chapter's own training program is a course fixture, read from ``../shared/fixtures/chapter/``
beside the project; its tests skip, saying why, when the folder is absent (as on a user's clone).
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import pickle
import random
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from State import all_states
from TicTacToe import TicTacToe as MainGame

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
MODULES = ("ttt_env", "tabular_agent", "ttt_training")           # what the program imports
PROGRAM = "mc_tictactoe.py"
CHAPTER_PROGRAM = ROOT.parent / "shared" / "fixtures" / "chapter" / "book_mc_tictactoe.py"
# -E: ignore PYTHONPATH and the like; -s: no user site-packages; -S: no site-packages at all, so
# an import of anything outside the standard library fails. (-I would also drop the script's own
# folder from sys.path, and the program imports its three neighbours from there.)
ALONE = ("-E", "-s", "-S")
TIMEOUT = 600  # seconds; only so that a hung run fails instead of blocking the suite


@pytest.fixture(scope="module")
def book() -> SimpleNamespace:
    """The book's modules, loaded from their files as ``book_ttt_env`` etc., so that they never
    meet the project's own ``State``. While they load, the plain names (``ttt_env``, ...) point to
    the modules already loaded, for the book's own imports; afterwards those names are removed."""
    saved = {name: sys.modules.get(name) for name in MODULES}
    loaded = {}
    try:
        for name in (*MODULES, PROGRAM.removesuffix(".py")):
            spec = importlib.util.spec_from_file_location(f"book_{name}", BOOK / f"{name}.py")
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
            sys.modules[name] = loaded[name] = module
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
        sys.modules.pop(PROGRAM.removesuffix(".py"), None)
    return SimpleNamespace(env=loaded["ttt_env"], agent=loaded["tabular_agent"],
                           training=loaded["ttt_training"], program=loaded["mc_tictactoe"])


def folder_with(tmp: Path, program: Path) -> Path:
    """``tmp`` holding the book's three modules and ``program`` saved as mc_tictactoe.py."""
    for name in MODULES:
        shutil.copy(BOOK / f"{name}.py", tmp / f"{name}.py")
    shutil.copy(program, tmp / PROGRAM)
    return tmp


def start(folder: Path, *arguments: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *ALONE, *arguments], cwd=folder, env={},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Both whole programs, started at once (they take a few seconds each): ours, and the
    chapter's program with our three modules (``None`` when the fixture is absent)."""
    processes = {"ours": start(folder_with(tmp_path_factory.mktemp("ours"), BOOK / PROGRAM),
                               PROGRAM)}
    if CHAPTER_PROGRAM.is_file():
        folder = folder_with(tmp_path_factory.mktemp("chapter"), CHAPTER_PROGRAM)
        processes["chapter"] = start(folder, PROGRAM)
    yield processes
    for process in processes.values():
        if process.poll() is None:
            process.kill()
        process.communicate()


def printed_result(process: subprocess.Popen) -> dict:
    out, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, err
    lines = out.strip().splitlines()
    assert lines, "the program printed nothing"
    return ast.literal_eval(lines[-1])


# --- the whole program, alone in a folder ---------------------------------------------------

def check_chapter_range(result: dict) -> None:
    """What the chapter's run printed, {'wins': 989, 'losses': 0, 'draws': 11}, within reach."""
    assert set(result) == {"wins", "losses", "draws"} and sum(result.values()) == 1000, result
    assert result["losses"] == 0 and result["wins"] >= 980, result


@pytest.mark.slow
def test_our_program_runs_alone_and_prints_the_chapters_result(runs):
    check_chapter_range(printed_result(runs["ours"]))


@pytest.mark.slow
def test_the_chapters_program_runs_on_our_three_modules(runs):
    if "chapter" not in runs:
        pytest.skip(f"the chapter's program {CHAPTER_PROGRAM.name} is not beside the project "
                    f"({CHAPTER_PROGRAM.parent})")
    check_chapter_range(printed_result(runs["chapter"]))


def test_the_four_files_import_only_the_standard_library(tmp_path):
    folder = folder_with(tmp_path, BOOK / PROGRAM)
    probe = ("import sys, mc_tictactoe\n"
             "ours = {'mc_tictactoe', 'ttt_env', 'tabular_agent', 'ttt_training', '__main__'}\n"
             "print(sorted({m.partition('.')[0] for m in sys.modules}"
             " - set(sys.stdlib_module_names) - ours))")
    process = start(folder, "-c", probe)
    out, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, err
    assert out.strip() == "[]"


# --- the same game as the project's engine --------------------------------------------------

@pytest.mark.slow
def test_agrees_with_the_engine_on_every_reachable_position(book):
    game, main = book.env.TicTacToe(), MainGame()
    positions = all_states()
    assert len(positions) == 5478
    for position in positions:
        state = book.env.State(position.cells, position.player)
        assert game.end_of_game(state) == main.end_of_game(position)
        assert game.result(state) == position.end_of_game
        assert game.get_actions(state) == main.legal_actions(position)
        for action in main.legal_actions(position):
            after, reward = main.next_state(position, action)
            ours, our_reward = game.next_state(state, action)
            assert (ours.board, ours.player, our_reward) == (after.cells, after.player, reward)
            assert type(our_reward) is int


def test_reaches_the_same_5478_positions(book):
    game, seen = book.env.TicTacToe(), set()
    frontier = [book.env.State()]
    while frontier:
        state = frontier.pop()
        if state not in seen:
            seen.add(state)
            frontier.extend(game.next_state(state, a)[0] for a in game.get_actions(state))
    assert {(s.board, s.player) for s in seen} == {(s.cells, s.player) for s in all_states()}


# --- the State contract -----------------------------------------------------------------------

def test_a_state_never_changes(book):
    state = book.env.State((1, 0, 0, 0, -1, 0, 0, 0, 0), 1)
    for name in ("board", "player", "anything"):
        with pytest.raises(AttributeError):
            setattr(state, name, 0)
    for name in ("board", "player"):
        with pytest.raises(AttributeError):
            delattr(state, name)
    assert type(state.board) is tuple and state.board == (1, 0, 0, 0, -1, 0, 0, 0, 0)
    after, _ = book.env.TicTacToe().next_state(state, (2, 2))
    assert state.board == (1, 0, 0, 0, -1, 0, 0, 0, 0) and state.player == 1
    assert after.board == (1, 0, 0, 0, -1, 0, 0, 0, 1) and after.player == -1


def test_states_are_equal_exactly_when_board_and_player_are(book):
    State = book.env.State
    board = (1, -1, 0, 0, 1, 0, 0, 0, -1)
    same = State(list(board), 1)
    assert State(board, 1) == same and hash(State(board, 1)) == hash(same)
    assert State(board, 1) != State(board, -1)
    assert State(board, 1) != State((1, -1, 0, 0, 1, 0, 0, -1, 0), 1)
    assert State() == State((0,) * 9, 1) and State().player == 1
    table = {(State(board, 1), (0, 2)): 0.5}
    assert table[(State(tuple(board), 1), (0, 2))] == 0.5
    for twin in (copy.copy(same), copy.deepcopy(same), pickle.loads(pickle.dumps(same))):
        assert twin == same and hash(twin) == hash(same)


def test_a_bad_state_is_a_value_error(book):
    for board, player in (((2,) + (0,) * 8, 1), ((0,) * 8, 1), ((0,) * 9, 0),
                          ([[0, 0, 0]] * 3, 1), ((0.5,) + (0,) * 8, 1)):
        with pytest.raises(ValueError):
            book.env.State(board, player)


def test_get_actions_lists_the_empty_cells_row_major_and_none_after_the_end(book):
    env, State = book.env.TicTacToe(), book.env.State
    assert env.get_actions(State()) == [(r, c) for r in range(3) for c in range(3)]
    state = State((1, -1, 1, 0, -1, 0, 0, 0, 0), 1)
    assert env.get_actions(state) == [(1, 0), (1, 2), (2, 0), (2, 1), (2, 2)]
    won = State((1, 1, 1, -1, -1, 0, 0, 0, 0), -1)
    assert env.end_of_game(won) and env.get_actions(won) == []
    env.get_actions(state).clear()                       # a fresh list each time
    assert len(env.get_actions(state)) == 5


def test_an_illegal_action_names_the_action_and_the_reason(book):
    env, State = book.env.TicTacToe(), book.env.State
    won = State((1, 1, 1, -1, -1, 0, 0, 0, 0), -1)
    cases = [(State(), (3, 0), "not a cell"), (State(), (0, -1), "not a cell"),
             (State((1,) + (0,) * 8, -1), (0, 0), "taken"), (won, (2, 2), "over"),
             (State(), [1, 1], "tuple"), (State(), "a1", "tuple"), (State(), (1, 1, 1), "tuple"),
             (State(), ([1], 1), "not a cell"), (State(), ("1", 1), "not a cell")]
    for state, action, reason in cases:
        with pytest.raises(ValueError, match=reason) as error:
            env.next_state(state, action)
        assert repr(action) in str(error.value)


def test_rewards_are_from_xs_point_of_view(book):
    env, State = book.env.TicTacToe(), book.env.State
    assert env.next_state(State((1, 1, 0, -1, -1, 0, 0, 0, 0), 1), (0, 2))[1] == 1
    assert env.next_state(State((1, 1, 0, -1, -1, 0, 1, 0, 0), -1), (1, 2))[1] == -1
    draw, reward = env.next_state(State((1, -1, 1, 1, -1, -1, -1, 1, 0), 1), (2, 2))
    assert reward == 0 and env.end_of_game(draw) and env.result(draw) == book.env.DRAW
    assert env.next_state(State(), (1, 1))[1] == 0


# --- training plumbing ------------------------------------------------------------------------

def test_sample_step_is_xs_move_and_os_random_reply(book):
    env, State, sample_step = book.env.TicTacToe(), book.env.State, book.training.sample_step
    rng = random.Random(5)
    state, reward, done = sample_step(env, State(), (1, 1), rng)
    assert state.player == 1 and sum(v != 0 for v in state.board) == 2 and state.board[4] == 1
    assert (reward, done) == (0, False)
    expected = random.Random(5).choice(env.get_actions(env.next_state(State(), (1, 1))[0]))
    assert state.board[expected[0] * 3 + expected[1]] == -1
    win = State((1, 1, 0, -1, -1, 0, 0, 0, 0), 1)            # X wins: O does not reply
    state, reward, done = sample_step(env, win, (0, 2), rng)
    assert (reward, done) == (1, True) and state.board.count(-1) == 2


def test_sample_step_refuses_os_turn(book):
    env, State = book.env.TicTacToe(), book.env.State
    with pytest.raises(ValueError, match=r"^The learner is X$"):
        book.training.sample_step(env, State((1,) + (0,) * 8, -1), (1, 1), random.Random(0))


def test_evaluate_counts_every_game_and_repeats_with_the_same_seed(book):
    env = book.env.TicTacToe()
    first_cell = lambda state: env.get_actions(state)[0]          # noqa: E731
    result = book.training.evaluate(env, first_cell, games=200, seed=7)
    assert list(result) == ["wins", "losses", "draws"] and sum(result.values()) == 200
    assert book.training.evaluate(env, first_cell, games=200, seed=7) == result
    assert sum(book.training.evaluate(env, first_cell).values()) == 1000


def test_epsilon_decays_from_one_towards_one_percent(book):
    epsilon_at = book.agent.epsilon_at
    assert epsilon_at(0) == 1.0
    values = [epsilon_at(epoch) for epoch in range(0, 2_000_001, 1000)]
    assert all(a > b for a, b in zip(values, values[1:]) if b > 0.01 + 1e-12)
    assert all(a >= b for a, b in zip(values, values[1:]))
    assert min(values) >= 0.01 and epsilon_at(10**9) == 0.01
    with pytest.raises(ValueError):
        epsilon_at(-1)


def test_the_agent_is_greedy_by_q_with_ties_to_the_first_cell(book):
    env, State = book.env.TicTacToe(), book.env.State
    agent = book.agent.TabularAgent(env, 0)
    assert agent.get_Q(State(), (1, 1)) == 0.0
    before = agent.rng.getstate()
    assert agent.get_action(State()) == (0, 0)                  # all zero: the first cell
    agent.Q[(State(), (1, 1))] = 0.3
    agent.Q[(State(), (2, 2))] = 0.3
    assert agent.get_action(State()) == (1, 1) and agent.get_Q(State(), (1, 1)) == 0.3
    assert agent.rng.getstate() == before                       # greedy play draws nothing
    with pytest.raises(ValueError):
        agent.get_action(State((1, 1, 1, -1, -1, 0, 0, 0, 0), -1))


def test_the_agent_explores_with_its_own_seeded_generator(book):
    env, State = book.env.TicTacToe(), book.env.State
    agent, twin = book.agent.TabularAgent(env, 3), book.agent.TabularAgent(env, 3)
    random.seed(0)                                   # the global generator plays no part
    picks = [agent.get_action(State(), 1.0) for _ in range(50)]
    random.seed(1)
    assert picks == [twin.get_action(State(), 1.0) for _ in range(50)]
    assert set(picks) <= set(env.get_actions(State())) and len(set(picks)) > 1


# --- the training program ---------------------------------------------------------------------

def test_an_episode_is_the_learners_steps_to_the_end(book):
    env, State, sample_step = book.env.TicTacToe(), book.env.State, book.training.sample_step
    agent = book.agent.TabularAgent(env, 1)
    episode = book.program.generate_episode(env, agent, 0.5, random.Random(2))
    state, done, replay = State(), False, random.Random(2)    # the same opponent, step by step
    for step_state, action, reward in episode:
        assert not done and step_state is state and state.player == 1
        state, step_reward, done = sample_step(env, state, action, replay)
        assert step_reward == reward
    assert done and env.end_of_game(state) and len(episode) >= 3


def test_update_walks_the_episode_backwards(book):
    env, State = book.env.TicTacToe(), book.env.State
    agent = book.agent.TabularAgent(env, 0)
    first, second = State(), State((1, -1, 0, 0, 0, 0, 0, 0, 0), 1)
    book.program.update_episode(agent, [(first, (0, 0), 0), (second, (1, 1), 1)],
                                gamma=0.95, alpha=0.01)
    assert agent.get_Q(second, (1, 1)) == pytest.approx(0.01)
    assert agent.get_Q(first, (0, 0)) == pytest.approx(0.01 * 0.95)


def test_training_repeats_with_the_same_seed(book):
    _, one = book.program.train(epochs=300, seed=4)
    _, two = book.program.train(epochs=300, seed=4)
    assert one.Q == two.Q and len(one.Q) > 100
