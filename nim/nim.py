"""Nim learned by Q-learning in self-play: the AI course's project, with the course's interface.

Piles of objects (1, 3, 5 and 7 by default); a move takes one or more objects from one pile; whoever
takes the last object loses. ``train(n)`` lets one ``NimAI`` play both sides of ``n`` games and
learn a value ``Q(state, action)`` for every move it tries; ``play(ai)`` then plays it against you
in the terminal. Compared with the course's training loop, ``learn_from_game`` values a move by
what the opponent can do next (minus the opponent's best value) and ``train`` starts half of its
games from random positions; together they learn perfect play (the README explains why, and
``judge.py`` checks it against the exact theory).
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Iterator, Sequence

Action = tuple[int, int]  # (pile index, how many objects to take)
Key = tuple[tuple[int, ...], Action]  # a key of NimAI.q

DEFAULT_PILES = (1, 3, 5, 7)
LOSS, WIN, NOTHING_YET = -1, 1, 0  # rewards: taking the last object, the winner's last move, else
RANDOM_START_SHARE = 0.5  # of training games that start from a random position


@lru_cache(maxsize=4096)  # bounded: huge games have huge move lists
def _actions(piles: tuple[int, ...]) -> tuple[Action, ...]:
    # Training asks for the moves of the same few hundred positions again and again.
    return tuple((i, j) for i, pile in enumerate(piles) for j in range(1, pile + 1))


def _moves_left(piles: tuple[int, ...]) -> tuple[Action, ...]:
    actions = _actions(piles)
    if not actions:
        raise ValueError(f"no move is available in {list(piles)}: the game is over")
    return actions


class Nim:
    """One game of Nim: ``piles`` (a list, changed by each move), ``player`` to move (0 or 1;
    player 0 starts) and ``winner`` (None while the game goes on, then 0 or 1)."""

    def __init__(self, initial: Sequence[int] = DEFAULT_PILES) -> None:
        if not initial or any(not isinstance(p, int) or p < 0 for p in initial) or not any(initial):
            raise ValueError(f"piles must be whole numbers >= 0, not all 0; got {list(initial)}")
        self.piles = list(initial)
        self.player = 0
        self.winner: int | None = None

    @classmethod
    def available_actions(cls, piles: Sequence[int]) -> set[Action]:
        """Every legal move in ``piles`` as a set of ``(i, j)``: take j objects (1 <= j <= piles[i])
        from pile i. An empty board has none."""
        return set(_actions(tuple(piles)))

    @classmethod
    def other_player(cls, player: int) -> int:
        """The opponent of ``player``: 1 for 0 and 0 for 1."""
        return 1 - player

    def switch_player(self) -> None:
        """Hand the turn to the other player."""
        self.player = Nim.other_player(self.player)

    def move(self, action: Action) -> None:
        """Play ``action = (pile, count)`` for the player to move: take ``count`` objects from pile
        number ``pile`` (0-based) and pass the turn. Whoever takes the last object loses, so the
        other player becomes the ``winner``. Raises ``ValueError`` if the game is over, the pile
        does not exist, or ``count`` is not between 1 and the size of that pile."""
        if not (isinstance(action, tuple) and len(action) == 2
                and all(isinstance(n, int) for n in action)):
            raise ValueError(f"move {action!r}: a move is a pair of whole numbers (pile, count)")
        pile, count = action
        if self.winner is not None:
            raise ValueError(f"move {action}: the game is already over")
        if not 0 <= pile < len(self.piles):
            raise ValueError(f"move {action}: there is no pile {pile} "
                             f"(piles are 0 to {len(self.piles) - 1})")
        if not 1 <= count <= self.piles[pile]:
            raise ValueError(f"move {action}: pile {pile} has {self.piles[pile]} objects, "
                             f"so take 1 to {self.piles[pile]}")
        self.piles[pile] -= count
        self.switch_player()
        if not any(self.piles):
            self.winner = self.player


class NimAI:
    """A Q-learning player. ``q`` maps ``(tuple(state), action)`` to the learned value of playing
    ``action`` in ``state`` for the side to move (about +1: it leads to a win, -1: to a loss);
    ``alpha`` is the learning rate and ``epsilon`` the exploration rate of ``choose_action``."""

    def __init__(self, alpha: float = 0.5, epsilon: float = 0.1) -> None:
        self.q: dict[Key, float] = {}
        self.alpha = alpha
        self.epsilon = epsilon

    def update(self, old_state: Sequence[int], action: Action, new_state: Sequence[int],
               reward: float) -> None:
        """Learn from one experience: ``action`` was played in ``old_state``, ``reward`` came of it,
        and ``new_state`` is the next position in which the same player has to choose again (or the
        final, empty one). Moves ``Q(old_state, action)`` towards ``reward`` plus the best value
        available in ``new_state``."""
        old = self.get_q_value(old_state, action)
        best_future = self.best_future_reward(new_state)
        self.update_q_value(old_state, action, old, reward, best_future)

    def get_q_value(self, state: Sequence[int], action: Action) -> float:
        """The Q-value of ``action`` in ``state`` (a list or tuple of pile sizes), 0 if it has none
        yet."""
        # [exercise piece 5: get_q_value] solution begins
        return self.q.get((tuple(state), action), 0)
        # [exercise piece 5] solution ends

    def update_q_value(self, state: Sequence[int], action: Action, old_q: float, reward: float,
                       future_rewards: float) -> None:
        """Set the Q-value of ``action`` in ``state`` to ``old_q + alpha * ((reward +
        future_rewards) - old_q)``: a step of size ``alpha`` from the old value towards the new
        estimate, which is the reward just received plus the future rewards expected after it."""
        # [exercise piece 5: update_q_value] solution begins
        self.q[(tuple(state), action)] = old_q + self.alpha * ((reward + future_rewards) - old_q)
        # [exercise piece 5] solution ends

    def best_future_reward(self, state: Sequence[int]) -> float:
        """The highest Q-value among all available actions in ``state``; an action with no
        Q-value yet counts as 0, and a state with no actions (the game is over) gives 0."""
        # [exercise piece 5: best_future_reward] solution begins
        key = tuple(state)
        q = self.q
        return max([q.get((key, action), 0) for action in _actions(key)], default=0)
        # [exercise piece 5] solution ends

    def action_probs(self, state: Sequence[int], epsilon: bool = True) -> dict[Action, float]:
        """The probability of each available action under ``choose_action(state, epsilon)``:
        the best-valued actions share the greedy part equally; with ``epsilon`` true, a share
        ``self.epsilon`` is spread over all actions. Raises ``ValueError`` if no action is left."""
        # [exercise piece 5: action_probs] solution begins
        key = tuple(state)
        actions = _moves_left(key)
        best = self._best_actions(key, actions)
        explore = self.epsilon if epsilon else 0.0
        probs = {action: explore / len(actions) for action in actions}
        for action in best:
            probs[action] += (1 - explore) / len(best)
        return probs
        # [exercise piece 5] solution ends

    def choose_action(self, state: Sequence[int], epsilon: bool = True) -> Action:
        """An available action in ``state``. With ``epsilon`` false: the action with the highest
        Q-value (unknown ones count 0; ties are broken at random). With ``epsilon`` true: a random
        available action with probability ``self.epsilon``, otherwise that best action. Raises
        ``ValueError`` if no action is left."""
        # [exercise piece 5: choose_action] solution begins
        key = tuple(state)
        actions = _moves_left(key)
        if epsilon and random.random() < self.epsilon:
            return random.choice(actions)
        best = self._best_actions(key, actions)
        return best[0] if len(best) == 1 else random.choice(best)
        # [exercise piece 5] solution ends

    def _best_actions(self, key: tuple[int, ...], actions: tuple[Action, ...]) -> list[Action]:
        # [exercise piece 5: best_actions] solution begins
        q = self.q
        values = [q.get((key, action), 0) for action in actions]
        top = max(values)
        return [action for action, value in zip(actions, values) if value == top]
        # [exercise piece 5] solution ends


def train(n: int, *, initial: Sequence[int] = DEFAULT_PILES, quiet: bool = False) -> NimAI:
    """Train a fresh ``NimAI`` by ``n`` games against itself and return it. Prints ``Playing
    training game i`` before each game (with ``quiet``: a progress bar instead) and ``Done
    training`` at the end. Half of the games start from ``initial``, the other half from a random
    position a game from ``initial`` can reach, so that every position gets practised; each game
    is learned from by ``learn_from_game``."""
    ai = NimAI()
    for _ in _games(n, quiet):
        start = _random_position(initial) if random.random() < RANDOM_START_SHARE else initial
        learn_from_game(ai, start)
    print("Done training")
    return ai


def learn_from_game(ai: NimAI, piles: Sequence[int]) -> None:
    """Let ``ai`` play both sides of one game from ``piles`` (with exploration) and learn from every
    move as soon as it is played. Rewards as in the course: -1 for the move that takes the last
    object, +1 for the winner's last move, 0 for every other move. A move that does not end the
    game hands the turn to the opponent, so what it can still bring the mover is minus the best the
    opponent can get from there: its target is ``0 - best_future_reward(position it leaves)``."""
    game = Nim(piles)
    previous = None  # the last move played: (state, action)
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


def _random_position(initial: Sequence[int]) -> list[int]:
    # Uniform over the positions a game from ``initial`` can reach, except the empty one.
    while True:
        piles = [random.randint(0, pile) for pile in initial]
        if any(piles):
            return piles


def _games(n: int, quiet: bool) -> Iterator[int]:
    if quiet:
        from tqdm import tqdm  # only quiet runs pay for importing it
        yield from tqdm(range(1, n + 1), desc="Training", unit="game", mininterval=0.5)
    else:
        for i in range(1, n + 1):
            print(f"Playing training game {i}")
            yield i


def play(ai: NimAI, human_player: int | None = None, *,
         initial: Sequence[int] = DEFAULT_PILES) -> int | None:
    """Play one game in the terminal between you and ``ai`` from ``initial``. ``human_player`` is
    your side: 0 (you move first), 1, or None (drawn at random). Shows the piles before each move,
    asks for a pile and a count, answers anything that is not a legal move with ``Invalid move,
    try again.`` and asks again; announces the AI's moves (always its best, no exploration) and the
    winner. Returns the winner (0 or 1), or None when you end the game early with Ctrl-D or
    Ctrl-C."""
    if human_player is None:
        human_player = random.randint(0, 1)
    if human_player not in (0, 1):
        raise ValueError(f"human_player must be 0, 1 or None, got {human_player!r}")
    game = Nim(initial)
    try:
        while game.winner is None:
            _show(game.piles)
            if game.player == human_player:
                print("Your Turn")
                action = _ask_move(game.piles)
            else:
                print("AI's Turn")
                action = ai.choose_action(game.piles, epsilon=False)
                print(f"AI chose to take {action[1]} from pile {action[0]}.")
            game.move(action)
    except (EOFError, KeyboardInterrupt):
        print("\nGame left unfinished. Goodbye!")
        return None
    print("\nGAME OVER")
    print(f"Winner is {'Human' if game.winner == human_player else 'AI'}")
    return game.winner


def _show(piles: Sequence[int]) -> None:
    print("\nPiles:")
    for i, pile in enumerate(piles):
        print(f"Pile {i}: {pile:<3}{' |' * pile}".rstrip())
    print()


def _ask_move(piles: Sequence[int]) -> Action:
    while True:
        pile = _ask_number("Choose Pile: ")
        if pile is not None and 0 <= pile < len(piles) and piles[pile] > 0:
            count = _ask_number("Choose Count: ")
            if count is not None and 1 <= count <= piles[pile]:
                return pile, count
        print("Invalid move, try again.")


def _ask_number(prompt: str) -> int | None:
    text = input(prompt).strip()
    try:
        return int(text) if text.isascii() else None  # int() would also read other scripts' digits
    except ValueError:
        return None
