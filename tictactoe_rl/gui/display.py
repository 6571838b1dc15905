"""Opening the game window, or saying in one line why there is none; checking a screenshot path.

Without a display SDL does not fail: it falls back to an offscreen driver and the game runs on,
unseen, for ever. So the game's window is refused when SDL would have to fall back -- on Linux with neither
``DISPLAY`` nor ``WAYLAND_DISPLAY`` set, or whenever SDL chose the offscreen or dummy driver
although nobody asked for it. ``SDL_VIDEODRIVER=dummy`` asks for it: that is how tests and CI run
the game headless. On Linux with only ``DISPLAY`` (or only ``WAYLAND_DISPLAY``) set, SDL is told to
use that display's driver alone, so that a display it cannot reach is one line naming it, not SDL
trying the other drivers (with their own complaints) and falling back unseen. The environments'
``"human"`` render mode is the one exception (``unseen``): a checker that makes an environment in
every render mode must pass on a machine without a display, as it does for the field's own games.
"""

from __future__ import annotations

import os
import sys

# pygame greets on import unless told not to; scripts should print only their own output.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame

HEADLESS_DRIVERS = ("offscreen", "dummy")   # SDL drivers that show nothing
DISPLAY_VARIABLES = ("DISPLAY", "WAYLAND_DISPLAY")
DRIVER_OF = {"DISPLAY": "x11", "WAYLAND_DISPLAY": "wayland"}   # SDL's driver for each display
HOW_TO_SEE_IT = ("run it on a desktop (or over ssh -X), or unseen with SDL_VIDEODRIVER=dummy, "
                 "two computer players and --games N")


class NoDisplay(pygame.error):
    """There is no display to open a window on; the message says what to do."""


def requested_driver() -> str:
    """The video driver named by ``SDL_VIDEODRIVER`` (lower case), or "" if none is."""
    return os.environ.get("SDL_VIDEODRIVER", "").strip().lower()


def check_display() -> None:
    """Raise ``NoDisplay`` if a window could only be opened unseen (Linux, no display variable,
    no driver asked for). Call before ``pygame.display.init``."""
    if sys.platform.startswith("linux") and not requested_driver() \
            and not any(os.environ.get(name) for name in DISPLAY_VARIABLES):
        raise NoDisplay(f"no display to show the game window on (neither DISPLAY nor "
                        f"WAYLAND_DISPLAY is set): {HOW_TO_SEE_IT}")


def unseen_game_problem(human_plays: bool, games: int | None) -> str | None:
    """Why a game in a window nobody sees (``SDL_VIDEODRIVER`` dummy or offscreen) would never
    end: a person to move waits for a click that cannot come, and without a number of games the
    computers play on until someone closes a window no one can see. ``None`` when it ends."""
    driver = requested_driver()
    if driver not in HEADLESS_DRIVERS:
        return None
    if human_plays:
        return (f"with SDL_VIDEODRIVER={driver} no window is shown, so nobody can click a move: "
                "unseen games need two computer players, e.g. --x random --o random --games 3")
    if games is None:
        return (f"with SDL_VIDEODRIVER={driver} no window is shown, so nobody can close it: "
                "give --games N to stop after N games")
    return None


def named_display() -> str | None:
    """On Linux, the variable (``DISPLAY`` or ``WAYLAND_DISPLAY``) whose display SDL must open:
    the one set when it alone is, or the one whose driver ``SDL_VIDEODRIVER`` asks for; ``None``
    otherwise (another system, another driver, or both set and no driver asked for)."""
    if not sys.platform.startswith("linux"):
        return None
    named = [name for name in DISPLAY_VARIABLES if os.environ.get(name)]
    driver = requested_driver()
    if driver:
        return next((name for name in named if DRIVER_OF[name] == driver), None)
    return named[0] if len(named) == 1 else None


def init_display() -> None:
    """``pygame.display.init`` -- with only the named display's driver, if ``named_display``
    names one; ``NoDisplay`` naming that display when SDL cannot open it."""
    variable = named_display()
    if variable is None:
        pygame.display.init()
        return
    asked = requested_driver()
    os.environ["SDL_VIDEODRIVER"] = DRIVER_OF[variable]
    try:
        pygame.display.init()
    except pygame.error as error:
        raise NoDisplay(f"cannot open the display {variable}={os.environ[variable]} ({error}): "
                        f"{HOW_TO_SEE_IT}") from None
    finally:
        if not asked:
            del os.environ["SDL_VIDEODRIVER"]


def open_window(size: tuple[int, int], caption: str, resizable: bool,
                unseen: bool = False) -> pygame.Surface:
    """Open the window and return its surface. Raises ``NoDisplay`` if it would be unseen (unless
    ``unseen``: then SDL's fallback draws it where no one sees it, as Gymnasium's and PettingZoo's
    own games do in their ``"human"`` render mode), and ``pygame.error`` if SDL cannot open it
    at all.

    A resizable window stays the same window for good: pygame 2 resizes its surface when the
    user drags the frame, so nobody calls ``set_mode`` again (that would make a new window)."""
    if not unseen:
        check_display()
    init_display()
    driver = pygame.display.get_driver()
    if driver in HEADLESS_DRIVERS and requested_driver() != driver and not unseen:
        pygame.display.quit()
        raise NoDisplay(f"no display to show the game window on (SDL fell back to its "
                        f"{driver} driver): {HOW_TO_SEE_IT}")
    surface = pygame.display.set_mode(size, pygame.RESIZABLE if resizable else 0)
    pygame.display.set_caption(caption)
    return surface


def screenshot_problem(path: str) -> str | None:
    """Why the window could not be saved as ``path``, or ``None`` if it can: it must end in .png,
    not be a folder, and its folder must exist and take a new file. Checked by creating the file
    (and removing it again if it was not there), as only writing tells for sure."""
    if not path.lower().endswith(".png"):
        return f"{path!r} must end in .png"
    if os.path.isdir(path):
        return f"{path!r} is a folder, not a file name"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"the folder of {path!r} does not exist"
    existed = os.path.exists(path)
    try:
        with open(path, "ab"):
            pass
    except OSError as error:
        return f"cannot write {path!r} ({error.strerror or error})"
    if not existed:
        os.remove(path)
    return None


def save_screenshot(surface: pygame.Surface, path: str) -> str | None:
    """Save ``surface`` as the PNG ``path``; return why it failed (checked before, so only a
    disk that filled up or a folder removed meanwhile), or ``None``."""
    try:
        pygame.image.save(surface, path)
    except (pygame.error, OSError) as error:
        return f"could not save {path!r} ({error})"
    return None
