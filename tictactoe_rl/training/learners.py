"""What the one training loop asks of whatever learns: the learner interface, and the table's.

A learner plays through its ``agents`` (one side, or X and O), learns from every finished game
(``learn``), is saved with its episode count (``save``), keeps the record of how it is trained
for its file (``describe``), and says what it learnt (``report``) and how learning goes
(``note``, for the progress bar). A table is loaded back into its learner to resume
(``TableLearner.load``); a network is read before its learner is made, since the file decides
the network's shape (``tictactoe_rl.training.dqn.resumed``). ``TableLearner`` is a Q-table
(an ``AI_Agent``) and an update rule; ``tictactoe_rl.training.dqn.NetworkLearner`` is a network.
"""

from __future__ import annotations

from typing import Protocol

from AI_Agent import AI_Agent
from Agent import Agent
from Episode import learning_steps
from State import State
from tictactoe_rl.tables.files import load_table
from tictactoe_rl.training.report import learner_report
from tictactoe_rl.training.rules import Rule, Step, exploring_policy


class Learner(Protocol):
    """The interface of the one loop (``tictactoe_rl.training.loop``) and the one report."""
    agents: list[Agent]        # the players that learn, X first in self-play
    noun: str                  # what is saved: "table" or "network"

    def learn(self, moves: list[tuple], final: State, epoch: int) -> None:
        """Learn from game ``epoch`` (0-based): its ``moves`` and the position it ended in."""

    def save(self, path: str, episodes_done: int) -> None:
        """Save to ``path`` with the episodes done; ``tictactoe_rl.tables.files.NotSaved`` if it cannot."""

    def describe(self, record: dict) -> None:
        """Keep ``record`` (how it is trained) to save with it."""

    def note(self) -> str:
        """A few words for the progress bar (empty: nothing to say)."""

    def report(self, agent: Agent, path: str) -> str:
        """What ``agent`` (one of ``agents``) learnt, exactly; ``path`` names it in the commands
        the report shows."""


class TableLearner:
    """One ``AI_Agent``'s Q-table, changed by ``rule`` after every game (no rule: the caller's
    own loop changes it, as the chapter's ``main`` does)."""
    noun = "table"

    def __init__(self, agent: AI_Agent, rule: Rule | None = None, gamma: float = 0.0,
                 alpha: float = 0.0) -> None:
        self.agent, self.rule, self.gamma, self.alpha = agent, rule, gamma, alpha
        self.agents = [agent]

    def learn(self, moves: list[tuple], final: State, epoch: int) -> None:
        agent = self.agent
        side, Q = agent.player, agent.Q
        epsilon = agent.exploration_rate(epoch)
        step = Step(final, side, self.gamma, self.alpha, epoch, epsilon,
                    exploring_policy(Q, epsilon))
        self.rule(Q, learning_steps(moves, side), step)

    def save(self, path: str, episodes_done: int) -> None:
        self.agent.meta["episodes_done"] = episodes_done
        self.agent.save_Q(path)

    def load(self, path: str, recorded: dict) -> tuple[int, int | None]:
        """Load the table at ``path``; return ``(episodes it covers, episodes its run planned)``.
        It must have been learnt the way this run learns (``recorded``: the algorithm and its
        variant, as the tables record them) and with this agent's schedule."""
        Q, _, meta = load_table(path, side=self.agent.player, board=self.agent.env.shape)
        for key, value in recorded.items():
            if key in meta and meta[key] != value:
                raise ValueError(f"{path}: was trained with {key} {meta[key]!r}, and this run's "
                                 f"is {value!r}; resume it with the trainer and flags that made it")
        done = meta.get("episodes_done")
        if not isinstance(done, int) or done < 0:
            raise ValueError(f"{path}: records no episode count, so it cannot be resumed; "
                             "use --opponent or start afresh")
        schedule = meta.get("epsilon", self.agent.epsilon_schedule)
        if schedule != self.agent.epsilon_schedule:
            raise ValueError(f"{path}: was trained with --epsilon {schedule}; resume it with the "
                             "same --epsilon")
        self.agent.Q = Q
        planned = meta.get("epochs")
        return done, planned if isinstance(planned, int) and planned > 0 else None

    def describe(self, record: dict) -> None:
        """Keep ``record`` (how it was trained) to save with the table."""
        self.agent.meta = record

    def note(self) -> str:
        return ""

    def report(self, agent: Agent, path: str) -> str:
        return learner_report(agent, path)
