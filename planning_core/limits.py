"""Time and memory limits that every engine path honours (grounding, search, landmarks).

Why a meter inside the engine: a 607-byte problem can ground to millions of actions, and a
limit that is only checked between stages (or only by a subprocess's rlimits) lets one
in-process stage run for minutes and fill the machine's memory. So the long loops (the
reachability fixpoint, instantiation, search, landmark extraction) call ``Budget.tick``,
which counts work items and, every ``CHECK_EVERY`` items, compares

* **CPU time** of the calling thread (``time.thread_time``) with ``time_s``: a verdict must
  not depend on how loaded the machine is (DESIGN.md), and a thread's CPU clock does not
  run while it waits for a core;
* the **estimated memory** of the engine's own structures (``charge``: bytes counted
  deterministically from the items built, e.g. ground masks) with ``memory_mb``; the same
  input always stops at the same place;
* the process's **resident set** (``/proc/self/statm``) with ``memory_mb`` too: a last
  guard for what the estimate does not see (it depends on what else the process holds, so
  it protects the machine but is not the primary verdict);
* optionally **wall-clock** time (``wall_s``), which only the command line sets, to give a
  user their prompt back on a busy machine.

Running out raises ``LimitReached`` (not a ``PlanningError``: nothing is wrong with the
input; the answer is UNKNOWN). Its ``limit`` is ``"time limit"`` or ``"memory limit"``,
which callers copy into ``SolveResult.reason``.

Phases that run before a caller can hand a budget down (parsing and checking the PDDL text,
which take seconds on a 10 MB problem) read the *active* budget instead: ``metering(budget)``
makes ``budget`` the active one for the calling thread (a context variable), and the
parser's and checker's loops call ``tick_active()``, a no-op when none is active. So a
command's budget starts before its input is read, and every phase counts against it.

The default memory limit is ``DEFAULT_MEMORY_FRACTION`` of the memory this process may use:
the least of physical memory, the limits of its own cgroup and its ancestors (v1 and v2) and
Slurm's memory variables; ``PLANNING_CORE_MEMORY_LIMIT_MB`` overrides it.
"""
from __future__ import annotations

import os
import time
# contextvars' ContextVar from the C module it re-exports: the contextvars module itself is one
# more import in every validate call (issue 28)
from _contextvars import ContextVar

from planning_core.nodes import node

__all__ = ["Budget", "Limits", "LimitReached", "default_memory_mb", "rss_mb", "CHECK_EVERY",
           "metering", "active_budget", "tick_active", "time_left"]

#: Work items between two clock/memory checks (a check costs a few microseconds).
CHECK_EVERY = 4096
DEFAULT_MEMORY_FRACTION = 0.5
LOOK_EVERY_S = 0.005
_perf_counter = time.perf_counter
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _once_per_root(read):
    """``read(root)`` computed once per ``root`` (``cache_clear()`` forgets), as
    ``functools.lru_cache`` would: functools is not imported on the ``validate`` path (it
    brings collections, ~2 ms of a call, issue 28)."""
    answers: dict = {}

    def once(root: str = "/"):
        if root not in answers:
            answers[root] = read(root)
        return answers[root]

    once.cache_clear = answers.clear
    once.__doc__, once.__name__, once.__wrapped__ = read.__doc__, read.__name__, read
    return once


class LimitReached(Exception):
    """A limit ran out before an answer: the caller's answer is UNKNOWN, naming ``limit``."""

    def __init__(self, limit: str, detail: str) -> None:
        super().__init__(f"{limit}: {detail}")
        self.limit = limit
        self.detail = detail


@_once_per_root
def _machine_memory_mb(root: str = "/") -> float | None:
    """The memory this process may use, in MB: the least of physical memory, every cgroup
    limit on this process's own cgroup and its ancestors (v2 ``memory.max`` and
    ``memory.high``, v1 ``memory.limit_in_bytes``) and Slurm's ``SLURM_MEM_PER_NODE`` or
    ``SLURM_MEM_PER_CPU`` times the job's CPUs on this node. None when nothing is known.

    Why not the root cgroup alone: a Slurm job or a container is limited in its *own*
    cgroup (``/proc/self/cgroup``), and a default taken from the node's 512 GB lets the
    scheduler's OOM killer end a job allowed 8 GB before our budget can answer UNKNOWN.
    ``root`` is the file-system root the files are read under (tests point it at a fake
    tree). Read once per process (about 0.1 ms); never raises: an unreadable, absent or
    garbled file is skipped, as is ``max`` (no limit)."""
    candidates = []
    try:
        candidates.append(os.sysconf("SC_PHYS_PAGES") * _PAGE / 2**20)
    except (ValueError, OSError, AttributeError):
        pass
    try:
        candidates.extend(_cgroup_limits_mb(root))
    except Exception:           # a reader's bug must not stop a command: no cgroup limit
        pass
    try:
        candidates.extend(_slurm_limits_mb(os.environ))
    except Exception:
        pass
    return min(candidates) if candidates else None


#: A cgroup limit at or above this is v1's "unlimited" (2**63 rounded down to a page).
_NO_LIMIT = 2**60
#: Files read for a limit: cgroup v2's (limits in the job's cgroup and each ancestor) and v1's.
_V2_FILES = ("memory.max", "memory.high")
_V1_FILES = ("memory.limit_in_bytes",)


def _is_number(text: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also accepts "²", which ``int`` refuses."""
    return text.isascii() and text.isdigit()


def _read(path: str, cap: int) -> str:
    """At most ``cap`` bytes of ``path`` as text ('' when unreadable). Non-blocking open, so
    a FIFO planted where a cgroup file should be cannot hang start-up."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError):
        return ""
    try:
        chunks, size = [], 0
        while size < cap:
            chunk = os.read(fd, min(65536, cap - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks).decode("utf-8", "replace")
    except OSError:
        return ""
    finally:
        os.close(fd)


def _unescape(field: str) -> str:
    """A mountinfo path field: the kernel writes space, tab, newline and backslash as
    ``\\ooo`` octal escapes."""
    if "\\" not in field:
        return field
    parts = field.split("\\")
    out = [parts[0]]
    for part in parts[1:]:
        code = part[:3]
        if len(code) == 3 and all(c in "01234567" for c in code):
            out.append(chr(int(code, 8)) + part[3:])
        else:
            out.append("\\" + part)
    return "".join(out)


def _cgroup_mounts(root: str) -> list[tuple[str, str, str]]:
    """(kind, mount root, mount point) of every memory cgroup mount: kind ``v2`` for a
    cgroup2 file system, ``v1`` for a cgroup v1 one with the memory controller. Read from
    ``/proc/self/mountinfo``; without it, the usual ``/sys/fs/cgroup`` places."""
    mounts = []
    for line in _read(os.path.join(root, "proc/self/mountinfo"), 1 << 24).splitlines():
        if " - cgroup" not in line:
            continue
        head, _, tail = line.partition(" - ")
        fields, after = head.split(), tail.split()
        if len(fields) < 5 or len(after) < 3:
            continue
        if after[0] == "cgroup2":
            kind = "v2"
        elif after[0] == "cgroup" and "memory" in after[2].split(","):
            kind = "v1"
        else:
            continue
        mounts.append((kind, _unescape(fields[3]), _unescape(fields[4])))
    if not mounts:
        mounts = [("v2", "/", "/sys/fs/cgroup"), ("v1", "/", "/sys/fs/cgroup/memory")]
    return mounts


def _own_cgroups(root: str) -> dict[str, str]:
    """This process's cgroup paths from ``/proc/self/cgroup``: ``v2`` from the ``0::`` line,
    ``v1`` from the line naming the memory controller."""
    own = {}
    for line in _read(os.path.join(root, "proc/self/cgroup"), 1 << 16).splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3 or not parts[2].startswith("/"):
            continue
        if parts[0] == "0" and parts[1] == "":
            own.setdefault("v2", parts[2])
        elif "memory" in parts[1].split(","):
            own.setdefault("v1", parts[2])
    return own


def _cgroup_limits_mb(root: str) -> list[float]:
    """Every memory limit on this process's cgroup and its ancestors, up to and including
    the mount point, in MB (for ``_machine_memory_mb``).

    A cgroup path is seen through its mount: a mount whose root is ``/docker/ID`` shows that
    cgroup at its mount point, so the process's path loses that prefix; a process outside
    the mount's root has only the mount point's own limit to read."""
    own = _own_cgroups(root)
    limits = []
    for kind, mount_root, mount_point in _cgroup_mounts(root):
        path = own.get(kind, "/")
        base = mount_root.rstrip("/")
        if base and (path == base or path.startswith(base + "/")):
            path = path[len(base):]
        elif base:
            path = "/"
        parts = [p for p in path.split("/") if p]
        if ".." in parts or "." in parts:
            parts = []
        top = os.path.join(root, mount_point.lstrip("/"))
        for depth in range(len(parts), -1, -1):
            folder = os.path.join(top, *parts[:depth])
            for name in _V2_FILES if kind == "v2" else _V1_FILES:
                text = _read(os.path.join(folder, name), 64).strip()
                if _is_number(text) and 0 < int(text) < _NO_LIMIT:
                    limits.append(int(text) / 2**20)
    return limits


_UNIT_MB = {"K": 1 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0**2}


def _slurm_mb(text: str | None) -> float | None:
    """A Slurm memory size in MB (a number of MB, or with a K/M/G/T suffix); None for
    unset, zero (Slurm's "all of the node") or garbage."""
    text = (text or "").strip().upper()
    scale = 1.0
    if text[-1:] in _UNIT_MB:
        text, scale = text[:-1], _UNIT_MB[text[-1]]
    if not _is_number(text) or int(text) <= 0:
        return None
    return int(text) * scale


def _slurm_limits_mb(environ) -> list[float]:
    """Slurm's memory for this job on this node: ``SLURM_MEM_PER_NODE``, and
    ``SLURM_MEM_PER_CPU`` times ``SLURM_CPUS_ON_NODE`` (else ``SLURM_CPUS_PER_TASK``, else
    one CPU: a job has at least one, so the product never exceeds what it was given)."""
    limits = []
    per_node = _slurm_mb(environ.get("SLURM_MEM_PER_NODE"))
    if per_node is not None:
        limits.append(per_node)
    per_cpu = _slurm_mb(environ.get("SLURM_MEM_PER_CPU"))
    if per_cpu is not None:
        cpus = 1
        for name in ("SLURM_CPUS_ON_NODE", "SLURM_CPUS_PER_TASK"):
            text = (environ.get(name) or "").strip()
            if _is_number(text) and int(text) > 0:
                cpus = int(text)
                break
        limits.append(per_cpu * cpus)
    return limits


def default_memory_mb() -> float | None:
    """``PLANNING_CORE_MEMORY_LIMIT_MB``, or half the memory this process may use
    (``_machine_memory_mb``: physical memory, cgroup and Slurm limits)."""
    env = os.environ.get("PLANNING_CORE_MEMORY_LIMIT_MB")
    if env:
        try:
            value = float(env)
        except ValueError:
            value = 0
        if value > 0:
            return value
    total = _machine_memory_mb()
    return None if total is None else total * DEFAULT_MEMORY_FRACTION


def rss_mb() -> float:
    """Resident set of this process now, in MB (0 where /proc is absent)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * _PAGE / 2**20
    except (OSError, IndexError, ValueError):
        return 0.0


@node
class Limits:
    """What a run may use. ``time_s``: CPU seconds (None: no limit); ``memory_mb``: None
    means the default (``default_memory_mb``), 0 or less means no memory limit; ``wall_s``:
    wall-clock seconds, for the command line only; ``rss_guard``: also compare the resident
    set with ``memory_mb`` (off: only the deterministic estimate counts)."""

    time_s: float | None = None
    memory_mb: float | None = None
    wall_s: float | None = None
    rss_guard: bool = True

    def budget(self) -> Budget:
        return Budget(self)


class Budget:
    """A running meter for one computation (see the module docstring). Not thread-safe:
    one budget per thread of work."""

    __slots__ = ("limits", "cpu0", "wall0", "memory_mb", "charged", "countdown", "items",
                 "unit_bytes", "next_look")

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits = limits or Limits()
        self.cpu0 = time.thread_time()
        self.wall0 = time.perf_counter()
        mem = default_memory_mb() if limits.memory_mb is None else limits.memory_mb
        self.memory_mb = mem if mem is not None and mem > 0 else None
        self.charged = 0.0          # estimated bytes of the engine's structures
        self.countdown = CHECK_EVERY
        self.items = 0
        self.unit_bytes = 0         # estimated bytes per ticked item (set by the phase)
        self.next_look = 0.0        # perf_counter time of the next clock reading

    @classmethod
    def of(cls, budget: Budget | None = None, *, time_limit: float | None = None) -> Budget:
        """``budget`` itself, or a fresh one with ``time_limit`` CPU seconds."""
        if budget is not None:
            return budget
        return cls(Limits(time_s=time_limit))

    def sub(self, time_s: float | None) -> Budget:
        """A budget for one stage: at most ``time_s`` more CPU seconds (None: what is
        left), never past this budget's own limits; memory counted on from here."""
        left = self.remaining_s()
        if time_s is None or (left is not None and left < time_s):
            time_s = left
        wall = None
        if self.limits.wall_s is not None:
            wall = self.limits.wall_s - self.wall_s()
        child = Budget(Limits(time_s=time_s, memory_mb=self.memory_mb or 0, wall_s=wall,
                              rss_guard=self.limits.rss_guard))
        child.charged = self.charged
        return child

    # ------------------------------------------------------------------ metering
    def tick(self, n: int = 1) -> None:
        """Count ``n`` work items (each ``unit_bytes`` of memory); every ``CHECK_EVERY``
        items, check every limit, the resident set included."""
        self.countdown -= n
        if self.countdown <= 0:
            self._settle()
            self.check(rss=True)

    def _settle(self) -> None:
        done = CHECK_EVERY - self.countdown
        self.items += done
        self.charged += done * self.unit_bytes
        self.countdown = CHECK_EVERY

    def phase(self, unit_bytes: int) -> None:
        """Start counting items of another size (settles the items counted so far)."""
        self._settle()
        self.unit_bytes = unit_bytes

    def charge(self, nbytes: float) -> None:
        """Add ``nbytes`` to the estimated memory; raise when it passes the limit."""
        self.charged += nbytes
        if self.memory_mb is not None and self.charged > self.memory_mb * 2**20:
            raise LimitReached("memory limit", f"the task needs more than {self.memory_mb:.0f} MB "
                               f"(estimated {self.charged / 2**20:.0f} MB of ground structures)")

    def release(self, nbytes: float) -> None:
        self.charged = max(0.0, self.charged - nbytes)

    def cpu_s(self) -> float:
        return time.thread_time() - self.cpu0

    def wall_s(self) -> float:
        return time.perf_counter() - self.wall0

    def remaining_s(self) -> float | None:
        """Seconds left under the tighter of the CPU and wall limits (None: unlimited)."""
        left = []
        if self.limits.time_s is not None:
            left.append(self.limits.time_s - self.cpu_s())
        if self.limits.wall_s is not None:
            left.append(self.limits.wall_s - self.wall_s())
        return min(left) if left else None

    def exceeded(self, rss: bool = True) -> LimitReached | None:
        """The limit that has run out, if any (does not raise); ``rss=False`` skips reading
        the resident set (a file read), for checks in tight loops."""
        lim = self.limits
        if lim.time_s is not None and self.cpu_s() > lim.time_s:
            return LimitReached("time limit", f"{lim.time_s:g} s of CPU time used")
        if lim.wall_s is not None and self.wall_s() > lim.wall_s:
            return LimitReached("time limit", f"{lim.wall_s:g} s of wall-clock time passed")
        if self.memory_mb is not None:
            if self.charged > self.memory_mb * 2**20:
                return LimitReached("memory limit", f"estimated use above {self.memory_mb:.0f} MB")
            now = rss_mb() if rss and lim.rss_guard else 0.0
            if now > self.memory_mb:
                return LimitReached("memory limit", f"resident memory {now:.0f} MB above "
                                    f"{self.memory_mb:.0f} MB")
        return None

    def check(self, rss: bool = False) -> None:
        """Raise ``LimitReached`` when a limit has run out (clock and estimate; the resident
        set too with ``rss=True``).

        Reading a thread's CPU clock is a system call (~2 us), too slow for every node of a
        search; a thread's CPU time cannot grow faster than wall time, so the clocks are
        read only once ``LOOK_EVERY_S`` of wall time (a ~50 ns vDSO read) has passed since
        the last reading: the limit is still CPU time, overshot by at most that much.
        """
        now = _perf_counter()
        if now < self.next_look and not rss:
            return
        self.next_look = now + LOOK_EVERY_S
        found = self.exceeded(rss)
        if found is not None:
            raise found


_ACTIVE: ContextVar[Budget | None] = ContextVar(
    "planning_core_active_budget", default=None)


class metering:  # noqa: N801 - used as a function: ``with metering(budget):``
    """Make ``budget`` the active budget of this thread (context) for the ``with`` block:
    the loops that cannot be handed a budget (parsing, checking) tick it.

    A class rather than a ``contextlib.contextmanager``: importing :mod:`contextlib` was
    ~0.7 ms of every ``validate`` call (issue 28), for this one ``with``."""

    __slots__ = ("budget", "token")

    def __init__(self, budget: Budget | None) -> None:
        self.budget = budget

    def __enter__(self) -> Budget | None:
        self.token = _ACTIVE.set(self.budget)
        return self.budget

    def __exit__(self, *exc_info) -> None:
        _ACTIVE.reset(self.token)


def active_budget() -> Budget | None:
    """The budget ``metering`` made active, or None."""
    return _ACTIVE.get()


def time_left(time_limit: float) -> float:
    """``time_limit``, or less when the active budget has less left: a stage given its own
    limit (a search, an h* call) never runs past the budget of the row it is part of."""
    budget = _ACTIVE.get()
    left = budget.remaining_s() if budget is not None else None
    return time_limit if left is None else max(0.0, min(time_limit, left))


def tick_active(n: int = 1) -> None:
    """Tick the active budget, if any (raises ``LimitReached`` at its limit)."""
    budget = _ACTIVE.get()
    if budget is not None:
        budget.tick(n)
