"""One control group per sandbox run: a total memory (and process) limit for the whole run.

``RLIMIT_AS`` bounds one process's address space, but memory held in ``memfd`` files,
SysV shared memory and tmpfs is not address space, and forked processes each get their own
limit (issue 9, item 2: 2.4 GB held under a 256 MB limit). A memory cgroup charges every
page the run's processes fault in or write, shared memory included, and the kernel's
OOM killer ends the run when the total passes the limit; the cgroup also counts how often
that happened, which makes ``memory_exceeded`` a reading of the kernel's counter rather
than a guess from the program's stderr.

Which controller is used depends on the machine, checked in this order:

* **cgroup v2** (``memory.max``, ``memory.swap.max``, ``pids.max``; ``memory.events``
  ``oom_kill``): when the process's own v2 group (or the root of a pure v2 mount) offers
  the ``memory`` controller to a child group created under it;
* **cgroup v1** (``memory.limit_in_bytes`` and ``memory.memsw.limit_in_bytes``;
  ``memory.oom_control`` ``oom_kill``; a ``pids`` group beside it when that hierarchy is
  writable): the layout of container hosts that mount v1 controllers with a v2 hierarchy
  for nothing but ``hugetlb`` (this project's machines);
* **none**: the sandbox then falls back to rlimits and blocks the allocations that escape
  them (see ``sandbox_bwrap.seccomp_filter``).

Groups are created *below the caller's own group* of each hierarchy, so the run stays
inside whatever limits the caller is under; each is removed when the run ends.
"""
from __future__ import annotations

import itertools
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["RunGroup", "create_group"]

CGROUP_ROOT = Path("/sys/fs/cgroup")
_counter = itertools.count()


def _own_paths() -> dict[str, str]:
    """``/proc/self/cgroup`` as {controller or "" for v2: path}."""
    paths = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return paths
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            paths[name] = path
    return paths


def _write(path: Path, value: str) -> None:
    with open(path, "w") as handle:
        handle.write(value)


def _read_key(path: Path, key: str) -> int:
    """The number after ``key`` in a flat keyed cgroup file, 0 when absent."""
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def _read_int(path: Path) -> int:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


@dataclass
class RunGroup:
    """The group(s) of one run: ``procs`` files a process joins by writing ``0``."""

    mechanism: str               # "cgroup v2" or "cgroup v1"
    dirs: tuple[Path, ...]       # every directory created, memory first
    procs: tuple[Path, ...]

    def join(self) -> None:
        """Move the calling process into the group (in the child, before exec)."""
        for path in self.procs:
            _write(path, "0")

    @property
    def memory(self) -> Path:
        return self.dirs[0]

    @property
    def counts_processes(self) -> bool:
        """Whether one of the groups has ``pids.max`` (else PID 1 counts them)."""
        return any((path / "pids.max").exists() for path in self.dirs)

    def oom_kills(self) -> int:
        """How many processes of the run the kernel's OOM killer ended."""
        if self.mechanism == "cgroup v2":
            return _read_key(self.memory / "memory.events", "oom_kill")
        return _read_key(self.memory / "memory.oom_control", "oom_kill")

    def peak_bytes(self) -> int:
        name = "memory.peak" if self.mechanism == "cgroup v2" else "memory.max_usage_in_bytes"
        return _read_int(self.memory / name)

    def pids(self) -> list[int]:
        found = set()
        for path in self.procs:
            try:
                found.update(int(p) for p in path.read_text().split())
            except (OSError, ValueError):
                pass
        return sorted(found)

    def remove(self) -> None:
        """Kill whatever is still in the group, then delete it (the kernel needs a moment
        to let go of a group whose last process just died)."""
        for _ in range(50):
            left = self.pids()
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                for path in reversed(self.dirs):
                    if path.exists():
                        path.rmdir()
                return
            except OSError:
                time.sleep(0.02)


def _v2(limit_bytes: int, processes: int, name: str) -> RunGroup | None:
    own = _own_paths().get("")
    for mount in (CGROUP_ROOT, CGROUP_ROOT / "unified"):
        if own is None or not (mount / "cgroup.controllers").exists():
            continue
        parent = mount / own.lstrip("/")
        if "memory" not in (parent / "cgroup.subtree_control").read_text().split():
            continue  # enabling it needs a parent without processes of its own: not ours
        group = parent / name
        try:
            group.mkdir()
        except OSError:
            continue
        try:
            _write(group / "memory.max", str(limit_bytes))
            if (group / "memory.swap.max").exists():
                _write(group / "memory.swap.max", "0")
            if (group / "pids.max").exists():
                _write(group / "pids.max", str(processes))
            return RunGroup("cgroup v2", (group,), (group / "cgroup.procs",))
        except OSError:
            group.rmdir()
    return None


def _v1(limit_bytes: int, processes: int, name: str) -> RunGroup | None:
    own = _own_paths()
    if "memory" not in own or not (CGROUP_ROOT / "memory" / "memory.limit_in_bytes").exists():
        return None
    group = CGROUP_ROOT / "memory" / own["memory"].lstrip("/") / name
    try:
        group.mkdir()
    except OSError:
        return None
    dirs, procs = [group], [group / "cgroup.procs"]
    try:
        _write(group / "memory.limit_in_bytes", str(limit_bytes))
        if (group / "memory.memsw.limit_in_bytes").exists():  # no escape into swap
            _write(group / "memory.memsw.limit_in_bytes", str(limit_bytes))
    except OSError:
        group.rmdir()
        return None
    if "pids" in own:
        pids = CGROUP_ROOT / "pids" / own["pids"].lstrip("/") / name
        try:
            pids.mkdir()
            _write(pids / "pids.max", str(processes))
            dirs.append(pids)
            procs.append(pids / "cgroup.procs")
        except OSError:
            if pids.exists():
                pids.rmdir()
    return RunGroup("cgroup v1", tuple(dirs), tuple(procs))


def create_group(limit_bytes: int, processes: int) -> RunGroup | None:
    """A fresh group for one run with these limits, or None when no hierarchy lets us."""
    if os.geteuid() != 0 or not CGROUP_ROOT.is_dir():
        return None
    name = f"planning-core-sandbox-{os.getpid()}-{next(_counter)}"
    try:
        return _v2(limit_bytes, processes, name) or _v1(limit_bytes, processes, name)
    except OSError:
        return None
