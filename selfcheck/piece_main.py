"""Pieces 3 and 4: ``MC_Trainer.main()``, the Monte Carlo update loop, judged by what it does.

The student's ``main`` runs as written -- its own locals (``epochs = 200000``, ``alpha``), its
prints, its walk through the episode -- with two stand-ins: ``Generate_episode`` hands it
hand-made episodes first (then a short game over and over, until main has played all its
episodes) and ``test`` only notes that it was called. After the hand-made episodes the table is
read and compared with what the Monte Carlo update gives, and with what each common mistake
gives, so a wrong table gets the hint of its mistake. Then: was the table saved, was ``test(100)``
called. ``alpha`` and ``gamma`` are read from what main did, so any values of them pass; a main
that reads the module's ``gamma`` must use that value.
"""

from __future__ import annotations

import numbers
import os
import tempfile

from selfcheck import reference, training
from selfcheck.common import Failure, Stop, call, close, fmt
from State import O, X, State, symbol

# Boards are nine cells, row by row: X, O or "." (empty). No position has a symmetry of its own
# and none is a turned or mirrored copy of another, so a trainer that also learns from the
# board's symmetries gives the same values for these pairs. Episode 1 has one step (it shows
# alpha), episode 2 two (it shows gamma); episode 5 repeats the positions of episode 4 with a
# reward on a middle step, which no game has but which tells a forwards walk from one that uses
# each step's own reward.
HAND_MADE = {
    X: [
        [("XOX..OX.O", (1, 1), 1), "XOX.XOX.O"],
        [("....X.O..", (2, 1), 0), ("...OX.OX.", (0, 2), -1), "O.XOX.OX."],
        [(".O....X..", (2, 2), 0), (".O..O.X.X", (1, 2), 0), ("OO..OXX.X", (0, 2), 1), "OOX.OXX.X"],
        [("O..X.....", (1, 1), 0), ("O..XXO...", (0, 1), 0), ("OXOXXO...", (2, 2), 0),
         ("OXOXXO.OX", (2, 0), 0), "OXOXXOXOX"],
        [("O..X.....", (1, 1), 0), ("O..XXO...", (0, 1), 1), ("OXOXXO...", (2, 2), 0),
         ("OXOXXO.OX", (2, 0), 0), "OXOXXOXOX"],
    ],
    O: [
        [(".OX.OXXXO", (0, 0), -1), "OOX.OXXXO"],
        [("....X.OX.", (1, 0), 0), ("..XOX.OX.", (0, 0), -1), "O.XOX.OX."],
        [("..X..OX..", (0, 1), 0), ("XOX..OX..", (2, 2), 1), "XOX.XOX.O"],
        [("O..XX....", (1, 2), 0), ("OX.XXO...", (0, 2), 0), ("OXOXXO..X", (2, 1), 0), "OXOXXOXOX"],
        [("O..XX....", (1, 2), 0), ("OX.XXO...", (0, 2), -1), ("OXOXXO..X", (2, 1), 0),
         "OXOXXOXOX"],
    ],
}
# Starting values: the learner's moves are its favourites (a positive value, every other move
# 0), so they stay the greedy ones, and a trainer that stops its backward walk at an exploring
# move walks every step. The first steps of episodes 2 and 3 start with no entry at all: main
# must read a missing pair as 0. (Being first, their walk ends with them anyway.)
PRESET_START, PRESET_STEP = 0.2, 0.05
UNSEEN = ((1, 0), (2, 0))            # (episode, step), 0-based
# After the hand-made episodes, main gets this one-move game for every further episode.
FILLER = {X: [("XX.OO....", (0, 2), 1), "XXXOO...."],
          O: [("XX.OO.X..", (1, 2), -1), "XX.OOOX.."]}
MAX_EPISODES = 2_000_000
ALPHAS, GAMMAS = (0.01, 0.1, 0.5, 1.0), (0.9, 0.95, 0.99, 1.0)


def board(cells: str, side: int | None = None) -> State:
    """A position from nine characters X, O and "."; the side to move follows from the counts
    unless ``side`` is given."""
    values = [{"X": X, "O": O, ".": 0}[c] for c in cells]
    if side is None:
        side = X if values.count(X) == values.count(O) else O
    return State(values, side)


def episode_of(raw: list, side: int) -> list[tuple]:
    *steps, final = raw
    return [(board(cells, side), action, reward) for cells, action, reward in steps] + \
        [(board(final),)]


def preset(episodes: list[list[tuple]]) -> dict:
    values = {}
    for number, episode in enumerate(episodes):
        for step, (state, action, _) in enumerate(episode[:-1]):
            if (number, step) not in UNSEEN:
                values.setdefault((state, action), PRESET_START + PRESET_STEP * len(values))
    return values


class Stand_Ins:
    """``Generate_episode``, ``test`` and the learner's ``save_Q`` as main meets them."""

    def __init__(self, learner, episodes: list[list[tuple]], filler: list[tuple],
                 folder: str) -> None:
        self.learner, self.episodes, self.filler = learner, episodes, filler
        self.calls: list[tuple[object, int]] = []
        self.tests: list = []
        self.saved: list[dict] = []
        self.snapshot: dict | None = None
        self.path = os.path.join(folder, "q.pth")
        self.real_save = learner.save_Q

    def generate(self, player, epoch):
        self.calls.append((player, epoch))
        done = len(self.calls) - 1
        if done == len(self.episodes):
            self.snapshot = dict(self.learner.Q)
        if done > MAX_EPISODES:
            raise Stop()
        source = self.episodes[done] if done < len(self.episodes) else self.filler
        return list(source)

    def test(self, num=None, *args, **kwargs):
        self.tests.append(num)
        return 0, 0, 0

    def save_Q(self, path=None, *args, **kwargs):
        self.saved.append(dict(self.learner.Q))
        self.real_save(self.path)


def check(student, side: int) -> str:
    """Run the student's ``main`` on the hand-made episodes for ``side``; see the module's text."""
    trainer = student.trainer(fresh=True)
    episodes = [episode_of(raw, side) for raw in HAND_MADE[side]]
    if side == O:
        training.switch_sides(trainer)
    learner = trainer.player1
    start = preset(episodes)
    learner.Q.clear()
    learner.Q.update(start)
    with tempfile.TemporaryDirectory() as folder:
        stand_ins = Stand_Ins(learner, episodes, episode_of(FILLER[side], side), folder)
        trainer.Generate_episode, trainer.test = stand_ins.generate, stand_ins.test
        learner.save_Q, trainer.PATH = stand_ins.save_Q, stand_ins.path
        try:
            call("main", trainer.main)
        except Stop:
            raise Failure(f"main asked for more than {MAX_EPISODES:,} episodes, so the check "
                          "stopped it before it could see the end of main (its save and test): "
                          "the course trains 200,000") from None
    check_calls(stand_ins, learner, len(episodes))
    observed = stand_ins.snapshot
    if observed is None or unchanged(observed, start):   # a main that updates in batches
        observed = dict(learner.Q)
    alpha, gamma = judge_values(trainer, episodes, side, start, observed)
    if not stand_ins.saved:
        raise Failure("main must save the trained table when training is done: "
                      "player.save_Q(PATH)")
    if stand_ins.saved[-1] != learner.Q:
        raise Failure("the saved table differs from player.Q at the end: save it after the last "
                      "episode")
    if not stand_ins.tests:
        raise Failure("main must end with test(100) (the chapter prints it: print(test(100))), "
                      "to show how the trained agent plays")
    return (f"as {symbol(side)}: {len(stand_ins.calls):,} episodes, alpha {alpha:g}, gamma "
            f"{gamma:g}, saved, test({stand_ins.tests[-1]})")


def unchanged(table: dict, start: dict) -> bool:
    return all(close(table.get(pair, 0.0), value) for pair, value in start.items())


def check_calls(stand_ins: Stand_Ins, learner, needed: int) -> None:
    calls = stand_ins.calls
    if not calls:
        raise Failure("main never called Generate_episode: play each episode with "
                      "Generate_episode(player, epoch)")
    if any(player is not learner for player, _ in calls):
        raise Failure("main must generate the episodes of the learner, player1: "
                      "Generate_episode(player, epoch) with player = player1")
    epochs = [epoch for _, epoch in calls]
    if not isinstance(epochs[0], numbers.Integral) or isinstance(epochs[0], bool) \
            or epochs[0] != 0:
        raise Failure(f"the first episode should be epoch 0 (epsilon starts at 1.0 there), got "
                      f"{epochs[0]!r}: for epoch in range(start, epochs) with start = 0")
    for earlier, later in zip(epochs, epochs[1:]):
        if later != earlier + 1:
            raise Failure(f"Generate_episode was asked for epoch {later!r} right after epoch "
                          f"{earlier!r}: one episode for each epoch, in order (for epoch in "
                          "range(start, epochs))")
    if len(calls) < needed:
        raise Failure(f"main played only {len(calls)} episodes; the course trains 200,000")


def judge_values(trainer, episodes, side, start, observed) -> tuple[float, float]:
    """The ``(alpha, gamma)`` with which main's table is the Monte Carlo update's, or a
    ``Failure`` that names the mistake the table shows."""
    pairs = [(state, action) for episode in episodes for state, action, _ in episode[:-1]]
    got = {pair: observed.get(pair, 0.0) for pair in pairs}
    if not all(isinstance(value, numbers.Real) for value in got.values()):
        raise Failure("player.Q must hold numbers: a value of the table is "
                      f"{next(v for v in got.values() if not isinstance(v, numbers.Real))!r}")
    got = {pair: float(value) for pair, value in got.items()}
    if all(close(got[pair], start.get(pair, 0.0)) for pair in pairs):
        raise Failure("main did not change player.Q: update the agent's own table, "
                      "player.Q[(state, action)] = ...")
    module_gamma = trainer.__dict__.get("gamma")
    local_names = trainer.main.__code__.co_varnames
    fitted = fit(episodes, side, start, got, module_gamma)
    if fitted is None:
        raise Failure(generic_hint(episodes, side, start, got, module_gamma))
    model, alpha, gamma = fitted
    if model != reference.CORRECT:
        shown = None if model == reference.REWARD_ONLY else gamma   # no gamma in that table
        raise Failure(f"{where(episodes, side, alpha, shown)}: {MISTAKE_HINTS[model]}")
    if close(alpha, 1.0):
        raise Failure(f"{where(episodes, side, alpha, gamma)}: Q is set to G itself; move it only "
                      "a fraction alpha of the way: Q + alpha * (G - Q), with alpha = 0.01")
    if not 0 < alpha < 1:
        raise Failure(f"{where(episodes, side, alpha, gamma)}: the table moved by a step of "
                      f"{alpha:g}; alpha must be between 0 and 1")
    if "gamma" not in local_names and module_gamma is not None and not close(gamma, module_gamma):
        hint = ("G is not discounted: G = gamma * G + reward" if close(gamma, 1.0) else
                f"G is discounted by {gamma:g}, but gamma is {module_gamma:g}")
        raise Failure(f"{where(episodes, side, alpha, gamma)}: {hint}")
    if not 0 < gamma <= 1:
        raise Failure(f"the returns are discounted by {gamma:g}; gamma must be in (0, 1]")
    return alpha, gamma


def fit(episodes, side, start, got, module_gamma) -> tuple[str, float, float] | None:
    """The model (the update or a mistake) and the ``(alpha, gamma)`` that give ``got``."""
    first = episodes[0][0]
    first_pair = (first[0], first[1])
    for model in reference.MODELS:
        if model == reference.NO_NEGATION and side == X:
            continue
        alphas = {*ALPHAS, *observed_alpha(model, first, side, start.get(first_pair, 0.0),
                                           got[first_pair])}
        gammas = {*GAMMAS, *([module_gamma] if isinstance(module_gamma, float) else []),
                  *observed_gamma(episodes[1], side, start, got, alphas)}
        for alpha in sorted(alphas):
            for gamma in sorted(gammas):
                want = reference.mc_values(episodes, side, start, gamma, alpha, model)
                if all(close(got[pair], want.get(pair, 0.0), 1e-7) for pair in got):
                    return model, alpha, gamma
    return None


def observed_alpha(model: str, step: tuple, side: int, before: float, after: float) -> list:
    """The alpha that a one-step episode shows, if the model updates that step."""
    if model == reference.DROP_LAST:
        return []
    target = step[2] * (1 if model == reference.NO_NEGATION else side)
    return [(after - before) / (target - before)] if target != before else []


def observed_gamma(episode: list, side: int, start: dict, got: dict, alphas) -> list:
    """The gammas that the first step of a two-step episode shows for each alpha."""
    (state, action, reward), (_, _, last_reward) = episode[0], episode[1]
    before = start.get((state, action), 0.0)
    found = []
    for alpha in alphas:
        if alpha and last_reward:
            target = before + (got[(state, action)] - before) / alpha
            found.append((side * target - reward) / last_reward)
    return [g for g in found if 0 < g <= 1]  # gamma 0 is the REWARD_ONLY model


MISTAKE_HINTS = {
    reference.FORWARDS: "walk the episode backwards: a step's return G is its reward plus gamma "
                        "times the return of the step after it; walking forwards gives a step "
                        "the rewards before it instead (episode 5 has a reward on a middle step)",
    reference.REWARD_ONLY: "each step moved towards its own reward, not towards its return G: "
                           "walking backwards, G = gamma * G + reward, then Q + alpha * (G - Q), "
                           "so the early moves of a won game learn too",
    reference.CARRY: "G must start again at 0 in every episode: yours carries the return of the "
                     "last episode into the next one (set G = 0 inside the loop over epochs)",
    reference.DROP_LAST: "the last step of each episode, the one with the result, is never "
                         "updated: after episode.pop() takes off (final_state,), walk every "
                         "step that is left",
    reference.NO_NEGATION: "for O, negate the rewards (they are X's: a win for O is -1) before "
                           "they go into G, e.g. G = gamma * G + player.player * reward",
}


def where(episodes, side: int, alpha: float, gamma: float | None) -> str:
    used = f"alpha {alpha:g}" + ("" if gamma is None else f", gamma {gamma:g}")
    return f"after the hand-made episodes ({symbol(side)} learns; your main used {used})"


def generic_hint(episodes, side, start, got, module_gamma) -> str:
    """A step that was never updated, or else the first value that is off, against the update
    with the course's alpha and gamma."""
    gamma = module_gamma if isinstance(module_gamma, float) else 0.95
    want = reference.mc_values(episodes, side, start, gamma, 0.01)
    steps = [(number, step, len(episode) - 1, (state, action))
             for number, episode in enumerate(episodes, start=1)
             for step, (state, action, _) in enumerate(episode[:-1], start=1)]
    for number, step, length, pair in steps:
        if close(got[pair], start.get(pair, 0.0)):
            return (f"step {step} of hand-made episode {number} ({length} step"
                    f"{'s' if length > 1 else ''}) was never updated, its value is still "
                    f"{fmt(got[pair])}: walk every step of each episode, from the last to the "
                    "first")
    for number, step, length, pair in steps:
        if not close(got[pair], want[pair], 1e-7):
            return (f"after main, Q of step {step} of hand-made episode {number} ({length} "
                    f"steps, {symbol(side)} learns) should be {want[pair]:.6g} with alpha 0.01 "
                    f"and gamma {gamma:g}, got {fmt(got[pair])}: walking backwards, G = gamma * "
                    "G + reward and Q <- Q + alpha * (G - Q)")
    return "the table does not match the Monte Carlo update"
