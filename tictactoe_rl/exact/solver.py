"""Exact game theory on any board: every question answered by walking the whole game.

Nothing here samples. Every agent that states its policy with ``action_probs(state)`` can be
evaluated exactly, on 3x3 and on the bigger boards alike (3x4, 4x4 k=3, 4x4 k=4):

- ``minimax_value(state)``: the result under perfect play, from X's point of view (1, 0, -1).
- ``exact_outcome(x_agent, o_agent)``: the exact probabilities of an X win, an O win and a draw.
- ``best_response(opponent)``: the best expected result any policy can get against ``opponent``,
  and a policy that gets it (optionally only among policies that can never lose).

The worst an opponent can do to an agent (``worst_case``, ``weaknesses``) is walked by
``tictactoe_rl.exact.worst``.

Each walk (``tictactoe_rl.exact.levels``) visits every position the agents can reach with
probability above zero, once: a deterministic agent fixes its side's moves, so the walk branches
on the other side's only, and two symmetric agents (random, perfect) share one position per
symmetry class. On 3x3 a walk takes milliseconds; on 4x4 k=4 seconds (``progress`` hears a line per
level). A walk that would not fit in memory stops with ``TooLarge``, saying how much it needs.

A policy may put probability on an illegal move (an occupied cell, a cell off the board): the walks
score it with the environments' rule (``TicTacToe-v0``, the PettingZoo game), the game ends and the
side that played it loses; ``exact_outcome`` says how often that happens (``x_illegal``,
``o_illegal``).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import numpy as np

from Agent import Agent, seats
from State import DRAW, O, O_WON, ONGOING, X, X_WON, State, position_of
from TicTacToe import Action
from tictactoe_rl.exact.arena import Arena, arena_of
from tictactoe_rl.exact.levels import Level, Progress, child_values, reach
from tictactoe_rl.exact.sides import every_move, is_symmetric, safe, side_of
from tictactoe_rl.exact.sides import position as _position
from tictactoe_rl.positions import shape_of, start_position

# {"x_wins": p, "o_wins": p, "draws": p, "x_illegal": p, "o_illegal": p}: the last two are the
# chances that X (O) ends the game with an illegal move, a loss counted in the other side's wins
Outcome = dict[str, float]
Policy = Mapping[State, Action]

# Result code -> (x_wins, o_wins, draws, x_illegal, o_illegal) of a finished game; and of a game
# that the side to move ends with an illegal move (it loses).
_FINAL = {X_WON: (1.0, 0.0, 0.0, 0.0, 0.0), O_WON: (0.0, 1.0, 0.0, 0.0, 0.0),
          DRAW: (0.0, 0.0, 1.0, 0.0, 0.0)}
_ILLEGAL = {X: (0.0, 1.0, 0.0, 1.0, 0.0), O: (1.0, 0.0, 0.0, 0.0, 1.0)}
RESULT_VALUE = {X_WON: 1, O_WON: -1, DRAW: 0}


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
        return RESULT_VALUE[state.end_of_game], 0
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

def start_of(state: State | None, agents) -> State:
    """Where a walk starts: ``state``, else the empty board of the agents' board (an ``Agent``
    carries its game; any other object with ``player`` and ``action_probs`` plays 3x3). A one-line
    ``ValueError`` when the agents play different boards."""
    if state is not None:
        return position_of(state)
    shapes = {agent.env.shape for agent in agents if isinstance(agent, Agent)}
    if len(shapes) > 1:
        raise ValueError("the agents play different boards: "
                         + " and ".join(sorted(shape.name for shape in shapes)))
    return start_position(*shapes)


def finished(level: Level) -> np.ndarray:
    """One outcome row (``_FINAL``'s five shares) per position of ``level``; zeros while going."""
    rows = np.zeros((len(level.keys), 5))
    for code, shares in _FINAL.items():
        rows[level.results == code] = shares
    return rows


def expected(level: Level, below: np.ndarray) -> np.ndarray:
    """The outcome rows of ``level``'s going positions: the mover's probabilities times the rows of
    the positions they lead to, plus its illegal moves' losses."""
    gathered = child_values(level, below, 0.0)
    return (np.einsum("gc,gcv->gv", level.probs, gathered)
            + level.illegal[:, None] * np.array(_ILLEGAL[level.mover]))


def exact_outcome(x_agent, o_agent, state: State | None = None,
                  progress: Progress | None = None) -> Outcome:
    """Exact probabilities ``{"x_wins", "o_wins", "draws"}`` of a game from ``state`` (default:
    the empty board of the agents' board) between two agents that state their policies with
    ``action_probs``."""
    start = start_of(state, (x_agent, o_agent))
    arena = arena_of(shape_of(start))
    sides = {X: side_of(x_agent, arena), O: side_of(o_agent, arena)}
    levels = reach(arena, arena.key(start.cells), start.player, sides,
                   symmetric=is_symmetric(x_agent) and is_symmetric(o_agent), progress=progress)
    below = np.zeros((0, 5))
    for level in reversed(levels):
        rows = finished(level)
        if len(level.going):
            rows[level.going] = expected(level, below)
        below = rows
    return as_outcome(*below[0].tolist())


def illegal_share(outcome: Outcome, side: int) -> float:
    """The chance that ``side`` (1 X, -1 O) loses ``outcome``'s game by an illegal move."""
    return outcome["x_illegal"] if side == X else outcome["o_illegal"]


def side_result(outcome: Outcome, side: int) -> tuple[float, float, float]:
    """``(wins, losses, draws)`` of ``side`` (1 X, -1 O) in ``outcome``."""
    wins, losses = (outcome["x_wins"], outcome["o_wins"]) if side == X \
        else (outcome["o_wins"], outcome["x_wins"])
    return wins, losses, outcome["draws"]


def exact_result(agent, opponent, state: State | None = None,
                 progress: Progress | None = None) -> tuple[float, float, float]:
    """``(P(win), P(loss), P(draw))`` of ``agent`` against ``opponent`` (who plays the other
    side) from ``state`` (default: the empty board), from ``agent``'s point of view, exactly;
    ``progress`` hears a line per level of the walk."""
    return side_result(exact_outcome(*seats(agent, opponent), state, progress), agent.player)


class ResponsePolicy(Mapping):
    """A deterministic policy over the positions a walk met: ``policy[state]`` is the move of
    ``player`` there (a ``KeyError`` for any other position)."""

    def __init__(self, arena: Arena, player: int, keys: np.ndarray, cells: np.ndarray) -> None:
        order = np.argsort(keys)
        self.arena, self.player = arena, player
        self.keys, self.cells = keys[order], cells[order]

    def __getitem__(self, state) -> Action:
        if not isinstance(state, State) or state.player != self.player \
                or shape_of(state) != self.arena.shape:
            raise KeyError(state)
        key = self.arena.key(state.cells)
        index = int(np.searchsorted(self.keys, key))
        if index == len(self.keys) or self.keys[index] != key:
            raise KeyError(state)
        return self.arena.shape.cells[self.cells[index]]

    def __iter__(self):
        shape = self.arena.shape
        for cells in self.arena.board(self.keys).tolist():
            yield _position(shape, tuple(cells), self.player)

    def __len__(self) -> int:
        return len(self.keys)


def best_response(opponent, unbeatable: bool = False, state: State | None = None,
                  progress: Progress | None = None) -> tuple[Outcome, Policy]:
    """The best expected result against ``opponent`` (an agent with ``player`` and
    ``action_probs``) and a deterministic policy ``{state: action}`` that reaches it.

    "Best" maximises P(win) - P(loss) for the responder (the other side); among moves with equal
    scores the first in row-major order wins (the exact reference numbers in tests/test_solver.py
    come from this rule). With ``unbeatable`` the responder only plays moves that keep its
    perfect-play result, so the policy never loses to anyone. The policy covers every position
    the game can reach against ``opponent``.
    """
    me = -opponent.player
    start = start_of(state, (opponent,))
    arena = arena_of(shape_of(start))
    sides = {me: safe(arena, me) if unbeatable else every_move(arena),
             -me: side_of(opponent, arena)}
    levels = reach(arena, arena.key(start.cells), start.player, sides, progress=progress)
    wins, losses = (0, 1) if me == X else (1, 0)
    below, chosen_keys, chosen_cells = np.zeros((0, 5)), [], []
    for level in reversed(levels):
        rows = finished(level)
        if len(level.going) and level.mover == me:
            gathered = child_values(level, below, 0.0)
            score = np.round(gathered[..., wins] - gathered[..., losses], 12)
            score[level.children < 0] = -np.inf
            choice = score.argmax(axis=1)           # the first best, row-major
            rows[level.going] = gathered[np.arange(len(choice)), choice]
            chosen_keys.append(level.keys[level.going])
            chosen_cells.append(choice)
        elif len(level.going):
            rows[level.going] = expected(level, below)
        below = rows
    policy = ResponsePolicy(arena, me, np.concatenate(chosen_keys or [np.zeros(0, np.uint64)]),
                            np.concatenate(chosen_cells or [np.zeros(0, np.int64)]))
    return as_outcome(*below[0].tolist()), policy
