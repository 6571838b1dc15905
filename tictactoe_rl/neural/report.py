"""What a table cannot show and a network can: in which positions its move is right.

A policy is judged on every non-final position its side can face -- 2,423 with X to move, 2,097
with O to move (SPEC section 6), whether or not it ever meets them -- by one question: does its
move keep the perfect-play value of the position (``tictactoe_rl.exact.solver.solve``)? A move that turns a win
into a draw or a draw into a loss is a mistake; where every move loses, no move is one.

    mistakes(agent, side)        the positions where it errs, as ``Mistake`` records
    perfect_share(agent, side)   (positions right, positions in all)
    format_mistakes(found)       the boards, for ``Tester.py --mistakes SPEC``
"""

from __future__ import annotations

from typing import NamedTuple

from tictactoe_rl.exact.sides import checked_probs
from tictactoe_rl.exact.solver import solve
from State import ONGOING, State, all_states, symbol
from TicTacToe import Action

VALUE_NAMES = {1: "X wins", 0: "draw", -1: "O wins"}


class Mistake(NamedTuple):
    """A position where the agent's move loses value under perfect play."""
    state: State
    played: Action                 # the move it plays (its most likely one)
    value: int                     # the position's perfect-play value, X's view
    after: int                     # the value after the move played, X's view
    keeping: tuple[Action, ...]    # the moves that keep ``value``


def side_positions(side: int) -> list[State]:
    """Every non-final position reachable from the empty board with ``side`` to move, in a fixed
    order (by the number of marks, then the cells): 2,423 for X, 2,097 for O."""
    found = [s for s in all_states() if s.player == side and s.end_of_game == ONGOING]
    return sorted(found, key=lambda s: (9 - s.cells.count(0), s.cells))


def mistakes(agent, side: int) -> list[Mistake]:
    """The positions with ``side`` to move where a move ``agent`` plays (with probability above
    0) does not keep the perfect-play value; the ``played`` move of a record is the first such.
    ``agent`` states its policy with ``action_probs`` and must play ``side``."""
    if agent.player != side:
        raise ValueError(f"the agent plays {symbol(agent.player)}, not {symbol(side)}")
    found = []
    for state in side_positions(side):
        value = solve(state)[0]
        children = state.children()
        keeping = tuple(a for a, child in children.items() if solve(child)[0] == value)
        for action, p in checked_probs(agent, state).items():
            if p > 0 and action not in keeping:
                found.append(Mistake(state, action, value, solve(children[action])[0], keeping))
                break
    return found


def perfect_share(agent, side: int) -> tuple[int, int]:
    """``(positions where every move it plays keeps the perfect-play value, positions)``."""
    total = len(side_positions(side))
    return total - len(mistakes(agent, side)), total


def format_mistakes(found: list[Mistake]) -> str:
    """The mistakes as boards, each with the move played, what it costs and the moves that keep
    the value."""
    blocks = []
    for number, m in enumerate(found, 1):
        mover = symbol(m.state.player)
        blocks.append(f"{number}. {mover} to move ({VALUE_NAMES[m.value]} with perfect play); "
                      f"it plays {m.played[0]},{m.played[1]} -> {VALUE_NAMES[m.after]}; "
                      f"keeping: {' '.join(f'{r},{c}' for r, c in m.keeping)}\n{m.state}")
    if not blocks:
        return "no mistakes: every move keeps the perfect-play value"
    return "\n\n".join(blocks)
