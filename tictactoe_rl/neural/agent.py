"""The network as a player: greedy from its nine action values, epsilon-greedy while it learns.

``DQNAgent`` is an ``Agent`` like the table's ``AI_Agent``: ``get_action``, ``action_probs`` (one
move with probability 1, so the exact tools of ``tictactoe_rl/exact/solver.py`` measure it), and ``q_values``
for the views that show the values of every cell. ``BoardDQNAgent`` is the same player on a
bigger board, asking the network about each position as it comes (``tictactoe_rl.neural.boards``). ``make_dqn_agent(path, player, env)`` is the
agent an agent spec names (``dqn:PATH`` or a path ending in ``.pt``); ``show_network_q`` is the
network's view of a position for ``Tester.py --show-q``.
"""

from __future__ import annotations

import torch

from tictactoe_rl import cli
from Agent import Agent
from tictactoe_rl.geometry import TIC_TAC_TOE
from tictactoe_rl.positions import shape_of
from State import State, parse_moves, position_of, symbol
from tictactoe_rl.tables.view import board_grid
from TicTacToe import Action, TicTacToe
from tictactoe_rl.neural.boards import Symmetries
from tictactoe_rl.neural.files import load_network
from tictactoe_rl.neural.level_side import network_side
from tictactoe_rl.exact.arena import Arena
from tictactoe_rl.exact.levels import Side
from tictactoe_rl.exact.sides import LevelPolicy
from tictactoe_rl.neural.network import (ACTIONS, INDEX, POSITIONS, QNetwork, greedy_indices,
                                         legal_masks, symmetric_values)
from tictactoe_rl.exploration.schedules import (DEFAULT_SCHEDULE, EPSILON_DECAY_EPOCHS,
                                                EPSILON_FINAL, check_schedule)
from AI_Agent import AI_Agent


class DQNAgent(Agent, LevelPolicy):
    """Plays side ``player`` with ``network`` (shared: the two agents of self-play hold one).

    Greedy play (``train`` false, and what ``action_probs`` states): the legal move of the largest
    value, ties to the first cell in row-major order. The greedy move of every position is worked
    out in one batch and kept until the network takes another optimiser step, so the exact tools
    and a game ask the same policy. While ``train`` is true ``get_action`` explores: with the
    probability ``exploration_rate(epoch)`` (a schedule of ``tictactoe_rl/exploration/schedules.py``) a uniformly
    random legal move, else the greedy move of the network as it is at that moment.
    """

    def __init__(self, player: int, env: TicTacToe | None = None, graphics=None,
                 network: QNetwork | None = None, train: bool = False, *,
                 seed: int | str | None = None, epsilon: str = DEFAULT_SCHEDULE,
                 decay_epochs: int = EPSILON_DECAY_EPOCHS) -> None:
        super().__init__(player, env, graphics, seed=seed)
        self.network = network if network is not None else QNetwork()
        # the network's device now: move a network before making its agents
        device = self.network.device
        self._rows = torch.arange(len(POSITIONS), device=device)   # to ask for one at a time
        self._masks = legal_masks(device)
        self.train = train
        self.epsilon_schedule = check_schedule(epsilon)
        self.decay_epochs = decay_epochs
        self._rate_epoch, self._rate = None, EPSILON_FINAL   # exploration_rate's last answer
        self.meta: dict = {}
        self._policy_version = None    # network.weights_version when the policy was worked out
        self._values: torch.Tensor | None = None
        self._greedy: list[int] = []

    # The exploration rate at episode ``epoch``, by ``self.epsilon_schedule`` over
    # ``self.decay_epochs`` games: the table agent's methods (the chapter's schedules are its
    # epsilon_greedy), so that each schedule is written once -- the chapter's, in the students'
    # version, by the student (piece 1).
    epsilon_greedy = AI_Agent.epsilon_greedy
    exploration_rate = AI_Agent.exploration_rate

    def _policy(self) -> tuple[torch.Tensor, list[int]]:
        """The values and greedy move of every position, worked out again after each step."""
        if self._policy_version != self.network.weights_version or self._values is None:
            with torch.no_grad():
                values = symmetric_values(self.network)
            self._greedy = greedy_indices(values, self._masks).tolist()
            self._values = values.cpu()
            self._policy_version = self.network.weights_version
        return self._values, self._greedy

    def q_values(self, state: State) -> dict[Action, float]:
        """``{action: value}`` for every legal move of ``state``, from the side to move's view."""
        state = position_of(state)
        row = self._policy()[0][INDEX[state]].tolist()
        return {action: row[i] for i, action in enumerate(ACTIONS) if action in state.children()}

    def greedy_action(self, state: State) -> Action:
        """The greedy move of ``state``; ``ValueError`` when the game is over."""
        state = position_of(state)
        if state.end_of_game:
            raise ValueError("no legal action: the game is over")
        return ACTIONS[self._policy()[1][INDEX[state]]]

    def action_probs(self, state: State) -> dict[Action, float]:
        return {self.greedy_action(state): 1.0}

    def level_side(self, arena: Arena) -> Side | None:
        """The greedy policy for a whole level of an exact walk at once
        (``tictactoe_rl.neural.level_side``); ``None`` for a subclass, which may play otherwise."""
        return network_side(self, arena) if type(self) in (DQNAgent, BoardDQNAgent) else None

    def get_action(self, state: State, epoch: int | None = None) -> Action:
        """Epsilon-greedy while training (epsilon from ``epsilon_greedy(epoch)``), else greedy."""
        state = position_of(state)
        if not self.train:
            return self.greedy_action(state)
        if self.rng.random() < self.exploration_rate(epoch):
            return self.rng.choice(state.legal_actions())
        # One position through the network as it is now: cheaper than the whole batch, which
        # would be out of date after the next step anyway.
        row = INDEX[state]
        with torch.no_grad():
            values = symmetric_values(self.network, self._rows[row:row + 1])[0]
        return ACTIONS[int(greedy_indices(values, self._masks[row]))]


class BoardDQNAgent(DQNAgent):
    """``DQNAgent`` on a bigger board: the network is asked about each position as it comes,
    its answers kept until the network takes its next step."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        shape = self.network.board
        self.symmetries = Symmetries(shape, self.network.device)
        self._answers: dict[State, list[float]] = {}
        self._answered_at = None

    def _cell_values(self, state: State) -> list[float]:
        """The values of every cell's move in ``state`` (the side to move's view), as now."""
        if self._answered_at != self.network.weights_version:
            self._answers.clear()
            self._answered_at = self.network.weights_version
        found = self._answers.get(state)
        if found is None:
            cells = torch.tensor([[state.player * v for v in state.cells]],
                                 device=self.network.device)
            with torch.no_grad():
                found = self.symmetries.values(self.network, cells)[0].tolist()
            self._answers[state] = found
        return found

    def q_values(self, state: State) -> dict[Action, float]:
        state = position_of(state)
        values, cells = self._cell_values(state), shape_of(state).cells
        return {action: values[cells.index(action)] for action in state.legal_actions()}

    def greedy_action(self, state: State) -> Action:
        state = position_of(state)
        if state.end_of_game:
            raise ValueError("no legal action: the game is over")
        values = torch.tensor(self._cell_values(state))
        legal = torch.tensor([v == 0 for v in state.cells])
        return shape_of(state).cells[int(greedy_indices(values, legal))]

    def get_action(self, state: State, epoch: int | None = None) -> Action:
        state = position_of(state)
        if self.train and self.rng.random() < self.exploration_rate(epoch):
            return self.rng.choice(state.legal_actions())
        return self.greedy_action(state)


def make_dqn_agent(path: str, player: int, env: TicTacToe | None = None) -> DQNAgent:
    """The greedy agent of the network saved at ``path``, playing ``player`` (1 X, -1 O).
    Raises ``tictactoe_rl.neural.files.NetworkError`` (a ``ValueError``, one line) for an unusable file or a
    network not trained for ``player``."""
    saved = load_network(path, side=player, board=env.shape if env else TIC_TAC_TOE)
    kind = DQNAgent if saved.network.board == TIC_TAC_TOE else BoardDQNAgent
    agent = kind(player, env, network=saved.network.eval(), train=False)
    agent.meta = saved.meta
    return agent


def show_network_q(path: str, moves: str = "") -> str:
    """The network's view after ``moves`` (row,col pairs from the empty board, e.g. ``"1,1 0,0"``):
    the value of every legal move for the side to move, laid out as the board, the greedy move
    bracketed (``tictactoe_rl.tables.view.board_grid``, as for a table). ``ValueError`` in one line for a bad
    file, an illegal move, a game already over, or a side the network was not trained for."""
    state = parse_moves(moves)
    if state.end_of_game:
        raise ValueError("the game is over in this position: there is no move to show")
    agent = make_dqn_agent(path, state.player)
    played = len(moves.split())
    return (f"{symbol(state.player)} to move after {played} move{'' if played == 1 else 's'}; "
            f"values of the network {cli.shown(path)} (the bracketed cell is the greedy move):\n\n"
            + board_grid(state, agent.q_values(state)))
