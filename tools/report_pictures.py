"""Make the pictures of the class report in docs/images from a real grading run.

A small class is graded by ``tools/grade.py`` as a teacher runs it, and its ``report.html`` is
shown by a headless Chromium on a 1280- and an 800-pixel screen and on a phone 390 pixels wide
(the first screen of each).

    python tools/report_pictures.py                 # writes docs/images/grading_report_*.png
    python tools/report_pictures.py --out somewhere

The class: a correct hand-in, one with a wrong Monte Carlo return, one that wrote nothing and one
whose ``Generate_episode`` calls a method the opponent does not have (piece 2 fails, piece 3
passes on the check's own episodes). Needs Chromium (``apt-get install chromium``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)
from tools.benchmarks.grading import hand_in  # noqa: E402

SCREENS = {1280: 900, 800: 900, 390: 844}          # width -> height of the first screen
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
EPOCHS = 3_000
CRASH_BEFORE = "    moves, final = play_game(x_agent, o_agent, env, epoch=epoch)\n"


def write_class(folder: Path) -> list[Path]:
    """The four hand-ins (see the module docstring), in ``folder``; their paths relative to its
    parent, as the report shows them."""
    kinds = {"alice": "correct", "bob": "wrong", "carol": "empty", "dave": "correct"}
    for name, kind in kinds.items():
        hand_in(folder / name, kind, EPOCHS)
    trainer = folder / "dave" / "MC_Trainer.py"
    text = trainer.read_text(encoding="utf-8")
    if CRASH_BEFORE not in text:
        cli.fail("report_pictures.py: MC_Trainer.py's Generate_episode has changed; update "
                 "CRASH_BEFORE")
    trainer.write_text(text.replace(CRASH_BEFORE, "    player2.choose_move(State())\n"
                                    + CRASH_BEFORE, 1), encoding="utf-8")
    return [Path(folder.name, name) for name in kinds]


def main(argv: list[str] | None = None) -> int:
    parser = cli.Parser(prog="tools/report_pictures.py", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images",
                        help="the folder of the pictures (default: docs/images)")
    args = parser.parse_args(argv)
    browser = next(filter(None, map(shutil.which, BROWSERS)), None)
    if browser is None:
        cli.fail("report_pictures.py: no Chromium found (apt-get install chromium)")
    if not args.out.is_dir():
        cli.fail(f"report_pictures.py: {cli.shown(args.out)} is not a folder")
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        hand_ins = write_class(work / "hand-ins")
        subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"), *map(str, hand_ins),
                        "--out", "report", "--jobs", "2"], cwd=work, check=True)
        page = (work / "report" / "report.html").as_uri()
        for width, height in SCREENS.items():
            picture = args.out / f"grading_report_{width}.png"
            subprocess.run([browser, "--headless=new", "--no-sandbox", "--disable-gpu",
                            "--hide-scrollbars", f"--window-size={width},{height}",
                            f"--screenshot={picture}", page], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
            print(f"wrote {cli.shown(picture)}")
    return 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
