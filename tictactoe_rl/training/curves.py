"""Learning curves: what a trainer records while it learns, and the figure drawn from it.

Every trainer takes ``--plot PATH.png``. During training a ``LearningCurve`` keeps the result of
every episode and, at regular checkpoints, the exact results of the learner's greedy policy against
``random`` and ``advanced`` (``tictactoe_rl.exact.opponents``; about 10 ms each on 3x3, seconds on
4x4 k=4; none on a board whose game does not fit in memory). At the end it draws:

- the mean outcome per bin of episodes (+1 win, 0 draw, -1 loss, from the learner's side),
- the share of wins, losses and draws per bin,
- epsilon (the exploration rate) over the episodes,
- the exact win and loss rates of the greedy policy at the checkpoints, one panel per learner.

The figure is drawn with matplotlib's ``Figure`` class directly (no ``pyplot``), so no window is
ever opened and no display is needed.
"""

from __future__ import annotations

import os
from array import array

from tictactoe_rl.exact.fits import is_exact
from tictactoe_rl.exact.opponents import exact_results as results_against
from State import DRAW, O_WON, X, X_WON, State, symbol

BINS = 100               # games are grouped into about this many bins
CHECKPOINTS = 20         # exact evaluations over the run (plus one at its start)
EPSILON_POINTS = 500     # points on the epsilon curve
PLOT_FORMATS = (".png", ".pdf", ".svg")
FIGURE_SIZE = (13, 8)    # inches
FIGURE_DPI = 100
EVALUATION_OPPONENTS = ("random", "advanced")
OUTCOME_COLOURS = {"wins": "tab:green", "losses": "tab:red", "draws": "tab:gray"}
OPPONENT_COLOURS = {"random": "tab:blue", "advanced": "tab:orange"}


def checkpoint_episodes(start: int, epochs: int, count: int = CHECKPOINTS) -> list[int]:
    """About ``count`` evenly spaced episode counts from ``start`` to ``epochs``, both included."""
    span = epochs - start
    return sorted({start + round(span * i / count) for i in range(count + 1)})


def exact_results(agent) -> dict[str, tuple[float, float, float]]:
    """``{opponent name: (P(win), P(loss), P(draw))}`` of ``agent``'s policy from its own side
    against each evaluation opponent (``random``, ``advanced``), exactly."""
    return results_against(agent, EVALUATION_OPPONENTS)


class LearningCurve:
    """The record of one training run, fed by ``record`` after every episode.

    ``learners``: the agents that learn (one, or X and O in self-play); ``side``: whose results the
    per-bin panels show; ``start`` .. ``epochs``: the episodes this run covers; ``title``: the
    figure's heading. The first checkpoint is taken at once, before any training.
    """

    def __init__(self, learners: list, side: int, start: int, epochs: int, title: str) -> None:
        self.learners = learners
        self.side = side
        self.start = start
        self.epochs = epochs
        self.title = title
        self.results = array("b")     # result code of every game, in order
        self.due = set(checkpoint_episodes(start, epochs))
        self.checkpoints: list[int] = []
        self.rates: list[list[dict[str, tuple[float, float, float]]]] = [[] for _ in learners]
        self.exact = is_exact(learners[0].env.shape)    # else no checkpoints: the panels say so
        self.evaluate(start)

    def record(self, epoch: int, final: State) -> None:
        """Note the result of episode ``epoch`` (0-based); evaluate when a checkpoint is reached.
        This is the ``on_episode`` hook of ``Trainer.run_episodes``."""
        self.results.append(final.end_of_game)
        if epoch + 1 in self.due:
            self.evaluate(epoch + 1)

    def evaluate(self, episodes_done: int) -> None:
        """Take the exact results of every learner's greedy policy after ``episodes_done``
        episodes (once per count: a second call for the same count does nothing; none on a
        board whose game does not fit in memory)."""
        if not self.exact or self.checkpoints and self.checkpoints[-1] == episodes_done:
            return
        self.checkpoints.append(episodes_done)
        for rates, agent in zip(self.rates, self.learners):
            rates.append(exact_results(agent))

    def bin_size(self) -> int:
        """Games per bin: enough for about ``BINS`` bins over the games recorded."""
        return max(1, -(-len(self.results) // BINS))

    def binned(self) -> tuple[list[float], dict[str, list[float]], list[float]]:
        """``(bin centres in episodes, {"wins"/"losses"/"draws": share per bin}, mean outcome per
        bin)``, all from the point of view of ``side``."""
        win, loss = (X_WON, O_WON) if self.side == X else (O_WON, X_WON)
        size = self.bin_size()
        centres, mean = [], []
        shares: dict[str, list[float]] = {"wins": [], "losses": [], "draws": []}
        for first in range(0, len(self.results), size):
            chunk = self.results[first:first + size]
            wins, losses, draws = chunk.count(win), chunk.count(loss), chunk.count(DRAW)
            centres.append(self.start + first + len(chunk) / 2)
            shares["wins"].append(wins / len(chunk))
            shares["losses"].append(losses / len(chunk))
            shares["draws"].append(draws / len(chunk))
            mean.append((wins - losses) / len(chunk))
        return centres, shares, mean

    def figure(self):
        """The learning-curve figure (a ``matplotlib.figure.Figure``; nothing is shown)."""
        from matplotlib.figure import Figure   # only runs that plot pay for matplotlib
        from matplotlib.ticker import StrMethodFormatter

        figure = Figure(figsize=FIGURE_SIZE, dpi=FIGURE_DPI, layout="constrained")
        bottom = ["exact " + symbol(agent.player) for agent in self.learners]
        width = 6 // len(bottom)
        axes = figure.subplot_mosaic([["mean"] * 2 + ["shares"] * 2 + ["epsilon"] * 2,
                                      [name for name in bottom for _ in range(width)]])
        figure.suptitle(self.title)
        me = symbol(self.side)
        centres, shares, mean = self.binned()
        size = self.bin_size()

        ax = axes["mean"]
        ax.plot(centres, mean, color="tab:purple")
        ax.axhline(0, color="black", linewidth=0.5)
        ax.set(title=f"Mean outcome for {me}, per {size:,} episodes", xlabel="episodes",
               ylabel="mean outcome (+1 win, -1 loss)", ylim=(-1.05, 1.05))

        ax = axes["shares"]
        for name, values in shares.items():
            ax.plot(centres, [100 * v for v in values], label=name, color=OUTCOME_COLOURS[name])
        ax.set(title=f"Wins, losses, draws of {me}, per {size:,} episodes", xlabel="episodes",
               ylabel="share of the bin's episodes (%)", ylim=(-2, 102))
        ax.legend(loc="center right")

        ax = axes["epsilon"]
        games = [self.start + round((self.epochs - self.start) * i / EPSILON_POINTS)
                 for i in range(EPSILON_POINTS + 1)]
        ax.plot(games, [self.learners[0].epsilon_greedy(g) for g in games], color="tab:brown")
        ax.set(title="Exploration rate epsilon", xlabel="episodes", ylabel="epsilon",
               ylim=(-0.02, 1.02))

        for name, agent, rates in zip(bottom, self.learners, self.rates):
            ax = axes[name]
            for opponent in EVALUATION_OPPONENTS:
                colour = OPPONENT_COLOURS[opponent]
                ax.plot(self.checkpoints, [100 * r[opponent][0] for r in rates], marker="o",
                        markersize=3, color=colour, label=f"wins vs {opponent}")
                ax.plot(self.checkpoints, [100 * r[opponent][1] for r in rates], marker="x",
                        markersize=4, linestyle="--", color=colour, label=f"losses vs {opponent}")
            measured = "exact results at checkpoints" if self.exact else \
                "no exact results: the board's game does not fit in memory"
            ax.set(title=f"Greedy {symbol(agent.player)} policy, {measured}",
                   xlabel="episodes", ylabel="probability (%)", ylim=(-2, 102))
            ax.legend(loc="center right", fontsize="small")
        for ax in axes.values():
            ax.grid(alpha=0.3)
            ax.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
        return figure

    def save(self, path: str) -> None:
        """Draw the figure into ``path`` (.png, .pdf or .svg); raise ValueError if it cannot."""
        folder = os.path.dirname(os.path.abspath(path))
        try:
            os.makedirs(folder, exist_ok=True)
            self.figure().savefig(path)
        except OSError as error:
            raise ValueError(f"cannot write the plot {path}: {error.strerror or error}") from None
