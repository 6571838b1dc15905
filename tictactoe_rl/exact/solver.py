"""Exact game theory on any board: every question answered by walking the whole game.

Nothing here samples. Every agent that states its policy with ``action_probs(state)`` can be
evaluated exactly, on 3x3 and on the bigger boards alike (3x4, 4x4 k=3, 4x4 k=4):

- ``minimax_value(state)``: the result under perfect play, from X's point of view (1, 0, -1).
- ``exact_outcome(x_agent, o_agent)``: the exact probabilities of an X win, an O win and a draw.
- ``best_response(opponent)``: the best expected result any policy can get against ``opponent``,
  and a policy that gets it (optionally only among policies that can never lose).
- ``worst_case(agent)``: the worst result an opponent can bring about, and a line that does it.
- ``weaknesses(agent)``: every position from which it can be beaten, and an opponent that does.

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
_RESULT_VALUE = {X_WON: 1, O_WON: -1, DRAW: 0}
# A worst case's score packs (value, plies) into one number, value * PLIES + plies, so that one
# minimum finds the worst value and, among equals, the shortest line (a game has under 64 plies).
PLIES = 64


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


def _every_line(agent, state: State | None, progress: Progress | None):
    """The walk of every line of play against ``agent`` from ``state`` (default: the empty
    board): the arena, the agent's side, the start and the levels."""
    start = start_of(state, (agent,))
    arena = arena_of(shape_of(start))
    mine = side_of(agent, arena)
    levels = reach(arena, arena.key(start.cells), start.player,
                   {agent.player: mine, -agent.player: every_move(arena)}, progress=progress)
    return arena, mine, start, levels


def reachable(agent, state: State | None = None,
              progress: Progress | None = None) -> list[State]:
    """Every position, ``agent`` to move, that some line of play from ``state`` leads to."""
    arena, _, _, levels = _every_line(agent, state, progress)
    return [_position(arena.shape, tuple(cells), agent.player)
            for level in levels if level.mover == agent.player
            for cells in arena.board(level.keys[level.going]).tolist()]


def _worst_walk(agent, state: State | None, progress: Progress | None):
    """Every line of play against ``agent`` from ``state``: the arena, the agent's side, the walk's
    levels and, level by level from the first, each position's worst-case score (``value * PLIES +
    plies``, from the agent's side) and each going position's pick (column 0: an illegal move,
    c + 1: cell c); on the opponent's levels the pick is the move that beats the agent soonest or,
    where none does, holds it to its worst result."""
    me = agent.player
    arena, mine, start, levels = _every_line(agent, state, progress)
    never = np.iinfo(np.int64).max
    below, scores, picks = np.zeros(0, dtype=np.int64), [], []
    for level in reversed(levels):
        score = np.zeros(len(level.keys), dtype=np.int64)
        for code, value in _RESULT_VALUE.items():
            score[level.results == code] = value * me * PLIES
        pick = None
        if len(level.going):
            # column 0: an illegal move, a loss at once; column c + 1: cell c
            options = np.concatenate([np.where(level.illegal > 0, -PLIES, never)[:, None],
                                      child_values(level, below, never)], axis=1)
            pick = options.argmin(axis=1)
            score[level.going] = options[np.arange(len(pick)), pick] + 1
        scores.append(score)
        picks.append(pick)
        below = score
    return arena, mine, start, levels, scores[::-1], picks[::-1]


def worst_case(agent, state: State | None = None,
               progress: Progress | None = None) -> tuple[int, list[Action] | None]:
    """The worst result any opponent can bring about against ``agent`` (from the agent's side:
    -1 it can be beaten, 0 at worst a draw, 1 it always wins) and, when it can be beaten, the
    shortest line of moves (both sides, from ``state``) that beats it; ``None`` otherwise.

    Every move the agent might play (probability above 0) counts: an agent that loses only
    sometimes can still be beaten. An illegal move loses at once and ends the line. Among equally
    short lines, the first in row-major order.
    """
    arena, mine, start, levels, scores, picks = _worst_walk(agent, state, progress)
    value = int(scores[0][0] // PLIES)
    if value >= 0:
        return value, None
    return value, losing_line(arena, levels, picks, mine, arena.key(start.cells))


def weaknesses(agent, state: State | None = None, progress: Progress | None = None
               ) -> tuple[list[tuple[State, int]], Policy]:
    """Where ``agent`` (deterministic) can be beaten, and how: every position of its reach where
    it is to move and some line of play beats it, with the number of plies to that loss, nearest
    first; and an exploiter, a policy of the opponent over every position of the reach where the
    opponent moves, that beats ``agent`` soonest wherever it can (``worst_case``'s line follows
    it)."""
    arena, _, _, levels, scores, picks = _worst_walk(agent, state, progress)
    me, shape = agent.player, arena.shape
    spots, exploiter_keys, exploiter_cells = [], [], []
    for level, score, pick in zip(levels, scores, picks):
        if not len(level.going):
            continue
        if level.mover == me:
            beaten = level.going[score[level.going] < 0]
            for cells, plies in zip(arena.board(level.keys[beaten]).tolist(),
                                    (score[beaten] + PLIES).tolist()):
                spots.append((_position(shape, tuple(cells), me), plies))
        else:                  # the opponent's every move is legal: no column 0
            exploiter_keys.append(level.keys[level.going])
            exploiter_cells.append(pick - 1)
    spots.sort(key=lambda spot: spot[1])
    keys = np.concatenate(exploiter_keys or [np.zeros(0, np.uint64)])
    cells = np.concatenate(exploiter_cells or [np.zeros(0, np.int64)])
    return spots, ResponsePolicy(arena, -me, keys, cells)


def losing_line(arena: Arena, levels: list[Level], picks: list, mine,
                key: int) -> list[Action]:
    """The moves of a worst case's line, from the position ``key`` of the first level."""
    line = []
    for level, pick in zip(levels, picks):
        row = int(np.searchsorted(level.keys, key))
        if level.results[row] != ONGOING:
            break
        choice = int(pick[np.searchsorted(level.going, row)])
        if choice == 0:                  # only a stated policy plays illegal moves
            line.append(mine.illegal_moves[key])
            break
        line.append(arena.shape.cells[choice - 1])
        key = int(arena.played(np.array([key], np.uint64), np.array([choice - 1]),
                               level.mover)[0])
    return line


def is_unbeatable(agent) -> bool:
    """Whether no sequence of opponent moves beats ``agent`` from the empty board."""
    return worst_case(agent)[0] >= 0
