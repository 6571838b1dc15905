"""The deep Q-learning run: play a game, remember its learning steps, take the optimiser steps
that are due; show progress; stop cleanly on Ctrl-C (or SIGTERM); save the network.

One game is one episode, as in the table trainers. Every learner's learning steps (SPEC section 2:
its move plus the opponent's reply; rewards X's, negated for O) go into the one replay memory --
in self-play both sides', since one network plays both -- and after the game the learner takes
one optimiser step per ``steps_per_update`` new steps.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from Episode import learning_steps, play_game
from State import X, State
from TicTacToe import TicTacToe
from training.curves import Learning_Curve
from tables.files import NotSaved
from training.loop import StopRequest, run_episodes
from neural.agent import DQN_Agent
from neural.files import save_or_keep
from neural.learner import DQN_Learner, learning_rate


@dataclass
class DQN_Run:
    """Everything one training run needs. ``learners``: the agents that learn, sharing
    ``learner.network`` (one, or X and O in self-play, where ``opponent`` is the O learner)."""
    learners: list[DQN_Agent]
    opponent: object
    learner: DQN_Learner
    env: TicTacToe
    path: str                    # where the network is saved
    epochs: int                  # train up to this game count
    schedule_epochs: int         # the games epsilon and alpha fall over (a resumed run's plan)
    alpha: float                 # Adam's learning rate at the first game ...
    final_alpha: float           # ... and at the last
    meta: dict                   # how it was trained, saved with it
    start: int = 0               # games a resumed network already covered
    label: str = "DQN"           # the progress bar's title
    curve: Learning_Curve | None = None
    plot: str | None = None
    losses: list[float] = field(default_factory=list)   # since the last progress report

    @property
    def sides(self) -> tuple[int, ...]:
        return tuple(agent.player for agent in self.learners)


def play_and_learn(run: DQN_Run, epoch: int) -> State:
    """Game ``epoch`` (0-based): play it, remember it, take the steps due; its final position."""
    first = run.learners[0]
    x_agent, o_agent = (first, run.opponent) if first.player == X else (run.opponent, first)
    moves, final = play_game(x_agent, o_agent, run.env, epoch=epoch)
    learner = run.learner
    for agent in run.learners:
        learner.remember(learning_steps(moves, agent.player), final, agent.player)
    learner.set_learning_rate(learning_rate(run.alpha, run.final_alpha, epoch,
                                            run.schedule_epochs))
    run.losses += learner.catch_up()
    return final


def mean_loss(run: DQN_Run) -> str:
    """``huber 0.0123``: the mean loss of the optimiser steps since it was last asked (then
    forgotten), for the progress bar; empty when there were none."""
    text = f"huber {sum(run.losses) / len(run.losses):.4f}" if run.losses else ""
    run.losses.clear()
    return text


def train(run: DQN_Run, show_progress: bool = True,
          on_game: Callable[[int, State], None] | None = None) -> bool:
    """Train for the games ``run.start .. run.epochs-1`` (after each, ``on_game(epoch, final)``
    if given), then save the network and draw the learning curves. Prints the speed and where
    everything went. Returns False when Ctrl-C or SIGTERM stopped it early (what was learned is
    saved all the same; a signal during the save waits for it)."""
    def after_game(epoch: int, final: State) -> None:
        if run.curve is not None:
            run.curve.record(epoch, final)
        if on_game is not None:
            on_game(epoch, final)

    started = time.perf_counter()
    with StopRequest() as stop:
        epoch, _ = run_episodes(lambda epoch: play_and_learn(run, epoch), run.learners[0].player,
                                run.start, run.epochs, run.label, on_episode=after_game,
                                show_progress=show_progress, stop=stop,
                                note=lambda: mean_loss(run))
        seconds = time.perf_counter() - started
        stop.saving = True
        try:
            save(run, epoch)
            not_saved = None
        except NotSaved as failure:
            not_saved = failure
        interrupted = stop.requested
    played = epoch - run.start
    print(f"Trained {played:,} games in {seconds:.1f} s ({played / max(seconds, 1e-9):,.0f} "
          f"games/s, {run.learner.network.updates:,} optimiser steps)")
    if not_saved:        # the work is kept in a fallback file, which the one line names
        raise not_saved
    if interrupted and epoch < run.epochs:
        print(f"Interrupted: saved {epoch:,} of {run.epochs:,} games to {run.path} (continue "
              f"with --resume {run.path} --epochs {run.epochs})")
    else:
        print(f"Saved the network to {run.path}")
    if run.curve is not None and run.plot:
        run.curve.evaluate(epoch)
        run.curve.save(run.plot)
        print(f"Saved the learning curves to {run.plot}")
    return not interrupted


def save(run: DQN_Run, episodes_done: int) -> None:
    """Save the network with its record, its game count and Adam's state (to resume); where
    ``run.path`` cannot be written, into a fallback file that ``NotSaved`` names."""
    meta = dict(run.meta, episodes_done=episodes_done)
    save_or_keep(run.path, run.learner.network, run.sides, meta,
                 run.learner.optimizer.state_dict())
