"""Play Tic-Tac-Toe in a window: you against the trained agent, or any two players.

    python Game.py                                     # the shipped X table against you (O)
    python Game.py --x human --o Data/Q_MC_O.pth       # you play X
    python Game.py --x Data/Q_MC_X.pth --o advanced    # watch two computer players
    python Game.py --x human --o human                 # two people, one mouse

Click an empty cell to move. R starts a new game, H shows what the computer thinks of each empty
cell (its Q-values, or its move probabilities), Esc or closing the window quits.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable

# pygame greets on import unless told not to; scripts should print only their own output.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame

import cli
from Agent import PolicyUnknown
from players.specs import is_table_path, make_agent, parse_spec
from Graphics import (DEFAULT_SIZE, PROBABILITIES, Q_VALUES, SEARCH_SCORES, TITLE, VALUE_NAMES,
                      Graphics, Overlay, View)
from Human_Agent import Human_Agent
from State import DRAW, O, O_WON, X, X_WON, State, symbol
from TicTacToe import Action, TicTacToe

DEFAULT_X = "Data/Q_MC_X.pth"
DEFAULT_O = "human"
DEFAULT_DELAY = 1.5      # seconds a finished game stays on screen
THINK_SHARE = 1 / 3      # the computer's pause before a move, as a share of the delay
FRAMES_PER_SECOND = 30


def computer_values(agent, state: State) -> Overlay | None:
    """What ``agent`` thinks of each legal move in ``state``: its Q-values if it has a Q-table,
    the scores it chooses by if it is a search agent (``analyse``), otherwise its move
    probabilities; ``None`` if it cannot say."""
    if hasattr(agent, "get_Q"):
        return Overlay({action: agent.get_Q(state, action) for action in state.legal_actions()},
                       Q_VALUES)
    if hasattr(agent, "analyse"):
        return Overlay(dict(agent.analyse(state)), SEARCH_SCORES)
    try:
        probs = agent.action_probs(state)
    except PolicyUnknown:
        return None
    return Overlay({action: probs.get(action, 0.0) for action in state.legal_actions()},
                   PROBABILITIES)


def short_name(spec: str) -> str:
    """A spec as the header shows it: a table by its file name, an agent by its name."""
    if is_table_path(spec.strip()):
        return os.path.splitext(os.path.basename(spec.strip()))[0]
    return parse_spec(spec)[0]


class Game:
    """One window's worth of games between the players named by ``x_spec`` and ``o_spec``.

    The loop is split so that tests can drive it with synthetic events and their own ``clock``:
    ``handle(event)`` reacts to one pygame event, ``step()`` lets the computer move and starts the
    next game when it is time, ``render()`` draws. ``run()`` repeats these until the window is
    closed or ``games`` games have been played.

    The rules live in ``TicTacToe``: every move goes through ``env.move``, which refuses illegal
    ones, and only the player to move is asked for a move, so nobody moves out of turn or twice and
    a finished game never changes. Computer players are asked on a worker thread (``background``),
    so a slow one never freezes the window; ``background=False`` asks them directly (for tests).
    """

    def __init__(self, x_spec: str = DEFAULT_X, o_spec: str = DEFAULT_O, seed: int | None = None,
                 delay: float = DEFAULT_DELAY, games: int | None = None,
                 size: tuple[int, int] = DEFAULT_SIZE, clock: Callable[[], float] = time.monotonic,
                 background: bool = True) -> None:
        self.env = TicTacToe()
        self.graphics = Graphics(size, window=False)
        self.specs = {X: x_spec, O: o_spec}
        self.agents = {side: make_agent(spec, side, self.env, graphics=self.graphics,
                                        seed=None if seed is None else f"{seed}:{symbol(side)}")
                       for side, spec in self.specs.items()}
        self.delay = delay
        self.games = games
        self.clock = clock
        self.score = {X_WON: 0, O_WON: 0, DRAW: 0}
        self.games_finished = 0
        self.show_values = False
        self.running = True
        self.screen: pygame.Surface | None = None
        self._executor = ThreadPoolExecutor(max_workers=1) if background else None
        self.new_game()

    # --- who is who --------------------------------------------------------------------------------
    def is_human(self, side: int) -> bool:
        """Whether ``side`` is played by a person (moves by clicking)."""
        return isinstance(self.agents[side], Human_Agent)

    def is_you(self, side: int) -> bool:
        """Whether ``side`` is the one person playing against the computer."""
        return self.is_human(side) and not self.is_human(-side)

    def label(self, side: int) -> str:
        """How the header names ``side``: "You (O)", "X" (two people) or "Q_MC_X (X)"."""
        if self.is_you(side):
            return f"You ({symbol(side)})"
        if self.is_human(side):
            return symbol(side)
        return f"{short_name(self.specs[side])} ({symbol(side)})"

    # --- the game ----------------------------------------------------------------------------------
    def new_game(self) -> None:
        """Start a new game on the empty board (an unfinished game is dropped, not scored)."""
        self.env.reset()
        self.moves: list[tuple[State, Action]] = []
        self.finished_at: float | None = None
        self.turn_started = self.clock()
        self._pending: tuple[State, Future] | None = None
        self._values: dict[State, Future] = {}

    def play(self, action: Action) -> None:
        """Play ``action`` for the side to move (``env.move`` refuses an illegal one)."""
        before = self.env.position
        state, _ = self.env.move(action)
        self.moves.append((before, action))
        self.turn_started = self.clock()
        if state.end_of_game:
            self.score[state.end_of_game] += 1
            self.games_finished += 1
            self.finished_at = self.turn_started

    def think_time(self) -> float:
        """The computer's pause before moving; with the values shown, long enough to read them."""
        return self.delay if self.show_values else self.delay * THINK_SHARE

    def handle(self, event: pygame.event.Event) -> None:
        """React to one event: quit, a key (R, H, Esc), a new window size, or a click."""
        if not self.running:
            return
        if event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.KEYDOWN:
            if event.key == pygame.K_ESCAPE:
                self.running = False
            elif event.key == pygame.K_r:
                self.new_game()
            elif event.key == pygame.K_h:
                self.show_values = not self.show_values
        elif event.type == pygame.VIDEORESIZE:
            self.resize((event.w, event.h))
        elif event.type == pygame.MOUSEBUTTONDOWN:
            state = self.env.position
            if not state.end_of_game and self.is_human(state.player):
                action = self.agents[state.player]([event], state)
                if action is not None:
                    self.play(action)

    def step(self) -> None:
        """Let the computer move once its pause is over; start the next game (or stop after
        ``games`` games) once a finished game has been shown for ``delay`` seconds."""
        if not self.running:
            return
        now, state = self.clock(), self.env.position
        if state.end_of_game:
            if now - self.finished_at >= self.delay:
                if self.games is not None and self.games_finished >= self.games:
                    self.running = False
                else:
                    self.new_game()
            return
        if self.is_human(state.player):
            return
        if self._pending is None or self._pending[0] is not state:
            self._values_future()  # with H on, the values are worked out first, then the move
            self._pending = (state, self._ask(self.agents[state.player], None, state))
        future = self._pending[1]
        if future.done() and now - self.turn_started >= self.think_time():
            self._pending = None
            self.play(future.result())

    def _ask(self, function: Callable, *args) -> Future:
        """Run ``function(*args)`` on the worker thread (or right here without one)."""
        if self._executor is not None:
            return self._executor.submit(function, *args)
        future: Future = Future()
        try:
            future.set_result(function(*args))
        except Exception as error:  # handed on to whoever reads the result, as a worker would
            future.set_exception(error)
        return future

    # --- what the window shows ---------------------------------------------------------------------
    def overlay(self) -> Overlay | None:
        """The values of the computer to move, when H is on and they are ready; else ``None``."""
        future = self._values_future()
        return future.result() if future is not None and future.done() else None

    def _values_future(self) -> Future | None:
        """The values of the computer to move, asked for once per position while H is on."""
        state = self.env.position
        if not self.show_values or state.end_of_game or self.is_human(state.player):
            return None
        if state not in self._values:
            self._values[state] = self._ask(computer_values, self.agents[state.player], state)
        return self._values[state]

    def status(self) -> str:
        """The header's first line: whose turn it is, or who won."""
        state = self.env.position
        result = state.end_of_game
        if result == DRAW:
            return "Draw"
        if result:
            winner = X if result == X_WON else O
            return "You win!" if self.is_you(winner) else f"{self.label(winner)} wins"
        side = state.player
        if self.is_you(side):
            return f"Your move ({symbol(side)})"
        if self.is_human(side):
            return f"{symbol(side)} to move"
        return f"{self.label(side)} is thinking..."

    def score_line(self) -> str:
        """The header's second line: the running score."""
        return (f"{self.label(X)} {self.score[X_WON]}  ·  {self.label(O)} {self.score[O_WON]}"
                f"  ·  draws {self.score[DRAW]}")

    def footer(self) -> str:
        """The footer line: the keys, and with H on whose values are shown (or why none are)."""
        keys = "R new game  ·  H values  ·  Esc quit"
        state = self.env.position
        if self.show_values and not state.end_of_game:
            if all(map(self.is_human, (X, O))):
                return f"H on: no computer player to show values for  ·  {keys}"
            if self.is_human(state.player):
                return f"H on: the computer's values show on its turn  ·  {keys}"
            future = self._values_future()
            if not future.done():
                return f"H on: working out the values of {self.label(state.player)}"
            overlay = future.result()
            if overlay is None:
                return f"H on: {self.label(state.player)} cannot state its values  ·  {keys}"
            return f"H on: {VALUE_NAMES[overlay.kind]} of {self.label(state.player)}  ·  {keys}"
        return f"Click a cell  ·  {keys}" if any(map(self.is_human, (X, O))) else keys

    def view(self) -> View:
        """Everything the window shows now."""
        last = self.moves[-1][1] if self.moves else None
        return View(self.env.position, self.status(), self.score_line(), self.footer(),
                    self.overlay(), last)

    def render(self, surface: pygame.Surface | None = None) -> pygame.Surface:
        """Draw the game onto ``surface`` (default: the window, or a new image if there is none)."""
        target = surface or self.screen or pygame.Surface(self.graphics.size)
        self.graphics.draw(target, self.view())
        return target

    # --- the window --------------------------------------------------------------------------------
    def resize(self, size: tuple[int, int]) -> None:
        """Lay everything out for a new window size (the window follows if it is open)."""
        size = self.graphics.resize(size)
        if self.screen is not None:
            self.screen = pygame.display.set_mode(size, pygame.RESIZABLE)

    def open_window(self) -> None:
        """Open the window (``pygame.error`` if there is no display)."""
        pygame.display.init()
        self.screen = pygame.display.set_mode(self.graphics.size, pygame.RESIZABLE)
        pygame.display.set_caption(f"{TITLE}: {self.label(X)} against {self.label(O)}")

    def close(self) -> None:
        """Close the window and drop any computer move still being worked out."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
        if self.screen is not None:
            pygame.display.quit()
            self.screen = None

    def run(self) -> int:
        """Show the window and play until it is closed or ``games`` games are done; return the
        number of finished games."""
        if self.screen is None:
            self.open_window()
        frame_clock = pygame.time.Clock()
        while self.running:
            for event in pygame.event.get():
                self.handle(event)
            self.step()
            self.render()
            pygame.display.flip()
            frame_clock.tick(FRAMES_PER_SECOND)
        return self.games_finished


def main(argv: list[str] | None = None) -> int:
    """The command line: parse, open the window, play, print the final score."""
    parser = cli.Parser(prog="Game.py", description=__doc__.split("\n\n")[0],
                        epilog="In the window: click an empty cell to move, R starts a new game, "
                               "H shows the computer's values on the board, Esc or closing the "
                               "window quits.")
    parser.add_argument("--x", default=DEFAULT_X, metavar="SPEC",
                        help=f"who plays X: human, random, advanced, minimax, playout, mcts or a "
                             f"Q-table path (default: {DEFAULT_X})")
    parser.add_argument("--o", default=DEFAULT_O, metavar="SPEC",
                        help=f"who plays O, likewise (default: {DEFAULT_O})")
    parser.add_argument("--games", type=cli.count, default=None, metavar="N",
                        help="stop after this many games (default: play until the window closes)")
    parser.add_argument("--delay", type=cli.seconds, default=DEFAULT_DELAY, metavar="S",
                        help=f"seconds a finished game stays on screen; the computer pauses a third "
                             f"of this before each move (default: {DEFAULT_DELAY}; 0 = full speed)")
    parser.add_argument("--seed", type=cli.seed, default=None, metavar="N",
                        help="random seed for the computer players (default: a fresh one)")
    parser.add_argument("--screenshot", default=None, metavar="PATH",
                        help="save the window as a PNG image when the game closes")
    args = parser.parse_args(argv)
    if args.screenshot is not None:
        folder = os.path.dirname(os.path.abspath(args.screenshot))
        if not args.screenshot.lower().endswith(".png") or not os.path.isdir(folder):
            parser.error(f"--screenshot: {args.screenshot!r} must be a .png path in an "
                         "existing folder")
    game = Game(args.x, args.o, seed=args.seed, delay=args.delay, games=args.games)
    try:
        try:
            game.open_window()
        except pygame.error as error:
            cli.fail(f"error: cannot open a window ({error}); on a machine without a display "
                     "set SDL_VIDEODRIVER=dummy")
        game.run()
        if args.screenshot is not None:
            pygame.image.save(game.screen, args.screenshot)
    finally:
        game.close()
    print(f"Score: {game.score_line()}")
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
