"""The agent's view: the Q-value of every cell, laid out as the board.

For a position and a Q-table of the side to move, each empty cell shows the value the table gives
to playing there (from that side's point of view: the larger, the better it thinks the move is);
taken cells show their X or O. The greedy move -- the one the trained agent plays -- is in brackets.
A cell whose move the table never tried shows ``unseen`` (it counts as 0).

    >>> print(show_q("Data/Q_MC_X.pth", "1,1 0,0"))          # doctest: +SKIP
    X to move after 2 moves; Q-values of X's table (the bracketed cell is the greedy move):

        O    | [+0.591]|  +0.450
    ---------+---------+---------
      +0.504 |    X    |  +0.426
    ---------+---------+---------
      +0.442 |  +0.437 |  +0.363

``python Tester.py --show-q TABLE --moves "1,1 0,0"`` prints this view (``show_q``).
"""

from __future__ import annotations

from tictactoe_rl.tables.files import load_table
from State import ALL_CELLS, EMPTY, SIZE, State, parse_moves, symbol
from TicTacToe import Action

CELL_WIDTH = 9
UNSEEN = "unseen"


def cell_values(Q: dict, state: State) -> dict[Action, float | None]:
    """``{action: Q(state, action)}`` for every legal move of ``state``, ``None`` where the table
    has no entry (never tried)."""
    return {action: Q.get((state, action)) for action in state.legal_actions()}


def greedy_move(values: dict[Action, float | None]) -> Action | None:
    """The move a greedy agent plays: the largest value (a missing one counts as 0), ties to the
    first in row-major order -- the same choice as ``AI_Agent.get_Q_action``."""
    best, best_value = None, None
    for action, value in values.items():
        value = 0.0 if value is None else value
        if best_value is None or value > best_value:
            best, best_value = action, value
    return best


def cell_text(value: float | int) -> str:
    """A value as a cell shows it: a count (e.g. MCTS visits) as a whole number, else 3 decimals."""
    return f"{value:d}" if isinstance(value, int) else f"{value:+.3f}"


def board_grid(state: State, values: dict[Action, float | None]) -> str:
    """The 3x3 grid: X or O in taken cells, the value of each empty one, the greedy move bracketed."""
    best = greedy_move(values)
    cells = []
    for index, action in enumerate(ALL_CELLS):
        mark = state.cells[index]
        if mark != EMPTY:
            text = symbol(mark)
        else:
            value = values.get(action)
            text = UNSEEN if value is None else cell_text(value)
            if action == best:
                text = f"[{text}]"
        cells.append(text.center(CELL_WIDTH))
    rows = ["|".join(cells[r * SIZE:(r + 1) * SIZE]) for r in range(SIZE)]
    separator = "+".join("-" * CELL_WIDTH for _ in range(SIZE))
    return ("\n" + separator + "\n").join(rows)


def format_view(Q: dict, side: int, state: State, moves_played: int | None = None) -> str:
    """The agent's view of ``state`` for a table ``Q`` that plays ``side``: a heading and the grid.

    Raises ``ValueError`` when the game is over or the other side is to move (the table has no
    values for that side's moves).
    """
    if state.end_of_game:
        raise ValueError("the game is over in this position: there is no move to show")
    if state.player != side:
        raise ValueError(f"{symbol(state.player)} is to move here, but the table plays "
                         f"{symbol(side)}; play one move more or less, or use a "
                         f"{symbol(state.player)} table")
    after = "" if moves_played is None else f" after {moves_played} move" + \
        ("s" if moves_played != 1 else "")
    heading = (f"{symbol(side)} to move{after}; Q-values of {symbol(side)}'s table "
               "(the bracketed cell is the greedy move):")
    return heading + "\n\n" + board_grid(state, cell_values(Q, state))


def show_q(path: str, moves: str = "") -> str:
    """The agent's view for the table file ``path`` after ``moves`` (e.g. ``"1,1 0,0"``: row,col
    pairs, 0-based, from the empty board). Raises ``ValueError`` (a bad file, an illegal move,
    the wrong side to move) with a one-line message."""
    Q, side, _ = load_table(path)
    state = parse_moves(moves)
    return format_view(Q, side, state, len(moves.split()))
