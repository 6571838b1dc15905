"""Colours and the smooth shapes the board is drawn with (pygame's own thick lines are jagged)."""

from __future__ import annotations

import math

import pygame
import pygame.gfxdraw

Colour = tuple[int, int, int]
Point = tuple[float, float]

BACKGROUND: Colour = (246, 243, 235)
HEADER_BACKGROUND: Colour = (38, 50, 72)
HEADER_TEXT: Colour = (245, 245, 245)
SCORE_TEXT: Colour = (178, 190, 212)
FOOTER_TEXT: Colour = (105, 110, 125)
GRID: Colour = (60, 64, 80)
X_COLOUR: Colour = (45, 85, 160)
O_COLOUR: Colour = (200, 60, 50)
LAST_MOVE: Colour = (250, 232, 170)
LAST_MOVE_FRAME: Colour = (215, 140, 20)    # the frame of the last move's cell
NUMBER_TEXT: Colour = (25, 25, 25)
# The line through a win: a bright amber on a light edge, so it stands out over blue X strokes,
# red O rings and the light cells alike.
WIN_LINE: Colour = (245, 170, 0)
WIN_EDGE: Colour = (255, 255, 255)

# Overlay colours: a positive value (a good move, a likely move) shades green, a negative purple.
GOOD: Colour = (40, 165, 85)
BAD: Colour = (145, 70, 185)
# The strongest value of a position mixes this much of its colour into the cell.
MAX_SHADE = 0.8
CHOICE: Colour = (20, 95, 50)   # outline of the cell(s) with the largest value


def shade(value: float, largest: float) -> Colour:
    """The cell colour for an overlay ``value`` when the largest size among the shown values is
    ``largest``: the background mixed with green (value >= 0) or purple (value < 0), in proportion
    to ``|value| / largest``. So the strongest value of a position gets the strongest colour, and
    zero leaves the background."""
    if not (math.isfinite(value) and math.isfinite(largest)):
        raise ValueError(f"overlay values must be finite numbers, got {value!r} of {largest!r}")
    hue = BAD if value < 0 else GOOD
    share = MAX_SHADE * min(1.0, abs(value) / largest) if largest > 0 else 0.0
    return tuple(round(b + (h - b) * share) for b, h in zip(BACKGROUND, hue))


def thick_line(surface: pygame.Surface, colour: Colour, start: Point, end: Point,
               width: float) -> None:
    """A smooth line ``width`` pixels thick with round ends."""
    (x1, y1), (x2, y2) = start, end
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    nx, ny = -(y2 - y1) / length * width / 2, (x2 - x1) / length * width / 2
    corners = [(x1 + nx, y1 + ny), (x2 + nx, y2 + ny), (x2 - nx, y2 - ny), (x1 - nx, y1 - ny)]
    pygame.gfxdraw.aapolygon(surface, corners, colour)
    pygame.gfxdraw.filled_polygon(surface, corners, colour)
    for point in (start, end):
        disc(surface, colour, point, width / 2)


def disc(surface: pygame.Surface, colour: Colour, center: Point, radius: float) -> None:
    """A smooth filled circle."""
    x, y, r = round(center[0]), round(center[1]), max(1, round(radius))
    pygame.gfxdraw.aacircle(surface, x, y, r, colour)
    pygame.gfxdraw.filled_circle(surface, x, y, r, colour)


def ring(surface: pygame.Surface, colour: Colour, center: Point, radius: int, width: int,
         inside: Colour) -> None:
    """A smooth ring: a disc of ``colour`` with a disc of the cell's colour ``inside`` on top."""
    disc(surface, colour, center, radius)
    disc(surface, inside, center, radius - width)


def win_line(surface: pygame.Surface, start: Point, end: Point, width: float) -> None:
    """The line through a win, with a light edge around it, drawn over the marks."""
    thick_line(surface, WIN_EDGE, start, end, width * 1.8)
    thick_line(surface, WIN_LINE, start, end, width)
