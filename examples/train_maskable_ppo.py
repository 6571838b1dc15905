"""sb3-contrib's MaskablePPO on ``TicTacToe-v0``, then its policy measured exactly.

The training is the library's own loop, untouched: ``MaskablePPO("MlpPolicy", env)`` finds the
environment's ``action_masks()`` by itself, so it never tries an occupied cell. The measurement
walks every game the greedy policy can meet (``tictactoe_rl.envs.measure.measure_policy``):
against ``random``, ``advanced`` and the perfect player, the worst case any opponent can bring
about, and -- without the mask -- how often the bare policy would play an illegal move (which
loses, as in the environment):

    pip install -r requirements-extra.txt        # stable-baselines3, sb3-contrib, gymnasium
    python examples/train_maskable_ppo.py --steps 100000 --seed 1 --out Data/my_ppo_X.zip
"""

from __future__ import annotations

import os
import sys
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repository

from tictactoe_rl import cli  # noqa: E402  (after the path is set)


def exact_lines(model, side: str) -> list[str]:
    """The policy's exact results, masked and bare, and its worst case
    (``tictactoe_rl.envs.measure``)."""
    from tictactoe_rl.envs.measure import from_sb3, measure_policy

    masked = measure_policy(model, side)
    bare = measure_policy(from_sb3(model, masked=False), side)
    return [*masked.result_lines(), *bare.result_lines(", no mask"), masked.worst_line()]


def check_out(path: str, force: bool) -> None:
    """Before training: ``--out`` must end in .zip (SB3 adds it otherwise, saving elsewhere);
    an existing file there that is not a zip needs ``force``; whatever is there is kept as
    ``.bak`` (``tictactoe_rl.training.destination``)."""
    from tictactoe_rl.tables import destinations
    from tictactoe_rl.training.destination import keep_previous
    kind = destinations.Kind(".zip", "model", "saved model", "PPO")
    problem = destinations.target_problem(path, kind)
    if not problem and not path.endswith(kind.suffix):
        problem = f"a model's file name must end in {kind.suffix}"
    if not problem and os.path.isfile(path) and not force and not zipfile.is_zipfile(path):
        problem = "exists and is not a zip (a saved model); choose another path, or --force"
    if problem:
        raise ValueError(f"{cli.shown(path)}: {problem}")
    if os.path.isfile(path):
        keep_previous(path)


def main() -> int:
    parser = cli.Parser(prog="train_maskable_ppo.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--opponent", default="random", help="agent spec (default: random)")
    parser.add_argument("--side", choices=("X", "O"), default="X")
    parser.add_argument("--steps", type=cli.count, default=100_000,
                        help="environment steps to train for (default: 100,000)")
    parser.add_argument("--seed", type=cli.seed, default=1)
    parser.add_argument("--out", type=cli.path, default=None,
                        help="save the model there (a .zip, SB3's format; default: not saved; "
                             "a file there is kept as PATH.bak)")
    parser.add_argument("--force", action="store_true",
                        help="let --out replace a file that is not a zip (kept as PATH.bak)")
    args = parser.parse_args()
    if args.out:
        check_out(args.out, args.force)
    try:
        import gymnasium
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.logger import Logger

        import tictactoe_rl  # noqa: F401  (registers TicTacToe-v0)
    except ModuleNotFoundError as missing:
        cli.fail(f"error: {missing.name} is missing: pip install -r requirements-extra.txt")

    env = gymnasium.make("TicTacToe-v0", opponent=args.opponent, side=args.side)
    model = MaskablePPO("MlpPolicy", env, seed=args.seed, device="cpu", verbose=0)
    model.set_logger(Logger(None, []))    # SB3's own logger leaves an empty folder in /tmp per run
    started = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    seconds = time.perf_counter() - started
    print(f"MaskablePPO: {args.steps:,} steps in {seconds:.1f} s as {args.side} against "
          f"{args.opponent}")
    if args.out:
        model.save(args.out)
        print(f"saved to {cli.shown(args.out)} (MaskablePPO.load reads it)")
    print("\n".join(exact_lines(model, args.side)))
    return 0


if __name__ == "__main__":
    cli.run(main)
