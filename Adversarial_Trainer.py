"""Adversarial training: a Q-table that learns from its own games until no line of play beats it.

The learner is a Monte Carlo table, as MC_Trainer.py's: after each game, walking its moves
backwards, the return ``G = gamma * G + reward`` updates each move's value, the same update goes to
the position's turned and mirrored copies, and the walk stops at a move that explored. One thing
differs: a return below the value replaces it at once (``Q <- G``), one above pulls it up slowly
(``Q <- Q + alpha * (G - Q)``). So a move that lost once stays suspect until many games say
otherwise: against an opponent that exploits every weakness, the average of the returns would
rate a move that loses now close to one that loses a few moves later, and the table would keep
changing its mind between them; a loss taken at once makes it hold out. The returns, so the values,
are still those of its own games. What is new is whom it plays. Training goes in rounds:

1. The judge: ``worst_case`` walks every line of play against the greedy table (every move the
   opponent could make, the table's own move wherever it is to move). If no line beats it, the
   table is proven unbeatable: training stops, and the table is saved.
2. Otherwise the exploiter is renewed: the exact ``best_response`` to the greedy table, which
   knows, for every position the table can be led to, a move that beats it from there if any does.
3. The learner plays ``--games`` games, exploring epsilon-greedily, against a sparring partner
   that on each move plays at random with probability ``--random`` (so the learner meets the
   positions that good play never reaches) and otherwise the exploiter's move, or, where the
   exploiter knows none (the learner explored), a perfect player's. A share ``--starts`` of the
   games start from a position drawn from all those the table can be led to (Monte Carlo's
   "exploring starts"; first a number of moves, then a position with that many): a table knows
   nothing of a position it never met, and there are far more of them than games from the empty
   board reach.

The exact tools only choose the opponent and judge the result: every value in the table is an
average of returns of the learner's own games. A loss teaches the table to avoid the move that
led to it; the exploiter makes sure the losses come where the table is weakest. Ctrl-C (or a
spent ``--minutes``) stops after the current game and saves the table as it is.

    python Adversarial_Trainer.py --board 4x4 --k 4 --side X --seed 1
    python Adversarial_Trainer.py --board 4x4 --k 4 --side O --seed 1
    python Adversarial_Trainer.py --side O --seed 1          # 3x3: proven in seconds
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping

from tictactoe_rl import cli
from AI_Agent import AI_Agent, greedy_action
from Agent import Agent, seats
from Episode import learning_steps, play_game
from State import State, symbol
from TicTacToe import Action, TicTacToe
from tictactoe_rl.boards.flags import add_board_flags, board_from
from tictactoe_rl.geometry import TIC_TAC_TOE
from tictactoe_rl.exact.solver import best_response, worst_case
from tictactoe_rl.exact.symmetry import images
from tictactoe_rl.players.specs import make_agent
from tictactoe_rl.tables.files import check_writable
from tictactoe_rl.training.destination import Purpose, check_destination
from tictactoe_rl.training.learners import TableLearner
from tictactoe_rl.training.loop import StopRequest, run_episodes, save_all
from tictactoe_rl.training.options import SIDES, default_file
from tictactoe_rl.training.rules import chapter_rule
from tictactoe_rl.training.run import Run, learner_seed

GAMES, RANDOM, STARTS, ALPHA, GAMMA, MINUTES = 20_000, 0.2, 0.5, 0.1, 0.95, 15.0
OUT_NAME = "my_Q_ADV_{side}.pth"


class Sparring(Agent):
    """The learner's opponent: a random move with probability ``chance``; otherwise the move of
    ``response`` (a policy ``{state: action}``) where it has one, else a perfect player's."""

    def __init__(self, player: int, env: TicTacToe, chance: float, seed: str) -> None:
        super().__init__(player, env, seed=seed)
        self.chance = chance
        self.perfect = make_agent("minimax", player, env, seed=f"{seed}:perfect")
        self.response: Mapping[State, Action] = {}

    def get_action(self, state: State, epoch: int | None = None) -> Action:
        if self.rng.random() < self.chance:
            return self.rng.choice(state.legal_actions())
        move = self.response.get(state)
        return move if move is not None else self.perfect.get_action(state)


def update(Q: dict, steps: list[tuple], final: State, side: int, gamma: float,
           alpha: float) -> None:
    """Walking ``steps`` (the learner's ``(state, action, reward)``, rewards X's) backwards: the
    return ``G`` replaces a larger value at once and pulls a smaller one up by ``alpha``, for the
    pair and its images; the walk stops after a move that was not the greedy one."""
    G = 0.0
    for walked, (state, action, reward) in enumerate(reversed(steps)):
        G = gamma * G + side * reward
        explored = walked < len(steps) - 1 and action != greedy_action(Q, state)
        old = Q.get((state, action), 0.0)
        new = G if G < old else old + alpha * (G - old)
        for pair in images(state, action):
            Q[pair] = new
        if explored:
            break


def by_moves(positions) -> list[list[State]]:
    """``positions`` grouped by how many moves were played, fewest first."""
    groups: dict[int, list[State]] = {}
    for state in positions:
        groups.setdefault(sum(map(bool, state.cells)), []).append(state)
    return [groups[moves] for moves in sorted(groups)]


def judged(agent: AI_Agent) -> str | None:
    """None when no line of play beats the greedy ``agent``; else the shortest line that does."""
    value, line = worst_case(agent)
    return None if value >= 0 else " ".join(f"{row},{col}" for row, col in line)


def train(args) -> int:
    """Train by rounds (see the module's doc) until the table is proven unbeatable, the time runs
    out or a signal stops it; save it to ``args.out``. Returns the exit status: 0 proven, 1 not
    proven when the time ran out, ``cli.stop_status`` of the signal (130 after Ctrl-C)."""
    cli.stop_at_unwritten_piece(AI_Agent.epsilon_greedy, learning_steps)   # students' version
    env = TicTacToe(board=board_from(args))
    side = SIDES[args.side]
    path = args.out or default_file(OUT_NAME, args.side, env.shape)
    check_destination(path, Purpose("table", env.shape, (side,)), args.force, check_writable)
    # epsilon falls from 1 to 0.01 over the first round, then stays there
    agent = AI_Agent(side, env, seed=learner_seed(args.seed, "learner"), decay_epochs=args.games)
    learner = TableLearner(agent, chapter_rule(update), args.gamma, args.alpha)
    sparring = Sparring(-side, env, args.random, learner_seed(args.seed, "opponent"))
    x_agent, o_agent = seats(agent, sparring)
    run = Run([learner], sparring, env, [path], 0, label=f"Adversarial {args.side}")
    agent.meta = {"algorithm": "MC", "trainer": "adversarial", "side": args.side,
                  "opponent": f"exploiter, random {args.random}", "starts": args.starts,
                  "gamma": args.gamma, "alpha": args.alpha, "games_per_round": args.games,
                  "seed": args.seed}
    if env.shape != TIC_TAC_TOE:
        agent.meta["board"] = env.shape.name

    starts: list[list[State]] = []

    def learn(epoch: int) -> State:
        # a start: first a number of moves played, then a position with that many, so that the
        # few early positions, whose holes cost most, are met as often as the many late ones
        start = sparring.rng.choice(sparring.rng.choice(starts)) \
            if sparring.rng.random() < args.starts and starts else None
        moves, final = play_game(x_agent, o_agent, env, start, epoch)
        learner.learn(moves, final, epoch)
        return final

    print(f"Adversarial training: {args.side} on {env.shape.name}, {args.games:,} games a round "
          f"against the exploiter (random moves {args.random}, starts {args.starts}), "
          f"alpha {args.alpha}, gamma {args.gamma}, seed {args.seed}")
    started, done, line, rounds = time.perf_counter(), 0, "", 0
    with StopRequest() as stop:
        while not stop.requested:
            line = judged(agent)
            seconds = time.perf_counter() - started
            print(f"round {rounds}: {done:,} games, {seconds:.0f} s: "
                  + ("no line beats it" if line is None else
                     f"beaten in {len(line.split())} moves ({line})"), flush=True)
            if line is None or seconds > 60 * args.minutes:
                break
            sparring.response = best_response(agent)[1]
            starts = by_moves(sparring.response) if args.starts else []
            rounds += 1
            done, _ = run_episodes(learn, side, done, done + args.games, f"round {rounds}",
                                   stop=stop, show_progress=args.progress)
        stop.saving = True
        agent.meta.update(episodes_done=done, rounds=rounds, unbeatable=line is None)
        kept, not_saved = save_all(run, done)
    if not_saved:
        raise not_saved[0]
    where = cli.shown(kept[0])
    if line is None:
        print(f"Proven: no line of play beats {symbol(side)}; {done:,} games, "
              f"{time.perf_counter() - started:.0f} s. Saved to {where}")
    else:
        print(f"Not proven: stopped after {rounds} rounds, {done:,} games; saved to {where}")
    return 0 if line is None else cli.stop_status(stop.number) if stop.requested else 1


def build_parser() -> cli.Parser:
    parser = cli.Parser(prog="Adversarial_Trainer.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--side", choices=sorted(SIDES), default="X",
                        help="the side the table learns to play (default: X)")
    parser.add_argument("--games", type=cli.count, default=GAMES,
                        help=f"games per round (default: {GAMES:,})")
    parser.add_argument("--random", type=cli.unit_interval, default=RANDOM,
                        help=f"the sparring partner's share of random moves (default: {RANDOM})")
    parser.add_argument("--starts", type=cli.unit_interval, default=STARTS,
                        help="the share of games that start from a position the table can be "
                             f"led to, drawn at random (default: {STARTS})")
    parser.add_argument("--alpha", type=cli.unit_interval, default=ALPHA,
                        help=f"learning rate (default: {ALPHA})")
    parser.add_argument("--gamma", type=cli.unit_interval, default=GAMMA,
                        help=f"discount factor (default: {GAMMA})")
    parser.add_argument("--minutes", type=float, default=MINUTES,
                        help=f"stop, unproven, after a round that ends past this time "
                             f"(default: {MINUTES:g})")
    parser.add_argument("--seed", type=cli.seed, default=1, help="random seed (default: 1)")
    parser.add_argument("--out", type=cli.path, default=None, metavar="PATH",
                        help="where to save the table (default: "
                             f"{default_file(OUT_NAME, 'X')}, the board's name added on another)")
    parser.add_argument("--force", action="store_true",
                        help="let --out replace a file that is not a table of this board and "
                             "side, or a shipped table (kept as PATH.bak)")
    parser.add_argument("--no-progress", dest="progress", action="store_false",
                        help="no progress bar")
    add_board_flags(parser)
    return parser


def run(argv: list[str] | None = None) -> int:
    """Train from the command line ``argv``; 0 when the table was proven unbeatable, 1 when it
    was not (time ran out), the signal's status after Ctrl-C."""
    return train(build_parser().parse_args(argv))


if __name__ == "__main__":
    cli.run(lambda: run(sys.argv[1:]))
