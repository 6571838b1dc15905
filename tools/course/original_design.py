"""The course's original design, rebuilt for measuring speed side by side (``tools/bench.py``).

Not product code and not the course's text: a rebuild, written from the chapter's description
of what the course's files do, of how they do it --
- ``State``: a mutable 3x3 numpy board (float, as the course's saved tables hold it), ``player``
  and ``end_of_game``; ``copy()`` copies the array; hashing and equality read the array.
- ``TicTacToe``: ``legal_actions`` with ``np.where`` (numpy-integer pairs, as in the course's
  tables); ``next_state`` copies the state, plays the cell and computes the reward, which checks
  the end of the game; ``end_of_game`` sums every row, column and diagonal with ``np.sum`` on every
  call and stores the result code in ``state.end_of_game``.
- ``Random_Agent`` (uniform), ``Random_Agent_Advanced`` (``random_step=5``: most turns it wins if a
  line holds two of its marks and an empty cell, else blocks the same for the opponent; the lines
  scanned rows, columns, main diagonal, anti-diagonal), ``AI_Agent`` (a dict ``Q``, greedy with
  ``best_value = -10`` over ``np.where``'s cells, epsilon linear from 1.0 to 0.01).
- The chapter's Monte Carlo trainer: ``Generate_episode`` (learner's move, then the opponent's
  reply unless the game ended; the final position last) and ``main``'s backward walk popping the
  episode as a stack, ``G = gamma * G + reward``, ``Q <- Q + alpha * (G - Q)``.
Only the learner's side (X) is built, as in the chapter. Randomness comes from one seeded
``random.Random`` (the course calls the ``random`` module, which costs the same per call), and the
decay window is the first half of the run (the course's 100,000 of 200,000), so a short run goes
through the whole schedule. It saves nothing: the bench times episodes. Where the description
leaves a choice open, the rebuild takes the faster one (sums along an axis rather than cell by
cell, a hash of the array's bytes), so that the ratio the bench prints does not flatter ours.

    python tools/course/original_design.py --epochs 3000 --opponent advanced --seed 1
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import numpy as np

GAMMA = 0.95      # the chapter's solution
ALPHA = 0.01
OPPONENTS = ("random", "advanced")


class State:
    """A position the course's way: a numpy board that a copy duplicates."""

    def __init__(self, board: np.ndarray | None = None, player: int = 1) -> None:
        self.board = np.zeros((3, 3)) if board is None else board
        self.player = player
        self.end_of_game = 0

    def copy(self) -> "State":
        new = State(self.board.copy(), self.player)
        new.end_of_game = self.end_of_game
        return new

    def switch_player(self) -> None:
        self.player = -self.player

    def reset(self) -> None:
        self.board = np.zeros((3, 3))
        self.player = 1
        self.end_of_game = 0

    def __eq__(self, other) -> bool:
        return (isinstance(other, State) and self.player == other.player
                and np.array_equal(self.board, other.board))

    def __hash__(self) -> int:
        return hash((self.board.tobytes(), self.player))


class TicTacToe:
    """The rules; every question is answered from the board again."""

    def __init__(self, state: State | None = None) -> None:
        self.state = state if state is not None else State()

    def legal_actions(self, state: State) -> list:
        rows, cols = np.where(state.board == 0)
        return list(zip(rows, cols))

    def next_state(self, state: State, action) -> tuple[State, int]:
        new_state = state.copy()
        new_state.board[action] = state.player
        new_state.switch_player()
        return new_state, self.reward(new_state)

    def reward(self, state: State) -> int:
        if self.end_of_game(state) and state.end_of_game != 2:
            return state.end_of_game
        return 0

    def end_of_game(self, state: State) -> bool:
        board = state.board
        lines = [*np.sum(board, axis=1), *np.sum(board, axis=0),
                 np.sum(np.diag(board)), np.sum(np.diag(np.fliplr(board)))]
        for total in lines:
            if total == 3 or total == -3:
                state.end_of_game = 1 if total == 3 else -1
                return True
        if np.sum(board == 0) == 0:
            state.end_of_game = 2
            return True
        state.end_of_game = 0
        return False


class Random_Agent:
    """A uniformly random legal move."""

    def __init__(self, player: int, env: TicTacToe, rng: random.Random) -> None:
        self.player, self.env, self.rng = player, env, rng

    def get_action(self, state: State, epoch: int | None = None):
        return self.rng.choice(self.env.legal_actions(state))


class Random_Agent_Advanced(Random_Agent):
    """Wins or blocks in ``1 - 1/random_step`` of its turns when it can; random otherwise."""

    random_step = 5

    def get_action(self, state: State, epoch: int | None = None):
        if self.rng.random() < 1 - 1 / self.random_step:
            for mark in (self.player, -self.player):
                cell = self.line_cell(state.board, mark)
                if cell is not None:
                    return cell
        return self.rng.choice(self.env.legal_actions(state))

    @staticmethod
    def line_cell(board: np.ndarray, mark: int):
        """The empty cell of the first line holding two ``mark`` s and an empty cell, or None
        (three cells of -1/0/1 sum to 2*mark exactly then)."""
        rows, cols = np.sum(board, axis=1), np.sum(board, axis=0)
        for row in range(3):
            if rows[row] == 2 * mark:
                return row, np.where(board[row, :] == 0)[0][0]
        for col in range(3):
            if cols[col] == 2 * mark:
                return np.where(board[:, col] == 0)[0][0], col
        diagonal, anti = np.diag(board), np.diag(np.fliplr(board))
        if np.sum(diagonal) == 2 * mark:
            index = np.where(diagonal == 0)[0][0]
            return index, index
        if np.sum(anti) == 2 * mark:
            index = np.where(anti == 0)[0][0]
            return index, 2 - index
        return None


class AI_Agent:
    """A dict Q-table, epsilon-greedy while training."""

    def __init__(self, player: int, env: TicTacToe, rng: random.Random, decay: int) -> None:
        self.player, self.env, self.rng, self.decay = player, env, rng, decay
        self.Q: dict = {}
        self.train = True

    def get_Q_action(self, state: State):
        best_value, best_action = -10, None
        for action in self.legal_actions(state):
            value = self.Q.get((state, action), 0)
            if value > best_value:
                best_value, best_action = value, action
        return best_action

    def get_action(self, state: State, epoch: int | None = None):
        if self.train and self.rng.random() < self.epsilon_greedy(epoch):
            return self.rng.choice(self.legal_actions(state))
        return self.get_Q_action(state)

    def legal_actions(self, state: State) -> list:
        rows, cols = np.where(state.board == 0)
        return list(zip(rows, cols))

    def epsilon_greedy(self, epoch: int) -> float:
        start, final = 1.0, 0.01
        if epoch > self.decay:
            return final
        return start - (start - final) * epoch / self.decay


def Generate_episode(player: AI_Agent, opponent: Random_Agent, env: TicTacToe,
                     epoch: int) -> list[tuple]:
    """One game: ``(state, action, reward)`` per learning step, then ``(final state,)``."""
    episode = []
    state = State()
    while not env.end_of_game(state):
        action = player.get_action(state, epoch)
        after_state, reward = env.next_state(state, action)
        if not env.end_of_game(after_state):
            reply = opponent.get_action(after_state)
            after_state, reward = env.next_state(after_state, reply)
        episode.append((state.copy(), action, reward))
        state = after_state
    episode.append((state,))
    return episode


def train(epochs: int, opponent: str, seed: int) -> tuple[AI_Agent, Random_Agent, float]:
    """The chapter's ``main`` for ``epochs`` episodes of X against ``opponent``; returns the
    learner, its opponent and the seconds the episodes took."""
    rng = random.Random(seed)
    env = TicTacToe(State())
    player = AI_Agent(1, env, rng, decay=max(1, epochs // 2))
    kind = Random_Agent_Advanced if opponent == "advanced" else Random_Agent
    rival = kind(-1, env, rng)
    started = time.perf_counter()
    for epoch in range(epochs):
        episode = Generate_episode(player, rival, env, epoch)
        G = 0
        episode.pop()
        for _ in range(len(episode)):
            state, action, reward = episode.pop()  # the last step first
            G = GAMMA * G + reward
            Q_value = player.Q.get((state, action), 0)
            player.Q[(state, action)] = Q_value + ALPHA * (G - Q_value)
    return player, rival, time.perf_counter() - started


def test(player: AI_Agent, rival: Random_Agent, games: int) -> tuple[int, int, int]:
    """``games`` greedy games of ``player`` (X) against ``rival``: ``(x_wins, o_wins, ties)``."""
    player.train = False
    env, tally = player.env, {1: 0, -1: 0, 2: 0}
    for _ in range(games):
        state, mover = State(), player
        while not env.end_of_game(state):
            state, _ = env.next_state(state, mover.get_action(state))
            mover = rival if mover is player else player
        tally[state.end_of_game] += 1
    return tally[1], tally[-1], tally[2]


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tictactoe_rl import cli

    parser = cli.Parser(prog="tools/course/original_design.py", description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=cli.count, default=3_000,
                        help="episodes to train (default 3,000; the course's run is 200,000)")
    parser.add_argument("--opponent", choices=OPPONENTS, default="random")
    parser.add_argument("--seed", type=cli.seed, default=0)
    args = parser.parse_args(argv)
    player, rival, seconds = train(args.epochs, args.opponent, args.seed)
    print(f"Trained {args.epochs:,} episodes in {seconds:.1f} s "
          f"({args.epochs / max(seconds, 1e-9):,.0f} episodes/s)")
    print(f"test(100): {test(player, rival, 100)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
