"""Exact game theory for Tic-Tac-Toe: every question answered by walking the whole game tree.

The game has only 5,478 positions, so nothing here samples. Every agent that states its policy
with ``action_probs(state)`` can be evaluated exactly:

- ``minimax_value(state)``: the result under perfect play, from X's point of view (1, 0, -1).
- ``exact_outcome(x_agent, o_agent)``: the exact probabilities of an X win, an O win and a draw.
- ``best_response(opponent)``: the best expected result any policy can get against ``opponent``,
  and a policy that gets it (optionally only among policies that can never lose).
- ``worst_case(agent)``: the worst result an opponent can bring about, and a line that does it.

Each walk visits a position once (results are remembered per position), so each takes well under a
second.

A policy may put probability on an illegal move (an occupied cell, a cell off the board): the walks
score it with the environments' rule (``TicTacToe-v0``, the PettingZoo game), the game ends and the
side that played it loses; ``exact_outcome`` says how often that happens (``x_illegal``,
``o_illegal``).
"""

from __future__ import annotations

from functools import lru_cache

from Agent import seats
from State import DRAW, O, O_WON, ONGOING, X, X_WON, State
from TicTacToe import Action

# {"x_wins": p, "o_wins": p, "draws": p, "x_illegal": p, "o_illegal": p}: the last two are the
# chances that X (O) ends the game with an illegal move, a loss counted in the other side's wins
Outcome = dict[str, float]
Policy = dict[State, Action]

# Result code -> (x_wins, o_wins, draws, x_illegal, o_illegal) of a finished game; and of a game
# that the side to move ends with an illegal move (it loses).
_FINAL = {X_WON: (1.0, 0.0, 0.0, 0.0, 0.0), O_WON: (0.0, 1.0, 0.0, 0.0, 0.0),
          DRAW: (0.0, 0.0, 1.0, 0.0, 0.0)}
_ILLEGAL = {X: (0.0, 1.0, 0.0, 1.0, 0.0), O: (1.0, 0.0, 0.0, 0.0, 1.0)}
_RESULT_VALUE = {X_WON: 1, O_WON: -1, DRAW: 0}
# Probabilities must sum to 1 within this (floating-point sums of ninths and fifths).
PROBABILITY_TOLERANCE = 1e-9


def as_outcome(x_wins: float, o_wins: float, draws: float, x_illegal: float = 0.0,
               o_illegal: float = 0.0) -> Outcome:
    return {"x_wins": x_wins, "o_wins": o_wins, "draws": draws, "x_illegal": x_illegal,
            "o_illegal": o_illegal}


# --- perfect play ------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def solve(state: State) -> tuple[int, int]:
    """``(value, plies)`` under perfect play: value from X's view (1, 0, -1) and the number of moves
    still to be played when the winner hurries and the loser holds out as long as it can."""
    if state.end_of_game != ONGOING:
        return _RESULT_VALUE[state.end_of_game], 0
    best_key, best = None, None
    for child in state.children().values():
        value, plies = solve(child)
        key = preference(value * state.player, plies)
        if best_key is None or key > best_key:
            best_key, best = key, (value, plies + 1)
    return best


def preference(value: int, plies: int) -> tuple[int, int]:
    """How much the mover likes a result (``value`` from the mover's view, ``plies`` to the end):
    a better value first; then a quicker win, or a slower loss."""
    return value, (-plies if value > 0 else plies if value < 0 else 0)


def minimax_value(state: State | None = None) -> int:
    """The result of perfect play from ``state`` (default: the empty board), from X's view."""
    return solve(state or State())[0]


def safe_actions(state: State) -> list[Action]:
    """The moves that keep the mover's perfect-play result (they never turn it into a worse one)."""
    target = minimax_value(state)
    return [action for action, child in state.children().items() if minimax_value(child) == target]


# --- evaluating agents -------------------------------------------------------------------------

def checked_probs(agent, state: State) -> dict[Action, float]:
    """``agent.action_probs(state)`` after checking it is a probability distribution (its moves
    may be illegal: see ``after_move``)."""
    probs = agent.action_probs(state)
    total = 0.0
    for p in probs.values():
        if p < 0:
            raise ValueError(f"{type(agent).__name__}.action_probs gives negative probability {p}")
        total += p
    if abs(total - 1.0) > PROBABILITY_TOLERANCE:
        raise ValueError(f"{type(agent).__name__}.action_probs sums to {total}, not 1")
    return probs


def after_move(position: State, action, walk) -> tuple[float, ...]:
    """``walk`` of the position ``action`` leads to, or the mover's loss when it is illegal."""
    child = position.children().get(action)
    return _ILLEGAL[position.player] if child is None else walk(child)


def exact_outcome(x_agent, o_agent, state: State | None = None) -> Outcome:
    """Exact probabilities ``{"x_wins", "o_wins", "draws"}`` of a game from ``state`` (default:
    the empty board) between two agents that state their policies with ``action_probs``."""
    agents = {X: x_agent, O: o_agent}
    memo: dict[State, tuple[float, ...]] = {}

    def walk(position: State) -> tuple[float, ...]:
        if position.end_of_game != ONGOING:
            return _FINAL[position.end_of_game]
        if position in memo:
            return memo[position]
        result = (0.0,) * 5
        for action, p in checked_probs(agents[position.player], position).items():
            if p:
                result = tuple(r + p * c for r, c in zip(result, after_move(position, action,
                                                                             walk)))
        memo[position] = result
        return result

    return as_outcome(*walk(state or State()))


def illegal_share(outcome: Outcome, side: int) -> float:
    """The chance that ``side`` (1 X, -1 O) loses ``outcome``'s game by an illegal move."""
    return outcome["x_illegal"] if side == X else outcome["o_illegal"]


def side_result(outcome: Outcome, side: int) -> tuple[float, float, float]:
    """``(wins, losses, draws)`` of ``side`` (1 X, -1 O) in ``outcome``."""
    wins, losses = (outcome["x_wins"], outcome["o_wins"]) if side == X \
        else (outcome["o_wins"], outcome["x_wins"])
    return wins, losses, outcome["draws"]


def exact_result(agent, opponent, state: State | None = None) -> tuple[float, float, float]:
    """``(P(win), P(loss), P(draw))`` of ``agent`` against ``opponent`` (who plays the other
    side) from ``state`` (default: the empty board), from ``agent``'s point of view, exactly."""
    return side_result(exact_outcome(*seats(agent, opponent), state), agent.player)


def best_response(opponent, unbeatable: bool = False,
                  state: State | None = None) -> tuple[Outcome, Policy]:
    """The best expected result against ``opponent`` (an agent with ``player`` and
    ``action_probs``) and a deterministic policy ``{state: action}`` that reaches it.

    "Best" maximises P(win) - P(loss) for the responder (the other side); among moves with equal
    scores the first in row-major order wins (the exact reference numbers in tests/test_solver.py come from this rule). With ``unbeatable`` the responder
    only plays moves that keep its perfect-play result, so the policy never loses to anyone.
    The policy covers every position the game can reach against ``opponent``.
    """
    me = -opponent.player
    memo: dict[State, tuple[float, ...]] = {}
    policy: Policy = {}

    def walk(position: State) -> tuple[float, ...]:
        if position.end_of_game != ONGOING:
            return _FINAL[position.end_of_game]
        if position in memo:
            return memo[position]
        children = position.children()
        if position.player == me:
            actions = safe_actions(position) if unbeatable else list(children)
            best_key, best_action, result = None, None, None
            for action in actions:
                child = walk(children[action])
                wins, losses = (child[0], child[1]) if me == X else (child[1], child[0])
                key = round(wins - losses, 12)
                if best_key is None or key > best_key:
                    best_key, best_action, result = key, action, child
            policy[position] = best_action
        else:
            result = (0.0,) * 5
            for action, p in checked_probs(opponent, position).items():
                if p:
                    child = after_move(position, action, walk)
                    result = tuple(r + p * c for r, c in zip(result, child))
        memo[position] = result
        return result

    return as_outcome(*walk(state or State())), policy


def worst_case(agent, state: State | None = None) -> tuple[int, list[Action] | None]:
    """The worst result any opponent can bring about against ``agent`` (from the agent's side:
    -1 it can be beaten, 0 at worst a draw, 1 it always wins) and, when it can be beaten, the
    shortest line of moves (both sides, from ``state``) that beats it; ``None`` otherwise.

    Every move the agent might play (probability above 0) counts: an agent that loses only
    sometimes can still be beaten. An illegal move loses at once and ends the line.
    """
    me = agent.player
    start = state or State()
    memo: dict[State, tuple[tuple[int, int], Action | None]] = {}

    def walk(position: State) -> tuple[int, int]:
        """(agent's value, plies) with the opponent choosing and ties going to the shorter line."""
        if position.end_of_game != ONGOING:
            return _RESULT_VALUE[position.end_of_game] * me, 0
        if position in memo:
            return memo[position][0]
        children = position.children()
        actions = [a for a, p in checked_probs(agent, position).items() if p] \
            if position.player == me else list(children)
        best, best_action = None, None
        for action in actions:
            value, plies = walk(children[action]) if action in children else (-1, 0)
            if best is None or (value, plies) < best:
                best, best_action = (value, plies), action
        memo[position] = ((best[0], best[1] + 1), best_action)
        return memo[position][0]

    value, _ = walk(start)
    if value >= 0:
        return value, None
    line, position = [], start
    while position is not None and position.end_of_game == ONGOING:
        action = memo[position][1]
        line.append(action)
        position = position.children().get(action)   # None after an illegal move
    return value, line


def is_unbeatable(agent) -> bool:
    """Whether no sequence of opponent moves beats ``agent`` from the empty board."""
    return worst_case(agent)[0] >= 0
