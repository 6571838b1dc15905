"""DQN_Trainer.py's command line, and the run it asks for.

The flags are the other trainers' (``--side``, ``--opponent`` with ``self``, ``--epochs``,
``--gamma``, ``--alpha``, ``--epsilon``, ``--seed``, ``--out``, ``--resume``, ``--plot``) plus
the network's own (``--hidden``, ``--batch``, ``--memory``, ``--sync``, ``--steps-per-update``,
``--device``, ``--threads``). ``build_run`` turns them into a ``DQN_Run``: fresh or resumed
network, learners, opponent, file name and learning curve, every file problem found before
training.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field

import cli
from exploration.schedules import SCHEDULES, Schedule
from State import X, symbol
from TicTacToe import TicTacToe
from training.curves import Learning_Curve
from training.options import SIDES, is_self_play, parse_with_presets, plot_path
from training.run import learner_seed, make_opponent
from neural.agent import DQN_Agent
from neural.files import check_writable, load_network
from neural.learner import DQN_Learner
from neural.loop import DQN_Run
from neural.network import MAX_LAYERS, Q_Network
from neural.replay import Replay

DEVICES = ("cpu", "cuda", "auto")


@dataclass(frozen=True)
class DQN_Defaults:
    """DQN_Trainer's parameters when the command line does not set them."""
    epochs: int
    gamma: float
    alpha: float              # Adam's learning rate at the start ...
    final_alpha: float        # ... falling linearly to this at the last episode
    hidden: tuple[int, ...]
    batch: int
    memory: int
    sync: int
    steps_per_update: int
    epsilon: str
    epsilon_span: float       # epsilon's decay window, in runs: 2.0 = twice the run's games
    out_name: str             # file name in Data/, with {side}: X, O or self
    # What changes with --opponent self, e.g. {"final_alpha": 0.001}; flags given still win.
    self_play: dict = field(default_factory=dict)


def hidden_sizes(text: str) -> tuple[int, ...]:
    """Hidden layer sizes written as ``64,64`` (ASCII digits: ``int`` would take others too)."""
    try:
        parts = text.split(",")
        if not all(part.isascii() and part.isdigit() for part in parts):
            raise ValueError(text)
        sizes = tuple(int(part) for part in parts)
        Q_Network(sizes)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 1 to {MAX_LAYERS} layer sizes like 64,64, "
                                         f"got {text!r}") from None
    return sizes


def threads(text: str) -> int:
    """A number of CPU threads, at most the CPUs this process may use (torch crashes on far
    more)."""
    available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        os.cpu_count() or 1
    value = cli.count(text)
    if value > available:
        raise argparse.ArgumentTypeError(f"must be between 1 and {available} (the CPUs this "
                                         f"process may use), got {value}")
    return value


def span(text: str) -> float:
    """A number of runs from 0.01 to 100."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.01 <= value <= 100:
        raise argparse.ArgumentTypeError(f"must be between 0.01 and 100, got {text}")
    return value


def flag_text(value) -> str:
    """A default as it is typed: ``64,64`` for layer sizes, ``10000`` for a count."""
    return ",".join(map(str, value)) if isinstance(value, tuple) else f"{value:g}" \
        if isinstance(value, float) else str(value)


def build_parser(prog: str, description: str, defaults: DQN_Defaults) -> cli.Parser:
    presets = ", ".join(f"--{key.replace('_', '-')} {flag_text(value)}"
                        for key, value in defaults.self_play.items())
    parser = cli.Parser(prog=prog, description=description,
                        epilog=f"--opponent self trains one network that plays X and O, saved "
                               f"as Data/{defaults.out_name.format(side='self')}"
                               + (f"; its defaults are {presets}." if presets else "."))
    add_trainer_flags(parser, defaults)
    add_network_flags(parser, defaults)
    return parser


def add_trainer_flags(parser: cli.Parser, defaults: DQN_Defaults) -> None:
    """The flags every trainer takes (the table trainers' names), with DQN's defaults."""
    add = parser.add_argument
    add("--side", choices=sorted(SIDES), default="X",
        help="the side the network learns to play (default: X)")
    add("--opponent", default="random", metavar="SPEC",
        help="who it learns against: random, advanced, minimax, playout, mcts, a Q-table path, "
             "a network (dqn:PATH), or self (self-play: one network learns X and O at once) "
             "(default: random)")
    add("--epochs", type=cli.count, default=defaults.epochs,
        help=f"training games (default: {defaults.epochs:,})")
    add("--gamma", type=cli.unit_interval, default=defaults.gamma,
        help=f"discount factor (default: {defaults.gamma})")
    add("--alpha", type=cli.unit_interval, default=defaults.alpha,
        help=f"Adam's learning rate at the first game (default: {defaults.alpha})")
    add("--final-alpha", type=cli.unit_interval, default=defaults.final_alpha,
        help="Adam's learning rate at the last game; it falls linearly from --alpha "
             f"(default: {defaults.final_alpha})")
    add("--epsilon", choices=SCHEDULES, default=defaults.epsilon,
        help="exploration schedule: linear from 1.0 towards 0.01, exp(onential) decay towards "
             f"0.01, or geometric (times 0.9999 per game) (default: {defaults.epsilon})")
    add("--epsilon-span", type=span, default=defaults.epsilon_span, metavar="RUNS",
        help="how long epsilon takes to fall, in runs of --epochs games: 0.5 = over the first "
             "half (as the table trainers), 2 = over twice the run, so a linear epsilon ends at "
             f"0.5 (default: {defaults.epsilon_span:g})")
    add("--seed", type=cli.seed, default=None,
        help="random seed; on the CPU the same seed gives the same weights, bit for bit "
             "(default: a fresh one, printed)")
    add("--out", type=cli.path, default=None, metavar="PATH",
        help=f"where to save the network (default: Data/{defaults.out_name.format(side='X')} "
             "for X, likewise for O and self)")
    add("--force", action="store_true",
        help="let --out replace an existing file that is not a network")
    add("--resume", type=cli.path, default=None, metavar="PATH",
        help="continue a network saved by an earlier (e.g. interrupted) run: its weights, Adam's "
             "state and game count, so epsilon and the learning rate go on where they stopped; "
             "the replay memory starts empty (saved back to PATH unless --out says otherwise)")
    add("--plot", type=plot_path, default=None, metavar="PATH.png",
        help="draw the learning curves into this file: outcomes per bin of games, epsilon, and "
             "exact results against random and advanced over time")


def add_network_flags(parser: cli.Parser, defaults: DQN_Defaults) -> None:
    """The flags of the network and its learning."""
    add = parser.add_argument
    add("--hidden", type=hidden_sizes, default=defaults.hidden, metavar="N,N",
        help=f"hidden layer sizes (default: {','.join(map(str, defaults.hidden))})")
    add("--batch", type=cli.count, default=defaults.batch,
        help=f"transitions per optimiser step (default: {defaults.batch})")
    add("--memory", type=cli.count, default=defaults.memory,
        help=f"transitions the replay memory holds (default: {defaults.memory:,})")
    add("--sync", type=cli.count, default=defaults.sync,
        help=f"optimiser steps between copies into the target network (default: {defaults.sync})")
    add("--steps-per-update", type=cli.count, default=defaults.steps_per_update,
        help="new learning steps per optimiser step (default: "
             f"{defaults.steps_per_update}: about one per game against an opponent)")
    add("--device", choices=DEVICES, default="cpu",
        help="where the network computes: cpu, cuda, or auto (cuda when there is one) "
             "(default: cpu; a network this small is fastest there)")
    add("--threads", type=threads, default=1,
        help="CPU threads for torch (default: 1; small batches run fastest on one)")


def parse_arguments(prog: str, description: str, defaults: DQN_Defaults,
                    argv: list[str] | None) -> argparse.Namespace:
    """Read the command line: ``--opponent self`` changes the defaults to
    ``defaults.self_play`` (flags given still win); a missing ``--seed`` becomes a fresh one
    (printed and saved)."""
    return parse_with_presets(build_parser(prog, description, defaults), argv, defaults.self_play)


def pick_device(choice: str) -> str:
    """``cpu`` or ``cuda`` for the ``--device`` choice; ``ValueError`` if cuda is missing."""
    import torch

    if choice == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if choice == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda: torch finds no CUDA device here; use --device cpu")
    return choice


def describe_run(args: argparse.Namespace, sides: tuple[int, ...], device: str, schedule: int,
                 decay: int) -> dict:
    """How the network was trained, saved inside its file (no clock time: the same seed gives the
    same weights). ``schedule``: the games alpha falls over; ``decay``: the games epsilon falls
    over."""
    return {"algorithm": "DQN", "side": "".join(symbol(s) for s in sides),
            "opponent": args.opponent, "epochs": args.epochs, "gamma": args.gamma,
            "alpha": args.alpha, "final_alpha": args.final_alpha, "epsilon": args.epsilon,
            "schedule_games": schedule, "epsilon_decay_games": decay,
            "seed": args.seed, "hidden": ",".join(map(str, args.hidden)), "batch": args.batch,
            "memory": args.memory, "sync": args.sync, "steps_per_update": args.steps_per_update,
            "device": device}


def resumed(path: str, args: argparse.Namespace, sides: tuple[int, ...]) -> tuple:
    """``(network, Adam's state, games done, (games planned, epsilon's decay games))`` of the
    file ``--resume`` names, checked against this run: the schedules go on as they began."""
    saved = load_network(path)
    done, planned, decay = (saved.meta.get(key) for key in
                            ("episodes_done", "schedule_games", "epsilon_decay_games"))
    if saved.sides != sides:
        raise ValueError(f"{path}: plays {''.join(symbol(s) for s in saved.sides)}, this run "
                         f"trains {''.join(symbol(s) for s in sides)}; give the same --side and "
                         "--opponent")
    if not all(isinstance(n, int) and n >= 0 for n in (done, planned, decay)) \
            or saved.optimizer is None:
        raise ValueError(f"{path}: records no game count or optimiser state, so it cannot be "
                         "resumed; start afresh")
    if saved.network.hidden != tuple(args.hidden):
        raise ValueError(f"{path}: has hidden layers {','.join(map(str, saved.network.hidden))}; "
                         "resume it with the same --hidden")
    if saved.meta.get("epsilon") != args.epsilon:
        raise ValueError(f"{path}: was trained with --epsilon {saved.meta.get('epsilon')}; resume "
                         "it with the same --epsilon")
    if done >= args.epochs:
        raise ValueError(f"{path}: already covers {done:,} games; ask for more with --epochs "
                         f"(e.g. --epochs {2 * done})")
    return saved.network, saved.optimizer, done, (planned, decay)


def build_run(args: argparse.Namespace, defaults: DQN_Defaults, title: str) -> DQN_Run:
    """The run ``args`` asks for; prints one line that says what will be trained."""
    import torch

    self_play = is_self_play(args)
    side = X if self_play else SIDES[args.side]
    sides = (side, -side) if self_play else (side,)
    device = pick_device(args.device)
    path = args.out or args.resume or cli.repository_file(
        "Data/" + defaults.out_name.format(side="self" if self_play else args.side))
    if args.resume:     # first: what is wrong with the file says more than "not a network"
        network, optimizer, start, (schedule, decay) = resumed(args.resume, args, sides)
    check_writable(path, force=args.force)
    if not args.resume:
        decay = Schedule(args.epsilon, span=args.epsilon_span).window(args.epochs)
        optimizer, start, schedule = None, 0, args.epochs
        with torch.random.fork_rng(devices=[]):    # seeds the weights, leaves torch's RNG be
            torch.manual_seed(args.seed)
            network = Q_Network(args.hidden)
    network.to(device)
    env = TicTacToe()
    learners = [DQN_Agent(s, env, network=network, train=True, epsilon=args.epsilon,
                          decay_epochs=decay, seed=learner_seed(args.seed, role))
                for s, role in zip(sides, ("learner", "opponent"))]
    opponent = learners[1] if self_play else make_opponent(args.opponent, -side, env, args.seed)
    replay = Replay(args.memory, args.seed, device)
    learner = DQN_Learner(network, replay, args.gamma, args.alpha, args.batch,
                          args.steps_per_update, args.sync, optimizer)
    who = "X and O by self-play (one network)" if self_play else \
        f"{args.side} against {args.opponent}"
    settings = (f"gamma {args.gamma}, alpha {args.alpha} -> {args.final_alpha:g}, epsilon "
                f"{args.epsilon}, hidden {','.join(map(str, args.hidden))}, seed {args.seed}")
    curve = Learning_Curve(learners, side, start, args.epochs, f"{title}: {who}, {settings}") \
        if args.plot else None
    print(f"{title}: {who}, {args.epochs:,} games, {settings}, on {device}")
    meta = describe_run(args, sides, device, schedule, decay)
    return DQN_Run(learners, opponent, learner, env, path, args.epochs, schedule, args.alpha,
                   args.final_alpha, meta, start=start,
                   label=f"DQN {''.join(symbol(s) for s in sides)}", curve=curve, plot=args.plot)
