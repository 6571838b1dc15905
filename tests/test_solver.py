"""Exact game theory: the exact reference numbers pinned to 6 decimals, the course's fixtures, worst cases."""

import math

import pytest

from AI_Agent import AI_Agent
from Episode import play_game, play_games
from tictactoe_rl.players.minimax import MinimaxAgent
from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced
from tictactoe_rl.exact.solver import best_response, exact_outcome, minimax_value, safe_actions
from tictactoe_rl.exact.worst import worst_case
from State import O, O_WON, X, X_WON, State, all_states
from TicTacToe import TicTacToe

OPPONENTS = {"random": Random_Agent, "advanced": Random_Agent_Advanced}


class Policy_Agent:
    """A fixed deterministic policy ``{state: action}`` as an agent (e.g. a best response).
    Positions the policy does not cover get a safe move."""

    def __init__(self, player: int, policy: dict) -> None:
        self.player = player
        self.policy = policy

    def action_probs(self, state: State) -> dict:
        return {self.policy.get(state) or safe_actions(state)[0]: 1.0}


def rounded(outcome):
    return tuple(round(outcome[k], 6) for k in ("x_wins", "o_wins", "draws"))


def test_perfect_play_is_a_draw():
    assert minimax_value() == 0
    assert minimax_value(State([[1, 1, 0], [-1, -1, 0], [0, 0, 0]], player=X)) == 1
    assert minimax_value(State([[1, 1, 0], [-1, -1, 0], [1, 0, 0]], player=O)) == -1


def test_random_against_random():
    assert rounded(exact_outcome(Random_Agent(X), Random_Agent(O))) == (0.584921, 0.288095, 0.126984)


@pytest.mark.parametrize("first_move, x_wins, draws, score", [
    ((1, 1), 0.692857, 0.114286, 0.750),
    ((0, 0), 0.607143, 0.128571, 0.671),
    ((0, 1), 0.535714, 0.128571, 0.600),
])
def test_random_playouts_after_the_first_move(first_move, x_wins, draws, score):
    after = State().children()[first_move]
    outcome = exact_outcome(Random_Agent(X), Random_Agent(O), after)
    assert round(outcome["x_wins"], 6) == x_wins and round(outcome["draws"], 6) == draws
    assert round(outcome["x_wins"] + outcome["draws"] / 2, 3) == score


@pytest.mark.parametrize("side, opponent, unbeatable, expected", [
    (X, "random", False, (0.994792, 0.0, 0.005208)),
    (X, "random", True, (0.994792, 0.0, 0.005208)),
    (X, "advanced", False, (0.942813, 0.0, 0.057188)),
    (X, "advanced", True, (0.942813, 0.0, 0.057188)),
    (O, "random", False, (0.932275, 0.007407, 0.060317)),
    (O, "random", True, (0.916402, 0.0, 0.083598)),
    (O, "advanced", False, (0.505989, 0.033016, 0.460995)),
    (O, "advanced", True, (0.397968, 0.0, 0.602032)),
])
def test_best_possible_results(side, opponent, unbeatable, expected):
    other = OPPONENTS[opponent](-side)
    outcome, policy = best_response(other, unbeatable=unbeatable)
    wins, losses = (outcome["x_wins"], outcome["o_wins"]) if side == X \
        else (outcome["o_wins"], outcome["x_wins"])
    assert (round(wins, 6), round(losses, 6), round(outcome["draws"], 6)) == expected
    # The policy really gets that result, and the unbeatable ones cannot be beaten.
    agent = Policy_Agent(side, policy)
    pair = (agent, other) if side == X else (other, agent)
    assert rounded(exact_outcome(*pair)) == rounded(outcome)
    assert (worst_case(agent)[0] >= 0) == (unbeatable or side == X)


@pytest.mark.slow
def test_course_x_fixture(fixture_path):
    agent = AI_Agent(X, Q_table_PATH=fixture_path("Q_MC_X_vs_advanced.pth"), train=False)
    assert rounded(exact_outcome(agent, Random_Agent(O))) == (0.986979, 0.0, 0.013021)
    assert rounded(exact_outcome(agent, Random_Agent_Advanced(O))) == (0.942813, 0.0, 0.057188)
    assert worst_case(agent) == (0, None)


@pytest.mark.slow
def test_course_o_fixture_and_the_line_that_beats_it(fixture_path):
    agent = AI_Agent(O, Q_table_PATH=fixture_path("Q_MC_O_vs_random.pth"), train=False)
    assert rounded(exact_outcome(Random_Agent(X), agent)) == (0.017989, 0.905820, 0.076190)
    assert rounded(exact_outcome(Random_Agent_Advanced(X), agent)) == (0.131767, 0.293926, 0.574307)
    value, line = worst_case(agent)
    assert value == -1
    env = TicTacToe()
    for number, action in enumerate(line):
        if env.state.player == O:
            assert action == agent.get_action(env.state), f"move {number} is not the agent's"
        env.move(action)
    assert env.state.end_of_game == X_WON


@pytest.mark.slow
def test_course_fixture_plays_the_courses_moves(fixture_path):
    """The course picks the first action with the largest Q (numpy argmax over legal actions)."""
    agent = AI_Agent(X, Q_table_PATH=fixture_path("Q_MC_X_vs_advanced.pth"), train=False)
    for state in all_states():
        if state.player == X and not state.end_of_game:
            legal = state.legal_actions()
            values = [agent.Q.get((state, a), 0.0) for a in legal]
            assert agent.get_action(state) == legal[values.index(max(values))]


@pytest.mark.parametrize("style", ["fast", "greedy"])
@pytest.mark.parametrize("side", [X, O])
def test_minimax_agent_never_loses(style, side):
    assert worst_case(MinimaxAgent(side, style=style)) == (0, None)


def test_minimax_prefers_the_quickest_win():
    # X can win at once on row 0 or set up other wins; it takes the immediate win.
    state = State([[1, 1, 0], [-1, -1, 0], [1, 0, 0]], player=O)
    assert MinimaxAgent(O).action_probs(state) == {(1, 2): 1.0}


def test_greedy_minimax_is_the_best_unbeatable_reply_to_random():
    outcome = exact_outcome(Random_Agent(X), MinimaxAgent(O, style="greedy"))
    assert round(outcome["o_wins"], 6) == 0.916402 and outcome["x_wins"] == 0


def test_worst_case_finds_the_shortest_beating_line():
    value, line = worst_case(Random_Agent(O))
    assert value == -1 and len(line) == 5  # X's quickest possible win


class Sometimes_Off_The_Board(Random_Agent):
    """Random, except that on the empty board it plays off the board a quarter of the time."""

    def action_probs(self, state):
        probs = super().action_probs(state)
        if state != State():
            return probs
        return {(3, 3): 0.25, **{action: 0.75 * p for action, p in probs.items()}}


def test_an_illegal_move_loses_and_its_chance_is_reported():
    """As in the environments, an illegal move ends the game as a loss for the side playing it."""
    fair = exact_outcome(Random_Agent(X), Random_Agent(O))
    outcome = exact_outcome(Sometimes_Off_The_Board(X), Random_Agent(O))
    assert outcome["x_illegal"] == pytest.approx(0.25) and outcome["o_illegal"] == 0
    assert outcome["x_wins"] == pytest.approx(0.75 * fair["x_wins"])
    assert outcome["o_wins"] == pytest.approx(0.25 + 0.75 * fair["o_wins"])
    assert outcome["draws"] == pytest.approx(0.75 * fair["draws"])
    assert fair["x_illegal"] == fair["o_illegal"] == 0
    # the other side's view: best_response exploits nothing more, worst_case finds the one move
    assert worst_case(Sometimes_Off_The_Board(X)) == (-1, [(3, 3)])
    best, _ = best_response(Sometimes_Off_The_Board(X))
    assert best["x_illegal"] == pytest.approx(0.25) and best["o_wins"] > 0.25


def test_exact_outcome_rejects_what_is_no_distribution():
    class Negative(Random_Agent):
        def action_probs(self, state):
            return {action: -1.0 for action in state.legal_actions()}

    with pytest.raises(ValueError, match="negative probability"):
        exact_outcome(Negative(X), Random_Agent(O))


@pytest.mark.parametrize("x_agent, o_agent", [
    (Random_Agent(X, seed=1), Random_Agent(O, seed=2)),
    (Random_Agent_Advanced(X, seed=3), Random_Agent(O, seed=4)),
    (Random_Agent(X, seed=5), MinimaxAgent(O, seed=6)),
])
def test_sampled_games_agree_with_exact_probabilities(x_agent, o_agent):
    games = 20_000
    counts = play_games(x_agent, o_agent, TicTacToe(), games)
    exact = exact_outcome(x_agent, o_agent)
    for observed, key in zip(counts, ("x_wins", "o_wins", "draws")):
        p = exact[key]
        standard_error = math.sqrt(max(p * (1 - p), 1e-12) / games)
        assert abs(observed / games - p) <= 4 * standard_error + 1e-12, key


def test_minimax_against_itself_draws():
    moves, final = play_game(MinimaxAgent(X, seed=1), MinimaxAgent(O, seed=2), TicTacToe())
    assert final.end_of_game not in (X_WON, O_WON) and len(moves) == 9


def best_after_move(opponent, state, action):
    """X's best win probability against ``opponent`` after X plays ``action`` in ``state``."""
    child = state.children()[action]
    total = 0.0
    for reply, p in opponent.action_probs(child).items():
        position = child.children()[reply]
        total += p * (float(position.end_of_game == X_WON) if position.end_of_game
                      else best_response(opponent, state=position)[0]["x_wins"])
    return total


def test_no_x_policy_wins_99_percent_against_random_and_93_5_against_advanced():
    """Why the shipped X table cannot meet both of those targets: to win 99.0 % against random,
    X must open in a corner (the centre allows at most 98.96 %, an edge 98.70 %) and answer O's
    centre with an edge next to its corner; that answer allows at most 91.15 % against advanced."""
    random_o, advanced_o = Random_Agent(O), Random_Agent_Advanced(O)
    empty = State()
    assert round(best_after_move(random_o, empty, (1, 1)), 6) == 0.989583
    assert round(best_after_move(random_o, empty, (0, 1)), 6) == 0.986979
    assert round(best_after_move(random_o, empty, (0, 0)), 6) == 0.994792
    corner_centre = State([1, 0, 0, 0, -1, 0, 0, 0, 0], X)
    reach = random_o.action_probs(empty.children()[(0, 0)])[(1, 1)]
    for action in corner_centre.legal_actions():
        cost = reach * (best_after_move(random_o, corner_centre, (0, 1))
                        - best_after_move(random_o, corner_centre, action))
        if 0.994792 - cost >= 0.990:  # the only answers that keep 99 % against random ...
            assert action in ((0, 1), (1, 0))
    # ... and with them the best against advanced: its optimum, less what the forced answer costs
    # in the one position where the two best replies differ (every other choice stays optimal).
    best = best_response(advanced_o)[0]["x_wins"]
    reach = advanced_o.action_probs(empty.children()[(0, 0)])[(1, 1)]
    best_answer = max(best_after_move(advanced_o, corner_centre, a)
                      for a in corner_centre.legal_actions())
    forced = best - reach * (best_answer - best_after_move(advanced_o, corner_centre, (0, 1)))
    assert round(best, 6) == 0.942813 and round(forced, 6) == 0.911458 < 0.935
