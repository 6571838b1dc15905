"""A table trainer's command line, driven the same way for each: parse, build the run, train,
report (the network's, DQN_Trainer.run, is the same four steps with its own flags and run)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tictactoe_rl import cli
from AI_Agent import AI_Agent
from Episode import learning_steps
from tictactoe_rl.training.loop import learn_from_episodes, train_loop
from tictactoe_rl.training.options import Defaults, Variant, chosen_variant, parse_arguments
from tictactoe_rl.training.report import print_reports, test_games
from tictactoe_rl.training.rules import Rule
from tictactoe_rl.training.run import build_run

TEST_GAMES = 100   # the course's test(100) after training


@dataclass(frozen=True)
class Trainer:
    """What a trainer file tells the machinery: its names, defaults and update rule."""
    algorithm: str                # recorded in its tables: "MC", "SARSA", "Q-learning"
    title: str                    # the first word of its announcement: "Monte Carlo control"
    prog: str                     # its file: "MC_Trainer.py"
    description: str              # one line for --help
    update: Rule                  # rule(Q, steps, step): see tictactoe_rl.training.rules
    defaults: Defaults
    variants: dict[str, Variant] = field(default_factory=dict)
    meta: dict = field(default_factory=dict)   # recorded in its tables, e.g. MC's refinements

    def parse(self, argv: list[str] | None):
        return parse_arguments(self.prog, self.description, self.defaults, argv, self.variants)


def main(trainer: Trainer, argv: list[str] | None) -> int:
    """A whole run from the command line ``argv``; returns the exit status (0, or
    ``cli.stop_status`` of the signal after Ctrl-C or SIGTERM: 130, 143)."""
    args = trainer.parse(argv)
    variant = chosen_variant(args, trainer.variants)
    update = variant.update if variant and variant.update else trainer.update
    # in the students' version: the pieces this run needs, named before it starts
    cli.stop_at_unwritten_piece(AI_Agent.epsilon_greedy, learning_steps, update)
    out_name = variant.out_name if variant and variant.out_name else trainer.defaults.out_name
    run = build_run(trainer.algorithm, trainer.title, args, out_name, update,
                    learns=variant.meta if variant else trainer.meta)
    finished = train_loop(run, learn_from_episodes(run))
    if finished:
        test_games(run.agents[0], run.opponent, run.env, TEST_GAMES)
    print_reports(run.learners, run.paths)
    return 0 if finished else cli.stop_status(run.stopped_by)
