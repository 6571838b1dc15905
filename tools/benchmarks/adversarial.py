"""The learner proven unbeatable on 4x4 k=4, trained again as a user trains it, and measured.

    python tools/benchmarks/adversarial.py                # both sides, seed 1
    python tools/benchmarks/adversarial.py --sides X

For each side: ``python Adversarial_Trainer.py --board 4x4 --k 4 --side SIDE --seed 1`` runs in a
process of its own (into a scratch folder), with the time it reports and its peak memory; the
target is 15 minutes a side. Then the table it saved is judged again (``worst_case``: the worst
any line of play does to it), measured exactly against ``random``, ``advanced`` and the perfect
player, and compared with the one shipped in ``Data/`` (a run is deterministic for a seed: the
same table).
Its results against random and advanced stand beside the best any never-losing player can get,
``python Tester.py --optimum --board 4x4 --k 4`` (docs/BOARDS.md).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)
from tools.benchmarks.machine import machine  # noqa: E402
from tictactoe_rl.exact.opponents import exact_results  # noqa: E402
from tictactoe_rl.exact.worst import worst_case  # noqa: E402
from tictactoe_rl.geometry import BoardShape  # noqa: E402
from tictactoe_rl.tables.files import load_table  # noqa: E402
from tictactoe_rl.players.specs import make_agent  # noqa: E402
from tictactoe_rl.training.options import SIDES  # noqa: E402
from TicTacToe import TicTacToe  # noqa: E402
from tools.board_compare import train  # noqa: E402

BOARD = BoardShape(4, 4, 4)
SEED = 1
TARGET_MINUTES = 15
VERDICTS = {-1: "beaten", 0: "never beaten (at worst a draw)", 1: "always wins"}


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="tools/benchmarks/adversarial.py",
                        description=__doc__.splitlines()[0])
    parser.add_argument("--sides", nargs="+", choices=["X", "O"], default=["X", "O"],
                        help="the sides to train (default: X O)")
    args = parser.parse_args(argv)
    env = TicTacToe(board=BOARD)
    print(f"{BOARD.name}, seed {SEED}, on {machine()} "
          f"(load average {os.getloadavg()[0]:.1f} at the start):\n", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for side in args.sides:
            out = Path(folder) / f"Q_ADV_{side}_4x4k4.pth"
            seconds, peak = train("Adversarial_Trainer.py", [
                "--board", "4x4", "--k", "4", "--side", side, "--seed", str(SEED), "--out",
                str(out), "--no-progress"])
            agent = make_agent(str(out), SIDES[side], env)
            games = agent.meta["episodes_done"]
            value, _ = worst_case(agent)
            shipped = ROOT / "Data" / out.name
            same = shipped.is_file() and load_table(
                str(shipped), side=SIDES[side], board=BOARD)[0] == agent.Q
            print(f"{side}: proven in {seconds:.0f} s ({games:,} games; target "
                  f"{TARGET_MINUTES} minutes), peak memory {peak / 2**20:,.0f} MB\n"
                  f"   {len(agent.Q):,} entries, a file of {out.stat().st_size / 2**20:.1f} MB, "
                  f"{'the same as' if same else 'NOT the same as'} Data/{out.name}\n"
                  f"   worst case: {VERDICTS[value]}", flush=True)
            for opponent, shares in exact_results(agent, ("random", "advanced",
                                                          "perfect")).items():
                rows.append(f"{side} vs {opponent:<10}" + "".join(f"{share:10.6f}"
                                                                for share in shares))
    print(f"\n{'proven learner':<16}{'wins':>10}{'losses':>10}{'draws':>10}")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
