"""The project's training for the course's ``NimAI``, and what the judge and ``play.py`` need that
the course does not have. Everything here takes a ``NimAI`` from ``nim.py`` and uses only its
functions; ``nim.py`` itself stays the course's.

The course's ``train`` reaches a winning move in 96-100 % of the winning positions of 1 3 5 7,
depending on the seed. ``train_better`` changes two things (the rewards, ``alpha`` and
``epsilon`` stay the course's) and plays perfectly after the same 10,000 games:

1. **A move is worth minus the opponent's best.** The course learns a move's value from the
   opponent's actual reply, and 10 % of replies are random, so a losing move looks good every
   time the opponent answers it badly. Here each move is learned from as soon as it is played,
   with target ``0 - best_future_reward(position it leaves)``: the opponent moves next there, so
   what the mover can still expect is minus the best the opponent can get (the negamax form of
   Q-learning).
2. **Half of the games start from a random position** (exploring starts), so that positions the
   self-play from 1 3 5 7 hardly ever meets get practised too.
"""

from __future__ import annotations

import random
import sys
from typing import Iterator, Sequence

from nim import Action, Nim, NimAI

DEFAULT_PILES = (1, 3, 5, 7)
LOSS, WIN, NOTHING_YET = -1, 1, 0  # rewards: taking the last object, the winner's last move, else
RANDOM_START_SHARE = 0.5  # of train_better's games that start from a random position


def train_better(n: int, initial: Sequence[int] = DEFAULT_PILES, quiet: bool = False) -> NimAI:
    """Train a fresh ``NimAI`` by ``n`` games against itself and return it, printing the course's
    lines (``Playing training game i``, then ``Done training``; with ``quiet`` a progress line on
    stderr instead of the first). Half of the games start from ``initial``, the other half from a
    random position a game from ``initial`` can reach; each is learned from by
    ``learn_from_game``."""
    ai = NimAI()
    for _ in games(n, quiet):
        start = random_position(initial) if random.random() < RANDOM_START_SHARE else initial
        learn_from_game(ai, start)
    print("Done training")
    return ai


def learn_from_game(ai: NimAI, piles: Sequence[int]) -> None:
    """Let ``ai`` play both sides of one game from ``piles`` (with exploration) and learn from
    every move as soon as it is played. Rewards as in the course: -1 for the move that takes the
    last object, +1 for the winner's last move, 0 for every other move. A move that does not end
    the game hands the turn to the opponent, so its target is ``0 - best_future_reward(position
    it leaves)``."""
    game = Nim(piles)
    previous = None  # the move before this one, the opponent's: (state, action)
    while True:
        state = game.piles.copy()
        action = ai.choose_action(state)
        game.move(action)
        if game.winner is not None:
            ai.update(state, action, game.piles, LOSS)
            if previous is not None:
                ai.update(*previous, game.piles, WIN)
            return
        old = ai.get_q_value(state, action)
        ai.update_q_value(state, action, old, NOTHING_YET, -ai.best_future_reward(game.piles))
        previous = (state, action)


def random_position(initial: Sequence[int]) -> list[int]:
    """A position drawn uniformly from those a game from ``initial`` can reach (every pile from 0
    to its starting size), except the empty one."""
    while True:
        piles = [random.randint(0, pile) for pile in initial]
        if any(piles):
            return piles


def course_train(n: int, initial: Sequence[int] = DEFAULT_PILES, quiet: bool = False) -> NimAI:
    """The course's ``train`` loop from any ``initial`` piles, with ``quiet`` as in
    ``train_better``: for 1 3 5 7 and the same seed it learns exactly what ``nim.train(n)`` does
    (the tests hold it to that). ``play.py`` and the benchmark use it for other piles and for a
    progress line."""
    ai = NimAI()
    for _ in games(n, quiet):
        game = Nim(initial)
        waiting = {0: None, 1: None}  # each side's last move, learned from after the reply
        while True:
            state = game.piles.copy()
            action = ai.choose_action(game.piles)
            waiting[game.player] = (state, action)
            game.move(action)
            if game.winner is not None:
                ai.update(state, action, game.piles, LOSS)
                if waiting[game.player] is not None:  # a game of one move has no winner's move
                    ai.update(*waiting[game.player], game.piles, WIN)
                break
            if waiting[game.player] is not None:
                ai.update(*waiting[game.player], game.piles, NOTHING_YET)
    print("Done training")
    return ai


def greedy_moves(ai: NimAI, piles: Sequence[int]) -> list[Action]:
    """Every move ``ai.choose_action(piles, epsilon=False)`` may play: the available moves whose
    Q-value is the highest (several when they tie), in sorted order; none when no object is
    left."""
    piles = list(piles)
    highest = ai.best_future_reward(piles)
    return sorted(move for move in Nim.available_actions(piles)
                  if ai.get_q_value(piles, move) == highest)


def action_probs(ai: NimAI, piles: Sequence[int], epsilon: bool = True) -> dict[Action, float]:
    """The probability of every available move under ``ai.choose_action(piles, epsilon)``, with
    ties broken uniformly: the greedy moves share ``1 - ai.epsilon`` (all of it with ``epsilon``
    false) and ``ai.epsilon`` is spread evenly over every move. Raises ``ValueError`` when no
    object is left."""
    everything = sorted(Nim.available_actions(piles))
    if not everything:
        raise ValueError(f"no move is available in {list(piles)}: the game is over")
    greedy = greedy_moves(ai, piles)
    explore = ai.epsilon if epsilon else 0.0
    probs = {move: explore / len(everything) for move in everything}
    for move in greedy:
        probs[move] += (1 - explore) / len(greedy)
    return probs


def games(n: int, quiet: bool) -> Iterator[int]:
    """Count the training games 1 to ``n``, announcing each with the course's ``Playing training
    game i``; with ``quiet``, a progress line on stderr updated every 1 % instead."""
    step = max(1, n // 100)
    for i in range(1, n + 1):
        if not quiet:
            print(f"Playing training game {i}")
        elif i % step == 0 or i == n:
            print(f"\rTraining: {i:,}/{n:,} games", end="", file=sys.stderr, flush=True)
        yield i
    if quiet:
        print(file=sys.stderr)
