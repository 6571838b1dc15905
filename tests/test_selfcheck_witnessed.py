"""The training's table against the games the judge witnessed (tictactoe_rl/selfcheck/witnessed.py):
games played by the course's own code with the opponent on the judge's stream, sent as the
student's process sends them, replayed by the judge; the table the chapter's update makes from
them is explained, and every forged table is not. The cheats through check.py and the grader:
tests/test_selfcheck_cheats.py and tests/test_grade_cheats.py."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from Episode import learning_steps, play_game
from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced
from State import O, X
from TicTacToe import TicTacToe
from tictactoe_rl.exact.solver import solve
from tictactoe_rl.selfcheck import witnessed
from tictactoe_rl.selfcheck.common import Failure, NotOwnWork

ROOT = Path(__file__).resolve().parent.parent
GAMES = 400
SEED = "a run's seed"


class Wandering(Random_Agent):
    """The learner: uniformly random, from a generator of its own."""


def played(side: int, opponent_kind=Random_Agent, games: int = GAMES) -> list[list[tuple]]:
    """``games`` episodes as the course's Generate_episode returns them, the opponent on the
    judge's stream (reseeded for every episode, as the training does)."""
    env = TicTacToe()
    learner, opponent = Wandering(side, env, seed=7), opponent_kind(-side, env)
    episodes = []
    for number in range(games):
        opponent.rng.seed(witnessed.stream(SEED, number))
        x_agent, o_agent = (learner, opponent) if side == X else (opponent, learner)
        moves, final = play_game(x_agent, o_agent, env)
        episodes.append(learning_steps(moves, side) + [(final,)])
    return episodes


def chapter_update(episodes: list, side: int, gamma: float = 0.95, alpha: float | None = 0.01):
    """The chapter's main on ``episodes`` (alpha None: a running average)."""
    Q, visits = {}, {}
    for episode in episodes:
        G = 0.0
        for state, action, reward in reversed(episode[:-1]):
            G = gamma * G + side * reward
            visits[(state, action)] = visits.get((state, action), 0) + 1
            step = alpha if alpha is not None else 1 / visits[(state, action)]
            Q[(state, action)] = Q.get((state, action), 0.0) + step * (G - Q.get((state, action), 0.0))
    return Q


def sent(episodes: list, side: int) -> list:
    return [witnessed.moves_of(episode) for episode in episodes]


def replayed(episodes: list, side: int, opponent: str = "Random_Agent") -> list:
    return witnessed.replayed(sent(episodes, side), side, {"name": opponent, "random_step": None
                                                           if opponent == "Random_Agent" else 5},
                              SEED)


@pytest.mark.parametrize("side", [X, O])
@pytest.mark.parametrize("kind", [Random_Agent, Random_Agent_Advanced])
def test_the_chapter_s_table_is_explained_by_the_games_played(side, kind):
    episodes = played(side, kind)
    games = replayed(episodes, side, kind.__name__)
    assert len(games) == GAMES
    assert witnessed.explain(chapter_update(episodes, side), games, side, "main") == \
        "alpha 0.01, gamma 0.95"


@pytest.mark.parametrize("side", [X, O])
def test_a_running_average_and_another_discount_are_accepted_variants(side):
    episodes = played(side)
    games = replayed(episodes, side)
    assert witnessed.explain(chapter_update(episodes, side, 0.9, None), games, side, "main") == \
        "a running average (1/N), gamma 0.9"
    assert witnessed.explain(chapter_update(episodes, side, 0.99, 0.05), games, side, "main") == \
        "alpha 0.05, gamma 0.99"


def test_every_legal_action_set_to_zero_first_is_the_textbook_start():
    episodes = played(X)
    table = {pair: 0.0 for episode in episodes for state, _, _ in episode[:-1]
             for pair in state.q_keys()}
    table.update(chapter_update(episodes, X))
    assert witnessed.explain(table, replayed(episodes, X), X, "main") == "alpha 0.01, gamma 0.95"


def test_one_value_nudged_is_named_as_one_pair_no_game_gave():
    episodes = played(X)
    table = chapter_update(episodes, X)
    pair = next(iter(table))
    table[pair] += 1e-6
    with pytest.raises(NotOwnWork, match=r"^1 pair of the table main saved holds a value that no "
                                         r"game of your run gave: the update of its 400 games"):
        witnessed.explain(table, replayed(episodes, X), X, "main")


def test_tables_no_game_of_the_run_gave_fail_whatever_they_hold():
    episodes = played(X)
    games = replayed(episodes, X)
    own = chapter_update(episodes, X)
    classmate = chapter_update(played(X, games=GAMES + 50)[50:], X)   # other games of a run
    solver = {(state, action): solve(state.children()[action])[0] * X for state, action in own}
    optimistic = {pair: value + 0.01 for pair, value in own.items()}
    merged = {**own, **{pair: value for pair, value in classmate.items() if pair in own}}
    for forged in (classmate, solver, optimistic, merged, {}):
        with pytest.raises(NotOwnWork, match="hold values that no game of your run gave"):
            witnessed.explain(forged, games, X, "main")


def test_games_against_another_opponent_or_stream_are_not_the_witnessed_ones():
    episodes = played(X)
    table = chapter_update(episodes, X)
    for opponent, seed in (({"name": "Random_Agent_Advanced", "random_step": 5}, SEED),
                           ({"name": "Random_Agent", "random_step": None}, "another run")):
        with pytest.raises(NotOwnWork, match="(in the game that MC_Trainer.player2 played|"
                                             "no game of your run)"):
            games = witnessed.replayed(sent(episodes, X), X, opponent, seed)
            witnessed.explain(table, games, X, "main")


def test_what_is_not_a_whole_legal_game_is_refused_saying_why():
    assert witnessed.moves_of([(1, 2), ((),)]) is None and witnessed.moves_of(5) is None
    assert witnessed.moves_of([((), (1, 5), 0), ((),)]) == "x"
    episodes = played(X, games=5)
    game = sent(episodes, X)[0]
    for broken, why in ((None, "is not a list of steps"), ("", "ends before its game does"),
                        (game[:-1], "ends before its game does"), ("44", "where it is not legal"),
                        ("x", "plays off the board"), (game + "9", "steps after the end")):
        with pytest.raises(NotOwnWork, match=f"^episode 1 that Generate_episode returned .*{why}"):
            witnessed.replayed([broken], X, {"name": "Random_Agent", "random_step": None}, SEED)


def test_an_opponent_the_judge_cannot_replay_is_refused_in_one_line():
    with pytest.raises(Failure, match="must be the course's Random_Agent or "
                                      "Random_Agent_Advanced") as caught:
        witnessed.replayed([], X, None, SEED)
    assert not isinstance(caught.value, NotOwnWork)
    assert witnessed.opponent_of(random.Random()) is None
    assert witnessed.opponent_of(Random_Agent_Advanced(O, random_step=3)) == \
        {"name": "Random_Agent_Advanced", "random_step": 3}


def test_the_games_kept_beside_a_table_are_played_again_on_the_stream_given(tmp_path):
    episodes = played(O, Random_Agent_Advanced)
    table = chapter_update(episodes, O)
    path = tmp_path / "O.pth"
    witnessed.write_games(str(path), {"name": "Random_Agent_Advanced", "random_step": 5},
                          sent(episodes, O))
    text = (tmp_path / "O.games").read_text(encoding="utf-8")
    assert len(text.splitlines()) == GAMES + 1
    assert witnessed.check_games(table, text, O, SEED) == ""
    assert "no game of your run gave" in witnessed.check_games(
        {**table, next(iter(table)): 0.5}, text, O, SEED)
    assert "in the game that MC_Trainer.player2 played" in witnessed.check_games(
        table, text, O, "the grader's other stream")
    for garbled in ("{not json\n4", '{"name": "Random_Agent", "random_step": 5}\n4'):
        assert witnessed.check_games(table, garbled, O, SEED) == \
            "the record of the training's games cannot be read", garbled
    assert "must be the course's Random_Agent" in witnessed.check_games(table, "", O, SEED)


def test_a_stream_that_is_not_hexadecimal_is_one_line_and_status_2():
    done = subprocess.run([sys.executable, "check.py", "--stream", "not hex"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == ("check.py: error: argument --stream: not hex: 1 to 64 "
                                   "digits 0-9 and a-f (see --help)")
