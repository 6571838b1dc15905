"""Pictures of a position for the environments: text, and the repository's game window.

The ``"human"`` window opens on a machine without a display too, drawn where no one sees it, as
Gymnasium's toy-text games and PettingZoo's ``tictactoe_v3`` do: Gymnasium's ``check_env`` and
PettingZoo's ``render_test`` make an environment in every render mode. (``Game.py`` still refuses
a game no one can see.)

Kept apart from the rules: the environments only say what to show. Pygame (through
``Graphics.py``) is imported only when a picture is asked for, so the text mode and the
environments themselves never need a display. Any board is shown as it is: the text has one line
per row, and ``Graphics`` lays its frame out for the board of the position it draws.
"""

from __future__ import annotations

import numpy as np

from tictactoe_rl.geometry import TIC_TAC_TOE

from tictactoe_rl.positions import shape_of
from State import DRAW, ONGOING, State, symbol

TEXT_MODE, PIXEL_MODE, WINDOW_MODE = "ansi", "rgb_array", "human"
RENDER_MODES = (TEXT_MODE, PIXEL_MODE, WINDOW_MODE)
FRAME_SIZE = (480, 600)   # pixels (width, height) of a frame and of the window


def status(position: State) -> str:
    """Whose move it is, or how the game ended, in a few words."""
    if position.end_of_game == ONGOING:
        return f"{symbol(position.player)} to move"
    if position.end_of_game == DRAW:
        return "draw"
    return f"{symbol(position.end_of_game)} wins"


def text(position: State, learner: int | None = None) -> str:
    """The board as its rows of ``X``, ``O`` and ``.``, then the status line: on any board but
    3x3 with the board's name (``X to move on 4x4 k=4``: the rows do not show ``k``), and which
    side the learner plays when there is one. Ends with a newline."""
    who = "" if learner is None else f" (the learner plays {symbol(learner)})"
    return f"{position}\n{status(position)}{board_note(position)}{who}\n"


def board_note(position: State) -> str:
    """``" on 4x4 k=4"`` for a position of a bigger board; ``""`` on Tic-Tac-Toe's, so that the
    3x3 pictures read as they always have."""
    shape = shape_of(position)
    return "" if shape == TIC_TAC_TOE else f" on {shape.name}"


def check_mode(render_mode: str | None) -> None:
    """``ValueError`` unless ``render_mode`` is ``None`` or one of ``RENDER_MODES``."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {', '.join(RENDER_MODES)}, "
                         f"got {render_mode!r}")


class Pictures:
    """Frames drawn by ``Graphics``: in a window (``"human"``) or off screen (``"rgb_array"``)."""

    def __init__(self, mode: str) -> None:
        import pygame  # only a picture needs pygame

        from Graphics import Graphics

        self.window = mode == WINDOW_MODE
        # unseen: on a machine without a display the window is drawn offscreen, as the field's
        # own environments do, so that checkers making every render mode pass there too
        self.graphics = Graphics(FRAME_SIZE, window=self.window, unseen=True)
        self.surface = self.graphics.screen if self.window else pygame.Surface(self.graphics.size)

    def draw(self, position: State, last_move: tuple[int, int] | None, note: str) -> np.ndarray:
        """Paint ``position`` (highlighting ``last_move``, ``note`` in the header's second line)
        and return the frame as a ``(height, width, 3)`` ``uint8`` array; a window is updated."""
        import pygame

        from Graphics import View

        footer = "Game over" if position.end_of_game else "The learner's move"
        self.graphics.draw(self.surface, View(position, status(position).capitalize(), note,
                                              footer, last_move=last_move))
        if self.window:
            pygame.event.pump()    # a window that handles no events is reported as hanging
            pygame.display.flip()
        return np.transpose(pygame.surfarray.array3d(self.surface), (1, 0, 2)).copy()

    def close(self) -> None:
        """Close the window, if there is one (safe to call again)."""
        if self.window:
            import pygame

            pygame.display.quit()
            self.window = False
