"""The training's table explained by the games the judge witnessed.

While the student's ``main`` trains, the opponent it names (the course's ``Random_Agent`` or
``Random_Agent_Advanced``) draws its moves from a random stream that the judge chose for this
run, seeded afresh for every episode. The student's process sends back each game that
``Generate_episode`` returned, as the cells played in order (``moves_of``); the judge replays
them (``replayed``): every game must be legal, start from the empty board, end where the game
ends, and every move of the opponent must be the one the judge's own copy of that opponent, on
the same stream, plays. The saved table must then be what the Monte Carlo update gives on
exactly those games (``explain``): a constant step size or a running average (1/N), with the
discount the values show; every visit and first visit are the same here, since a position never
comes twice in one game. Anything else -- a classmate's table, an answer key, the solver's
values, a table loaded by a thread -- holds values that no game of the run gave, whatever the
channel it came through: the piece fails, saying how many.
"""

from __future__ import annotations

import math
from collections import Counter

from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced
from State import DRAW, State, symbol
from tictactoe_rl.selfcheck.common import Failure, NotOwnWork, plural

# The opponents whose moves the judge can replay, by class name.
OPPONENTS = {"Random_Agent": Random_Agent, "Random_Agent_Advanced": Random_Agent_Advanced}
RUNNING_AVERAGE = "a running average (1/N)"
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


def moves_of(episode: object, side: int) -> str | None:
    """In the student's process: the cells of the game ``episode`` (what ``Generate_episode``
    returned) in the order they were played, as digits 0-8; None when it is not one game of the
    learner ``side`` against its opponent."""
    try:
        steps, (final,) = episode[:-1], episode[-1]
        states = [step[0] for step in steps] + [final]
        actions = [step[1] for step in steps]
        if not all(isinstance(state, State) for state in states):
            return None
        played, before = [], State()
        for state, action in zip(states, actions + [None]):
            placed = [i for i in range(9) if state.cells[i] != before.cells[i]]
            if len(placed) > 1 or any(state.cells[cell] != -side for cell in placed):
                return None
            played += placed                     # the opponent's reply, if it had one
            if action is None:
                break
            row, column = action
            played.append(3 * row + column)
            before = state.children()[(row, column)]
        return "".join(map(str, played))
    except (TypeError, ValueError, IndexError, KeyError, AttributeError):
        return None


def replayed(games: list, side: int, opponent: dict, seed: str) -> list[list[tuple]]:
    """In the judge: each game of ``games`` (``moves_of``) as the learner's steps
    ``(pair, return_if_undiscounted, steps_to_end)``; ``NotOwnWork`` naming the first game
    that is not a legal game or whose opponent moves are not the witnessed ones."""
    kind = OPPONENTS.get(opponent.get("name")) if isinstance(opponent, dict) else None
    if kind is None:
        raise Failure("the training plays your main against MC_Trainer.player2, which must be "
                      "the course's Random_Agent or Random_Agent_Advanced: the check replays "
                      "its moves to know every game your main learned from")
    step = opponent.get("random_step")
    player = kind(-side, random_step=step) if step is not None else kind(-side)
    return [replay(number, game, side, player, seed) for number, game in enumerate(games)]


def replay(number: int, game: object, side: int, opponent, seed: str) -> list[tuple]:
    """One game of ``replayed``: the learner's steps ``(pair, result, steps_to_end)``."""
    if not (isinstance(game, str) and game.isdigit() and len(set(game)) == len(game)):
        raise NotOwnWork(f"episode {number + 1:,} that Generate_episode returned in the training "
                         "is not one game of your learner against its opponent")
    opponent.rng.seed(stream(seed, number))
    state, pairs = State(), []
    for digit in game:
        if state.end_of_game:
            break
        action = divmod(int(digit), 3)
        if state.player != side:
            expected = opponent.get_action(state)
            if action != expected:
                raise NotOwnWork(
                    f"in episode {number + 1:,} of the training the opponent played {action} "
                    f"where MC_Trainer.player2, drawing from the stream the check gave it, plays "
                    f"{expected}: the games your main learned from must be played against "
                    "player2, one game per Generate_episode")
        else:
            pairs.append((state, action))
        state = state.children().get(action)
        if state is None:
            break
    if state is None or not state.end_of_game or len(game) != 9 - state.cells.count(0):
        raise NotOwnWork(f"episode {number + 1:,} that Generate_episode returned in the training "
                         "is not one whole legal game of your learner against its opponent")
    result = 0 if state.end_of_game == DRAW else state.end_of_game * side
    return [(pair, result, len(pairs) - 1 - index) for index, pair in enumerate(pairs)]


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

