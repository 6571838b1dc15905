"""Pieces 2 and 4: ``MC_Trainer.Generate_episode(player, epoch)``, one game as learning steps.

The learner and ``player2`` are replaced by stand-ins that play seeded random moves and write
down every position they are asked about, so each episode can be held to the game really played:
one step ``(state, action, reward)`` per move of the learner -- the position before it, the move,
the reward of the move plus the opponent's reply (X's point of view) -- then ``(final_state,)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import random
from functools import lru_cache
from itertools import count

from Random_Agent import Random_Agent
from tictactoe_rl.selfcheck import draw
from tictactoe_rl.selfcheck.common import Failure, as_plain, call, plural
from State import ONGOING, Live_State, State, position_of, symbol
from TicTacToe import REWARD, TicTacToe

if TYPE_CHECKING:
    from tictactoe_rl.selfcheck.student import Student

GAMES = 16
EPOCHS = (0, 7, 5_000, 123_456)
MOVES_PER_GAME = 9
LEARNER, OPPONENT = "the learner", "player2"
NEVER_ASKED = ("the learner was never asked for its move: a move chosen any other way (at random, "
               "read off its table) is not the agent's, and never explores with the episode's "
               "epsilon -- ask it for every move, player.get_action(state=state, epoch=epoch)")


class Recorder:
    """Plays seeded random legal moves as ``who`` and writes each one into the shared ``log``."""

    def __init__(self, who: str, seed: str, log: list) -> None:
        self.who, self.rng, self.log = who, random.Random(seed), log

    def move(self, state, epoch):
        if not isinstance(state, (State, Live_State)):
            raise Failure(f"{self.who} was asked to move with a {type(state).__name__}, not a "
                          "State: pass the position itself (state=...)")
        state = position_of(state)
        if not state.legal_actions():
            raise Failure(f"{self.who} was asked to move in a finished game: stop when "
                          "env.end_of_game(...) says the game is over")
        if self.log and self.log[-1][1] == state:
            raise Failure(f"{self.who} was asked twice for a move in the same position: ask "
                          "once per turn, and play the move you got")
        if len(self.log) >= MOVES_PER_GAME:
            raise Failure(f"more than {MOVES_PER_GAME} moves were asked for in one game: does "
                          "your loop go on from the position env.next_state returned?")
        action = self.rng.choice(state.legal_actions())
        self.log.append((self.who, state, action, epoch))
        return action


def recorders(side: int, game: int, log: list) -> tuple[Recorder, Recorder]:
    """The seeded moves of game ``game`` for the learner (playing ``side``) and its opponent:
    the same seeds for the student's game and for its replay."""
    return seeded_pair(side, game, log, run_seed(side))


def seeded_pair(side: int, game: int, log: list, run: str) -> tuple[Recorder, Recorder]:
    return (Recorder(LEARNER, f"check:{side}:{game}:{run}", log),
            Recorder(OPPONENT, f"check:{-side}:{game}:{run}", log))


@lru_cache(maxsize=None)
def run_seed(side: int) -> str:
    """This run's seed of the games of ``side`` (``tictactoe_rl.selfcheck.draw``): the first one drawn whose
    ``GAMES`` games hold a win, a loss and a draw."""
    for tried in count():
        run = f"{draw.RUN}:{tried}"
        endings = set()
        for game in range(GAMES):
            learner, opponent = seeded_pair(side, game, [], run)
            position = State()
            while position.end_of_game == ONGOING:
                mover = learner if position.player == side else opponent
                position = position.children()[mover.rng.choice(position.legal_actions())]
            endings.add(position.end_of_game)
        if len(endings) == 3:
            return run


def recording_agents(student: Student, side: int, game: int, log: list) -> tuple:
    """The learner (of the student's ``AI_Agent``) and its opponent, both recording."""
    env = TicTacToe()
    learner_moves, opponent_moves = recorders(side, game, log)

    class RecordingLearner(student.agent_class()):
        def get_action(self, state, epoch=None):
            return learner_moves.move(state, epoch)

        def get_Q_action(self, state=None):
            raise Failure("Generate_episode asked the learner for its greedy move "
                          "(get_Q_action): ask player.get_action(state=..., epoch=epoch), which "
                          "explores with this episode's epsilon and plays greedily otherwise")

    class RecordingOpponent(Random_Agent):
        def get_action(self, state, epoch=None):
            return opponent_moves.move(state, epoch)

    # A message about them (an attribute the code asked for that they lack, a call that does
    # not fit) names the classes the student knows, never the check's stand-ins.
    for stand_in in (RecordingLearner, RecordingOpponent):
        stand_in.__name__ = stand_in.__qualname__ = stand_in.__bases__[0].__name__
        for name, method in vars(stand_in).items():
            if callable(method):
                method.__qualname__ = f"{stand_in.__name__}.{name}"

    learner = call("AI_Agent(...)", RecordingLearner, side, env, graphics=None)
    opponent = RecordingOpponent(-side, env, graphics=None)
    return env, learner, opponent


def gather(student: Student, side: int) -> dict:
    """In the student's process: ``GAMES`` seeded games through the student's
    ``Generate_episode`` for ``side``, each judged as it is played; for the judging process to
    judge again, ``{"games": the episodes as plain data (encoded), "asked": per game, the epoch
    each move of the learner was asked with}``."""
    trainer = student.trainer()
    games, asked = [], []
    for game in range(GAMES):
        log: list = []
        trainer.env, trainer.player1, trainer.player2 = recording_agents(student, side, game, log)
        epoch = EPOCHS[game % len(EPOCHS)]
        episode = call("Generate_episode", trainer.Generate_episode, trainer.player1, epoch)
        compare(episode, log, side, epoch)
        games.append(encoded(episode))
        asked.append([as_plain(given) for who, _, _, given in log if who == LEARNER])
    return {"games": games, "asked": asked}


def judge(sent: object, side: int) -> str:
    """In the judging process: each episode the student's process sent, held to the seeded game
    as the check replays it itself, its learner's moves asked with the epochs that were sent."""
    if not (isinstance(sent, dict) and isinstance(sent.get("games"), list)
            and isinstance(sent.get("asked"), list)
            and len(sent["games"]) == len(sent["asked"]) == GAMES):
        raise Failure("the run of your Generate_episode sent back something that is not its "
                      "episodes")
    results = set()
    for game, (episode, asked) in enumerate(zip(sent["games"], sent["asked"])):
        epoch = EPOCHS[game % len(EPOCHS)]
        log = with_epochs(seeded_game(side, game, epoch), asked)
        results.add(compare(decoded(episode), log, side, epoch))
    if results != {1, -1, 2}:
        raise Failure("the episodes sent back do not cover the seeded games' wins, losses and "
                      "draws")
    return f"{GAMES} games as {symbol(side)}: wins, losses and draws"


def seeded_game(side: int, game: int, epoch: int) -> list:
    """The log of seeded game ``game``, played by the recorders alone: the game that the
    student's ``Generate_episode`` must have been given."""
    log: list = []
    learner, opponent = recorders(side, game, log)
    position = State()
    while position.end_of_game == ONGOING:
        mover = learner if position.player == side else opponent
        position = position.children()[mover.move(position, epoch)]
    return log


def with_epochs(log: list, asked: object) -> list:
    """The seeded game's ``log`` with the epochs the learner's moves were asked with in the
    student's game (``asked``, one per move); ``Failure`` if that is not what ``asked`` holds."""
    moves = [index for index, (who, _, _, _) in enumerate(log) if who == LEARNER]
    if not (isinstance(asked, list) and len(asked) == len(moves) and all(
            given is None or isinstance(given, (int, float, str)) for given in asked)):
        raise Failure("the run of your Generate_episode sent back something that is not the "
                      "epochs its learner was asked with")
    log = list(log)
    for index, given in zip(moves, asked):
        who, state, action, _ = log[index]
        log[index] = (who, state, action, given)
    return log


def encoded(episode: list) -> list:
    """An episode that ``compare`` accepted, as JSON: ``[cells, player, action, reward]`` per
    step, then ``[cells, player]``."""
    *steps, (final,) = episode
    positions = [position_of(state) for state, _, _ in steps]
    return [*([list(position.cells), position.player, [int(cell) for cell in action],
               float(reward)] for position, (_, action, reward) in zip(positions, steps)),
            [list(final.cells), final.player]]


def decoded(episode: object) -> list:
    """The episode ``encoded`` made, as ``compare`` takes it; ``Failure`` for anything else."""
    try:
        *steps, (cells, player) = episode
        rebuilt = [(State(cells, player), (int(row), int(column)), reward)
                   for cells, player, (row, column), reward in steps]
        if not all(isinstance(reward, (int, float)) for _, _, reward in rebuilt):
            raise TypeError
        return [*rebuilt, (State(cells, player),)]
    except (TypeError, ValueError):
        raise Failure("the run of your Generate_episode sent back something that is not an "
                      "episode") from None


def compare(episode: list, log: list, side: int, epoch: int | None,
            what: str = "Generate_episode") -> int:
    """Hold the episode that ``what`` made to the game in ``log`` (who moved, in which position,
    which move, with which epoch); return the game's result code."""
    if not isinstance(episode, list):
        raise Failure(f"{what} must return a list (main takes its last item off with "
                      f"episode.pop()), got {type(episode).__name__}")
    if episode and not any(who == LEARNER for who, _, _, _ in log):
        raise Failure(NEVER_ASKED)
    final, turns = replay(log, side)
    last = episode[-1] if episode else None
    if not (isinstance(last, tuple) and len(last) == 1 and isinstance(last[0], State)):
        raise Failure(f"the episode must end with the final position as a one-element tuple "
                      f"(state,), got {last!r}")
    if final.end_of_game == ONGOING:
        raise Failure("the game stopped before its end: play until env.end_of_game(...) is True")
    if last[0] != final:
        raise Failure("the final tuple (state,) must hold the position where the game ended")
    steps = episode[:-1]
    if len(steps) != len(turns):
        more = (" -- the opponent's reply is part of the learner's step, not a step of its own"
                if len(steps) > len(turns) else "")
        raise Failure(f"a game in which the learner moved {plural(len(turns), 'time')} gave "
                      f"{plural(len(steps), 'step')}: one step (state, action, reward) per move "
                      f"of the learner{more}")
    ends = [state for state, _ in turns[1:]] + [final]
    for number, (step, turn, end) in enumerate(zip(steps, turns, ends), start=1):
        check_step(number, step, turn, end)
    asked = list(dict.fromkeys(given for who, _, _, given in log if who == LEARNER))
    if len(asked) > 1:
        raise Failure(f"{what}(player, {epoch}) asked the learner's moves of one game with the "
                      f"epochs {', '.join(repr(e) for e in asked)}: epoch is the episode's "
                      "number, the same for every move of the game (epsilon changes from one "
                      "episode to the next, not from move to move) -- pass it on unchanged, "
                      "player.get_action(state=..., epoch=epoch)")
    if asked != [epoch]:
        raise Failure(f"{what}(player, {epoch}) asked the learner with epoch {asked[0]!r}: "
                      "pass it on, player.get_action(state=..., epoch=epoch), so that it "
                      "explores with this episode's epsilon")
    return final.end_of_game


def replay(log: list, side: int) -> tuple[State, list]:
    """The game in ``log``, checked move by move: its final position and the learner's turns
    ``(position before the move, move)``."""
    position, turns = State(), []
    for who, state, action, _ in log:
        if who == OPPONENT and position.player == side and state in position.children().values():
            raise Failure(NEVER_ASKED)        # the learner's move was made, but not by it
        if state != position:
            raise Failure(f"{who} was asked to move in a position that is not the game's "
                          "current one: go on from the position env.next_state returned")
        mover = LEARNER if position.player == side else OPPONENT
        if who != mover:
            if who == LEARNER and position == State():
                raise Failure(f"the learner plays {symbol(side)} but was asked to make X's first "
                              "move: when the learner plays O, player2 (X) moves first")
            raise Failure(f"{who} was asked to move when it was {mover}'s turn: the learner "
                          "moves, then player2 replies, in turn")
        if who == LEARNER:
            turns.append((state, action))
        position = position.children()[action]
    return position, turns


def check_step(number: int, step: object, turn: tuple, end: State) -> None:
    """One step against the learner's turn ``(state, action)`` that ended in ``end``."""
    state, action = turn
    if not (isinstance(step, tuple) and len(step) == 3):
        raise Failure(f"step {number} must be a tuple (state, action, reward), got {step!r}")
    got_state, got_action, got_reward = step
    if got_state != state:
        after = state.children()[action]
        where = "the position after it" if got_state in (after, end) else "another position"
        raise Failure(f"the state stored in a step must be a copy of the position before your "
                      f"move; step {number} holds {where}")
    if not (isinstance(got_action, tuple) and got_action == action):
        raise Failure(f"step {number} must hold the learner's move {action}, got {got_action!r}")
    reward = REWARD[end.end_of_game]
    if got_reward != reward:
        raise Failure(reward_hint(number, got_reward, reward, state.children()[action]))


def reward_hint(number: int, got: object, reward: int, after_move: State) -> str:
    if reward and got == -reward:
        return (f"step {number}'s reward should be {reward}, got {got!r}: rewards in the episode "
                "stay X's point of view (+1 X won, -1 O won); main negates them for O")
    if reward and after_move.end_of_game == ONGOING:
        return (f"step {number}'s reward should be {reward}, got {got!r}: when the opponent's "
                "reply ends the game, the step's reward is the reward of that reply")
    return (f"step {number}'s reward should be {reward} (X's point of view, for the position "
            f"where the step ends), got {got!r}")
