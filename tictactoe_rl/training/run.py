"""One training run as an object: who learns, against whom, for how long, and where it is saved.

``build_run`` makes a table trainer's run from its command line (fresh or resumed learners, the
opponent, file names, the learning curve); ``Run.of_module`` from the course's module names
(``player1``, ``player2``, ``PATH``, ``epochs``, ...), as the chapter's ``main`` has them. The
network's run (``tictactoe_rl.training.dqn.build_network_run``) is the same ``Run`` and shares every step that
is not about the network: the seats, the opponent, the file name, the resume check, the curve and
the announcement.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from tictactoe_rl import cli
from AI_Agent import AI_Agent
from Agent import Agent, seats
from tictactoe_rl.geometry import TIC_TAC_TOE
from tictactoe_rl.boards.flags import board_from
from tictactoe_rl.exploration.schedules import Schedule
from tictactoe_rl.players.specs import make_agent
from State import X, symbol
from tictactoe_rl.tables.files import check_writable
from TicTacToe import TicTacToe
from tictactoe_rl.training.curves import LearningCurve
from tictactoe_rl.training.destination import Purpose, check_destination
from tictactoe_rl.training.learners import Learner, TableLearner
from tictactoe_rl.training.options import SIDES, default_file, is_self_play, table_paths
from tictactoe_rl.training.rules import Rule


@dataclass
class Run:
    """Everything the training loop needs. In self-play ``opponent`` is the O side's learning
    agent; ``paths`` has one file per learner."""
    learners: list[Learner]
    opponent: Agent
    env: TicTacToe
    paths: list[str]
    epochs: int                   # train up to this episode count
    start: int = 0                # episodes a resumed learner already covered
    label: str = "training"       # the progress bar's title
    curve: LearningCurve | None = None
    plot: str | None = None       # where to draw the curve
    stopped_by: int | None = None  # the signal that stopped the training early, if one did

    @property
    def agents(self) -> list[Agent]:
        """The agents that learn, X first in self-play."""
        return [agent for learner in self.learners for agent in learner.agents]

    @property
    def seats(self) -> tuple[Agent, Agent]:
        """``(X player, O player)`` of the run's games."""
        return seats(self.agents[0], self.opponent)

    @classmethod
    def of_module(cls, player1: AI_Agent, player2, env: TicTacToe, path: str, epochs: int,
                  gamma: float, alpha: float, rule: Rule | None = None) -> "Run":
        """The run that the course's module-level names describe (a learning ``player2`` makes
        it self-play); without ``rule`` the caller's loop does the learning."""
        learners = [TableLearner(agent, rule, gamma, alpha)
                    for agent in learners_of(player1, player2)]
        return cls(learners, player2, env, table_paths(path, len(learners)), epochs,
                   label=f"MC {symbol(player1.player)}")


def learners_of(player1: AI_Agent, player2) -> list[AI_Agent]:
    """The agents that learn in a game of ``player1`` against ``player2``: ``player1``, and in
    self-play also ``player2``."""
    learns = isinstance(player2, AI_Agent) and player2.train
    return [player1, player2] if learns else [player1]


def learner_seed(seed: int | None, role: str) -> str | None:
    """Separate, repeatable random streams for the learner and its opponent from one ``--seed``."""
    return None if seed is None else f"{seed}:{role}"


def learner_side(args: argparse.Namespace) -> int:
    """The side of the (first) learner: X in self-play, else ``--side``."""
    return X if is_self_play(args) else SIDES[args.side]


def make_learner(side: int, env: TicTacToe, seed: int | None, epsilon: str, epochs: int,
                 role: str = "learner") -> AI_Agent:
    """A fresh table agent exploring with the schedule ``epsilon`` over a run of ``epochs``.
    ``role`` names its random stream (the second learner of self-play sits in the opponent's
    seat)."""
    return AI_Agent(side, env, train=True, seed=learner_seed(seed, role), epsilon=epsilon,
                    decay_epochs=Schedule(epsilon).window(epochs))


def make_opponent(spec: str, side: int, env: TicTacToe, seed: int | None):
    """The opponent named by ``spec`` playing ``side``; a Q-table opponent plays greedily."""
    return make_agent(spec, side, env, seed=learner_seed(seed, "opponent"))


def default_path(args: argparse.Namespace, out_name: str) -> str:
    """Where the run saves: ``--out``, else the file it resumes, else ``Data/`` + ``out_name``
    (with the board in its name on a bigger board)."""
    side = "self" if is_self_play(args) else args.side
    return args.out or args.resume or default_file(out_name, side, board_from(args))


def describe_run(algorithm: str, side: str, args: argparse.Namespace, episodes_done: int) -> dict:
    """The record of how a learner was trained, saved inside its file. It holds no clock time, so
    the same seed gives the same file."""
    return {"algorithm": algorithm, "side": side, "opponent": args.opponent,
            "epochs": args.epochs, "episodes_done": episodes_done, "gamma": args.gamma,
            "alpha": args.alpha, "epsilon": args.epsilon, "seed": args.seed}


def check_more_to_do(path: str, done: int, epochs: int) -> int:
    """``done`` if a resumed run still has episodes to go, else ``ValueError``."""
    if done >= epochs:
        raise ValueError(f"{path}: already covers {done:,} episodes; ask for more with --epochs "
                         f"(e.g. --epochs {2 * done})")
    return done


def resume_all(path: str, learners: list[TableLearner], epochs: int, recorded: dict) -> int:
    """Load the tables of ``path`` into ``learners`` (``TableLearner.load``); the episodes they
    already cover. Epsilon goes on along each interrupted run's schedule. Self-play tables that
    record different counts (a run killed between its two saves) resume from the smaller one,
    which both have seen."""
    done = []
    for where, learner in zip(table_paths(path, len(learners)), learners):
        covered, planned = learner.load(where, recorded)
        if planned is not None:
            agent = learner.agent
            agent.decay_epochs = Schedule(agent.epsilon_schedule).window(planned)
        done.append(covered)
    if len(set(done)) > 1:
        print(f"note: the X and O tables of {cli.shown(path)} record {done[0]:,} and {done[1]:,} episodes; "
              f"both go on from {min(done):,}")
    return check_more_to_do(path, min(done), epochs)


def who_learns(args: argparse.Namespace, self_play: str = "X and O by self-play") -> str:
    """``X against random``, or ``self_play``'s words."""
    return self_play if is_self_play(args) else f"{args.side} against {args.opponent}"


def attach_curve(run: Run, args: argparse.Namespace, heading: str) -> None:
    """With ``--plot``, record the run's learning curve under ``heading``."""
    if args.plot:
        run.plot = args.plot
        run.curve = LearningCurve(run.agents, run.agents[0].player, run.start, args.epochs,
                                  heading)


def build_run(algorithm: str, title: str, args: argparse.Namespace, out_name: str,
              rule: Rule | None = None, announce: bool = True, learns: dict | None = None) -> Run:
    """The table run the command line ``args`` asks for, learning by ``rule``; with ``announce``
    print one line that says what will be trained. ``learns``: how its rule learns, recorded in
    its tables (e.g. MC's refinements); a resumed table must record the same. Every file problem
    is found now, not after the training."""
    recorded = {"algorithm": algorithm, **(learns or {})}
    env = TicTacToe(board=board_from(args))
    if env.shape != TIC_TAC_TOE:     # 3x3 tables stay byte for byte what they were
        recorded["board"] = env.shape.name
    side = learner_side(args)
    player1 = make_learner(side, env, args.seed, args.epsilon, args.epochs)
    if is_self_play(args):
        player2 = make_learner(-side, env, args.seed, args.epsilon, args.epochs, role="opponent")
    else:
        player2 = make_opponent(args.opponent, -side, env, args.seed)
    learners = [TableLearner(agent, rule, args.gamma, args.alpha)
                for agent in learners_of(player1, player2)]
    path = default_path(args, out_name)
    run = Run(learners, player2, env, table_paths(path, len(learners)), args.epochs,
              label=f"{algorithm} {symbol(side)}")
    if args.resume:     # first: what is wrong with the file says more than "not a Q-table file"
        run.start = resume_all(args.resume, learners, args.epochs, recorded)
    resumed = table_paths(args.resume, len(learners)) if args.resume else [None] * len(learners)
    for where, learner, resumed_file in zip(run.paths, learners, resumed):
        purpose = Purpose("table", env.shape, (learner.agent.player,))
        check_destination(where, purpose, args.force, check_writable, resumed_file)
    for learner in learners:
        side_name = symbol(learner.agent.player)
        learner.describe(describe_run(algorithm, side_name, args, run.start) | recorded)
    settings = (f"gamma {args.gamma}, alpha {args.alpha}, epsilon {args.epsilon}, "
                f"seed {args.seed}")
    attach_curve(run, args, f"{title}: {who_learns(args)}, {settings}")
    if announce:
        print(f"{title}: {who_learns(args)}, {args.epochs:,} episodes, {settings}")
    return run
