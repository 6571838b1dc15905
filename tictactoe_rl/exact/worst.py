"""The worst any opponent can do to an agent, found by walking every line of play against it.

- ``worst_case(agent)``: the worst result an opponent can bring about, and a shortest line that
  does it; ``is_unbeatable(agent)`` whether that is no loss.
- ``weaknesses(agent)``: every position of the agent's reach from which it can be beaten, with the
  plies to that loss, and an exploiter that beats it soonest from each.
- ``reachable(agent)``: every position some line of play leads the agent to.

Every move the agent might play (probability above zero) counts, and the opponent may play any
legal move; the walk is the exact engine's (``tictactoe_rl.exact.solver``), so it fits every
board whose game fits in memory.
"""

from __future__ import annotations

import numpy as np

from State import ONGOING, State
from TicTacToe import Action
from tictactoe_rl.exact.arena import Arena, arena_of
from tictactoe_rl.exact.levels import Level, Progress, child_values, reach
from tictactoe_rl.exact.sides import every_move, side_of
from tictactoe_rl.exact.sides import position as _position
from tictactoe_rl.exact.solver import RESULT_VALUE, Policy, ResponsePolicy, start_of
from tictactoe_rl.positions import shape_of

# A worst case's score packs (value, plies) into one number, value * PLIES + plies, so that one
# minimum finds the worst value and, among equals, the shortest line (a game has under 64 plies).
PLIES = 64


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
        for code, value in RESULT_VALUE.items():
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
