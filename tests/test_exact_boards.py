"""The exact engine on the bigger boards, against a plain walk written here.

On 3x4 k=3 and 4x4 k=3 every figure of ``exact_outcome``, ``best_response`` (also unbeatable) and
``worst_case`` is what a plain recursive walk over ``(cells, player)`` tuples finds, with its own
lines and rules, asking the agents ``action_probs`` position by position: the random player, the
advanced one, the perfect one and a table trained a few hundred episodes. The engine's own
builders of those players play as the agents do; a board whose game cannot fit is refused at
once, in one line saying how much memory it needs.
"""

import math
from functools import lru_cache

import numpy as np
import pytest

import MC_Trainer
from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced
from State import O, X, State
from TicTacToe import TicTacToe
from tests.test_exact_arena import random_positions
from tictactoe_rl.boards.perfect import PerfectAgent
from tictactoe_rl.exact.arena import arena_of
from tictactoe_rl.exact.fits import is_exact, refusal
from tictactoe_rl.exact.levels import TooLarge, walk_bound
from tictactoe_rl.exact.progress import walk_progress
from tictactoe_rl.exact.sides import side_of
from tictactoe_rl.exact.solver import best_response, exact_outcome
from tictactoe_rl.exact.worst import worst_case
from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from tictactoe_rl.players.specs import make_agent
from tictactoe_rl.positions import intern

WIDE, SQUARE = BoardShape(3, 4, 3), BoardShape(4, 4, 3)
PLIES = 64      # a worst case's score: value * PLIES + plies, as the engine packs it


class Plain:
    """The game of ``rows`` x ``cols``, ``k`` in a row, walked one position at a time."""

    def __init__(self, shape: BoardShape) -> None:
        self.shape = shape
        rows, cols, k = shape.rows, shape.cols, shape.k
        self.lines = [tuple((r + i * dr) * cols + c + i * dc for i in range(k))
                      for r in range(rows) for c in range(cols)
                      for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1))
                      if 0 <= r + (k - 1) * dr < rows and 0 <= c + (k - 1) * dc < cols]

    def result(self, cells: tuple) -> int | None:
        """1 X won, -1 O won, 0 drawn, None still going."""
        for line in self.lines:
            total = sum(cells[i] for i in line)
            if abs(total) == self.shape.k:
                return total // self.shape.k
        return None if 0 in cells else 0

    def probs(self, agent, cells: tuple, player: int) -> dict[int, float]:
        """The agent's probabilities by flat cell (legal moves only, as these agents play)."""
        asked = agent.action_probs(intern(self.shape, cells, player))
        found = {row * self.shape.cols + col: p for (row, col), p in asked.items() if p > 0}
        assert all(cells[cell] == 0 for cell in found)
        return found

    def outcome(self, agents: dict, cells: tuple, player: int) -> tuple:
        """(x_wins, o_wins, draws) of the agents ``{X: .., O: ..}`` from ``cells``; an agent may
        be a dict ``{cells: flat cell}`` (a deterministic policy)."""
        @lru_cache(maxsize=None)
        def walk(cells: tuple, player: int) -> tuple:
            result = self.result(cells)
            if result is not None:
                return {1: (1, 0, 0), -1: (0, 1, 0), 0: (0, 0, 1)}[result]
            agent = agents[player]
            moves = {agent[cells]: 1.0} if isinstance(agent, dict) else \
                self.probs(agent, cells, player)
            total = [0.0, 0.0, 0.0]
            for cell, p in moves.items():
                for i, share in enumerate(walk(self.play(cells, cell, player), -player)):
                    total[i] += p * share
            return tuple(total)
        return walk(cells, player)

    @staticmethod
    def play(cells: tuple, cell: int, player: int) -> tuple:
        return cells[:cell] + (player,) + cells[cell + 1:]

    @lru_cache(maxsize=None)
    def value(self, cells: tuple, player: int) -> int:
        """Perfect play's result from X's view."""
        result = self.result(cells)
        if result is not None:
            return result
        values = [self.value(self.play(cells, cell, player), -player)
                  for cell in range(len(cells)) if cells[cell] == 0]
        return max(values) if player == X else min(values)

    def best(self, opponent, unbeatable: bool, cells: tuple, player: int) -> tuple:
        """The best (x_wins, o_wins, draws) for the side against ``opponent``: the first move,
        row-major, of the largest wins - losses (rounded to 12 decimals)."""
        me = -opponent.player

        @lru_cache(maxsize=None)
        def walk(cells: tuple, player: int) -> tuple:
            result = self.result(cells)
            if result is not None:
                return {1: (1, 0, 0), -1: (0, 1, 0), 0: (0, 0, 1)}[result]
            if player != me:
                total = [0.0, 0.0, 0.0]
                for cell, p in self.probs(opponent, cells, player).items():
                    for i, share in enumerate(walk(self.play(cells, cell, player), -player)):
                        total[i] += p * share
                return tuple(total)
            best, best_score = None, -math.inf
            for cell in range(len(cells)):
                child = self.play(cells, cell, player)
                if cells[cell] or unbeatable and \
                        self.value(child, -player) != self.value(cells, player):
                    continue
                found = walk(child, -player)
                score = round((found[0] - found[1]) * me, 12)
                if score > best_score:
                    best, best_score = found, score
            return best
        return walk(cells, player)

    def worst(self, agent, cells: tuple, player: int) -> int:
        """The engine's worst-case score for ``agent``: its worst result (its view) times
        ``PLIES`` plus the plies to it; every move of either side with probability above 0."""
        return self.worst_walk(agent)(cells, player)

    def worst_walk(self, agent):
        """``worst`` as one remembering walk, to ask about many positions of one agent."""
        @lru_cache(maxsize=None)
        def walk(cells: tuple, player: int) -> int:
            result = self.result(cells)
            if result is not None:
                return result * agent.player * PLIES
            moves = self.probs(agent, cells, player) if player == agent.player else \
                [cell for cell in range(len(cells)) if cells[cell] == 0]
            return 1 + min(walk(self.play(cells, cell, player), -player) for cell in moves)
        return walk


def shares(outcome: dict) -> tuple:
    return outcome["x_wins"], outcome["o_wins"], outcome["draws"]


@pytest.fixture(scope="module")
def tables(tmp_path_factory) -> dict:
    """A table per board trained 300 episodes (X), its path by board."""
    found = {}
    for shape in (WIDE, SQUARE):
        path = tmp_path_factory.mktemp("tables") / f"{shape.rows}x{shape.cols}.pth"
        assert MC_Trainer.run(["--board", f"{shape.rows}x{shape.cols}", "--k", str(shape.k),
                               "--epochs", "300", "--seed", "4", "--out", str(path)]) == 0
        found[shape] = str(path)
    return found


def agent(name: str, side: int, shape: BoardShape, tables: dict):
    env = TicTacToe(board=shape)
    if name == "table":
        return make_agent(tables[shape], side, env)
    return {"random": Random_Agent, "advanced": Random_Agent_Advanced,
            "perfect": PerfectAgent}[name](side, env)


def cases(*rows, slow: tuple = ()) -> list:
    """``rows`` as parameters named by board and agents; those in ``slow`` (a few seconds of the
    plain walk each, where both sides may play many moves) marked slow, those with a table
    solved-only (the table comes from MC_Trainer.py, the students' own code in their version)."""
    return [pytest.param(*row, id="-".join(map(label, row)),
                         marks=[pytest.mark.slow] * (row in slow)
                         + [pytest.mark.solved_only] * ("table" in row)) for row in rows]


def label(value) -> str:
    """A parameter's name in a test's id (a bool is an int: it is asked first)."""
    if isinstance(value, bool):
        return "unbeatable" if value else "any"
    if isinstance(value, BoardShape):
        return f"{value.rows}x{value.cols}"
    return {X: "X", O: "O"}.get(value, value)


# Pairs the plain walk finishes in seconds: on 4x4 k=3 one side fixes its moves.
SLOW_PAIRS = ((WIDE, "random", "random"), (WIDE, "advanced", "perfect"))
PAIRS = cases(*SLOW_PAIRS, (WIDE, "table", "advanced"), (WIDE, "perfect", "random"),
              (SQUARE, "table", "random"), (SQUARE, "table", "advanced"), slow=SLOW_PAIRS)


@pytest.mark.slow
@pytest.mark.parametrize("shape, x_name, o_name", PAIRS)
def test_exact_outcome_is_the_plain_walks(shape, x_name, o_name, tables):
    x_agent, o_agent = agent(x_name, X, shape, tables), agent(o_name, O, shape, tables)
    found = shares(exact_outcome(x_agent, o_agent))
    plain = Plain(shape).outcome({X: x_agent, O: o_agent}, (0,) * shape.size, X)
    assert found == pytest.approx(plain, abs=1e-12)
    assert math.isclose(sum(found), 1.0)


# The plain unbeatable reply on 4x4 k=3 solves every position it may meet: 20 s.
SLOW_RESPONSES = ((WIDE, "random", O, False), (WIDE, "random", O, True),
                  (WIDE, "advanced", X, False), (WIDE, "advanced", X, True),
                  (SQUARE, "table", X, True))
RESPONSES = cases(*SLOW_RESPONSES, (WIDE, "table", X, False), (WIDE, "table", X, True),
                  (SQUARE, "table", X, False), slow=SLOW_RESPONSES)


@pytest.mark.parametrize("shape, name, side, unbeatable", RESPONSES)
def test_best_response_is_the_plain_walks_and_its_policy_gets_it(shape, name, side, unbeatable,
                                                                 tables):
    opponent = agent(name, side, shape, tables)
    plain = Plain(shape)
    outcome, policy = best_response(opponent, unbeatable=unbeatable)
    empty = (0,) * shape.size
    assert shares(outcome) == pytest.approx(plain.best(opponent, unbeatable, empty, X),
                                            abs=1e-12)
    moves = {state.cells: shape.index(*policy[state]) for state in policy}
    played = plain.outcome({side: opponent, -side: moves}, empty, X)
    assert played == pytest.approx(shares(outcome), abs=1e-12)
    if unbeatable and side == O:   # an X that keeps perfect play's result (a win) never loses
        assert shares(outcome)[1] == 0.0


WORST = cases((WIDE, "random", O), (WIDE, "table", X), (WIDE, "perfect", O),
              (SQUARE, "table", X), slow=((WIDE, "perfect", O),))


@pytest.mark.slow
@pytest.mark.parametrize("shape, name, side", WORST)
def test_worst_case_is_the_plain_walks_with_a_shortest_line(shape, name, side, tables):
    me = agent(name, side, shape, tables)
    plain = Plain(shape)
    score = plain.worst(me, (0,) * shape.size, X)
    value, line = worst_case(me)
    assert value == math.floor(score / PLIES)
    if value >= 0:
        assert line is None
        return
    assert len(line) == score % PLIES
    cells, player = (0,) * shape.size, X
    for row, col in line:
        cell = row * shape.cols + col
        assert cells[cell] == 0 and (player != side or cell in plain.probs(me, cells, player))
        cells, player = plain.play(cells, cell, player), -player
    assert plain.result(cells) == -side


@pytest.mark.slow
@pytest.mark.parametrize("shape", [TIC_TAC_TOE, WIDE, SQUARE,
                                   pytest.param(BoardShape(4, 4, 4), marks=pytest.mark.slow)],
                         ids=lambda shape: shape.name)
def test_the_builders_play_as_their_agents(shape):
    """side_of's random, advanced and perfect players give, on positions of every length, the
    probabilities the agents' action_probs give."""
    arena, env = arena_of(shape), TicTacToe(board=shape)
    boards = [cells for cells in random_positions(shape, 300, seed=7 + shape.size)
              if Plain(shape).result(cells) is None]
    for cls in (Random_Agent, Random_Agent_Advanced, PerfectAgent):
        for side in (X, O):
            mine = [cells for cells in boards if (sum(cells) == 0) == (side == X)]
            keys = np.array([arena.key(cells) for cells in mine], dtype=np.uint64)
            player = cls(side, env)
            probs, illegal = side_of(player, arena)(keys)
            assert not illegal.any()
            for row, cells in enumerate(mine):
                asked = player.action_probs(intern(shape, cells, side) if shape != TIC_TAC_TOE
                                            else State(cells, side))
                expected = np.zeros(shape.size)
                for (r, c), p in asked.items():
                    expected[r * shape.cols + c] = p
                assert probs[row] == pytest.approx(expected, abs=1e-12), (cls, cells)


def test_the_bound_holds_every_position_of_the_game():
    """walk_bound counts at least the positions each board's game has (docs/BOARDS.md's
    counts), and a walk that is not symmetric keeps about 8 times as many on a square board."""
    for shape, positions in ((TIC_TAC_TOE, 5_478), (WIDE, 111_973), (SQUARE, 6_036_001),
                             (BoardShape(4, 4, 4), 9_722_011)):
        assert walk_bound(shape, symmetric=False) >= positions
    four = BoardShape(4, 4, 4)
    assert 8 * walk_bound(four) - walk_bound(four, symmetric=False) in range(8)
    assert walk_bound(four, empty=0) == 1 and walk_bound(four, empty=1, symmetric=False) == 2


@pytest.mark.parametrize("shape", [BoardShape(5, 5, 4), BoardShape(4, 5, 4)],
                         ids=lambda shape: shape.name)
def test_a_board_that_cannot_fit_is_refused_at_once_in_one_line(shape):
    env = TicTacToe(board=shape)
    with pytest.raises(TooLarge, match=rf"^the exact tools cannot walk the game of "
                                       rf"{shape.name}: it needs about [\d,.]+ GB") as caught:
        exact_outcome(Random_Agent(X, env), Random_Agent(O, env))
    assert "\n" not in str(caught.value) and isinstance(caught.value, ValueError)
    with pytest.raises(TooLarge):
        worst_case(Random_Agent(O, env))
    assert refusal(shape).startswith(f"the exact tools cannot walk the game of {shape.name}: "
                                     "it needs about ")
    assert not is_exact(shape)
    assert is_exact(BoardShape(4, 4, 4)) and refusal(TIC_TAC_TOE) is None


def test_the_progress_line_shows_only_after_its_delay(capsys):
    with walk_progress("exact vs random", after=0.0) as progress:
        env = TicTacToe(board=WIDE)
        exact_outcome(Random_Agent(X, env), Random_Agent(O, env), progress=progress)
    shown = capsys.readouterr().err
    assert "exact vs random, level 1: 1 positions, 1 in all" in shown
    assert "level 13:" in shown and "level 14" not in shown     # 12 moves, then the full boards
    with walk_progress("quiet", after=60.0) as progress:
        exact_outcome(Random_Agent(X), Random_Agent(O), progress=progress)
    assert capsys.readouterr().err == ""
