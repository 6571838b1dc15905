"""Monte Carlo control: the agent learns a Q-table from whole games against an opponent.

For each episode the learner plays one game (epsilon-greedy) against ``player2``, which is part of
the environment. The game is cut into learning steps -- the learner's move plus the opponent's
reply -- and, walking the steps backwards, each step's return ``G = gamma * G + reward`` pulls its
Q-value towards it: ``Q <- Q + alpha * (G - Q)``. Rewards are X's; a learner playing O negates them.

Two refinements make the course's parameters reliable (``--plain`` turns both off, giving the
chapter's algorithm exactly as printed):
- Symmetry: a position and its rotated or mirrored copies are the same situation, so each update
  also goes to the seven images of the pair (``Symmetry.images``): every game teaches eight.
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

import inspect
import random
import sys

import cli
from training import trainer as Trainer
from AI_Agent import AI_Agent
from Agent import Agent
from Episode import learning_steps, play_game, play_games
from training.curves import Learning_Curve
from tables.files import check_writable
from Random_Agent import Random_Agent
from Random_Agent_Advanced import Random_Agent_Advanced  # noqa: F401 (the chapter's header)
from State import O, X, State, symbol
from exact.symmetry import images
from TicTacToe import TicTacToe

# The course's parameters (SPEC section 5).
epochs = 200_000
gamma = 0.95
alpha = 0.01
OUT_NAME = "my_Q_MC_{side}.pth"
PATH = "Data/" + OUT_NAME.format(side="X")
# Self-play (--opponent self), where the opponent keeps changing, needs a larger learning rate
# and more games (with these, both tables were unbeatable for each of 24 seeds tried).
DEFAULTS = Trainer.Defaults(epochs, gamma, alpha, OUT_NAME,
                            self_play={"epochs": 400_000, "alpha": 0.1})

PLAIN_HELP = ("the chapter's algorithm as printed: every step of every episode updates just "
              "its own pair (no board symmetries, no stop at exploratory moves)")

env = TicTacToe()
player1 = AI_Agent(X, env, train=True)   # the learner
player2 = Random_Agent(O, env)           # its opponent: part of the environment (in self-play,
                                         # a second learner that plays O)
start_epoch = 0                          # where a resumed run picks up
curve: Learning_Curve | None = None      # records the learning curves when --plot asks for them
PLOT = None                              # where to draw them
PLAIN = False                            # the chapter's update exactly (no symmetry, no stop)


def Generate_episode(player: AI_Agent, epoch: int) -> list[tuple]:
    """Play one game of ``player`` (exploring with the epsilon of ``epoch``) against ``player2``.

    Returns the learner's steps ``(state, action, reward)`` -- the position before its move (a
    state that never changes later), its move, and the reward of the move plus the opponent's reply
    (X's point of view) -- followed by the final position as a one-element tuple ``(state,)``.
    """
    # [exercise piece 2: Generate_episode] solution begins
    x_agent, o_agent = (player, player2) if player.player == X else (player2, player)
    moves, final = play_game(x_agent, o_agent, env, epoch=epoch)
    return learning_steps(moves, final, player.player)
    # [exercise piece 2] solution ends


def main() -> bool:
    """Train ``player1`` for ``epochs`` episodes of ``Generate_episode``, save its table to
    ``PATH`` with ``player1.save_Q`` and end with ``test(100)``."""
    # [exercise piece 3: main] solution begins
    # (This one also returns False when Ctrl-C stopped it early, which run() reports.)
    learners = Trainer.learners_of(player1, player2)

    def learn(epoch: int) -> State:
        if len(learners) == 1:
            episodes = [Generate_episode(player1, epoch)]
        else:
            episodes = Trainer.learner_episodes(player1, player2, env, epoch)
        for agent, episode in zip(learners, episodes):
            Q, side = agent.Q, agent.player
            final_state = episode.pop()[0]
            G = 0.0
            for state, action, reward in reversed(episode):
                G = gamma * G + side * reward
                explored = not PLAIN and action != agent.get_Q_action(state)
                for pair in ([(state, action)] if PLAIN else images(state, action)):
                    old = Q.get(pair, 0.0)
                    Q[pair] = old + alpha * (G - old)
                if explored:
                    break
        return final_state

    finished = Trainer.train_loop(learn, learners, PATH, start_epoch, epochs,
                                  f"MC {symbol(player1.player)}", curve, PLOT)
    if finished:
        test(100)
    return finished
    # [exercise piece 3] solution ends


def test(num: int) -> tuple[int, int, int]:
    """Play ``num`` games of the greedy ``player1`` against ``player2``; print and return
    ``(x_wins, o_wins, ties)``."""
    learners = Trainer.learners_of(player1, player2)
    training = [agent.train for agent in learners]
    for agent in learners:
        agent.train = False
    x_agent, o_agent = (player1, player2) if player1.player == X else (player2, player1)
    x_wins, o_wins, ties = play_games(x_agent, o_agent, env, num)
    for agent, was_training in zip(learners, training):
        agent.train = was_training
    print(f"test({num}): X wins {x_wins}, O wins {o_wins}, ties {ties}")
    return x_wins, o_wins, ties


# What a student's own main (the exercise's) cannot do, since only the solved trainer's does it.
NEEDS_SOLVED_MAIN = {"plot": "--plot needs the solved trainer, which records the curves while it "
                             "trains",
                     "resume": "--resume needs the solved trainer, which counts the episodes",
                     "self": "--opponent self needs the solved trainer, which trains an X and an "
                             "O table at once",
                     "plain": "--plain chooses between the solved trainer's two algorithms"}
PARAMETERS = ("epochs", "alpha", "gamma")   # module defaults that a main may set for itself


def is_your_main() -> bool:
    """Whether ``main`` is a student's own (the exercise's) rather than the solved trainer's,
    which hands its episodes to ``Trainer.train_loop``."""
    return "train_loop" not in inspect.unwrap(main).__code__.co_names


def configure(argv: list[str] | None = None, announce: bool = True) -> None:
    """Set the module's players and parameters from command-line arguments."""
    global epochs, gamma, alpha, PATH, player1, player2, start_epoch, curve, PLOT, PLAIN
    args = Trainer.parse_arguments("MC_Trainer.py", __doc__.split("\n\n")[0], DEFAULTS, argv,
                                   variants={"plain": (PLAIN_HELP, {})})
    epochs, gamma, alpha, PLOT, PLAIN = args.epochs, args.gamma, args.alpha, args.plot, args.plain
    player1, player2, PATH, start_epoch, curve = Trainer.setup("MC", "Monte Carlo control", args,
                                                               env, OUT_NAME, announce)
    for agent in Trainer.learners_of(player1, player2):
        agent.meta["refinements"] = "none (--plain)" if PLAIN else "symmetry, stop at exploration"


def run_your_main(argv: list[str]) -> int:
    """``python MC_Trainer.py`` in the exercise: the student's module runs as written (its own
    ``player1``, ``player2``, ``PATH``, ``gamma``); only the flags given change it, the script
    says which of them cannot reach the student's main, and the module is as it was afterwards
    (so a second run in the same process starts from the same place)."""
    args = Trainer.parse_arguments("MC_Trainer.py", __doc__.split("\n\n")[0], DEFAULTS, argv,
                                   variants={"plain": (PLAIN_HELP, {})})
    given = {word[2:].split("=")[0] for word in argv if word.startswith("--")}
    self_play = args.opponent.strip().lower() == Trainer.SELF_PLAY
    for need, reason in NEEDS_SOLVED_MAIN.items():
        if need in given or (need == "self" and self_play):
            cli.fail(f"error: {reason}; your main trains on its own (leave the flag out)")
    names = ("player1", "player2", "PATH", *PARAMETERS)
    kept = {name: globals()[name] for name in names}
    sides, decay = (player1.player, player2.player), player1.decay_epochs
    try:
        set_up_your_run(args, given)
        try:
            main()
        except KeyboardInterrupt:
            print("\nInterrupted: your main was stopped before it finished; it saved nothing "
                  "unless it saves along the way", file=sys.stderr)
            return cli.INTERRUPTED
        Trainer.print_reports([player1])
        return 0
    finally:
        globals().update(kept)
        (player1.player, player2.player), player1.decay_epochs = sides, decay


def set_up_your_run(args, given: set[str]) -> None:
    """Apply the flags ``given`` to the student's module, seed its players (``--seed``, else a
    fresh seed, printed) and say what will be trained."""
    global PATH, player1, player2
    player1.Q.clear()     # a run starts from an empty table, as in a fresh process
    if "side" in given and Trainer.SIDES[args.side] != player1.player:
        # the same objects on the other sides, so a Q = player1.Q taken at import stays theirs
        player1.player, player2.player = -player1.player, player1.player
    if "opponent" in given:
        player2 = Trainer.make_opponent(args.opponent, -player1.player, env, args.seed)
    random.seed(args.seed)    # for code that draws from random itself
    for role, agent in (("learner", player1), ("opponent", player2)):
        if isinstance(agent, Agent):
            agent.rng.seed(Trainer.learner_seed(args.seed, role))
    PATH = args.out or PATH
    check_writable(PATH)
    own = [name for name in PARAMETERS if name in inspect.unwrap(main).__code__.co_varnames]
    for name in PARAMETERS:
        if name in given:
            globals()[name] = getattr(args, name)
            if name in own:
                print(f"note: --{name} does not reach your main, which sets {name} itself")
    if "epochs" in given and "epochs" not in own:
        player1.decay_epochs = max(1, args.epochs // 2)   # as the solved trainer's schedule
    if "epsilon" in given:
        print("note: --epsilon does not reach your main: your epsilon_greedy sets the schedule")
    player1.meta = Trainer.describe_run("your main", player1.player, args, 0)
    player1.meta.update({name: "set by your main" for name in own})
    print(f"Training with your main: {symbol(player1.player)} against {type(player2).__name__}, "
          f"seed {args.seed}, saving to {PATH}"
          + (f" (it sets {', '.join(own)} itself)" if own else ""))


def run(argv: list[str] | None = None) -> int:
    """Train from the command line ``argv``, print the exact report; return the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if is_your_main() and not ({"-h", "--help"} & set(argv)):
        return run_your_main(argv)
    configure(argv)
    finished = main() is not False
    Trainer.print_reports(Trainer.learners_of(player1, player2))
    return 0 if finished else cli.INTERRUPTED


if __name__ == "__main__":
    cli.run(lambda: run(sys.argv[1:]))
