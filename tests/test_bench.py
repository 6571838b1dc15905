"""tools/benchmarks/course.py reads every rate from the trainers' own "Trained ..." line: if that line
changed, the side-by-side figures would silently stop, so these tests run the real commands.
(Only the solved trainer prints it; a student's own main trains its own way.)"""

import sys

import pytest

from tools.benchmarks import course as bench_course


@pytest.mark.slow
@pytest.mark.solved_only
def test_the_rate_is_read_from_our_trainer_and_from_the_course_design(tmp_path):
    for command in (
            [sys.executable, str(bench_course.ROOT / "MC_Trainer.py"), "--epochs", "300",
             "--seed", "1", "--out", str(tmp_path / "q.pth")],
            [sys.executable, str(bench_course.ROOT / "tools" / "course" / "original_design.py"),
             "--epochs", "30", "--opponent", "advanced"]):
        seconds, output = bench_course.run_process(command)
        rate = bench_course.reported_rate(output, command[1])
        assert seconds > 0 and 10 < rate < 10_000_000


@pytest.mark.slow
@pytest.mark.solved_only
def test_the_same_run_twice_in_one_process_prints_two_rates(tmp_path):
    _, output = bench_course.run_process([
        sys.executable, "-c", bench_course.TWICE, str(bench_course.ROOT), "--epochs", "200",
        "--seed", "3", "--out", str(tmp_path / "q.pth")])
    assert len(bench_course.TRAINED.findall(output)) == 2


def test_failures_are_one_line_errors():
    with pytest.raises(bench_course.BenchError, match="printed no 'Trained"):
        bench_course.reported_rate("Saved the table to q.pth\n", "MC_Trainer.py")
    with pytest.raises(bench_course.BenchError, match="exited 2"):
        bench_course.run_process([sys.executable, str(bench_course.ROOT / "MC_Trainer.py"),
                                  "--epochs", "-1"])


def test_the_dqn_line_gives_the_time_and_the_quality_a_verdict_each():
    """A run that trains fast enough but ends below the quality target says which one it missed
    (the single "BELOW TARGET" after "target <= 120 s" read as "fast enough")."""
    from tools.benchmarks import dqn as bench_dqn
    side = {"wins": 98.9583, "losses": 0.0, "unbeatable": True}
    below = {"seed": 1, "sides": [side], "wall": 30.0, "cpu": 29.0, "met": False,
             "margin": (3, 201)}
    assert bench_dqn.run_line("X vs random", below).endswith(": MISSED")
    line = bench_dqn.summary("X vs random", [below])
    assert "target met in 0 of 1 seeds; lowest X wins vs random 98.9583 %" in line
    assert line.endswith("quality MISSED, time ok")
    slow = bench_dqn.summary("self-play", [dict(below, wall=200.0, met=True)])
    assert slow.endswith("quality ok, time TOO SLOW")


def test_the_dqn_lines_give_each_run_s_margin_and_the_lowest():
    """How many checked networks alone were as good as the kept one: read from the report, shown
    per run, and the lowest of a sweep in its summary (none for a run that kept its last)."""
    from tools.benchmarks import dqn as bench_dqn
    report = ("kept the average of the 201 networks checked exactly over the second half of the "
              "run (156 of the 201 were as good alone; --keep last keeps the last)")
    assert bench_dqn.margin_of(bench_dqn._MARGIN.search(report)) == (156, 201)
    better = "kept the average ... (better than each of the 51 alone; --keep last keeps the last)"
    assert bench_dqn.margin_of(bench_dqn._MARGIN.search(better)) == (0, 51)
    assert bench_dqn.margin_of(bench_dqn._MARGIN.search("exact vs random ...")) is None
    side = {"wins": 99.4792, "losses": 0.0, "unbeatable": True}
    runs = [{"seed": seed, "sides": [side], "wall": 30.0, "cpu": 29.0, "met": True,
             "margin": margin} for seed, margin in ((1, (156, 201)), (2, (40, 201)), (3, None))]
    assert "; as good alone 40 of 201; wall 30.0 s" in bench_dqn.run_line("X vs random", runs[1])
    assert "as good alone" not in bench_dqn.run_line("X vs random", runs[2])
    assert "lowest X wins vs random 99.4792 %; lowest margin 40 of 201; wall median" in \
        bench_dqn.summary("X vs random", runs)


def test_compare_reads_every_trainers_defaults():
    """make compare used to crash after a minute of training: MC_Trainer has no DEFAULTS."""
    from tools import compare
    rates = {name: compare.load_defaults(script).self_play["alpha"]
             for name, script in compare.TRAINERS}
    # every registered trainer has one; a new trainer adds its own without changing these
    assert rates.items() >= {"MC": 0.1, "SARSA": 0.5, "Q-learning": 0.5,
                             "Expected SARSA": 0.5}.items()


def test_compare_names_the_processor_and_the_load_its_training_seconds_were_measured_on(
        monkeypatch):
    """The table's seconds are the trainers' (their training, stubbed out here); its first line
    says on what processor and under what load they were measured."""
    import os
    from tools import compare
    from tools.benchmarks.machine import processor
    monkeypatch.setattr(compare, "train", lambda script, out, epochs, seed, spec, side:
                        ([out], 1.0))
    monkeypatch.setattr(compare, "measure", lambda path, seconds: {
        "side": 1, "seconds": seconds, "results": {"random": (1, 0, 0), "advanced": (1, 0, 0)},
        "unbeatable": True})
    first = compare.comparison(10, 1, "random").splitlines()[0]
    assert f"; training seconds on a {os.cpu_count()}-core machine, processor {processor()}, " \
           "load average " in first and first.endswith(" after")
