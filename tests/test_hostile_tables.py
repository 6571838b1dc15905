"""Files built to hurt the loaders are refused with one line, before anything is built from them.

The files are written by ``tools/hostile/tables.py`` (tables, instruction by instruction) and
``tools/hostile/networks.py`` (network files with one record changed); here each is refused by
the loader and by the command line a user types (exit 2, one line, the file as it was).
``tools/benchmarks/hostile.py`` measures the CPU time and peak memory of every refusal (at most 2 s
and 300 MB above the interpreter): a speed target is a benchmark's, not a test's.
"""

import functools
import pickle
import signal
from pathlib import Path

import pytest

from tictactoe_rl import cli
import DQN_Trainer
import Tester
from tictactoe_rl.tables import course_files, files as Q_Table
from tictactoe_rl.tables.files import TableError, load_table
from tictactoe_rl.neural.files import NetworkError, load_network
from tools.hostile.networks import NETWORKS, RESUME, RESUMES, deflate_bomb, good_network
from tictactoe_rl.tables import opcodes
from tools.hostile.tables import HOSTILE, ZIPPED, as_torch_zip, colliding_keys, lying_zip64, \
    many_members, many_valid_entries, name, put, text, zip_bomb

# Files that take a second or more to build (or, at 800,000 instructions, to walk): the full suite
# reads them; the quick one reads smaller files of the same kinds (below), refused by the same
# checks.
SLOW_TO_BUILD = {"a 262 KB zip of 256 MiB of data.pkl", "15 MB in the course's format",
                 "800,000 memo writes of one value",
                 "a 5.5 MB table of 24 dicts of colliding integer keys",
                 "a zip64 end record of 120,000 members past a classic one of six",
                 "a zip of 20,000 members"}


def kinds(names) -> list:
    return [pytest.param(kind, marks=pytest.mark.slow) if kind in SLOW_TO_BUILD else kind
            for kind in names]


@functools.lru_cache(maxsize=None)
def hostile_bytes(kind: str) -> bytes:
    build = {**HOSTILE, **ZIPPED}[kind][0]
    return build() if kind in ZIPPED else as_torch_zip(build())


def write_hostile(tmp_path, kind: str) -> tuple[Path, str]:
    path = tmp_path / "hostile.pth"
    path.write_bytes(hostile_bytes(kind))
    return path, {**HOSTILE, **ZIPPED}[kind][1]


def assert_one_line(error: TableError, path, words: str) -> None:
    message = str(error)
    assert "\n" not in message and message.startswith(f"{path}: "), message
    assert words in message, message
    assert "use a table saved by" in message or "copy it again" in message, message


@pytest.mark.parametrize("kind", kinds([*HOSTILE, *ZIPPED]))
def test_a_hostile_file_is_refused_with_one_line(tmp_path, kind):
    path, words = write_hostile(tmp_path, kind)
    with pytest.raises(TableError) as caught:
        load_table(path)
    assert_one_line(caught.value, path, words)
    assert "incomplete zip archive" not in str(caught.value)


@pytest.mark.parametrize("kind", kinds([*HOSTILE, *ZIPPED]))
def test_a_hostile_table_file_read_as_a_network_is_refused_too(tmp_path, kind):
    """Where a command does not know a file's kind it tries a network after a table
    (``purpose_of``): the network's reader refuses every hostile table file as well, in one
    line, and a value referred to again and again before it is rebuilt (hashing one never
    ends)."""
    path, _ = write_hostile(tmp_path, kind)
    with pytest.raises(ValueError) as caught:
        load_network(str(path))
    assert "\n" not in str(caught.value) and str(caught.value).startswith(f"{path}: ")
    if "doubling" in kind and "zip" not in kind:
        assert "nested more than" in str(caught.value)


def test_the_stand_ins_refusals_have_their_own_message(tmp_path):
    """An object dtype (numpy's own reader would build Python objects): the one line says what
    the file holds, not that the archive is cut short."""
    path = tmp_path / "object_dtype.pth"
    path.write_bytes(as_torch_zip(pickle.PROTO + b"\x02" + name("numpy", "dtype") + text("O8")
                                  + pickle.NEWFALSE + pickle.NEWTRUE + pickle.TUPLE3
                                  + pickle.REDUCE + pickle.STOP))
    with pytest.raises(TableError) as caught:
        load_table(path)
    assert_one_line(caught.value, path, "not a Q-table: it holds a numpy dtype other than")


@pytest.mark.parametrize("where", ["rebuilding", "checking"])
@pytest.mark.parametrize("error", [MemoryError(), RecursionError("maximum recursion depth"),
                                   AttributeError("board"), RuntimeError("boom")])
def test_any_failure_while_reading_is_one_table_error(tmp_path, monkeypatch, error, where):
    path = tmp_path / "t.pth"
    Q_Table.save_table(path, {}, 1)

    def fail(*args):
        raise error
    if where == "rebuilding":
        monkeypatch.setattr(course_files, "rebuild", fail)
    else:
        monkeypatch.setattr(Q_Table, "_clean", fail)
    with pytest.raises(TableError) as caught:
        load_table(path)
    assert_one_line(caught.value, path, type(error).__name__)


# --- through the command line: exit 2, one line, the file as it was ----------------------------

def command_line(main, argv: list[str], capsys) -> tuple[int, list[str], str]:
    """Run a script's ``main(argv)`` as its command line does (``cli.run``), in this process:
    ``(exit status, the lines on stderr, stdout)``."""
    handler = signal.getsignal(signal.SIGINT)
    try:
        with pytest.raises(SystemExit) as ended:
            cli.run(lambda: main(argv))
    finally:
        signal.signal(signal.SIGINT, handler)
    printed = capsys.readouterr()
    return ended.value.code, printed.err.strip().splitlines(), printed.out


NEW_TABLES = ["a 5.5 MB table of 24 dicts of colliding integer keys",
              "a zip64 end record of 120,000 members past a classic one of six",
              "two members of the same name", "an empty Q dict with a side"]


@pytest.mark.parametrize("kind", kinds(NEW_TABLES))
def test_a_hostile_table_is_refused_by_the_tester_in_one_line(tmp_path, kind, capsys):
    path, words = write_hostile(tmp_path, kind)
    assert_refused_by_the_tester(path, words, capsys)


def assert_refused_by_the_tester(path: Path, words: str, capsys) -> None:
    before = path.read_bytes()
    status, lines, _ = command_line(Tester.main, ["--show-q", str(path)], capsys)
    assert status == 2 and len(lines) == 1 and words in lines[0], lines
    assert path.read_bytes() == before


SMALL_VERSIONS = {   # of SLOW_TO_BUILD: the same kind of file, the same check
    "a zip member of 20 MiB": (lambda: zip_bomb(20 * 2**20), "a zip member of 20,971,"),
    "a 7 MB data.pkl": (lambda: as_torch_zip(many_valid_entries(7 * 2**20)), "a data.pkl of 7,"),
    "a dict of 2,000 colliding integer keys": (lambda: as_torch_zip(colliding_keys(1, 2_000)),
                                               "a dict keyed by numbers"),
    "a zip64 end record of 100 members": (lambda: lying_zip64(100), "a zip archive of 100 members"),
    "a zip of 100 members": (lambda: many_members(100), "a zip archive of 100 members"),
}


@pytest.mark.parametrize("kind", SMALL_VERSIONS)
def test_small_versions_of_the_costly_files_are_refused_by_the_same_checks(tmp_path, kind,
                                                                         capsys):
    build, words = SMALL_VERSIONS[kind]
    path = tmp_path / "hostile.pth"
    path.write_bytes(build())
    with pytest.raises(TableError) as caught:
        load_table(path)
    assert_one_line(caught.value, path, words)
    assert_refused_by_the_tester(path, words, capsys)


def test_the_instruction_limit_refuses_a_long_walk_of_harmless_steps(monkeypatch):
    """800,000 memo writes (the full suite's file) at a limit of 1,000."""
    monkeypatch.setattr(opcodes, "MAX_OPS", 1_000)
    with pytest.raises(opcodes.Unlike, match="more than 1,000 pickle instructions"):
        opcodes.scan(pickle.PROTO + b"\x02" + pickle.NONE + put(0) * 2_000 + pickle.STOP)
    opcodes.scan(pickle.PROTO + b"\x02" + pickle.NONE + put(0) * 900 + pickle.STOP)


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> bytes:
    """The bytes of a network file DQN_Trainer.py saved after a few games."""
    return good_network(str(tmp_path_factory.mktemp("good") / "good.pt"))


def write_network(tmp_path, kind: str, good: bytes) -> tuple:
    build, words = {**NETWORKS, **RESUMES}[kind]
    path = tmp_path / "hostile.pt"
    # the bomb at 1/64 of its size: the same records, refused by the same check
    path.write_bytes(deflate_bomb(good, 2**26) if build is deflate_bomb else build(good))
    return path, words


@pytest.mark.slow
def test_the_good_network_loads_and_resumes(tmp_path, good, capsys):
    """What the hostile files are changed from is itself a file every reader accepts."""
    path = tmp_path / "good.pt"
    path.write_bytes(good)
    assert load_network(str(path), resume=True).optimizer
    status, _, printed = command_line(DQN_Trainer.run, ["--resume", str(path), *RESUME], capsys)
    assert status == 0 and "Trained 40 episodes" in printed


@pytest.mark.parametrize("kind", [*NETWORKS, *RESUMES])
def test_a_hostile_network_is_refused_in_one_line(tmp_path, kind, good):
    path, words = write_network(tmp_path, kind, good)
    with pytest.raises(NetworkError) as caught:
        load_network(str(path), resume=kind in RESUMES)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{path}: ") and words in message, message


@pytest.mark.parametrize("kind", [*NETWORKS, *RESUMES])
def test_a_hostile_network_is_refused_by_the_tester_and_by_resume(tmp_path, kind, good, capsys):
    """``Tester.py --show-q dqn:PATH`` and ``DQN_Trainer.py --resume PATH``: exit 2 and one line
    before any game is played, and the file is left as it was (a resume saves back to it). Only
    a resume reads Adam's state: with that state changed, the Tester plays the network."""
    path, words = write_network(tmp_path, kind, good)
    before = path.read_bytes()
    readers = [(DQN_Trainer.run, ["--resume", str(path), *RESUME])]
    if kind in RESUMES:
        status, lines, printed = command_line(Tester.main, ["--show-q", f"dqn:{path}"], capsys)
        assert status == 0 and "values of the network" in printed, lines
    else:
        readers.append((Tester.main, ["--show-q", f"dqn:{path}"]))
    for main, argv in readers:
        status, lines, printed = command_line(main, argv, capsys)
        assert status == 2 and len(lines) == 1 and words in lines[0], lines
        assert "Trained" not in printed
        assert path.read_bytes() == before
