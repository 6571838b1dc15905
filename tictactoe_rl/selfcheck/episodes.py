"""The hand-made episodes that piece 3 (and 4) hands the student's ``main``, and how to read them.

Boards are nine cells, row by row: X, O or "." (empty). No position has a symmetry of its own and
none is a turned or mirrored copy of another (nor of the filler's), so a trainer that also learns
from the board's symmetries gives the same values for these pairs. Episode 1 has one step (it
shows the step size), episode 2 two (it shows gamma); episode 5 repeats the pairs of episode 4
with a reward on a middle step, which no game has but which tells a forwards walk from one that
uses each step's own reward, and a constant alpha from a running average (1/N). Episodes 6 to 8
play episodes 1 to 3 again, so that pairs whose values are no longer 0 are updated a second time:
only then does an update that leaves out ``- Q``, one that moves Q only the first time a pair is
ever met, or one whose target is the next pair's value (a TD target) differ from the right one.
Episode 8 has a reward one step before the last, which tells a sign that flips from step to step
from a sign that is the same on every step. The learner moves last in some episodes and the
opponent in others, with a result in both, which tells a sign taken from who moved last from the
learner's own. The table starts empty, so nothing here depends on a
value the student never set.
"""

from __future__ import annotations

from functools import lru_cache

from tictactoe_rl.selfcheck.draw import like
from State import O, X, State

# How the Monte Carlo update can be computed, right and wrong (tictactoe_rl.selfcheck.reference gives the
# values each leaves after these episodes).
CORRECT = "correct"
FORWARDS = "forwards"        # G summed from the first step on, not from the end
REWARD_ONLY = "reward"       # each step moves towards its own reward, not towards G
CARRY = "carry"              # G not set back to 0 at the start of each episode
DROP_LAST = "drop last"      # the last step (the one with the result) never updated
NO_NEGATION = "no negation"  # the rewards' sign reversed: O learns X's rewards, X their negation
LATE_G = "late G"            # Q moved towards G before G took the step's own reward
NO_MINUS_Q = "no minus Q"    # Q + alpha * G: the "- Q" left out
EXTRA_DISCOUNT = "extra discount"  # G discounted once too often: gamma ** (k + 1)
FIRST_VISIT_EVER = "first visit ever"  # a pair updated only the first time any episode meets it
FLIP_G = "flip G"            # G negated at every step back (G = reward - gamma * G), either sign
FLIP_G_REVERSED = "flip G, reversed"
FLIP_REWARD = "flip reward"  # each step's reward with the opposite sign of the next one's
FLIP_REWARD_REVERSED = "flip reward, reversed"
Q_TARGET = "Q-learning target"  # reward + gamma * max over the next state, not the return
Q_TARGET_FORWARDS = "Q-learning target, forwards"
TD_TARGET = "TD target"      # reward + gamma * the next pair's value (SARSA's), not the return
TD_TARGET_FORWARDS = "TD target, forwards"
FROM_START = "discount from the start"  # the reward of step t discounted by gamma ** t, G_t too
LAST_MOVER = "last mover's sign"  # every reward of an episode signed by who moved last in it
NEXT_MOVER = "next mover's sign"  # ... by the side to move in its final position
MODELS = (CORRECT, FORWARDS, REWARD_ONLY, CARRY, DROP_LAST, NO_NEGATION, LATE_G, NO_MINUS_Q,
          EXTRA_DISCOUNT, FIRST_VISIT_EVER, FLIP_G, FLIP_G_REVERSED, FLIP_REWARD,
          FLIP_REWARD_REVERSED, Q_TARGET, Q_TARGET_FORWARDS, TD_TARGET, TD_TARGET_FORWARDS,
          FROM_START, LAST_MOVER, NEXT_MOVER)
# The step size of a running average: 1/N at the N-th visit of a pair (with a visit count).
RUNNING_AVERAGE = "1/N"

HAND_MADE = {
    X: [
        [("XOX..OX.O", (1, 1), 1), "XOX.XOX.O"],
        [("....X.O..", (2, 1), 0), ("...OX.OX.", (0, 2), -1), "O.XOX.OX."],
        [(".O....X..", (2, 2), 0), (".O..O.X.X", (1, 2), 0), ("OO..OXX.X", (0, 2), 1), "OOX.OXX.X"],
        [("O..X.....", (1, 1), 0), ("O..XXO...", (0, 1), 0), ("OXOXXO...", (2, 2), 0),
         ("OXOXXO.OX", (2, 0), 0), "OXOXXOXOX"],
        [("O..X.....", (1, 1), 0), ("O..XXO...", (0, 1), 1), ("OXOXXO...", (2, 2), 0),
         ("OXOXXO.OX", (2, 0), 0), "OXOXXOXOX"],
        [("XOX..OX.O", (1, 1), 1), "XOX.XOX.O"],
        [("....X.O..", (2, 1), 0), ("...OX.OX.", (0, 2), -1), "O.XOX.OX."],
        [(".O....X..", (2, 2), 0), (".O..O.X.X", (1, 2), 1), ("OO..OXX.X", (0, 2), 1),
         "OOX.OXX.X"],
    ],
    O: [
        [(".OX.OXXXO", (0, 0), -1), "OOX.OXXXO"],
        [("....X.OX.", (1, 0), 0), ("..XOX.OX.", (0, 0), -1), "O.XOX.OX."],
        [("..X..OX..", (0, 1), 0), ("XOX..OX..", (2, 2), 1), "XOX.XOX.O"],
        [("O..XX....", (1, 2), 0), ("OX.XXO...", (0, 2), 0), ("OXOXXO..X", (2, 1), 0), "OXOXXOXOX"],
        [("O..XX....", (1, 2), 0), ("OX.XXO...", (0, 2), -1), ("OXOXXO..X", (2, 1), 0),
         "OXOXXOXOX"],
        [(".OX.OXXXO", (0, 0), -1), "OOX.OXXXO"],
        [("....X.OX.", (1, 0), 0), ("..XOX.OX.", (0, 0), -1), "O.XOX.OX."],
        [("..X..OX..", (0, 1), -1), ("XOX..OX..", (2, 2), 1), "XOX.XOX.O"],
    ],
}
# After the hand-made episodes, main gets this one-move game for every further episode.
FILLER = {X: [("XX.OO....", (0, 2), 1), "XXXOO...."],
          O: [("XX.OO.X..", (1, 2), -1), "XX.OOOX.."]}


def board(cells: str, side: int | None = None) -> State:
    """A position from nine characters X, O and "."; the side to move follows from the counts
    unless ``side`` is given."""
    values = [{"X": X, "O": O, ".": 0}[c] for c in cells]
    if side is None:
        side = X if values.count(X) == values.count(O) else O
    return State(values, side)


def episode_of(raw: list, side: int) -> list[tuple]:
    """An episode as ``Generate_episode`` returns it, from one of the lists above."""
    *steps, final = raw
    return [(board(cells, side), action, reward) for cells, action, reward in steps] + \
        [(board(final),)]


def hand_made(side: int) -> list[list[tuple]]:
    """The hand-made episodes of the learner ``side``, in order: drawn for this run in the
    shape of ``HAND_MADE`` (``tictactoe_rl.selfcheck.draw.like``: no list of answers can be typed in)."""
    return [episode_of(raw, side) for raw in drawn(side)]


@lru_cache(maxsize=None)
def drawn(side: int) -> tuple:
    # None of the template's own positions either: answers copied from this file never fit.
    avoid = [step[0] for raw in (*HAND_MADE[side], FILLER[side]) for step in raw[:-1]]
    return tuple(like(HAND_MADE[side], avoid, f"episodes:{side}"))
