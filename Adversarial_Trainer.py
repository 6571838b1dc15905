"""Adversarial training: a Q-table that learns from its own games until no line of play beats it.

The learner is a Monte Carlo table, as MC_Trainer.py's: after each game, walking its moves
backwards, the return ``G = gamma * G + reward`` updates each move's value, and the same update goes
to the position's turned and mirrored copies. One thing differs: a return below the value replaces
it at once (``Q <- G``), one above pulls it up slowly (``Q <- Q + alpha * (G - Q)``), so a move that
lost once stays suspect until many games say otherwise. What is new is where its games start and
whom it plays. Training goes in rounds:

1. The judge walks every line of play against the greedy table (every move the opponent could
   make, the table's own move wherever it is to move). If no line beats it, the table is proven
   unbeatable: training stops and the table is saved. Otherwise the judge names its weak spots,
   every position the table can be led to from which some line beats it, and an exploiter, the
   opponent that beats it soonest from wherever it can.
2. Exploring starts at the weak spots, the nearest loss first: from each, the table plays its
   greedy move, and the game goes on, the table greedy against the exploiter (or a perfect player
   where the exploiter does not know the position). If that game is not lost, the spot is mended
   already (a nearer one's fix reached it); if it is, one game for each of the other moves. Every
   game's returns update the table, so the next spot's games already meet the mended table.

Nearest first is what makes it quick: a loss two plies away names the move that caused it, and
once those are mended the losses further away are the ones their earlier moves cause.

The exact tools only choose where games start and who the opponent is: every value in the table is
made of returns of the learner's own games. A proven table is saved with the positions its play can
reach only (those it never meets cannot change a game). Ctrl-C stops after the current spot, a
spent ``--minutes`` after the round, and either saves the table as it is.

    python Adversarial_Trainer.py --board 4x4 --k 4 --side X --seed 1
    python Adversarial_Trainer.py --board 4x4 --k 4 --side O --seed 1
    python Adversarial_Trainer.py --side O --seed 1          # 3x3: proven in a second
"""

from __future__ import annotations

import argparse
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
from tictactoe_rl.boards.perfect import solver_of
from tictactoe_rl.geometry import TIC_TAC_TOE
from tictactoe_rl.exact.fits import refusal
from tictactoe_rl.exact.worst import reachable, weaknesses
from tictactoe_rl.exact.symmetry import images
from tictactoe_rl.players.specs import make_agent
from tictactoe_rl.tables.files import check_writable
from tictactoe_rl.training.destination import Purpose, check_destination
from tictactoe_rl.training.learners import TableLearner
from tictactoe_rl.training.loop import StopRequest, run_episodes, save_all
from tictactoe_rl.training.options import SIDES, default_file
from tictactoe_rl.training.rules import chapter_rule
from tictactoe_rl.training.run import Run, learner_seed

ALPHA, GAMMA, MINUTES = 0.1, 0.95, 15.0
OUT_NAME = "my_Q_ADV_{side}.pth"


class Exploiter(Agent):
    """The learner's opponent: the move of ``response`` (a policy ``{state: action}``) where it
    has one, else a perfect player's."""

    def __init__(self, player: int, env: TicTacToe, seed: str) -> None:
        super().__init__(player, env, seed=seed)
        self.perfect = make_agent("minimax", player, env, seed=f"{seed}:perfect")
        self.response: Mapping[State, Action] = {}

    def get_action(self, state: State, epoch: int | None = None) -> Action:
        move = self.response.get(state)
        return move if move is not None else self.perfect.get_action(state)


class ExploringStart(Agent):
    """The learner in a game that starts at a weak spot: its move there is ``first``, then its
    greedy moves."""

    def __init__(self, agent: AI_Agent) -> None:
        super().__init__(agent.player, agent.env)
        self.agent = agent
        self.first: Action | None = None

    def get_action(self, state: State, epoch: int | None = None) -> Action:
        move, self.first = self.first, None
        return move if move is not None else greedy_action(self.agent.Q, state)


def update(Q: dict, steps: list[tuple], final: State, side: int, gamma: float,
           alpha: float) -> None:
    """Walking ``steps`` (the learner's ``(state, action, reward)``, rewards X's) backwards: the
    return ``G`` replaces a larger value at once and pulls a smaller one up by ``alpha``, for the
    pair and its images."""
    G = 0.0
    for state, action, reward in reversed(steps):
        G = gamma * G + side * reward
        old = Q.get((state, action), 0.0)
        new = G if G < old else old + alpha * (G - old)
        for pair in images(state, action):
            Q[pair] = new


def keep_reachable(agent: AI_Agent) -> None:
    """Drop from the table every position the greedy agent's play cannot reach."""
    met = set(reachable(agent))
    kept = {pair: value for pair, value in agent.Q.items() if pair[0] in met}
    agent.Q.clear()
    agent.Q.update(kept)


def train(args) -> int:
    """Train by rounds (see the module's doc) until the table is proven unbeatable, the time runs
    out or a signal stops it; save it to ``args.out``. Returns the exit status: 0 proven, 1 not
    proven when the time ran out, ``cli.stop_status`` of the signal (130 after Ctrl-C)."""
    cli.stop_at_unwritten_piece(learning_steps)          # the students' version
    env = TicTacToe(board=board_from(args))
    side = SIDES[args.side]
    path = args.out or default_file(OUT_NAME, args.side, env.shape)
    too_large = refusal(env.shape)        # the judge walks the game: it must fit in memory
    if too_large is not None:
        raise ValueError(too_large)
    if solver_of(env.shape).value() * side < 0:
        raise ValueError(f"no {args.side} can be unbeatable on {env.shape.name}: perfect play by "
                         f"{symbol(-side)} wins there; train {symbol(-side)} instead")
    check_destination(path, Purpose("table", env.shape, (side,)), args.force, check_writable)
    agent = AI_Agent(side, env, seed=learner_seed(args.seed, "learner"), train=False)
    learner = TableLearner(agent, chapter_rule(update), args.gamma, args.alpha)
    exploiter = Exploiter(-side, env, learner_seed(args.seed, "opponent"))
    starter = ExploringStart(agent)
    x_agent, o_agent = seats(starter, exploiter)
    run = Run([learner], exploiter, env, [path], 0, label=f"Adversarial {args.side}")
    agent.meta = {"algorithm": "MC", "trainer": "adversarial", "side": args.side,
                  "opponent": "exploiter", "starts": "weak spots", "gamma": args.gamma,
                  "alpha": args.alpha, "seed": args.seed}
    if env.shape != TIC_TAC_TOE:
        agent.meta["board"] = env.shape.name
    spots: list[tuple[State, int]] = []
    games = 0

    def play_from(spot: int) -> State:
        # the greedy move first; the others only if it still loses
        nonlocal games
        state = spots[spot][0]
        greedy = greedy_action(agent.Q, state)
        for move in [greedy] + [move for move in state.legal_actions() if move != greedy]:
            starter.first = move
            moves, final = play_game(x_agent, o_agent, env, state)
            learner.learn(moves, final, games)
            games += 1
            if move == greedy and final.end_of_game != -side:
                break
        return final

    print(f"Adversarial training: {args.side} on {env.shape.name}, exploring starts at the "
          f"weak spots against the exploiter, alpha {args.alpha}, gamma {args.gamma}, "
          f"seed {args.seed}")
    started, rounds, proven = time.perf_counter(), 0, False
    with StopRequest() as stop:
        while not stop.requested:
            spots, exploiter.response = weaknesses(agent)
            proven = not spots
            seconds = time.perf_counter() - started
            print(f"round {rounds}: {games:,} games, {seconds:.0f} s: "
                  + ("no line beats it" if proven else f"{len(spots):,} weak spots, the "
                     f"nearest loss {spots[0][1]} plies away"), flush=True)
            # the budget ends a run only after a round of games: never an empty table saved
            if proven or (rounds > 0 and seconds > 60 * args.minutes):
                break
            rounds += 1
            run_episodes(play_from, side, 0, len(spots), f"round {rounds}, weak spots", stop=stop,
                         show_progress=args.progress)
        stop.saving = True
        if proven:
            keep_reachable(agent)
        agent.meta.update(rounds=rounds, unbeatable=proven)
        kept, not_saved = save_all(run, games)
    if not_saved:
        raise not_saved[0]
    where = cli.shown(kept[0])
    if proven:
        print(f"Proven: no line of play beats {symbol(side)}; {games:,} games, "
              f"{time.perf_counter() - started:.1f} s. Saved to {where}")
    else:
        why = cli.stop_note(stop.number).rstrip(".") + ": n" if stop.requested else "N"
        print(f"{why}ot proven: stopped after {rounds} rounds, {games:,} games; saved to {where}")
    return 0 if proven else cli.stop_status(stop.number) if stop.requested else 1


def budget(text: str) -> float:
    """``--minutes``: more than 0 (a budget of none would save a table that never played)."""
    value = cli.minutes(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be more than 0: with no time the table plays no "
                                         "game, and an empty table would be saved over --out")
    return value


def build_parser() -> cli.Parser:
    parser = cli.Parser(prog="Adversarial_Trainer.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--side", choices=sorted(SIDES), default="X",
                        help="the side the table learns to play (default: X)")
    parser.add_argument("--alpha", type=cli.unit_interval, default=ALPHA,
                        help=f"learning rate (default: {ALPHA})")
    parser.add_argument("--gamma", type=cli.unit_interval, default=GAMMA,
                        help=f"discount factor (default: {GAMMA})")
    parser.add_argument("--minutes", type=budget, default=MINUTES,
                        help=f"stop, unproven, after a round that ends past this time; at least "
                             f"one round is played (default: {MINUTES:g})")
    parser.add_argument("--seed", type=cli.seed, default=1,
                        help="random seed: the perfect player's choice among equally good moves "
                             "(default: 1)")
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
