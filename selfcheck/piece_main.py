"""Pieces 3 and 4: ``MC_Trainer.main()``, the Monte Carlo update loop, judged by what it does.

The student's ``main`` runs as written -- its own locals (``epochs = 200000``, ``alpha``), its
prints, its walk through the episode, its own table if it starts a fresh one -- with two
stand-ins: ``Generate_episode`` hands it the hand-made episodes of ``selfcheck.episodes`` first
(then a short game over and over, until main has played all its episodes) and ``test`` only notes
that it was called. The verdict is on the table main saves (``selfcheck.saved``): it must be the
one its own updates made, and its values for the hand-made pairs are compared with what the
Monte Carlo update gives and with what each common mistake gives, so a wrong table gets the hint
of its mistake. ``alpha`` (or a running average, 1/N) and ``gamma`` are read from what main did,
so any values of them pass; a main whose code reads the module's ``gamma`` must use that value
(one that writes its own number, ``G = 0.9 * G + reward``, is judged with its own; one with no
discount at all, ``G = G + reward``, has left it out).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import dis
import numbers
import os
from types import CodeType

from selfcheck import saved, training
from selfcheck.main_calls import call_runs, check_calls, well_formed_runs
from selfcheck.common import (Failure, Stop, call, close, duration, fmt, one_line, own_constant,
                              plural)
from selfcheck.episodes import (CARRY, CORRECT, DROP_LAST, FILLER, FORWARDS, LATE_G, MODELS,
                                NO_NEGATION, REWARD_ONLY, RUNNING_AVERAGE, episode_of, hand_made)
from State import O, symbol

if TYPE_CHECKING:
    from selfcheck.student import Student

MAX_EPISODES = 2_000_000
COURSE_EPOCHS = 200_000
ALPHAS, GAMMAS = (0.01, 0.1, 0.5, 1.0), (0.9, 0.95, 0.99, 1.0)
# Saves inside the loop: after this many, the time the whole run would spend saving is worked
# out, and a main that would spend longer than SAVING_SECONDS is stopped and told so.
SAVES_MEASURED, SAVING_SECONDS = 10, 120
LONGEST_TEST = 80    # characters of main's test argument shown after "passed"


class StandIns:
    """``Generate_episode`` and ``test`` as main meets them, and the watch on its saves."""

    def __init__(self, trainer, episodes: list[list[tuple]], filler: list[tuple],
                 folder: str) -> None:
        self.trainer, self.episodes, self.filler = trainer, episodes, filler
        self.calls: list[tuple[object, int]] = []
        self.tests: list = []
        self.folder = folder
        self.saves = saved.Saves(trainer.player1, os.path.join(folder, "q.pth"))
        self.too_slow: str | None = None
        self.per_save: tuple[float, int] | None = None   # a save's seconds and pairs, timed once
        self.estimated_at = 0                             # the saves the last estimate saw

    def install(self) -> None:
        self.trainer.Generate_episode, self.trainer.test = self.generate, self.test
        self.trainer.PATH = self.saves.path
        self.saves.install()

    def generate(self, player, epoch):
        self.calls.append((player, epoch))
        done = len(self.calls) - 1
        self.saves.episodes[0] = len(self.calls)
        if len(self.saves.made) >= SAVES_MEASURED and len(self.saves.made) != self.estimated_at:
            self.measure_saving(done)
        if done > MAX_EPISODES:
            raise Stop()
        source = self.episodes[done] if done < len(self.episodes) else self.filler
        return list(source)

    def measure_saving(self, done: int) -> None:
        """Stop a main that saves inside its loop so often that its run would take long (worked
        out again only when it saved again: a checkpoint now and then costs nothing)."""
        self.estimated_at = len(self.saves.made)
        epochs = own_constant(self.trainer.main, "epochs") or self.trainer.__dict__.get("epochs")
        epochs = epochs if isinstance(epochs, int) and epochs > 0 else COURSE_EPOCHS
        if self.per_save is None:
            self.per_save = saved.seconds_per_save(self.folder)
        per_save, pairs = self.per_save
        saves = len(self.saves.made) * epochs / done
        if saves * per_save > SAVING_SECONDS:
            self.too_slow = (
                f"main saves the table inside its loop ({plural(len(self.saves.made), 'save')} "
                f"in its first {plural(done, 'episode')}): a save of a trained table "
                f"({pairs:,} pairs) takes {per_save * 1000:.0f} ms here, so its "
                f"{epochs:,} episodes would spend about {duration(saves * per_save)} saving -- "
                "save once, after the loop (player1.save_Q(PATH) after the for, not inside it)")
            raise Stop()

    def test(self, num=None, *args, **kwargs):
        self.tests.append(num)
        return 0, 0, 0


def gather(student: Student, side: int, folder: str) -> dict:
    """In the student's process: run the student's ``main`` on the hand-made episodes for
    ``side``, saving into ``folder``; what the judging process needs besides the saved table:
    ``{"episodes", "runs", "learner_only", "saved_at", "test", "module_gamma", "own_gamma"}``:
    the epochs of main's calls of ``Generate_episode`` run-length encoded (``call_runs``),
    whether each call played the learner, when it saved a table it moved on from
    (``saved.saved_at``), the repr of its last ``test`` argument (None: never called), the
    module's ``gamma`` and whether main has a gamma of its own."""
    trainer = student.trainer(fresh=True)
    episodes = hand_made(side)
    if side == O:
        training.switch_sides(trainer)
    trainer.player1.Q.clear()
    stand_ins = StandIns(trainer, episodes, episode_of(FILLER[side], side), folder)
    stand_ins.install()
    try:
        call("main", trainer.main)
    except Stop:
        raise Failure(stand_ins.too_slow or (
            f"main asked for more than {MAX_EPISODES:,} episodes, so the check stopped it "
            "before it could see the end of main (its save and test): the course trains "
            "200,000")) from None
    module_gamma = trainer.__dict__.get("gamma")
    try:
        at = saved.saved_at(stand_ins.saves, saved.load_saved(stand_ins.saves.path))
    except Failure:     # no table: the judge says so, after what main's calls show
        at = None
    return {"episodes": len(stand_ins.calls),
            "runs": call_runs([epoch for _, epoch in stand_ins.calls]),
            "learner_only": all(player is trainer.player1 for player, _ in stand_ins.calls),
            "saved_at": at,
            "test": repr(stand_ins.tests[-1])[:LONGEST_TEST] if stand_ins.tests else None,
            "module_gamma": float(module_gamma) if isinstance(module_gamma, float) else None,
            "own_gamma": not loads_global(trainer.main.__code__, "gamma")}


def loads_global(code: CodeType, name: str) -> bool:
    """Whether ``code`` (or a function, comprehension or lambda inside it) reads the global
    ``name``: only then is its value the one main must use."""
    return any(instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME") and instruction.argval == name
               for instruction in dis.get_instructions(code)) or any(
        loads_global(const, name) for const in code.co_consts if isinstance(const, CodeType))


def judge(facts: object, side: int, folder: str) -> str:
    """In the judging process: the verdict on the table main saved in ``folder``, read from
    the file, with the ``facts`` the student's process sent (see ``gather``)."""
    shapes = {"episodes": int, "runs": list, "learner_only": bool,
              "saved_at": (int, type(None)),
              "test": (str, type(None)), "module_gamma": (float, type(None)), "own_gamma": bool}
    if not (isinstance(facts, dict) and all(isinstance(facts.get(key), shape)
                                            for key, shape in shapes.items())
            and well_formed_runs(facts["runs"], facts["episodes"])):
        raise Failure("the run of your main sent back something that is not what it did")
    notes = check_calls(facts["runs"], facts["learner_only"], facts["episodes"],
                        len(hand_made(side)))
    table = saved.load_saved(os.path.join(folder, "q.pth"))
    saved.check_fresh(facts["saved_at"], facts["episodes"])
    filler = episode_of(FILLER[side], side)
    seen = {pair for episode in [*hand_made(side), filler] for pair in saved.pairs_of(episode)}
    saved.check_own(table, seen, facts["episodes"])
    rate, gamma = judge_values(side, table, facts["module_gamma"], facts["own_gamma"])
    if facts["test"] is None:
        raise Failure("main must end with test(100) (the chapter prints it: print(test(100))), "
                      "to show how the trained agent plays")
    if rate == RUNNING_AVERAGE:
        notes.append("a running average (1/N, with a visit count) is Monte Carlo control too; "
                     "the chapter uses a constant alpha = 0.01")
    return (f"as {symbol(side)}: {facts['episodes']:,} episodes, {rate_name(rate)}, gamma "
            f"{gamma:g}, saved, test({one_line(facts['test'], LONGEST_TEST)})"
            + "".join(f"; note: {note}" for note in notes))


def rate_name(rate: object) -> str:
    return "a running average (1/N) for alpha" if rate == RUNNING_AVERAGE else f"alpha {rate:g}"


def judge_values(side: int, table: dict, module_gamma: float | None,
                 own_gamma: bool) -> tuple[object, float]:
    """The step size (alpha, or a running average) and gamma with which the saved ``table`` is
    the Monte Carlo update's, or a ``Failure`` that names the mistake the table shows.
    ``module_gamma``: the trainer module's ``gamma``; ``own_gamma``: main has its own."""
    steps = [(number, index, (state, action))
             for number, episode in enumerate(hand_made(side))
             for index, (state, action, _) in enumerate(episode[:-1])]
    got = {(number, index): table.get(pair, 0.0) for number, index, pair in steps}
    wrong = [value for value in got.values()
             if not isinstance(value, numbers.Real) or isinstance(value, bool)]
    if wrong:
        raise Failure(f"player.Q must hold numbers: a value of the table is {wrong[0]!r}")
    got = {key: float(value) for key, value in got.items()}
    if all(close(value, 0.0) for value in got.values()):
        raise Failure("the table main saved holds no value for the pairs of its episodes: update "
                      "the agent's own table, player1.Q[(state, action)] = ..., and save that")
    fitted = fit(side, got, module_gamma)
    if fitted is None:
        raise Failure(generic_hint(side, got, module_gamma))
    model, rate, gamma = fitted
    if model != CORRECT:
        shown = None if model == REWARD_ONLY else gamma   # no gamma in that table
        raise Failure(f"{where(side, rate, shown)}: {MISTAKE_HINTS[model]}")
    if rate != RUNNING_AVERAGE and close(rate, 1.0):
        raise Failure(f"{where(side, rate, gamma)}: Q is set to G itself; move it only "
                      "a fraction alpha of the way: Q + alpha * (G - Q), with alpha = 0.01")
    if rate != RUNNING_AVERAGE and not 0 < rate < 1:
        raise Failure(f"{where(side, rate, gamma)}: the table moved by a step of "
                      f"{rate:g}; alpha must be between 0 and 1")
    # A main that discounts by a number of its own is judged with it; one that does not
    # discount at all while the module's gamma does has left the discount out.
    if isinstance(module_gamma, float) and not close(gamma, module_gamma) \
            and (not own_gamma or close(gamma, 1.0)):
        hint = ("G is not discounted: G = gamma * G + reward" if close(gamma, 1.0) else
                f"G is discounted by {gamma:g}, but gamma is {module_gamma:g}")
        raise Failure(f"{where(side, rate, gamma)}: {hint}")
    if not 0 < gamma <= 1:
        raise Failure(f"the returns are discounted by {gamma:g}; gamma must be in (0, 1]")
    return rate, gamma


def fit(side: int, got: dict,
        module_gamma: float | None) -> tuple[str, object, float] | None:
    """The model (the update or a mistake), step size and gamma that give ``got``."""
    from selfcheck import reference     # loaded up front, kept from the student's process
    # A pair met once moves from 0 by alpha times its target: a target of +-1 shows alpha.
    alphas = {*ALPHAS, *(abs(value) for (number, _), value in got.items()
                         if number < 3 and 0 < abs(value) <= 1)}
    rates = [RUNNING_AVERAGE, *sorted(alphas)]
    gammas = {*GAMMAS, *([module_gamma] if isinstance(module_gamma, float) else []),
              *observed_gamma(side, got, alphas)}
    for model in MODELS:
        if model == NO_NEGATION and side != O:
            continue
        for rate in rates:
            for gamma in sorted(gammas):
                want = reference.expected(side, model, rate, gamma)
                if all(close(got[key], want[key], 1e-7) for key in got):
                    return model, rate, gamma
    return None


def observed_gamma(side: int, got: dict, alphas: set) -> list[float]:
    """The gammas that the first step of the two-step episode 2 shows for each alpha (a pair
    met once: its value is alpha times (its reward + gamma times the last reward))."""
    (_, _, reward), (_, _, last_reward) = hand_made(side)[1][:2]
    found = [(side * got[(1, 0)] / alpha - reward) / last_reward
             for alpha in alphas if alpha and last_reward]
    return [gamma for gamma in found if 0 < gamma <= 1]  # gamma 0 is the REWARD_ONLY model


MISTAKE_HINTS = {
    FORWARDS: "walk the episode backwards: a step's return G is its reward plus gamma times "
                "the return of the step after it; walking forwards gives a step the rewards "
                "before it instead (episode 5 has a reward on a middle step)",
    REWARD_ONLY: "each step moved towards its own reward, not towards its return G: walking "
              "backwards, G = gamma * G + reward, then Q + alpha * (G - Q), so the early moves "
              "of a won game learn too",
    CARRY: "G must start again at 0 in every episode: yours carries the return of the last "
             "episode into the next one (set G = 0 inside the loop over epochs)",
    DROP_LAST: "the last step of each episode, the one with the result, is never updated: "
                 "after episode.pop() takes off (final_state,), walk every step that is left",
    NO_NEGATION: "for O, negate the rewards (they are X's: a win for O is -1) before they go "
                   "into G, e.g. G = gamma * G + player.player * reward",
    LATE_G: "each step moved towards the return of the steps after it, without its own "
              "reward: Q was updated with G before G took the step's reward. First "
              "G = gamma * G + reward, then Q + alpha * (G - Q)",
}


def where(side: int, rate: object, gamma: float | None) -> str:
    used = rate_name(rate) + ("" if gamma is None else f", gamma {gamma:g}")
    return f"after the hand-made episodes ({symbol(side)} learns; your main used {used})"


def generic_hint(side: int, got: dict, module_gamma: float | None) -> str:
    """A step that was never updated, or else the first value that is off, against the update
    with the course's alpha and gamma."""
    from selfcheck import reference     # loaded up front, kept from the student's process
    gamma = module_gamma if isinstance(module_gamma, float) else 0.95
    want = reference.expected(side, CORRECT, 0.01, gamma)
    lengths = [len(episode) - 1 for episode in hand_made(side)]
    for (number, index), value in got.items():
        if close(value, 0.0) and not close(want[(number, index)], 0.0):
            return (f"step {index + 1} of hand-made episode {number + 1} "
                    f"({plural(lengths[number], 'step')}) was never updated, its value is "
                    "still 0: walk every step of each episode, from the last to the first")
    for (number, index), value in got.items():
        if not close(value, want[(number, index)], 1e-7):
            return (f"after main, Q of step {index + 1} of hand-made episode {number + 1} "
                    f"({plural(lengths[number], 'step')}, {symbol(side)} learns, from an "
                    f"empty table) should be {want[(number, index)]:.6g} with alpha 0.01 and "
                    f"gamma {gamma:g}, got {fmt(value)}: walking backwards, G = gamma * G + "
                    "reward and Q <- Q + alpha * (G - Q)")
    return "the table does not match the Monte Carlo update"
