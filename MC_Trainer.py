"""Monte Carlo control: the agent learns a Q-table from whole games against an opponent.

For each episode the learner plays one game (epsilon-greedy) against ``player2``, which is part of
the environment. The game is cut into learning steps -- the learner's move plus the opponent's
reply -- and, walking the steps backwards, each step's return ``G = gamma * G + reward`` pulls its
Q-value towards it: ``Q <- Q + alpha * (G - Q)``. Rewards are X's; a learner playing O negates them.

``main`` is the chapter's loop (the exercise's piece 3). While ``main`` is your own, ``python
MC_Trainer.py`` runs it as written, and the flags that need the solved trainer (``--plain``,
``--plot``, ``--resume``, ``--opponent self``) say so. Once it is solved, the command line trains
with two refinements that make the course's parameters reliable (``--plain`` turns both off,
giving the chapter's algorithm exactly as printed):
- Symmetry: a position and its rotated or mirrored copies are the same situation, so each update
  also goes to the seven images of the pair (``tictactoe_rl.exact.symmetry.images``): every game teaches eight.
- The walk back stops after a step whose move was exploratory (not the greedy one): the returns of
  the earlier steps then depend on a random move, so they say little about the greedy policy the
  agent will play. (This is off-policy Monte Carlo control with a greedy target.) Without it a
  good move that was tried mostly while the agent still played randomly keeps a low, stale value.

    python MC_Trainer.py                         # X against random, the course's parameters
    python MC_Trainer.py --side O --opponent advanced --epochs 300000 --out Data/my_O.pth
    python MC_Trainer.py --plot mc.png           # also draw the learning curves
    python MC_Trainer.py --opponent self         # self-play: an X table and an O table
    python MC_Trainer.py --plain                 # the chapter's algorithm without refinements
"""

from __future__ import annotations

from AI_Agent import AI_Agent
from Episode import learning_steps, play_game
from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced  # noqa: F401 (the chapter's header)
from State import O, X, State
from TicTacToe import TicTacToe
from tictactoe_rl.training.loop import train_loop
from tictactoe_rl.training.run import Run

# The course's parameters.
epochs = 200_000
gamma = 0.95
alpha = 0.01
PATH = "Data/my_Q_MC_X.pth"

env = TicTacToe()
player1 = AI_Agent(X, env, train=True)   # the learner
player2 = Random_Agent(O, env)           # its opponent: part of the environment


def Generate_episode(player: AI_Agent, epoch: int) -> list[tuple]:
    """Play one game of ``player`` (exploring with the epsilon of ``epoch``) against ``player2``.

    Returns the learner's steps ``(state, action, reward)`` -- the position before its move (a
    state that never changes later), its move, and the reward of the move plus the opponent's reply
    (X's point of view) -- followed by the final position as a one-element tuple ``(state,)``.
    """
    # [exercise piece 2: Generate_episode] solution begins
    x_agent, o_agent = (player, player2) if player.player == X else (player2, player)
    moves, final = play_game(x_agent, o_agent, env, epoch=epoch)
    return learning_steps(moves, player.player) + [(final,)]
    # [exercise piece 2] solution ends


def main() -> bool:
    """Train ``player1`` for ``epochs`` episodes of ``Generate_episode``, save its table to
    ``PATH`` with ``player1.save_Q`` and end with ``test(100)``."""
    # [exercise piece 3: main] solution begins
    # (The chapter's update, in the shared loop: it shows progress, and Ctrl-C stops it early and
    # still saves -- then main returns False.)
    Q, side = player1.Q, player1.player

    def learn(epoch: int) -> State:
        episode = Generate_episode(player1, epoch)
        final_state = episode.pop()[0]
        G = 0.0
        for state, action, reward in reversed(episode):
            G = gamma * G + side * reward
            old = Q.get((state, action), 0.0)
            Q[(state, action)] = old + alpha * (G - old)
        return final_state

    finished = train_loop(Run.of_module(player1, player2, env, PATH, epochs, gamma, alpha), learn)
    if finished:
        test(100)
    return finished
    # [exercise piece 3] solution ends


def test(num: int) -> tuple[int, int, int]:
    """Play ``num`` games of the greedy ``player1`` against ``player2``; print and return
    ``(x_wins, o_wins, ties)``."""
    return test_games(player1, player2, env, num)


# --- Below: the command line's machinery. A student may type the chapter's header over the one
# above (its imports and module names as printed, or none of epochs, alpha, gamma or PATH), so
# nothing here reads a name of the header when the module loads: the names are looked up when
# the command line runs, and one it needs but cannot find is named in one line.
import inspect  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402

from tictactoe_rl import cli  # noqa: E402
from Agent import Agent  # noqa: E402
from tictactoe_rl.exploration.schedules import Schedule  # noqa: E402
from State import State as Position, symbol  # noqa: E402 (a header may not import State)
from tictactoe_rl.tables.files import check_writable  # noqa: E402
from tictactoe_rl.training.command import Trainer, main as train_from_command_line  # noqa: E402
from tictactoe_rl.training.monte_carlo import plain_update, refined_update  # noqa: E402
from tictactoe_rl.training.options import SELF_PLAY, SIDES, Defaults, Variant, is_self_play  # noqa: E402
from tictactoe_rl.training.report import print_reports, test_games  # noqa: E402
from tictactoe_rl.training.destination import Purpose, check_destination  # noqa: E402
from tictactoe_rl.training.learners import TableLearner  # noqa: E402
from tictactoe_rl.training.rules import chapter_rule  # noqa: E402
from tictactoe_rl.training.run import describe_run, learner_seed, make_opponent  # noqa: E402

# The course's parameters, the solved trainer's defaults (the header above states them too).
COURSE_EPOCHS, COURSE_GAMMA, COURSE_ALPHA = 200_000, 0.95, 0.01


# How the command line trains: the refined update, or the chapter's with --plain. Self-play
# (--opponent self), where the opponent keeps changing, needs a larger learning rate and more
# games (with these, both tables were unbeatable for each of 24 seeds tried).
PLAIN_HELP = ("the chapter's algorithm as printed: every step of every episode updates just "
              "its own pair (no board symmetries, no stop at exploratory moves)")
TRAINER = Trainer(
    "MC", "Monte Carlo control", "MC_Trainer.py", __doc__.split("\n\n")[0],
    chapter_rule(refined_update),
    Defaults(COURSE_EPOCHS, COURSE_GAMMA, COURSE_ALPHA, "my_Q_MC_{side}.pth",
             self_play={"epochs": 400_000, "alpha": 0.1}),
    variants={"plain": Variant(PLAIN_HELP, update=chapter_rule(plain_update),
                               meta={"refinements": "none (--plain)"})},
    meta={"refinements": "symmetry, stop at exploration"})


# What a student's own main (the exercise's) cannot do, since only the solved trainer's does it.
NEEDS_SOLVED_MAIN = {"plot": "--plot needs the solved trainer, which records the curves while it "
                             "trains",
                     "resume": "--resume needs the solved trainer, which counts the episodes",
                     SELF_PLAY: "--opponent self needs the solved trainer, which trains an X and an "
                             "O table at once",
                     "plain": "--plain chooses between the solved trainer's two algorithms"}
PARAMETERS = ("epochs", "alpha", "gamma")   # module defaults that a main may set for itself
MISSING = object()
# The header's names the command line needs, and how the chapter's header sets each.
HEADER_NAMES = {
    "main": "def main(): ...", "Generate_episode": "def Generate_episode(player, epoch): ...",
    "env": "env = TicTacToe(State())",
    "player1": "player1 = AI_Agent(1, env, graphics=None, Q_table_PATH=None)",
    "player2": "player2 = Random_Agent(-1, env, graphics=None)",
    "PATH": "PATH = 'Data/my_Q_MC_X.pth' (or give --out FILE)"}


def require_header(*names: str) -> None:
    """One line naming the first of the header's ``names`` that MC_Trainer.py lacks, exit 2."""
    for name in names:
        if name not in globals():
            cli.fail(f"error: MC_Trainer.py has no module-level {name}, which python "
                     f"MC_Trainer.py needs to run your main: define it as the chapter's header "
                     f"does, {HEADER_NAMES[name]}")


def is_your_main() -> bool:
    """Whether ``main`` is a student's own (the exercise's) rather than the solved trainer's,
    which hands its episodes to ``tictactoe_rl.training.loop.train_loop``."""
    return "train_loop" not in inspect.unwrap(main).__code__.co_names


def run_your_main(argv: list[str]) -> int:
    """``python MC_Trainer.py`` in the exercise: the student's module runs as written (its own
    ``player1``, ``player2``, ``PATH``, ``gamma``); only the flags given change it, the script
    says which of them cannot reach the student's main, and the module is as it was afterwards
    (so a second run in the same process starts from the same place)."""
    args = TRAINER.parse(argv)
    require_header("player1", "player2", "env", "Generate_episode",
                   *(() if args.out else ("PATH",)))
    cli.stop_at_unwritten_piece(player1.epsilon_greedy, Generate_episode, main)
    given = {word[2:].split("=")[0] for word in argv if word.startswith("--")}
    for need, reason in NEEDS_SOLVED_MAIN.items():
        if need in given or (need == SELF_PLAY and is_self_play(args)):
            cli.fail(f"error: {reason}; your main trains on its own (leave the flag out)")
    names = ("player1", "player2", "PATH", *PARAMETERS)
    kept = {name: globals().get(name, MISSING) for name in names}
    sides, decay = (player1.player, player2.player), player1.decay_epochs
    try:
        set_up_your_run(args, given)
        try:
            main()
        except KeyboardInterrupt as interrupt:
            print("\nInterrupted: your main was stopped before it finished; it saved nothing "
                  "unless it saves along the way", file=sys.stderr)
            return cli.stop_status(cli.signal_of(interrupt))
        print_reports([TableLearner(player1)], [PATH])
        return 0
    finally:
        for name, value in kept.items():
            if value is MISSING:
                globals().pop(name, None)
            else:
                globals()[name] = value
        (player1.player, player2.player), player1.decay_epochs = sides, decay


def set_up_your_run(args, given: set[str]) -> None:
    """Apply the flags ``given`` to the student's module (whose main reads the course's module
    names), seed its players (``--seed``, else a fresh seed, printed) and say what will be
    trained."""
    global PATH, player2
    if "side" in given and SIDES[args.side] != player1.player:
        # the same objects on the other sides, so a Q = player1.Q taken at import stays theirs
        player1.player, player2.player = -player1.player, player1.player
    if "opponent" in given:
        player2 = make_opponent(args.opponent, -player1.player, env, args.seed)
    if player1.player == SIDES["O"]:
        check_episodes_play_o()
    player1.Q.clear()     # a run starts from an empty table, as in a fresh process
    random.seed(args.seed)    # for code that draws from random itself
    for role, agent in (("learner", player1), ("opponent", player2)):
        if isinstance(agent, Agent):
            agent.rng.seed(learner_seed(args.seed, role))
    PATH = args.out or PATH
    check_destination(PATH, Purpose("table", env.shape, (player1.player,)), args.force,
                      check_writable)
    own = [name for name in PARAMETERS if name in inspect.unwrap(main).__code__.co_varnames]
    for name in PARAMETERS:
        if name in given:
            globals()[name] = getattr(args, name)
            if name in own:
                print(f"note: --{name} does not reach your main, which sets {name} itself")
    if "epochs" in given and "epochs" not in own:
        # as the solved trainer's schedule
        player1.decay_epochs = Schedule(args.epsilon).window(args.epochs)
    if "epsilon" in given:
        print("note: --epsilon does not reach your main: your epsilon_greedy sets the schedule")
    player1.meta = describe_run("your main", symbol(player1.player), args, 0)
    player1.meta.update({name: "set by your main" for name in own})
    print(f"Training with your main: {symbol(player1.player)} against {type(player2).__name__}, "
          f"seed {args.seed}, saving to {cli.shown(PATH)}"
          + (f" (it sets {', '.join(own)} itself)" if own else ""))


def check_episodes_play_o() -> None:
    """Before an O learner trains: one episode of the student's ``Generate_episode``, and one
    line (exit 2) if a step of it starts with X to move -- the chapter's code lets ``player1``
    open the game, so O needs piece 4, and its table would be refused only after the whole run."""
    steps = Generate_episode(player1, 0)[:-1]
    if any(isinstance(step[0], Position) and step[0].player != SIDES["O"] for step in steps):
        cli.fail("error: --side O needs your Generate_episode to let X (player2) move first: in "
                 "yours player1 opens the game, as X, so every step of an O learner would start "
                 "with X to move. That is the bonus piece 4: python check.py --hint 2")


def run(argv: list[str] | None = None) -> int:
    """Train from the command line ``argv``: the student's main when it is theirs, else the
    solved trainer (``TRAINER``) as every trainer runs; return the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    require_header("main")
    if is_your_main() and not ({"-h", "--help"} & set(argv)):
        return run_your_main(argv)
    return train_from_command_line(TRAINER, argv)


if __name__ == "__main__":
    cli.run(lambda: run(sys.argv[1:]))
