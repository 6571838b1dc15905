"""Everything the game window shows, and which board cell a mouse position falls in.

This file only draws: it never decides whose turn it is or who has won (that is ``TicTacToe.py``
and ``Game.py``). ``Game.py`` describes what to show in a ``View`` and calls ``Graphics.draw``.

The window has three bands: a header (whose turn it is or who won, and the running score), the
board (as large as fits, every cell the same whole number of pixels), and a footer (the keys).
``resize`` lays them out again for a new window size; ``calc_row_col`` maps a mouse position to a
cell of the current layout.

Any board of ``tictactoe_rl/geometry.py`` is drawn -- Tic-Tac-Toe's 3x3, 4x4 with four in a row, 3x5, ... up to
5x5: the layout is for ``graphics.shape``, and ``draw`` switches to the board of the position it is
given (``shape_of``), so the course's ``graphics(state)`` shows any position as it is.

The course's own scripts use it directly: ``from Graphics import *`` gives ``Graphics`` and
``FPS``; ``graphics = Graphics()`` opens the window, ``graphics(state)`` shows a state in it.

The H overlay shades every empty cell by what the computer thinks of it (a Q-value, a move
probability, or the score a search agent chooses by) and writes the number in the cell: green for
a positive value, purple for a negative one, the stronger the larger (the largest value of the
position gets the strongest colour). The cell(s) with the largest value, the computer's choice,
are outlined in dark green: while it is to move, among the empty cells; after its move, while its
values stay up, the cell it played (its values were of the position before it). The last move
played, whoever made it, has a light amber cell and an amber frame. The footer says what each
means. Colours and shapes are in ``tictactoe_rl/gui/paint.py``, the overlay's numbers in ``tictactoe_rl/gui/values.py``.
"""

from __future__ import annotations

import math
import os
from typing import NamedTuple

# pygame greets on import unless told not to; scripts should print only their own output.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame

from tictactoe_rl.gui import paint
from tictactoe_rl.gui.display import open_window
from tictactoe_rl.gui.values import Overlay, best_cells, format_value, shown_values
from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from tictactoe_rl.positions import complete_line, shape_of
from State import DRAW, EMPTY, X, Live_State, State, symbol

Action = tuple[int, int]

FPS = 30                 # frames per second of the course's game loop (clock.tick(FPS))
TITLE = "Tic-Tac-Toe"
DEFAULT_SIZE = (480, 600)
MIN_SIZE = (240, 300)    # a smaller window shows this layout cut off at its edges

# Proportions of the layout, relative to the window or to one cell.
HEADER_SHARE, FOOTER_SHARE, MARGIN_SHARE = 0.15, 0.08, 0.04
MIN_HEADER, MIN_FOOTER = 60, 34   # pixels: below this the text would be too small to read
MARK_INSET = 0.22        # X and O keep this share of the cell free on each side
MARK_WIDTH = 0.09        # stroke of X and O
WIN_WIDTH = 0.06         # the line through a win
GRID_WIDTH = 0.014       # grid lines, relative to the board's longer side
CHOICE_BORDER = 0.025    # outline of the computer's choice, relative to the cell
LAST_MOVE_BORDER = 0.02  # frame of the last move played, at the cell's edge
NUMBER_SIZE = 0.24       # overlay numbers, relative to the cell
TEXT_ROOM = 0.94         # text keeps within this share of the window's (or a cell's) width


class View(NamedTuple):
    """What the window shows: the position, the header lines, the footer, the overlay (if any)
    and the last move played (a light amber cell in an amber frame)."""
    state: State
    status: str
    score: str
    footer: str
    overlay: Overlay | None = None
    last_move: Action | None = None


def status_line(state: State) -> str:
    """The header of the course's window: whose turn it is, or who won."""
    if state.end_of_game == DRAW:
        return "Draw"
    if state.end_of_game:
        return f"{symbol(state.end_of_game)} wins"
    return f"{symbol(state.player)} to move"


def winning_line(state: State | Live_State) -> tuple[Action, Action] | None:
    """The two end cells of the line of ``k`` that won the game -- the first complete one in the
    board's ``win_lines`` order -- or ``None`` (no winner). The ends are the same cell when k=1."""
    shape = shape_of(state)
    line = complete_line(shape, state.cells)
    if line is not None:
        return shape.cell(line[0]), shape.cell(line[-1])
    return None


class Graphics:
    """Layout and drawing of the board ``shape`` (3x3 k=3 unless told) in a window of ``size``
    pixels (width, height).

    ``Graphics()`` opens that window, as the course's scripts expect, and ``graphics(state)``
    shows a state in it. ``Game.py`` makes its own window and passes ``window=False``: ``draw``
    paints onto any ``pygame.Surface`` (the window, or an image). ``unseen=True`` opens the
    window even where no display shows it (the environments' ``"human"`` render mode).
    """

    def __init__(self, size: tuple[int, int] = DEFAULT_SIZE, window: bool = True,
                 shape: BoardShape = TIC_TAC_TOE, unseen: bool = False) -> None:
        pygame.font.init()
        self._fonts: dict[int, pygame.font.Font] = {}
        self.shape = shape
        self.resize(size)
        self.screen: pygame.Surface | None = None
        if window:
            self.screen = open_window(self.size, TITLE, resizable=False, unseen=unseen)

    def __call__(self, state: State) -> None:
        """Show ``state`` in the window (the course's ``graphics(env.state)``): the board, whose
        turn it is or how the game ended."""
        if self.screen is None:
            raise RuntimeError("this Graphics has no window: make it with Graphics()")
        footer = "Game over" if state.end_of_game else "Click an empty cell to move"
        self.draw(self.screen, View(state, status_line(state), "", footer))
        pygame.display.flip()

    # --- layout ----------------------------------------------------------------------------------
    def resize(self, size: tuple[int, int]) -> tuple[int, int]:
        """Lay the window out again for ``size`` (at least ``MIN_SIZE``); return the size used."""
        width = max(MIN_SIZE[0], int(size[0]))
        height = max(MIN_SIZE[1], int(size[1]))
        self.size = (width, height)
        header = max(MIN_HEADER, round(height * HEADER_SHARE))
        footer = max(MIN_FOOTER, round(height * FOOTER_SHARE))
        self.header = pygame.Rect(0, 0, width, header)
        self.footer = pygame.Rect(0, height - footer, width, footer)
        margin = round(min(width, height) * MARGIN_SHARE)
        free = pygame.Rect(margin, self.header.bottom + margin, width - 2 * margin,
                           self.footer.top - self.header.bottom - 2 * margin)
        # Sides divisible by the columns and the rows give every cell the same whole number of
        # pixels; a board that is not square fits the free area by its tighter direction.
        rows, cols = self.shape.rows, self.shape.cols
        self.cell = min(free.width // cols, free.height // rows)
        self.board = pygame.Rect(0, 0, self.cell * cols, self.cell * rows)
        self.board.center = free.center
        return self.size

    def set_shape(self, shape: BoardShape) -> None:
        """Lay the window out for the board ``shape`` (at the same size), if it is another."""
        if shape != self.shape:
            self.shape = shape
            self.resize(self.size)

    def cell_rect(self, action: Action) -> pygame.Rect:
        """The pixels of cell ``(row, col)``."""
        row, col = action
        return pygame.Rect(self.board.left + col * self.cell, self.board.top + row * self.cell,
                           self.cell, self.cell)

    def calc_row_col(self, pos: tuple[int, int]) -> Action | None:
        """The cell ``(row, col)`` under the pixel ``pos`` (x, y), or ``None`` outside the board."""
        x, y = pos
        if not self.board.collidepoint(x, y):
            return None
        return (y - self.board.top) // self.cell, (x - self.board.left) // self.cell

    # --- drawing ---------------------------------------------------------------------------------
    def draw(self, surface: pygame.Surface, view: View) -> None:
        """Paint ``view`` onto ``surface`` (which should have this layout's size), laid out for
        the board of ``view.state`` from now on."""
        self.set_shape(shape_of(view.state))
        surface.fill(paint.BACKGROUND)
        self._draw_header(surface, view)
        self._draw_cells(surface, view)
        self._draw_grid(surface)
        self._draw_marks(surface, view)
        self._draw_win(surface, view.state)
        lines = view.footer.split("\n")       # the keys, or a legend above them
        for number, line in enumerate(lines):
            self._text(surface, line, self.footer.height * (0.5 if len(lines) == 1 else 0.4),
                       paint.FOOTER_TEXT, (self.footer.centerx, self.footer.top +
                                           self.footer.height * (number + 0.5) / len(lines)))

    def _draw_header(self, surface: pygame.Surface, view: View) -> None:
        surface.fill(paint.HEADER_BACKGROUND, self.header)
        top, height = self.header.top, self.header.height
        self._text(surface, view.status, height * 0.40, paint.HEADER_TEXT,
                   (self.header.centerx, top + height * 0.36))
        self._text(surface, view.score, height * 0.24, paint.SCORE_TEXT,
                   (self.header.centerx, top + height * 0.76))

    def _draw_cells(self, surface: pygame.Surface, view: View) -> None:
        """Cell backgrounds: the last move in light amber with an amber frame; with the overlay,
        empty cells shaded and numbered, and the cells of the largest value (the computer's
        choice) outlined: the values are of the position the computer moved from, so after its
        move the outline is on the cell it played."""
        if view.last_move is not None:
            rect = self.cell_rect(view.last_move)
            surface.fill(paint.LAST_MOVE, rect)
            frame = max(2, round(self.cell * LAST_MOVE_BORDER))
            pygame.draw.rect(surface, paint.LAST_MOVE_FRAME, rect.inflate(-frame, -frame), frame)
        if view.overlay is None:
            return
        values = shown_values(view.overlay, view.state)
        largest = max((abs(value) for value in values.values()), default=0.0)
        border = max(2, round(self.cell * CHOICE_BORDER))
        for action, value in values.items():
            rect = self.cell_rect(action)
            surface.fill(paint.shade(value, largest), rect)
            self._text(surface, format_value(value, view.overlay.kind), self.cell * NUMBER_SIZE,
                       paint.NUMBER_TEXT, rect.center, room=self.cell * TEXT_ROOM)
        for action in best_cells(view.overlay.values):
            rect = self.cell_rect(action).inflate(-3 * border, -3 * border)
            pygame.draw.rect(surface, paint.CHOICE, rect, border)

    def _draw_grid(self, surface: pygame.Surface) -> None:
        # One weight for every board in the same window: relative to the longer side.
        width = max(2, round(max(self.board.size) * GRID_WIDTH))
        for col in range(1, self.shape.cols):
            offset = col * self.cell - width // 2
            surface.fill(paint.GRID, (self.board.left + offset, self.board.top, width,
                                      self.board.height))
        for row in range(1, self.shape.rows):
            offset = row * self.cell - width // 2
            surface.fill(paint.GRID, (self.board.left, self.board.top + offset, self.board.width,
                                      width))

    def _draw_marks(self, surface: pygame.Surface, view: View) -> None:
        stroke = max(3, round(self.cell * MARK_WIDTH))
        inset = round(self.cell * MARK_INSET)
        for index, value in enumerate(view.state.cells):
            if value == EMPTY:
                continue
            action = self.shape.cell(index)
            rect = self.cell_rect(action)
            inner = rect.inflate(-2 * inset, -2 * inset)
            if value == X:
                paint.thick_line(surface, paint.X_COLOUR, inner.topleft, inner.bottomright, stroke)
                paint.thick_line(surface, paint.X_COLOUR, inner.bottomleft, inner.topright, stroke)
            else:
                inside = paint.LAST_MOVE if action == view.last_move else paint.BACKGROUND
                paint.ring(surface, paint.O_COLOUR, rect.center, inner.width // 2 + stroke // 2,
                           stroke, inside)

    def _draw_win(self, surface: pygame.Surface, state: State) -> None:
        ends = winning_line(state)
        if ends is None:
            return
        start, end = (self.cell_rect(action).center for action in ends)
        # Reach a little past the outer cells' centres so the line spans all k marks; a line of
        # one cell (k=1) is a short stroke across its mark.
        dx, dy = end[0] - start[0], end[1] - start[1]
        if dx == dy == 0:
            dx = 1
        reach = self.cell * 0.3 / math.hypot(dx, dy)
        start = (start[0] - dx * reach, start[1] - dy * reach)
        end = (end[0] + dx * reach, end[1] + dy * reach)
        paint.win_line(surface, start, end, max(3, round(self.cell * WIN_WIDTH)))

    def _font(self, pixels: float) -> pygame.font.Font:
        size = max(8, round(pixels))
        if size not in self._fonts:
            self._fonts[size] = pygame.font.Font(None, size)  # pygame's bundled font
        return self._fonts[size]

    def _text(self, surface: pygame.Surface, text: str, pixels: float, colour: paint.Colour,
              center: tuple[float, float], room: float | None = None) -> None:
        """Write ``text`` centred on ``center``, shrunk if needed to fit ``room`` pixels of width
        (default: the window's width)."""
        if not text:
            return
        image = self._font(pixels).render(text, True, colour)
        room = self.size[0] * TEXT_ROOM if room is None else room
        if image.get_width() > room:
            scale = room / image.get_width()
            image = pygame.transform.smoothscale(
                image, (round(image.get_width() * scale), max(1, round(image.get_height() * scale))))
        surface.blit(image, image.get_rect(center=(round(center[0]), round(center[1]))))
