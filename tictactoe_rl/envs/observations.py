"""The observations the Gymnasium environment can give, chosen by ``observation=`` when it is made.

- ``"board"`` (the default): the flat ``int8`` board of ``board.observation``, ``N`` cells seen by
  the learner (``+1`` its mark, ``-1`` the opponent's, ``0`` empty): ``Box(-1, 1, (N,), int8)``.
- ``"planes"``: the board as image planes for convolutional networks, ``float32`` of shape
  ``(3, rows, cols)`` (channels first, as torch and Stable-Baselines3 take them): plane 0 is
  ``1.0`` on the learner's marks, plane 1 on the opponent's, plane 2 is ``1.0`` everywhere when
  X is to move (``0.0`` when O is), so a network that plays both sides knows which it plays:
  ``Box(0, 1, (3, rows, cols), float32)``.
- ``"dict"``: PettingZoo's convention, ``{"observation": <the flat board>, "action_mask": <int8
  flags, 1 = legal>}`` (all ``0`` once the episode is over), for policies that read the mask
  from the observation (Stable-Baselines3's ``MultiInputPolicy``, RLlib's action-masking
  models).

Only Gymnasium's spaces here (imported by ``space`` alone, so that ``encode`` serves
``measure_policy`` where Gymnasium is not installed): the encodings are
``tictactoe_rl/envs/board.py``'s, the mask the environment's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tictactoe_rl.envs import board
from tictactoe_rl.envs.board import PLANES
from tictactoe_rl.geometry import BoardShape
from State import State

if TYPE_CHECKING:
    from gymnasium import spaces

OBSERVATIONS = ("board", "planes", "dict")


def check_kind(kind: object) -> str:
    """``kind`` if it is one of ``OBSERVATIONS``, else a one-line ``ValueError`` naming them."""
    if isinstance(kind, str) and kind in OBSERVATIONS:
        return kind
    raise ValueError(f"observation must be one of {', '.join(OBSERVATIONS)}, "
                     f"got {board.shown_action(kind)}")


def space(kind: str, shape: BoardShape) -> spaces.Space:
    """The observation space of ``kind`` on ``shape``."""
    from gymnasium import spaces   # only here: measuring a function needs no Gymnasium

    flat = spaces.Box(-1, 1, (shape.size,), np.int8)
    if kind == "planes":
        return spaces.Box(0.0, 1.0, (PLANES, shape.rows, shape.cols), np.float32)
    if kind == "dict":
        return spaces.Dict({"observation": flat,
                            "action_mask": spaces.Box(0, 1, (shape.size,), np.int8)})
    return flat


def encode(kind: str, position: State, side: int, mask: np.ndarray) -> np.ndarray | dict:
    """The observation of ``kind`` for ``side`` in ``position``; ``mask`` is the ``int8`` action
    mask the environment reports with it (used by ``"dict"``)."""
    if kind == "planes":
        return board.planes(position, side)
    if kind == "dict":
        return {"observation": board.observation(position, side), "action_mask": mask.copy()}
    return board.observation(position, side)


def kind_of(observed: spaces.Space, shape: BoardShape) -> str:
    """Which of ``OBSERVATIONS`` on ``shape`` the space ``observed`` is (a trained model's
    ``observation_space``); a one-line ``ValueError`` when it is none of them."""
    for kind in OBSERVATIONS:
        if space(kind, shape) == observed:
            return kind
    raise ValueError(f"the model observes {board.shown_action(observed, 80)}, none of the "
                     f"observations of {shape.name} ({', '.join(OBSERVATIONS)}): measure it on "
                     f"the board it was trained on")
