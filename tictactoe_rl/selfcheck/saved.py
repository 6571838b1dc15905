"""The table that the student's ``main`` saved, and whether its own updates made it.

Pieces 3 and 4 and the training judge the table ``main`` saves, not an intermediate one: the
learner's ``save_Q`` is watched (what it held at each save, after how many episodes), and after
``main`` the file at ``PATH`` is read back and judged, whoever wrote it. A table made by
``main``'s own updates holds only pairs of the episodes it was given (or their turned and
mirrored images, for a trainer that learns from the board's symmetries), and is no copy of a
table that ships with the repository.
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass, field

from tictactoe_rl.exact.symmetry import images
from tictactoe_rl.selfcheck.common import ROOT, Failure, NotOwnWork, one_line
from tictactoe_rl.selfcheck.mc_messages import SAVE_LINE
from State import State
from tictactoe_rl.tables.files import TableError, load_table, save_table

# The tables that ship in Data/: what a trained table must not be, nor contain.
SHIPPED = ("Data/Q_MC_X.pth", "Data/Q_MC_O.pth")
# A table shares this share of a shipped table's values (and at least this many), to the last
# digits (within SAME: a copy nudged by a few units in the last place is still a copy): it was
# copied. Two runs of training agree on a few values at most (a pair met once).
COPIED_SHARE, COPIED_AT_LEAST = 0.2, 50
SAME = 1e-9


@dataclass
class Saves:
    """The learner's ``save_Q`` as ``main`` meets it: every save notes what the table held and
    after how many episodes; a save to ``path`` (the ``PATH`` the check set) goes through the
    learner's own ``save_Q``, one to another path is noted in ``elsewhere`` and writes
    nothing."""
    learner: object
    path: str
    episodes: list = field(default_factory=lambda: [0])   # episodes played so far, in a cell
    made: list = field(default_factory=list)               # (episodes, table) per save
    elsewhere: list = field(default_factory=list)          # other paths it was given (reprs)

    def install(self) -> None:
        real_save = self.learner.save_Q

        def save_Q(path=None, *args, **kwargs):
            given = path if path is not None else next(iter(kwargs.values()), None)
            self.made.append((self.episodes[0], dict(self.learner.Q)))
            if same_path(given, self.path):       # the save goes through the student's call
                real_save(given, *args)
            elif repr(given) not in self.elsewhere:  # a path typed in: noted, nothing written
                self.elsewhere.append(repr(given))

        self.learner.save_Q = save_Q


def same_path(given: object, path: str) -> bool:
    """Whether ``given`` (what main passed to ``save_Q``) names the file ``path``."""
    try:
        return os.path.abspath(os.fspath(given)) == os.path.abspath(path)
    except TypeError:            # not a path at all
        return False


def saved_elsewhere(paths: list[str]) -> str:
    """The message for a main that gave ``save_Q`` paths of its own (``paths``, as repr), not
    the module's PATH."""
    shown = ", ".join(one_line(path, 80) for path in paths)
    return (f"main saved its table with save_Q({shown}), a path of its own, not PATH: the "
            "check set MC_Trainer.PATH to a file of its choosing and found no table there. "
            "Save to the module's name, whatever file it holds -- the chapter's main says so: "
            f"{SAVE_LINE}")


def read_back(saves: Saves, total: int) -> dict:
    """The table that main saved: the file at ``PATH`` after main (written by ``save_Q``, or by
    main's own ``torch.save``), unless main saved to a path of its own or the file is stale
    (``check_fresh``): ``Failure`` then."""
    if saves.elsewhere:
        raise Failure(saved_elsewhere(saves.elsewhere[:3]))
    table = load_saved(saves.path, bool(saves.made))
    check_fresh(saved_at(saves, table), total)
    return table


def saved_at(saves: Saves, table: dict) -> int | None:
    """After how many episodes ``save_Q`` last wrote ``table`` (the file main left), when the
    learner's table has moved on from it since; otherwise None."""
    if saves.made and saves.made[-1][1] == table and dict(saves.learner.Q) != table:
        return saves.made[-1][0]
    return None


def check_fresh(at: int | None, total: int) -> None:
    """``Failure`` if the table main left was saved (``saved_at``) before its last episode."""
    if at is not None and at < total:
        raise Failure(f"main saved its table after {at:,} of its {total:,} episodes and not "
                      "after the last one: save once, after the loop")


def load_saved(path: str, called: bool = True) -> dict:
    """The table in the file main saved at ``path`` (read with the safe loader); ``Failure``
    when there is none or it is no table. ``called``: whether main called ``save_Q`` at all
    (a file at PATH it never called it for was written some other way)."""
    if not os.path.isfile(path):
        raise Failure("main must save the trained table when training is done: "
                      "player1.save_Q(PATH)")
    try:
        table, _, _ = load_table(path)
    except TableError as error:
        if not called:
            raise Failure(f"main never called save_Q: it wrote PATH itself, {written_as(path)}, "
                          "which the agent's load_Q (torch.load) cannot read; save the table "
                          "with the learner's own save_Q, which writes it with torch.save -- "
                          f"the chapter's main says so: {SAVE_LINE}") from None
        # the scratch file's own name says nothing to the student: it is PATH
        problem = str(error).replace(f"{path}: ", "").replace(path, "PATH")
        raise Failure(f"the file main saved at PATH cannot be read as a table: {problem}") \
            from None
    return table


def written_as(path: str) -> str:
    """What a file that is no table seems to hold, as the message says it."""
    with open(path, "rb") as stream:
        start = stream.read(64).lstrip()
    if start[:1] in (b"{", b"["):
        return "as JSON text"
    return "as text" if start and all(32 <= byte < 127 or byte in b"\t\r\n" for byte in start) \
        else "in a form of its own"


def check_own(table: dict, seen: set, episodes: int, who: str = "main") -> None:
    """``Failure`` unless ``table`` is one that updates from episodes holding the pairs ``seen``
    can make: not a shipped table, nothing from one, no pair of a state that no episode met
    (but with the value 0: setting every Q(s, a) to 0 first is the textbook's start)."""
    for name, shipped in shipped_tables():
        same = copied_values(table, shipped)
        if holds_copy(table, shipped):
            raise NotOwnWork(f"the table {who} saved holds the shipped table {name} ({same:,} "
                             f"of its {len(shipped):,} values, to the last digit): the table "
                             "must be the one your own updates produced, not a loaded or copied "
                             "one")
    states = {pair[0] for pair in seen}
    extra = [pair for pair, value in table.items() if value != 0 and not _from(pair, seen, states)]
    if extra:
        raise NotOwnWork(f"the table {who} saved holds {len(table):,} pairs, {len(extra):,} of "
                         f"them of positions that none of the {episodes:,} episodes it was given "
                         f"reached (they hold {len(seen):,} distinct pairs): a table made by its "
                         "own updates has only pairs of its episodes' positions -- did it load or "
                         "copy another table?")


def copied_values(table: dict, shipped: dict) -> int:
    """How many of the non-zero values of ``shipped`` ``table`` has, within ``SAME``."""
    return sum(1 for pair, value in shipped.items()
               if value and abs(_number(table.get(pair)) - value) <= SAME)


def holds_copy(table: dict, shipped: dict) -> bool:
    """Whether ``table`` holds the table ``shipped`` (see ``COPIED_SHARE``)."""
    shared = copied_values(table, shipped)
    return shared >= COPIED_AT_LEAST and shared >= COPIED_SHARE * sum(map(bool,
                                                                          shipped.values()))


def pairs_of(episode: list) -> list:
    """The ``(state, action)`` pairs of an episode's steps (whatever main was given)."""
    return [(step[0], step[1]) for step in episode[:-1]
            if isinstance(step, tuple) and len(step) == 3]


def _from(pair, seen: set, states: set) -> bool:
    """Whether ``pair`` is one its episodes can make: one of theirs, or an action of a state
    they met (every legal action of a visited state set up front, the textbook way), or an
    image of either under the board's symmetries."""
    if pair in seen:
        return True
    if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], State)):
        return False
    if pair[0] in states:
        return True
    try:
        return any(image in seen or image[0] in states for image in images(*pair))
    except (TypeError, ValueError, IndexError, KeyError):
        return False


def _number(value) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else float("nan")


def shipped_tables() -> list[tuple[str, dict]]:
    """The shipped tables that are there to compare with: ``[(name, {pair: value})]``."""
    found = []
    for name in SHIPPED:
        try:
            table, _, _ = load_table(str(ROOT / name))
        except TableError:
            continue            # not there, or not a table: nothing to compare with
        found.append((name, {pair: value for pair, value in table.items() if value}))
    return found


def full_size_table() -> dict:
    """A table of every pair an X learner can meet (8,631), all 0: what a save of a trained
    table costs is timed on it."""
    table, todo, done = {}, [State()], set()
    while todo:
        state = todo.pop()
        if state in done or state.end_of_game:
            continue
        done.add(state)
        for action, child in state.children().items():
            if state.player == 1:
                table[(state, action)] = 0.0
            todo.append(child)
    return table


def seconds_per_save(folder: str, times: int = 3) -> tuple[float, int]:
    """How long saving a trained table takes here (the median of ``times`` saves), and its
    number of pairs."""
    table = full_size_table()
    path = os.path.join(folder, "timing.pth")
    seconds = []
    for _ in range(times):
        started = time.perf_counter()
        save_table(path, table, 1, {})
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds), len(table)
