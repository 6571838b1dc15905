"""Nim (nim/): the course's interface function by function, the terminal game, the exact solver,
the judge, the command line, and the target: perfect play after 10,000 games for seeds 0-9."""

import builtins
import itertools
import random
import subprocess
import sys
from functools import reduce
from operator import xor
from pathlib import Path

import pytest

NIM_DIR = Path(__file__).resolve().parent.parent / "nim"
sys.path.append(str(NIM_DIR))  # appended: a project module of the same name would come first

import judge  # noqa: E402
import nim  # noqa: E402
import play as nim_play  # noqa: E402
from nim import Nim, NimAI, learn_from_game, play, train  # noqa: E402

INVALID = "Invalid move, try again."


# --- Nim ---------------------------------------------------------------------------------------

def test_new_game_copies_the_piles():
    initial = [1, 3, 5, 7]
    game = Nim(initial)
    game.move((3, 2))
    assert initial == [1, 3, 5, 7] and game.piles == [1, 3, 5, 5]
    assert Nim().piles == [1, 3, 5, 7] and Nim().player == 0 and Nim().winner is None


def test_available_actions_is_a_fresh_set_of_pairs():
    assert Nim.available_actions([1, 0, 2]) == {(0, 1), (2, 1), (2, 2)}
    assert Nim.available_actions((0, 0)) == set()
    actions = Nim.available_actions([1, 3, 5, 7])
    assert len(actions) == 16
    actions.clear()  # the caller's copy: the next call is unaffected
    assert len(Nim.available_actions([1, 3, 5, 7])) == 16


def test_players_take_turns():
    assert Nim.other_player(0) == 1 and Nim.other_player(1) == 0
    game = Nim()
    game.switch_player()
    assert game.player == 1
    game.move((0, 1))
    assert game.player == 0 and game.winner is None


def test_whoever_takes_the_last_object_loses():
    game = Nim([1, 1])
    game.move((0, 1))  # player 0
    game.move((1, 1))  # player 1 takes the last one
    assert game.winner == 0 and game.piles == [0, 0]


@pytest.mark.parametrize("action, reason", [
    ((4, 1), "no pile 4"), ((-1, 1), "no pile -1"), ((0, 2), "take 1 to 1"),
    ((1, 0), "take 1 to 3"), ((1, -1), "take 1 to 3"), ((1, 4), "take 1 to 3"),
    ((1, 1.5), "pair of whole numbers"), ((1,), "pair of whole numbers"),
])
def test_illegal_moves_raise_and_change_nothing(action, reason):
    game = Nim()
    with pytest.raises(ValueError, match=reason):
        game.move(action)
    assert game.piles == [1, 3, 5, 7] and game.player == 0


def test_no_move_after_the_game_is_over():
    game = Nim([1])
    game.move((0, 1))
    with pytest.raises(ValueError, match="already over"):
        game.move((0, 1))


@pytest.mark.parametrize("piles", [[], [0, 0], [1, -1], [2, "3"]])
def test_bad_starting_piles(piles):
    with pytest.raises(ValueError, match="piles"):
        Nim(piles)


# --- NimAI: the four functions of the exercise -------------------------------------------------

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


def test_choose_action_greedy_ties_go_to_a_best_action():
    ai = make_ai({(0, 1): -0.5, (1, 1): 0.75, (1, 3): 0.75, (1, 2): 0.5})
    random.seed(1)
    assert {ai.choose_action([1, 3], epsilon=False) for _ in range(200)} == {(1, 1), (1, 3)}


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


def test_action_probs_state_the_policy():
    ai = make_ai({(1, 1): 0.5, (1, 3): 0.5})
    greedy = {(0, 1): 0, (1, 1): 0.5, (1, 2): 0, (1, 3): 0.5}
    assert ai.action_probs([1, 3], epsilon=False) == greedy
    probs = ai.action_probs([1, 3])
    assert probs[(0, 1)] == pytest.approx(0.025) and probs[(1, 1)] == pytest.approx(0.475)
    assert sum(probs.values()) == pytest.approx(1)


def test_no_action_in_an_empty_position():
    with pytest.raises(ValueError, match="game is over"):
        NimAI().choose_action([0, 0])


# --- training ----------------------------------------------------------------------------------

def test_train_prints_the_course_lines(capsys):
    ai = train(3)
    assert capsys.readouterr().out.splitlines() == [
        "Playing training game 1", "Playing training game 2", "Playing training game 3",
        "Done training"]
    assert isinstance(ai, NimAI) and (ai.alpha, ai.epsilon) == (0.5, 0.1)
    assert ai.q and all(type(s) is tuple and type(a) is tuple and len(a) == 2 for s, a in ai.q)


def test_quiet_training_shows_a_bar_instead_of_lines(capsys):
    train(50, quiet=True)
    out, err = capsys.readouterr()
    assert out.splitlines() == ["Done training"] and "50/50" in err


class ScriptedAI(NimAI):
    """A NimAI whose moves are given in advance (learning as usual)."""

    def __init__(self, moves):
        super().__init__()
        self.moves = list(moves)

    def choose_action(self, state, epsilon=True):
        return self.moves.pop(0)


def test_learn_from_game_exact_updates():
    ai = ScriptedAI([(0, 1), (0, 1)] * 2)
    learn_from_game(ai, [2])
    # (0, 1) from [2]: -best([1]) = 0, so 0; then [1]: taking the last, -1 -> -0.5;
    # the winner's last move, (0, 1) from [2]: +1 -> 0.5.
    assert ai.q == {((2,), (0, 1)): 0.5, ((1,), (0, 1)): -0.5}
    learn_from_game(ai, [2])
    # [2]: 0.5 + 0.5 * (0.5 - 0.5) = 0.5, then +1: 0.75; [1]: -0.5 + 0.5 * (-1 + 0.5) = -0.75.
    assert ai.q == {((2,), (0, 1)): 0.75, ((1,), (0, 1)): -0.75}


def test_a_move_is_worth_minus_the_opponents_best():
    ai = ScriptedAI([(0, 1)] * 3)
    ai.q[((2,), (0, 1))] = 0.5        # what the opponent expects from [2]
    learn_from_game(ai, [3])
    # Taking 1 from [3] leaves [2], where the opponent expects 0.5: target -0.5, so -0.25.
    assert ai.q[((3,), (0, 1))] == -0.25
    # The opponent's move from [2] leaves [1], where we have nothing known (0): target 0, so
    # 0.25; then we take the last object (-1 -> -0.5), which makes the opponent's move the
    # winner's last: 0.25 + 0.5 * (1 - 0.25).
    assert ai.q[((1,), (0, 1))] == -0.5
    assert ai.q[((2,), (0, 1))] == 0.625


def test_half_of_the_games_start_from_random_positions(monkeypatch, capsys):
    starts = []
    monkeypatch.setattr(nim, "learn_from_game", lambda ai, piles: starts.append(tuple(piles)))
    random.seed(3)
    train(4000, initial=[1, 3, 5, 7], quiet=True)
    from_start = starts.count((1, 3, 5, 7)) / len(starts)
    assert abs(from_start - (0.5 + 0.5 / 383)) < 0.04
    assert all(0 <= p <= top for s in starts for p, top in zip(s, (1, 3, 5, 7)))
    assert all(any(s) for s in starts) and len(set(starts)) > 300


# --- play() in the terminal --------------------------------------------------------------------

def script(monkeypatch, answers):
    """Feed ``answers`` to input(); an exception in the list is raised instead (EOF, Ctrl-C)."""
    answers = list(answers)

    def fake_input(prompt=""):
        if not answers:
            raise EOFError
        answer = answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer
    monkeypatch.setattr(builtins, "input", fake_input)
    return answers


def test_play_rejects_every_kind_of_invalid_input(monkeypatch, capsys):
    left = script(monkeypatch, [
        "x",            # not a number
        "",             # nothing
        "٣",            # a digit of another script
        "2",            # no such pile
        "-1",           # no such pile
        "1", "3",       # too many
        "1", "0",       # zero
        "1", "-1",      # negative
        "1", "two",     # count not a number
        "1", "2",       # legal: [1, 0] is left, the AI has to take the last object
    ])
    winner = play(NimAI(), human_player=0, initial=[1, 2])
    out = capsys.readouterr().out
    assert left == [] and winner == 0
    assert out.count(INVALID) == 9
    assert "AI chose to take 1 from pile 0." in out and "Winner is Human" in out
    assert "Pile 1: 2" in out and "Your Turn" in out and "AI's Turn" in out


def test_play_an_empty_pile_is_invalid(monkeypatch, capsys):
    script(monkeypatch, ["0", "1", "1"])
    assert play(NimAI(), human_player=0, initial=[0, 2]) == 0
    assert capsys.readouterr().out.count(INVALID) == 1


def test_play_ai_first_and_wins(monkeypatch, capsys):
    ai = NimAI()
    ai.q[((1, 1), (0, 1))] = 1.0
    script(monkeypatch, ["1", "1"])
    assert play(ai, human_player=1, initial=[1, 1]) == 0
    out = capsys.readouterr().out
    assert out.index("AI's Turn") < out.index("Your Turn")
    assert "AI chose to take 1 from pile 0." in out and "Winner is AI" in out


def test_play_who_starts_is_drawn_when_not_given(monkeypatch, capsys):
    seen = set()
    for seed in range(8):
        random.seed(seed)
        script(monkeypatch, ["0", "1"])
        winner = play(NimAI(), initial=[1])       # whoever moves first takes the last object
        out = capsys.readouterr().out
        human_first = "Your Turn" in out
        assert ("AI's Turn" in out) != human_first
        assert ("Winner is AI" in out) == human_first and winner == 1
        seen.add(human_first)
    assert seen == {True, False}


@pytest.mark.parametrize("answers", [[], ["0"], ["1", "1", KeyboardInterrupt()],
                                     [KeyboardInterrupt()]])
def test_play_ends_politely_on_eof_and_ctrl_c(monkeypatch, capsys, answers):
    script(monkeypatch, answers)
    assert play(NimAI(), human_player=0) is None
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-1] == "Game left unfinished. Goodbye!"
    assert "GAME OVER" not in out


def test_play_checks_the_human_side():
    with pytest.raises(ValueError, match="human_player"):
        play(NimAI(), human_player=2)


# --- the exact solver --------------------------------------------------------------------------

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
    """SPEC: for 1 3 5 7 the first player loses, and 335 of 383 positions are wins."""
    everywhere = judge.positions([1, 3, 5, 7])
    assert len(everywhere) == 383
    assert sum(map(judge.is_win, everywhere)) == 335
    assert not judge.is_win([1, 3, 5, 7])


# --- the judge ---------------------------------------------------------------------------------

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
    report = judge.judge(perfect_ai((1, 3, 5, 7)), [1, 3, 5, 7])
    assert (report.share, report.greedy_winning, report.wins_vs_perfect) == (1.0, 335, 335)
    text = str(report)
    assert "383 non-empty positions, 335 of them wins" in text
    assert "the first player loses" in text and "335 of 335 winning positions (100.0 %)" in text


def test_judge_counts_ties_with_a_losing_move_as_misses():
    ai = perfect_ai((1, 3, 5, 7))
    ai.q[((0, 0, 0, 2), (3, 2))] = 1.0        # taking both loses; now tied with taking one
    report = judge.judge(ai, [1, 3, 5, 7])
    assert report.greedy_winning == 334 and report.wins_vs_perfect < 335


def test_judge_refuses_huge_games():
    with pytest.raises(ValueError, match="too many to judge"):
        judge.positions([50] * 4)


# --- the command line --------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["--games", "0"], ["--games", "x"], ["--games", "-5"], ["--piles"], ["--piles", "1", "x"],
    ["--piles", "0", "0"], ["--piles", "-1"], ["--piles", "51"], ["--piles"] + ["1"] * 11,
    ["--seed", "-1"], ["--bogus"], ["--judge", "--piles", "50", "50", "50", "50"],
])
def test_bad_arguments_exit_2_with_one_line(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        nim_play.main(argv)
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "error" in err


def test_judge_from_the_command_line(capsys):
    assert nim_play.main(["--games", "400", "--piles", "3", "4", "5", "--seed", "1", "--quiet",
                          "--judge"]) == 0
    out = capsys.readouterr().out
    assert "Piles 3 4 5: 119 non-empty positions, 101 of them wins" in out
    assert "Playing training game" not in out


def run_script(args, stdin=""):
    return subprocess.run([sys.executable, str(NIM_DIR / "play.py"), *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def test_script_plays_and_ends_on_eof():
    result = run_script(["--games", "50", "--quiet", "--human-first", "--seed", "1"], "x\n9\n")
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert result.stdout.count(INVALID) == 2 and "Goodbye" in result.stdout


def test_script_bad_argument():
    result = run_script(["--games", "many"])
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "--games" in result.stderr


# --- the target: perfect play after the default training, seeds 0-9 ---------------------------

@pytest.mark.parametrize("seed", range(10))
def test_default_training_finds_a_winning_move_everywhere(seed, capsys):
    random.seed(seed)
    ai = train(10_000)
    report = judge.judge(ai, [1, 3, 5, 7])
    assert (report.greedy_winning, report.winning) == (335, 335)
    assert report.wins_vs_perfect == 335
