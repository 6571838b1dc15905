"""What every trainer shares: players, the command line, the training loop with its progress bar,
Ctrl-C handling, saving, learning curves, and the exact report at the end.

A trainer file (``MC_Trainer.py``, ``SARSA_Trainer.py``, ``Q_Trainer.py``) only says how one
episode updates the Q-table and which parameters it uses by default; this module plays the games
and runs that update ``epochs`` times.

The update rule of every trainer has the same shape, ``update(Q, episode, side, gamma, alpha)``:
``episode`` is the learner's list of learning steps ``(state, action, reward)`` ending with the
final position as ``(final,)`` (``Episode.learning_steps``), rewards are X's (``side`` = -1 negates
them), and the rule changes ``Q`` in place.

``--opponent self`` is self-play: one agent learns both sides from the same games, keeping an X
table and an O table (a table always plays one side), saved side by side as ``..._X.pth`` and
``..._O.pth``.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import time
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

from tqdm import tqdm

import cli
from AI_Agent import EPSILON_SCHEDULES, AI_Agent
from players.specs import make_agent
from Episode import learning_steps, play_game
from training.curves import PLOT_FORMATS, Learning_Curve, exact_results
from tables.files import check_writable, load_table
from exact.solver import worst_case
from State import DRAW, O, X, X_WON, State, symbol
from TicTacToe import TicTacToe

SIDES = {"X": X, "O": O}
SELF_PLAY = "self"       # --opponent self: the agent learns both sides against itself
# The lecture's schedule: epsilon starts at 1.0 and is multiplied by this after every game.
GEOMETRIC_RATE = 0.9999
EPSILON_CHOICES = EPSILON_SCHEDULES + ("geometric",)
TABLE_SUFFIX = ".pth"
# The progress bar and the recent win/loss/draw figures are refreshed once per this many episodes.
REPORT_EVERY = 1_000

Update = Callable[[dict, list, int, float, float], None]   # update(Q, episode, side, gamma, alpha)


@dataclass(frozen=True)
class Defaults:
    """A trainer's parameters when the command line does not set them."""
    epochs: int
    gamma: float
    alpha: float
    out_name: str            # table file name in Data/, with {side}: "my_Q_SARSA_{side}.pth"
    epsilon: str = "linear"
    # What changes with --opponent self, e.g. {"alpha": 0.5}: the opponent learns too, so the
    # values go stale faster, and a larger learning rate and more games help.
    self_play: dict = field(default_factory=dict)


class Setup(NamedTuple):
    """The players and files of one training run, as the command line chose them."""
    player1: AI_Agent        # the learner (X in self-play)
    player2: object          # its opponent, part of the environment; in self-play the O learner
    path: str                # where player1 is saved; in self-play the name that table_paths
                             # turns into the X and the O table
    start: int               # episodes already done by a resumed table
    curve: Learning_Curve | None


class Geometric_Learner(AI_Agent):
    """A learner with the lecture's exploration: epsilon = 0.9999 ** epoch (1.0 at the first game,
    multiplied by ``GEOMETRIC_RATE`` after every game)."""

    def __init__(self, player: int, env: TicTacToe, seed: str | None) -> None:
        super().__init__(player, env, train=True, seed=seed)
        self.epsilon_schedule = "geometric"

    def epsilon_greedy(self, epoch: int) -> float:
        """``GEOMETRIC_RATE ** epoch``."""
        return GEOMETRIC_RATE ** epoch


def learner_seed(seed: int | None, role: str) -> str | None:
    """Separate, repeatable random streams for the learner and its opponent from one ``--seed``."""
    return None if seed is None else f"{seed}:{role}"


def plot_path(text: str) -> str:
    """A file name for the learning-curve figure: .png, .pdf or .svg in a writable folder."""
    if not text.lower().endswith(PLOT_FORMATS):
        raise argparse.ArgumentTypeError(f"the plot file must end in {', '.join(PLOT_FORMATS)}, "
                                         f"got {text!r}")
    folder = os.path.dirname(os.path.abspath(text))
    if os.path.isdir(folder) and not os.access(folder, os.W_OK):
        raise argparse.ArgumentTypeError(f"cannot write into the folder of {text!r}")
    return text


def add_arguments(parser: cli.Parser, epochs: int, gamma: float, alpha: float,
                  out_name: str, epsilon: str = "linear") -> None:
    """The flags every trainer takes, with this trainer's defaults."""
    parser.add_argument("--side", choices=sorted(SIDES), default="X",
                        help="the side the agent learns to play (default: X)")
    parser.add_argument("--opponent", default="random", metavar="SPEC",
                        help="who it learns against: random, advanced, minimax, playout, mcts, a "
                             "Q-table path, or self (self-play: it learns X and O at once and "
                             "saves a table for each) (default: random)")
    parser.add_argument("--epochs", type=cli.count, default=epochs,
                        help=f"training episodes (default: {epochs:,})")
    parser.add_argument("--gamma", type=cli.unit_interval, default=gamma,
                        help=f"discount factor (default: {gamma})")
    parser.add_argument("--alpha", type=cli.unit_interval, default=alpha,
                        help=f"learning rate (default: {alpha})")
    parser.add_argument("--epsilon", choices=EPSILON_CHOICES, default=epsilon,
                        help="exploration schedule: linear 1.0 -> 0.01 over the first half of the "
                             "episodes, exp(onential) decay towards 0.01, or geometric (the "
                             f"lecture's: times {GEOMETRIC_RATE} after every game) "
                             f"(default: {epsilon})")
    parser.add_argument("--seed", type=cli.seed, default=None,
                        help="random seed; the same seed gives the same table, bit for bit "
                             "(default: a fresh one, printed)")
    parser.add_argument("--out", type=cli.path, default=None, metavar="PATH",
                        help=f"where to save the table (default: Data/{out_name.format(side='X')} "
                             "for X, likewise for O)")
    parser.add_argument("--resume", type=cli.path, default=None, metavar="PATH",
                        help="continue from a table saved by an earlier (e.g. interrupted) run: "
                             "its Q-values, episode counter and epsilon schedule, so epsilon goes "
                             "on where it stopped (saved back to PATH unless --out says otherwise)")
    parser.add_argument("--plot", type=plot_path, default=None, metavar="PATH.png",
                        help="draw the learning curves into this file: outcomes per bin of games, "
                             "epsilon, and exact results against random and advanced over time")


def parse_arguments(prog: str, description: str, defaults: Defaults, argv: list[str] | None,
                    variants: dict[str, tuple[str, dict]] | None = None) -> argparse.Namespace:
    """Read a trainer's command line. ``variants`` are named presets, e.g. ``{"lecture": (help,
    {"alpha": 0.2, ...})}``: the flag ``--lecture`` changes those defaults; ``--opponent self``
    changes them to ``defaults.self_play`` (a variant wins over that, and flags given on the
    command line win over both). A missing ``--seed`` becomes a fresh one, so every run can be
    repeated."""
    pair = table_paths("Data/" + defaults.out_name.format(side="self"), 2)
    epilog = (f"--opponent self saves {pair[0]} and {pair[1]} (with --out PATH: PATH with _X and "
              "_O added)")
    if defaults.self_play:
        epilog += "; its defaults are " + ", ".join(
            f"--{key} {value}" for key, value in defaults.self_play.items())
    epilog += "."
    parser = cli.Parser(prog=prog, description=description, epilog=epilog)
    add_arguments(parser, defaults.epochs, defaults.gamma, defaults.alpha, defaults.out_name,
                  defaults.epsilon)
    for flag, (help_text, _) in (variants or {}).items():
        parser.add_argument(f"--{flag}", action="store_true", help=help_text)
    chosen = vars(parser.parse_known_args(argv)[0])
    if chosen["opponent"].strip().lower() == SELF_PLAY:
        parser.set_defaults(**defaults.self_play)
    for flag, (_, preset) in (variants or {}).items():
        if chosen[flag]:
            parser.set_defaults(**preset)
    args = parser.parse_args(argv)
    args.seed = fresh_seed(args.seed)
    return args


def make_learner(side: int, env: TicTacToe, seed: int | None, epsilon: str,
                 epochs: int, role: str = "learner") -> AI_Agent:
    """A fresh learner whose epsilon decays over the first half of ``epochs`` (the course's
    100,000 of 200,000), or geometrically (``epsilon="geometric"``). ``role`` names its random
    stream (the second learner of self-play sits in the opponent's seat)."""
    if epsilon == "geometric":
        return Geometric_Learner(side, env, learner_seed(seed, role))
    return AI_Agent(side, env, train=True, seed=learner_seed(seed, role), epsilon=epsilon,
                    decay_epochs=max(1, epochs // 2))


def make_opponent(spec: str, side: int, env: TicTacToe, seed: int | None):
    """The opponent named by ``spec`` playing ``side``; a Q-table opponent plays greedily."""
    return make_agent(spec, side, env, seed=learner_seed(seed, "opponent"))


def resume_from(path: str, learner: AI_Agent) -> int:
    """Load ``path`` into ``learner``; return the number of episodes it already covered."""
    Q, _, meta = load_table(path, side=learner.player)
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
        learner.decay_epochs = max(1, planned // 2)
    learner.Q = Q
    return done


def learners_of(player1: AI_Agent, player2) -> list[AI_Agent]:
    """The agents that learn in a game of ``player1`` against ``player2``: ``player1``, and in
    self-play also ``player2``."""
    learns = isinstance(player2, AI_Agent) and player2.train
    return [player1, player2] if learns else [player1]


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


def setup(algorithm: str, title: str, args: argparse.Namespace, env: TicTacToe,
          out_name: str, announce: bool = True) -> Setup:
    """Build the players, file names, resumed tables and learning curve the command line asks
    for, and (with ``announce``) print one line that says what will be trained."""
    self_play = args.opponent.strip().lower() == SELF_PLAY
    side = X if self_play else SIDES[args.side]
    player1 = make_learner(side, env, args.seed, args.epsilon, args.epochs)
    if self_play:
        player2 = make_learner(-side, env, args.seed, args.epsilon, args.epochs, role="opponent")
    else:
        player2 = make_opponent(args.opponent, -side, env, args.seed)
    learners = learners_of(player1, player2)
    path = args.out or args.resume or \
        "Data/" + out_name.format(side="self" if self_play else args.side)
    for where in table_paths(path, len(learners)):
        check_writable(where)  # now, not after the training
    start = 0
    if args.resume:
        done = {resume_from(where, agent)
                for where, agent in zip(table_paths(args.resume, len(learners)), learners)}
        if len(done) > 1:
            raise ValueError(f"{args.resume}: the X and O tables record different episode "
                             "counts, so they cannot be resumed together")
        start = done.pop()
        if start >= args.epochs:
            raise ValueError(f"{args.resume}: already covers {start:,} episodes; ask for more "
                             f"with --epochs (e.g. --epochs {2 * start})")
    for agent in learners:
        agent.meta = describe_run(algorithm, agent.player, args, start)
    who = "X and O by self-play" if self_play else f"{args.side} against {args.opponent}"
    curve = None
    if args.plot:
        curve = Learning_Curve(learners, side, start, args.epochs,
                               f"{title}: {who}, alpha {args.alpha}, gamma {args.gamma}, "
                               f"epsilon {args.epsilon}, seed {args.seed}")
    if announce:
        print(f"{title}: {who}, {args.epochs:,} episodes, gamma {args.gamma}, alpha {args.alpha}, "
              f"epsilon {args.epsilon}, seed {args.seed}")
    return Setup(player1, player2, path, start, curve)


def learner_episodes(player1: AI_Agent, player2, env: TicTacToe,
                     epoch: int) -> list[list[tuple]]:
    """Play one game of ``player1`` against ``player2`` (learners explore with the epsilon of
    ``epoch``); return the episode of each learner (one, or X's and O's in self-play), each as
    ``Episode.learning_steps``: ending with the final position as ``(final,)``."""
    x_agent, o_agent = (player1, player2) if player1.player == X else (player2, player1)
    moves, final = play_game(x_agent, o_agent, env, epoch=epoch)
    return [learning_steps(moves, final, agent.player)
            for agent in learners_of(player1, player2)]


def outcome_for(side: int, final: State) -> str:
    """'win', 'loss' or 'draw' for ``side`` in the finished position ``final``."""
    if final.end_of_game == DRAW:
        return "draw"
    return "win" if (final.end_of_game == X_WON) == (side == X) else "loss"


class _StopRequest:
    """Turns the first Ctrl-C into a request to stop after the current episode."""

    def __init__(self) -> None:
        self.requested = False
        self.previous = None

    def __enter__(self) -> "_StopRequest":
        try:
            self.previous = signal.signal(signal.SIGINT, self._handle)
        except ValueError:  # not the main thread: Ctrl-C cannot reach us anyway
            self.previous = None
        return self

    def _handle(self, signum, frame) -> None:
        self.requested = True
        signal.signal(signal.SIGINT, signal.default_int_handler)  # a second Ctrl-C aborts

    def __exit__(self, *exc) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


def run_episodes(learn: Callable[[int], State], side: int, start: int, epochs: int,
                 description: str, on_episode: Callable[[int, State], None] | None = None,
                 show_progress: bool = True) -> tuple[int, bool]:
    """Call ``learn(epoch)`` for ``epoch`` in ``start .. epochs-1``; each returns the episode's
    final position. A progress bar shows the share of wins, losses and draws over the last
    ``REPORT_EVERY`` episodes. Ctrl-C stops after the current episode.

    Returns ``(episodes done in total, whether it was interrupted)``.
    """
    counts = {"win": 0, "loss": 0, "draw": 0}
    epoch = start
    with _StopRequest() as stop, tqdm(total=epochs, initial=start, desc=description,
                                      unit="ep", disable=not show_progress,
                                      mininterval=0.5) as bar:
        while epoch < epochs and not stop.requested:
            final = learn(epoch)
            counts[outcome_for(side, final)] += 1
            if on_episode is not None:
                on_episode(epoch, final)
            epoch += 1
            if epoch % REPORT_EVERY == 0 or epoch == epochs:
                done = sum(counts.values())
                bar.set_postfix_str(" ".join(f"{k} {100 * v / done:.0f}%" for k, v in counts.items()),
                                    refresh=False)
                bar.update(done)
                counts = dict.fromkeys(counts, 0)
        return epoch, stop.requested


def train_loop(learn: Callable[[int], State], learners: list[AI_Agent], path: str, start: int,
               epochs: int, description: str, curve: Learning_Curve | None = None,
               plot: str | None = None) -> bool:
    """Run ``learn`` for the episodes ``start .. epochs-1`` (``run_episodes``), then save every
    learner (``table_paths(path, ...)``) with its episode count and training seconds, and draw
    the learning curves into ``plot``. Prints the speed and where everything went.

    Returns False when Ctrl-C stopped the training early (what was learned is saved all the same).
    """
    started = time.perf_counter()
    done, interrupted = run_episodes(learn, learners[0].player, start, epochs, description,
                                     on_episode=curve.record if curve is not None else None)
    seconds = time.perf_counter() - started
    paths = table_paths(path, len(learners))
    for agent, where in zip(learners, paths):
        agent.meta["episodes_done"] = done
        agent.meta["train_seconds"] = round(seconds, 3)
        agent.save_Q(where)
    print(f"Trained {done - start:,} episodes in {seconds:.1f} s "
          f"({(done - start) / max(seconds, 1e-9):,.0f} episodes/s)")
    names = " and ".join(paths)
    if interrupted:
        print(f"Interrupted: saved {done:,} of {epochs:,} episodes to {names} "
              f"(continue with --resume {path} --epochs {epochs})")
    else:
        print(f"Saved the table{'s' if len(paths) > 1 else ''} to {names}")
    if curve is not None and plot:
        curve.evaluate(done)
        curve.save(plot)
        print(f"Saved the learning curves to {plot}")
    return not interrupted


def main(algorithm: str, title: str, update: Update, defaults: Defaults, argv: list[str] | None,
         prog: str, description: str, variants: dict[str, tuple[str, dict]] | None = None) -> int:
    """A whole trainer run from its command line: parse, set up, play ``epochs`` games in which
    every learner's episode goes through ``update``, save, plot, and print the exact report.
    Returns the exit status (0, or ``cli.INTERRUPTED`` after Ctrl-C)."""
    args = parse_arguments(prog, description, defaults, argv, variants)
    env = TicTacToe()
    player1, player2, path, start, curve = setup(algorithm, title, args, env, defaults.out_name)
    learners = learners_of(player1, player2)
    gamma, alpha = args.gamma, args.alpha

    def learn(epoch: int) -> State:
        episodes = learner_episodes(player1, player2, env, epoch)
        for learner, steps in zip(learners, episodes):
            update(learner.Q, steps, learner.player, gamma, alpha)
        return episodes[0][-1][0]

    finished = train_loop(learn, learners, path, start, args.epochs,
                          f"{algorithm} {symbol(player1.player)}", curve, args.plot)
    print_reports(learners)
    return 0 if finished else cli.INTERRUPTED


def print_reports(learners: list[AI_Agent]) -> None:
    """Print ``exact_report`` of every learner (headed by its side when there are two)."""
    for agent in learners:
        if len(learners) > 1:
            print(f"{symbol(agent.player)} table:")
        print(exact_report(agent))


def exact_report(agent) -> str:
    """The agent's exact results against ``random`` and ``advanced`` and whether it can be beaten."""
    lines = [f"exact vs {name:<8}: wins {wins:.4%}  losses {losses:.4%}  draws {draws:.4%}"
             for name, (wins, losses, draws) in exact_results(agent).items()]
    value, line = worst_case(agent)
    lines.append("unbeatable: no sequence of opponent moves beats it" if value >= 0 else
                 f"can be beaten, e.g. by the line {' '.join(f'{r},{c}' for r, c in line)} "
                 "(see: python Tester.py --worst-case TABLE)")
    return "\n".join(lines)


def fresh_seed(seed: int | None) -> int:
    """The given seed, or a new one (printed and recorded, so any run can be repeated)."""
    return seed if seed is not None else random.SystemRandom().randrange(2**32)


def describe_run(algorithm: str, side: int, args, episodes_done: int) -> dict:
    """The record of how a table was trained, saved inside the table file."""
    return {"algorithm": algorithm, "side": symbol(side), "opponent": args.opponent,
            "epochs": args.epochs, "episodes_done": episodes_done, "gamma": args.gamma,
            "alpha": args.alpha, "epsilon": args.epsilon, "seed": args.seed,
            "saved": time.strftime("%Y-%m-%d %H:%M:%S")}
