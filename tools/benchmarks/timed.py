"""Time a long command as a user runs it: its wall-clock time and the machine's load while it ran.

    python tools/benchmarks/timed.py make test
    python tools/benchmarks/timed.py make test-all
    python tools/benchmarks/timed.py python -m jupyter execute notebooks/bigger_boards.ipynb

The command runs in the repository folder with its output shown as usual; then one line says how
long it took and under what load (the 1-minute load average before it started, and its mean,
sampled every few seconds while it ran: the command's own work counts in it, so on an idle
2-core machine a one-process command shows about 1). The line is also kept in Data/timings.txt,
one line per command (the latest run of each), which ``make docs`` quotes in README.md; where the
command is a pytest run that printed its slowest tests (``make test-all`` asks for the ten
slowest), they are kept in Data/slowest.txt for docs/SPEED.md too.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tictactoe_rl import cli  # noqa: E402  (the project root must be on the path first)
from tools.benchmarks.machine import processor  # noqa: E402

RECORD = ROOT / "Data" / "timings.txt"
SLOWEST = ROOT / "Data" / "slowest.txt"
# pytest's --durations section: its heading, then a line per test until a blank line, a heading
# or (with -q, all passed) the last line's counts
DURATIONS = re.compile(r"^=+ slowest (?:\d+ )?durations =+\n(.*?)(?:\n\n|\n=|\n\d+ \w+.* in |\Z)",
                       re.M | re.S)
SAMPLE_EVERY = 5.0      # seconds between two readings of the load average
# The long commands whose time the docs state (docs/SPEED.md, "How long").
TIMED = ("make test", "make test-all", "make dqn", "make bench", "make docs",
         "python -m jupyter execute notebooks/bigger_boards.ipynb")


@dataclass(frozen=True)
class Timing:
    """One timed run: the command, its wall-clock seconds and exit status, the 1-minute load
    average before it and on average while it ran, the machine's cores, when (UTC), and the
    processor (empty in a record written before it was kept)."""
    command: str
    seconds: float
    status: int
    load_before: float
    load_during: float
    cores: int
    when: str
    processor: str = ""

    def line(self) -> str:
        """The record's line (tab-separated), which ``parse`` reads back."""
        return "\t".join((self.command, f"{self.seconds:.0f}", str(self.status),
                          f"{self.load_before:.1f}", f"{self.load_during:.1f}", str(self.cores),
                          self.when, self.processor))

    @classmethod
    def parse(cls, line: str) -> Timing:
        command, seconds, status, before, during, cores, when, *named = \
            line.rstrip("\n").split("\t")
        return cls(command, float(seconds), int(status), float(before), float(during),
                   int(cores), when, "".join(named[:1]))

    def machine(self) -> str:
        """``2 cores, processor AMD EPYC``."""
        return f"{self.cores} cores, processor {self.processor or 'not recorded'}"

    def summary(self) -> str:
        """``make test: 1 min 12 s (exit 0); load average 0.4 before, 1.9 while it ran, 2 cores,
        processor AMD EPYC; 2026-12-06 02:30 UTC``."""
        return (f"{self.command}: {duration(self.seconds)} (exit {self.status}); load average "
                f"{self.load_before:.1f} before, {self.load_during:.1f} while it ran, "
                f"{self.machine()}; {self.when}")


def duration(seconds: float) -> str:
    """``45 s``, ``3 min 04 s``, ``1 h 02 min``."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def load_average() -> float:
    """The 1-minute load average (0 where the system has none to tell)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def time_command(command: list[str]) -> tuple[Timing, str]:
    """Run ``command`` in the repository folder (its output goes to ours) and time it; also
    what it printed."""
    samples: list[float] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(SAMPLE_EVERY):
            samples.append(load_average())
    before = load_average()
    sampler = threading.Thread(target=sample, daemon=True)
    started = time.perf_counter()
    sampler.start()
    # "python" is this Python (the virtual environment's), as the docs' commands mean it
    program = [sys.executable] if command[0] == "python" else command[:1]
    printed = bytearray()
    try:
        with subprocess.Popen(program + command[1:], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT) as child:
            while chunk := child.stdout.read1():     # passed on as it comes, and kept
                sys.stdout.buffer.write(chunk)
                sys.stdout.buffer.flush()
                printed += chunk
        status = child.returncode
    except FileNotFoundError:
        raise ValueError(f"no such command: {command[0]}") from None
    finally:
        done.set()
    seconds = time.perf_counter() - started
    samples.append(load_average())
    return Timing(" ".join(command), seconds, status, before, sum(samples) / len(samples),
                  os.cpu_count() or 1, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                  processor()), printed.decode("utf-8", errors="replace")


def slowest_tests(printed: str) -> list[str]:
    """The lines of pytest's slowest-durations section in ``printed`` (none when it has none)."""
    found = DURATIONS.search(printed.replace("\r\n", "\n"))
    return [line.strip() for line in found.group(1).splitlines() if re.match(r"\s*[\d.]+s ",
                                                                              line)] \
        if found else []


def read_slowest(path: Path | None = None) -> dict[str, list[str]]:
    """The slowest tests kept for each command (default file: ``SLOWEST``)."""
    path = path or SLOWEST
    kept: dict[str, list[str]] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            command, _, test = line.partition("\t")
            kept.setdefault(command, []).append(test)
    return kept


def keep_slowest(command: str, tests: list[str], path: Path | None = None) -> None:
    """Put ``tests`` in the record (default: ``SLOWEST``) in place of the command's earlier ones."""
    path = path or SLOWEST
    kept = read_slowest(path)
    kept[command] = tests
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{name}\t{test}\n" for name, lines in kept.items()
                            for test in lines), encoding="utf-8")


def read_record(path: Path | None = None) -> dict[str, Timing]:
    """The latest timing of each command in ``path`` (default: ``RECORD``; none when there is
    no file)."""
    path = path or RECORD
    if not path.is_file():
        return {}
    timings = (Timing.parse(line) for line in path.read_text(encoding="utf-8").splitlines()
               if line.strip())
    return {timing.command: timing for timing in timings}


def keep(timing: Timing, path: Path | None = None) -> None:
    """Put ``timing`` in the record (default: ``RECORD``), in place of an earlier one of the
    same command."""
    path = path or RECORD
    kept = read_record(path)
    kept[timing.command] = timing
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(t.line() + "\n" for t in kept.values()), encoding="utf-8")


def quoted_lines(commands: Sequence[str], written: list[str]) -> list[str]:
    """The docs' line for each command: ``- `make test`: 1 min 04 s (1-minute load average ...)``
    from its latest run in the record, else the line of ``written`` (a document's lines) that
    already quotes it, else "not timed here yet" and how to time it."""
    record = read_record()
    found = []
    for command in commands:
        start = f"- `{command}`: "
        timing = record.get(command)
        if timing is not None:
            found.append(f"{start}{duration(timing.seconds)} (1-minute load average "
                         f"{timing.load_before:.1f} before, {timing.load_during:.1f} while it "
                         f"ran; {timing.machine()}; {timing.when})")
        else:
            found.append(next((line for line in written if line.startswith(start)),
                              f"{start}not timed here yet (`python tools/benchmarks/timed.py "
                              f"{command}`)"))
    return found


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if not args:
        cli.fail("timed.py: error: name the command to time, e.g. make test (see --help)")
    timing, printed = time_command(args)
    print(timing.summary(), flush=True)
    if timing.status == 0:      # a failed run's time says nothing about the command
        keep(timing)
        slowest = slowest_tests(printed)
        if slowest:
            keep_slowest(timing.command, slowest)
    return timing.status


if __name__ == "__main__":
    cli.run(lambda: main())
