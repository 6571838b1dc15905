"""The exact report a trainer prints at the end: how the table does against ``random`` and
``advanced`` over every possible game, and whether any line of play beats it, on any board whose
game fits in memory (on one that does not, the one line saying so)."""

from __future__ import annotations

import shlex

from tictactoe_rl import cli
from AI_Agent import AI_Agent
from Agent import seats
from Episode import play_games
from tictactoe_rl.exact.fits import refusal
from tictactoe_rl.exact.progress import walk_progress
from tictactoe_rl.exact.worst import worst_case
from tictactoe_rl.geometry import TIC_TAC_TOE
from State import symbol
from TicTacToe import TicTacToe
from tictactoe_rl.training.curves import exact_results


def exact_report(agent, spec: str = "TABLE") -> str:
    """The agent's exact results against ``random`` and ``advanced`` and whether it can be beaten;
    ``spec`` names it in the command that shows the beating line."""
    lines = [f"exact vs {name:<8}: wins {wins:.4%}  losses {losses:.4%}  draws {draws:.4%}"
             for name, (wins, losses, draws) in exact_results(agent).items()]
    shape = agent.env.shape
    with walk_progress("worst case") as progress:
        value, line = worst_case(agent, progress=progress)
    on = "" if shape == TIC_TAC_TOE else f" --board {shape.rows}x{shape.cols} --k {shape.k}"
    lines.append("unbeatable: no sequence of opponent moves beats it" if value >= 0 else
                 f"can be beaten, e.g. by the line {' '.join(f'{r},{c}' for r, c in line)} "
                 f"(see: {cli.measure_command()}{on} --worst-case {cli.shown(shlex.quote(spec))})")
    return "\n".join(lines)


def learner_report(agent, spec: str = "TABLE") -> str:
    """``exact_report`` where the board's game fits in memory, else the line refusing it."""
    refused = refusal(agent.env.shape)
    return exact_report(agent, spec) if refused is None else refused


def print_reports(learners: list, paths: list[str]) -> None:
    """Print the report of every agent of ``learners`` (``tictactoe_rl.training.learners``), each saved at the
    matching one of ``paths`` (headed by its side when there are two)."""
    both = sum(len(learner.agents) for learner in learners) > 1
    for learner, path in zip(learners, paths):
        for agent in learner.agents:
            if both:
                print(f"{symbol(agent.player)} {learner.noun}:")
            print(learner.report(agent, path))


def test_games(player1: AI_Agent, player2, env: TicTacToe, num: int) -> tuple[int, int, int]:
    """The course's ``test(num)``: ``num`` games of the greedy ``player1`` (and, in self-play,
    greedy ``player2``) against ``player2``; print and return ``(x_wins, o_wins, ties)``."""
    learners = [player1] + [player2] * (isinstance(player2, AI_Agent) and player2.train)
    training = [agent.train for agent in learners]
    for agent in learners:
        agent.train = False
    try:
        x_wins, o_wins, ties = play_games(*seats(player1, player2), env, num)
    finally:
        for agent, was_training in zip(learners, training):
            agent.train = was_training
    print(f"test({num}): X wins {x_wins}, O wins {o_wins}, ties {ties}")
    return x_wins, o_wins, ties
