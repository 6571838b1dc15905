"""Pieces 3 and 4: ``MC_Trainer.main()``, the Monte Carlo update loop, judged by what it does.

The student's ``main`` runs as written -- its own locals (``epochs = 200000``, ``alpha``), its
prints, its walk through the episode, its own table if it starts a fresh one -- with two
stand-ins: ``Generate_episode`` hands it the hand-made episodes of ``tictactoe_rl.selfcheck.episodes`` first
(then a short game over and over, until main has played all its episodes) and ``test`` only notes
that it was called. The verdict is on the table main saves (``tictactoe_rl.selfcheck.saved``): it must be the
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
import inspect
import math
import numbers
import os
import sys
from types import CodeType

from tictactoe_rl.selfcheck import saved, training
from tictactoe_rl.selfcheck.main_calls import call_runs, check_calls, well_formed_runs
from tictactoe_rl.selfcheck.common import (Failure, Stop, call, close, duration, one_line,
                                           own_constant, plural)
from tictactoe_rl.selfcheck.episodes import (CORRECT, FILLER, MODELS, REWARD_ONLY, RUNNING_AVERAGE,
                                episode_of, hand_made)
from tictactoe_rl.selfcheck.mc_messages import (ALPHA_LINE, generic_hint, mistake_hint,
                                                 optimistic_hint, rate_name, where, wrong_alpha)
from State import O, symbol

if TYPE_CHECKING:
    from tictactoe_rl.selfcheck.student import Student

MAX_EPISODES = 2_000_000
COURSE_EPOCHS = 200_000
ALPHAS, GAMMAS = (0.01, 0.1, 0.5, 1.0), (0.9, 0.95, 0.99, 1.0)
COURSE_ALPHA, COURSE_GAMMA = 0.01, 0.95
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
        self.alpha: tuple[float, str] | None = None       # the alpha main was given, and where

    def install(self) -> None:
        # Functions of the names main calls: a call that does not fit them is told in those.
        def Generate_episode(player, epoch):
            return self.generate(player, epoch)

        def test(num=None, *args, **kwargs):
            return self.test(num)

        for function in (Generate_episode, test):
            function.__qualname__ = function.__name__
        self.trainer.Generate_episode, self.trainer.test = Generate_episode, test
        self.trainer.PATH = self.saves.path
        self.saves.install()

    def generate(self, player, epoch):
        if not self.calls:
            self.alpha = alpha_given(self.trainer, sys._getframe(2))   # main, past the stand-in
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

    def test(self, num: object) -> tuple[int, int, int]:
        self.tests.append(num)
        return 0, 0, 0


def alpha_given(trainer, frame) -> tuple[float, str] | None:
    """The alpha main was given, and where it was set: the first ``alpha`` that a frame from
    ``frame`` (the caller of ``Generate_episode``) up to main's own holds as a local, else the
    module's ``alpha``; None when there is none."""
    main = getattr(inspect.unwrap(trainer.main), "__code__", None)
    while frame is not None:
        value = frame.f_locals.get("alpha")
        if is_number(value):
            where = "main's" if frame.f_code is main else f"{frame.f_code.co_name}'s"
            return float(value), f"{where} alpha = {value:g}"
        if frame.f_code is main:
            break
        frame = frame.f_back
    value = trainer.__dict__.get("alpha")
    return (float(value), f"the module's alpha = {value:g}") if is_number(value) else None


def is_number(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) \
        and math.isfinite(value) and value > 0


def gather(student: Student, side: int, folder: str) -> dict:
    """In the student's process: run the student's ``main`` on the hand-made episodes for
    ``side``, saving into ``folder``; what the judging process needs besides the saved table:
    ``{"episodes", "runs", "learner_only", "saved_at", "called_save", "test", "module_gamma",
    "own_gamma"}``: the epochs of main's calls of ``Generate_episode`` run-length encoded
    (``call_runs``), whether each call played the learner, when it saved a table it moved on
    from (``saved.saved_at``), whether it called ``save_Q`` at all, the repr of its last
    ``test`` argument (None: never called), the module's ``gamma`` and whether main has a gamma
    of its own, the alpha main was given (``alpha_given``: ``"alpha"``, ``"alpha_from"``) and
    the paths main gave ``save_Q`` that are not ``PATH`` (``"saved_elsewhere"``)."""
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
            "called_save": bool(stand_ins.saves.made),
            "test": repr(stand_ins.tests[-1])[:LONGEST_TEST] if stand_ins.tests else None,
            "module_gamma": float(module_gamma) if isinstance(module_gamma, float) else None,
            "own_gamma": not loads_global(trainer.main.__code__, "gamma"),
            "alpha": stand_ins.alpha[0] if stand_ins.alpha else None,
            "alpha_from": stand_ins.alpha[1][:LONGEST_TEST] if stand_ins.alpha else "",
            "saved_elsewhere": stand_ins.saves.elsewhere[:3]}


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
              "saved_at": (int, type(None)), "called_save": bool,
              "test": (str, type(None)), "module_gamma": (float, type(None)), "own_gamma": bool,
              "alpha": (float, type(None)), "alpha_from": str, "saved_elsewhere": list}
    if not (isinstance(facts, dict) and all(isinstance(facts.get(key), shape)
                                            for key, shape in shapes.items())
            and well_formed_runs(facts["runs"], facts["episodes"])
            and all(isinstance(path, str) for path in facts["saved_elsewhere"])):
        raise Failure("the run of your main sent back something that is not what it did")
    notes = check_calls(facts["runs"], facts["learner_only"], facts["episodes"],
                        len(hand_made(side)))
    if facts["saved_elsewhere"]:
        raise Failure(saved.saved_elsewhere(facts["saved_elsewhere"]))
    table = saved.load_saved(os.path.join(folder, "q.pth"), facts["called_save"])
    saved.check_fresh(facts["saved_at"], facts["episodes"])
    filler = episode_of(FILLER[side], side)
    seen = {pair for episode in [*hand_made(side), filler] for pair in saved.pairs_of(episode)}
    saved.check_own(table, seen, facts["episodes"])
    rate, gamma = judge_values(side, table, facts["module_gamma"], facts["own_gamma"],
                               facts["alpha"], one_line(facts["alpha_from"], LONGEST_TEST))
    if facts["test"] is None:
        raise Failure("main must end with test(100) (the chapter prints it: print(test(100))), "
                      "to show how the trained agent plays")
    if rate == RUNNING_AVERAGE:
        notes.append("a running average (1/N, with a visit count) is Monte Carlo control too; "
                     "the chapter uses a constant alpha = 0.01")
    return (f"as {symbol(side)}: {facts['episodes']:,} episodes, {rate_name(rate)}, gamma "
            f"{gamma:g}, saved, test({one_line(facts['test'], LONGEST_TEST)})"
            + "".join(f"; note: {note}" for note in notes))


def judge_values(side: int, table: dict, module_gamma: float | None, own_gamma: bool,
                 alpha: float | None = None, alpha_from: str = "") -> tuple[object, float]:
    """The step size (alpha, or a running average) and gamma with which the saved ``table`` is
    the Monte Carlo update's, or a ``Failure`` that names the mistake the table shows.
    ``module_gamma``: the trainer module's ``gamma``; ``own_gamma``: main has its own;
    ``alpha``: the alpha main was given (``alpha_from`` says where it was set; None: none was,
    and the chapter's 0.01 holds), which a constant step size must be."""
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
    if alpha is None:
        alpha, alpha_from = COURSE_ALPHA, f"the chapter's {ALPHA_LINE}"
    fitted = fit(side, got, module_gamma, alpha)
    if fitted is None:
        from tictactoe_rl.selfcheck import reference     # loaded up front, kept from the student's process
        gamma = module_gamma if isinstance(module_gamma, float) else COURSE_GAMMA
        start = optimistic_start(side, got, gamma, alpha)
        if start is not None:
            raise Failure(optimistic_hint(side, alpha, gamma, start))
        raise Failure(generic_hint(side, got, gamma,
                                   reference.expected(side, CORRECT, alpha, gamma)))
    model, rate, gamma = fitted
    if model != CORRECT:
        shown = None if model == REWARD_ONLY else gamma   # no gamma in that table
        raise Failure(f"{where(side, rate, shown)}: {mistake_hint(model, side)}")
    if rate != RUNNING_AVERAGE and close(rate, 1.0):
        raise Failure(f"{where(side, rate, gamma)}: Q is set to G itself; move it only "
                      "a fraction alpha of the way: Q + alpha * (G - Q), with alpha = 0.01")
    if rate != RUNNING_AVERAGE and not 0 < rate < 1:
        raise Failure(f"{where(side, rate, gamma)}: the table moved by a step of "
                      f"{rate:g}; alpha must be between 0 and 1")
    if rate != RUNNING_AVERAGE and not close(rate, alpha, 1e-6 * alpha):
        raise Failure(wrong_alpha(side, rate, gamma, alpha, alpha_from))
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


def fit(side: int, got: dict, module_gamma: float | None,
        alpha: float = 0.01) -> tuple[str, object, float] | None:
    """The model (the update or a mistake), step size and gamma that give ``got`` (the step
    size ``alpha`` main was given is tried first)."""
    from tictactoe_rl.selfcheck import reference     # loaded up front, kept from the student's process
    # A pair met once moves from 0 by alpha times its target, one met twice (the pairs of the
    # first three episodes come again) by 1 - (1 - alpha) ** 2 times it: a target of +-1 shows
    # alpha either way.
    shown = [abs(value) for (number, _), value in got.items() if number < 3 and 0 < abs(value) < 1]
    alphas = {*ALPHAS, *shown, *(1 - math.sqrt(1 - value) for value in shown)}
    rates = [RUNNING_AVERAGE, alpha, *sorted(alphas - {alpha})]
    # the usual gammas first, so that one of them is named rather than its rounded-off look-alike
    known = sorted({*GAMMAS, *([module_gamma] if isinstance(module_gamma, float) else [])})
    gammas = [*known, *observed_gamma(side, got, alphas)]
    for model in MODELS:
        for rate in rates:
            for gamma in gammas:
                want = reference.expected(side, model, rate, gamma)
                if all(close(got[key], want[key], 1e-7) for key in got):
                    return model, rate, gamma
    return None


def optimistic_start(side: int, got: dict, gamma: float, alpha: float) -> float | None:
    """The value other than 0 that missing pairs were read as, when the table is otherwise the
    update's with ``alpha`` and ``gamma``; else ``None``. A value is linear in that start: the
    first step of episode 1 shows it, every other step must agree."""
    from tictactoe_rl.selfcheck import reference     # loaded up front, never in the student's code
    empty = reference.expected(side, CORRECT, alpha, gamma)
    share = {key: one - empty[key] for key, one
             in reference.expected(side, CORRECT, alpha, gamma, start=1.0).items()}
    if close(share[(0, 0)], 0.0):
        return None
    start = (got[(0, 0)] - empty[(0, 0)]) / share[(0, 0)]
    if close(start, 0.0) or not all(close(got[key], empty[key] + start * share[key], 1e-7)
                                    for key in got):
        return None
    return start


def observed_gamma(side: int, got: dict, alphas: set) -> list[float]:
    """The gammas that the first step of the two-step episode 2 shows for each alpha (its value
    is its target, its reward + gamma times the last reward, times alpha for a pair met once or
    times 1 - (1 - alpha) ** 2 for one met twice)."""
    (_, _, reward), (_, _, last_reward) = hand_made(side)[1][:2]
    found = [(side * got[(1, 0)] / share - reward) / last_reward
             for alpha in alphas if 0 < alpha < 1 and last_reward
             for share in (alpha, 1 - (1 - alpha) ** 2)]
    return [gamma for gamma in found if 0 < gamma <= 1]  # gamma 0 is the REWARD_ONLY model
