"""Measure agents: play them against each other, or compute their results exactly.

    python Tester.py                                      # the course's check: shipped X table vs advanced
    python Tester.py --x Data/Q_MC_X.pth --o random --games 1000
    python Tester.py --x playout --o minimax --games 200 --both     # first agent on both sides
    python Tester.py --x Data/Q_MC_X.pth --o random --exact         # exact probabilities
    python Tester.py --worst-case Data/Q_MC_O.pth                    # can it be beaten? how?
    python Tester.py --mistakes Data/Q_MC_O.pth                      # where it gives value away
    python Tester.py --optimum                                       # best possible results
    python Tester.py --optimum --board 4x4 --k 4                     # the same on 4x4 k=4
    python Tester.py --board 4x4 --k 3                               # perfect play on 4x4
    python Tester.py --board 4x4 --k 4 --x Data/my_Q_MC_X_4x4k4.pth --o minimax --exact
    python Tester.py --show-q Data/Q_MC_X.pth --moves "1,1 0,0"      # the table's Q-values
    python Tester.py --analyse playout --moves ""                    # a search agent's scores
"""

from __future__ import annotations

import os
import sys

from tictactoe_rl import cli
from tictactoe_rl.exact.optimum import optimum_report
from Agent import PolicyUnknown, seats
from tictactoe_rl.geometry import TIC_TAC_TOE, BoardShape
from tictactoe_rl.positions import start_position
from tictactoe_rl.boards.flags import add_board_flags, board_from
from tictactoe_rl.boards.solve import add_cache_flag, board_report
from tictactoe_rl.players.search import SearchAgent
from tictactoe_rl.players.specs import (VALID_SPECS, describe, is_network, is_table_path,
                                        make_agent, network_path)
from Episode import play_games
from tictactoe_rl.tables.files import load_table
from tictactoe_rl.tables.shipped import DEFAULT_X_TABLES
from tictactoe_rl.tables.view import UNSEEN, board_grid, show_q
from tictactoe_rl.training.destination import purpose_of
from tictactoe_rl.exact.progress import walk_progress
from tictactoe_rl.exact.solver import as_outcome, exact_outcome, side_result
from tictactoe_rl.exact.worst import worst_case
from State import O, State, X, parse_moves, symbol
from TicTacToe import TicTacToe

DEFAULT_O = "advanced"
OTHER_BOARD_X = "minimax"    # X on a board no shipped table fits
DEFAULT_GAMES = 1_000
DEFAULT_SEED = 0
OUTCOMES = ("win", "lose", "draw")


def sides_of(spec: str, board: BoardShape = TIC_TAC_TOE) -> tuple[int, ...]:
    """The sides an agent spec can play on ``board``: a Q-table or a network plays the ones it
    was trained for (and is refused, in one line, for another board)."""
    if is_table_path(spec):
        return (load_table(spec, board=board)[1],)
    if is_network(spec):
        from tictactoe_rl.neural.files import load_network   # imports torch: only for a network
        return tuple(load_network(network_path(spec), board=board).sides)
    return (X, O)



def first_agent_results(first: str, second: str, side: int, games: int | None, seed: int,
                        env: TicTacToe) -> tuple[float, float, float]:
    """(wins, losses, draws) of agent ``first`` playing ``side`` against ``second``: counts of
    ``games`` sampled games, or exact probabilities when ``games`` is None."""
    me = make_agent(first, side, env, seed=seed)
    other = make_agent(second, -side, env, seed=seed + 1)
    x_agent, o_agent = seats(me, other)
    if games is None:
        try:
            with walk_progress(f"exact: {cli.shown(first)} as {symbol(side)}") as progress:
                outcome = exact_outcome(x_agent, o_agent, progress=progress)
        except PolicyUnknown as error:
            raise ValueError(f"exact probabilities cannot be computed: {error}") from None
    else:
        outcome = as_outcome(*play_games(x_agent, o_agent, env, games,
                                         progress=f"{cli.shown(first)} as {symbol(side)}"))
    return side_result(outcome, side)


def results_table(rows: list[tuple[str, tuple[float, float, float]]], exact: bool) -> str:
    """The tournament layout: one row per side and a total; counts, then ratios."""
    header = f"{'':8}" + ("" if exact else "".join(f"{name:>9}" for name in OUTCOMES) + "   |") \
        + "".join(f"{name:>10}" for name in OUTCOMES)
    lines = [header]
    for label, values in rows:
        total = sum(values)
        ratios = "".join(f"{v / total:>10.6f}" if exact else f"{v / total:>10.3f}" for v in values)
        counts = "" if exact else "".join(f"{int(v):>9,}" for v in values) + "   |"
        lines.append(f"{label:8}{counts}{ratios}")
    return "\n".join(lines)


def compare(first: str, second: str, games: int | None, seed: int, both: bool,
            board: BoardShape = TIC_TAC_TOE) -> str:
    """Results of ``first`` against ``second`` on ``board``: as X, as O (with ``both``, or when
    ``first`` only plays O), and in total: exact probabilities when ``games`` is None, on any
    board whose game fits in memory (one that does not is refused in one line)."""
    env = TicTacToe(board=board)
    sides = sides_of(first, board) if both else (sides_of(first, board)[0],)
    rows = [(f"as {symbol(side)}", first_agent_results(first, second, side, games, seed, env))
            for side in sides]
    if len(rows) > 1:
        rows.append(("total", tuple(sum(column) for column in zip(*(r[1] for r in rows)))))
    kind = "exact probabilities" if games is None else f"{games:,} games per side, seed {seed}"
    on = "" if board == TIC_TAC_TOE else f" on {board.name}"
    title = f"{describe(first)} against {describe(second)}{on} ({kind})"
    return title + "\n" + results_table(rows, exact=games is None)


def draw_line(line: list, start: State | None = None) -> str:
    """The boards of a line of moves, one after another, numbered."""
    state = start or State()
    boards = []
    for number, action in enumerate(line, 1):
        mover = symbol(state.player)
        state = state.children()[action]
        boards.append(f"{number}. {mover} plays {action[0]},{action[1]}\n{state}")
    return "\n\n".join(boards)


def worst_case_report(spec: str, seed: int, board: BoardShape = TIC_TAC_TOE) -> str:
    """Whether the agent can be beaten on each side it plays, and how (board by board), on any
    board whose game fits in memory (one that does not is refused in one line)."""
    env = TicTacToe(board=board)
    parts = []
    for side in sides_of(spec, board):
        agent = make_agent(spec, side, env, seed=seed)
        try:
            with walk_progress(f"worst case of {cli.shown(spec)} as {symbol(side)}") as progress:
                value, line = worst_case(agent, progress=progress)
        except PolicyUnknown as error:
            raise ValueError(f"the worst case of {spec!r} cannot be computed: {error}") from None
        name = f"{describe(spec)} playing {symbol(side)}"
        if line is None:
            verdict = "always wins" if value > 0 else "at worst a draw"
            parts.append(f"{name}: unbeatable -- no sequence of {symbol(-side)} moves beats it "
                         f"({verdict}).")
        else:
            parts.append(f"{name}: CAN BE BEATEN in {len(line)} moves "
                         f"({' '.join(f'{r},{c}' for r, c in line)}):\n\n"
                         f"{draw_line(line, start_position(board))}\n\n{symbol(-side)} wins.")
    return "\n\n".join(parts)


def mistakes_report(spec: str, seed: int) -> str:
    """For each side the agent plays: in how many of that side's positions its move keeps the
    perfect-play value, and the positions where it does not."""
    from tictactoe_rl.neural.report import format_mistakes, mistakes, side_positions
    parts = []
    for side in sides_of(spec):
        agent = make_agent(spec, side, TicTacToe(), seed=seed)
        try:
            found = mistakes(agent, side)
        except PolicyUnknown as error:
            raise ValueError(f"the mistakes of {spec!r} cannot be computed: {error}") from None
        total = len(side_positions(side))
        parts.append(f"{describe(spec)} playing {symbol(side)}: perfect moves in "
                     f"{total - len(found):,} of {total:,} positions\n\n{format_mistakes(found)}")
    return "\n\n".join(parts)


def q_values_report(spec: str, moves: str) -> str:
    """The Q-value of every cell after ``moves``, for a table or a DQN network (``dqn:PATH`` or
    ``PATH.pt``) of the 3x3 board, laid out as the board. One of a bigger board is refused in one
    line that says what measures it instead (``--show-q`` takes no ``--board``)."""
    path = network_path(spec) if is_network(spec) else spec
    found = purpose_of(path) if os.path.isfile(path) else None
    if found is not None and found.board != TIC_TAC_TOE:
        board = f"--board {found.board.rows}x{found.board.cols} --k {found.board.k}"
        seats = f"--x {cli.shown(spec)} --o minimax" if X in found.sides else \
            f"--x minimax --o {cli.shown(spec)}"
        raise ValueError(f"{cli.shown(path)}: is {found}, and --show-q lays out 3x3 boards only; "
                         f"measure it with {cli.measure_command()} {board} {seats}, or find a "
                         f"line that beats it with --worst-case {cli.shown(spec)} {board}")
    if is_network(spec):
        from tictactoe_rl.neural.agent import show_network_q   # torch is imported only for a network
        return show_network_q(network_path(spec), moves)
    return show_q(spec, moves)


def analyse_report(spec: str, moves: str, seed: int) -> str:
    """What a search agent thinks of every move after ``moves``, on the board layout."""
    state = parse_moves(moves)
    if state.end_of_game:
        raise ValueError("the game is over after these moves: there is no move to analyse")
    agent = make_agent(spec, state.player, TicTacToe(), seed=seed)
    if not isinstance(agent, SearchAgent):
        raise ValueError(f"agent {spec!r} has no analyse(); use playout or mcts "
                         "(for a Q-table or a DQN network: --show-q PATH)")
    values = agent.analyse(state)
    return (f"{describe(spec)} playing {symbol(state.player)}: its number for every move "
            f"(the bracketed cell has the largest; cells it never tried show {UNSEEN}):\n\n"
            + board_grid(state, {action: values.get(action) for action in state.legal_actions()}))


def build_parser() -> cli.Parser:
    parser = cli.Parser(prog="Tester.py", description="Measure agents by games or exactly.",
                        epilog=f"Agent specs: {VALID_SPECS}. Options follow a colon, e.g. "
                               "'playout:pnum=200', 'mcts:time=0.05', 'minimax:style=greedy'.")
    parser.add_argument("--x", default=None, metavar="SPEC",
                        help="the first agent; it plays X (default: the table shipped for the "
                             "board: " + "; ".join(f"{table} on {board.name}" for board, table
                                                   in DEFAULT_X_TABLES.items())
                             + f"; {OTHER_BOARD_X} on any other board)")
    parser.add_argument("--o", default=DEFAULT_O, metavar="SPEC",
                        help=f"its opponent; it plays O (default: {DEFAULT_O})")
    parser.add_argument("--games", type=cli.count, default=DEFAULT_GAMES,
                        help=f"games per side (default: {DEFAULT_GAMES:,})")
    parser.add_argument("--seed", type=cli.seed, default=DEFAULT_SEED,
                        help=f"random seed (default: {DEFAULT_SEED})")
    parser.add_argument("--both", action="store_true",
                        help="the first agent also plays O against the second (sides swapped)")
    parser.add_argument("--exact", action="store_true",
                        help="exact probabilities by walking the game tree instead of sampling")
    parser.add_argument("--worst-case", metavar="SPEC",
                        help="can this agent be beaten? if so, show a line that beats it")
    parser.add_argument("--mistakes", metavar="SPEC",
                        help="every position of its side where the agent's move gives away "
                             "perfect play's value, board by board, and how many it plays right")
    parser.add_argument("--optimum", action="store_true",
                        help="print the best possible results against random and advanced, and "
                             "the best of a player that never loses (on any --board)")
    parser.add_argument("--show-q", metavar="PATH",
                        help="the Q-value of every cell, laid out as the board, in the "
                             "position after --moves, by a table or a DQN network (dqn:PATH)")
    parser.add_argument("--analyse", metavar="SPEC",
                        help="a search agent's score of every move (playout, mcts) after --moves")
    parser.add_argument("--moves", default="", metavar="MOVES",
                        help="moves from the empty board as row,col pairs, 0-based, e.g. "
                             "'1,1 0,0' (default: none, the empty board)")
    add_board_flags(parser)
    add_cache_flag(parser)
    return parser


# The flags each mode reads; any other flag given with it would be ignored, so it is refused.
MODES = {"board": {"k", "cache"}, "optimum": set(), "worst-case": {"seed"}, "mistakes": {"seed"},
         "show-q": {"moves"}, "analyse": {"moves", "seed"},
         "": {"x", "o", "games", "seed", "both", "exact"}}
BOARD_FLAGS = {"board", "k"}
ON_ANY_BOARD = {"", "worst-case", "optimum"}   # the modes that measure agents on any board


def check_mode(parser: cli.Parser, argv: list[str]) -> str:
    """The mode ``argv`` asks for (a key of ``MODES``); refuse two modes at once, and flags that
    the chosen mode would ignore."""
    given = {word[2:].split("=")[0] for word in argv if word.startswith("--")}
    if given & (BOARD_FLAGS | {"cache"}) and not given - BOARD_FLAGS - {"cache"}:
        return "board"   # the board's flags alone (--k or --cache alone: 3x3): perfect play
    modes = [mode for mode in MODES if mode in given - BOARD_FLAGS]
    if len(modes) > 1:
        parser.error(f"choose one of --{' / --'.join(modes)}")
    mode = modes[0] if modes else ""
    allowed = MODES[mode] | (BOARD_FLAGS if mode in ON_ANY_BOARD else set())
    ignored = sorted(given - allowed - {mode})
    if ignored and mode == "board":
        parser.error("--board with only --k and --cache prints perfect play's value; --cache "
                     f"does not go with {', '.join('--' + f for f in ignored)}")
    if ignored:
        name = f"--{mode}" if mode else "a comparison of --x and --o"
        parser.error(f"{name} does not use {', '.join('--' + flag for flag in ignored)}")
    return mode


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(argv)
    mode = check_mode(parser, argv)
    board = board_from(args)
    if mode == "board":
        print("\n".join(board_report(board, args.cache)))
    elif args.optimum:
        print(optimum_report(board))
    elif args.worst_case is not None:
        print(worst_case_report(args.worst_case, args.seed, board))
    elif args.mistakes is not None:
        print(mistakes_report(args.mistakes, args.seed))
    elif args.show_q is not None:
        print(q_values_report(args.show_q, args.moves))
    elif args.analyse is not None:
        print(analyse_report(args.analyse, args.moves, args.seed))
    else:
        table = DEFAULT_X_TABLES.get(board)
        first = args.x if args.x is not None else \
            OTHER_BOARD_X if table is None else cli.repository_file(table)
        print(compare(first, args.o, None if args.exact else args.games, args.seed, args.both,
                      board))
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
