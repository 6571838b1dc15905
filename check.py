"""The exercise's self-check: grades each piece you write, in order, then trains your agent.

    python check.py            # pieces 1-3 (required); the bonus pieces 4 and 5 are reported
    python check.py --all      # the bonus pieces count too
    python check.py --piece 2  # only this piece (may be given more than once; no training)

Every piece runs on several inputs and is held to the contract in its docstring: the schedule at
many episodes, games against a seeded opponent step by step, the update on hand-made episodes of
different lengths and results, for X and for O. It prints one line per piece -- passed, or what is
wrong with a hint -- and, once pieces 1-3 pass, trains your agent briefly and prints its exact
results against ``random``. Exit status 0 when the pieces that count pass, 1 when one does not,
2 for bad arguments.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import math
import os
import random
import signal
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

# Only modules that no piece changes are imported here; the students' modules are loaded by the
# checks (``load``), so that one that does not even import is reported, not a traceback.
import cli  # noqa: E402  (the project root must be on the path first)
from Q_Table import load_table  # noqa: E402
from Random_Agent import Random_Agent  # noqa: E402
from Solver import exact_result  # noqa: E402
from State import O, ONGOING, X, State, symbol  # noqa: E402
from TicTacToe import REWARD, TicTacToe  # noqa: E402
from tools.exercise_pieces import PIECES, STUB_PREFIX  # noqa: E402

TOLERANCE = 1e-9
FAILED = 1
# A piece that takes longer than this is stuck in a loop (they take a second or two); the short
# training gets longer. Where the system has no alarm clock (Windows), Ctrl-C stops a stuck check.
PIECE_SECONDS = 60
TRAIN_SECONDS = 600
MOVES_PER_GAME = 9

# --- piece 1: the schedule ------------------------------------------------------------------------
DECAY = 100_000                          # AI_Agent's default decay_epochs
START, FINAL = 1.0, 0.01
SCHEDULE_EPOCHS = (0, 1, 1_000, 10_000, 25_000, 50_000, 75_000, 99_999, 100_000, 100_001,
                   150_000, 200_000, 1_000_000)
# An exponential schedule must be close to the final epsilon by the end of the course's 200,000
# episodes.
EXP_CLOSE_BY_200K = 0.02

# --- pieces 2 and 4: episodes against a seeded opponent ------------------------------------------
EPISODE_GAMES = 16
EPISODE_EPOCHS = (0, 7, 5_000, 123_456)

# --- pieces 3 and 4: the update on hand-made episodes -------------------------------------------
# Boards are nine cells, row by row: X, O or "." (empty). Every position has no symmetry of its own
# and no step is a turned or mirrored copy of another, so a trainer that also learns from the
# board's symmetries gives the same values for these pairs. The first episode comes back at the end,
# so its values are updated twice.
HAND_MADE = {
    X: [
        [(".O....X..", (2, 2), 0), (".O..O.X.X", (1, 2), 0), ("OO..OXX.X", (0, 2), 1), "OOX.OXX.X"],
        [("....X.O..", (2, 1), 0), ("...OX.OX.", (0, 2), -1), "O.XOX.OX."],
        [("O..X.....", (1, 1), 0), ("O..XXO...", (0, 1), 0), ("OXOXXO...", (2, 2), 0),
         ("OXOXXO.OX", (2, 0), 0), "OXOXXOXOX"],
        [("XOX..OX.O", (1, 1), 1), "XOX.XOX.O"],
    ],
    O: [
        [("..X..OX..", (0, 1), 0), ("XOX..OX..", (2, 2), 1), "XOX.XOX.O"],
        [("O..XX....", (1, 2), 0), ("OX.XXO...", (0, 2), 0), ("OXOXXO..X", (2, 1), 0), "OXOXXOXOX"],
        [("....X.OX.", (1, 0), 0), ("..XOX.OX.", (0, 0), -1), "O.XOX.OX."],
        [(".OX.OXXXO", (0, 0), -1), "OOX.OXXXO"],
    ],
}
# The learner's moves start as its favourites (a positive value, every other move 0), so they are
# the greedy ones throughout: a trainer that stops its backward walk at an exploring move walks
# every step of these episodes.
PRESET_START, PRESET_STEP = 0.2, 0.05

# --- piece 5: SARSA and Q-learning on hand-made episodes (gamma 0.9, alpha 0.5) -------------------
TD_GAMMA, TD_ALPHA = 0.9, 0.5
TD_CASES = [
    # side, episode, values before, values after for SARSA, values after for Q-learning
    (X, [(".O....X..", (2, 2), 0), (".O..O.X.X", (1, 2), 0), ("OO..OXX.X", (0, 2), 1), "OOX.OXX.X"],
     {(".O..O.X.X", (1, 2)): 0.3, (".O..O.X.X", (2, 1)): 0.6, ("OO..OXX.X", (0, 2)): 0.5,
      (".O....X..", (2, 2)): -0.2},
     [0.035, 0.375, 0.75], [0.17, 0.375, 0.75]),
    (O, [("....X.OX.", (1, 0), 0), ("..XOX.OX.", (0, 0), -1), "O.XOX.OX."],
     {("..XOX.OX.", (0, 0)): 0.1, ("..XOX.OX.", (2, 2)): 0.4, ("....X.OX.", (1, 0)): 0.2},
     [0.145, 0.55], [0.28, 0.55]),
    (O, [("..X..OX..", (0, 1), 0), ("XOX..OX..", (2, 2), 1), "XOX.XOX.O"],
     {("XOX..OX..", (2, 2)): -0.3, ("XOX..OX..", (1, 0)): 0.25},
     [-0.135, -0.65], [0.1125, -0.65]),
]
# Nim: (alpha, old value, reward, future rewards) -> the value update_q_value must store.
NIM_UPDATES = [((0.5, 0.0, 1, 0), 0.5), ((0.5, 0.2, 0, 0.6), 0.4), ((0.25, -0.4, -1, 0), -0.55),
               ((0.5, 0.3, 1, 0.5), 0.9), ((0.1, 0.7, 0, -0.2), 0.61)]
NIM_START = (1, 3, 5, 7)
NIM_DRAWS = 2_000
NIM_EXPLORE = 0.2        # with this epsilon the best move comes in 1 - 0.2 * 15/16 of the draws

# --- the short training at the end ------------------------------------------------------------
TRAIN_EPISODES = 20_000
RANDOM_VS_RANDOM = {X: 0.584921, O: 0.288095}            # SPEC section 6: wins of random play
BEST_VS_RANDOM = {X: (0.994792, 0.0), O: (0.932275, 0.007407)}  # the best possible wins, losses


class Failure(Exception):
    """A piece does not meet its contract; the message is the hint shown to the student."""


class NotWritten(Exception):
    """A piece still raises the stub's ``NotImplementedError``."""


# --- running students' code ----------------------------------------------------------------------

def board(cells: str, side: int | None = None) -> State:
    """A position from nine characters X, O and "."; the side to move follows from the counts
    unless ``side`` is given."""
    values = [{"X": X, "O": O, ".": 0}[c] for c in cells]
    if side is None:
        side = X if values.count(X) == values.count(O) else O
    return State(values, side)


def load(name: str):
    """Import one of the modules the pieces live in; a module that does not load is a ``Failure``
    that says where and why."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return importlib.import_module(name)
    except SyntaxError as error:
        place = Path(error.filename or "?")
        place = place.relative_to(ROOT) if ROOT in place.resolve().parents else place
        raise Failure(f"{place}:{error.lineno}: {error.msg} -- the module {name} cannot even "
                      "be loaded") from None
    except Exception as error:  # whatever a half-written module raises while it loads
        raise Failure(f"loading {name} raised {type(error).__name__}: {error}"
                      f"{where_it_broke(error)}") from None


def where_it_broke(error: BaseException) -> str:
    """``file:line`` of the last line of project code (not this file) the error came through."""
    place = ""
    for frame in traceback.extract_tb(error.__traceback__):
        path = Path(frame.filename).resolve()
        if path != Path(__file__).resolve() and ROOT in path.parents:
            place = f" (at {path.relative_to(ROOT)}:{frame.lineno})"
    return place


def call(what: str, function: Callable, *args, **kwargs):
    """Run a student's function, quietly; a stub becomes ``NotWritten``, any other error a
    ``Failure`` that says what was raised and where."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return function(*args, **kwargs)
        except (Failure, NotWritten):
            raise
        except NotImplementedError as error:
            if str(error).startswith(STUB_PREFIX):
                raise NotWritten(str(error)) from None
            raise Failure(f"{what} raised NotImplementedError: {error}{where_it_broke(error)}") \
                from None
        except Exception as error:  # a student's bug of any kind is reported, not a traceback
            hint = ""
            if isinstance(error, ValueError) and "unpack" in str(error):
                hint = (" -- an episode ends with the one-element tuple (final,): take it off "
                        "with episode.pop() before the walk")
            raise Failure(f"{what} raised {type(error).__name__}: {error}"
                          f"{where_it_broke(error)}{hint}") from None


@contextlib.contextmanager
def time_limit(seconds: int):
    """Turn a check that runs longer than ``seconds`` into a ``Failure`` (where SIGALRM exists)."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def expire(signum, frame):
        raise Failure(f"still running after {seconds} s: is there a loop that never ends?")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def module_values(module, **values):
    """Set module globals for the duration of a check, then put the old ones back."""
    missing = object()
    saved = {name: getattr(module, name, missing) for name in values}
    for name, value in values.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is missing:
                delattr(module, name)
            else:
                setattr(module, name, value)


def close(a, b) -> bool:
    return isinstance(a, (int, float)) and not isinstance(a, bool) and abs(a - b) <= TOLERANCE


def fmt(value) -> str:
    return f"{value:.6g}" if isinstance(value, float) else repr(value)


# --- piece 1 ----------------------------------------------------------------------------------

def check_epsilon() -> None:
    agent = load("AI_Agent").AI_Agent(X, train=True)
    values = {}
    for epoch in SCHEDULE_EPOCHS:
        value = call(f"epsilon_greedy({epoch})", agent.epsilon_greedy, epoch)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
            raise Failure(f"epsilon_greedy({epoch}) should return a number, got {value!r}")
        values[epoch] = float(value)
    first, last = values[0], values[200_000]
    if not close(first, START):
        raise Failure(f"epsilon at episode 0 should be {START} (every move explores at first), "
                      f"got {fmt(first)}")
    if close(first, last):
        raise Failure(f"epsilon never decays: it is {fmt(first)} at episode 0 and still "
                      f"{fmt(last)} at episode 200,000; let it shrink as epoch grows")
    for earlier, later in zip(SCHEDULE_EPOCHS, SCHEDULE_EPOCHS[1:]):
        if values[later] > values[earlier] + TOLERANCE:
            raise Failure(f"epsilon must never grow: {fmt(values[earlier])} at episode "
                          f"{earlier:,} but {fmt(values[later])} at episode {later:,}")
    lowest = min(values, key=values.get)
    if values[lowest] < FINAL - TOLERANCE:
        raise Failure(f"epsilon must not go below {FINAL} (keep exploring a little): got "
                      f"{fmt(values[lowest])} at episode {lowest:,}")
    if not (is_linear(values) or is_exponential(values)):
        expected = START + (FINAL - START) * 50_000 / DECAY
        raise Failure(f"epsilon at episode 100,000 should be {FINAL} and at 50,000 "
                      f"{expected:g} (linear), or follow 0.01 + 0.99 * exp(-epoch / tau) "
                      f"(exponential); got {fmt(values[100_000])} and {fmt(values[50_000])}")


def is_linear(values: dict[int, float]) -> bool:
    """The course's linear schedule: 1.0 down to 0.01 over the first 100,000 episodes."""
    return all(close(value, START + (FINAL - START) * min(epoch, DECAY) / DECAY)
               for epoch, value in values.items())


def is_exponential(values: dict[int, float]) -> bool:
    """0.01 + 0.99 * exp(-epoch / tau) for one time constant tau, close to 0.01 by 200,000."""
    middle = values[50_000] - FINAL
    if not 0 < middle < START - FINAL or values[200_000] > EXP_CLOSE_BY_200K:
        return False
    tau = -50_000 / math.log(middle / (START - FINAL))
    return all(abs(value - (FINAL + (START - FINAL) * math.exp(-epoch / tau))) <= 1e-6
               for epoch, value in values.items())


# --- pieces 2 and 4: episodes ------------------------------------------------------------------

def recording_learner(side: int, env: TicTacToe, seed: str, log: list):
    """An ``AI_Agent`` whose moves are random (seeded) and written down with the epoch it was
    given, so that an episode can be held to the game really played."""
    AI_Agent = load("AI_Agent").AI_Agent

    class Recording_Learner(AI_Agent):
        def get_action(self, state: State, epoch: int | None = None):
            return record(self, "the learner", state, epoch)

    learner = Recording_Learner(side, env, train=True, seed=seed)
    learner.log = log
    return learner


class Recording_Opponent(Random_Agent):
    """A seeded random opponent whose moves are written down."""

    def __init__(self, side: int, env: TicTacToe, seed: str, log: list) -> None:
        super().__init__(side, env, seed=seed)
        self.log = log

    def get_action(self, state: State, epoch: int | None = None):
        return record(self, "player2", state, epoch)


def record(agent, who: str, state, epoch):
    if not isinstance(state, State):
        raise Failure(f"{who} was asked to move with a {type(state).__name__}, not a State: pass "
                      "the position itself (state=...)")
    if not state.legal_actions():
        raise Failure(f"{who} was asked to move in a finished game: stop when "
                      "env.end_of_game(...) says the game is over")
    if agent.log and agent.log[-1][1] == state:
        raise Failure(f"{who} was asked twice for a move in the same position: ask once per "
                      "turn, and play the move you got")
    if len(agent.log) >= MOVES_PER_GAME:
        raise Failure(f"more than {MOVES_PER_GAME} moves were asked for in one game: does your "
                      "loop go on from the position env.next_state returned?")
    action = agent.rng.choice(state.legal_actions())
    agent.log.append((who, state, action, epoch))
    return action


def check_episodes(side: int) -> None:
    MC_Trainer = load("MC_Trainer")
    results = set()
    for game in range(EPISODE_GAMES):
        env, log = TicTacToe(), []
        learner = recording_learner(side, env, f"check:{side}:{game}", log)
        opponent = Recording_Opponent(-side, env, f"check:{-side}:{game}", log)
        epoch = EPISODE_EPOCHS[game % len(EPISODE_EPOCHS)]
        with module_values(MC_Trainer, env=env, player1=learner, player2=opponent):
            episode = call("Generate_episode", MC_Trainer.Generate_episode, learner, epoch)
        results.add(compare_episode(episode, log, side, epoch))
    assert results == {1, -1, 2}, "the seeded games must cover wins, losses and draws"


def compare_episode(episode, log: list, side: int, epoch: int | None,
                    what: str = "Generate_episode") -> int:
    """Hold the episode that ``what`` made to the game in ``log`` (who moved, in which position,
    which move, with which epoch); return the game's result code."""
    learner = symbol(side)
    if not isinstance(episode, list):
        raise Failure(f"{what} must return a list (main takes its last item off with "
                      f"episode.pop()), got {type(episode).__name__}")
    position, turns = State(), []          # turns: (position before the learner's move, its move)
    for who, state, action, _ in log:
        if state != position:
            raise Failure(f"{who} was asked to move in a position that is not the game's "
                          "current one: go on from the position env.next_state returned")
        mover = "the learner" if position.player == side else "player2"
        if who != mover:
            if who == "the learner" and position == State():
                raise Failure(f"the learner plays {learner} but was asked to make X's first move: "
                              "when the learner plays O, player2 (X) moves first")
            raise Failure(f"{who} was asked to move when it was {mover}'s turn: the learner "
                          "moves, then player2 replies, in turn")
        if who == "the learner":
            turns.append((state, action))
        position = position.children()[action]
    last = episode[-1] if episode else None
    if not (isinstance(last, tuple) and len(last) == 1 and isinstance(last[0], State)):
        raise Failure(f"the episode must end with the final position as a one-element tuple "
                      f"(state,), got {last!r}")
    if position.end_of_game == ONGOING:
        raise Failure("the game stopped before its end: play until env.end_of_game(...) is True")
    if last[0] != position:
        raise Failure("the final tuple (state,) must hold the position where the game ended")
    steps = episode[:-1]
    if len(steps) != len(turns):
        more = (" -- the opponent's reply is part of the learner's step, not a step of its own"
                if len(steps) > len(turns) else "")
        raise Failure(f"a game in which the learner moved {len(turns)} times gave {len(steps)} "
                      f"steps: one step (state, action, reward) per move of the learner{more}")
    ends = [state for state, _ in turns[1:]] + [position]
    for number, (step, (state, action), end) in enumerate(zip(steps, turns, ends), start=1):
        if not (isinstance(step, tuple) and len(step) == 3):
            raise Failure(f"step {number} must be a tuple (state, action, reward), got {step!r}")
        got_state, got_action, got_reward = step
        if got_state != state:
            after = state.children()[action]
            where = ("the position after it" if got_state in (after, end) else
                     "another position")
            raise Failure(f"the state stored in a step must be a copy of the position before "
                          f"your move; step {number} holds {where}")
        if not (isinstance(got_action, tuple) and got_action == action):
            raise Failure(f"step {number} must hold the learner's move {action}, got "
                          f"{got_action!r}")
        reward = REWARD[end.end_of_game]
        if got_reward != reward:
            raise Failure(reward_hint(number, got_reward, reward, state.children()[action]))
    epochs = {given for who, _, _, given in log if who == "the learner"}
    if epochs != {epoch}:
        raise Failure(f"Generate_episode(player, {epoch}) asked the learner with epoch "
                      f"{sorted(epochs, key=str)[0]!r}: pass it on, "
                      "player.get_action(state=..., epoch=epoch), so that it explores with this "
                      "episode's epsilon")
    return position.end_of_game


def reward_hint(number: int, got, reward: int, after_move: State) -> str:
    if reward and got == -reward:
        return (f"step {number}'s reward should be {reward}, got {got!r}: rewards in the episode "
                "stay X's point of view (+1 X won, -1 O won); main negates them for O")
    if reward and after_move.end_of_game == ONGOING:
        return (f"step {number}'s reward should be {reward}, got {got!r}: when the opponent's "
                "reply ends the game, the step's reward is the reward of that reply")
    return (f"step {number}'s reward should be {reward} (X's point of view, for the position "
            f"where the step ends), got {got!r}")


# --- pieces 3 and 4: the update ----------------------------------------------------------------

def hand_made(side: int) -> list[list[tuple]]:
    """The hand-made episodes for ``side`` as the update reads them."""
    episodes = []
    for raw in HAND_MADE[side]:
        *steps, final = raw
        episodes.append([(board(cells, side), action, reward) for cells, action, reward in steps]
                        + [(board(final),)])
    return episodes


def preset(episodes: list[list[tuple]]) -> dict:
    values = {}
    for episode in episodes:
        for state, action, _ in episode[:-1]:
            values.setdefault((state, action), PRESET_START + PRESET_STEP * len(values))
    return values


def expected_values(episodes, side: int, start: dict, gamma: float, alpha: float,
                    mistake: str | None = None) -> dict:
    """The values after the Monte Carlo update of ``episodes`` in turn, from ``start``. The
    return of step k is the discounted sum of the learner's rewards from step k to the end:
    G_k = r_k + gamma * r_(k+1) + gamma**2 * r_(k+2) + ... . ``mistake`` gives what a common
    mistake gives instead, so that the hint can name it."""
    values = dict(start)
    for episode in episodes:
        steps = episode[:-1]
        sign = 1 if mistake == "sign" else side
        rewards = [sign * reward for _, _, reward in steps]
        for k, (state, action, _) in enumerate(steps):
            if mistake == "forwards":
                ret = sum(gamma ** (k - j) * rewards[j] for j in range(k + 1))
            elif mistake == "undiscounted":
                ret = sum(rewards[k:])
            else:
                ret = sum(gamma ** (j - k) * rewards[j] for j in range(k, len(steps)))
            old = values.get((state, action), 0.0)
            if mistake == "overwrite":
                values[(state, action)] = ret
            elif mistake == "from zero":
                values[(state, action)] = alpha * ret
            else:
                values[(state, action)] = (1 - alpha) * old + alpha * ret
    return values


MISTAKES = {
    "sign": "for O negate the rewards (they are X's, so a win for O is -1) before they go into G",
    "forwards": "walk the episode backwards: a step's return is its reward plus gamma times the "
                "return of the step after it, so early steps of a won game get gamma**k, not 0",
    "undiscounted": "discount the return: G = gamma * G + reward",
    "overwrite": "move Q only a fraction alpha of the way towards G: Q + alpha * (G - Q)",
    "from zero": "start from the value already in the table, player1.Q.get((state, action), 0), "
                 "not from 0",
}


def check_update(side: int) -> None:
    MC_Trainer = load("MC_Trainer")
    episodes = hand_made(side)
    env = TicTacToe()
    learner = load("AI_Agent").AI_Agent(side, env, train=True, seed="check:update")
    start = preset(episodes)
    learner.Q = dict(start)
    calls, tests = [], []

    def generate(player, epoch):
        calls.append((player, epoch))
        if len(calls) > len(episodes):
            raise Failure(f"main played more than epochs = {len(episodes)} episodes: one episode "
                          "for each epoch in range(epochs)")
        return list(episodes[len(calls) - 1])

    def test(num):
        tests.append(num)
        return 0, 0, 0

    with tempfile.TemporaryDirectory() as folder, module_values(
            MC_Trainer, env=env, player1=learner, player2=Random_Agent(-side, env, seed=0),
            Generate_episode=generate, test=test, epochs=len(episodes), start_epoch=0,
            PATH=os.path.join(folder, "q.pth")):
        call("main", MC_Trainer.main)
        saved = os.path.exists(MC_Trainer.PATH) and call("loading the saved table", load_table,
                                                         MC_Trainer.PATH)[0]
    epochs = [epoch for _, epoch in calls]
    if epochs != list(range(len(episodes))):
        raise Failure(f"with epochs = {len(episodes)}, main should call Generate_episode(player1, "
                      f"epoch) for epoch = 0, 1, ..., {len(episodes) - 1}; it asked for "
                      f"{epochs}")
    if any(player is not learner for player, _ in calls):
        raise Failure("main must generate the episodes of player1: "
                      "Generate_episode(player1, epoch)")
    gamma, alpha = MC_Trainer.gamma, MC_Trainer.alpha
    wanted = expected_values(episodes, side, start, gamma, alpha)
    for number, episode in enumerate(episodes, start=1):
        for step, (state, action, _) in enumerate(episode[:-1], start=1):
            got, value = learner.Q.get((state, action), 0.0), wanted[(state, action)]
            if not close(got, value):
                raise Failure(update_hint(episodes, side, start, gamma, alpha, state, action, got,
                                          value, number, step, len(episode) - 1))
    if saved is False:
        raise Failure("main must save the table when training is done: player1.save_Q(PATH)")
    if saved != learner.Q:
        raise Failure("the saved table differs from player1.Q: save it after the last episode")
    if not tests:
        raise Failure("main must end with test(100), to show how the trained agent plays")


def update_hint(episodes, side, start, gamma, alpha, state, action, got, value, number, step,
                length) -> str:
    where = (f"after main, Q of step {step} of hand-made episode {number} ({length} steps, "
             f"{symbol(side)} learns, gamma {gamma}, alpha {alpha}) should be {value:.6g}, got "
             f"{fmt(got)}")
    for mistake, advice in MISTAKES.items():
        if mistake == "sign" and side == X:
            continue
        other = expected_values(episodes, side, start, gamma, alpha, mistake)
        if close(got, other[(state, action)]):
            return f"{where}: {advice}"
    return f"{where}: G = gamma * G + reward walking backwards, Q <- Q + alpha * (G - Q)"


# --- piece 5: SARSA, Q-learning, Nim -------------------------------------------------------------

def check_td() -> None:
    for column, module_name in enumerate(("SARSA_Trainer", "Q_Trainer")):
        name = f"{module_name}.update"
        update = load(module_name).update
        for side, raw, before, *after in TD_CASES:
            *steps, final = raw
            episode = ([(board(cells, side), action, reward) for cells, action, reward in steps]
                       + [(board(final),)])
            Q = {(board(cells, side), action): value for (cells, action), value in before.items()}
            call(name, update, Q, episode, side, TD_GAMMA, TD_ALPHA)
            for number, ((state, action, _), value) in enumerate(
                    zip(episode, after[column]), start=1):
                got = Q.get((state, action), 0.0)
                if not close(got, value):
                    raise Failure(td_hint(name, number, len(steps), side, value, got))


def td_hint(name: str, step: int, steps: int, side: int, value: float, got) -> str:
    rule = ("r + gamma * Q(s', a') with a' the move played next" if name.startswith("SARSA") else
            "r + gamma * max over b of Q(s', b)")
    return (f"{name} on a hand-made {steps}-step episode ({symbol(side)} learns, gamma "
            f"{TD_GAMMA}, alpha {TD_ALPHA}): Q of step {step} should be {value:.6g}, got "
            f"{fmt(got)} -- the target is {rule} (just r at the last step), the rewards are X's "
            f"(negated for O), and the steps are updated in order, first to last")


def check_nim() -> None:
    nim = load("nim.nim")
    ai = nim.NimAI()
    known = {((1, 3, 5, 7), (3, 2)): 0.7, ((0, 2, 5, 7), (1, 1)): -0.3}
    ai.q = dict(known)
    for state, action, value in (([1, 3, 5, 7], (3, 2), 0.7), ((0, 2, 5, 7), (1, 1), -0.3),
                                 ([1, 3, 5, 7], (0, 1), 0)):
        got = call("get_q_value", ai.get_q_value, state, action)
        if not close(got, value):
            raise Failure(f"get_q_value({state}, {action}) should be {value}, got {fmt(got)}: the "
                          "keys of self.q are (tuple(state), action), and a pair never seen is 0")
    for (alpha, old, reward, future), value in NIM_UPDATES:
        ai = nim.NimAI(alpha=alpha)
        call("update_q_value", ai.update_q_value, [0, 2, 5, 7], (2, 4), old, reward, future)
        got = ai.q.get(((0, 2, 5, 7), (2, 4)))
        if not close(got, value) or len(ai.q) != 1:
            raise Failure(f"update_q_value([0, 2, 5, 7], (2, 4), old_q={old}, reward={reward}, "
                          f"future_rewards={future}) with alpha {alpha} should set "
                          f"q[((0, 2, 5, 7), (2, 4))] to {value}, got {fmt(got)}")
    check_best_future(nim)
    check_choose_action(nim)


def check_best_future(nim) -> None:
    ai = nim.NimAI()
    ai.q = {((1, 3, 5, 7), (3, 2)): 0.4, ((1, 3, 5, 7), (2, 1)): -0.2,
            ((0, 0, 1, 0), (2, 1)): -1.0, ((0, 1, 1, 0), (1, 1)): -0.5,
            ((0, 1, 1, 0), (2, 1)): -0.25}
    cases = (([1, 3, 5, 7], 0.4, "the largest value"),
             ([0, 0, 1, 0], -1.0, "the only move is worth -1"),
             ([0, 1, 1, 0], -0.25, "every move is known; the best is worth -0.25"),
             ([1, 0, 0, 1], 0, "moves never seen count 0"),
             ([0, 0, 0, 0], 0, "no move is left, so 0"))
    for state, value, why in cases:
        got = call("best_future_reward", ai.best_future_reward, state)
        if not close(got, value):
            raise Failure(f"best_future_reward({state}) should be {value} ({why}), got {fmt(got)}")


def check_choose_action(nim) -> None:
    ai = nim.NimAI(epsilon=NIM_EXPLORE)
    best = (3, 2)
    ai.q = {(NIM_START, best): 0.9, (NIM_START, (2, 1)): 0.5, (NIM_START, (0, 1)): -0.4}
    legal = {(i, j) for i, pile in enumerate(NIM_START) for j in range(1, pile + 1)}
    saved = random.getstate()
    random.seed(2024)
    try:
        greedy = {call("choose_action", ai.choose_action, list(NIM_START), epsilon=False)
                  for _ in range(50)}
        if greedy != {best}:
            raise Failure(f"choose_action({list(NIM_START)}, epsilon=False) must always play the "
                          f"best-valued move {best}; it played {sorted(greedy)}")
        probs = call("action_probs", ai.action_probs, list(NIM_START))
        others = NIM_EXPLORE / len(legal)
        exact = {action: others + (1 - NIM_EXPLORE if action == best else 0) for action in legal}
        if not (isinstance(probs, dict) and set(probs) == legal
                and all(close(probs[a], p) for a, p in exact.items())):
            raise Failure(f"with epsilon {NIM_EXPLORE} and one best move among {len(legal)}, "
                          f"action_probs({list(NIM_START)}) should give the best move "
                          f"{exact[best]:g} and every other {others:g}; it gives the best "
                          f"{fmt(probs.get(best) if isinstance(probs, dict) else probs)}")
        draws = [call("choose_action", ai.choose_action, list(NIM_START)) for _ in range(NIM_DRAWS)]
        if not set(draws) <= legal:
            raise Failure(f"choose_action played an illegal move: {sorted(set(draws) - legal)[0]}")
        share = draws.count(best) / NIM_DRAWS
        best_share = 1 - NIM_EXPLORE * (len(legal) - 1) / len(legal)
        if abs(share - best_share) > 0.04 or len(set(draws)) < len(legal) // 2:
            raise Failure(f"with epsilon {NIM_EXPLORE}, choose_action should play a random move "
                          f"{NIM_EXPLORE:.0%} of the time and the best one otherwise (the best "
                          f"about {best_share:.0%} of all draws); it played the best {share:.0%} of "
                          f"the time and {len(set(draws))} different moves")
        ties = {(3, 2), (1, 3)}
        ai.q = {(NIM_START, action): 0.5 for action in ties}
        tied = {call("choose_action", ai.choose_action, NIM_START, epsilon=False)
                for _ in range(50)}
        if not tied <= ties:
            raise Failure(f"with two moves tied for the best value, choose_action(epsilon=False) "
                          f"must play one of them; it played {sorted(tied - ties)[0]}")
        probs = call("action_probs", ai.action_probs, NIM_START, epsilon=False)
        if not isinstance(probs, dict) or {action for action, p in probs.items() if p} != ties:
            raise Failure(f"_best_actions must give every move tied for the best value: with "
                          f"{sorted(ties)} tied, action_probs(epsilon=False) plays "
                          f"{probs}")
        try:
            call("choose_action", ai.choose_action, [0, 0, 0, 0], epsilon=False)
        except Failure as failure:
            if "ValueError" not in str(failure):
                raise
        else:
            raise Failure("choose_action([0, 0, 0, 0]) must raise ValueError: no move is left")
    finally:
        random.setstate(saved)


def check_learning_steps() -> None:
    Episode = load("Episode")
    for game in range(EPISODE_GAMES):
        env = TicTacToe()
        x_agent = Random_Agent(X, env, seed=f"check:steps:{game}")
        o_agent = Random_Agent(O, env, seed=f"check:steps:{-game}")
        moves, final = Episode.play_game(x_agent, o_agent, env)
        for side in (X, O):
            log = [("the learner" if state.player == side else "player2", state, action, None)
                   for state, action, _ in moves]
            steps = call("Episode.learning_steps", Episode.learning_steps, list(moves), final, side)
            compare_episode(steps, log, side, None, what="Episode.learning_steps")


def check_bonus_td() -> None:
    check_learning_steps()
    check_td()
    check_nim()


# --- the pieces in order ------------------------------------------------------------------------

CHECKS: dict[int, Callable[[], None]] = {
    1: check_epsilon,
    2: lambda: check_episodes(X),
    3: lambda: check_update(X),
    4: lambda: (check_episodes(O), check_update(O)),
    5: check_bonus_td,
}


def grade(number: int) -> tuple[bool, str]:
    """Whether piece ``number`` passes, and the line that says so."""
    piece = PIECES[number - 1]
    label = f"piece {number} -- {piece.title}"
    try:
        with time_limit(PIECE_SECONDS):
            CHECKS[number]()
    except NotWritten as stub:
        function = str(stub).split(" write ")[-1].split(",")[0]
        return False, f"{label}: not written yet ({function} still raises NotImplementedError)"
    except Failure as failure:
        return False, f"{label}: FAILED -- {failure}"
    return True, f"{label}: passed"


def train_and_report(side: int) -> str:
    """Train the student's agent for ``side`` briefly with its own main and return its exact
    results against random."""
    MC_Trainer = load("MC_Trainer")
    env = TicTacToe()
    learner = load("AI_Agent").AI_Agent(side, env, train=True, seed="check:train",
                       decay_epochs=TRAIN_EPISODES // 2)
    opponent = Random_Agent(-side, env, seed="check:opponent")
    with tempfile.TemporaryDirectory() as folder, module_values(
            MC_Trainer, env=env, player1=learner, player2=opponent, epochs=TRAIN_EPISODES,
            start_epoch=0, PATH=os.path.join(folder, "q.pth")):
        call("main", MC_Trainer.main)
    learner.train = False
    wins, losses, draws = exact_result(learner, Random_Agent(-side))
    best_wins, best_losses = BEST_VS_RANDOM[side]
    return (f"Your {symbol(side)} after {TRAIN_EPISODES:,} training episodes against random, "
            f"exact: wins {wins:.2%}, losses {losses:.2%}, draws {draws:.2%} "
            f"(random play wins {RANDOM_VS_RANDOM[side]:.2%}; the best possible: wins "
            f"{best_wins:.2%}, losses {best_losses:.2%})")


def main(argv: list[str] | None = None) -> int:
    """The command line: grade the pieces, train, and return the exit status."""
    parser = cli.Parser(prog="check.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true",
                        help="the bonus pieces (4: the agent for O; 5: SARSA, Q-learning, Nim) "
                             "count for the exit status too")
    parser.add_argument("--piece", type=int, action="append", choices=range(1, len(PIECES) + 1),
                        metavar="N", help="check only piece N (may be repeated); no training")
    args = parser.parse_args(argv)
    numbers = sorted(set(args.piece)) if args.piece else [piece.number for piece in PIECES]
    passed = {}
    for number in numbers:
        passed[number], line = grade(number)
        print(line, flush=True)
    counted = [n for n in numbers if PIECES[n - 1].required or args.all or args.piece]
    required = [piece.number for piece in PIECES if piece.required]
    if not args.piece:
        if all(passed[n] for n in required):
            for side, piece in ((X, None), (O, 4)):
                if piece is None or passed[piece]:
                    try:
                        with time_limit(TRAIN_SECONDS):
                            print(train_and_report(side), flush=True)
                    except (Failure, NotWritten) as problem:
                        print(f"Training your {symbol(side)} failed: {problem}")
                        return FAILED
        else:
            print("Pieces 1-3 must pass before your agent is trained and measured.")
    failing = [str(n) for n in counted if not passed[n]]
    listed = ", ".join(str(n) for n in counted)
    print(f"Pieces that count: {listed} -- " +
          (f"not passing yet: {', '.join(failing)}." if failing else "all pass."))
    return FAILED if failing else 0


if __name__ == "__main__":
    cli.run(lambda: main(sys.argv[1:]))
