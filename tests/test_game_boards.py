"""The game window on boards other than 3x3: layout, clicks, the win line, the H overlay, the
command line's --board and --k.

Headless (the dummy video driver, set by conftest.py and again for every subprocess). Games are
driven with synthetic pygame events, and time is a number the test sets, so nothing waits on a
real clock.
"""

import os
import subprocess
import sys
from pathlib import Path

import pygame
import pytest

from tictactoe_rl import cli
import Game as game_module
from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from tictactoe_rl.positions import BoardState, start_position
from Game import OTHER_BOARD_X, Game
from Graphics import Graphics, View, winning_line
from tictactoe_rl.gui.captions import footer, status
from tictactoe_rl.gui.paint import BACKGROUND, CHOICE, GRID, LAST_MOVE, WIN_LINE, shade
from State import DRAW, O, O_WON, X, X_WON

ROOT = Path(__file__).resolve().parent.parent
FOUR = BoardShape(4, 4, 4)
WIDE = BoardShape(3, 5, 3)
ODD_SIZE = (703, 517)          # not the default window, and not square


class SetTime:
    """A clock that reads whatever the test last set."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def new_game(x_spec, o_spec, board, size=ODD_SIZE, delay=0.0):
    return Game(x_spec, o_spec, delay=delay, size=size, clock=SetTime(), background=False,
                board=board)


def mouse_down(game, pos, button=1):
    game.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=button))


def pixel_in(game, cell, fx=0.5, fy=0.5):
    """The pixel at the share ``(fx, fy)`` of ``cell``'s width and height, worked out from the
    board's rectangle and the board's rows and columns (not from ``cell_rect``)."""
    board, shape = game.graphics.board, game.env.shape
    width, height = board.width / shape.cols, board.height / shape.rows
    row, col = cell
    return (int(board.left + (col + fx) * width), int(board.top + (row + fy) * height))


def colour(image, pos):
    return tuple(image.get_at((round(pos[0]), round(pos[1]))))[:3]


def free_area(graphics):
    """The band between header and footer that the board must lie in."""
    return pygame.Rect(0, graphics.header.bottom, graphics.size[0],
                       graphics.footer.top - graphics.header.bottom)


# --- layout and clicks -------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [FOUR, WIDE, BoardShape(5, 2, 2), BoardShape(1, 5, 3),
                                   BoardShape(5, 5, 4)])
@pytest.mark.parametrize("size", [ODD_SIZE, (240, 300), (300, 900), (1000, 400)])
def test_every_cell_is_whole_pixels_inside_the_free_area(shape, size):
    graphics = Graphics(size, window=False, shape=shape)
    board, cell = graphics.board, graphics.cell
    assert cell > 0 and board.size == (cell * shape.cols, cell * shape.rows)
    free = free_area(graphics)
    assert free.contains(board)
    # as large as fits: it fills the free area in one direction, but for the margins
    assert board.width >= 0.8 * free.width or board.height >= 0.8 * free.height
    for row, col in shape.cells:
        rect = graphics.cell_rect((row, col))
        for pos in (rect.topleft, rect.center, (rect.right - 1, rect.bottom - 1)):
            assert graphics.calc_row_col(pos) == (row, col)
    for pos in ((board.left - 1, board.centery), (board.right, board.centery),
                (board.centerx, board.top - 1), (board.centerx, board.bottom)):
        assert graphics.calc_row_col(pos) is None


def test_a_4x4_game_by_clicks_on_an_odd_window_size_and_after_a_resize():
    game = new_game("human", "human", FOUR)
    assert game.graphics.size == ODD_SIZE and game.graphics.shape == FOUR
    # X along the top row, O below it; clicks near the cells' corners, not just their centres
    plan = [((0, 0), (0.05, 0.05)), ((1, 0), (0.95, 0.95)), ((0, 1), (0.9, 0.1)),
            ((1, 1), (0.1, 0.9)), ((0, 2), (0.5, 0.5))]
    for cell, (fx, fy) in plan:
        mouse_down(game, pixel_in(game, cell, fx, fy))
        assert game.moves[-1][1] == cell
    game.resize((320, 760))                                 # a tall window: cells shrink
    assert game.graphics.size == (320, 760)
    mouse_down(game, pixel_in(game, (1, 2), 0.8, 0.2))
    assert game.env.position.board[1, 2] == O
    mouse_down(game, pixel_in(game, (1, 2)))                # taken: ignored
    mouse_down(game, pixel_in(game, (3, 3)), button=3)      # right button: ignored
    assert len(game.moves) == 6
    mouse_down(game, pixel_in(game, (0, 3), 0.97, 0.03))    # the fourth in a row
    state = game.env.position
    assert state.end_of_game == X_WON and game.score[X_WON] == 1
    assert [cell for _, cell in game.moves[::2]] == [(0, 0), (0, 1), (0, 2), (0, 3)]
    assert status(game) == "X wins"
    mouse_down(game, pixel_in(game, (3, 3)))                # over: nothing changes
    assert game.env.position is state
    game.render()


def test_a_3x5_board_is_wide_and_plays_three_in_a_row():
    game = new_game("human", "human", WIDE, size=(480, 600))
    board = game.graphics.board
    assert board.width == 5 * game.graphics.cell and board.height == 3 * game.graphics.cell
    assert board.width > board.height
    for cell in [(2, 2), (0, 0), (2, 3), (0, 4), (2, 4)]:   # X: the bottom row's right three
        mouse_down(game, pixel_in(game, cell, 0.3, 0.7))
    assert game.env.position.end_of_game == X_WON
    assert winning_line(game.env.position) == ((2, 2), (2, 4))
    image = game.render()
    assert colour(image, pixel_in(game, (2, 3))) == WIN_LINE
    assert colour(image, pixel_in(game, (1, 3))) != WIN_LINE


def test_the_window_title_names_the_board():
    game = new_game("human", "random", FOUR)
    game.open_window()
    try:
        assert pygame.display.get_caption()[0].startswith("Tic-Tac-Toe 4x4 k=4: ")
    finally:
        game.close()


# --- the win line ------------------------------------------------------------------------------

def test_the_win_line_runs_through_all_four_marks_of_a_diagonal():
    game = new_game("human", "human", FOUR)
    for cell in [(0, 0), (0, 1), (1, 1), (0, 2), (2, 2), (0, 3), (3, 3)]:
        game.play(cell)
    state = game.env.position
    assert state.end_of_game == X_WON and winning_line(state) == ((0, 0), (3, 3))
    image = game.render()
    for i in range(4):                                      # every mark, and between them
        assert colour(image, pixel_in(game, (i, i))) == WIN_LINE
    for i in range(3):                                      # the grid's crossings on the way
        assert colour(image, pixel_in(game, (i, i), 1.0, 1.0)) == WIN_LINE
    # it reaches a little past the end marks, not to the board's corners
    cell = game.graphics.cell
    start = game.graphics.cell_rect((0, 0)).center
    assert colour(image, (start[0] - 0.15 * cell, start[1] - 0.15 * cell)) == WIN_LINE
    assert colour(image, game.graphics.board.topleft) != WIN_LINE
    for cell in [(3, 0), (1, 3), (2, 0)]:
        assert colour(image, pixel_in(game, cell)) != WIN_LINE


def test_a_line_of_three_does_not_win_four_in_a_row():
    game = new_game("human", "human", FOUR)
    for cell in [(1, 0), (2, 0), (1, 1), (2, 1), (1, 2)]:
        game.play(cell)
    assert game.env.position.end_of_game == 0 and winning_line(game.env.position) is None
    image = game.render()
    assert WIN_LINE not in {colour(image, pixel_in(game, cell)) for cell in FOUR.cells}


def test_other_boards_grid_lines_and_no_win_line_for_a_draw():
    cells = [1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1]     # 3x4 k=4 cannot be won by rows...
    draw = BoardState(BoardShape(3, 4, 4), cells)
    assert draw.end_of_game == DRAW and winning_line(draw) is None
    graphics = Graphics((500, 500), window=False)            # laid out for 3x3 ...
    image = pygame.Surface(graphics.size)
    graphics.draw(image, View(draw, "Draw", "", ""))         # ... and now for the position's board
    assert graphics.shape == BoardShape(3, 4, 4)
    board, cell = graphics.board, graphics.cell
    assert board.size == (4 * cell, 3 * cell)
    for col in range(1, 4):                                  # the grid lines between the columns
        assert colour(image, (board.left + col * cell, board.top + 2)) == GRID
    for row in range(1, 3):
        assert colour(image, (board.left + 2, board.top + row * cell)) == GRID
    assert WIN_LINE not in {colour(image, graphics.cell_rect(c).center) for c in draw.shape.cells}


# --- the H overlay -----------------------------------------------------------------------------

def ink_box(image, rect):
    """The bounding box of dark (number) pixels in the middle band of ``rect``."""
    dark = [(x, y) for x in range(rect.left, rect.right)
            for y in range(rect.top + rect.height // 4, rect.bottom - rect.height // 4)
            if sum(image.get_at((x, y))[:3]) < 200]
    xs, ys = [x for x, _ in dark], [y for _, y in dark]
    return (max(xs) - min(xs) + 1, max(ys) - min(ys) + 1) if dark else (0, 0)


def overlay_game(size):
    """advanced (X) on 4x4 with three in the top row: it would win at (0, 3)."""
    game = new_game("advanced", "human", FOUR, size=size, delay=1.0)
    for cell in [(0, 0), (3, 0), (0, 1), (3, 1), (0, 2), (2, 0)]:
        game.play(cell)
    game.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_h, mod=0, unicode="h"))
    return game


def test_the_overlay_on_4x4_shades_and_numbers_every_empty_cell():
    game = overlay_game(ODD_SIZE)
    overlay = game.overlay()
    state = game.env.position
    assert overlay.kind == "p" and set(overlay.values) == set(state.legal_actions())
    assert len(overlay.values) == 10 and max(overlay.values, key=overlay.values.get) == (0, 3)
    assert "move probabilities of advanced (X)  ·  green: its choice" in footer(game)
    image = game.render()
    largest = max(overlay.values.values())
    for cell, value in overlay.values.items():
        assert colour(image, pixel_in(game, cell, 0.12, 0.12)) == shade(value, largest)
        assert ink_box(image, game.graphics.cell_rect(cell))[0] > 0, cell   # its number
    for cell in [(0, 0), (3, 0)]:                            # marks are not shaded
        assert colour(image, pixel_in(game, cell, 0.12, 0.12)) in (BACKGROUND, LAST_MOVE)
    best = game.graphics.cell_rect((0, 3))
    assert CHOICE in {colour(image, (x, best.centery)) for x in range(best.left, best.centerx)}


def test_the_overlay_numbers_grow_with_the_cells():
    small, large = overlay_game((300, 380)), overlay_game((900, 1000))
    ratio = large.graphics.cell / small.graphics.cell
    assert ratio > 2
    sizes = []
    for game in (small, large):
        image = game.render()
        box = ink_box(image, game.graphics.cell_rect((1, 1)))
        assert 0 < box[0] <= game.graphics.cell and 0 < box[1] < game.graphics.cell / 2
        sizes.append(box[1])
    assert sizes[1] / sizes[0] == pytest.approx(ratio, rel=0.3)


# --- the command line --------------------------------------------------------------------------

def run_game_py(*args):
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    # a generous limit: it only stops a hung run, it does not time one
    return subprocess.run([sys.executable, "Game.py", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_game_py_plays_a_4x4_game_headless():
    done = run_game_py("--board", "4x4", "--k", "4", "--x", "advanced", "--o", "random",
                       "--games", "1", "--delay", "0", "--seed", "5")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    line = done.stdout.strip()
    assert line.startswith("Score: advanced (X) ") and "random (O)" in line
    assert sum(int(word) for word in line.replace("·", " ").split() if word.isdigit()) == 1


def test_game_py_refuses_a_9x9_board_in_one_line():
    done = run_game_py("--board", "9x9", "--games", "1")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "1 to 5 rows" in done.stderr


@pytest.mark.parametrize("argv, message", [
    (["--board", "4x4", "--k", "4", "--x", "Data/Q_MC_X.pth"], "not for 4x4 k=4"),
    (["--board", "3x5", "--o", "Data/Q_MC_O.pth"], "not for 3x5 k=3"),
    (["--board", "4x4", "--k", "7"], "k must be between"),
    (["--board", "four"], "--board must be ROWSxCOLS"),
    (["--board", "4x4", "--k", "x"], "--k must be a whole number"),
])
def test_bad_boards_and_tables_of_another_board_are_one_line(argv, message, capsys):
    if any(arg.startswith("Data/") and not (ROOT / arg).is_file() for arg in argv):
        pytest.skip("the shipped tables are not there yet (make data)")
    argv = [str(ROOT / arg) if arg.startswith("Data/") else arg for arg in argv]
    with pytest.raises(SystemExit) as stop:
        cli.run(lambda: game_module.main(argv + ["--games", "1", "--delay", "0"]))
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert err.count("\n") == 1 and message in err


def test_the_default_x_is_the_boards_shipped_table_else_advanced_and_help_says_so(capsys):
    game = new_game(None, "human", WIDE)
    assert game.specs[X] == OTHER_BOARD_X == "advanced"
    assert game.env.shape == WIDE and game.env.position == start_position(WIDE)
    four = new_game(None, "human", FOUR)
    assert Path(four.specs[X]).resolve() == ROOT / "Data" / "Q_ADV_X_4x4k4.pth"
    assert four.env.shape == FOUR and four.env.position == start_position(FOUR)
    assert new_game("random", "human", TIC_TAC_TOE).env.shape == TIC_TAC_TOE
    with pytest.raises(SystemExit):
        game_module.main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--board ROWSxCOLS" in out and "--k K" in out
    assert "advanced on any other board" in out and "Data/Q_ADV_X_4x4k4.pth on 4x4 k=4" in out


def test_a_computer_game_on_4x4_plays_to_the_end_by_steps():
    game = new_game("advanced", "random", FOUR, delay=0.5)
    game.games = 1
    clock = game.clock
    for _ in range(200):
        if not game.running:
            break
        clock.now += 0.5
        game.step()
        game.render()
    assert not game.running and game.games_finished == 1
    assert game.env.position.end_of_game in (X_WON, O_WON, DRAW)
    assert len(game.moves) <= 16
