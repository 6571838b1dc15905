"""What a sandboxed child may use (``Limits``) and the only environment it sees
(``environment``): shared by the sandbox that runs a check and the probe that finds how far a
sandbox can be sealed off here."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Limits:
    """What one submission may use."""
    seconds: float = 600.0                 # wall clock, for the whole check
    memory: int = 2 * 2**30                # bytes of address space, per process
    file_size: int = 64 * 2**20            # bytes, largest file it may write
    processes: int = 128                   # processes and threads, when they are counted alone
    open_files: int = 256
    output: int = 4096                     # bytes kept from each end of stdout and of stderr

    def rlimits(self, own_count: bool) -> dict[str, list[int]]:
        cpu = int(self.seconds) + 5        # the wall clock normally stops it first
        limits = {"RLIMIT_AS": [self.memory] * 2, "RLIMIT_CPU": [cpu, cpu + 5],
                  "RLIMIT_FSIZE": [self.file_size] * 2, "RLIMIT_CORE": [0, 0],
                  "RLIMIT_NOFILE": [self.open_files] * 2}
        if own_count:      # the limit counts every process of the account (or user namespace)
            limits["RLIMIT_NPROC"] = [self.processes] * 2
        return limits


def environment(box: Path) -> dict[str, str]:
    """Only what the check needs: no variable of the grader's reaches the submission."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(box / "home"),
            "TMPDIR": str(box / "tmp"), "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONNOUSERSITE": "1",     # HOME is the box's: a .pth planted there never runs
            "PYTHONIOENCODING": "utf-8", "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
            "MPLBACKEND": "Agg", "MPLCONFIGDIR": str(box / "tmp"),
            "PYGAME_HIDE_SUPPORT_PROMPT": "1",
            # One thread per process for the numeric libraries: on a machine of many cores
            # their pools would otherwise eat the process limit (and --jobs runs one per core).
            "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
