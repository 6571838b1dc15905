"""The learning agent: a Q-table and an epsilon-greedy choice of moves."""

from __future__ import annotations

import math

from Agent import Agent
from tictactoe_rl.tables.files import load_table, save_or_keep
from State import State, position_of
from TicTacToe import Action, TicTacToe
from tictactoe_rl.exploration.schedules import (CHAPTER_SCHEDULES, DEFAULT_SCHEDULE,
                                                EPSILON_DECAY_EPOCHS, EPSILON_FINAL, EPSILON_START,
                                                EXP_WINDOWS, check_schedule, epsilon_at)


def greedy_action(Q: dict[tuple[State, Action], float], state: State) -> Action:
    """The legal action of ``state`` with the largest value in ``Q`` (missing = 0); ties go to
    the first, row-major. ``ValueError`` when the game is over."""
    best_key, best_value = None, -math.inf
    for key in state.q_keys():          # (state, action) pairs
        value = Q.get(key, 0.0)
        if value > best_value:
            best_key, best_value = key, value
    if best_key is None:
        raise ValueError("no legal action: the game is over")
    return best_key[1]


class AI_Agent(Agent):
    """A Q-learning/Monte-Carlo agent for one side.

    ``self.Q`` is a dict ``{(state, action): value}`` (a missing entry counts as 0); the value is
    from this agent's own point of view, so it always picks the largest. While ``train`` is true
    ``get_action`` explores epsilon-greedily; otherwise it plays greedily. Greedy ties go to the
    first legal action in row-major order, so a table always plays the same moves.
    ``action_probs`` states the greedy policy (one move with probability 1).
    """

    def __init__(self, player: int, env: TicTacToe | None = None, graphics=None,
                 Q_table_PATH: str | None = None, train: bool = True, *,
                 seed: int | str | None = None, epsilon: str = DEFAULT_SCHEDULE,
                 decay_epochs: int = EPSILON_DECAY_EPOCHS) -> None:
        super().__init__(player, env, graphics, seed=seed)
        self.train = train
        self.epsilon_schedule = check_schedule(epsilon)
        self.decay_epochs = decay_epochs
        self._rate_epoch, self._rate = None, EPSILON_FINAL   # exploration_rate's last answer
        self.Q: dict[tuple[State, Action], float] = {}
        self.meta: dict = {}
        if Q_table_PATH is not None:
            self.load_Q(Q_table_PATH)

    def epsilon_greedy(self, epoch: int) -> float:
        """The exploration rate at episode ``epoch`` (0-based), by ``self.epsilon_schedule``:

        linear: from 1.0 down to 0.01 over the first ``decay_epochs`` episodes, then 0.01.
        exp:    0.01 + (1.0 - 0.01) * exp(-epoch / (decay_epochs / 5)).
        """
        # [exercise piece 1: epsilon_greedy] solution begins
        if self.epsilon_schedule == "exp":
            tau = self.decay_epochs / EXP_WINDOWS
            return EPSILON_FINAL + (EPSILON_START - EPSILON_FINAL) * math.exp(-epoch / tau)
        falling = EPSILON_START + (EPSILON_FINAL - EPSILON_START) * epoch / self.decay_epochs
        return falling if epoch < self.decay_epochs else EPSILON_FINAL
        # [exercise piece 1] solution ends

    def get_Q(self, state: State, action: Action) -> float:
        """The value of playing ``action`` in ``state`` (0 if never seen)."""
        return self.Q.get((position_of(state), action), 0.0)

    def get_Q_action(self, state: State) -> Action:
        """The greedy move: the legal action with the largest Q; ties to the first, row-major."""
        return greedy_action(self.Q, position_of(state))  # the live game: the position it shows

    def get_action(self, state: State, epoch: int | None = None) -> Action:
        """Epsilon-greedy while training (epsilon from ``exploration_rate(epoch)``), else greedy."""
        if self.train and self.rng.random() < self.exploration_rate(epoch):
            return self.rng.choice(state.legal_actions())
        return self.get_Q_action(state)

    def exploration_rate(self, epoch: int | None) -> float:
        """Epsilon in episode ``epoch``: the chapter's ``epsilon_greedy`` (the exercise's piece 1),
        or the lecture's geometric schedule; ``EPSILON_FINAL`` outside a training episode
        (``epoch`` None). It changes only from one episode to the next, so it is worked out once
        per episode, not at every move (a change of ``epsilon_schedule`` or ``decay_epochs`` takes
        effect at the next episode)."""
        if epoch != self._rate_epoch:
            if epoch is None:
                rate = EPSILON_FINAL
            elif self.epsilon_schedule in CHAPTER_SCHEDULES:
                rate = self.epsilon_greedy(epoch)
            else:                # the lecture's geometric schedule is not the chapter's
                rate = epsilon_at(self.epsilon_schedule, epoch)
            self._rate_epoch, self._rate = epoch, rate
        return self._rate

    def legal_actions(self, state: State) -> list[Action]:
        """The legal moves of ``state`` (the course's name)."""
        return self.env.legal_actions(position_of(state))

    def action_probs(self, state: State) -> dict[Action, float]:
        return {self.get_Q_action(state): 1.0}

    def save_Q(self, path: str) -> None:
        """Save the table, its side and ``self.meta`` (how it was trained) in ``torch.save``'s
        format. If that fails, the table is kept in a fallback file and ``tictactoe_rl.tables.files.NotSaved``
        (a ``ValueError``) names it in one line."""
        save_or_keep(path, self.Q, self.player, self.meta, board=self.env.shape)

    def load_Q(self, path: str) -> None:
        """Load a table saved by ``save_Q`` (or by the course's original code) for this side.

        The table goes into the same dict ``self.Q``, so a name bound to it earlier (the course's
        ``Q = player1.Q``) sees it. Raises ``tictactoe_rl.tables.files.TableError`` (a ``ValueError``) naming the
        file and the problem; ``self.Q`` is then left as it was. A bigger board's table becomes
        ``self.Q`` as it is (``tictactoe_rl.tables.board_table.BoardTable``, read when asked): copying its
        millions of entries into a dict would take tens of seconds.
        """
        table, _, self.meta = load_table(path, side=self.player, board=self.env.shape)
        if isinstance(table, dict):
            self.Q.clear()
            self.Q.update(table)
        else:
            self.Q = table
