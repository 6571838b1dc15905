"""The game window's event loop: hand every event to the game, let it move, paint what changed.

It reads the game through ``LoopedGame`` (``Game.Game`` matches it without being imported), so
this module needs nothing of the script above it.
"""

from __future__ import annotations

import os
from typing import Hashable, Protocol

# pygame greets on import unless told not to; scripts should print only their own output.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame

FRAMES_PER_SECOND = 30   # how often the window looks for events; it draws only what changed
RESIZE_EVENTS = (pygame.VIDEORESIZE, pygame.WINDOWSIZECHANGED)
# Events after which the window must be painted again although the game did not change.
REDRAW_EVENTS = (*RESIZE_EVENTS, pygame.VIDEOEXPOSE, pygame.WINDOWEXPOSED, pygame.WINDOWSHOWN,
                 pygame.WINDOWRESTORED)


class Painter(Protocol):
    """What the loop asks of the game's drawing (``Graphics``)."""

    def draw(self, surface: pygame.Surface, view: Hashable) -> None: ...


class LoopedGame(Protocol):
    """What the loop reads of the game in the window."""
    running: bool                          # false once the window is to close
    screen: pygame.Surface | None          # the open window
    graphics: Painter

    def handle(self, event: pygame.event.Event) -> None: ...

    def step(self) -> None: ...

    def view(self) -> Hashable: ...


def event_loop(game: LoopedGame) -> None:
    """Until ``game.running`` turns false: hand each event to ``game.handle``, call
    ``game.step``, and paint ``game.view()`` into the window when it changed or the window asks
    to be painted. Idle, it only looks for events, ``FRAMES_PER_SECOND`` times a second."""
    frame_clock = pygame.time.Clock()
    shown = None
    while game.running:
        events = pygame.event.get()
        for event in events:
            game.handle(event)
        game.step()
        view = game.view()
        if view != shown or any(event.type in REDRAW_EVENTS for event in events):
            game.graphics.draw(game.screen, view)
            pygame.display.flip()
            shown = view
        # Clock.tick sleeps till the next frame: idle, the process waits here. (pygame's
        # event.wait looks for events every millisecond inside, which costs more while idle.)
        frame_clock.tick(FRAMES_PER_SECOND)
