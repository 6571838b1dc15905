"""Tabular Q-learning on ``TicTacToe-v0`` through Gymnasium's API alone, saved as a Q-table that
the repository's tools measure exactly.

The learning loop sees only what any Gymnasium learner sees -- observations, rewards and
``info["action_mask"]`` -- and knows nothing of ``State``. Only the saving at the end turns
observations back into positions (``tictactoe_rl.envs.board.position_of``), so that ``Tester.py`` can read it:

    python examples/train_gymnasium.py --episodes 30000 --seed 1 --out Data/my_gym_X.pth
    python Tester.py --x Data/my_gym_X.pth --o random --exact
    python Tester.py --worst-case Data/my_gym_X.pth
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repository

from tictactoe_rl import cli  # noqa: E402  (after the path is set)

GAMMA = 0.9      # a win sooner is worth more than a win later
ALPHA = 0.2
EPSILON_END = 0.05


def greedy(Q: dict, seen: bytes, legal) -> int:
    """The legal action with the largest value (ties to the lowest cell)."""
    return max(legal, key=lambda action: (Q[seen, action], -action))


def train(env, episodes: int, seed: int) -> dict:
    """Q-learning with an epsilon falling linearly to ``EPSILON_END`` over the first half."""
    rng = random.Random(seed)
    Q: dict = defaultdict(float)   # (observation bytes, action) -> value
    observation, info = env.reset(seed=seed)
    for episode in range(episodes):
        epsilon = max(EPSILON_END, 1 - episode / (episodes / 2))
        done = False
        while not done:
            seen, legal = observation.tobytes(), info["action_mask"].nonzero()[0].tolist()
            action = rng.choice(legal) if rng.random() < epsilon else greedy(Q, seen, legal)
            observation, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            later = info["action_mask"].nonzero()[0].tolist()
            target = reward if done else GAMMA * Q[observation.tobytes(), greedy(
                Q, observation.tobytes(), later)]
            Q[seen, action] += ALPHA * (target - Q[seen, action])
        observation, info = env.reset()
    return Q


def as_table(Q: dict, side: int) -> dict:
    """The learned values keyed as the repository's tables are: ``(State, (row, col))``."""
    import numpy as np

    from tictactoe_rl.envs import board

    return {(board.position_of(np.frombuffer(seen, dtype=np.int8), side), board.cell_of(action)):
            value for (seen, action), value in Q.items()}


def main() -> int:
    parser = cli.Parser(prog="train_gymnasium.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--opponent", default="random", help="agent spec (default: random)")
    parser.add_argument("--side", choices=("X", "O"), default="X")
    parser.add_argument("--episodes", type=cli.count, default=30_000)
    parser.add_argument("--seed", type=cli.seed, default=1)
    parser.add_argument("--out", type=cli.path, default=None,
                        help="table path (default: Data/my_gym_SIDE.pth)")
    parser.add_argument("--force", action="store_true",
                        help="let --out replace a file that is not a table for this side on 3x3, "
                             "or a shipped table (the previous file is kept as PATH.bak)")
    args = parser.parse_args()
    try:
        import gymnasium

        from tictactoe_rl import envs
    except ModuleNotFoundError as missing:
        cli.fail(f"error: {missing.name} is missing: pip install -r requirements-extra.txt")
    from tictactoe_rl.geometry import TIC_TAC_TOE
    from State import O, X
    from tictactoe_rl.tables.files import check_writable, save_table
    from tictactoe_rl.training.destination import Purpose, check_destination

    out = args.out or cli.own_file(f"Data/my_gym_{args.side}.pth")
    purpose = Purpose("table", TIC_TAC_TOE, (X if args.side == "X" else O,))
    check_destination(out, purpose, args.force, check_writable)
    env = gymnasium.make(envs.register(), opponent=args.opponent, side=args.side)
    started = time.perf_counter()
    Q = train(env, args.episodes, args.seed)
    seconds = time.perf_counter() - started
    side = env.unwrapped.side
    save_table(out, as_table(Q, side), side, {
        "algorithm": "Q-learning on TicTacToe-v0 (examples/train_gymnasium.py)",
        "opponent": args.opponent, "epochs": args.episodes, "episodes_done": args.episodes,
        "gamma": GAMMA, "alpha": ALPHA, "seed": args.seed})
    print(f"{args.episodes:,} episodes in {seconds:.1f} s against {args.opponent}; "
          f"{len(Q):,} state-action values saved to {cli.shown(out)}")
    print(f"measure it: python Tester.py --x {cli.shown(out)} --o random --exact" if side == 1
          else f"measure it: python Tester.py --x random --o {cli.shown(out)} --exact")
    return 0


if __name__ == "__main__":
    cli.run(main)
