"""The one training loop, for tables and networks alike: play ``epochs`` games, let every
learner (``tictactoe_rl.training.learners``) learn from each, show progress, stop cleanly on Ctrl-C (or
SIGTERM), save, draw the curves."""

from __future__ import annotations

import contextlib
import signal
import sys
import time
from typing import Callable

from tqdm import tqdm

from tictactoe_rl import cli
from Episode import play_game
from State import DRAW, O_WON, ONGOING, X, X_WON, State
from tictactoe_rl.tables.files import NotSaved
from tictactoe_rl.training.run import Run

# The progress bar and the recent win/loss/draw figures are refreshed once per this many episodes.
REPORT_EVERY = 1_000
STOP_SIGNALS = (signal.SIGINT, *cli.ENDING_SIGNALS)   # Ctrl-C, SIGTERM, SIGHUP
# How an episode's final position can stand: a student's episode may stop before the game ends
# (ONGOING), which the progress bar shows as unfinished.
RESULTS = (X_WON, O_WON, DRAW, ONGOING)


def outcome_shares(side: int, results: dict[int, int]) -> str:
    """``win 97% loss 1% draw 2%`` for ``side``, from a count of games by result code (and
    ``unfinished 5%`` when some episodes stopped before their game ended)."""
    games = max(1, sum(results.values()))
    wins, losses = (X_WON, O_WON) if side == X else (O_WON, X_WON)
    shown = [("win", wins), ("loss", losses), ("draw", DRAW)]
    if results.get(ONGOING):
        shown.append(("unfinished", ONGOING))
    return " ".join(f"{name} {100 * results[code] / games:.0f}%" for name, code in shown)


class StopRequest:
    """Turns Ctrl-C (and SIGTERM, SIGHUP) into a request to stop after the current episode;
    ``number`` is the signal that asked. While ``saving`` is set, no signal interrupts: a save is
    never cut short. Outside of it a second Ctrl-C aborts at once."""

    def __init__(self) -> None:
        self.requested = False
        self.number = signal.SIGINT
        self.saving = False
        self.previous: dict[int, object] = {}

    def __enter__(self) -> "StopRequest":
        for number in STOP_SIGNALS:
            try:
                self.previous[number] = signal.signal(number, self._handle)
            except ValueError:  # not the main thread: the signal cannot reach us anyway
                pass
        return self

    def _handle(self, signum, frame) -> None:
        if self.requested and not self.saving and signum == signal.SIGINT:
            raise KeyboardInterrupt
        if not self.requested:
            self.number = signum
        self.requested = True

    def __exit__(self, *exc) -> None:
        for number, handler in self.previous.items():
            signal.signal(number, handler)


def run_episodes(learn: Callable[[int], State], side: int, start: int, epochs: int,
                 description: str, on_episode: Callable[[int, State], None] | None = None,
                 show_progress: bool = True, stop: StopRequest | None = None,
                 note: Callable[[], str] | None = None) -> tuple[int, bool]:
    """Call ``learn(epoch)`` for ``epoch`` in ``start .. epochs-1``; each returns the episode's
    final position (then ``on_episode(epoch, final)``, if given). A progress bar shows the share
    of wins, losses and draws over the last ``REPORT_EVERY`` episodes, followed by ``note()`` if
    given. Ctrl-C stops after the current episode (``stop``: a request the caller has already set
    up, which it also keeps for the save).

    Returns ``(episodes done in total, whether it was interrupted)``.
    """
    results = dict.fromkeys(RESULTS, 0)   # games by result code since the last report
    epoch = start
    with (contextlib.nullcontext(stop) if stop else StopRequest()) as stop, \
            tqdm(total=epochs, initial=start, desc=description, unit="ep",
                 disable=not show_progress, mininterval=0.5) as bar:
        while epoch < epochs and not stop.requested:
            final = learn(epoch)
            results[final.end_of_game] += 1
            if on_episode is not None:
                on_episode(epoch, final)
            epoch += 1
            if epoch % REPORT_EVERY == 0 or epoch == epochs:
                bar.set_postfix_str(" ".join(filter(None, (outcome_shares(side, results),
                                                           note() if note else ""))),
                                    refresh=False)
                bar.update(sum(results.values()))
                results = dict.fromkeys(RESULTS, 0)
        return epoch, stop.requested


def learn_from_episodes(run: Run) -> Callable[[int], State]:
    """``learn(epoch)``: one game of the run's players, then every learner learns from it;
    returns the final position."""
    x_agent, o_agent = run.seats
    learners, env = run.learners, run.env

    def learn(epoch: int) -> State:
        moves, final = play_game(x_agent, o_agent, env, epoch=epoch)
        for learner in learners:
            learner.learn(moves, final, epoch)
        return final

    return learn


def train_loop(run: Run, learn: Callable[[int], State], show_progress: bool = True) -> bool:
    """Train ``run`` by ``learn(epoch)`` (one episode, which returns its final position; e.g.
    ``learn_from_episodes``) for the episodes ``run.start .. run.epochs-1``, then save
    every learner with its episode count and draw the learning curves into ``run.plot``. Prints
    the speed and where everything went.

    Returns False when Ctrl-C or SIGTERM stopped it early (what was learned is saved all the same;
    a signal during the save waits for the save to finish), and sets ``run.stopped_by`` to the
    signal.
    """
    started = time.perf_counter()
    stop = StopRequest()
    with stop:
        done, _ = run_episodes(learn, run.agents[0].player, run.start, run.epochs, run.label,
                               on_episode=run.curve.record if run.curve is not None else None,
                               show_progress=show_progress, stop=stop,
                               note=lambda: " ".join(filter(None, (learner.note()
                                                                   for learner in run.learners))))
        seconds = time.perf_counter() - started
        stop.saving = True
        kept, not_saved = save_all(run, done)
        interrupted = stop.requested
    run.stopped_by = stop.number if interrupted else None
    print(f"Trained {done - run.start:,} episodes in {seconds:.1f} s "
          f"({(done - run.start) / max(seconds, 1e-9):,.0f} episodes/s)")
    names = " and ".join(cli.shown(where) for where in kept)
    if kept and interrupted and done < run.epochs:
        print(f"Interrupted: saved {done:,} of {run.epochs:,} episodes to {names} "
              f"(continue with --resume {cli.shown(kept[0])} --epochs {run.epochs})")
    elif kept:
        print(f"Saved the {run.learners[0].noun}{'s' if len(kept) > 1 else ''} to {names}")
    if not_saved:       # the work is kept in a fallback file, which the one line names
        raise not_saved[0]
    if run.curve is not None and run.plot:
        run.curve.evaluate(done)
        run.curve.save(run.plot)
        print(f"Saved the learning curves to {cli.shown(run.plot)}")
    return not interrupted


def save_all(run: Run, done: int) -> tuple[list[str], list[NotSaved]]:
    """Save every learner of ``run`` with its episode count; one that cannot go where asked is
    kept in a fallback file. Returns the files the learners are in now (a fallback in place of
    its path) and the failures (each names where its learner went)."""
    kept, failures = [], []
    for learner, where in zip(run.learners, run.paths):
        try:
            learner.save(where, done)
            kept.append(where)
        except NotSaved as failure:
            failures.append(failure)
            kept.extend([failure.fallback] if failure.fallback else [])
    for failure in failures[1:]:
        print(f"error: {failure}", file=sys.stderr)
    return kept, failures
