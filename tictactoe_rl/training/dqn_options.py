"""The network trainer's own flags (``DQN_Trainer.py``), beside the flags every trainer takes
(``tictactoe_rl.training.options``): the network's shape and how it learns."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass

from tictactoe_rl import cli
from tictactoe_rl.neural.sizes import MAX_LAYERS, MAX_WIDTH, hidden_problem
from tictactoe_rl.training.options import Defaults, build_parser, default_file, parse_with_presets

DEVICES = ("cpu", "cuda", "auto")


@dataclass(frozen=True, kw_only=True)
class NetworkDefaults(Defaults):
    """DQN_Trainer's parameters when the command line does not set them; ``alpha`` is Adam's
    learning rate at the start."""
    final_alpha: float        # ... falling linearly to this at the last episode
    hidden: tuple[int, ...]
    batch: int
    memory: int
    sync: int
    steps_per_update: int
    epsilon_span: float       # epsilon's decay window, in runs: 2.0 = twice the run's episodes


def hidden_sizes(text: str) -> tuple[int, ...]:
    """Hidden layer sizes written as ``64,64`` (ASCII digits: ``int`` would take others too);
    the message names the rule broken."""
    parts = text.split(",")
    if all(part.isascii() and part.isdigit() for part in parts):
        problem = hidden_problem(tuple(int(part) for part in parts))
    else:
        problem = "write whole numbers in digits 0-9, separated by commas"
    if problem:
        raise argparse.ArgumentTypeError(f"expected 1 to {MAX_LAYERS} layer sizes like 64,64, "
                                         f"each at most {MAX_WIDTH:,}, got {text!r:.60}: "
                                         f"{problem}")
    return tuple(int(part) for part in parts)


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


def add_network_flags(parser: cli.Parser, defaults: NetworkDefaults) -> None:
    """The flags of the network and its learning."""
    add = parser.add_argument
    add("--final-alpha", type=cli.unit_interval, default=defaults.final_alpha,
        help="Adam's learning rate at the last episode; it falls linearly from --alpha "
             f"(default: {defaults.final_alpha})")
    add("--epsilon-span", type=span, default=defaults.epsilon_span, metavar="RUNS",
        help="how long epsilon takes to fall, in runs of --epochs episodes: 0.5 = over the first "
             "half (as the table trainers), 2 = over twice the run, so a linear epsilon ends at "
             f"0.5 (default: {defaults.epsilon_span:g})")
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
             f"{defaults.steps_per_update}; a game against an opponent has about four)")
    add("--keep", choices=("best", "last"), default="best",
        help="the network the run ends with: best, the average of the networks checked "
             "exactly over the run's second half, or the best of them where it is better (on "
             "3x3: the same target on every processor, see docs/ALGORITHMS.md); last, the last "
             "network (default: best)")
    add("--device", choices=DEVICES, default="cpu",
        help="where the network computes: cpu, cuda, or auto (cuda when there is one) "
             "(default: cpu; a network this small is fastest there, and only there does "
             "--seed give the same network bit for bit)")
    add("--threads", type=threads, default=1,
        help="CPU threads for torch (default: 1; small batches run fastest on one)")


def parse_network_arguments(prog: str, description: str, defaults: NetworkDefaults,
                            argv: list[str] | None) -> argparse.Namespace:
    """Read the network trainer's command line: every trainer's flags and the network's;
    ``--opponent self`` changes the defaults to ``defaults.self_play`` (flags given still win);
    a missing ``--seed`` becomes a fresh one (printed and saved); a ``--memory`` below
    ``--batch`` is refused. Nothing here imports torch."""
    saves = (f"trains one network that plays X and O, saved as "
             f"{default_file(defaults.out_name, 'self')}")
    parser = build_parser(prog, description, defaults, saves, noun="network",
                          window="--epsilon-span runs")
    add_network_flags(parser, defaults)
    args = parse_with_presets(parser, argv, defaults.self_play)
    if args.memory < args.batch:    # the memory would never hold a batch: not one step, ever
        parser.error(f"--memory {args.memory:,} is smaller than --batch {args.batch:,}: the "
                     "network takes its first step once the memory holds a whole batch, so it "
                     f"would never learn; give --memory at least {args.batch:,}")
    return args
