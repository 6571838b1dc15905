"""Nim (nim/): the course's nim.py behaviour by behaviour (its exceptions, train's and play's
lines, play's pauses), the folder run on its own, the project's training (better.py) and its
target -- perfect play after 10,000 games for seeds 0-9 --, the exact solver and judge, the
command line, and the self-check of the four functions a student writes."""

import ast
import builtins
import inspect
import itertools
import os
import random
import shutil
import subprocess
import sys
import types
from functools import reduce
from operator import xor
from pathlib import Path

import pytest

NIM_DIR = Path(__file__).resolve().parent.parent / "nim"
sys.path.append(str(NIM_DIR))  # appended: a project module of the same name would come first

import better  # noqa: E402
import judge  # noqa: E402
import nim  # noqa: E402
import play as nim_play  # noqa: E402
from better import course_train, learn_from_game, train_better  # noqa: E402
from nim import Nim, NimAI, play, train  # noqa: E402
from tictactoe_rl.selfcheck.common import Failure, NotWritten  # noqa: E402
from tictactoe_rl.selfcheck.nim_piece import check_nim  # noqa: E402

INVALID = "Invalid move, try again."
START = [1, 3, 5, 7]


# --- Nim: the course's game ----------------------------------------------------------------------

def test_new_game_copies_the_piles():
    initial = [1, 3, 5, 7]
    game = Nim(initial)
    game.move((3, 2))
    assert initial == [1, 3, 5, 7] and game.piles == [1, 3, 5, 5]
    fresh = Nim()
    assert (fresh.piles, fresh.player, fresh.winner) == ([1, 3, 5, 7], 0, None)
    assert Nim().piles == [1, 3, 5, 7]             # the default list is never changed
    assert inspect.signature(Nim).parameters["initial"].default == [1, 3, 5, 7]


@pytest.mark.parametrize("piles", [[], [0, 0, 0, 0]])
def test_empty_games_are_accepted_as_in_the_course(piles):
    game = Nim(piles)
    assert (game.piles, game.player, game.winner) == (piles, 0, None)
    assert Nim.available_actions(piles) == set()
    with pytest.raises(Exception) as error:
        game.move((0, 1))
    assert str(error.value) == ("Invalid pile" if not piles else "Invalid number of objects")
    with pytest.raises(Exception, match="^Invalid pile$"):
        game.move((4, 1))


def test_available_actions_is_a_fresh_set_of_pairs():
    assert Nim.available_actions([1, 0, 2]) == {(0, 1), (2, 1), (2, 2)}
    assert Nim.available_actions((0, 0)) == set()
    actions = Nim.available_actions(START)
    assert len(actions) == 16
    actions.clear()  # the caller's copy: the next call is unaffected
    assert len(Nim.available_actions(START)) == 16


def test_players_take_turns():
    assert Nim.other_player(0) == 1 and Nim.other_player(1) == 0
    game = Nim()
    game.switch_player()
    assert game.player == 1
    game.move((0, 1))
    assert game.player == 0 and game.winner is None


@pytest.mark.parametrize("move", [(3, 2), [3, 2]])
def test_a_move_is_a_tuple_or_a_list(move):
    game = Nim()
    game.move(move)
    assert game.piles == [1, 3, 5, 5] and game.player == 1


def test_whoever_takes_the_last_object_loses():
    game = Nim([1, 1])
    game.move((0, 1))  # player 0
    game.move([1, 1])  # player 1 takes the last one
    assert game.winner == 0 and game.piles == [0, 0] and game.player == 0


@pytest.mark.parametrize("action, message", [
    ((4, 1), "Invalid pile"), ((-1, 1), "Invalid pile"), ((9, 0), "Invalid pile"),
    ((0, 2), "Invalid number of objects"), ((1, 0), "Invalid number of objects"),
    ((1, -1), "Invalid number of objects"), ([1, 4], "Invalid number of objects"),
])
def test_illegal_moves_raise_the_courses_exception_and_change_nothing(action, message):
    game = Nim()
    with pytest.raises(Exception) as error:
        game.move(action)
    assert isinstance(error.value, Exception) and str(error.value) == message
    assert game.piles == [1, 3, 5, 7] and game.player == 0 and game.winner is None


@pytest.mark.parametrize("action", [(0, 1), (9, 9), (0, 0)])
def test_no_move_after_the_game_is_won(action):
    game = Nim([1])
    game.move((0, 1))
    with pytest.raises(Exception) as error:      # checked before the pile and the count
        game.move(action)
    assert str(error.value) == "Game already won"


# --- NimAI: the four functions of the exercise ---------------------------------------------------

def test_defaults():
    ai = NimAI()
    assert (ai.alpha, ai.epsilon, ai.q) == (0.5, 0.1, {})


def test_get_q_value_is_zero_when_unknown_and_keys_are_tuples():
    ai = NimAI()
    assert ai.get_q_value([1, 3, 5, 7], (3, 2)) == 0
    ai.q[((0, 0, 0, 2), (3, 2))] = -1
    assert ai.get_q_value([0, 0, 0, 2], (3, 2)) == -1
    assert ai.get_q_value((0, 0, 0, 2), (3, 2)) == -1
    assert ai.get_q_value([0, 0, 0, 2], (3, 1)) == 0


def test_update_q_value_arithmetic_and_tuple_key():
    ai = NimAI()
    ai.update_q_value([0, 0, 0, 2], (3, 2), 0, -1, 0)
    assert ai.q == {((0, 0, 0, 2), (3, 2)): -0.5}
    ai.update_q_value([1, 3], (1, 1), 0.25, -1, 0.5)      # 0.25 + 0.5 * (-0.5 - 0.25)
    assert ai.q[((1, 3), (1, 1))] == -0.125
    slow = NimAI(alpha=0.25)
    slow.update_q_value([2], (0, 1), 0.5, 1, 0.25)        # 0.5 + 0.25 * (1.25 - 0.5)
    assert slow.q[((2,), (0, 1))] == 0.6875
    assert all(type(state) is tuple for state, _ in ai.q)


def test_best_future_reward():
    ai = NimAI()
    assert ai.best_future_reward([0, 0, 0]) == 0                  # no actions
    assert ai.best_future_reward([]) == 0
    assert ai.best_future_reward([1, 2]) == 0                     # nothing known
    ai.q[((1, 2), (0, 1))] = -0.5
    ai.q[((1, 2), (1, 1))] = -0.25
    assert ai.best_future_reward([1, 2]) == 0                     # (1, 2) is unknown: counts 0
    ai.q[((1, 2), (1, 2))] = -0.75
    assert ai.best_future_reward([1, 2]) == -0.25                 # all known
    ai.q[((2, 1), (0, 1))] = 0.9                                  # another state: ignored
    assert ai.best_future_reward((1, 2)) == -0.25


def test_update_moves_towards_reward_plus_best_future():
    ai = NimAI()
    ai.q[((1, 2), (1, 1))] = 0.5
    ai.q[((1, 2), (0, 1))] = -1
    ai.q[((1, 2), (1, 2))] = 0.25
    ai.q[((3, 2), (0, 2))] = 0.25
    ai.update([3, 2], (0, 2), [1, 2], -1)                 # 0.25 + 0.5 * ((-1 + 0.5) - 0.25)
    assert ai.q[((3, 2), (0, 2))] == -0.125


def make_ai(values, epsilon=0.1):
    ai = NimAI(epsilon=epsilon)
    for action, value in values.items():
        ai.q[((1, 3), action)] = value
    return ai


def test_choose_action_greedy_never_explores():
    ai = make_ai({(0, 1): -0.5, (1, 1): 0.25, (1, 2): 0.75}, epsilon=1.0)
    random.seed(0)
    assert {ai.choose_action([1, 3], epsilon=False) for _ in range(500)} == {(1, 2)}


def test_choose_action_unknown_moves_count_zero():
    ai = make_ai({(0, 1): -0.5, (1, 1): -0.25, (1, 2): -0.75})
    assert ai.choose_action((1, 3), epsilon=False) == (1, 3)


def test_choose_action_greedy_ties_go_to_a_best_action():
    ai = make_ai({(0, 1): -0.5, (1, 1): 0.75, (1, 3): 0.75, (1, 2): 0.5})
    random.seed(1)
    assert {ai.choose_action([1, 3], epsilon=False) for _ in range(200)} <= {(1, 1), (1, 3)}


def test_choose_action_explores_with_probability_epsilon():
    ai = make_ai({(1, 2): 1.0})                    # best of 4 actions, epsilon 0.1
    random.seed(2)
    draws = 20_000
    picks = [ai.choose_action([1, 3]) for _ in range(draws)]
    assert set(picks) == Nim.available_actions([1, 3])
    # A random action is one of the other 3 with probability 0.1 * 3/4 (5 standard deviations).
    assert abs(sum(p != (1, 2) for p in picks) / draws - 0.075) < 0.01
    for other in [(0, 1), (1, 1), (1, 3)]:
        assert abs(picks.count(other) / draws - 0.025) < 0.006


def test_nim_py_imports_only_numpy_pandas_and_the_standard_library():
    allowed = set(sys.stdlib_module_names) | {"numpy", "pandas"}
    tree = ast.parse((NIM_DIR / "nim.py").read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert imported and imported <= allowed, imported - allowed


# --- train(): the course's loop ------------------------------------------------------------------

def test_train_prints_the_course_lines(capsys):
    ai = train(3)
    assert capsys.readouterr().out.splitlines() == [
        "Playing training game 1", "Playing training game 2", "Playing training game 3",
        "Done training"]
    assert isinstance(ai, NimAI) and (ai.alpha, ai.epsilon) == (0.5, 0.1)
    assert ai.q and all(type(s) is tuple and type(a) is tuple and len(a) == 2 for s, a in ai.q)
    assert list(inspect.signature(train).parameters) == ["n"]


class ScriptedAI(NimAI):
    """A NimAI whose moves are given in advance (learning as usual); it records the epsilon
    argument of every choice."""

    moves: list = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.moves = list(type(self).moves)
        self.epsilons = []

    def choose_action(self, state, epsilon=True):
        self.epsilons.append(epsilon)
        return self.moves.pop(0)


def scripted(moves):
    return type("Scripted", (ScriptedAI,), {"moves": moves})


# Player 0 empties pile 3, player 1 pile 2, player 0 pile 1; player 1 must take the last object.
ONE_GAME = [(3, 7), (2, 5), (1, 3), (0, 1)]


def test_train_learns_a_move_once_the_opponent_has_replied(monkeypatch, capsys):
    monkeypatch.setattr(nim, "NimAI", scripted(ONE_GAME * 2))
    ai = train(1)
    # A move is updated in the position where its player moves again, with reward 0 and the best
    # value there (nothing known yet: 0); the last move gets -1, the winner's last move +1.
    assert ai.q == {((1, 3, 5, 7), (3, 7)): 0, ((1, 3, 5, 0), (2, 5)): 0,
                    ((1, 0, 0, 0), (0, 1)): -0.5, ((1, 3, 0, 0), (1, 3)): 0.5}
    assert ai.epsilons == [True] * 4
    again = train(1)
    assert again.q == ai.q and again is not ai                 # each train(n) starts afresh
    capsys.readouterr()


def test_train_second_game_uses_what_the_first_learned(monkeypatch, capsys):
    monkeypatch.setattr(nim, "NimAI", scripted(ONE_GAME * 2))
    ai = train(2)
    # (3, 7) from 1 3 5 7: 0 + 0.5 * (0 + best of 1 3 0 0, which is 0.5) = 0.25;
    # (2, 5) from 1 3 5 0: 0 + 0.5 * (0 + best of 1 0 0 0, which is -0.5) = -0.25;
    # the last move: -0.5 + 0.5 * (-1 + 0.5) = -0.75; the winner's last: 0.5 + 0.5 * 0.5 = 0.75.
    assert ai.q == {((1, 3, 5, 7), (3, 7)): 0.25, ((1, 3, 5, 0), (2, 5)): -0.25,
                    ((1, 0, 0, 0), (0, 1)): -0.75, ((1, 3, 0, 0), (1, 3)): 0.75}
    assert capsys.readouterr().out.splitlines()[-1] == "Done training"


# --- play(): the course's game in the terminal ---------------------------------------------------

def script(monkeypatch, answers):
    """Feed ``answers`` to input() (EOFError when they run out); time.sleep records its pauses
    instead of waiting. Returns (the answers left, the pauses)."""
    answers = list(answers)
    pauses = []

    def fake_input(prompt=""):
        if not answers:
            raise EOFError
        return answers.pop(0)
    monkeypatch.setattr(builtins, "input", fake_input)
    monkeypatch.setattr(nim.time, "sleep", pauses.append)
    return answers, pauses


def piles_lines(piles):
    return ["", "Piles:", *(f"Pile {i}: {pile}" for i, pile in enumerate(piles)), ""]


def test_play_human_first_prints_the_courses_lines(monkeypatch, capsys):
    left, pauses = script(monkeypatch, [
        "9", "1",      # no such pile
        "1", "4",      # too many
        "0", "0",      # none
        "3", "7",
        "1", "3",
    ])
    ai = scripted([(2, 5), (0, 1)])()
    assert play(ai, human_player=0) is None
    assert left == [] and pauses == [1, 1] and ai.epsilons == [False, False]
    assert capsys.readouterr().out.splitlines() == [
        *piles_lines([1, 3, 5, 7]), "Your Turn", INVALID, INVALID, INVALID,
        *piles_lines([1, 3, 5, 0]), "AI's Turn", "AI chose to take 5 from pile 2.",
        *piles_lines([1, 3, 0, 0]), "Your Turn",
        *piles_lines([1, 0, 0, 0]), "AI's Turn", "AI chose to take 1 from pile 0.",
        "", "GAME OVER", "Winner is Human"]


def test_play_ai_first_and_wins(monkeypatch, capsys):
    left, pauses = script(monkeypatch, ["2", "5", "0", "1"])
    ai = scripted([(3, 7), (1, 3)])()
    play(ai, human_player=1)
    out = capsys.readouterr().out.splitlines()
    assert left == [] and pauses == [1, 1]
    assert out[7:9] == ["AI's Turn", "AI chose to take 7 from pile 3."]
    assert out[-3:] == ["", "GAME OVER", "Winner is AI"]


def test_play_the_pause_comes_before_the_ais_move(monkeypatch, capsys):
    events = []
    monkeypatch.setattr(nim.time, "sleep", lambda seconds: events.append(("sleep", seconds)))

    class Watched(ScriptedAI):
        moves = [(3, 7), (2, 5), (1, 3), (0, 1)]

        def choose_action(self, state, epsilon=True):
            events.append(("choose", tuple(state)))
            return super().choose_action(state, epsilon)

    # Both sides are the AI's here: human_player 2 is nobody, so every turn is the AI's.
    play(Watched(), human_player=2)
    assert events == [("sleep", 1), ("choose", (1, 3, 5, 7)), ("sleep", 1),
                      ("choose", (1, 3, 5, 0)), ("sleep", 1), ("choose", (1, 3, 0, 0)),
                      ("sleep", 1), ("choose", (1, 0, 0, 0))]
    assert capsys.readouterr().out.splitlines()[-1] == "Winner is AI"


def test_play_who_starts_is_drawn_when_not_given(monkeypatch, capsys):
    seen = set()
    for seed in range(8):
        random.seed(seed)
        script(monkeypatch, [])
        with pytest.raises(EOFError):       # the human is asked at once, or after the AI
            play(scripted([(3, 7)])())
        seen.add("AI's Turn" in capsys.readouterr().out)
    assert seen == {True, False}


def test_play_reads_whole_numbers_as_the_course_does(monkeypatch, capsys):
    script(monkeypatch, ["x"])
    with pytest.raises(ValueError):
        play(NimAI(), human_player=0)


# --- the project's training (better.py) ----------------------------------------------------------

def test_course_train_is_the_course_loop_from_any_piles(capsys):
    random.seed(5)
    ours = course_train(300)
    random.seed(5)
    assert ours.q == train(300).q
    course_train(20, initial=[1])           # a game of one move: only the loser's move learns
    capsys.readouterr()


def test_learn_from_game_exact_updates():
    ai = scripted([(0, 1), (0, 1)] * 2)()
    learn_from_game(ai, [2])
    # (0, 1) from [2]: -best([1]) = 0, so 0; then [1]: taking the last, -1 -> -0.5;
    # the winner's last move, (0, 1) from [2]: +1 -> 0.5.
    assert ai.q == {((2,), (0, 1)): 0.5, ((1,), (0, 1)): -0.5}
    learn_from_game(ai, [2])
    # [2]: 0.5 + 0.5 * (0.5 - 0.5) = 0.5, then +1: 0.75; [1]: -0.5 + 0.5 * (-1 + 0.5) = -0.75.
    assert ai.q == {((2,), (0, 1)): 0.75, ((1,), (0, 1)): -0.75}


def test_a_move_is_worth_minus_the_opponents_best():
    ai = scripted([(0, 1)] * 3)()
    ai.q[((2,), (0, 1))] = 0.5        # what the opponent expects from [2]
    learn_from_game(ai, [3])
    # Taking 1 from [3] leaves [2], where the opponent expects 0.5: target -0.5, so -0.25.
    assert ai.q[((3,), (0, 1))] == -0.25
    # The opponent's move from [2] leaves [1], where nothing is known (0): target 0, so 0.25;
    # then the last object is taken (-1 -> -0.5), which makes the opponent's move the winner's
    # last: 0.25 + 0.5 * (1 - 0.25).
    assert ai.q[((1,), (0, 1))] == -0.5
    assert ai.q[((2,), (0, 1))] == 0.625


def test_half_of_the_games_start_from_random_positions(monkeypatch, capsys):
    starts = []
    monkeypatch.setattr(better, "learn_from_game", lambda ai, piles: starts.append(tuple(piles)))
    random.seed(3)
    train_better(4000, initial=START, quiet=True)
    from_start = starts.count((1, 3, 5, 7)) / len(starts)
    assert abs(from_start - (0.5 + 0.5 / 383)) < 0.04
    assert all(0 <= p <= top for s in starts for p, top in zip(s, START))
    assert all(any(s) for s in starts) and len(set(starts)) > 300


def test_better_training_prints_the_course_lines_or_a_progress_line(capsys):
    train_better(3)
    assert capsys.readouterr().out.splitlines() == [
        "Playing training game 1", "Playing training game 2", "Playing training game 3",
        "Done training"]
    train_better(50, quiet=True)
    out, err = capsys.readouterr()
    assert out.splitlines() == ["Done training"] and "50/50 games" in err


def test_greedy_moves_and_action_probs():
    ai = make_ai({(1, 1): 0.5, (1, 3): 0.5})
    assert better.greedy_moves(ai, [1, 3]) == [(1, 1), (1, 3)]
    assert better.greedy_moves(ai, (0, 0)) == []
    assert better.action_probs(ai, [1, 3], epsilon=False) == {
        (0, 1): 0, (1, 1): 0.5, (1, 2): 0, (1, 3): 0.5}
    probs = better.action_probs(ai, [1, 3])
    assert probs[(0, 1)] == pytest.approx(0.025) and probs[(1, 1)] == pytest.approx(0.475)
    assert sum(probs.values()) == pytest.approx(1)
    with pytest.raises(ValueError, match="game is over"):
        better.action_probs(ai, [0, 0])


# --- the exact solver ----------------------------------------------------------------------------

@pytest.mark.parametrize("piles, mover_wins", [
    ([1], False), ([2], True), ([3], True), ([1, 1], True), ([1, 1, 1], False),
    ([2, 2], False), ([1, 2, 3], False), ([1, 2, 2], True), ([0, 0], True),
    ([1, 3, 5, 7], False), ([2, 4, 6, 8], True), ([0, 0, 5, 0], True),
])
def test_known_positions(piles, mover_wins):
    assert judge.is_win(piles) is mover_wins


def bouton(piles):
    """Bouton's rule for misere Nim, written independently of the search."""
    if all(p <= 1 for p in piles):
        return sum(piles) % 2 == 0
    return reduce(xor, piles, 0) != 0


def test_solver_agrees_with_boutons_rule():
    for piles in itertools.product(range(3), range(4), range(5), range(7)):
        assert judge.is_win(piles) == bouton(piles), piles


def test_winning_moves():
    assert judge.winning_moves([2]) == {(0, 1)}
    assert judge.winning_moves([1, 1]) == {(0, 1), (1, 1)}
    assert judge.winning_moves([1, 3, 5, 7]) == set()
    assert judge.winning_moves([1, 3, 5, 6]) == {(0, 1), (1, 1), (2, 1)}
    for piles in [(1, 3, 5, 6), (0, 2, 5, 7), (0, 0, 1, 4)]:
        assert judge.winning_moves(piles) == {a for a in judge.moves(piles)
                                              if not bouton(judge.after(piles, a))}


def test_the_course_reference_numbers():
    """For 1 3 5 7 the first player loses, and 335 of 383 positions are wins."""
    everywhere = judge.positions(START)
    assert len(everywhere) == 383
    assert sum(map(judge.is_win, everywhere)) == 335
    assert not judge.is_win(START)


# --- the judge -----------------------------------------------------------------------------------

def perfect_ai(initial):
    ai = NimAI()
    for piles in judge.positions(initial):
        for action in judge.winning_moves(piles):
            ai.q[(piles, action)] = 1.0
    return ai


def test_judge_two_single_objects():
    report = judge.judge(NimAI(), [1, 1])         # positions (0, 1), (1, 0), (1, 1)
    assert (report.positions, report.winning, report.losing) == (3, 1, 2)
    assert report.greedy_winning == 1 and report.share == 1.0   # both moves of (1, 1) win
    assert report.wins_vs_perfect == 1


def test_judge_an_ai_that_always_takes_one():
    ai = NimAI()
    for size in (1, 2, 3):
        ai.q[((size,), (0, 1))] = 1.0
    report = judge.judge(ai, [3])                  # wins: (2) take 1 (right), (3) take 2 (wrong)
    assert (report.winning, report.greedy_winning, report.share) == (2, 1, 0.5)
    assert report.wins_vs_perfect == 1


def test_judge_perfect_play_and_report():
    report = judge.judge(perfect_ai((1, 3, 5, 7)), START)
    assert (report.share, report.greedy_winning, report.wins_vs_perfect) == (1.0, 335, 335)
    text = str(report)
    assert "383 non-empty positions, 335 of them wins" in text
    assert "the first player loses" in text and "335 of 335 winning positions (100.0 %)" in text


def test_judge_counts_ties_with_a_losing_move_as_misses():
    ai = perfect_ai((1, 3, 5, 7))
    ai.q[((0, 0, 0, 2), (3, 2))] = 1.0        # taking both loses; now tied with taking one
    report = judge.judge(ai, START)
    assert report.greedy_winning == 334 and report.wins_vs_perfect < 335


def test_judge_refuses_huge_games():
    with pytest.raises(ValueError, match="too many to judge"):
        judge.positions([50] * 4)


# --- the command line ----------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["--games", "0"], ["--games", "x"], ["--games", "-5"], ["--games", "٣"], ["--piles"],
    ["--piles", "1", "x"], ["--piles", "0", "0", "--judge"], ["--piles", "-1"],
    ["--piles", "51"], ["--piles"] + ["1"] * 11 + ["--judge"], ["--seed", "-1"], ["--bogus"],
    ["--judge", "--piles", "50", "50", "50", "50"], ["--piles", "2", "4"],
    ["--piles", "2", "4", "--judge", "--play"], ["--gam", "5"],
])
def test_bad_arguments_exit_2_with_one_line(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        nim_play.main(argv)
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "error" in err


def test_no_arguments_is_the_courses_play_py(monkeypatch):
    calls = []
    monkeypatch.setattr(nim_play, "train", lambda n: calls.append(("train", n)) or "the ai")
    monkeypatch.setattr(nim_play, "play", lambda ai, human_player=None, read_number=None:
                        calls.append(("play", ai, human_player, read_number)))
    assert nim_play.main([]) == 0
    assert calls == [("train", 10_000), ("play", "the ai", None, nim_play.ask_again)]


def test_judge_from_the_command_line(capsys):
    assert nim_play.main(["--games", "2000", "--seed", "1", "--quiet", "--judge"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "Done training" and "Playing training game" not in out
    assert "Piles 1 3 5 7: 383 non-empty positions, 335 of them wins" in out
    assert " of 335 winning positions (" in out and "Against a perfect player" in out


@pytest.mark.parametrize("argv, trainer", [
    ([], "train"), (["--quiet"], "course_train"), (["--better"], "train_better"),
    (["--better", "--quiet", "--games", "7"], "train_better"),
])
def test_which_training_runs(monkeypatch, argv, trainer):
    calls = []
    for name in ("train", "course_train", "train_better"):
        monkeypatch.setattr(nim_play, name, lambda *args, name=name, **kwargs:
                            calls.append((name, args, kwargs)) or NimAI())
    monkeypatch.setattr(nim_play, "play", lambda ai, human_player=None, read_number=None: None)
    assert nim_play.main(argv) == 0
    games = 7 if "7" in argv else 10_000
    keywords = {} if trainer == "train" else {"initial": START, "quiet": "--quiet" in argv}
    assert calls == [(trainer, (games,), keywords)]


def test_judge_other_piles(capsys):
    assert nim_play.main(["--better", "--games", "400", "--piles", "3", "4", "5", "--seed", "1",
                          "--quiet", "--judge"]) == 0
    assert "Piles 3 4 5: 119 non-empty positions, 101 of them wins" in capsys.readouterr().out


def test_judge_then_play(monkeypatch, capsys):
    script(monkeypatch, [])
    assert nim_play.main(["--better", "--games", "50", "--quiet", "--judge", "--play",
                          "--human-first"]) == 0
    out = capsys.readouterr().out
    assert out.index("Winning move:") < out.index("Your Turn")
    assert out.rstrip().splitlines()[-1] == "Game left unfinished. Goodbye!"


def test_a_typo_in_the_game_is_asked_again(monkeypatch, capsys):
    left, _ = script(monkeypatch, ["two", "3", "x", "1"])
    assert nim_play.main(["--games", "20", "--human-first"]) == 0
    out = capsys.readouterr().out
    assert left == [] and "'two' is not a whole number: type a number, then Enter." in out
    assert "'x' is not a whole number" in out
    # pile 3, count 1 was played: the AI answers from piles 1 3 5 6
    assert "Pile 3: 6" in out and "AI's Turn" in out
    assert out.rstrip().splitlines()[-1] == "Game left unfinished. Goodbye!"


# --- the folder on its own -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def alone(tmp_path_factory):
    """A copy of nim/ (sources only) in an empty folder, nothing of the project beside it."""
    folder = tmp_path_factory.mktemp("copied") / "nim"
    shutil.copytree(NIM_DIR, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def run_alone(folder, args, stdin=""):
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    return subprocess.run([sys.executable, *args], cwd=folder, input=stdin, capture_output=True,
                          text=True, timeout=120, env=env)


@pytest.mark.slow      # the course's train(10000); the whole game below plays it at 200 games
def test_copied_alone_play_py_is_the_courses(alone):
    result = run_alone(alone, ["play.py"])
    assert result.returncode == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == "Playing training game 1" and lines[9_999] == "Playing training game 10000"
    assert lines[10_000] == "Done training" and lines[10_001:10_007] == piles_lines(START)[:6]
    assert lines[-1] == "Game left unfinished. Goodbye!"


def test_copied_alone_a_whole_game(alone):
    # The course's play() pauses a second before each AI move; not worth waiting for here.
    program = ("import runpy, sys, time; time.sleep = lambda seconds: None; "
               "sys.argv = ['play.py', '--games', '200', '--seed', '1', '--human-first']; "
               "runpy.run_path('play.py', run_name='__main__')")
    attempts = "".join(f"{pile}\n1\n" for _ in range(16) for pile in range(4))
    result = run_alone(alone, ["-c", program], attempts)
    assert result.returncode == 0 and result.stderr == ""
    assert "Done training" in result.stdout and "AI chose to take" in result.stdout
    last = result.stdout.splitlines()[-2:]      # (input() writes its prompts to stdout too)
    assert last in (["GAME OVER", "Winner is Human"], ["GAME OVER", "Winner is AI"])


def test_copied_alone_judge_and_bad_argument(alone):
    result = run_alone(alone, ["play.py", "--better", "--games", "500", "--quiet", "--judge"])
    assert result.returncode == 0 and "Piles 1 3 5 7: 383 non-empty positions" in result.stdout
    result = run_alone(alone, ["play.py", "--games", "many"])
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "--games" in result.stderr


# --- the target: perfect play after 10,000 games, seeds 0-9 --------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10))
def test_better_training_finds_a_winning_move_everywhere(seed, capsys):
    random.seed(seed)
    report = judge.judge(train_better(10_000, quiet=True), START)
    assert (report.greedy_winning, report.winning, report.wins_vs_perfect) == (335, 335, 335)


# --- the self-check of the four functions (tictactoe_rl/selfcheck/nim_piece.py) -------------------------------

def student(**functions):
    """A stand-in for a student's nim module whose NimAI has ``functions`` in place of ours."""
    return types.SimpleNamespace(Nim=Nim, NimAI=type("StudentAI", (NimAI,), functions))


def greedy(self, state, epsilon=True):
    """A correct greedy choice, written for these tests (ties: the first in sorted order)."""
    moves = sorted(Nim.available_actions(state))
    return max(moves, key=lambda move: self.q.get((tuple(state), move), 0))


def random_move(state):
    return random.choice(sorted(Nim.available_actions(state)))


def stub(name):
    def function(self, *args, **kwargs):
        raise NotImplementedError(f"Exercise piece 5: write NimAI.{name}, see its docstring")
    return function


@pytest.mark.solved_only
def test_selfcheck_passes_the_solution():
    check_nim(nim)
    state = random.getstate()
    check_nim(nim)
    assert random.getstate() == state                     # the check puts random back


@pytest.mark.slow
@pytest.mark.solved_only
def test_selfcheck_accepts_any_tie_break_and_anything_with_no_move_left():
    def choose(self, state, epsilon=True):
        if not Nim.available_actions(state):
            return None
        return random_move(state) if epsilon and random.random() < self.epsilon else \
            greedy(self, state)
    check_nim(student(choose_action=choose))


@pytest.mark.solved_only
def test_selfcheck_reports_a_stub_as_not_written():
    with pytest.raises(NotWritten, match="get_q_value"):
        check_nim(student(get_q_value=stub("get_q_value")))


WRONG = {
    "no default 0": (
        {"get_q_value": lambda self, state, action: self.q[(tuple(state), action)]},
        ["raised KeyError", "is worth 0"]),
    "list state as the key": (
        {"get_q_value": lambda self, state, action: self.q.get((state, action), 0)},
        ["tuple(state)", "list"]),
    "string keys": (
        {"get_q_value": lambda self, state, action: self.q.get((str(state), action), 0)},
        ["should be 0.7, got 0", "(tuple(state), action)"]),
    "update without the future": (
        {"update_q_value": lambda self, state, action, old, reward, future: self.q.__setitem__(
            (tuple(state), action), old + self.alpha * (reward - old))},
        ["should store 0.4, got 0.1", "future_rewards is missing"]),
    "update with alpha 0.5": (
        {"update_q_value": lambda self, state, action, old, reward, future: self.q.__setitem__(
            (tuple(state), action), old + 0.5 * (reward + future - old))},
        ["should store -0.55, got -0.7", "self.alpha"]),
    "update that reads old_q from self.q": (
        {"update_q_value": lambda self, state, action, old, reward, future: self.q.__setitem__(
            (tuple(state), action), self.get_q_value(state, action) * (1 - self.alpha)
            + self.alpha * (reward + future))},
        ["should store 0.4, got 0.3", "old_q is missing"]),
    "update that returns instead of storing": (
        {"update_q_value": lambda self, state, action, old, reward, future:
            old + self.alpha * (reward + future - old)},
        ["should store 0.5 under the key ((0, 2, 5, 7), (2, 4))", "stored nothing"]),
    "update under a list key": (
        {"update_q_value": lambda self, state, action, old, reward, future: self.q.__setitem__(
            (state, action), 0)},
        ["TypeError", "(tuple(state), action)"]),
    "best future over known moves only": (
        {"best_future_reward": lambda self, state: max(
            [v for (s, _), v in self.q.items() if s == tuple(state)] or [0])},
        ["best_future_reward([0, 0, 2, 0]) should be 0", "got -0.5", "counts 0"]),
    "best future with no moves raises": (
        {"best_future_reward": lambda self, state: max(
            self.get_q_value(state, a) for a in Nim.available_actions(state))},
        ["best_future_reward([0, 0, 0, 0]) should be 0", "raised ValueError"]),
    "best future is the lowest": (
        {"best_future_reward": lambda self, state: min(
            [self.get_q_value(state, a) for a in Nim.available_actions(state)] or [0])},
        ["should be 0.4", "got -0.2", "lowest"]),
    "best future starts at 0": (
        {"best_future_reward": lambda self, state: max(
            [0] + [self.get_q_value(state, a) for a in Nim.available_actions(state)])},
        ["best_future_reward([0, 0, 1, 0]) should be -1.0", "start at 0"]),
    "best future of every state": (
        {"best_future_reward": lambda self, state: max(self.q.values(), default=0)},
        ["best_future_reward([0, 0, 1, 0]) should be -1.0", "another state"]),
    "never explores": (
        {"choose_action": greedy},
        ["in 2,000 calls it played it 100.0% of the time", "never explores"]),
    "always explores": (
        {"choose_action": lambda self, state, epsilon=True:
            random_move(state) if epsilon else greedy(self, state)},
        ["about 81.2%", "explores every time"]),
    "explores with 1 - epsilon": (
        {"choose_action": lambda self, state, epsilon=True:
            random_move(state) if epsilon and random.random() > self.epsilon
            else greedy(self, state)},
        ["1 - self.epsilon"]),
    "explores with a fixed 0.1": (
        {"choose_action": lambda self, state, epsilon=True:
            random_move(state) if epsilon and random.random() < 0.1 else greedy(self, state)},
        ["epsilon 0.1", "self.epsilon"]),
    "explores even when epsilon is false": (
        {"choose_action": lambda self, state, epsilon=True:
            random_move(state) if random.random() < self.epsilon else greedy(self, state)},
        ["epsilon=False", "must never explore"]),
    "greedy takes the lowest value": (
        {"choose_action": lambda self, state, epsilon=True: min(
            sorted(Nim.available_actions(state)),
            key=lambda move: self.q.get((tuple(state), move), 0))},
        ["should play (3, 2), worth 0.9", "it played (0, 1), worth -0.4"]),
    "greedy over known moves only": (
        {"choose_action": lambda self, state, epsilon=True: max(
            [a for (s, a) in self.q if s == tuple(state)],
            key=lambda move: self.q[(tuple(state), move)])},
        ["should play (2, 2)", "counts 0"]),
    "a list for an action": (
        {"choose_action": lambda self, state, epsilon=True: list(greedy(self, state))},
        ["returned [3, 2]", "tuple"]),
}


@pytest.mark.solved_only
@pytest.mark.parametrize("mistake", WRONG)
def test_selfcheck_names_the_mistake(mistake):
    functions, phrases = WRONG[mistake]
    with pytest.raises(Failure) as failure:
        check_nim(student(**functions))
    for phrase in phrases:
        assert phrase in str(failure.value), str(failure.value)


def test_a_mistyped_flag_names_the_close_one(capsys):
    with pytest.raises(SystemExit) as stop:
        nim_play.main(["--game", "300"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1
    assert "unrecognized arguments: --game 300; did you mean --games?" in err
