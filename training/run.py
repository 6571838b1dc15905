"""One training run as an object: who learns, against whom, for how long, and where it is saved.

``build_run`` makes it from the command line (fresh or resumed learners, the opponent, file
names, the learning curve); ``Run.of_module`` from the course's module names (``player1``,
``player2``, ``PATH``, ``epochs``, ...), as the chapter's ``main`` has them.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import cli
from AI_Agent import AI_Agent
from exploration.schedules import Schedule
from players.specs import make_agent
from State import X, symbol
from tables.files import check_writable, load_table
from TicTacToe import TicTacToe
from training.curves import Learning_Curve
from training.options import SIDES, is_self_play, table_paths


@dataclass
class Run:
    """Everything the training loop needs. In self-play ``opponent`` is the O learner, and both
    learners are in ``learners`` (X first)."""
    learners: list[AI_Agent]
    opponent: object
    env: TicTacToe
    path: str                     # where learners[0] is saved (see options.table_paths)
    epochs: int                   # train up to this episode count
    gamma: float
    alpha: float
    start: int = 0                # episodes a resumed table already covered
    label: str = "training"       # the progress bar's title
    curve: Learning_Curve | None = None
    plot: str | None = None       # where to draw the curve

    @property
    def paths(self) -> list[str]:
        return table_paths(self.path, len(self.learners))

    @classmethod
    def of_module(cls, player1: AI_Agent, player2, env: TicTacToe, path: str, epochs: int,
                  gamma: float, alpha: float) -> "Run":
        """The run that the course's module-level names describe (a learning ``player2`` makes
        it self-play)."""
        return cls(learners_of(player1, player2), player2, env, path, epochs, gamma, alpha,
                   label=f"MC {symbol(player1.player)}")


def learners_of(player1: AI_Agent, player2) -> list[AI_Agent]:
    """The agents that learn in a game of ``player1`` against ``player2``: ``player1``, and in
    self-play also ``player2``."""
    learns = isinstance(player2, AI_Agent) and player2.train
    return [player1, player2] if learns else [player1]


def learner_seed(seed: int | None, role: str) -> str | None:
    """Separate, repeatable random streams for the learner and its opponent from one ``--seed``."""
    return None if seed is None else f"{seed}:{role}"


def make_learner(side: int, env: TicTacToe, seed: int | None, epsilon: str, epochs: int,
                 role: str = "learner") -> AI_Agent:
    """A fresh learner exploring with the schedule ``epsilon`` over a run of ``epochs``. ``role``
    names its random stream (the second learner of self-play sits in the opponent's seat)."""
    return AI_Agent(side, env, train=True, seed=learner_seed(seed, role), epsilon=epsilon,
                    decay_epochs=Schedule(epsilon).window(epochs))


def make_opponent(spec: str, side: int, env: TicTacToe, seed: int | None):
    """The opponent named by ``spec`` playing ``side``; a Q-table opponent plays greedily."""
    return make_agent(spec, side, env, seed=learner_seed(seed, "opponent"))


def describe_run(algorithm: str, side: int, args: argparse.Namespace, episodes_done: int) -> dict:
    """The record of how a table was trained, saved inside the table file. It holds no clock
    time, so the same seed gives the same file."""
    return {"algorithm": algorithm, "side": symbol(side), "opponent": args.opponent,
            "epochs": args.epochs, "episodes_done": episodes_done, "gamma": args.gamma,
            "alpha": args.alpha, "epsilon": args.epsilon, "seed": args.seed}


def resume_from(path: str, learner: AI_Agent, recorded: dict) -> int:
    """Load ``path`` into ``learner``; return the number of episodes it already covered. The
    table must have been learnt the way this run learns (``recorded``: the algorithm and its
    variant, as the tables record them): a run goes on with the trainer and flags that began it."""
    Q, _, meta = load_table(path, side=learner.player)
    for key, value in recorded.items():
        if key in meta and meta[key] != value:
            raise ValueError(f"{path}: was trained with {key} {meta[key]!r}, and this run's is "
                             f"{value!r}; resume it with the trainer and flags that made it")
    done = meta.get("episodes_done")
    if not isinstance(done, int) or done < 0:
        raise ValueError(f"{path}: records no episode count, so it cannot be resumed; "
                         "use --opponent or start afresh")
    schedule = meta.get("epsilon", learner.epsilon_schedule)
    if schedule != learner.epsilon_schedule:
        raise ValueError(f"{path}: was trained with --epsilon {schedule}; resume it with the same "
                         "--epsilon")
    planned = meta.get("epochs")
    if isinstance(planned, int) and planned > 0:  # epsilon goes on along the interrupted schedule
        learner.decay_epochs = Schedule(schedule).window(planned)
    learner.Q = Q
    return done


def resume_all(path: str, learners: list[AI_Agent], epochs: int, recorded: dict) -> int:
    """Load the tables of ``path`` into ``learners`` (see ``resume_from``); the episodes they
    already cover. Self-play tables that record different counts (a run killed between its two
    saves) resume from the smaller one, which both have seen."""
    done = [resume_from(where, agent, recorded)
            for where, agent in zip(table_paths(path, len(learners)), learners)]
    if len(set(done)) > 1:
        print(f"note: the X and O tables of {path} record {done[0]:,} and {done[1]:,} episodes; "
              f"both go on from {min(done):,}")
    start = min(done)
    if start >= epochs:
        raise ValueError(f"{path}: already covers {start:,} episodes; ask for more with --epochs "
                         f"(e.g. --epochs {2 * start})")
    return start


def build_run(algorithm: str, title: str, args: argparse.Namespace, out_name: str,
              announce: bool = True, learns: dict | None = None) -> Run:
    """The run the command line ``args`` asks for; with ``announce`` print one line that says
    what will be trained. ``learns``: how its update learns, recorded in its tables (e.g. MC's
    refinements); a resumed table must record the same. Every file problem is found now, not
    after the training."""
    recorded = {"algorithm": algorithm, **(learns or {})}
    env = TicTacToe()
    self_play = is_self_play(args)
    side = X if self_play else SIDES[args.side]
    player1 = make_learner(side, env, args.seed, args.epsilon, args.epochs)
    if self_play:
        player2 = make_learner(-side, env, args.seed, args.epsilon, args.epochs, role="opponent")
    else:
        player2 = make_opponent(args.opponent, -side, env, args.seed)
    learners = learners_of(player1, player2)
    default = cli.repository_file("Data/" + out_name.format(side="self" if self_play else args.side))
    run = Run(learners, player2, env, args.out or args.resume or default, args.epochs,
              args.gamma, args.alpha, label=f"{algorithm} {symbol(side)}", plot=args.plot)
    for where in run.paths:
        check_writable(where, force=args.force)
    if args.resume:
        run.start = resume_all(args.resume, learners, args.epochs, recorded)
    for agent in learners:
        agent.meta = describe_run(algorithm, agent.player, args, run.start) | recorded
    who = "X and O by self-play" if self_play else f"{args.side} against {args.opponent}"
    settings = (f"gamma {args.gamma}, alpha {args.alpha}, epsilon {args.epsilon}, "
                f"seed {args.seed}")
    if args.plot:
        run.curve = Learning_Curve(learners, side, run.start, args.epochs,
                                   f"{title}: {who}, {settings}")
    if announce:
        print(f"{title}: {who}, {args.epochs:,} episodes, {settings}")
    return run
