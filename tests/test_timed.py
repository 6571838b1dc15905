"""tools/benchmarks/timed.py: a long command's wall-clock time and the load it ran under, printed
and kept for make docs (the README's and docs/SPEED.md's durations quote it)."""

import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT))
from tools import figures  # noqa: E402
from tools.benchmarks import timed  # noqa: E402
from tools.benchmarks.machine import processor  # noqa: E402


@pytest.fixture
def record(tmp_path, monkeypatch):
    path = tmp_path / "timings.txt"
    monkeypatch.setattr(timed, "RECORD", path)
    monkeypatch.setattr(timed, "SLOWEST", tmp_path / "slowest.txt")
    return path


# What pytest --durations=2 prints at the end of a run (the suite's own words and layout).
PYTEST_END = """....                                                                     [100%]
============================= slowest 2 durations ==============================
61.20s call     tests/test_commands.py::test_every_documented_command_works
9.95s setup    tests/test_exercise.py::test_the_chapters_solution_passes
============================== 4 passed in 71.33s ==============================
"""


def test_the_slowest_tests_a_pytest_run_prints_are_kept_for_the_readme(record, tmp_path):
    assert timed.main(["python", "-c", f"print({PYTEST_END!r})"]) == 0
    command = f"python -c print({PYTEST_END!r})"
    assert timed.read_slowest()[command] == [
        "61.20s call     tests/test_commands.py::test_every_documented_command_works",
        "9.95s setup    tests/test_exercise.py::test_the_chapters_solution_passes"]
    assert timed.main(["python", "-c", "print('no durations')"]) == 0     # nothing kept for it
    assert list(timed.read_slowest()) == [command]
    timed.keep_slowest(command, ["1.00s call     tests/test_x.py::test_y"])   # the latest wins
    assert timed.read_slowest() == {command: ["1.00s call     tests/test_x.py::test_y"]}


def test_the_slowest_tests_of_a_quiet_run_that_passed_are_kept_too(record):
    """With -q and no failure, pytest ends the section with its counts, no blank line between."""
    quiet = ("....   [100%]\n============ slowest 2 durations ============\n"
             "61.20s call     tests/test_commands.py::test_x\n"
             "9.95s setup    tests/test_exercise.py::test_y\n4 passed in 71.33s (0:01:11)\n")
    assert timed.slowest_tests(quiet) == ["61.20s call     tests/test_commands.py::test_x",
                                          "9.95s setup    tests/test_exercise.py::test_y"]


def test_a_timed_command_prints_its_time_and_load_and_is_kept(record, capfd):
    assert timed.main(["python", "-c", "print('ran')"]) == 0
    out = capfd.readouterr().out.splitlines()
    assert out[0] == "ran"
    assert out[1].startswith("python -c print('ran'): 0 s (exit 0); load average ")
    assert " before, " in out[1] and " while it ran, " in out[1] and out[1].endswith(" UTC")
    assert f" cores, processor {processor()}; " in out[1]        # what lscpu calls it
    [kept] = timed.read_record().values()
    assert kept.command == "python -c print('ran')" and kept.status == 0 and kept.seconds < 60
    assert kept.processor == processor() != ""


def test_the_latest_run_of_a_command_replaces_the_earlier_one(record):
    first = timed.Timing("make test", 70, 0, 0.5, 1.3, 2, "2026-12-06 02:40 UTC")
    second = timed.Timing("make test", 65, 0, 0.2, 1.1, 2, "2026-12-07 09:00 UTC")
    other = timed.Timing("make dqn", 95, 0, 1.0, 1.2, 2, "2026-12-06 03:00 UTC")
    for timing in (first, other, second):
        timed.keep(timing)
    assert timed.read_record() == {"make test": second, "make dqn": other}
    assert record.read_text().count("\n") == 2


def test_a_failed_command_is_not_kept(record, capfd):
    assert timed.main(["python", "-c", "raise SystemExit(3)"]) == 3
    assert "(exit 3)" in capfd.readouterr().out and not record.exists()


def test_no_command_or_an_unknown_one_is_one_line_and_status_2(record, capsys):
    with pytest.raises(SystemExit) as stop:
        timed.main([])
    assert stop.value.code == 2 and "name the command to time" in capsys.readouterr().err
    with pytest.raises(ValueError, match="no such command: no-such-program-here"):
        timed.main(["no-such-program-here"])


@pytest.mark.parametrize("seconds, said", [(4.4, "4 s"), (64, "1 min 04 s"), (3725, "1 h 02 min")])
def test_durations_read_as_a_person_says_them(seconds, said):
    assert timed.duration(seconds) == said


def test_the_docs_quote_each_command_from_the_record_or_keep_their_line(record, tmp_path):
    (tmp_path / "README.md").write_text("- `make test-all`: 28 min 10 s (as written before)\n")
    timed.keep(timed.Timing("make test", 64, 0, 0.4, 1.3, 2, "2026-12-06 02:40 UTC", "AMD EPYC"))
    lines = figures.timing_lines(tmp_path, "README.md", ("make test", "make test-all", "make dqn"))
    assert lines == [
        "- `make test`: 1 min 04 s (1-minute load average 0.4 before, 1.3 while it ran; 2 cores, "
        "processor AMD EPYC; 2026-12-06 02:40 UTC)",
        "- `make test-all`: 28 min 10 s (as written before)",
        "- `make dqn`: not timed here yet (`python tools/benchmarks/timed.py make dqn`)"]


def test_a_clone_with_no_records_makes_the_timings_figure_the_docs_already_have(record, tmp_path):
    """CI checks the figures in a fresh clone, where no command was timed: the durations and the
    slowest tests the document quotes stay as they are."""
    (tmp_path / "docs").mkdir()
    figure = "\n".join(f"- `{command}`: 1 min 0{n} s (as written before)"
                       for n, command in enumerate(timed.TIMED)) + (
        "\n\nThe ten slowest tests of that `make test-all` run, as pytest printed them:\n\n"
        "    61.20s call     tests/test_commands.py::test_x\n"
        "    9.95s setup    tests/test_exercise.py::test_y\n")
    (tmp_path / "docs" / "SPEED.md").write_text(
        f"# Speed\n\n<!-- figures:timings -->\n{figure}\n<!-- /figures -->\n", encoding="utf-8")
    assert figures.timings(tmp_path, False) == "\n" + figure + "\n"


def test_a_record_from_before_the_processor_was_kept_says_so(record):
    record.write_text("make dqn\t41\t0\t0.7\t1.1\t2\t2026-12-07 02:09 UTC\n")
    [old] = timed.read_record().values()
    assert old.seconds == 41 and old.processor == ""
    assert old.summary().endswith("2 cores, processor not recorded; 2026-12-07 02:09 UTC")


def test_a_figure_s_time_names_the_processor_and_the_load_it_was_measured_on():
    printed, how = figures.timed_run(ROOT, "-c", "print('ran')")
    assert printed == "ran" and how.startswith("0 s in all, on a ")
    assert f"-core machine, processor {processor()}, load average " in how


def test_a_bench_line_not_timed_here_keeps_the_documented_one(tmp_path, monkeypatch):
    """make bench on a clone without the course's chapter code says "not timed"; make docs keeps
    the line the docs have rather than writing that over it."""
    record = tmp_path / "bench.txt"
    record.write_text("make bench, today\n    the chapter's own code: not timed (no listing)\n"
                      "    Tester: 1,000 games: 6 ms\n", encoding="utf-8")
    monkeypatch.setattr(figures, "BENCH_RECORD", record)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "SPEED.md").write_text(
        "    the chapter's own MC_Trainer.py as printed: 2.17 s\n", encoding="utf-8")
    made = figures.bench(tmp_path, True)
    assert "    the chapter's own MC_Trainer.py as printed: 2.17 s (an earlier run's)" in made
    assert "not timed" not in made and "Tester: 1,000 games: 6 ms" in made
    (tmp_path / "docs" / "SPEED.md").write_text(made, encoding="utf-8")
    assert figures.bench(tmp_path, True) == made          # not marked twice
