"""Bigger boards: positions, rules, the perfect player, table files and the
trainers on 4x4 k=4 and 3x4 k=3 -- while 3x3 stays the course's game."""

import io
import pickle
import random
import zipfile
from functools import lru_cache

import numpy as np
import pytest

import MC_Trainer
import Q_Trainer
from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from tictactoe_rl.positions import BoardState, shape_of, start_position
from tictactoe_rl.boards.perfect import PerfectAgent
from Episode import play_games
from Random_Agent import Random_Agent
from Random_Agent_Advanced import completing_cell
from State import O, O_WON, X, X_WON, State
from tictactoe_rl.tables.board_files import encode
from tictactoe_rl.tables.files import TableError, load_table, save_board_table
from TicTacToe import TicTacToe

FOUR = BoardShape(4, 4, 4)
SMALL = BoardShape(3, 4, 3)


def play(env: TicTacToe, moves: str):
    """The position and reward after ``moves`` ("r,c r,c ...") from the empty board."""
    state, reward = env.reset(), 0
    for word in moves.split():
        state, reward = env.next_state(state, tuple(map(int, word.split(","))))
    return state, reward


# --- positions and rules ------------------------------------------------------------------------

def test_a_position_is_one_object_and_knows_its_board():
    cells = [1, -1, 0] + [0] * 6
    two = BoardShape(3, 3, 2)
    assert BoardState(two, cells, 1) is BoardState(two, np.array(cells).reshape(3, 3), 1)
    assert BoardState(two, cells, 1) != State(cells, 1)        # same cells, another game
    assert shape_of(BoardState(two, cells, 1)) == two and shape_of(State()) == TIC_TAC_TOE
    position = start_position(FOUR).children()[(1, 2)]
    assert pickle.loads(pickle.dumps(position)) is position
    assert position.board.shape == (4, 4) and not position.board.flags.writeable
    assert position.reset() is start_position(FOUR) and start_position(TIC_TAC_TOE) is State()
    for board, player in (([0] * 15, 1), ([0] * 16, 2), ([5] + [0] * 15, 1)):
        with pytest.raises(ValueError) as caught:
            BoardState(FOUR, board, player)
        assert "\n" not in str(caught.value)


@pytest.mark.parametrize("moves, winner", [
    ("0,0 1,0 0,1 1,1 0,2 1,2 0,3", X_WON),                   # a row
    ("0,0 0,1 1,0 1,1 2,0 2,1 3,3 3,1", O_WON),               # a column
    ("0,0 0,1 1,1 0,2 2,2 0,3 3,3", X_WON),                   # the diagonal
    ("0,3 0,0 1,2 0,1 2,1 1,0 3,0", X_WON)])                  # the other diagonal
def test_four_in_a_line_wins_and_three_do_not(moves, winner):
    env = TicTacToe(board=FOUR)
    before, reward = play(env, " ".join(moves.split()[:-1]))
    assert before.end_of_game == 0 and reward == 0
    after, reward = play(env, moves)
    assert after.end_of_game == winner and reward == (1 if winner == X_WON else -1)


def test_illegal_moves_and_foreign_positions_are_refused_in_one_line():
    env = TicTacToe(board=FOUR)
    state, _ = play(env, "0,0")
    for action, words in (((4, 0), "off the board"), ((0, 0), "already taken")):
        with pytest.raises(ValueError, match=words) as caught:
            env.next_state(state, action)
        assert "\n" not in str(caught.value)
    won, _ = play(env, "0,0 1,0 0,1 1,1 0,2 1,2 0,3")
    with pytest.raises(ValueError, match="already over"):
        env.next_state(won, (3, 3))
    with pytest.raises(ValueError, match="3x3 k=3 board cannot be played on this 4x4 k=4"):
        env.state = State()
    env.move((2, 2))
    assert env.state.reset() is start_position(FOUR)


def test_the_advanced_agent_completes_and_blocks_lines_of_k():
    env = TicTacToe(board=FOUR)
    mine, _ = play(env, "0,0 1,0 0,1 1,1 0,2 3,3")       # X to move with 0,0 0,1 0,2
    assert completing_cell(mine, X) == (0, 3)
    theirs, _ = play(env, "0,0 1,0 3,3 1,1 2,3 1,2")     # O threatens the second row
    assert completing_cell(theirs, X) is None and completing_cell(theirs, O) == (1, 3)


# --- the perfect player -------------------------------------------------------------------------

@lru_cache(maxsize=None)
def negamax(cells: tuple, mover: int) -> int:
    """Perfect play's value for ``mover`` on 3x4 k=3, by plain search (no project code)."""
    lines = [[(r, c), (r, c + 1), (r, c + 2)] for r in range(3) for c in range(2)]
    lines += [[(0, c), (1, c), (2, c)] for c in range(4)]
    lines += [[(0, c), (1, c + 1), (2, c + 2)] for c in range(2)]
    lines += [[(0, c), (1, c - 1), (2, c - 2)] for c in range(2, 4)]
    for line in lines:
        values = {cells[r * 4 + c] for r, c in line}
        if len(values) == 1 and 0 not in values:
            return 1 if values.pop() == mover else -1
    empty = [i for i, v in enumerate(cells) if v == 0]
    if not empty:
        return 0
    return max(-negamax(cells[:i] + (mover,) + cells[i + 1:], -mover) for i in empty)


@pytest.mark.slow
def test_the_perfect_player_picks_exactly_the_moves_a_plain_search_keeps():
    rng = random.Random(3)
    env = TicTacToe(board=SMALL)
    agent = {X: PerfectAgent(X, env), O: PerfectAgent(O, env)}
    checked = 0
    for _ in range(40):
        state = start_position(SMALL)
        for _ in range(rng.randrange(0, 6)):
            if state.end_of_game:
                break
            state = state.children()[rng.choice(state.legal_actions())]
        if state.end_of_game:
            continue
        values = {a: -negamax(child.cells, child.player) for a, child in state.children().items()}
        best = max(values.values())
        assert set(agent[state.player].best_actions(state)) == \
            {a for a, v in values.items() if v == best}
        checked += 1
    assert checked >= 25


@pytest.mark.slow
def test_perfect_play_wins_4x4_k3_and_draws_4x4_k4():
    three = TicTacToe(board=BoardShape(4, 4, 3))
    assert play_games(PerfectAgent(X, three, seed=1), Random_Agent(O, three, seed=2), three,
                      30) == (30, 0, 0)
    assert play_games(PerfectAgent(X, three, seed=1), PerfectAgent(O, three, seed=2), three,
                      5) == (5, 0, 0)
    env = TicTacToe(board=FOUR)
    assert play_games(PerfectAgent(X, env, seed=1), PerfectAgent(O, env, seed=2), env,
                      10) == (0, 0, 10)


# --- table files --------------------------------------------------------------------------------

def four_by_four_table() -> dict:
    first = start_position(FOUR)
    after = first.children()[(1, 1)].children()[(0, 0)]
    return {(first, (1, 1)): 0.5, (first, (0, 0)): -0.25, (after, (2, 2)): 0.125}


def test_a_bigger_boards_table_round_trips_and_is_refused_for_another_board(tmp_path):
    path = str(tmp_path / "t.pth")
    save_board_table(path, four_by_four_table(), X, {"episodes_done": 3}, FOUR)
    Q, side, meta = load_table(path, side=X, board=FOUR)
    assert Q == four_by_four_table() and side == X and meta == {"episodes_done": 3}
    for board, side, words in ((TIC_TAC_TOE, None, "for the 4x4 k=4 board, not for 3x3 k=3"),
                               (BoardShape(4, 4, 3), None, "not for 4x4 k=3"),
                               (FOUR, O, "a table for X, not for O")):
        with pytest.raises(TableError, match=words) as caught:
            load_table(path, side=side, board=board)
        assert "\n" not in str(caught.value)
    with pytest.raises(TableError, match="is a table for the 3x3 k=3 board, not for 4x4 k=4"):
        load_table("Data/Q_MC_X.pth", board=FOUR)
    first = start_position(FOUR)
    for bad in ({(first, (1, 1)): float("nan")}, {(first.children()[(0, 0)], (1, 1)): 0.5},
                {(first, (1, 1)): 1j}):
        with pytest.raises(ValueError, match="not saving"):
            save_board_table(path, bad, X, {}, FOUR)
    assert load_table(path, side=X, board=FOUR)[0] == four_by_four_table()   # left as it was


def archive(**changes) -> bytes:
    """A table file's bytes with some of its arrays replaced (or added)."""
    arrays = dict(np.load(io.BytesIO(encode(FOUR, four_by_four_table(), X, {})),
                          allow_pickle=False))
    arrays.update(changes)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def with_object_member() -> bytes:
    """The table's archive with its values a pickled object array (what np.save allows)."""
    source, data = zipfile.ZipFile(io.BytesIO(archive())), io.BytesIO()
    with zipfile.ZipFile(data, "w") as bundle:
        for info in source.infolist():
            member = source.read(info)
            if info.filename == "values.npy":
                pickled = io.BytesIO()
                np.save(pickled, np.array([print], dtype=object), allow_pickle=True)
                member = pickled.getvalue()
            bundle.writestr(info.filename, member)
    return data.getvalue()


def with_two_members_of_one_name() -> bytes:
    data = io.BytesIO(archive())
    with pytest.warns(UserWarning), zipfile.ZipFile(data, "a") as bundle:
        bundle.writestr("values.npy", b"")
    return data.getvalue()


HOSTILE = {
    "two of one name": with_two_members_of_one_name,
    "extra member": lambda: archive(extra=np.zeros(3)),
    "object member": with_object_member,
    "overlapping marks": lambda: archive(o_bits=np.array([0, 0, 32], dtype=np.uint32)),
    "finished game": lambda: archive(x_bits=np.array([15, 0, 0], dtype=np.uint32),
                                     o_bits=np.array([15 << 4, 0, 0], dtype=np.uint32)),
    "occupied cell": lambda: archive(actions=np.array([5, 0, 0], dtype=np.uint8)),
    "not a number": lambda: archive(values=np.array([np.nan, 0, 0])),
    "complex values": lambda: archive(values=np.array([1j, 0, 0])),
    "a negative move": lambda: archive(actions=np.array([-1, 0, 0], dtype=np.int8)),
    "signed bitboards": lambda: archive(x_bits=np.array([0, 0, -32], dtype=np.int64)),
    "a side of 1.5": lambda: archive(side=np.array(1.5)),
    "wrong counts": lambda: archive(x_bits=np.array([3, 0, 0], dtype=np.uint32)),
    "cut short": lambda: archive()[:-200],
    "huge header": lambda: archive(values=np.lib.stride_tricks.as_strided(
        np.zeros(1), shape=(2**20,), strides=(0,))),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_bigger_boards_table_is_one_line_and_runs_nothing(tmp_path, name, capsys):
    path = tmp_path / "t.pth"
    path.write_bytes(HOSTILE[name]())
    with pytest.raises(TableError) as caught:
        load_table(str(path), board=FOUR)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)
    assert capsys.readouterr().out == ""


# --- the trainers --------------------------------------------------------------------------------

@pytest.mark.slow
def test_mc_trains_4x4_reports_exactly_and_repeats_bit_for_bit(tmp_path, capsys):
    paths = [tmp_path / name for name in ("a.pth", "b.pth")]
    for path in paths:
        assert MC_Trainer.run(["--board", "4x4", "--k", "4", "--epochs", "1500", "--seed", "1",
                               "--out", str(path)]) == 0
    printed = capsys.readouterr().out
    assert paths[0].read_bytes() == paths[1].read_bytes()
    for opponent in ("random", "advanced"):
        assert printed.count(f"exact vs {opponent:<8}: wins ") == 2
    assert load_table(str(paths[0]), board=FOUR)[2]["board"] == "4x4 k=4"
    with pytest.raises(TableError, match="for the 4x4 k=4 board, not for 3x3 k=3"):
        MC_Trainer.run(["--resume", str(paths[0]), "--epochs", "3000"])


def test_the_default_file_names_its_board():
    from tictactoe_rl.training.options import default_file
    assert default_file("my_Q_MC_{side}.pth", "X", FOUR).endswith("Data/my_Q_MC_X_4x4k4.pth")
    assert default_file("my_Q_MC_{side}.pth", "X").endswith("Data/my_Q_MC_X.pth")


@pytest.mark.parametrize("flags, words", [(["--board", "9x9"], "1 to 5 rows"),
                                          (["--board", "4x4", "--k", "7"], "k must be between"),
                                          (["--board", "four"], "ROWSxCOLS")])
def test_a_board_that_is_not_one_stops_a_trainer_in_one_line(flags, words, capsys):
    with pytest.raises(SystemExit) as stopped:
        Q_Trainer.run(flags + ["--epochs", "10"])
    assert stopped.value.code == 2
    error = capsys.readouterr().err.strip()
    assert words in error and "\n" not in error


def test_a_small_board_is_measured_exactly(tmp_path, capsys):
    assert Q_Trainer.run(["--board", "3x4", "--k", "3", "--epochs", "3000", "--seed", "1",
                          "--out", str(tmp_path / "q.pth")]) == 0
    printed = capsys.readouterr().out
    assert "exact vs random  : wins" in printed and "sampled" not in printed
    assert "--board 3x4 --k 3 --worst-case" in printed or "unbeatable" in printed


@pytest.mark.slow
def test_dqn_trains_4x4_and_its_network_is_refused_for_another_board(tmp_path, capsys):
    import DQN_Trainer
    from tictactoe_rl.neural.files import NetworkError, load_network
    from tictactoe_rl.players.specs import make_agent

    paths = [tmp_path / name for name in ("a.pt", "b.pt")]
    for path in paths:
        assert DQN_Trainer.run(["--board", "4x4", "--k", "4", "--epochs", "150", "--batch",
                                "64", "--seed", "2", "--out", str(path)]) == 0
    printed = capsys.readouterr().out
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert "exact vs random  : wins" in printed and "perfect moves" not in printed
    saved = load_network(str(paths[0]), board=FOUR)
    assert saved.network.board == FOUR and saved.meta["board"] == "4x4 k=4"
    agent = make_agent(str(paths[0]), X, TicTacToe(board=FOUR))
    assert agent.get_action(start_position(FOUR)) in start_position(FOUR).legal_actions()
    with pytest.raises(NetworkError, match="for the 4x4 k=4 board, not for 3x3 k=3") as caught:
        make_agent(str(paths[0]), X)
    assert "\n" not in str(caught.value) and "use it with --board 4x4 --k 4" in str(caught.value)
