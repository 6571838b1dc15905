"""What every trainer shares: players, the command line, the training loop with its progress bar,
Ctrl-C handling, saving, and the exact report at the end.

A trainer file (``MC_Trainer.py``, ...) only says how one episode updates the Q-table; this module
runs that ``learn(epoch)`` function ``epochs`` times.
"""

from __future__ import annotations

import random
import signal
import time
from typing import Callable

from tqdm import tqdm

import cli
from AI_Agent import EPSILON_SCHEDULES, AI_Agent
from Agents import make_agent
from Q_Table import load_table
from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced
from Solver import exact_outcome, worst_case
from State import DRAW, O, O_WON, X, X_WON, State, symbol
from TicTacToe import TicTacToe

SIDES = {"X": X, "O": O}
# The progress bar and the recent win/loss/draw figures are refreshed once per this many episodes.
REPORT_EVERY = 1_000


def learner_seed(seed: int | None, role: str) -> str | None:
    """Separate, repeatable random streams for the learner and its opponent from one ``--seed``."""
    return None if seed is None else f"{seed}:{role}"


def add_arguments(parser: cli.Parser, epochs: int, gamma: float, alpha: float,
                  out_name: str) -> None:
    """The flags every trainer takes, with this trainer's defaults."""
    parser.add_argument("--side", choices=sorted(SIDES), default="X",
                        help="the side the agent learns to play (default: X)")
    parser.add_argument("--opponent", default="random", metavar="SPEC",
                        help="who it learns against: random, advanced, minimax, playout, mcts or a "
                             "Q-table path (default: random)")
    parser.add_argument("--epochs", type=cli.count, default=epochs,
                        help=f"training episodes (default: {epochs:,})")
    parser.add_argument("--gamma", type=cli.unit_interval, default=gamma,
                        help=f"discount factor (default: {gamma})")
    parser.add_argument("--alpha", type=cli.unit_interval, default=alpha,
                        help=f"learning rate (default: {alpha})")
    parser.add_argument("--epsilon", choices=EPSILON_SCHEDULES, default="linear",
                        help="exploration schedule: linear 1.0 -> 0.01 over the first half of the "
                             "episodes, or exp(onential) decay (default: linear)")
    parser.add_argument("--seed", type=cli.seed, default=None,
                        help="random seed; the same seed gives the same table, bit for bit "
                             "(default: a fresh one, printed)")
    parser.add_argument("--out", default=None, metavar="PATH",
                        help=f"where to save the table (default: Data/{out_name.format(side='X')} "
                             "for X, likewise for O)")
    parser.add_argument("--resume", default=None, metavar="PATH",
                        help="continue from a table saved by an earlier (e.g. interrupted) run: "
                             "its Q-values and episode counter, so epsilon goes on where it stopped")


def make_learner(side: int, env: TicTacToe, seed: int | None, epsilon: str,
                 epochs: int) -> AI_Agent:
    """A fresh learner whose epsilon decays over the first half of ``epochs`` (the course's
    100,000 of 200,000)."""
    return AI_Agent(side, env, train=True, seed=learner_seed(seed, "learner"), epsilon=epsilon,
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
    learner.Q = Q
    return done


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


def exact_report(agent) -> str:
    """The agent's exact results against ``random`` and ``advanced`` and whether it can be beaten."""
    lines = []
    for name, cls in (("random", Random_Agent), ("advanced", Random_Agent_Advanced)):
        other = cls(-agent.player)
        pair = (agent, other) if agent.player == X else (other, agent)
        outcome = exact_outcome(*pair)
        wins, losses = (outcome["x_wins"], outcome["o_wins"]) if agent.player == X \
            else (outcome["o_wins"], outcome["x_wins"])
        lines.append(f"exact vs {name:<8}: wins {wins:.4%}  losses {losses:.4%}  "
                     f"draws {outcome['draws']:.4%}")
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
