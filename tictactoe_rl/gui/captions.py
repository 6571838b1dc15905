"""The words in the game window: the header's two lines and the footer, read off the game on
show (``Game.Game``, which calls these; they read it through ``ShownGame``, so that this module
needs nothing of the script above it)."""

from __future__ import annotations

import os
from concurrent.futures import Future
from typing import Protocol

from tictactoe_rl.gui.values import VALUE_NAMES, Overlay, best_cells, shown_values
from tictactoe_rl.players.specs import is_network, is_table_path, network_path, parse_spec
from State import DRAW, O, O_WON, X, X_WON, symbol
from TicTacToe import TicTacToe

KEYS = "R new game  ·  H values  ·  Esc quit"


class ShownGame(Protocol):
    """What the captions read of the game on show."""
    env: TicTacToe
    specs: dict[int, str]                  # the spec of each side's player, by side
    score: dict[int, int]                  # finished games by result
    show_values: bool                      # H is on
    kept_overlay: Overlay | None           # the values the last computer moved by
    moves: list                            # (position, move) of each move of this game

    def is_human(self, side: int) -> bool: ...

    def is_you(self, side: int) -> bool: ...

    def values_future(self) -> Future | None: ...


def short_name(spec: str) -> str:
    """A spec as the header shows it: a table or a network by its file name, an agent by its
    name."""
    spec = spec.strip()
    if is_network(spec) or is_table_path(spec):
        return os.path.splitext(os.path.basename(network_path(spec)))[0]
    return parse_spec(spec)[0]


def label(game: ShownGame, side: int) -> str:
    """How the header names ``side``: "You (O)", "X" (two people) or "Q_MC_X (X)"."""
    if game.is_you(side):
        return f"You ({symbol(side)})"
    if game.is_human(side):
        return symbol(side)
    return f"{short_name(game.specs[side])} ({symbol(side)})"


def status(game: ShownGame) -> str:
    """The header's first line: whose turn it is, or who won."""
    state = game.env.position
    result = state.end_of_game
    if result == DRAW:
        return "Draw"
    if result:
        winner = X if result == X_WON else O
        return "You win!" if game.is_you(winner) else f"{label(game, winner)} wins"
    side = state.player
    if game.is_you(side):
        return f"Your move ({symbol(side)})"
    if game.is_human(side):
        return f"{symbol(side)} to move"
    return f"{label(game, side)} is thinking..."


def score_line(game: ShownGame) -> str:
    """The header's second line: the running score."""
    return (f"{label(game, X)} {game.score[X_WON]}  ·  {label(game, O)} {game.score[O_WON]}"
            f"  ·  draws {game.score[DRAW]}")


LAST_MOVE_LEGEND = "amber: last move"


def footer(game: ShownGame) -> str:
    """The footer: the keys, and with H on whose values are shown (or why none are), what
    the green outline means (its choice, several cells equally best, nothing stands out; after
    the computer's move, the move it chose from those values) and that amber marks the last
    move: that legend on a line of its own, above the keys."""
    state = game.env.position
    if not game.show_values or state.end_of_game:
        return f"Click a cell  ·  {KEYS}" if game.is_human(X) or game.is_human(O) else KEYS
    if game.is_human(X) and game.is_human(O):
        return f"H on: no computer player to show values for  ·  {KEYS}"
    if game.is_human(state.player):
        if game.kept_overlay is None:
            return f"H on: the computer's values show on its turn  ·  {KEYS}"
        kept = game.kept_overlay
        return (f"{VALUE_NAMES[kept.kind]} of {label(game, -state.player)}, kept from its move"
                f"  ·  {outline(kept.values)}  ·  {LAST_MOVE_LEGEND}\n{KEYS}")
    who = label(game, state.player)
    future = game.values_future()
    if not future.done():
        return f"H on: working out the values of {who}"
    overlay = future.result()
    if overlay is None:
        return f"H on: {who} cannot state its values  ·  {KEYS}"
    legend = f"  ·  {LAST_MOVE_LEGEND}" if game.moves else ""
    return (f"{VALUE_NAMES[overlay.kind]} of {who}  ·  {outline(shown_values(overlay, state))}"
            f"{legend}\n{KEYS}")


def outline(values: dict) -> str:
    """What the green outline marks among ``values`` (those of the position the computer moves
    from): its choice, several cells equally best, or nothing."""
    best = len(best_cells(values))
    return ("green: its choice" if best == 1 else f"green: {best} cells tie for best" if best
            else "all moves equal" if values else "no move scored")
