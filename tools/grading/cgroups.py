"""A memory limit that counts all of a box's memory: a cgroup of its own, where one can be made.

The address-space limit (``RLIMIT_AS``) holds each process to ``--memory``, but not what it
keeps outside its address space: memory written into a ``memfd`` or onto a ``tmpfs`` and then
unmapped, SysV shared memory, many processes each under the limit. A cgroup's limit counts every
page its processes charge, those included. ``memory_groups(limit)`` finds a cgroup hierarchy
with the memory controller that the grader may write (cgroup v2's ``memory.max``, else v1's
``memory.limit_in_bytes``; swap held to the same bound) and makes a group for the run in it;
``MemoryGroups.make(name)`` makes one per box with the limit, whose path the box's trusted first
program (``launch``) joins before anything else runs; ``out_of_memory`` says whether the kernel
killed a process of it for its limit, and ``remove`` takes a box's group away once its
processes are gone. Where no such hierarchy is writable (an ordinary account, a container
without its cgroup delegated, macOS) ``memory_groups`` returns ``None`` and says why: the
address-space limit per process is then all there is.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass

from tools.grading.launch import mount_table

# The files of each version: the limit, the swap limit, where the kernel counts its kills.
_FILES = {2: ("memory.max", "memory.swap.max", "memory.events"),
          1: ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes", "memory.oom_control")}
REMOVE_TRIES = 50


@dataclass(frozen=True)
class MemoryGroups:
    """The run's cgroup (``folder``), of cgroup ``version`` 1 or 2, and each box's ``limit``."""
    folder: str
    version: int
    limit: int

    def make(self, name: str) -> str:
        """A box's group, limited to ``limit`` bytes with swap; its path."""
        path = os.path.join(self.folder, name)
        os.mkdir(path)
        memory, swap, _ = _FILES[self.version]
        _write(path, memory, str(self.limit))
        if os.path.exists(os.path.join(path, swap)):      # swap is not counted everywhere
            _write(path, swap, "0" if self.version == 2 else str(self.limit))
        return path

    def out_of_memory(self, path: str) -> bool:
        """Whether the kernel killed a process of the group at ``path`` for its limit."""
        try:
            with open(os.path.join(path, _FILES[self.version][2]), encoding="ascii") as events:
                counts = dict(line.split() for line in events if len(line.split()) == 2)
        except OSError:
            return False
        return int(counts.get("oom_kill", "0")) > 0

    def remove(self, path: str) -> None:
        """Remove a box's group; its last processes may take a moment to be gone."""
        for _ in range(REMOVE_TRIES):
            try:
                os.rmdir(path)
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.1)

    def close(self) -> None:
        """Remove the run's group (and any box group left in it)."""
        try:
            names = [entry.name for entry in os.scandir(self.folder) if entry.is_dir()]
        except OSError:
            return
        for name in names:
            self.remove(os.path.join(self.folder, name))
        self.remove(self.folder)


def _write(folder: str, name: str, text: str) -> None:
    with open(os.path.join(folder, name), "w", encoding="ascii") as stream:
        stream.write(text)


def own_groups() -> dict[str, str]:
    """This process's cgroups: ``"2"`` -> its v2 path, each v1 controller -> its path."""
    found = {}
    with open("/proc/self/cgroup", encoding=sys.getfilesystemencoding(),
              errors="surrogateescape") as lines:
        for line in lines:
            number, controllers, path = line.rstrip("\n").split(":", 2)
            if number == "0" and not controllers:
                found["2"] = path
            for controller in filter(None, controllers.split(",")):
                found[controller] = path
    return found


def candidates() -> list[tuple[int, str]]:
    """Where a run's group may go, most fitting first: (version, folder). Under this process's
    own group first, then at the hierarchy's top."""
    own = own_groups()
    found = []
    for entry in mount_table():
        if entry.fstype == "cgroup2" and "2" in own:
            version, path = 2, own["2"]
        elif entry.fstype == "cgroup" and "memory" in entry.options and "memory" in own:
            version, path = 1, own["memory"]
        else:
            continue
        inside = os.path.relpath(path, entry.root) if path.startswith(entry.root) else None
        places = [os.path.normpath(os.path.join(entry.point, inside))] if inside else []
        found += [(version, place) for place in [*places, entry.point]]
    # v2 first: one hierarchy for every controller, the kernel's own choice today.
    return sorted(dict.fromkeys(found), key=lambda item: -item[0])


def memory_groups(limit: int) -> tuple[MemoryGroups | None, str]:
    """The run's memory groups, each box's limited to ``limit`` bytes, or ``None`` and why."""
    if os.geteuid() != 0:
        return None, "the grader is not root, and only root moves a box into a cgroup"
    problem = "no cgroup hierarchy with the memory controller is mounted here"
    for version, base in candidates():
        folder = os.path.join(base, f"grade-run-{os.getpid()}")
        try:
            if version == 2:
                _write(base, "cgroup.subtree_control", "+memory")
            os.mkdir(folder)
        except OSError as error:
            problem = f"cannot make a cgroup in {base} ({error.strerror or error})"
            continue
        groups = MemoryGroups(folder, version, limit)
        try:
            if version == 2:
                _write(folder, "cgroup.subtree_control", "+memory")
            groups.remove(groups.make("probe"))
        except OSError as error:
            problem = f"cannot limit a cgroup's memory in {base} ({error.strerror or error})"
            groups.close()
            continue
        return groups, ""
    return None, problem
