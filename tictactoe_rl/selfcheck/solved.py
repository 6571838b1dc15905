"""Whether a trained table holds the exact solver's values instead of what training made.

The project's perfect-play solver (``tictactoe_rl.exact.solver.solve``) gives each move its result under
perfect play: 1, 0 or -1 for the mover, reached after some number of moves. Written into a table
for the pairs the episodes met, those values make an unbeatable agent that learned nothing. No
training gives them: a value learned from games against a random opponent is an average of
returns, and even a table that keeps each pair's last return (``alpha = 1``) differs from perfect
play on most pairs. A table is the solver's when nearly all its pairs with a value other than 0
(``SOLVED_SHARE``, and at least ``SOLVED_AT_LEAST``) hold the perfect-play result, plain or
discounted by ``gamma ** moves`` for a usual ``gamma``, to the last digits.
"""

from __future__ import annotations

from tictactoe_rl.exact.solver import solve
from State import State

SOLVED_SHARE, SOLVED_AT_LEAST = 0.95, 40
SAME = 1e-9
GAMMAS = (1.0, 0.99, 0.95, 0.9, 0.8)


def solver_valued(table: dict, side: int) -> bool:
    """Whether ``table`` (pair -> value) for the learner ``side`` holds the solver's values."""
    valued = solved = 0
    for pair, value in table.items():
        state, action = pair
        if not isinstance(state, State) or not isinstance(value, (int, float)) or value == 0:
            continue
        child = state.children().get(action) if action in state.legal_actions() else None
        if child is None:
            continue
        valued += 1
        result, moves = solve(child)
        result *= side
        solved += any(abs(value - result * gamma ** exponent) <= SAME
                      for gamma in GAMMAS for exponent in (moves, moves + 1))
    return solved >= SOLVED_AT_LEAST and solved >= SOLVED_SHARE * valued
