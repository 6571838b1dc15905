"""Time a long command as a user runs it: its wall-clock time and the machine's load while it ran.

    python tools/benchmarks/timed.py make test
    python tools/benchmarks/timed.py make test-all
    python tools/benchmarks/timed.py python -m jupyter execute notebooks/bigger_boards.ipynb

The command runs in the repository folder with its output shown as usual; then one line says how
long it took and under what load (the 1-minute load average before it started, and its mean,
sampled every few seconds while it ran: the command's own work counts in it, so on an idle
2-core machine a one-process command shows about 1). The line is also kept in Data/timings.txt,
one line per command (the latest run of each), which ``make docs`` quotes in README.md.
"""

from __future__ import annotations

import os
import platform
import resource
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

RECORD = ROOT / "Data" / "timings.txt"
SAMPLE_EVERY = 5.0      # seconds between two readings of the load average
# The long commands whose time the docs state (docs/SPEED.md, "How long").
TIMED = ("make test", "make test-all", "make dqn", "make bench", "make docs",
         "python -m jupyter execute notebooks/bigger_boards.ipynb")


UNKNOWN_PROCESSOR = "processor not recorded"


def processor_name() -> str:
    """The processor's model name, as ``lscpu`` shows it (``AMD EPYC``, ``Intel(R) Xeon(R) ...``),
    read from /proc/cpuinfo; elsewhere what Python knows of it."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and value.strip():
                    return " ".join(value.split())
    except OSError:
        pass
    return platform.processor() or platform.machine() or UNKNOWN_PROCESSOR


def with_article(processor: str) -> str:
    """``an AMD EPYC``, ``a processor not recorded``: a processor's name in a sentence."""
    return f"{'an' if processor[:1] in tuple('AEIOU') else 'a'} {processor}"


@dataclass(frozen=True)
class Timing:
    """One timed run: the command, its wall-clock seconds and exit status, the 1-minute load
    average before it and on average while it ran, the machine's cores, when (UTC), the
    processor's model name, and the CPU seconds the command and its children used (None in a
    record written before they were kept): on a busy machine the wall time grows, they hardly do."""
    command: str
    seconds: float
    status: int
    load_before: float
    load_during: float
    cores: int
    when: str
    processor: str = UNKNOWN_PROCESSOR
    cpu: float | None = None

    def line(self) -> str:
        """The record's line (tab-separated), which ``parse`` reads back."""
        return "\t".join((self.command, f"{self.seconds:.0f}", str(self.status),
                          f"{self.load_before:.1f}", f"{self.load_during:.1f}", str(self.cores),
                          self.when, self.processor,
                          "" if self.cpu is None else f"{self.cpu:.1f}"))

    @classmethod
    def parse(cls, line: str) -> Timing:
        """A record's line; one written before processors (CPU seconds) were kept has seven
        (eight) fields."""
        command, seconds, status, before, during, cores, when, *later = \
            line.rstrip("\n").split("\t")
        processor, cpu = (later + [UNKNOWN_PROCESSOR, ""][len(later):])[:2]
        return cls(command, float(seconds), int(status), float(before), float(during),
                   int(cores), when, processor, float(cpu) if cpu else None)

    def spent(self) -> str:
        """``22 min 21 s, 52 s of CPU``: the wall time, and the CPU time where it was kept."""
        cpu = "" if self.cpu is None else f", {duration(self.cpu)} of CPU"
        return f"{duration(self.seconds)}{cpu}"

    def summary(self) -> str:
        """``make test: 1 min 12 s, 1 min 10 s of CPU (exit 0); load average 0.4 before, 1.9
        while it ran, 2 cores of an AMD EPYC; 2026-12-06 02:30 UTC``."""
        return (f"{self.command}: {self.spent()} (exit {self.status}); load average "
                f"{self.load_before:.1f} before, {self.load_during:.1f} while it ran, "
                f"{self.cores} cores of {with_article(self.processor)}; {self.when}")


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


def time_command(command: list[str]) -> Timing:
    """Run ``command`` in the repository folder (its output goes to ours) and time it."""
    samples: list[float] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(SAMPLE_EVERY):
            samples.append(load_average())
    before = load_average()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    sampler = threading.Thread(target=sample, daemon=True)
    started = time.perf_counter()
    sampler.start()
    # "python" is this Python (the virtual environment's), as the docs' commands mean it
    program = [sys.executable] if command[0] == "python" else command[:1]
    try:
        status = subprocess.run(program + command[1:], cwd=ROOT).returncode
    except FileNotFoundError:
        raise ValueError(f"no such command: {command[0]}") from None
    finally:
        done.set()
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - children.ru_utime) + (after.ru_stime - children.ru_stime)
    samples.append(load_average())
    return Timing(" ".join(command), seconds, status, before, sum(samples) / len(samples),
                  os.cpu_count() or 1, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                  processor_name(), cpu)


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
            found.append(f"{start}{timing.spent()} (1-minute load average "
                         f"{timing.load_before:.1f} before, {timing.load_during:.1f} while it "
                         f"ran; {timing.cores} cores of "
                         f"{with_article(timing.processor)}; {timing.when})")
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
    timing = time_command(args)
    print(timing.summary(), flush=True)
    if timing.status == 0:      # a failed run's time says nothing about the command
        keep(timing)
    return timing.status


if __name__ == "__main__":
    cli.run(lambda: main())
