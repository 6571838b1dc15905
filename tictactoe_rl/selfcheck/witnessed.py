"""The training's table explained by the games the judge witnessed.

While the student's ``main`` trains, the opponent it names (the course's ``Random_Agent`` or
``Random_Agent_Advanced``) draws its moves from a random stream that the judge chose for this
run, seeded afresh for every episode. The student's process sends back only the learner's moves
of each game that ``Generate_episode`` returned (``moves_of``); the judge plays every game again
itself (``replayed``), its own copy of the opponent answering on the same stream, so the games
it knows are the ones the opponent really played: a move of the learner's that is not legal in
them ends the judging. The saved table must then be what the Monte Carlo update gives on
exactly those games (``explain``): a constant step size or a running average (1/N), with the
discount the values show; every visit and first visit are the same here, since a position never
comes twice in one game. Anything else -- a classmate's table, an answer key, the solver's
values, a table loaded by a thread, games against another opponent -- holds values that no game
of the run gave, whatever the channel it came through: the piece fails, saying how many.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced
from State import DRAW, State, symbol
from tictactoe_rl.selfcheck.common import Failure, NotOwnWork, plural

# The opponents whose moves the judge can replay, by class name.
OPPONENTS = {"Random_Agent": Random_Agent, "Random_Agent_Advanced": Random_Agent_Advanced}
RUNNING_AVERAGE = "a running average (1/N)"
CELLS = {str(3 * row + column): (row, column) for row in range(3) for column in range(3)}
SAME = 1e-9          # a value the update gives, computed in another order: the same value
SHOWN = 3            # pairs named in a message


def opponent_of(agent: object) -> dict | None:
    """In the student's process: what the judge needs to replay ``agent``'s moves (its class
    and ``random_step``), or None when it is not one of the course's opponents."""
    for name, kind in OPPONENTS.items():
        if type(agent) is kind:
            return {"name": name, "random_step": getattr(agent, "random_step", None)}
    return None


def stream(seed: str, episode: int) -> str:
    """The opponent's seed for the ``episode``-th game (from 0) of the run ``seed``."""
    return f"check:witnessed:{seed}:{episode}"


def moves_of(episode: object) -> str | None:
    """In the student's process: the learner's moves in the episode ``episode`` (what
    ``Generate_episode`` returned), as digits 0-8 (``3 * row + column``); None when its steps are
    not ``(state, (row, column), reward)``."""
    try:
        return "".join("012345678"[3 * row + column] if 0 <= row < 3 and 0 <= column < 3 else "x"
                       for _, (row, column), _ in episode[:-1])
    except (TypeError, ValueError, IndexError):
        return None


def replayed(games: list, side: int, opponent: dict, seed: str) -> list[list[tuple]]:
    """In the judge: each game of ``games`` (the learner's moves, ``moves_of``) played again
    with the opponent on the stream ``seed``, as the learner's steps ``(pair, result,
    steps_to_end)``; ``NotOwnWork`` naming the first game whose moves do not make a whole legal
    game."""
    kind = OPPONENTS.get(opponent.get("name")) if isinstance(opponent, dict) else None
    if kind is None:
        raise Failure("the training plays your main against MC_Trainer.player2, which must be "
                      "the course's Random_Agent or Random_Agent_Advanced: the check plays its "
                      "moves again to know every game your main learned from")
    step = opponent.get("random_step")
    player = kind(-side, random_step=step) if step is not None else kind(-side)
    return [replay(number, game, side, player, seed) for number, game in enumerate(games)]


def replay(number: int, game: object, side: int, opponent, seed: str) -> list[tuple]:
    """One game of ``replayed``: the learner's steps ``(pair, result, steps_to_end)``."""
    if not isinstance(game, str):
        raise NotOwnWork(f"episode {number + 1:,} that Generate_episode returned in the training "
                         "is not a list of steps (state, (row, column), reward) and the final "
                         "position")
    opponent.rng.seed(stream(seed, number))
    state, pairs, moves = State(), [], iter(game)
    while not state.end_of_game:
        if state.player != side:
            state = state.children()[opponent.get_action(state)]
            continue
        digit = next(moves, "")
        action = CELLS.get(digit)
        after = state.children().get(action)
        if after is None:
            raise NotOwnWork(not_played(number, digit, state))
        pairs.append((state, action))
        state = after
    if next(moves, None) is not None:
        raise NotOwnWork(f"episode {number + 1:,} that Generate_episode returned in the training "
                         "has steps after the end of its game")
    result = 0 if state.end_of_game == DRAW else state.end_of_game * side
    return [(pair, result, len(pairs) - 1 - index) for index, pair in enumerate(pairs)]


def not_played(number: int, digit: str, state: State) -> str:
    """Why the learner's move ``digit`` cannot be played in ``state`` of episode ``number``."""
    what = (f"ends before its game does, at {state.cells}" if digit == "" else
            f"plays {CELLS.get(digit, 'off the board')} in {state.cells}, where it is not legal")
    return (f"episode {number + 1:,} that Generate_episode returned in the training {what} in "
            "the game that MC_Trainer.player2 played, drawing from the stream the check gave it: "
            "the games your main learns from must be played against player2, one game per "
            "Generate_episode")


def updated(games: list[list[tuple]], rate: float | str, gamma: float) -> dict:
    """The table the Monte Carlo update makes from ``games`` (``replayed``), walking each game
    backwards: ``Q += rate * (G - Q)``, or ``(G - Q) / N`` for a running average."""
    table: dict = {}
    visits: Counter = Counter()
    for game in games:
        for pair, result, to_end in reversed(game):
            G = result * gamma ** to_end
            old = table.get(pair, 0.0)
            visits[pair] += 1
            step = 1 / visits[pair] if rate == RUNNING_AVERAGE else rate
            table[pair] = old + step * (G - old)
    return table


def shown_rates(table: dict, games: list[list[tuple]]) -> list[tuple[float | str, float]]:
    """The step sizes and discounts to try: what the pairs met once show (a last step's value is
    rate * result; the one before it rate * gamma * result), then the course's."""
    once = Counter(pair for game in games for pair, _, _ in game)
    last, before = [], []
    for game in games:
        for pair, result, to_end in game:
            value = table.get(pair)
            if once[pair] == 1 and result and isinstance(value, float) and to_end < 2:
                (last if to_end == 0 else before).append((value / result, pair))
    rates = Counter(round(value, 12) for value, _ in last).most_common(2)
    tried = []
    for rate, _ in rates:
        if not 0 < rate <= 1:
            continue
        gammas = Counter(round(value / rate, 12) for value, _ in before).most_common(2)
        tried += [(rate, gamma) for gamma, _ in gammas if 0 < gamma <= 1]
        if math.isclose(rate, 1.0):
            tried += [(RUNNING_AVERAGE, gamma) for gamma, _ in gammas if 0 < gamma <= 1]
    course = [(0.01, 0.95), (0.01, 0.9), (RUNNING_AVERAGE, 0.95), (RUNNING_AVERAGE, 0.9)]
    return list(dict.fromkeys(tried + course))


def differing(table: dict, made: dict) -> list:
    """The pairs whose value in ``table`` is not the one ``made`` gives (a pair missing from
    either counts as 0: the course's ``Q.get(pair, 0)``)."""
    wrong = [pair for pair, value in table.items()
             if not (isinstance(value, (int, float)) and not isinstance(value, bool)
                     and abs(value - made.get(pair, 0.0)) <= SAME)]
    return wrong + [pair for pair, value in made.items() if pair not in table and value]


def explain(table: dict, games: list[list[tuple]], side: int, who: str) -> str:
    """How the Monte Carlo update on ``games`` gives ``table`` (the step size and discount, for
    the message after "passed"); ``NotOwnWork`` saying how many pairs no game gave."""
    best = None
    for rate, gamma in shown_rates(table, games):
        made = updated(games, rate, gamma)
        wrong = differing(table, made)
        if not wrong:
            how = rate if rate == RUNNING_AVERAGE else f"alpha {rate:g}"
            return f"{how}, gamma {gamma:g}"
        if best is None or len(wrong) < len(best[0]):
            best = wrong, made
    wrong, made = best
    examples = "; ".join(f"{symbol(side)} in {pair[0].cells} playing {pair[1]}: the table holds "
                         f"{table.get(pair, 0.0)!r}, its games give {made.get(pair, 0.0):.6g}"
                         for pair in wrong[:SHOWN])
    hold = "holds a value" if len(wrong) == 1 else "hold values"
    raise NotOwnWork(f"{plural(len(wrong), 'pair')} of the table {who} saved {hold} that no game "
                     f"of your run gave: the update of its {len(games):,} games, which the check "
                     f"witnessed, gives other values ({examples}); the table must be the one "
                     "your main's own updates made from its games, starting from 0")



def write_games(table: str, opponent: dict, games: list[str]) -> None:
    """Keep the training's games beside its ``table`` (``X.pth``: ``X.games``), for whoever plays
    them again (the class grader, with the stream it gave): the opponent on the first line,
    then the learner's moves of each game, a line each."""
    lines = [json.dumps(opponent), *games]
    Path(table).with_suffix(".games").write_text("\n".join(lines) + "\n", encoding="utf-8")


def check_games(table: dict, text: str, side: int, seed: str) -> str:
    """The games kept by ``write_games`` (``text``) played again on the stream ``seed``:
    ``""`` when they explain ``table``, otherwise why not, in one line."""
    opponent, *games = text.splitlines() or [""]
    try:
        explain(table, replayed(games, side, json.loads(opponent or "null"), seed), side,
                "its main")
    except Failure as failure:
        return str(failure)
    except Exception:  # noqa: BLE001  (whatever the record holds, it explains nothing then)
        return "the record of the training's games cannot be read"
    return ""
