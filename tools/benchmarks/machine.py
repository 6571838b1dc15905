"""The machine a time was measured on, as every figure that quotes a time names it: its cores
and its processor (the model name lscpu shows), beside the load the figure states."""

from __future__ import annotations

import os
import platform
import re

CPU_INFO = "/proc/cpuinfo"


def processor() -> str:
    """The processor's model name (lscpu's "Model name", read where lscpu reads it), without
    trademark signs and punctuation, so that ``processor NAME`` ends at the next comma; the
    architecture where the system does not tell."""
    name = ""
    try:
        with open(CPU_INFO, encoding="utf-8", errors="replace") as info:
            name = next((line.split(":", 1)[1] for line in info
                         if line.startswith("model name")), "")
    except OSError:
        pass
    name = re.sub(r"\((?:R|TM)\)", "", name or platform.processor() or platform.machine(),
                  flags=re.IGNORECASE)
    return " ".join(re.sub(r"[,;()]", " ", name).split()) or "unknown"


def machine() -> str:
    """``a 2-core machine, processor AMD EPYC``."""
    return f"a {os.cpu_count()}-core machine, processor {processor()}"
