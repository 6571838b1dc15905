"""What piece 3's (and 4's) messages say about a table that is not the Monte Carlo update's:
for each mistake the hand-made episodes tell apart (``tictactoe_rl.selfcheck.episodes.MODELS``), what the
code did, what it should do, and the line of the chapter's ``main`` that says so.
"""

from __future__ import annotations

from tictactoe_rl.selfcheck.common import close, fmt, plural
from tictactoe_rl.selfcheck.episodes import (
    CARRY, DROP_LAST, EXTRA_DISCOUNT, FIRST_VISIT_EVER, FLIP_G, FLIP_G_REVERSED,
    FLIP_REWARD, FLIP_REWARD_REVERSED, FORWARDS, FROM_START, LAST_MOVER, LATE_G, NEXT_MOVER,
    NO_MINUS_Q, NO_NEGATION, Q_TARGET, Q_TARGET_FORWARDS, RUNNING_AVERAGE, REWARD_ONLY, TD_TARGET,
    TD_TARGET_FORWARDS, hand_made)
from State import O, symbol

# The chapter's main, line by line as printed: what a message quotes.
RETURN_LINE = "G = gamma* G + reward"
UPDATE_LINE = "player.Q[(state, action)] = Q_value + alpha * (G - Q_value)"
WALK_LINE = "state, action, reward = episode.pop() # LIFO - Stack"
START_LINE = "G = 0 (the first line of each epoch's loop, after Generate_episode)"
ALPHA_LINE = "alpha = 0.01"
SAVE_LINE = "player.save_Q(PATH)"
READ_LINE = "Q_value = player.Q.get((state, action),0) # if no key return 0"


def chapter(line: str) -> str:
    return f"the chapter's main says so: {line}"


SIGN_FLIPS = ("the sign of G (or of the reward) flips from one step to the next: a step's "
              "return keeps the learner's sign all the way back -- each reward is the "
              "learner's own, the same sign on every step, then G = gamma * G + reward; "
              + chapter(RETURN_LINE))
MOVER_SIGN = ("the rewards' sign was taken from who moved last in the episode (or from the side "
              "to move at its end), so the episodes that the other side ended count the other "
              "way: the sign is the learner's own in every episode, whoever moved last -- X's "
              "rewards as they are, O's negated -- then G = gamma * G + reward; "
              + chapter(RETURN_LINE))
BOOTSTRAPS = ("a Monte Carlo update waits for the end of the game: each step's target is its "
              "return G, the rewards to the end discounted, not the next position's value; "
              + chapter(RETURN_LINE) + ", then " + UPDATE_LINE)
MISTAKE_HINTS = {
    FORWARDS: "it walked the episode forwards, so a step's G holds the rewards before it; "
              "walk the episode backwards, so that a step's return is its reward plus gamma "
              "times the return of the step after it (episode 5 has a reward on a middle "
              "step): "
              + chapter(WALK_LINE),
    REWARD_ONLY: "each step moved towards its own reward, not towards its return G: walking "
                 "backwards, G = gamma * G + reward, then Q + alpha * (G - Q), so the early "
                 "moves of a won game learn too: " + chapter(RETURN_LINE),
    CARRY: "it carries the return of the last episode into the next one; G must start again "
           "at 0 in every episode: " + chapter(START_LINE),
    DROP_LAST: "the last step of each episode, the one with the result, is never updated: "
               "after episode.pop() takes off (final_state,), walk every step that is left: "
               + chapter("for t in range(len(episode)): " + WALK_LINE),
    LATE_G: "each step moved towards the return of the steps after it, without its own "
            "reward: Q was updated with G before G took the step's reward. First "
            "G = gamma * G + reward, then Q + alpha * (G - Q): " + chapter(RETURN_LINE)
            + ", then " + UPDATE_LINE,
    NO_MINUS_Q: "it adds alpha * G to Q (Q + alpha * G: the - Q is left out), so a pair met "
                "twice grows past its return; move Q a fraction alpha of the way to G, "
                "Q + alpha * (G - Q): " + chapter(UPDATE_LINE),
    EXTRA_DISCOUNT: "the returns are discounted once too often (gamma ** (k + 1) for the "
                    "reward k steps on, e.g. G = gamma * (G + reward)): the last step's return "
                    "is its own reward, undiscounted, and each step back multiplies by gamma "
                    "once: " + chapter(RETURN_LINE),
    FIRST_VISIT_EVER: "a pair is updated only the first time any episode meets it (the visited "
                      "pairs are remembered over all episodes): first visit means the first "
                      "time within one episode -- start the record afresh in every episode "
                      "(a tic-tac-toe game never meets a pair twice, so updating every step "
                      "is the same): " + chapter(UPDATE_LINE) + ", for every step of every "
                      "episode",
    FROM_START: "the returns are discounted from the start of the episode (the reward of step t "
                "by gamma ** t, counted from the first step), so later steps learn less than "
                "their result: a step's return starts at that step, its own reward "
                "undiscounted, then gamma times the return of the step after it: "
                + chapter(RETURN_LINE),
    LAST_MOVER: MOVER_SIGN, NEXT_MOVER: MOVER_SIGN,
    FLIP_G: SIGN_FLIPS, FLIP_G_REVERSED: SIGN_FLIPS, FLIP_REWARD: SIGN_FLIPS,
    FLIP_REWARD_REVERSED: SIGN_FLIPS,
    Q_TARGET: "its target is Q-learning's, reward + gamma * max over the next state's "
              "values, not the return; " + BOOTSTRAPS,
    Q_TARGET_FORWARDS: "its target is Q-learning's, reward + gamma * max over the next state's "
                       "values, not the return; " + BOOTSTRAPS,
    TD_TARGET: "its target is a TD one, reward + gamma * the next pair's value (SARSA's), not "
               "the return; " + BOOTSTRAPS,
    TD_TARGET_FORWARDS: "its target is a TD one, reward + gamma * the next pair's value "
                        "(SARSA's), not the return; " + BOOTSTRAPS,
}


def mistake_hint(model: str, side: int) -> str:
    """What the table shows the code did under ``model``, what it should do, and the chapter's
    line."""
    if model != NO_NEGATION:
        return MISTAKE_HINTS[model]
    if side == O:
        return ("its values for O have X's sign: for O, negate the rewards (they are X's: a "
                "win for O is -1) before they go into G, e.g. G = gamma * G + player.player * "
                "reward (the chapter's line, for X: " + RETURN_LINE + ")")
    return ("its values for X have the wrong sign (a win of X's went down, a loss up): the "
            "rewards are already X's, +1 when X wins, so they go into G as they are: "
            + chapter(RETURN_LINE))


def optimistic_hint(side: int, rate: float, gamma: float, start: float) -> str:
    """A table that is the update's, but from a table whose missing pairs read ``start``."""
    return (f"{where(side, rate, gamma)}: a pair not yet in the table was read as {start:g}, not "
            f"0 (an optimistic start, e.g. player.Q.get((state, action), {start:g})): the "
            "chapter's Q starts empty and a missing pair is 0, so every value is learnt from "
            "the games alone: " + chapter(READ_LINE))


def rate_name(rate: object) -> str:
    return "a running average (1/N) for alpha" if rate == RUNNING_AVERAGE else f"alpha {rate:g}"


def where(side: int, rate: object, gamma: float | None) -> str:
    used = rate_name(rate) + ("" if gamma is None else f", gamma {gamma:g}")
    return f"after the hand-made episodes ({symbol(side)} learns; your main used {used})"


def wrong_alpha(side: int, rate: float, gamma: float, alpha: float, source: str) -> str:
    """A constant step size that is not the ``alpha`` main was given (``source`` says where
    that alpha was set)."""
    return (f"{where(side, rate, gamma)}: your update moves by {rate:g} of the way; alpha is "
            f"{alpha:g} ({source}): move Q by alpha itself, the name and no number typed "
            "into the update -- " + chapter(UPDATE_LINE))


def generic_hint(side: int, got: dict, gamma: float, want: dict) -> str:
    """A step that was never updated, or else the first value that is off, against ``want``:
    the update's values with alpha 0.01 and ``gamma``."""
    lengths = [len(episode) - 1 for episode in hand_made(side)]
    for (number, index), value in got.items():
        if close(value, 0.0) and not close(want[(number, index)], 0.0):
            return (f"step {index + 1} of hand-made episode {number + 1} "
                    f"({plural(lengths[number], 'step')}) was never updated, its value is "
                    "still 0: walk every step of each episode, from the last to the first, "
                    "and move each towards its return: " + chapter(WALK_LINE))
    for (number, index), value in got.items():
        if not close(value, want[(number, index)], 1e-7):
            return (f"after main, Q of step {index + 1} of hand-made episode {number + 1} "
                    f"({plural(lengths[number], 'step')}, {symbol(side)} learns, from an "
                    f"empty table) should be {want[(number, index)]:.6g} with alpha 0.01 and "
                    f"gamma {gamma:g}, got {fmt(value)}: walking backwards, G = gamma * G + "
                    "reward and Q <- Q + alpha * (G - Q): " + chapter(RETURN_LINE) + ", then "
                    + UPDATE_LINE)
    return "the table does not match the Monte Carlo update: " + chapter(UPDATE_LINE)

