"""A trainer's command line: the flags every trainer takes, its defaults and named presets.

``--opponent self`` (self-play) changes the defaults to the trainer's ``self_play`` preset, a
variant flag such as ``--lecture`` or ``--plain`` to its own, and flags given on the command line
win over both.
"""

from __future__ import annotations

import argparse
import os
import random
from dataclasses import dataclass, field
from tictactoe_rl import cli
from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from tictactoe_rl.boards.flags import add_board_flags
from State import O, X
from tictactoe_rl.exploration.schedules import DEFAULT_SCHEDULE, GEOMETRIC_RATE, SCHEDULES
from tictactoe_rl.tables import destinations
from tictactoe_rl.training.curves import PLOT_FORMATS
from tictactoe_rl.training.registry import trainer_scripts
from tictactoe_rl.training.rules import Rule

SIDES = {"X": X, "O": O}
SELF_PLAY = "self"       # --opponent self: the agent learns both sides against itself
TABLE_SUFFIX = ".pth"


@dataclass(frozen=True)
class Defaults:
    """A trainer's parameters when the command line does not set them."""
    epochs: int
    gamma: float
    alpha: float
    out_name: str            # table file name in Data/, with {side}: "my_Q_SARSA_{side}.pth"
    epsilon: str = DEFAULT_SCHEDULE
    # What changes with --opponent self, e.g. {"alpha": 0.5}: the opponent learns too, so the
    # values go stale faster, and a larger learning rate and more games help.
    self_play: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Variant:
    """A named flag of one trainer (``--lecture``): other defaults, and maybe another update."""
    help: str
    preset: dict = field(default_factory=dict)
    update: Rule | None = None
    meta: dict = field(default_factory=dict)   # recorded in the tables it trains
    out_name: str | None = None   # its own default file, when its tables differ in kind


def default_file(out_name: str, side: str, board: BoardShape = TIC_TAC_TOE) -> str:
    """Where a trainer saves by default: ``Data/`` + ``out_name`` for ``side`` ("X", "O" or
    "self"), in the repository (``cli.own_file``: the current folder when installed). A bigger
    board's file names its board (``my_Q_MC_X_4x4k4.pth``), so it never replaces a 3x3 one."""
    name = out_name.format(side=side)
    if board != TIC_TAC_TOE:
        stem, dot, suffix = name.rpartition(".")
        name = f"{stem}_{board.rows}x{board.cols}k{board.k}{dot}{suffix}"
    return cli.own_file("Data/" + name)


def is_self_play(args: argparse.Namespace) -> bool:
    return args.opponent.strip().lower() == SELF_PLAY


def fresh_seed(seed: int | None) -> int:
    """The given seed, or a new one (printed and recorded, so any run can be repeated)."""
    return seed if seed is not None else random.SystemRandom().randrange(2**32)


PLOT = destinations.Kind(".png", "plot", "picture", "plot")


def plot_path(text: str) -> str:
    """A file name for the learning-curve figure: .png, .pdf or .svg in a writable folder, not a
    folder or a device. Checked when the command line is read, before any training."""
    if not text.lower().endswith(PLOT_FORMATS):
        raise argparse.ArgumentTypeError(f"the plot file must end in {', '.join(PLOT_FORMATS)}, "
                                         f"got {text!r}")
    # as --out: never over a folder or a device, never in a folder made elsewhere
    problem = destinations.target_problem(text, PLOT) or destinations.missing_folder_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(f"{text}: {problem}")
    folder = os.path.dirname(os.path.abspath(text))
    if os.path.isdir(folder) and not os.access(folder, os.W_OK):
        raise argparse.ArgumentTypeError(f"cannot write into the folder of {text!r}")
    return text


def table_paths(path: str, count: int) -> list[str]:
    """Where ``count`` learners are saved: ``[path]`` for one; for the two of self-play, X and O
    tables beside each other: ``t.pth`` (or ``t_X.pth`` or ``t_O.pth``) -> ``t_X.pth``,
    ``t_O.pth``."""
    if count == 1:
        return [path]
    stem = path[:-len(TABLE_SUFFIX)] if path.endswith(TABLE_SUFFIX) else path
    if stem.endswith(("_X", "_O")):
        stem = stem[:-2]
    return [f"{stem}_X{TABLE_SUFFIX}", f"{stem}_O{TABLE_SUFFIX}"]


def add_arguments(parser: cli.Parser, defaults: Defaults, noun: str = "table",
                  window: str = "the first half of the episodes") -> None:
    """The flags every trainer takes, with this trainer's defaults; ``noun``: what it saves,
    ``window``: what its epsilon falls over. The network's trainer adds its own flags."""
    epochs, out = defaults.epochs, default_file(defaults.out_name, "X")
    parser.add_argument("--side", choices=sorted(SIDES), default="X",
                        help="the side the agent learns to play (default: X)")
    parser.add_argument("--opponent", default="random", metavar="SPEC",
                        help="who it learns against: an agent spec (random, advanced, minimax, "
                             "playout, mcts, a Q-table path, a network dqn:PATH) or self "
                             "(self-play: it learns X and O at once) (default: random)")
    parser.add_argument("--epochs", type=cli.count, default=epochs,
                        help=f"training episodes (default: {epochs:,})")
    parser.add_argument("--gamma", type=cli.unit_interval, default=defaults.gamma,
                        help=f"discount factor (default: {defaults.gamma})")
    parser.add_argument("--alpha", type=cli.unit_interval, default=defaults.alpha,
                        help=f"learning rate (default: {defaults.alpha})")
    parser.add_argument("--epsilon", choices=SCHEDULES, default=defaults.epsilon,
                        help=f"exploration schedule: linear 1.0 -> 0.01 over {window}, "
                             "exp(onential) decay towards 0.01, or geometric (the lecture's: "
                             f"times {GEOMETRIC_RATE} after every episode) "
                             f"(default: {defaults.epsilon})")
    parser.add_argument("--seed", type=cli.seed, default=None,
                        help=f"random seed; the same seed gives the same {noun}, bit for bit "
                             "(default: a fresh one, printed)")
    parser.add_argument("--out", type=cli.path, default=None, metavar="PATH",
                        help=f"where to save the {noun} (default: {out} for X, likewise for "
                             "O)")
    parser.add_argument("--force", action="store_true",
                        help=f"let --out replace an existing file that is not a {noun} of this "
                             "run's board and side, or a table shipped with the course (the "
                             "previous file is kept as PATH.bak, as always)")
    parser.add_argument("--resume", type=cli.path, default=None, metavar="PATH",
                        help=f"continue a {noun} saved by an earlier (e.g. interrupted) run, "
                             "with its episode count, so epsilon goes on where it stopped (saved "
                             "back to PATH unless --out says otherwise)")
    add_board_flags(parser)
    parser.add_argument("--plot", type=plot_path, default=None, metavar="PATH.png",
                        help="draw the learning curves into this file: outcomes per bin of "
                             "episodes, epsilon, and exact results against random and advanced "
                             "over time")


def flag_text(value) -> str:
    """A default as it is typed: ``64,64`` for layer sizes, ``0.5`` for a rate, ``10000``."""
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def build_parser(prog: str, description: str, defaults: Defaults, self_play_saves: str,
                 noun: str = "table", window: str = "the first half of the episodes") -> cli.Parser:
    """A trainer's parser with the flags every trainer takes; its epilog says what
    ``--opponent self`` saves (``self_play_saves``) and with which defaults, and names the
    table trainers (``tictactoe_rl.training.registry``)."""
    epilog = f"--opponent self {self_play_saves}"
    if defaults.self_play:
        epilog += "; its defaults are " + ", ".join(
            f"--{key.replace('_', '-')} {flag_text(value)}"
            for key, value in defaults.self_play.items())
    epilog += ". The table trainers: " + ", ".join(trainer_scripts()) + "."
    parser = cli.Parser(prog=prog, description=description, epilog=epilog)
    add_arguments(parser, defaults, noun, window)
    return parser


def parse_arguments(prog: str, description: str, defaults: Defaults, argv: list[str] | None,
                    variants: dict[str, Variant] | None = None) -> argparse.Namespace:
    """Read a table trainer's command line (see the module's doc for how presets combine). A
    missing ``--seed`` becomes a fresh one, so every run can be repeated."""
    variants = variants or {}
    pair = table_paths(default_file(defaults.out_name, "self"), 2)
    parser = build_parser(prog, description, defaults, f"saves {pair[0]} and {pair[1]} (with "
                                                       "--out PATH: PATH with _X and _O added)")
    for flag, variant in variants.items():
        parser.add_argument(f"--{flag}", action="store_true", help=variant.help)
    return parse_with_presets(parser, argv, defaults.self_play, variants)


def parse_with_presets(parser: cli.Parser, argv: list[str] | None, self_play: dict,
                       variants: dict[str, Variant] | None = None) -> argparse.Namespace:
    """Parse ``argv`` after applying the presets it asks for: ``self_play``'s defaults with
    ``--opponent self``, a variant's with its flag (flags given still win). A missing ``--seed``
    becomes a fresh one."""
    chosen = parser.parse_known_args(argv)[0]   # first pass: which presets apply
    if is_self_play(chosen):
        parser.set_defaults(**self_play)
    for flag, variant in (variants or {}).items():
        if getattr(chosen, flag):
            parser.set_defaults(**variant.preset)
    args = parser.parse_args(argv)
    args.seed = fresh_seed(args.seed)
    return args


def chosen_variant(args: argparse.Namespace, variants: dict[str, Variant]) -> Variant | None:
    """The variant whose flag ``args`` sets, if any."""
    return next((variant for flag, variant in variants.items() if getattr(args, flag)), None)
