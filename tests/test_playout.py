"""The playout agents: primitive Monte Carlo (PlayoutAgent) and tree search (MCTSAgent).

Sampled numbers are checked against exact values with a tolerance of a few standard errors of
the sampling, computed from the exact probabilities and the number of playouts.
"""

import math
import random
import time

import pytest

from Agent import PolicyUnknown
from tictactoe_rl.players.specs import SpecError, make_agent
from tictactoe_rl.players.mcts import DEFAULT_ITERATIONS, Edge, MCTSAgent
from tictactoe_rl.players.playout import PlayoutAgent, Tally, playout
from Random_Agent import Random_Agent
from tictactoe_rl.exact.solver import exact_outcome, minimax_value
from tictactoe_rl.exact.worst import worst_case
from State import DRAW, O, ONGOING, WIN_LINES, X, State, all_states, parse_moves

STANDARD_ERRORS = 5  # a sampled figure may be this many standard errors off (about 1 in 1.7 million)
# A time-limited search never stops before its limit and does end: within this many seconds, a
# bound no busy machine reaches (how closely it keeps the limit: tools/benchmarks/playout.py).
ENDS_WITHIN = 20.0


def exact_after_each_move(state: State) -> dict:
    """For every legal move: (win, draw) probabilities for the mover if both sides then play at
    random, computed exactly."""
    mover = state.player
    result = {}
    for action, child in state.children().items():
        outcome = exact_outcome(Random_Agent(X), Random_Agent(O), child)
        wins = outcome["x_wins"] if mover == X else outcome["o_wins"]
        result[action] = (wins, outcome["draws"])
    return result


def tolerance(values_and_weights: list[tuple[float, float]], n: int) -> float:
    """STANDARD_ERRORS standard errors of the mean of ``n`` draws of a variable taking each value
    with the given probability."""
    mean = sum(v * p for v, p in values_and_weights)
    variance = sum((v - mean) ** 2 * p for v, p in values_and_weights)
    return STANDARD_ERRORS * math.sqrt(variance / n)


def winner_by_lines(cells) -> int:
    """Who has three in a row (1, -1) or 0; checked here independently of State."""
    for a, b, c in WIN_LINES:
        if cells[a] != 0 and cells[a] == cells[b] == cells[c]:
            return cells[a]
    return 0


# --- the playout ------------------------------------------------------------------------------

def test_a_playout_leaves_its_start_alone_and_plays_by_the_rules():
    rng = random.Random(1)
    starts = rng.sample(sorted(all_states(), key=repr), 300)
    for start in starts:
        before = (start.cells, start.player, start.end_of_game)
        final = playout(start, rng.random)
        assert (start.cells, start.player, start.end_of_game) == before
        assert final.end_of_game != ONGOING
        if start.end_of_game != ONGOING:
            assert final is start
            continue
        # every mark of the start is still there; the new ones alternate, starting with the mover
        assert all(s == 0 or s == f for s, f in zip(start.cells, final.cells))
        new_x = sum(1 for s, f in zip(start.cells, final.cells) if s == 0 and f == X)
        new_o = sum(1 for s, f in zip(start.cells, final.cells) if s == 0 and f == O)
        assert (new_x - new_o) * start.player in (0, 1)
        # the game ended for the reason the rules give, at the first moment it could
        winner = winner_by_lines(final.cells)
        if winner:
            assert final.end_of_game == winner and final.player == -winner
        else:
            assert final.end_of_game == DRAW and 0 not in final.cells


def test_playout_results_have_the_exact_random_game_frequencies():
    n = 20_000
    rng = random.Random(2)
    counts = {X: 0, O: 0, DRAW: 0}
    for _ in range(n):
        counts[playout(State(), rng.random).end_of_game] += 1
    exact = exact_outcome(Random_Agent(X), Random_Agent(O))
    for code, p in ((X, exact["x_wins"]), (O, exact["o_wins"]), (DRAW, exact["draws"])):
        assert abs(counts[code] / n - p) <= tolerance([(1, p), (0, 1 - p)], n)


# --- primitive Monte Carlo --------------------------------------------------------------------

def test_analyse_from_the_empty_board_matches_the_exact_values():
    pnum = 10_000
    agent = PlayoutAgent(X, pnum=pnum, scoring="score", seed=3)
    scores = agent.analyse(State())
    exact = exact_after_each_move(State())
    assert set(scores) == set(State().legal_actions())
    for action, (wins, draws) in exact.items():
        expected = wins + 0.5 * draws
        allowed = tolerance([(1, wins), (0.5, draws), (0, 1 - wins - draws)], pnum)
        assert abs(scores[action] - expected) <= allowed, action
        assert abs(scores[action] - expected) <= 0.015, action  # the acceptance figure
    # exact: center 0.750, corner 0.671429, edge 0.600
    assert exact[(1, 1)][0] + 0.5 * exact[(1, 1)][1] == pytest.approx(0.75)
    assert exact[(0, 0)][0] + 0.5 * exact[(0, 0)][1] == pytest.approx(0.671429, abs=1e-6)
    assert exact[(0, 1)][0] + 0.5 * exact[(0, 1)][1] == pytest.approx(0.6)


@pytest.mark.parametrize("moves", ["0,1", "1,1 0,0", "0,0 1,1 2,2 0,2"])
def test_analyse_ratio_is_the_win_rate_for_the_side_to_move(moves):
    pnum = 4_000
    state = parse_moves(moves)
    agent = PlayoutAgent(state.player, pnum=pnum, seed=4)
    rates = agent.analyse(state)
    for action, (wins, _) in exact_after_each_move(state).items():
        assert abs(rates[action] - wins) <= tolerance([(1, wins), (0, 1 - wins)], pnum), action


def test_ratio_ranks_by_wins_then_draws_and_score_by_win_plus_half_draw():
    statistics = {(0, 0): Tally(wins=50, draws=0, losses=50),
                  (0, 1): Tally(wins=50, draws=10, losses=40),
                  (0, 2): Tally(wins=40, draws=40, losses=20)}
    rng = random.Random(5)
    assert PlayoutAgent(X, scoring="ratio").choose(statistics, rng) == (0, 1)
    assert PlayoutAgent(X, scoring="score").choose(statistics, rng) == (0, 2)  # 60 > 55


def test_equal_moves_are_chosen_between_at_random():
    statistics = {(0, 0): Tally(3, 1, 6), (2, 2): Tally(3, 1, 6), (1, 1): Tally(2, 3, 5)}
    agent = PlayoutAgent(X, scoring="ratio")
    chosen = {agent.choose(statistics, random.Random(seed)) for seed in range(40)}
    assert chosen == {(0, 0), (2, 2)}


def test_the_playout_agent_wins_and_blocks_when_it_must():
    win = parse_moves("0,0 1,0 0,1 1,1")       # X to move: 0,2 completes the top row
    block = parse_moves("0,0 1,1 0,1")         # O to move: 0,2 stops the top row
    assert PlayoutAgent(X, pnum=300, seed=6).get_action(win) == (0, 2)
    assert PlayoutAgent(O, pnum=300, seed=6).get_action(block) == (0, 2)


class Fake_Clock:
    """A clock that moves on by ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def wall_seconds(agent, state: State, tries: int = 3) -> list[float]:
    """Seconds a time-limited ``agent`` takes to decide in ``state``, a few times."""
    seconds = []
    for _ in range(tries):
        start = time.perf_counter()
        agent.decide(state)
        seconds.append(time.perf_counter() - start)
    return seconds


def test_the_time_limit_ends_the_rounds_at_the_first_check_after_it(monkeypatch):
    from tictactoe_rl.players import playout as module
    monkeypatch.setattr(module, "perf_counter", Fake_Clock(0.25))  # the deadline is read at 0.25
    statistics, _ = PlayoutAgent(X, timelimit=1.0).decide(State())
    assert {tally.playouts for tally in statistics.values()} == {4}  # checks at 0.5 ... 1.25
    tiny = PlayoutAgent(X, timelimit=1e-9).decide(State())[0]
    assert {tally.playouts for tally in tiny.values()} == {1}  # at least one round


def test_the_time_limit_is_honoured_on_the_clock():
    limit = 0.1
    seconds = wall_seconds(PlayoutAgent(X, timelimit=limit), State())
    assert min(seconds) >= limit  # never stops early
    assert max(seconds) < ENDS_WITHIN


def test_a_seeded_playout_agent_is_a_fixed_policy_and_says_so():
    state = parse_moves("1,1")
    first = PlayoutAgent(O, pnum=200, seed=7)
    again = PlayoutAgent(O, pnum=200, seed=7)
    probs = first.action_probs(state)
    assert len(probs) == 1 and list(probs.values()) == [1.0]
    assert probs == again.action_probs(state)
    assert first.get_action(state) in probs
    for unknown in (PlayoutAgent(O, pnum=200), PlayoutAgent(O, timelimit=0.01, seed=7)):
        with pytest.raises(PolicyUnknown):
            unknown.action_probs(state)


def test_a_move_right_after_analyse_is_chosen_by_the_numbers_shown():
    agent = PlayoutAgent(X, pnum=20, scoring="score")  # unseeded: every search differs
    for _ in range(20):
        scores = agent.analyse(State())
        best = max(scores.values())
        assert scores[agent.get_action(State())] == best


def test_no_move_once_the_game_is_over():
    over = parse_moves("0,0 1,0 0,1 1,1 0,2")
    for agent in (PlayoutAgent(O, pnum=10), MCTSAgent(O, iterations=10)):
        with pytest.raises(ValueError):
            agent.get_action(over)


# --- tree search ------------------------------------------------------------------------------

@pytest.mark.parametrize("side", [X, O])
def test_mcts_never_loses_on_any_line(side):
    """The exact worst-case walk: every opponent move everywhere, the agent seeded (a fixed
    policy with the default budget), so no line of play beats it."""
    agent = MCTSAgent(side, seed=0)
    value, line = worst_case(agent)
    assert line is None and value >= 0


def test_mcts_analyse_reports_visits_and_values():
    budget = 500
    state = parse_moves("1,1")
    values = MCTSAgent(O, iterations=budget, seed=8).analyse(state)
    visits = MCTSAgent(O, iterations=budget, seed=8, show="visits").analyse(state)
    assert set(values) == set(visits) == set(state.legal_actions())
    assert sum(visits.values()) == budget
    assert all(0 <= v <= 1 for v in values.values())
    # a corner is the only reply that does not lose; the search must prefer it
    best = max(visits, key=visits.get)
    assert best in {(0, 0), (0, 2), (2, 0), (2, 2)}
    assert minimax_value(state.children()[best]) == 0


def test_mcts_proves_a_win_and_takes_it():
    state = parse_moves("0,0 1,0 0,1 1,1")
    statistics, choice = MCTSAgent(X, iterations=DEFAULT_ITERATIONS, seed=9).decide(state)
    assert choice == (0, 2) and statistics[choice].proven == 1.0
    assert sum(edge.visits for edge in statistics.values()) < DEFAULT_ITERATIONS  # stopped early


def test_mcts_time_budget_is_honoured(monkeypatch):
    limit = 0.1
    agent = MCTSAgent(X, time=limit, seed=10)
    seconds = wall_seconds(agent, State())
    assert min(seconds) >= limit
    assert max(seconds) < ENDS_WITHIN
    with pytest.raises(PolicyUnknown):
        agent.action_probs(State())
    from tictactoe_rl.players import mcts as module
    monkeypatch.setattr(module, "perf_counter", Fake_Clock(0.25))
    visits = MCTSAgent(X, time=1.0, show="visits").analyse(State())
    assert sum(visits.values()) == 4


def test_mcts_choice_prefers_proofs_then_visits():
    statistics = {(0, 0): Edge(900, 0.9, 0.0), (1, 1): Edge(50, 0.5, None),
                  (2, 2): Edge(60, 0.4, None)}
    assert MCTSAgent(X).choose(statistics, random.Random(0)) == (2, 2)
    statistics[(0, 1)] = Edge(3, 1.0, 1.0)
    assert MCTSAgent(X).choose(statistics, random.Random(0)) == (0, 1)


# --- agent specs ------------------------------------------------------------------------------

def test_options_come_from_the_spec():
    agent = make_agent("playout:pnum=200,scoring=score", X, seed=1)
    assert isinstance(agent, PlayoutAgent)
    assert (agent.pnum, agent.scoring, agent.timelimit, agent.seed) == (200, "score", None, 1)
    assert make_agent("playout:timelimit=0.05", O).timelimit == 0.05
    assert make_agent("mcts:time=0.05", X).time == 0.05
    mcts = make_agent("mcts:iterations=300,exploration=1,show=visits", O)
    assert isinstance(mcts, MCTSAgent)
    assert (mcts.iterations, mcts.exploration, mcts.show) == (300, 1.0, "visits")


@pytest.mark.parametrize("spec", [
    "playout:depth=3", "playout:pnum=0", "playout:pnum=many", "playout:pnum=2.5",
    "playout:scoring=best", "playout:timelimit=-1", "playout:pnum",
    "mcts:time=0", "mcts:time=fast", "mcts:iterations=-5", "mcts:iterations=10,time=0.1",
    "mcts:exploration=-1", "mcts:show=everything", "mcts:pnum=100",
])
def test_bad_options_are_spec_errors(spec):
    with pytest.raises(SpecError) as error:
        make_agent(spec, X)
    assert "\n" not in str(error.value)
