"""Any policy trained on the environments, measured exactly: ``measure_policy``.

A policy here is what the field's libraries train, seen the way the environments show the game:

- a Stable-Baselines3 model, or anything with ``predict(observation, action_masks=mask,
  deterministic=True)`` (sb3-contrib's ``MaskablePPO``); ``from_sb3(model, masked=False)`` for
  a model without masks (``PPO``, ``DQN``);
- a torch module from the observation (a float32 tensor with a batch dimension of one) to one
  score per cell: ``from_torch(module)`` plays the legal cell of the highest score;
- a plain function ``(observation, mask) -> action``, the observation as the environment gives it
  and the mask ``bool``, one flag per cell (``True`` = empty); the action a cell index.

``measure_policy(policy, side="X", board="3x3", k=None, observation=None)`` takes any of the three
(``as_policy`` tells them apart), shows it the observation it was trained on (``observation`` as
``gymnasium.make`` takes it, or read from an SB3 model's ``observation_space``) and walks every game it can meet (``tictactoe_rl.exact.solver``): its exact
wins, losses and draws against ``random``, ``advanced`` and the perfect player
(``tictactoe_rl.exact.opponents``), how often it loses by an illegal move, and the
worst case any opponent can bring about with a shortest line that does it. The policy is asked
once per position it meets, so it must be deterministic (SB3's ``deterministic=True``).
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from Agent import Agent, seats
from State import State, position_of, symbol
from TicTacToe import Action, TicTacToe
from tictactoe_rl.envs import observations
from tictactoe_rl.envs.board import (action_mask, action_of, board_shape, cell_index,
                                     shown_action, side_number)
from tictactoe_rl.exact.fits import refusal
from tictactoe_rl.exact.opponents import opponents_of
from tictactoe_rl.exact.progress import walk_progress
from tictactoe_rl.exact.solver import exact_outcome, illegal_share, side_result
from tictactoe_rl.exact.worst import worst_case
from tictactoe_rl.geometry import BoardShape
from tictactoe_rl.positions import shape_of, start_position

# (observation, mask) -> the cell index to mark
Policy = Callable[[np.ndarray, np.ndarray], Any]
# how a position is shown to the policy: (position, side) -> observation
Observe = Callable[[State, int], Any]


@runtime_checkable
class Predictor(Protocol):
    """What an SB3 model offers: ``predict(observation, ..., deterministic=...)`` returning
    ``(action, state)``."""

    def predict(self, observation: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]: ...


def from_sb3(model: Predictor, masked: bool = True) -> Policy:
    """``model``'s greedy action, given the mask (``masked``, as ``MaskablePPO`` takes it) or
    not (a model that knows no masks, or to see how often the bare policy plays illegally).
    A model whose ``predict`` takes no ``action_masks`` is refused with ``masked`` in one line."""
    if masked and "action_masks" not in inspect.signature(model.predict).parameters:
        raise ValueError(f"{type(model).__name__}.predict takes no action_masks: measure it "
                         f"with from_sb3(model, masked=False)")

    def policy(seen: np.ndarray, mask: np.ndarray) -> Any:
        extra = {"action_masks": mask} if masked else {}
        return model.predict(seen, deterministic=True, **extra)[0]
    # what the model was trained on goes with it, so measure_policy shows it the same
    policy.observation_space = getattr(model, "observation_space", None)
    return policy


def from_torch(module: Any) -> Policy:
    """The legal cell of ``module``'s highest score (ties to the first cell, row-major), the
    observation given as a float32 tensor of batch one on the module's device. Gradients are
    off; the module's mode is its own (call ``module.eval()`` first if it has dropout)."""
    import torch   # only where a torch module is measured

    from tictactoe_rl.neural.network import greedy_indices
    device = next(module.parameters(), torch.empty(0)).device

    def policy(seen: np.ndarray, mask: np.ndarray) -> int:
        with torch.no_grad():
            scores = module(torch.as_tensor(seen, dtype=torch.float32, device=device)[None])
        scores = scores.reshape(-1).cpu()
        if scores.numel() != mask.size:
            raise ValueError(f"the torch module gives {scores.numel()} scores, the board has "
                             f"{mask.size} cells")
        return int(greedy_indices(scores, torch.as_tensor(mask)))
    return policy


def as_policy(policy: Any) -> Policy:
    """``policy`` as a function ``(observation, mask) -> action``: an SB3 model (``Predictor``)
    through ``from_sb3``, a torch module through ``from_torch``, a function as it is;
    ``TypeError`` in one line for anything else."""
    if isinstance(policy, Predictor):
        return from_sb3(policy)
    torch = sys.modules.get("torch")   # a torch module exists only where torch is loaded
    if torch is not None and isinstance(policy, torch.nn.Module):
        return from_torch(policy)
    if callable(policy):
        return policy
    raise TypeError(f"a policy is an SB3 model, a torch module or a function (observation, mask)"
                    f" -> action, not {type(policy).__name__}")


class PolicyAgent(Agent):
    """A deterministic ``policy`` playing ``player`` as the exact tools read an agent: the move
    it answers to each position, asked once and kept. An answer off the board is an illegal
    move (the walks score it a loss); one that is no whole number is a ``ValueError``."""

    def __init__(self, policy: Policy, player: int, env: TicTacToe, observe: Observe) -> None:
        super().__init__(player, env)
        self.policy, self.observe = policy, observe
        self._moves: dict[State, Action] = {}

    def move(self, state: State) -> Action:
        position = position_of(state)
        found = self._moves.get(position)
        if found is None:
            answer = self.policy(self.observe(position, self.player),
                                 action_mask(position).astype(bool))
            index = cell_index(answer)
            if index is None:
                raise ValueError(f"the policy answered {shown_action(answer)}, not a cell index")
            found = self._moves[position] = divmod(index, shape_of(position).cols)
        return found

    def action_probs(self, state: State) -> dict[Action, float]:
        return {self.move(state): 1.0}

    def get_action(self, state: State, epoch: int | None = None) -> Action:
        return self.move(state)


Shares = tuple[float, float, float]


@dataclass(frozen=True)
class PolicyReport:
    """A policy's exact figures on ``board`` as ``side`` (1 X, -1 O): ``results`` maps each
    opponent (``random``, ``advanced``, ``perfect``) to the policy's (wins, losses, draws);
    ``illegal`` to the share of games it loses by an illegal move; ``worst`` is the worst result
    any opponent brings about (1, 0, -1) and ``line`` a shortest line of ``(row, col)`` moves of
    both sides that does it when that is a loss (``None`` otherwise)."""

    board: BoardShape
    side: int
    results: dict[str, Shares]
    illegal: dict[str, float]
    worst: int
    line: list[Action] | None

    def result_lines(self, suffix: str = "") -> list[str]:
        """One line per opponent, ``suffix`` ending its label."""
        return [f"exact {f'vs {name}{suffix}':<22}: wins {wins:.4%}  losses {losses:.4%}  "
                f"draws {draws:.4%}  illegal moves {self.illegal[name]:.4%}"
                for name, (wins, losses, draws) in self.results.items()]

    @property
    def line_actions(self) -> list[int] | None:
        """``line`` as the environments' actions (cell indices), both sides' moves in turn: the
        moves to replay in ``TicTacToe-v0`` or ``tictactoe_v1``; ``None`` when unbeatable."""
        if self.line is None:
            return None
        return [action_of(cell, self.board) for cell in self.line]

    def worst_line(self) -> str:
        """Whether any line of play beats the policy, and one that does."""
        return ("unbeatable: no sequence of opponent moves beats it" if self.worst >= 0 else
                f"can be beaten, e.g. by the line "
                f"{' '.join(f'{row},{col}' for row, col in self.line)}")

    def __str__(self) -> str:
        return "\n".join([f"{symbol(self.side)} on {self.board.name}:", *self.result_lines(),
                          self.worst_line()])


def shown_as(policy: Any, shape: BoardShape, observation: str | None) -> Observe:
    """How positions are shown to ``policy``: the encoding ``observation`` names
    (``tictactoe_rl/envs/observations.py``) or, when it is ``None``, the one of the policy's own
    ``observation_space`` (an SB3 model's), else the flat board. A one-line ``ValueError`` when
    the two disagree, or the space is none of the board's."""
    space = getattr(policy, "observation_space", None)
    if space is not None:
        trained = observations.kind_of(space, shape)
        if observation is not None and observations.check_kind(observation) != trained:
            raise ValueError(f"observation={observation!r}, but the model was trained on "
                             f"observation={trained!r}")
        observation = trained
    kind = observations.check_kind("board" if observation is None else observation)

    def observe(position: State, side: int) -> Any:
        return observations.encode(kind, position, side, action_mask(position))
    return observe


def policy_agent(policy: Any, side: str = "X", board: str = "3x3", k: int | str | None = None,
                 observation: str | None = None, observe: Observe | None = None) -> PolicyAgent:
    """``policy`` (see ``as_policy``) as the agent playing ``side`` on ``board`` that the exact
    tools walk; the arguments are ``measure_policy``'s. One-line ``ValueError`` for a bad side
    or board, a board whose game does not fit in memory, or an observation that does not fit."""
    shape, player = board_shape(board, k), side_number(side)
    refused = refusal(shape)
    if refused is not None:
        raise ValueError(refused)
    if observe is not None and observation is not None:
        raise ValueError("give observation= or observe=, not both")
    shown = observe if observe is not None else shown_as(policy, shape, observation)
    return PolicyAgent(as_policy(policy), player, TicTacToe(board=shape), shown)


def measure_policy(policy: Any, side: str = "X", board: str = "3x3", k: int | str | None = None,
                   observation: str | None = None,
                   observe: Observe | None = None) -> PolicyReport:
    """The exact figures of ``policy`` (see ``as_policy``) playing ``side`` (``"X"``, ``"O"``) on
    ``board`` with ``k`` in a row, shown the ``observation`` it was trained on (``"board"``,
    ``"planes"``, ``"dict"``), all as ``gymnasium.make`` takes them. Without ``observation``, an
    SB3 model is shown what its ``observation_space`` says and anything else the flat board;
    ``observe(position, side)`` shows any other encoding. A one-line ``ValueError`` for a board
    whose game does not fit in memory, a bad side or board, or a model of another board."""
    agent = policy_agent(policy, side, board, k, observation, observe)
    player, start = agent.player, start_position(agent.env.shape)
    results, illegal = {}, {}
    for name, opponent in opponents_of(agent).items():
        with walk_progress(f"exact vs {name}") as progress:
            outcome = exact_outcome(*seats(agent, opponent), start, progress)
        results[name] = side_result(outcome, player)
        illegal[name] = illegal_share(outcome, player)
    with walk_progress("worst case") as progress:
        worst, line = worst_case(agent, start, progress)
    return PolicyReport(agent.env.shape, player, results, illegal, worst, line)
