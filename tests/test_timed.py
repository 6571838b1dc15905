"""tools/benchmarks/timed.py: a long command's wall-clock time and the load it ran under, printed
and kept for make docs (the README's and docs/SPEED.md's durations quote it)."""

import os
import re
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT))
from tools import figures  # noqa: E402
from tools.benchmarks import timed  # noqa: E402


@pytest.fixture
def record(tmp_path, monkeypatch):
    path = tmp_path / "timings.txt"
    monkeypatch.setattr(timed, "RECORD", path)
    return path


def test_a_timed_command_prints_its_time_and_load_and_is_kept(record, capfd):
    assert timed.main(["python", "-c", "print('ran')"]) == 0
    out = capfd.readouterr().out.splitlines()
    assert out[0] == "ran"
    assert out[1].startswith("python -c print('ran'): 0 s, 0 s of CPU (exit 0); load average ")
    assert " before, " in out[1] and " while it ran, " in out[1] and out[1].endswith(" UTC")
    [kept] = timed.read_record().values()
    assert kept.command == "python -c print('ran')" and kept.status == 0 and kept.seconds < 60
    # the processor it ran on, by the model name lscpu shows, is kept and said with the time
    assert kept.processor == timed.processor_name() != timed.UNKNOWN_PROCESSOR
    assert f" cores of {timed.with_article(kept.processor)}; " in out[1]


def test_the_cpu_time_of_the_command_and_its_children_is_kept_beside_the_wall_time(record,
                                                                                    capfd):
    """A busy machine stretches the wall time, hardly the CPU time: both are said."""
    spin = ("import time; end = time.process_time() + 0.3; "
            "all(iter(lambda: time.process_time() < end, False))")
    assert timed.main(["python", "-c", spin]) == 0
    [kept] = timed.read_record().values()
    assert 0.3 <= kept.cpu <= kept.seconds + 0.5
    assert f": {timed.duration(kept.seconds)}, {timed.duration(kept.cpu)} of CPU (exit 0)" in \
        capfd.readouterr().out
    assert timed.Timing.parse(kept.line()) == kept


def test_the_processor_is_the_model_name_lscpu_shows():
    lscpu = shutil.which("lscpu")
    if lscpu is None:
        pytest.skip("no lscpu here to compare with")
    shown = subprocess.run([lscpu], capture_output=True, text=True, check=True,
                           env={"LC_ALL": "C", "PATH": os.environ.get("PATH", "")}).stdout
    model = re.search(r"^Model name:\s*(.+)$", shown, re.M)
    assert model and timed.processor_name() == " ".join(model[1].split())


def test_a_record_written_before_processors_were_kept_still_reads(record):
    record.write_text("make dqn\t41\t0\t0.7\t1.1\t2\t2026-12-07 02:09 UTC\n")
    kept = timed.read_record()["make dqn"]
    assert (kept.seconds, kept.processor, kept.cpu) == (41, timed.UNKNOWN_PROCESSOR, None)
    assert kept.summary().startswith("make dqn: 41 s (exit 0)")
    assert "2 cores of a processor not recorded; 2026-12-07 02:09 UTC" in kept.summary()
    # and one with its processor but before CPU seconds were kept: the next run is kept beside it
    record.write_text("make dqn\t1341\t0\t11.4\t14.4\t2\t2026-12-07 14:40 UTC\tAMD EPYC\n")
    assert (timed.read_record()["make dqn"].processor, timed.read_record()["make dqn"].cpu) == \
        ("AMD EPYC", None)
    timed.keep(timed.Timing("make test", 64, 0, 0.4, 1.3, 2, "2026-12-07 15:00 UTC", "AMD EPYC",
                            61.5))
    assert set(timed.read_record()) == {"make dqn", "make test"}


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
    timed.keep(timed.Timing("make test", 64, 0, 0.4, 1.3, 2, "2026-12-06 02:40 UTC", "AMD EPYC",
                            61))
    lines = figures.timing_lines(tmp_path, "README.md", ("make test", "make test-all", "make dqn"))
    assert lines == [
        "- `make test`: 1 min 04 s, 1 min 01 s of CPU (1-minute load average 0.4 before, 1.3 "
        "while it ran; 2 cores of an AMD EPYC; 2026-12-06 02:40 UTC)",
        "- `make test-all`: 28 min 10 s (as written before)",
        "- `make dqn`: not timed here yet (`python tools/benchmarks/timed.py make dqn`)"]


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
