"""The text of the students' README (``tools/exercise/students.students_readme`` fills it in).
Text only, which is why this module is long."""

# {PIECES}, {POINTS}, {HINTS_FILE} and {TORCH} are filled in by students_readme.
STUDENTS_README = """\
# Tic-Tac-Toe by Monte Carlo control: the exercise

This is your copy of the course repository for the Monte Carlo chapter. Everything in it runs --
the game window, the opponents, the tools that measure an agent, the trained tables in `Data/` --
except the pieces you write. Each piece is a function whose body, for now, is a few comment lines
that state its contract (what goes in, what comes out, the course's names; in English and in
Hebrew) and a `raise NotImplementedError("Exercise piece N: ...")`. Replace the comments and the
`raise` with your code; keep the function's name and arguments.

## Set up

Python 3.11, in this folder:

    python3 -m venv .venv
    source .venv/bin/activate
    pip install --timeout 20 --retries 1 {TORCH} --index-url https://download.pytorch.org/whl/cpu || pip install {TORCH}
    pip install -r requirements.txt

On Windows: `py -3.11 -m venv .venv` and `.venv\\Scripts\\activate`, then the same two `pip`
lines. The first one installs the CPU build of torch, which is all this needs and much smaller
than the default one; where PyTorch's index cannot be reached, it gives up on it at once and
installs the plain pin (on Linux the larger CUDA build, which works on the CPU as well).

## What you write

{PIECES}

Pieces 1-3 are the exercise: a learner for X. Piece 4 makes the functions of pieces 2 and 3 work
for a learner that plays O as well (`--side O`). Piece 5 is the repository's two other trainers,
SARSA and Q-learning, and the AI course's Nim.

## Check your work

    python check.py             # every piece in order; exit status 0 when pieces 1-3 pass
    python check.py --piece 2   # one piece only
    python check.py --all       # the bonus pieces count for the exit status too
    python check.py --hint 2    # the next hint for piece 2

It prints one line per piece: passed, not written yet, or what is wrong. Stuck? `--hint N` shows
the next hint for piece N, one step of the how-to at a time, in English and in Hebrew; it
remembers which hints you have seen in `{HINTS_FILE}` (git ignores it; delete it to start the
hints again from the first). Once pieces 1-3 pass, `python check.py` also trains your agent with
your own `main` and prints its exact results against `random` and `advanced`.

## Train your agent

    python MC_Trainer.py                            # your module as you wrote it, to your PATH
    python MC_Trainer.py --out Data/my_Q_MC_X.pth   # the same, saving to the file used below

`python MC_Trainer.py` runs `MC_Trainer.py` as you wrote it -- your `player1`, `player2`, `gamma`
and `PATH` at the top of the file (a header typed in from the chapter too), and your `main` --
and then prints the exact results of what `player1` learned. It says first, in one line, what it
trains, against whom and where it saves. Only the flags you give change your module:

| flag | what it does with your `main` |
| --- | --- |
| `--out PATH` | sets `PATH`, where your `player1.save_Q(PATH)` saves |
| `--opponent SPEC` | sets `player2`: `random`, `advanced` (the chapter's stronger opponent), ... (the agent specs below) |
| `--side O` | makes `player1` a new learner for O, and `player2` the same kind of player for X (piece 4) |
| `--epochs N`, `--alpha A`, `--gamma G` | set the module's `epochs`, `alpha` and `gamma`. One that your `main` sets for itself, like the chapter's `epochs = 200000` and `alpha = 0.01` inside `main`, is out of reach: the trainer says so in one line, and your `main` keeps its own value |
| `--seed N` | seeds the random moves of `player1` (and of a `player2` that `--opponent` makes) |
| `--plot`, `--resume`, `--opponent self` | need the teachers' training loop, which your `main` replaces: refused in one line |

Other flags that `python MC_Trainer.py --help` lists (`--epsilon`, `--plain`) belong to the
teachers' trainer and change nothing in yours. Ctrl-C stops your `main` at once, and the trainer
says so; nothing is saved unless your `main` saved before: the chapter's `main` saves after its
last episode, so an interrupted run leaves no table behind.

An agent for O, once piece 4 passes:

    python MC_Trainer.py --side O --out Data/my_Q_MC_O.pth    # piece 4

## Measure it

    python Tester.py --x Data/my_Q_MC_X.pth --o random --exact      # exact probabilities
    python Tester.py --x Data/my_Q_MC_X.pth --o advanced --exact
    python Tester.py --x Data/my_Q_MC_X.pth --o advanced            # 1,000 sampled games
    python Tester.py --worst-case Data/my_Q_MC_X.pth                # can any opponent beat it?
    python Tester.py --optimum                                      # the best that is possible
    python Tester.py --show-q Data/my_Q_MC_X.pth --moves "1,1 0,0"  # its values after these moves

For comparison: the best possible X wins 99.48 % of its games against `random`, or 94.28 %
against `advanced` (no X does both at once), and never loses; a good run of the chapter's
algorithm comes close. For your O (piece 4):

    python Tester.py --x random --o Data/my_Q_MC_O.pth --exact      # piece 4

## Play against it

    python Game.py                          # the shipped Data/Q_MC_X.pth: what yours can become
    python Game.py --x Data/my_Q_MC_X.pth   # your agent plays X, you play O

Click an empty cell to move; H shows on the board what the agent thinks of each cell; R starts a
new game; Esc quits. You play X against your O with:

    python Game.py --x human --o Data/my_Q_MC_O.pth   # piece 4

## The bonus trainers (piece 5)

    python SARSA_Trainer.py    # piece 5: Episode.learning_steps and SARSA_Trainer.update
    python Q_Trainer.py        # piece 5: Episode.learning_steps and Q_Trainer.update
    python nim/play.py         # piece 5: Nim; 10,000 games of self-play, then a game against you

The two trainers have `MC_Trainer.py`'s flags, and since they use only your code (the steps of a
game and the update rule), all of them work, `--plot` and `--opponent self` too.

## Run the tests

    python -m pytest -q -m "not slow"    # the quick tests
    python -m pytest -q                  # all of them, the slow ones too

{TEST_TIMES}

The tests skip, and name the piece, whatever needs a piece you have not written yet. A test that
runs your `main` makes it short by setting the module's `epochs` first; if your `main` sets its
own, that test is skipped and says why. What your `main` prints while a test runs it is cut to
its last lines.

## Handing in with GitHub Classroom

`.github/` holds GitHub Classroom's autograding. On every push, GitHub runs
`python check.py --piece N` for each piece (`.github/classroom/autograding.json`) and gives the
piece's points when it passes, in all
{POINTS}. The Actions tab of your repository shows each run.

It grades with the self-check as it was issued: before the check runs, every file except the ones
you write in (`AI_Agent.py`, `MC_Trainer.py`, `Episode.py`, `SARSA_Trainer.py`, `Q_Trainer.py`,
`nim/nim.py`) is put back as it was in the assignment's first commit, a `.py` file you added is
removed, and each is checked against the hashes in `.github/workflows/classroom.yml`
(`.github/classroom/issued.json` lists them too, for your teacher's grader). So write your pieces
in those files, and leave the other files as they are: a change to them is not graded.
"""
