"""The cases a piece judges, drawn afresh for every run of the check.

The students' version holds the check's code, so cases written into it could be answered by
heart: values typed in for the hand-made pairs over a wrong update, or episodes replayed from a
list. Instead each process of the check draws a secret seed when it starts (``RUN``, from the
system's randomness: nothing the student's code could predict), and the cases come from it:
the hand-made episodes of pieces 3 and 4 are new positions and moves in the shape of the
templates in ``tictactoe_rl.selfcheck.episodes`` (``like``), piece 2's games are played by generators seeded
with it, and piece 5's cases are turned or mirrored and their values scaled by it. The judging
process and the student's process (forked from it) share the seed, so both see the same cases;
a new run sees new ones.
"""

from __future__ import annotations

import os
import random

RUN = os.urandom(16).hex()
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
# The eight symmetries of the board, as where each cell goes (cell = 3 * row + column).
SYMMETRIES = tuple(
    tuple(3 * r + c for r, c in (transform(divmod(cell, 3)) for cell in range(9)))
    for transform in (
        lambda rc: rc, lambda rc: (rc[1], 2 - rc[0]), lambda rc: (2 - rc[0], 2 - rc[1]),
        lambda rc: (2 - rc[1], rc[0]), lambda rc: (rc[0], 2 - rc[1]),
        lambda rc: (2 - rc[0], rc[1]), lambda rc: (rc[1], rc[0]),
        lambda rc: (2 - rc[1], 2 - rc[0])))
TRIES = 10_000


def rng(purpose: str) -> random.Random:
    """A generator of this run's for ``purpose``: the same in every process that shares ``RUN``."""
    return random.Random(f"{RUN}:{purpose}")


def turned(cells: str, symmetry: tuple[int, ...]) -> str:
    """The position ``cells`` (nine characters) under ``symmetry``."""
    out = ["."] * 9
    for cell, target in enumerate(symmetry):
        out[target] = cells[cell]
    return "".join(out)


def turned_action(action: tuple[int, int], symmetry: tuple[int, ...]) -> tuple[int, int]:
    return divmod(symmetry[3 * action[0] + action[1]], 3)


def canonical(cells: str) -> str:
    return min(turned(cells, symmetry) for symmetry in SYMMETRIES)


def symmetric(cells: str) -> bool:
    """Whether the position is its own image under a symmetry other than the identity."""
    return any(turned(cells, symmetry) == cells for symmetry in SYMMETRIES[1:])


def won(cells: str) -> bool:
    return any(cells[a] != "." and cells[a] == cells[b] == cells[c] for a, b, c in LINES)


def placed(cells: str, action: tuple[int, int], mark: str) -> str:
    cell = 3 * action[0] + action[1]
    return cells[:cell] + mark + cells[cell + 1:]


def like(template: list[list], avoid: list[str], purpose: str) -> list[list]:
    """Episodes in the raw form of ``tictactoe_rl.selfcheck.episodes`` (steps ``(cells, action, reward)``, then
    the final cells) with the shape of ``template``: the same number of steps and the same
    rewards, a pair wherever the template repeats one, a new pair wherever it has a new one; each
    step's position follows from the one before (the learner's move and a reply). No position is
    won, none has a symmetry of its own, and none is a turned or mirrored copy of another one,
    nor of a position of ``avoid``."""
    chance = rng(purpose)
    for _ in range(TRIES):
        drawn = _draw(template, chance)
        if drawn is not None and _apart(drawn, avoid, len(_positions(template))):
            return drawn
    raise RuntimeError("no episodes of the template's shape could be drawn")  # never seen


def _draw(template: list[list], chance: random.Random) -> list[list] | None:
    pairs: dict[tuple, tuple] = {}
    episodes = []
    for raw in template:
        *steps, final = raw
        episode, cells, action, mark = [], None, None, "X"
        for old_cells, old_action, reward in steps:
            mark = "X" if old_cells.count("X") == old_cells.count("O") else "O"
            if (old_cells, old_action) in pairs:
                cells, action = pairs[(old_cells, old_action)]
            else:
                if cells is None or placed(cells, action, mark).count(".") < 2:
                    cells = _position(old_cells.count("X"), old_cells.count("O"), chance)
                else:
                    after = placed(cells, action, mark)
                    reply = chance.choice([i for i, c in enumerate(after) if c == "."])
                    cells = placed(after, divmod(reply, 3), "O" if mark == "X" else "X")
                if cells is None or won(cells) or "." not in cells:
                    return None
                empty = [i for i, c in enumerate(cells) if c == "."]
                action = divmod(chance.choice(empty), 3)
                pairs[(old_cells, old_action)] = (cells, action)
            episode.append((cells, action, reward))
        last = placed(cells, action, mark)
        if final.count(".") < old_cells.count(".") - 1 and "." in last:
            reply = chance.choice([i for i, c in enumerate(last) if c == "."])
            last = placed(last, divmod(reply, 3), "O" if mark == "X" else "X")
        episodes.append([*episode, last])
    return episodes


def _position(xs: int, os_: int, chance: random.Random) -> str | None:
    """A random position with ``xs`` X and ``os_`` O, no line of three."""
    cells = ["X"] * xs + ["O"] * os_ + ["."] * (9 - xs - os_)
    chance.shuffle(cells)
    text = "".join(cells)
    return None if won(text) else text


def _positions(episodes: list[list]) -> set[str]:
    return {step[0] for episode in episodes for step in episode[:-1]}


def _apart(episodes: list[list], avoid: list[str], count: int) -> bool:
    """Whether the ``count`` positions of the template became as many of the board's classes
    (none its own image), none of them one of ``avoid``'s."""
    positions = _positions(episodes)
    classes = {canonical(cells) for cells in positions}
    return (len(classes) == len(positions) == count and not any(map(symmetric, positions))
            and not classes & {canonical(cells) for cells in avoid})
