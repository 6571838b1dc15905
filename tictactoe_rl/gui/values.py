"""What the H overlay shows: a computer player's view of each empty cell, and how it is written.

It knows nothing of agents (``tictactoe_rl/gui/thinking.py`` asks them), so ``Graphics.py`` can use it while the
chapter's ``AI_Agent.py`` imports ``Graphics``."""

from __future__ import annotations

import math
from typing import NamedTuple

from State import State
from TicTacToe import Action

# Kinds of overlay values: Q-values of a table, move probabilities of a policy, and the numbers
# a search agent chooses by (win rates, mean results or visit counts), each with its name.
Q_VALUES, PROBABILITIES, SEARCH_SCORES = "q", "p", "s"
VALUE_NAMES = {Q_VALUES: "Q-values", PROBABILITIES: "move probabilities",
               SEARCH_SCORES: "search scores"}

# A percentage is written whole when it is this close to a whole number, else with one decimal.
WHOLE_PERCENT = 0.05


class Overlay(NamedTuple):
    """The computer's view of the empty cells: ``values`` maps each to a Q-value (``kind`` "q"),
    a move probability ("p") or a search agent's score ("s")."""
    values: dict[Action, float]
    kind: str


def shown_values(overlay: Overlay, state: State) -> dict[Action, float]:
    """The overlay's values of the cells that are empty in ``state`` (the only ones shown)."""
    return {action: value for action, value in overlay.values.items()
            if state.board[action] == 0}


def best_cells(values: dict[Action, float]) -> list[Action]:
    """The cells of the largest value -- the computer's choice, outlined on the board -- or none
    when every cell has the same value (then no cell stands out)."""
    if not values or min(values.values()) == max(values.values()):
        return []
    best = max(values.values())
    return [action for action, value in values.items() if value == best]


def format_value(value: float, kind: str) -> str:
    """The number written in a shaded cell: a signed Q-value ``+0.83``; a probability as a
    percentage, whole when it is one (``50%``) and with one decimal when rounding would mislead
    (``12.5%``, so eight such cells add up to 100 %); a search score ``0.62`` or a count
    ``1234``."""
    if not math.isfinite(value):
        raise ValueError(f"overlay values must be finite numbers, got {value!r}")
    if kind == Q_VALUES:
        return f"{value:+.2f}"
    if kind == PROBABILITIES:
        percent = 100 * value
        if abs(percent - round(percent)) < WHOLE_PERCENT:
            return f"{round(percent)}%"
        return f"{percent:.1f}%"
    return f"{value:.2f}" if abs(value) < 10 else f"{value:.0f}"
