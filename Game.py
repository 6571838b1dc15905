"""Play Tic-Tac-Toe in a window: you against the trained agent, or any two players.

    python Game.py                                     # the shipped X table against you (O)
    python Game.py --x human --o Data/Q_MC_O.pth       # you play X
    python Game.py --x Data/Q_MC_X.pth --o advanced    # watch two computer players
    python Game.py --x human --o human                 # two people, one mouse
    python Game.py --board 4x4 --k 4                   # four in a row: an X no line beats

Click an empty cell to move. R starts a new game, H shows what the computer thinks of each empty
cell (its Q-values, or its move probabilities; they stay up after its move until the next move or
key), Esc, Ctrl-C or closing the window quits. ``--board``/``--k`` play any board up to 5x5; X is
a shipped table on 3x3 and on 4x4 k=4 (there one that no line of play beats,
``Data/Q_ADV_X_4x4k4.pth``), and ``advanced`` on any other board, unless ``--x`` says otherwise.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import Future
from typing import Callable

# pygame greets on import unless told not to; scripts should print only their own output.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame

from tictactoe_rl import cli
from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from tictactoe_rl.boards.flags import add_board_flags, board_from
from Graphics import DEFAULT_SIZE, TITLE, Graphics, View
from tictactoe_rl.gui import captions
from tictactoe_rl.gui.display import (NoDisplay, open_window, save_screenshot, screenshot_problem,
                                      unseen_game_problem)
from tictactoe_rl.gui.loop import RESIZE_EVENTS, event_loop
from tictactoe_rl.gui.thinking import Thinking
from tictactoe_rl.gui.values import Overlay
from Human_Agent import LEFT_BUTTON, Human_Agent
from tictactoe_rl.players.specs import make_agent
from tictactoe_rl.tables.shipped import DEFAULT_X_TABLES
from State import DRAW, O, O_WON, X, X_WON, State, symbol
from TicTacToe import Action, TicTacToe

DEFAULT_O = "human"
OTHER_BOARD_X = "advanced"   # X on a board no shipped table fits
DEFAULT_DELAY = 1.5      # seconds a finished game stays on screen
HUMAN_PAUSE = 1.0        # ... and at least this long when a person plays, even with --delay 0
THINK_SHARE = 1 / 3      # the computer's pause before a move, as a share of the delay


def default_x(board: BoardShape) -> str:
    """X's player when none is named: the board's shipped table, ``OTHER_BOARD_X`` on a board
    that has none."""
    table = DEFAULT_X_TABLES.get(board)
    return OTHER_BOARD_X if table is None else cli.repository_file(table)


class Game:
    """One window's worth of games between the players named by ``x_spec`` and ``o_spec``.

    The loop is split so that tests can drive it with synthetic events and their own ``clock``:
    ``handle(event)`` reacts to one pygame event, ``step()`` lets the computer move and starts the
    next game when it is time, ``render()`` draws. ``run()`` repeats these until the window is
    closed or ``games`` games have been played.

    The games are on ``board``; ``x_spec`` defaults to ``default_x(board)``. A table or network
    of another board is refused with a one-line ``ValueError``.

    The rules live in ``TicTacToe``: every move goes through ``env.move``, which refuses illegal
    ones, and only the player to move is asked for a move, so nobody moves out of turn or twice and
    a finished game never changes. A click reaches the board in one step: ``handle`` asks
    ``graphics.calc_row_col`` for the cell and plays it if a person is to move and it is empty.
    Computer players are asked on a worker thread (``background``), so a slow one never freezes
    the window and quitting never waits for it; ``background=False`` asks them directly (tests).
    """

    def __init__(self, x_spec: str | None = None, o_spec: str = DEFAULT_O,
                 seed: int | None = None, delay: float = DEFAULT_DELAY, games: int | None = None,
                 size: tuple[int, int] = DEFAULT_SIZE, clock: Callable[[], float] = time.monotonic,
                 background: bool = True, board: BoardShape = TIC_TAC_TOE) -> None:
        self.env = TicTacToe(board=board)
        # laid out for the board from the start: a click may come before the first frame
        self.graphics = Graphics(size, window=False, shape=board)
        self.specs = {X: default_x(board) if x_spec is None else x_spec, O: o_spec}
        self.agents = {side: make_agent(spec, side, self.env, graphics=self.graphics,
                                        seed=None if seed is None else f"{seed}:{symbol(side)}")
                       for side, spec in self.specs.items()}
        self.delay = delay
        self.games = games
        self.clock = clock
        self.score = {X_WON: 0, O_WON: 0, DRAW: 0}
        self.games_finished = 0
        self.show_values = False
        self.kept_overlay: Overlay | None = None   # the values the last computer moved by
        self.running = True
        self.screen: pygame.Surface | None = None
        self.thinking = Thinking(background)
        self.new_game()

    # --- who is who --------------------------------------------------------------------------------
    def is_human(self, side: int) -> bool:
        """Whether ``side`` is played by a person (moves by clicking)."""
        return isinstance(self.agents[side], Human_Agent)

    def is_you(self, side: int) -> bool:
        """Whether ``side`` is the one person playing against the computer."""
        return self.is_human(side) and not self.is_human(-side)

    # --- the game ----------------------------------------------------------------------------------
    def new_game(self) -> None:
        """Start a new game on the empty board (an unfinished game is dropped, not scored)."""
        self.env.reset()
        self.moves: list[tuple[State, Action]] = []
        self.finished_at: float | None = None
        self.turn_started = self.clock()
        self.kept_overlay = None
        self.thinking.forget()

    def play(self, action: Action) -> None:
        """Play ``action`` for the side to move (``env.move`` refuses an illegal one)."""
        before = self.env.position
        # a computer's values stay up after its move, until the next move or key
        kept = None if self.is_human(before.player) else self.overlay()
        state, _ = self.env.move(action)
        self.kept_overlay = kept
        self.moves.append((before, action))
        self.turn_started = self.clock()
        if state.end_of_game:
            self.score[state.end_of_game] += 1
            self.games_finished += 1
            self.finished_at = self.turn_started

    def think_time(self) -> float:
        """The computer's pause before moving; with the values shown, long enough to read them."""
        return self.delay if self.show_values else self.delay * THINK_SHARE

    def pause(self) -> float:
        """How long a finished game stays on screen: ``delay``, and at least ``HUMAN_PAUSE`` when a
        person plays, so the result is always seen and late clicks never reach the next game."""
        if self.is_human(X) or self.is_human(O):
            return max(self.delay, HUMAN_PAUSE)
        return self.delay

    def handle(self, event: pygame.event.Event) -> None:
        """React to one event: quit, a key (R, H, Esc), a new window size, or a click."""
        if not self.running:
            return
        if event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.KEYDOWN:
            self.kept_overlay = None
            if event.key == pygame.K_ESCAPE:
                self.running = False
            elif event.key == pygame.K_r:
                self.new_game()
            elif event.key == pygame.K_h:
                self.show_values = not self.show_values
        elif event.type in RESIZE_EVENTS:
            self.resize(event.size if event.type == pygame.VIDEORESIZE else (event.x, event.y))
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == LEFT_BUTTON:
            state = self.env.position
            if not state.end_of_game and self.is_human(state.player):
                cell = self.graphics.calc_row_col(event.pos)
                if cell is not None and self.env.legal(state, cell):
                    self.play(cell)

    def step(self) -> None:
        """Let the computer move once its pause is over; start the next game (or stop after
        ``games`` games) once a finished game has been shown for ``pause()`` seconds."""
        if not self.running:
            return
        now, state = self.clock(), self.env.position
        if state.end_of_game:
            if now - self.finished_at >= self.pause():
                if self.games is not None and self.games_finished >= self.games:
                    self.running = False
                else:
                    self.new_game()
            return
        if self.is_human(state.player):
            return
        self.values_future()  # with H on, the values are worked out first, then the move
        future = self.thinking.move(self.agents[state.player], state)
        if future.done() and now - self.turn_started >= self.think_time():
            self.play(future.result())

    # --- what the window shows ---------------------------------------------------------------------
    def overlay(self) -> Overlay | None:
        """With H on: the values of the computer to move once they are ready; on a person's turn
        the values the computer moved by, until the next move or key. Else ``None``."""
        future = self.values_future()
        if future is not None:
            return future.result() if future.done() else None
        if not self.show_values or self.env.position.end_of_game:
            return None
        return self.kept_overlay

    def values_future(self) -> Future | None:
        """The values of the computer to move, asked for once per position while H is on."""
        state = self.env.position
        if not self.show_values or state.end_of_game or self.is_human(state.player):
            return None
        return self.thinking.values(self.agents[state.player], state)

    def view(self) -> View:
        """Everything the window shows now."""
        last = self.moves[-1][1] if self.moves else None
        return View(self.env.position, captions.status(self), captions.score_line(self),
                    captions.footer(self), self.overlay(), last)

    def render(self, surface: pygame.Surface | None = None) -> pygame.Surface:
        """Draw the game onto ``surface`` (default: the window, or a new image if there is none)."""
        target = surface or self.screen or pygame.Surface(self.graphics.size)
        self.graphics.draw(target, self.view())
        return target

    # --- the window --------------------------------------------------------------------------------
    def resize(self, size: tuple[int, int]) -> None:
        """Lay everything out for a new window size. With the window open, its own surface says
        the size (pygame 2 has already resized it, in the same window); else ``size`` does."""
        if self.screen is not None:
            self.screen = pygame.display.get_surface()
            size = self.screen.get_size()
        self.graphics.resize(size)

    def open_window(self) -> None:
        """Open the window: ``NoDisplay`` if it could only be unseen, ``pygame.error`` if SDL
        cannot open one."""
        players = f"{captions.label(self, X)} against {captions.label(self, O)}"
        title = TITLE if self.env.shape == TIC_TAC_TOE else f"{TITLE} {self.env.shape.name}"
        self.screen = open_window(self.graphics.size, f"{title}: {players}", resizable=True)

    def close(self) -> None:
        """Close the window and abandon any computer move still being worked out."""
        self.thinking.close()
        if self.screen is not None:
            pygame.display.quit()
            self.screen = None

    def run(self) -> int:
        """Show the window and play until it is closed or ``games`` games are done; return the
        number of finished games. Idle, it only looks for events: it paints the window when the
        game changed or the window asks to be painted."""
        if self.screen is None:
            self.open_window()
        event_loop(self)   # tictactoe_rl/gui/loop.py
        return self.games_finished


def main(argv: list[str] | None = None) -> int:
    """The command line: parse, open the window, play, print the final score (also after Ctrl-C,
    which then exits with status 130)."""
    parser = cli.Parser(prog="Game.py", description=__doc__.split("\n\n")[0],
                        epilog="In the window: click an empty cell to move, R starts a new game, "
                               "H shows the computer's values on the board (they stay up after "
                               "its move until the next move or key), Esc, Ctrl-C or "
                               "closing the window quits.")
    parser.add_argument("--x", default=None, metavar="SPEC",
                        help="who plays X: human, random, advanced, minimax, playout, mcts, a "
                             "Q-table path or a DQN network (dqn:PATH) (default: the table "
                             "shipped for the board, beside Game.py: "
                             + "; ".join(f"{table} on {board.name}"
                                         for board, table in DEFAULT_X_TABLES.items())
                             + f"; {OTHER_BOARD_X} on any other board)")
    parser.add_argument("--o", default=DEFAULT_O, metavar="SPEC",
                        help=f"who plays O, likewise (default: {DEFAULT_O})")
    parser.add_argument("--games", type=cli.count, default=None, metavar="N",
                        help="stop after this many games (default: play until the window closes)")
    parser.add_argument("--delay", type=cli.seconds, default=DEFAULT_DELAY, metavar="S",
                        help=f"seconds a finished game stays on screen (at least {HUMAN_PAUSE:g} "
                             f"when a person plays); the computer pauses a third of this before "
                             f"each move (default: {DEFAULT_DELAY}; 0 = full speed)")
    add_board_flags(parser)
    parser.add_argument("--seed", type=cli.seed, default=None, metavar="N",
                        help="random seed for the computer players (default: a fresh one)")
    parser.add_argument("--screenshot", type=cli.path, default=None, metavar="PATH",
                        help="save the window as a PNG image when the game closes")
    args = parser.parse_args(argv)
    board = board_from(args)
    if args.screenshot is not None and (problem := screenshot_problem(args.screenshot)):
        parser.error(f"--screenshot: {problem}")
    # A table or network of another board raises a one-line ValueError here: cli.run shows it.
    game = Game(args.x, args.o, seed=args.seed, delay=args.delay, games=args.games, board=board)
    # a window nobody sees (the no-display hint's SDL_VIDEODRIVER=dummy) must end by itself
    unseen = unseen_game_problem(game.is_human(X) or game.is_human(O), args.games)
    if unseen:
        game.close()
        cli.fail(f"error: {unseen}")
    interrupted = None
    try:
        try:
            game.open_window()
        except NoDisplay as error:
            cli.fail(f"error: {error}")
        except pygame.error as error:
            cli.fail(f"error: cannot open a window ({error}); on a machine without a display "
                     "set SDL_VIDEODRIVER=dummy")
        try:
            game.run()
        except KeyboardInterrupt as interrupt:
            interrupted = interrupt
        unsaved = args.screenshot is not None and save_screenshot(game.screen, args.screenshot)
    finally:
        game.close()
    print(f"Score: {captions.score_line(game)}")
    if interrupted:
        raise interrupted  # cli.run says "Interrupted." and exits with status 130 (143: SIGTERM)
    if unsaved:
        cli.fail(f"error: --screenshot: {unsaved}")
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
