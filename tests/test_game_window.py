"""The game window on real machines: no display, quitting mid-search, idle drawing, the finished
board with a person playing, screenshot paths, default paths, and what the board shows.

Headless throughout (the dummy video driver); the commands that check the same under a real X
server are in the closing note of the hardening issue.
"""

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pygame
import pytest

from Game import HUMAN_PAUSE, Game
from Graphics import Graphics
from tictactoe_rl.gui.captions import footer
from tictactoe_rl.gui.display import NoDisplay, screenshot_problem
from tictactoe_rl.gui.paint import CHOICE, WIN_LINE
from tictactoe_rl.gui.values import PROBABILITIES, Overlay, best_cells, format_value
from State import EMPTY, O, X, X_WON, State
from tools.benchmarks.quit import quit_during_search

ROOT = Path(__file__).resolve().parent.parent
ALL = [(row, col) for row in range(3) for col in range(3)]
GAME_PY = ROOT / "Game.py"
LINUX = sys.platform.startswith("linux")
QUIT_BOUND = 20.0   # seconds from a quit to the end of the process: it ended, not "how fast"


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def make_game(x_spec, o_spec, delay=0.0):
    clock = FakeClock()
    return Game(x_spec, o_spec, delay=delay, clock=clock, background=False), clock


def click(game, cell):
    game.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN,
                                   pos=game.graphics.cell_rect(cell).center, button=1))


def headless_env(**changes):
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy",
               PYGAME_HIDE_SUPPORT_PROMPT="1")
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


# --- no display: one line and status 2, not an invisible game -------------------------------------

@pytest.mark.skipif(not LINUX, reason="the display variables are a Linux matter")
def test_no_display_is_one_line_and_status_2(tmp_path):
    env = headless_env(SDL_VIDEODRIVER=None, DISPLAY=None, WAYLAND_DISPLAY=None)
    done = subprocess.run([sys.executable, str(GAME_PY), "--x", "random", "--o", "random"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "no display" in done.stderr and "SDL_VIDEODRIVER=dummy" in done.stderr


@pytest.mark.skipif(not LINUX, reason="the display variables are a Linux matter")
@pytest.mark.parametrize("driver", [None, "x11"])
def test_a_display_that_does_not_answer_is_one_line_naming_it(tmp_path, driver):
    # DISPLAY names no X server; without XDG_RUNTIME_DIR SDL's other drivers would complain too;
    # asking for the X driver by name still names the display it tried
    env = headless_env(SDL_VIDEODRIVER=driver, DISPLAY=":4242", WAYLAND_DISPLAY=None,
                       XDG_RUNTIME_DIR=None)
    done = subprocess.run([sys.executable, str(GAME_PY), "--x", "random", "--o", "random"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("error: cannot open the display DISPLAY=:4242 ")
    assert "SDL_VIDEODRIVER=dummy" in done.stderr and "offscreen" not in done.stderr


@pytest.mark.parametrize("argv, words", [
    ([], "nobody can click a move"),       # the default: the shipped X table against you
    pytest.param(["--x", "human", "--o", "random", "--games", "2"], "nobody can click a move",
                 marks=pytest.mark.slow),
    pytest.param(["--x", "random", "--o", "random"], "give --games N", marks=pytest.mark.slow)])
def test_an_unseen_game_that_could_never_end_is_refused_in_one_line(argv, words):
    """SDL_VIDEODRIVER=dummy, as the no-display hint says: a person cannot click in a window
    nobody sees, nor close it (each of these once waited for ever)."""
    done = run_game_py(*argv)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: with SDL_VIDEODRIVER=dummy no window is shown")
    assert words in done.stderr


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_play_without_a_display_ends_with_the_reason():
    """``SDL_VIDEODRIVER=dummy make play``, the first thing a newcomer on a server tries."""
    done = subprocess.run(["make", "-s", "-o", ".venv/.installed", f"PY={sys.executable}",
                           "play"], cwd=ROOT, env=headless_env(), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.splitlines()[0].startswith("error: with SDL_VIDEODRIVER=dummy no window")
    assert "two computer players" in done.stderr


@pytest.mark.skipif(not LINUX, reason="the display variables are a Linux matter")
def test_the_course_window_says_why_there_is_none(monkeypatch):
    for name in ("SDL_VIDEODRIVER", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(NoDisplay, match="SDL_VIDEODRIVER=dummy"):
        Graphics()
    assert not pygame.display.get_init()


# --- quitting during a slow search ends the process, not waiting for the search ----------------

@pytest.mark.slow
@pytest.mark.parametrize("how, status", [pytest.param("escape", 0, marks=pytest.mark.slow),
                                         ("close", 0),
                                         pytest.param("sigint", 130, marks=pytest.mark.slow)])
def test_quitting_during_a_slow_search_ends_the_process_without_waiting_for_it(how, status):
    """The first move's search would take hours, so a process that ends within QUIT_BOUND of
    the quit did not wait for it, however busy the machine (how fast: tools/benchmarks/quit.py)."""
    run = quit_during_search(how, wait=3 * QUIT_BOUND)
    assert run.said == "searching\n", run.said + run.err
    assert run.status == status, run.err
    assert run.seconds <= QUIT_BOUND, f"the process ended {run.seconds:.2f} s after the quit"
    # Ctrl-C prints it too
    assert run.out == "Score: playout (X) 0  ·  random (O) 0  ·  draws 0\n"
    assert ("Interrupted." in run.err) == (how == "sigint") and "Traceback" not in run.err


def play_out(background, games=3):
    """Play ``games`` seeded games; return the game and every move played, in order."""
    game = Game("playout:pnum=30", "random+advanced", seed=11, delay=0.0, games=games,
                background=background)
    moves, play = [], game.play
    game.play = lambda action: (moves.append(action), play(action))
    deadline = time.monotonic() + 60
    try:
        while game.running and time.monotonic() < deadline:
            game.step()
            time.sleep(0.0005 if background else 0)
    finally:
        game.close()
    return game, moves


def test_the_worker_thread_gives_the_same_moves_as_asking_directly():
    direct, direct_moves = play_out(background=False)
    threaded, threaded_moves = play_out(background=True)
    assert threaded.games_finished == direct.games_finished == 3
    assert threaded_moves == direct_moves and threaded.score == direct.score
    assert len(direct_moves) >= 15


# --- idle: the window is drawn only when something changed ----------------------------------------

@pytest.mark.slow
def test_an_idle_window_is_not_drawn_again_and_a_click_is(monkeypatch):
    game = Game("human", "human", delay=0.0)
    draws = []
    draw = game.graphics.draw
    monkeypatch.setattr(game.graphics, "draw", lambda surface, view: (draws.append(view),
                                                                      draw(surface, view)))

    def visitor():
        time.sleep(1.0)                                     # 30 frames of nothing happening
        centre = game.graphics.cell_rect((1, 1)).center
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=centre, button=1))
        time.sleep(0.5)
        pygame.event.post(pygame.event.Event(pygame.QUIT))

    game.open_window()
    try:
        pygame.event.clear()
        threading.Thread(target=visitor, daemon=True).start()
        game.run()
    finally:
        game.close()
    assert game.env.position.board[1, 1] == X
    assert len(draws) == 2                                  # the empty board, then after the click
    assert draws[0].state == State() and draws[1].state.board[1, 1] == X


# --- a finished game stays up when a person plays, even at --delay 0 ------------------------------

def test_with_a_person_and_delay_0_the_result_stays_and_late_clicks_do_nothing():
    game, clock = make_game("human", "human", delay=0.0)
    for cell in [(0, 0), (1, 1), (0, 1), (2, 2), (0, 2)]:
        click(game, cell)
    final = game.env.position
    assert final.end_of_game == X_WON
    clock.now += HUMAN_PAUSE - 0.01
    game.step()
    for cell in [(2, 0), (1, 0)]:                           # a double click after the win
        click(game, cell)
    game.step()
    assert game.env.position is final
    clock.now = HUMAN_PAUSE
    game.step()
    assert game.env.position == State() and game.moves == []   # the next game, untouched
    click(game, (2, 1))
    assert game.moves == [(State(), (2, 1))]
    game.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_r, mod=0, unicode="r"))
    assert game.env.position == State()                     # R: the next game at once


def test_computers_alone_at_delay_0_go_on_at_once():
    game, clock = make_game("random", "advanced", delay=0.0)
    while not game.env.position.end_of_game:
        game.step()
    game.step()
    assert game.pause() == 0.0 and game.moves == [] and game.games_finished == 1


def test_the_computers_values_stay_up_after_its_move_until_the_next_move_or_key():
    game, clock = make_game("advanced", "human", delay=0.5)
    game.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_h, mod=0, unicode="h"))
    thought = game.overlay()                                 # X's values on its turn
    assert thought is not None and thought.kind == PROBABILITIES
    clock.now = 0.5
    game.step()                                              # X moves
    moved = game.moves[-1][1]
    clock.now = 60.0                                         # however long you look at them
    game.step()
    assert game.env.position.player == O and game.overlay() is thought
    assert game.view().overlay is thought and "kept from its move" in footer(game)
    image = game.render()
    empty = next(cell for cell in thought.values if cell != moved)
    assert tuple(image.get_at(game.graphics.cell_rect(empty).center))[:3] != \
        tuple(Game("human", "human", background=False).render().get_at(
            game.graphics.cell_rect(empty).center))[:3]      # still shaded
    game.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_SPACE, mod=0, unicode=" "))
    assert game.overlay() is None and "on its turn" in footer(game)   # a key: gone
    clock.now = 61.0
    game.step()
    click(game, next(cell for cell in ALL if game.env.legal(game.env.position, cell)))
    clock.now = 61.5
    game.step()                                              # X moves again, values kept again
    assert game.env.position.player == O and game.overlay() is not None
    click(game, next(cell for cell in ALL if game.env.legal(game.env.position, cell)))
    assert game.overlay() is not thought and game.env.position.player == X   # your move: X's new


# --- --screenshot: checked before the game starts -------------------------------------------------

def read_only_folder(tmp_path):
    if os.geteuid() != 0:
        folder = tmp_path / "read-only"
        folder.mkdir()
        folder.chmod(0o555)
        return folder
    if os.path.isdir("/sys"):
        return Path("/sys")   # root may write anywhere but on a read-only file system
    pytest.skip("no read-only folder for root here")


def run_game_py(*args, cwd=ROOT):
    return subprocess.run([sys.executable, str(GAME_PY), *args], cwd=cwd, env=headless_env(),
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("where, message", [
    ("folder", "is a folder"), ("read-only", "cannot write"), ("missing", "does not exist"),
    ("jpeg", "must end in .png")])
def test_a_screenshot_path_that_cannot_be_written_is_refused_before_the_game(where, message,
                                                                             tmp_path):
    (tmp_path / "shots.png").mkdir()
    path = {"folder": tmp_path / "shots.png", "read-only": read_only_folder(tmp_path) / "shot.png",
            "missing": tmp_path / "nowhere" / "shot.png", "jpeg": tmp_path / "shot.jpg"}[where]
    done = run_game_py("--x", "random", "--o", "random", "--games", "1", "--delay", "0",
                       "--screenshot", str(path))
    assert done.returncode == 2 and done.stdout == ""       # no game was played
    assert done.stderr.count("\n") == 1 and "--screenshot" in done.stderr and message in done.stderr


@pytest.mark.slow
def test_a_screenshot_is_saved_and_the_check_leaves_files_alone(tmp_path):
    path = tmp_path / "shot.png"
    done = run_game_py("--x", "random", "--o", "random", "--games", "1", "--delay", "0",
                       "--seed", "4", "--screenshot", str(path))
    assert done.returncode == 0, done.stderr
    assert pygame.image.load(str(path)).get_size() == (480, 600)
    before = path.read_bytes()
    assert screenshot_problem(str(path)) is None and path.read_bytes() == before
    assert screenshot_problem(str(tmp_path / "new.png")) is None
    assert not (tmp_path / "new.png").exists()


# --- the shipped table is found from any folder ---------------------------------------------------

@pytest.mark.slow
def test_the_default_table_is_found_from_another_folder(tmp_path):
    if not (ROOT / "Data" / "Q_MC_X.pth").is_file():
        pytest.skip("Data/Q_MC_X.pth is not there yet (make data)")
    done = run_game_py("--o", "random", "--games", "2", "--delay", "0", "--seed", "3", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Score: Q_MC_X (X) ") and " random (O) 0 " in done.stdout


# --- what the board shows -----------------------------------------------------------------------

def test_the_win_line_is_drawn_over_the_marks_in_its_own_colour():
    game, _ = make_game("human", "human")
    for cell in [(0, 0), (1, 1), (0, 1), (2, 2), (0, 2)]:   # X wins the top row
        click(game, cell)
    image = game.render()
    centre = game.graphics.cell_rect((0, 1)).center         # where the X strokes cross
    assert tuple(image.get_at(centre))[:3] == WIN_LINE
    assert tuple(image.get_at(game.graphics.cell_rect((1, 1)).center))[:3] != WIN_LINE


def test_probabilities_are_written_so_that_they_add_up():
    assert [format_value(p, PROBABILITIES) for p in (0.5, 0.04, 0.125, 1 / 3, 1.0)] == \
        ["50%", "4%", "12.5%", "33.3%", "100%"]
    eight = [float(format_value(1 / 8, PROBABILITIES)[:-1])] * 8
    assert sum(eight) == 100
    game, _ = make_game("human", "random")
    click(game, (1, 1))                                     # eight cells left for O
    game.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_h, mod=0, unicode="h"))
    overlay = game.overlay()
    assert overlay.kind == PROBABILITIES and len(overlay.values) == 8
    assert {format_value(p, overlay.kind) for p in overlay.values.values()} == {"12.5%"}
    assert "all moves equal" in footer(game)


def outlined(game, image, cell):
    rect = game.graphics.cell_rect(cell)
    return CHOICE in [tuple(image.get_at((x, rect.centery)))[:3]
                      for x in range(rect.left, rect.centerx)]


def test_the_footer_says_when_cells_tie_for_best(monkeypatch):
    game, _ = make_game("random", "human")
    game.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_h, mod=0, unicode="h"))
    cells = State().legal_actions()
    tied = dict.fromkeys(cells, 0.1) | {(0, 0): 0.6, (2, 2): 0.6}
    for values, words, best in [(tied, "2 cells tie for best", {(0, 0), (2, 2)}),
                                (tied | {(2, 2): 0.5}, "green: its choice", {(0, 0)})]:
        future = game.values_future()
        monkeypatch.setattr(future, "result", lambda values=values: Overlay(values, "p"))
        assert words in footer(game)
        image = game.render()
        assert {cell for cell in cells if outlined(game, image, cell)} == best


def test_a_click_goes_from_the_window_to_the_board_without_asking_the_agent(monkeypatch):
    game, _ = make_game("human", "random")
    human = game.agents[X]
    monkeypatch.setattr(type(human), "__call__", lambda *args: pytest.fail("asked the agent"))
    click(game, (2, 1))
    assert game.moves == [(State(), (2, 1))]
    assert game.env.position.board[2, 1] == X and game.env.position.player == O
    assert all(game.env.position.board[cell] == EMPTY for cell in [(0, 0), (1, 1)])


def test_after_the_computers_move_the_outline_is_on_the_move_it_played_and_framed_as_last():
    """H on: the values stay up after the computer's move; the green outline marks the cell it
    played (its values were of the position before), not the best cell left, and the last move
    has an amber frame; the footer says what both mean."""
    from tictactoe_rl.gui.paint import LAST_MOVE_FRAME
    game, clock = make_game(str(ROOT / "Data" / "Q_MC_X.pth"), "human", delay=0.5)
    game.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_h, mod=0, unicode="h"))
    before = game.overlay()
    clock.now = 0.5
    game.step()                                              # X moves by its table
    moved = game.moves[-1][1]
    assert game.overlay() is before and moved == max(before.values, key=before.values.get)
    image = game.render()
    empty = [cell for cell in before.values if cell != moved]
    best = set(best_cells(before.values))
    assert moved in best and outlined(game, image, moved)
    assert {cell for cell in empty if outlined(game, image, cell)} == best - {moved}
    rect = game.graphics.cell_rect(moved)
    edge = {tuple(image.get_at((x, rect.centery)))[:3] for x in range(rect.left, rect.centerx)}
    assert LAST_MOVE_FRAME in edge
    assert not any(LAST_MOVE_FRAME in {tuple(image.get_at((x, game.graphics.cell_rect(cell)
                                                           .centery)))[:3]
                                       for x in range(game.graphics.cell_rect(cell).left,
                                                      game.graphics.cell_rect(cell).centerx)}
                   for cell in empty)
    said = footer(game)
    assert ("green: its choice" in said if len(best) == 1 else
            f"green: {len(best)} cells tie for best" in said), said
    assert "kept from its move" in said and "amber: last move" in said
    click(game, empty[0])                                    # your move: now the last one
    image = game.render()
    rect = game.graphics.cell_rect(empty[0])
    assert LAST_MOVE_FRAME in {tuple(image.get_at((x, rect.centery)))[:3]
                               for x in range(rect.left, rect.centerx)}
