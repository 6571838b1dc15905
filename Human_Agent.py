"""The human player: a move is a mouse click on an empty cell of the game window."""

from __future__ import annotations

import os

# pygame greets on import unless told not to; scripts should print only their own output.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame

from Agent import Agent
from State import Live_State, State
from TicTacToe import Action, TicTacToe

LEFT_BUTTON = 1


class HumanMoveError(ValueError):
    """A human player was asked for a move outside the game window (e.g. by ``Tester.py``)."""


class Human_Agent(Agent):
    """A person playing ``player`` (1 X, -1 O) by clicking in the window drawn by ``graphics``.

    The course's game loop asks ``agent(events, state)``: the cell of the first left click on an
    empty cell when it is this player's turn in ``state``, and ``None`` otherwise (clicks on
    occupied cells, outside the board, with another button, or out of turn are ignored), so the
    loop simply asks again with the next events until it gets a move. ``get_action(events)`` is
    the course's other way to ask: the same click, in the live game.

    ``Game.py`` uses this class to know which sides people play, and reads their clicks itself
    (``graphics.calc_row_col``, then ``env.move``): a click there does not go round through here.

    A human cannot state move probabilities, and cannot be asked for a move in a position without
    a window: ``action_probs``, and ``get_action`` given a state, raise ``HumanMoveError`` (a
    ``ValueError``, so scripts turn it into one line and exit status 2). Play a human only in
    ``Game.py``.
    """

    def __init__(self, player: int, env: TicTacToe | None = None, graphics=None) -> None:
        super().__init__(player, env, graphics)
        self.graphics = graphics

    def __call__(self, events=None, state: State | Live_State | None = None) -> Action | None:
        """The clicked legal cell ``(row, col)`` among ``events``, or ``None`` if there is none."""
        state = state if state is not None else self.env.state
        if state.player != self.player:
            return None
        for event in events or ():
            if event.type != pygame.MOUSEBUTTONDOWN or event.button != LEFT_BUTTON:
                continue
            if self.graphics is None:
                raise HumanMoveError("Human_Agent needs the game's graphics to tell which cell "
                                     "was clicked: make it with graphics=...")
            cell = self.graphics.calc_row_col(event.pos)
            if cell is not None and self.env.legal(state, cell):
                return cell
        return None

    def action_probs(self, state: State) -> dict[Action, float]:
        """Always raises ``HumanMoveError``: nobody can say in advance how a person will play."""
        raise HumanMoveError("a human player has no move probabilities; exact tools need a "
                             "computer agent (random, advanced, minimax, or a Q-table)")

    def get_action(self, events=None, state: State | Live_State | None = None,
                   epoch: int | None = None) -> Action | None:
        """The course's call ``get_action(events)``: the clicked legal cell among ``events`` in the
        live game, or ``None``. Asked for a move in a position instead, as a computer is asked
        (``get_action(state)``, ``get_action(state=...)``), it raises ``HumanMoveError``: a human
        moves by clicking in the ``Game.py`` window."""
        if events is not None and not isinstance(events, (State, Live_State)) and state is None:
            return self(events)
        raise HumanMoveError("a human moves by clicking in the game window (python Game.py); "
                             "here pick a computer agent (random, advanced, minimax, or a Q-table)")
