"""Monte Carlo control: the agent learns a Q-table from whole games against an opponent.

For each episode the learner plays one game (epsilon-greedy) against ``player2``, which is part of
the environment. The game is cut into learning steps -- the learner's move plus the opponent's
reply -- and, walking the steps backwards, each step's return ``G = gamma * G + reward`` pulls its
Q-value towards it: ``Q <- Q + alpha * (G - Q)``. Rewards are X's; a learner playing O negates them.

    python MC_Trainer.py                         # X against random, the course's parameters
    python MC_Trainer.py --side O --opponent advanced --epochs 300000 --out Data/my_O.pth
"""

from __future__ import annotations

import sys

import cli
import Trainer
from AI_Agent import AI_Agent
from Episode import learning_steps, play_game, play_games
from Random_Agent import Random_Agent
from State import O, X, State, symbol
from TicTacToe import TicTacToe

# The course's parameters (SPEC section 5).
epochs = 200_000
gamma = 0.95
alpha = 0.01
OUT_NAME = "my_Q_MC_{side}.pth"
PATH = "Data/" + OUT_NAME.format(side="X")

env = TicTacToe()
player1 = AI_Agent(X, env, train=True)   # the learner
player2 = Random_Agent(O, env)           # its opponent: part of the environment
start_epoch = 0                          # where a resumed run picks up


def Generate_episode(player: AI_Agent, epoch: int) -> list[tuple]:
    """Play one game of ``player`` (exploring with the epsilon of ``epoch``) against ``player2``.

    Returns the learner's steps ``(state, action, reward)`` -- the position before its move (a
    state that never changes later), its move, and the reward of the move plus the opponent's reply
    (X's point of view) -- followed by the final position as a one-element tuple ``(state,)``.
    """
    x_agent, o_agent = (player, player2) if player.player == X else (player2, player)
    moves, final = play_game(x_agent, o_agent, env, epoch=epoch)
    return learning_steps(moves, final, player.player)


def main() -> bool:
    """Train ``player1`` for ``epochs`` episodes, save it to ``PATH`` and run ``test(100)``.
    Returns False when Ctrl-C stopped the training early (what was learned is saved all the same)."""
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

    done, interrupted = Trainer.run_episodes(learn, side, start_epoch, epochs,
                                             f"MC {symbol(side)}")
    player1.meta["episodes_done"] = done
    player1.save_Q(PATH)
    if interrupted:
        print(f"Interrupted: saved {done:,} of {epochs:,} episodes to {PATH} "
              f"(continue with --resume {PATH})")
        return False
    test(100)
    print(f"Saved the table to {PATH}")
    return True


def test(num: int) -> tuple[int, int, int]:
    """Play ``num`` games of the greedy ``player1`` against ``player2``; print and return
    ``(x_wins, o_wins, ties)``."""
    training, player1.train = player1.train, False
    x_agent, o_agent = (player1, player2) if player1.player == X else (player2, player1)
    x_wins, o_wins, ties = play_games(x_agent, o_agent, env, num)
    player1.train = training
    print(f"test({num}): X wins {x_wins}, O wins {o_wins}, ties {ties}")
    return x_wins, o_wins, ties


def configure(argv: list[str] | None = None) -> None:
    """Set the module's players and parameters from command-line arguments."""
    global epochs, gamma, alpha, PATH, player1, player2, start_epoch
    parser = cli.Parser(prog="MC_Trainer.py", description=__doc__.split("\n\n")[0])
    Trainer.add_arguments(parser, epochs, gamma, alpha, OUT_NAME)
    args = parser.parse_args(argv)
    args.seed = Trainer.fresh_seed(args.seed)
    side = Trainer.SIDES[args.side]
    epochs, gamma, alpha = args.epochs, args.gamma, args.alpha
    PATH = args.out or "Data/" + OUT_NAME.format(side=args.side)
    player1 = Trainer.make_learner(side, env, args.seed, args.epsilon, epochs)
    player2 = Trainer.make_opponent(args.opponent, -side, env, args.seed)
    start_epoch = Trainer.resume_from(args.resume, player1) if args.resume else 0
    player1.meta = Trainer.describe_run("MC", side, args, start_epoch)
    print(f"Monte Carlo control: {args.side} against {args.opponent}, {epochs:,} episodes, "
          f"gamma {gamma}, alpha {alpha}, epsilon {args.epsilon}, seed {args.seed}")


def run(argv: list[str] | None = None) -> int:
    configure(argv)
    finished = main()
    print(Trainer.exact_report(player1))
    return 0 if finished else cli.INTERRUPTED


if __name__ == "__main__":
    cli.run(lambda: run(sys.argv[1:]))
