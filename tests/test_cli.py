"""Command lines: --help works, and every bad argument or bad table file gives exit status 2 and
one line on stderr that names the argument or the file -- never a traceback.

Most cases run the script's entry point in this process (``cli.run`` exactly as ``__main__`` does,
in an empty working folder so that nothing can land in the project's Data/); a sample of them runs
as real subprocesses too, in parallel, to show the same from the outside.
"""

import os
import pickle
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch

from tictactoe_rl import cli
from tictactoe_rl.tables.files import save_table
from State import O, X, State, parse_moves

ROOT = Path(__file__).resolve().parent.parent
USAGE_ERROR = 2
TIMEOUT = 120
VALID_NAMES = ("random", "advanced", "minimax")   # an unknown spec must list the valid ones

# Files that no script may accept, by name in the working folder.
BAD_TABLES = ("missing.pth", "empty.pth", "truncated.pth", "text.pth", "evil.pth", "evil_raw.pth",
              "tensor.pth", "list.pth", "nim.pth", "nan.pth", "folder.pth")


class RunsCommand:
    """Unpickling this runs a command that creates the file ``marker``."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return subprocess.call, ([sys.executable, "-c", f"open({self.marker!r}, 'w').close()"],)


def make_files(folder: Path) -> None:
    """Good and bad tables for the runs: an X table, an O table, and every kind of bad file."""
    save_table(folder / "x_table.pth", {(State(), (1, 1)): 0.5}, X, {"episodes_done": 10})
    save_table(folder / "o_table.pth", {(parse_moves("1,1"), (0, 0)): 0.5}, O, {"episodes_done": 10})
    save_table(folder / "no_count.pth", {(State(), (1, 1)): 0.5}, X, {})
    good = (folder / "x_table.pth").read_bytes()
    (folder / "empty.pth").write_bytes(b"")
    (folder / "truncated.pth").write_bytes(good[:len(good) // 2])
    (folder / "text.pth").write_text("not a table\n")
    (folder / "folder.pth").mkdir()
    marker = str(folder / "MARKER")
    torch.save({(State(), (1, 1)): RunsCommand(marker)}, folder / "evil.pth")
    (folder / "evil_raw.pth").write_bytes(pickle.dumps(RunsCommand(marker)))
    torch.save(torch.ones(3), folder / "tensor.pth")
    torch.save([1, 2], folder / "list.pth")
    torch.save({((1, 3, 5, 7), (0, 1)): 0.5}, folder / "nim.pth")
    torch.save({(State(), (1, 1)): float("nan")}, folder / "nan.pth")


def assert_one_line_error(status, stdout: str, stderr: str, *names: str) -> str:
    """Exit status 2, exactly one line on stderr, no traceback, and the line names one of
    ``names`` (the flag or the value it refused)."""
    assert status == USAGE_ERROR, (status, stderr[-2000:])
    assert "Traceback" not in stderr + stdout
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert any(name in lines[0] for name in names), lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("cli")
    make_files(folder)
    return folder


@pytest.fixture
def invoke(workdir, monkeypatch, capsys):
    """Run a script's command line in this process: ``invoke(module, entry, argv)`` returns
    ``(exit status, stdout, stderr)``. The module's globals are restored afterwards."""
    monkeypatch.chdir(workdir)

    def call(module, entry: str, argv: list[str]):
        for name, value in list(vars(module).items()):
            if not name.startswith("__"):
                monkeypatch.setattr(module, name, value)
        capsys.readouterr()
        with pytest.raises(SystemExit) as exit_info:
            cli.run(lambda: getattr(module, entry)(argv))
        out, err = capsys.readouterr()
        return exit_info.value.code, out, err
    return call


def run(folder: Path, script: str, args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / script), *args], cwd=folder,
                          capture_output=True, text=True, timeout=TIMEOUT,
                          env={**os.environ, "PYTHONIOENCODING": "utf-8"})


def run_all(folder: Path, runs: dict) -> dict:
    """``{name: (script, args)}`` run as subprocesses, a few at a time."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {name: pool.submit(run, folder, script, args)
                   for name, (script, args) in runs.items()}
        return {name: future.result() for name, future in futures.items()}


# --- MC_Trainer.py ---------------------------------------------------------------------------

TRAINER = "MC_Trainer.py"
# A short run into the working folder, so that an argument wrongly accepted costs little.
QUICK = ["--epochs", "50", "--out", "out.pth"]

TRAINER_CASES = {
    "epochs negative": (["--epochs", "-5"], "--epochs"),
    "epochs zero": (["--epochs", "0"], "--epochs"),
    "epochs huge": (["--epochs", str(10**12)], "--epochs"),
    "epochs empty": (["--epochs", ""], "--epochs"),
    "epochs Arabic-Indic digits": (["--epochs", "١٢"], "--epochs"),
    "epochs full-width digits": (["--epochs", "１２"], "--epochs"),
    "epochs float": (["--epochs", "1e3"], "--epochs"),
    "epochs junk": (["--epochs", "12abc"], "--epochs"),
    "epochs missing value": (["--epochs"], "--epochs"),
    "gamma above 1": (["--gamma", "2"], "--gamma"),
    "gamma zero": (["--gamma", "0"], "--gamma"),
    "gamma nan": (["--gamma", "nan"], "--gamma"),
    "gamma negative": (["--gamma", "-0.5"], "--gamma"),
    "gamma empty": (["--gamma", ""], "--gamma"),
    "alpha above 1": (["--alpha", "1.5"], "--alpha"),
    "alpha Arabic decimal": (["--alpha", "٠٫٥"], "--alpha"),
    "side Z": (["--side", "Z"], "--side"),
    "side lower case": (["--side", "x"], "--side"),
    "side empty": (["--side", ""], "--side"),
    "epsilon unknown": (["--epsilon", "foo"], "--epsilon"),
    "seed negative": (["--seed", "-1"], "--seed"),
    "seed too big": (["--seed", str(2**32)], "--seed"),
    "seed text": (["--seed", "abc"], "--seed"),
    "seed empty": (["--seed", ""], "--seed"),
    "unknown flag": (["--frobnicate"], "--frobnicate"),
    "stray argument": (["positional"], "positional"),
    "plot not an image": (["--plot", "curves.txt"], "--plot"),
    "opponent unknown": (["--opponent", "foo"], "foo"),
    "opponent empty": (["--opponent", ""], "agent"),
    "opponent blank": (["--opponent", "   "], "agent"),
    "opponent non-ASCII": (["--opponent", "rändom"], "rändom"),
    "opponent bad option": (["--opponent", "random:pnum=3"], "pnum"),
    "opponent bad option value": (["--opponent", "advanced:random_step=0"], "random_step"),
    "opponent option without value": (["--opponent", "advanced:zz"], "zz"),
    "opponent table for the wrong side": (["--opponent", "x_table.pth"], "x_table.pth"),
    "resume table for the wrong side": (["--resume", "o_table.pth"], "o_table.pth"),
    "resume table without an episode count": (["--resume", "no_count.pth"], "no_count.pth"),
    **{f"resume {name}": (["--resume", name], name) for name in BAD_TABLES},
    **{f"opponent {name}": (["--opponent", name], name) for name in BAD_TABLES},
}
# Refused before any training starts, so a typo never costs a whole run.
TRAINER_EARLY_REFUSALS = {
    "out empty": (["--out", ""], "--out"),
    "resume empty": (["--resume", ""], "--resume"),
    "out is a folder": (["--out", "folder.pth"], "folder.pth"),
    "out under a file": (["--out", "text.pth/t.pth"], "text.pth"),
    "resume beyond epochs": (["--resume", "x_table.pth", "--epochs", "5"], "--epochs"),
    "opponent human": (["--opponent", "human"], "human"),   # refused only after the bar started
}
LISTS_VALID_SPECS = {"opponent unknown", "opponent empty", "opponent blank", "x unknown", "x empty",
                     "o blank"}


def resuming_needs_the_solved_trainer(cases) -> list:
    """The cases, those that resume a table marked ``solved_only``: a student's own main cannot
    resume, and the trainer refuses ``--resume`` with it whatever the file."""
    return [pytest.param(case, marks=pytest.mark.solved_only) if "resume" in case else case
            for case in cases]


@pytest.mark.parametrize("case", resuming_needs_the_solved_trainer(TRAINER_CASES))
def test_trainer_refuses_bad_input_in_one_line(invoke, workdir, case):
    import MC_Trainer
    args, name = TRAINER_CASES[case]
    line = assert_one_line_error(*invoke(MC_Trainer, "run", [*QUICK, *args]), name)
    if case in LISTS_VALID_SPECS:
        assert all(valid in line for valid in VALID_NAMES), line
    assert not (workdir / "MARKER").exists()
    assert not (workdir / "out.pth").exists()


@pytest.mark.parametrize("case", resuming_needs_the_solved_trainer(TRAINER_EARLY_REFUSALS))
def test_trainer_refuses_bad_paths_before_training(invoke, case):
    import MC_Trainer
    args, name = TRAINER_EARLY_REFUSALS[case]
    assert_one_line_error(*invoke(MC_Trainer, "run", ["--epochs", "50", "--out", "gap.pth", *args]),
                          name)


def test_trainer_help(invoke):
    import MC_Trainer
    status, out, err = invoke(MC_Trainer, "run", ["--help"])
    assert status == 0 and err == ""
    for flag in ("--epochs", "--gamma", "--alpha", "--side", "--opponent", "--seed", "--out",
                 "--resume"):
        assert flag in out


# --- Tester.py -------------------------------------------------------------------------------

TESTER = "Tester.py"
TESTER_CASES = {
    "games negative": (["--games", "-5"], "--games"),
    "games zero": (["--games", "0"], "--games"),
    "games huge": (["--games", str(10**12)], "--games"),
    "games empty": (["--games", ""], "--games"),
    "games Arabic-Indic digits": (["--games", "١٢"], "--games"),
    "games missing value": (["--games"], "--games"),
    "seed negative": (["--seed", "-1"], "--seed"),
    "seed text": (["--seed", "x"], "--seed"),
    "unknown flag": (["--bogus"], "--bogus"),
    "x unknown": (["--x", "foo", "--o", "random"], "foo"),
    "x empty": (["--x", "", "--o", "random"], "agent"),
    "o blank": (["--x", "random", "--o", "  "], "agent"),
    "x non-ASCII": (["--x", "ñ", "--o", "random"], "ñ"),
    "x bad option": (["--x", "playout:zz=1", "--o", "random"], "zz"),
    "worst case of a human": (["--worst-case", "human"], "human"),
    **{f"x {name}": (["--x", name, "--o", "random"], name) for name in BAD_TABLES},
    **{f"o {name}": (["--x", "random", "--o", name], name) for name in BAD_TABLES},
    **{f"worst case {name}": (["--worst-case", name], name) for name in BAD_TABLES},
}


@pytest.mark.parametrize("case", TESTER_CASES)
def test_tester_refuses_bad_input_in_one_line(invoke, workdir, case):
    if not (ROOT / TESTER).exists():
        pytest.skip("Tester.py is not written yet")
    import Tester
    args, name = TESTER_CASES[case]
    games = [] if args[0] == "--worst-case" else ["--games", "5"]   # a mode takes no --games
    line = assert_one_line_error(*invoke(Tester, "main", [*games, *args]), name)
    if case in LISTS_VALID_SPECS:
        assert all(valid in line for valid in VALID_NAMES), line
    assert not (workdir / "MARKER").exists()


# Refused today only after the progress bar started (two lines on stderr).
TESTER_EARLY_REFUSALS = {"x human": (["--x", "human", "--o", "random"], "human")}


@pytest.mark.parametrize("case", TESTER_EARLY_REFUSALS)
def test_tester_refuses_a_human_before_playing(invoke, case):
    if not (ROOT / TESTER).exists():
        pytest.skip("Tester.py is not written yet")
    import Tester
    args, name = TESTER_EARLY_REFUSALS[case]
    assert_one_line_error(*invoke(Tester, "main", ["--games", "5", *args]), name)


def test_tester_help(invoke):
    if not (ROOT / TESTER).exists():
        pytest.skip("Tester.py is not written yet")
    import Tester
    status, out, err = invoke(Tester, "main", ["--help"])
    assert status == 0 and err == ""
    for flag in ("--x", "--o", "--games", "--seed", "--exact", "--worst-case"):
        assert flag in out


# --- the same from the outside ------------------------------------------------------------------

REAL_RUNS = {
    "trainer epochs negative": (TRAINER, [*QUICK, "--epochs", "-5"], "--epochs"),
    "trainer epochs non-ASCII": (TRAINER, [*QUICK, "--epochs", "١٢"], "--epochs"),
    "trainer opponent unknown": (TRAINER, [*QUICK, "--opponent", "foo"], "foo"),
    "trainer resume evil": (TRAINER, [*QUICK, "--resume", "evil.pth"], "evil.pth"),
    "trainer resume truncated": (TRAINER, [*QUICK, "--resume", "truncated.pth"], "truncated.pth"),
    "trainer resume wrong side": (TRAINER, [*QUICK, "--resume", "o_table.pth"], "o_table.pth"),
    "tester x evil": (TESTER, ["--x", "evil_raw.pth", "--o", "random"], "evil_raw.pth"),
    "tester x Nim table": (TESTER, ["--x", "nim.pth", "--o", "random"], "nim.pth"),
    "tester games zero": (TESTER, ["--games", "0"], "--games"),
    "tester o unknown": (TESTER, ["--x", "random", "--o", "foo"], "foo"),
}


@pytest.fixture(scope="module")
def real_results(workdir) -> dict:
    runs = {name: (script, args) for name, (script, args, _) in REAL_RUNS.items()
            if (ROOT / script).exists()}
    return run_all(workdir, runs)


@pytest.mark.parametrize("case", resuming_needs_the_solved_trainer(REAL_RUNS))
def test_real_processes_exit_2_with_one_line(real_results, workdir, case):
    if case not in real_results:
        pytest.skip(f"{REAL_RUNS[case][0]} is not written yet")
    result = real_results[case]
    assert_one_line_error(result.returncode, result.stdout, result.stderr, REAL_RUNS[case][2])
    assert not (workdir / "MARKER").exists()


@pytest.mark.slow
@pytest.mark.parametrize("args, words", [
    (["--optimum", "--x", "random"], "--optimum does not use --x"),
    (["--worst-case", "random", "--games", "5"], "--worst-case does not use --games"),
    (["--x", "random", "--moves", "1,1"], "does not use --moves"),
    (["--optimum", "--show-q", "Data/Q_MC_X.pth"], "choose one of"),
    (["--show-q", str(ROOT / "Data" / "Q_MC_X.pth"), "--moves", "\u00b2,\u00b2"], "is not 'row,col'"),
    (["--show-q", str(ROOT / "Data" / "Q_MC_X.pth"), "--moves", "3,1"],
     "move '3,1' is off the board (row and col go from 0 to 2)"),
    (["--show-q", str(ROOT / "Data" / "Q_MC_X.pth"), "--moves", "1,1 1,1"],
     "move '1,1' is not legal in this position (the cell is taken)"),
])
def test_tester_refuses_flags_its_mode_would_ignore(invoke, workdir, args, words):
    import Tester
    line = assert_one_line_error(*invoke(Tester, "main", args), words.split()[0])
    assert words in line, line


def test_tester_says_so_when_its_output_cannot_be_written():
    """``> /dev/full``: one line on stderr and status 1, no traceback."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, str(ROOT / TESTER), "--optimum"], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == ["error: cannot write the output: No space left "
                                                "on device"]


@pytest.mark.slow
def test_tester_lists_the_positions_where_an_agent_gives_value_away(invoke, workdir):
    """--mistakes: the shipped X table keeps perfect play's value in all 2,423 X positions;
    uniform random play in far fewer, each shown as a board with the moves that keep it."""
    import Tester
    status, out, err = invoke(Tester, "main", ["--mistakes", str(ROOT / "Data" / "Q_MC_X.pth")])
    assert status == 0, err
    assert "perfect moves in 2,423 of 2,423 positions" in out and "no mistakes" in out
    status, out, err = invoke(Tester, "main", ["--mistakes", "random"])
    right = [int(n.replace(",", "")) for n in re.findall(r"perfect moves in ([\d,]+) of", out)]
    assert status == 0 and len(right) == 2 and all(0 < n < 2_000 for n in right)
    assert "of 2,423 positions" in out and "of 2,097 positions" in out and "keeping:" in out


@pytest.mark.parametrize("typed, meant", [(["--epoch", "100"], "--epochs"),
                                          (["--sed=3"], "--seed")])
def test_a_mistyped_flag_names_the_close_one(capsys, typed, meant):
    from tictactoe_rl import cli
    parser = cli.Parser(prog="x.py")
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--seed", type=int)
    with pytest.raises(SystemExit) as caught:
        parser.parse_args(typed)
    line = capsys.readouterr().err
    assert caught.value.code == 2 and line.count("\n") == 1
    assert f"unrecognized arguments: {' '.join(typed)}; did you mean {meant}?" in line


def test_an_unknown_flag_far_from_every_flag_gets_no_guess(capsys):
    from tictactoe_rl import cli
    parser = cli.Parser(prog="x.py")
    parser.add_argument("--epochs", type=int)
    with pytest.raises(SystemExit):
        parser.parse_args(["--zebra"])
    assert "did you mean" not in capsys.readouterr().err
