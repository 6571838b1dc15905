"""m,n,k boards: the description, the perfect-play solver and the reachable counts.

The solver is checked against an independent minimax written here: plain recursion over tuples of
cells with its own win lines, sharing no code with ``boards``.
"""

import random
import subprocess
import sys
from pathlib import Path

import pytest

from tictactoe_rl.boards.reach import count_reachable
from Random_Agent import Random_Agent
from TicTacToe import TicTacToe
from tictactoe_rl.boards.perfect import PerfectAgent
from tictactoe_rl.exact.fits import is_exact
from tictactoe_rl.exact.solver import exact_result
from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from tictactoe_rl.boards.solver import Solver
from tictactoe_rl.exact.symmetry import TRANSFORMS, state_images
from State import ALL_CELLS, O, WIN_LINES, X, all_states

ROOT = Path(__file__).resolve().parent.parent


# --- an independent solver ---------------------------------------------------------------------

def reference_lines(rows, cols, k):
    """Every set of k cells in a row, a column or a diagonal, found by walking from each cell."""
    lines = set()
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + dr * i, c + dc * i) for i in range(k)]
                if all(0 <= rr < rows and 0 <= cc < cols for rr, cc in cells):
                    lines.add(frozenset(rr * cols + cc for rr, cc in cells))
    return [tuple(line) for line in lines]


def reference_solver(rows, cols, k):
    """``value(cells, player)``, plain minimax from X's view, and its memo: one entry for each
    position it visited, which from the empty board is every reachable position."""
    lines, memo = reference_lines(rows, cols, k), {}

    def value(cells, player):
        if (cells, player) not in memo:
            memo[cells, player] = _minimax(cells, player)
        return memo[cells, player]

    def _minimax(cells, player):
        if reference_winner(cells, lines):
            return reference_winner(cells, lines)
        results = [value(cells[:i] + (player,) + cells[i + 1:], -player)
                   for i, cell in enumerate(cells) if cell == 0]
        if not results:
            return 0
        return max(results) if player == 1 else min(results)
    return value, memo


def reference_winner(cells, lines):
    for line in lines:
        marks = {cells[i] for i in line}
        if marks in ({1}, {-1}):
            return marks.pop()
    return 0


def random_positions(rows, cols, k, marks, count, seed):
    """``count`` positions with ``marks`` marks, from random play by X and O in turn that does not
    go on after a line is made."""
    rng, lines, found = random.Random(seed), reference_lines(rows, cols, k), []
    while len(found) < count:
        cells = [0] * (rows * cols)
        for ply in range(marks):
            if reference_winner(cells, lines):
                break
            cells[rng.choice([i for i, cell in enumerate(cells) if cell == 0])] = \
                1 if ply % 2 == 0 else -1
        else:
            found.append(tuple(cells))
    return found


def player_of(cells):
    return 1 if cells.count(1) == cells.count(-1) else -1


# --- the description ---------------------------------------------------------------------------

def test_the_3x3_board_is_the_course_game():
    assert TIC_TAC_TOE == BoardShape() == BoardShape.parse("3x3")
    assert TIC_TAC_TOE.cells == ALL_CELLS
    assert TIC_TAC_TOE.win_lines == WIN_LINES
    assert TIC_TAC_TOE.symmetries == TRANSFORMS


SHAPES = [BoardShape(r, c, k) for r in range(1, 6) for c in range(1, 6)
          for k in range(1, max(r, c) + 1)]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.name)
def test_win_lines_are_every_run_of_k(shape):
    assert sorted(map(frozenset, shape.win_lines), key=sorted) == \
        sorted(map(frozenset, reference_lines(shape.rows, shape.cols, shape.k)), key=sorted)
    assert len(set(shape.win_lines)) == len(shape.win_lines)
    assert shape.line_masks == tuple(sum(1 << i for i in line) for line in shape.win_lines)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.name)
def test_symmetries_are_the_group_of_the_board(shape):
    symmetries = shape.symmetries
    assert symmetries[0] == tuple(range(shape.size))
    expected = 1 if shape.size == 1 else 8 if shape.rows == shape.cols else \
        2 if 1 in (shape.rows, shape.cols) else 4   # a single row: its mirror is its half turn
    assert len(symmetries) == len(set(symmetries)) == expected
    lines = set(map(frozenset, shape.win_lines))
    for perm in symmetries:
        assert sorted(perm) == list(range(shape.size))
        assert {frozenset(perm[i] for i in line) for line in lines} == lines
        for other in symmetries:
            assert tuple(other[perm[i]] for i in range(shape.size)) in symmetries


def test_a_non_square_board_has_four_symmetries():
    shape = BoardShape(3, 4, 3)
    assert len(shape.symmetries) == 4
    assert shape.symmetries[1][shape.index(0, 0)] == shape.index(0, 3)   # left-right mirror
    assert shape.symmetries[2][shape.index(0, 0)] == shape.index(2, 0)   # top-bottom mirror
    assert shape.symmetries[3][shape.index(0, 0)] == shape.index(2, 3)   # half turn


def test_cells_indices_and_positions_round_trip():
    shape = BoardShape(3, 5, 3)
    assert [shape.index(*cell) for cell in shape.cells] == list(range(15))
    assert [shape.cell(i) for i in range(15)] == list(shape.cells)
    assert shape.cell(7) == (1, 2)
    cells = (1, -1, 0, 0, 1) + (0,) * 9 + (-1,)
    assert shape.encode(cells) == (0b10001, 0b100000000000010)
    assert shape.decode(shape.encode(cells)) == cells
    for bad in [lambda: shape.index(3, 0), lambda: shape.index(0, -1), lambda: shape.cell(15),
                lambda: shape.encode(cells[:-1]), lambda: shape.encode((2,) + cells[1:]),
                lambda: shape.encode((True,) + cells[1:])]:
        with pytest.raises(ValueError):
            bad()


@pytest.mark.parametrize("board, k, expected", [
    ("3x3", None, (3, 3, 3)), ("4x4", None, (4, 4, 4)), ("4x4", "3", (4, 4, 3)),
    ("3x4", None, (3, 4, 3)), ("5X3", None, (5, 3, 3)), ("5x5", "4", (5, 5, 4)),
    ("1x1", None, (1, 1, 1)), ("2x5", "5", (2, 5, 5)),
])
def test_parse_reads_the_board_and_k(board, k, expected):
    shape = BoardShape.parse(board, k)
    assert (shape.rows, shape.cols, shape.k) == expected


@pytest.mark.parametrize("board, k, words", [
    ("", None, "ROWSxCOLS"), ("4", None, "ROWSxCOLS"), ("4x", None, "ROWSxCOLS"),
    ("4*4", None, "ROWSxCOLS"), ("4x4x4", None, "ROWSxCOLS"), (" 4x4", None, "ROWSxCOLS"),
    ("4x4\n", None, "ROWSxCOLS"), ("\u0664x\u0664", None, "ROWSxCOLS"),
    ("\uff14x4", None, "ROWSxCOLS"), ("-3x3", None, "ROWSxCOLS"), ("999x3", None, "ROWSxCOLS"),
    ("0x3", None, "1 to 5 rows"), ("3x6", None, "1 to 5 columns"),
    ("4x4", "5", "between 1 and 4"), ("4x4", "0", "between 1 and 4"),
    ("4x4", "-1", "whole number"), ("4x4", "3.0", "whole number"), ("4x4", "", "whole number"),
    ("4x4", "\u0663", "whole number"), ("4x4", "3 ", "whole number"),
])
def test_parse_refuses_bad_text_in_one_line(board, k, words):
    with pytest.raises(ValueError) as refused:
        BoardShape.parse(board, k)
    assert words in str(refused.value) and "\n" not in str(refused.value)


def test_a_shape_refuses_values_that_are_not_whole_numbers():
    for fields in [(3.0, 3, 3), (3, True, 3), (3, 3, "3")]:
        with pytest.raises(ValueError, match="whole number"):
            BoardShape(*fields)


# --- perfect play ------------------------------------------------------------------------------

def test_3x3_is_a_draw_in_every_position_as_the_reference_says():
    solver, (reference, _) = Solver(TIC_TAC_TOE), reference_solver(3, 3, 3)
    assert solver.value() == 0
    for state in all_states():
        expected = reference(state.cells, state.player)
        assert solver.value(TIC_TAC_TOE.encode(state.cells)) == expected
    assert solver.move_values() == dict.fromkeys(range(9), 0)


@pytest.fixture(scope="module")
def reference_3x4():
    """The reference solver of 3x4 k=3 after solving the empty board (about a second)."""
    reference, visited = reference_solver(3, 4, 3)
    reference((0,) * 12, 1)
    return reference, visited


@pytest.mark.slow
def test_3x4_k3_is_an_x_win_as_the_reference_says(reference_3x4):
    shape, (reference, visited) = BoardShape(3, 4, 3), reference_3x4
    solver = Solver(shape)
    empty = (0,) * 12
    assert solver.value() == reference(empty, 1) == 1
    for cells, player in sorted(visited)[::37]:   # a spread over every ply
        assert solver.value(shape.encode(cells)) == visited[cells, player], cells
    assert solver.move_values() == {cell: reference(empty[:cell] + (1,) + empty[cell + 1:], -1)
                                    for cell in range(12)}


@pytest.mark.parametrize("rows, cols, k", [(1, 1, 1), (2, 2, 2), (2, 3, 2), (3, 3, 2),
                                           (3, 3, 1), (1, 4, 3), (2, 4, 3), (3, 2, 3)])
def test_small_boards_agree_with_the_reference_everywhere(rows, cols, k):
    shape, (reference, visited) = BoardShape(rows, cols, k), reference_solver(rows, cols, k)
    reference((0,) * shape.size, 1)
    solver = Solver(shape)
    for cells, player in visited:
        assert solver.value(shape.encode(cells)) == visited[cells, player], cells


def test_4x4_k3_is_an_x_win_and_4x4_k4_a_draw():
    assert Solver(BoardShape(4, 4, 3)).value() == 1
    assert Solver(BoardShape(4, 4, 4)).value() == 0


def test_a_finished_position_is_worth_its_result():
    shape = BoardShape(4, 4, 3)
    x_won = shape.encode((1, 1, 1, 0, -1, -1, 0, 0) + (0,) * 8)
    assert Solver(shape).value(x_won) == 1
    assert Solver(shape).move_values(x_won) == {}


@pytest.mark.parametrize("position, words", [
    ((1, 1), "same cell"), ((1 << 16, 0), "off the board"), ((-1, 0), "off the board"),
    ((0, 1), "X has 0 marks, O 1"), ((0b111, 0), "X has 3 marks, O 0"),
    ((0b1111, 0b11110000), "both sides have a line"),
    ((0b1111, 0b1101100000000), "moved after the game ended"),   # O after X's top row
    ((0b1100000111, 0b11110000), "moved after the game ended"),  # X after O's second row
])
def test_unreachable_positions_are_refused(position, words):
    with pytest.raises(ValueError, match=words):
        Solver(BoardShape(4, 4, 4)).value(position)


@pytest.mark.slow
def test_4x4_positions_agree_with_the_reference():
    """The 4x4 k=4 draw, and the solver against the reference from positions six marks in,
    where the reference can walk what is left."""
    for k in (3, 4):
        shape, (reference, _) = BoardShape(4, 4, k), reference_solver(4, 4, k)
        solver = Solver(shape)
        for cells in random_positions(4, 4, k, 6, 12, seed=k):
            assert solver.value(shape.encode(cells)) == reference(cells, 1), cells
    assert Solver(BoardShape(4, 4, 4)).value() == 0


# --- how large the game is ---------------------------------------------------------------------

def test_3x3_counts_are_the_games_positions():
    reach = count_reachable(TIC_TAC_TOE)
    assert (reach.positions, reach.finished, reach.canonical) == (5478, 958, 765)
    assert reach.positions == len(all_states()) and reach.complete
    assert reach.canonical == len({frozenset(state_images(state)) for state in all_states()})


@pytest.mark.parametrize("rows, cols, k", [(3, 3, 2), (2, 4, 3), (1, 1, 1), (2, 2, 2)])
def test_counts_agree_with_the_reference_walk(rows, cols, k):
    reference, visited = reference_solver(rows, cols, k)
    reference((0,) * (rows * cols), 1)
    # The reference's minimax visits every reachable position, each once.
    assert count_reachable(BoardShape(rows, cols, k)).positions == len(visited)


@pytest.mark.slow
def test_3x4_counts_agree_with_the_reference_walk(reference_3x4):
    reach = count_reachable(BoardShape(3, 4, 3))
    assert reach.positions == len(reference_3x4[1]) == 111_973
    assert reach.complete


def test_the_count_stops_past_its_limit():
    shape = BoardShape(3, 4, 3)   # 111,973 positions
    assert count_reachable(shape, limit=111_973).complete
    assert not count_reachable(shape, limit=111_972).complete
    assert not count_reachable(shape, limit=1000).complete


def test_the_position_counts_docs_boards_quotes_are_counted():
    """The rows of docs/BOARDS.md's table of positions below 4x4 are what count_reachable finds
    here; the 4x4 rows (half a minute of counting) are counted and compared by the benchmark
    that prints them, tools/benchmarks/mnk.py."""
    from tools.benchmarks import mnk
    quoted = mnk.quoted_counts()
    assert list(quoted) == list(mnk.BOARDS)     # the benchmark counts every row
    for shape, counts in quoted.items():
        assert is_exact(shape)      # every board of the table is measured exactly
        if shape.size < 16:
            reach = count_reachable(shape)
            assert (reach.positions, reach.canonical, reach.complete) == (*counts, True)


# --- Tester.py --board: perfect play's value as a user asks for it -----------------------------

VALUE_WORDS = {1: "win for X", 0: "draw", -1: "win for O"}


def run_tester(*args):
    done = subprocess.run([sys.executable, "Tester.py", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize("rows, cols, k", [
    (3, 3, 3), pytest.param(3, 4, 3, marks=pytest.mark.slow), (2, 4, 2)])
def test_tester_prints_the_value_the_reference_computes(rows, cols, k, tmp_path):
    reference, _ = reference_solver(rows, cols, k)
    words = VALUE_WORDS[reference((0,) * (rows * cols), 1)]
    first = run_tester("--board", f"{rows}x{cols}", "--k", str(k), "--cache", str(tmp_path))
    assert first[0] == f"{rows}x{cols} k={k}: {words} under perfect play"
    assert first[-1].startswith("solved in ")
    second = run_tester("--board", f"{rows}x{cols}", "--k", str(k), "--cache", str(tmp_path))
    assert second[:-1] == first[:-1] and second[-1].startswith("from the cache ")


@pytest.mark.slow
@pytest.mark.parametrize("k, words", [("3", "win for X"), ("4", "draw")])
def test_tester_solves_4x4_then_reads_it_from_the_cache(k, words, tmp_path):
    first = run_tester("--board", "4x4", "--k", k, "--cache", str(tmp_path))
    assert first[0] == f"4x4 k={k}: {words} under perfect play"
    assert run_tester("--board", "4x4", "--k", k, "--cache", str(tmp_path))[-1].startswith(
        f"from the cache {tmp_path}/4x4_k{k}.json")


@pytest.mark.slow
def test_tester_measures_agents_on_a_bigger_board_and_refuses_what_does_not_fit():
    done = subprocess.run([sys.executable, "Tester.py", "--board", "4x4", "--x", "random",
                           "--o", "random", "--games", "50"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "random against random on 4x4 k=4 (50 games per side, seed 0)" in done.stdout
    wins, losses, draws = map(int, done.stdout.splitlines()[-1].split()[2:5])
    assert wins + losses + draws == 50
    for flags, words in ((["--mistakes", "random"], "does not use --board"),
                         (["--x", "random", "--cache", "x"], "does not use --cache"),
                         (["--x", "Data/Q_MC_X.pth"], "is a table for the 3x3 k=3 board, not "
                                                       "for 4x4 k=4")):
        done = subprocess.run([sys.executable, "Tester.py", "--board", "4x4", *flags],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and done.stdout == ""
        assert len(done.stderr.splitlines()) == 1 and words in done.stderr


@pytest.mark.slow
def test_tester_plays_the_boards_shipped_table_as_x_when_none_is_named(tmp_path):
    """As the window does: the proven table on 4x4 k=4, found beside Tester.py from any folder;
    minimax on a board that has none."""
    done = subprocess.run([sys.executable, str(ROOT / "Tester.py"), "--board", "4x4", "--k", "4",
                           "--o", "random", "--exact"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    table = ROOT / "Data" / "Q_ADV_X_4x4k4.pth"
    assert done.stdout.splitlines()[0] == (f"Q-table {table} against random on 4x4 k=4 "
                                           "(exact probabilities)")
    assert done.stdout.splitlines()[-1].split()[2:] == ["0.746745", "0.000000", "0.253255"]
    lines = run_tester("--board", "3x4", "--k", "3", "--o", "random", "--games", "10")
    assert lines[0] == "minimax against random on 3x4 k=3 (10 games per side, seed 0)"
    assert run_tester("--o", "random", "--games", "10")[0].startswith(
        "Q-table Data/Q_MC_X.pth against random (10 games")


@pytest.mark.slow
def test_tester_is_exact_on_a_bigger_board_and_refuses_5x5_in_one_line():
    lines = run_tester("--board", "3x4", "--k", "3", "--x", "minimax", "--o", "random",
                       "--exact", "--both")
    assert lines[0] == "minimax against random on 3x4 k=3 (exact probabilities)"
    env = TicTacToe(board=BoardShape(3, 4, 3))
    for line, side in zip(lines[2:4], (X, O)):
        shares = exact_result(PerfectAgent(side, env), Random_Agent(-side, env))
        assert line.split()[2:] == [f"{share:.6f}" for share in shares]
    worst = run_tester("--board", "3x4", "--k", "3", "--worst-case", "random")
    assert worst[0].startswith("random playing X: CAN BE BEATEN in 6 moves")
    done = subprocess.run([sys.executable, "Tester.py", "--board", "5x5", "--x", "random",
                           "--o", "random", "--exact"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.splitlines()) == 1
    assert "cannot walk the game of 5x5 k=5: it needs about " in done.stderr
