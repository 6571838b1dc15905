"""Nim learned by Q-learning in self-play: the AI course's project, as a student submits it.

Piles of objects (1, 3, 5 and 7 by default); a move takes one or more objects from one pile;
whoever takes the last object loses. ``train(n)`` lets one ``NimAI`` play both sides of ``n`` games
and learn a value ``Q(state, action)`` for every move it tries; ``play(ai)`` then plays it against
you in the terminal. Everything here is the course's, name for name and line for line of output;
the four ``NimAI`` functions marked below are the ones a student writes. The project's stronger
training and the exact judge live beside this file, in ``better.py`` and ``judge.py``.
"""

from __future__ import annotations

import random
import time
from typing import Callable, Sequence

Action = tuple[int, int]  # (pile index, how many objects to take)


class Nim:
    """One game of Nim: ``piles`` (a list, changed by each move), ``player`` to move (0 or 1;
    player 0 starts) and ``winner`` (None while the game goes on, then 0 or 1)."""

    def __init__(self, initial: Sequence[int] = [1, 3, 5, 7]) -> None:  # copied: never changed
        """A new game from the pile sizes ``initial`` (copied: the caller's list never changes).
        The sizes are not checked, as in the course: an empty list or piles that are all 0 make
        a game in which no move is available."""
        self.piles = list(initial)
        self.player = 0
        self.winner = None

    @classmethod
    def available_actions(cls, piles: Sequence[int]) -> set[Action]:
        """Every legal move in ``piles`` as a set of ``(i, j)``: take j objects (1 <= j <=
        piles[i]) from pile i. A position with no objects left has none."""
        return {(i, j) for i, pile in enumerate(piles) for j in range(1, pile + 1)}

    @classmethod
    def other_player(cls, player: int) -> int:
        """The opponent of ``player``: 0 for 1, and 1 for anything else (0)."""
        return 0 if player == 1 else 1

    def switch_player(self) -> None:
        """Hand the turn to the other player."""
        self.player = Nim.other_player(self.player)

    def move(self, action: Sequence[int]) -> None:
        """Play ``action = (pile, count)`` (a tuple or a list) for the player to move: take
        ``count`` objects from pile number ``pile`` (0-based) and pass the turn. Whoever takes the
        last object loses, so then the player whose turn it now is becomes the ``winner``.
        Raises ``Exception("Game already won")`` once there is a winner, ``Exception("Invalid
        pile")`` for a pile that does not exist and ``Exception("Invalid number of objects")``
        for a count below 1 or above the size of the pile, in that order of checking."""
        pile, count = action
        if self.winner is not None:
            raise Exception("Game already won")
        if pile < 0 or pile >= len(self.piles):
            raise Exception("Invalid pile")
        if count < 1 or count > self.piles[pile]:
            raise Exception("Invalid number of objects")
        self.piles[pile] -= count
        self.switch_player()
        if all(size == 0 for size in self.piles):
            self.winner = self.player  # the mover took the last object: the other side wins


class NimAI:
    """A Q-learning player. ``q`` maps ``(tuple(state), action)`` to the learned value of playing
    ``action`` in ``state`` for the side to move (about +1: it leads to a win, -1: to a loss);
    ``alpha`` is the learning rate and ``epsilon`` the exploration rate of ``choose_action``."""

    def __init__(self, alpha: float = 0.5, epsilon: float = 0.1) -> None:
        self.q: dict[tuple[tuple[int, ...], Action], float] = dict()
        self.alpha = alpha
        self.epsilon = epsilon

    def update(self, old_state: Sequence[int], action: Action, new_state: Sequence[int],
               reward: float) -> None:
        """Learn from one experience: ``action`` was played in ``old_state``, ``reward`` came of
        it, and ``new_state`` is the position that followed. Moves ``Q(old_state, action)``
        towards ``reward`` plus the best value available in ``new_state``."""
        old = self.get_q_value(old_state, action)
        best_future = self.best_future_reward(new_state)
        self.update_q_value(old_state, action, old, reward, best_future)

    def get_q_value(self, state: Sequence[int], action: Action) -> float:
        """The Q-value of ``action`` in ``state`` (a list or a tuple of pile sizes): the value
        ``self.q`` holds under the key ``(tuple(state), action)``, or 0 if it holds none yet."""
        # [exercise piece 5: get_q_value] solution begins
        return self.q.get((tuple(state), action), 0)
        # [exercise piece 5] solution ends

    def update_q_value(self, state: Sequence[int], action: Action, old_q: float, reward: float,
                       future_rewards: float) -> None:
        """Store in ``self.q`` the new Q-value of ``action`` in ``state``: ``old_q + alpha *
        ((reward + future_rewards) - old_q)``, with ``alpha`` this AI's learning rate. ``old_q``
        is the value so far, ``reward`` the reward just received and ``future_rewards`` the
        rewards expected after it; the key is ``(tuple(state), action)``."""
        # [exercise piece 5: update_q_value] solution begins
        estimate = reward + future_rewards
        self.q[(tuple(state), action)] = old_q + self.alpha * (estimate - old_q)
        # [exercise piece 5] solution ends

    def best_future_reward(self, state: Sequence[int]) -> float:
        """The highest Q-value among all actions available in ``state``. An action with no
        Q-value in ``self.q`` yet counts as 0, and a state with no available action (the game is
        over) gives 0."""
        # [exercise piece 5: best_future_reward] solution begins
        key = tuple(state)
        values = [self.q.get((key, action), 0) for action in Nim.available_actions(state)]
        return max(values, default=0)
        # [exercise piece 5] solution ends

    def choose_action(self, state: Sequence[int], epsilon: bool = True) -> Action:
        """An action ``(i, j)`` available in ``state``. With ``epsilon`` false, the best one: the
        highest Q-value (an action with none yet counts as 0). With ``epsilon`` true, a random
        available action with probability ``self.epsilon``, and the best one otherwise. When
        several actions share the highest value, any of them may be returned."""
        # [exercise piece 5: choose_action] solution begins
        available = list(Nim.available_actions(state))
        if epsilon and random.random() < self.epsilon:
            return random.choice(available)
        key = tuple(state)
        values = [self.q.get((key, action), 0) for action in available]
        top = max(values)
        return random.choice([action for action, value in zip(available, values) if value == top])
        # [exercise piece 5] solution ends


def train(n: int) -> NimAI:
    """Train a fresh ``NimAI`` by ``n`` games against itself from the piles 1, 3, 5, 7 and return
    it. Prints ``Playing training game i`` before game i (1 to n) and ``Done training`` at the end.
    A move is learned from once the opponent has replied, in the position where its player moves
    again: reward -1 for taking the last object, +1 for the winner's last move, 0 otherwise."""
    player = NimAI()
    for i in range(n):
        print(f"Playing training game {i + 1}")
        game = Nim()
        # Each side's latest move: it can only be judged once the opponent has answered it.
        last = {0: {"state": None, "action": None}, 1: {"state": None, "action": None}}
        while True:
            state = game.piles.copy()
            action = player.choose_action(game.piles)
            last[game.player]["state"] = state
            last[game.player]["action"] = action
            game.move(action)
            new_state = game.piles.copy()
            if game.winner is not None:
                player.update(state, action, new_state, -1)
                other = last[game.player]  # the winner, whose turn it now is
                player.update(other["state"], other["action"], new_state, 1)
                break
            if last[game.player]["state"] is not None:
                other = last[game.player]
                player.update(other["state"], other["action"], new_state, 0)
    print("Done training")
    return player


def course_number(prompt: str) -> int:
    """The course's way to read a pile or a count: ``int(input(prompt))``."""
    return int(input(prompt))


def play(ai: NimAI, human_player: int | None = None,
         read_number: Callable[[str], int] = course_number) -> None:
    """Play one game in the terminal between you and ``ai`` from the piles 1, 3, 5, 7.
    ``human_player`` is your side: 0 (you move first), 1, or None (drawn at random). Shows the
    piles before every move; on your turn reads a pile and a count with ``read_number`` (the
    course's ``int(input())`` by default: anything but a whole number raises ``ValueError``) and
    answers a move that is not available with ``Invalid move, try again.``; on the AI's turn
    waits a second, then plays its best move (no exploration) and says which. Ends by announcing
    the winner, ``Human`` or ``AI``."""
    if human_player is None:
        human_player = random.randint(0, 1)
    game = Nim()
    while True:
        print()
        print("Piles:")
        for i, pile in enumerate(game.piles):
            print(f"Pile {i}: {pile}")
        print()
        available_actions = Nim.available_actions(game.piles)
        if game.player == human_player:
            print("Your Turn")
            while True:
                pile = read_number("Choose Pile: ")
                count = read_number("Choose Count: ")
                if (pile, count) in available_actions:
                    break
                print("Invalid move, try again.")
        else:
            print("AI's Turn")
            time.sleep(1)  # so that a human can follow the AI's move
            pile, count = ai.choose_action(game.piles, epsilon=False)
            print(f"AI chose to take {count} from pile {pile}.")
        game.move((pile, count))
        if game.winner is not None:
            print()
            print("GAME OVER")
            winner = "Human" if game.winner == human_player else "AI"
            print(f"Winner is {winner}")
            return
