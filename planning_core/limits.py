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

The default memory limit is ``DEFAULT_MEMORY_FRACTION`` of the machine's memory (or of the
cgroup's limit, when that is lower); ``PLANNING_CORE_MEMORY_LIMIT_MB`` overrides it.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import time

from planning_core.nodes import node

#: typing.TYPE_CHECKING, without importing typing (~2 ms of every `validate` call)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["Budget", "Limits", "LimitReached", "default_memory_mb", "rss_mb", "CHECK_EVERY",
           "metering", "active_budget", "tick_active"]

#: Work items between two clock/memory checks (a check costs a few microseconds).
CHECK_EVERY = 4096
DEFAULT_MEMORY_FRACTION = 0.5
LOOK_EVERY_S = 0.005
_perf_counter = time.perf_counter
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class LimitReached(Exception):
    """A limit ran out before an answer: the caller's answer is UNKNOWN, naming ``limit``."""

    def __init__(self, limit: str, detail: str) -> None:
        super().__init__(f"{limit}: {detail}")
        self.limit = limit
        self.detail = detail


@functools.lru_cache(maxsize=1)
def _machine_memory_mb() -> float | None:
    """Physical memory, or the cgroup's limit when lower (read once per process)."""
    candidates = []
    try:
        candidates.append(os.sysconf("SC_PHYS_PAGES") * _PAGE / 2**20)
    except (ValueError, OSError, AttributeError):
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = open(path).read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 2**60:
            candidates.append(int(text) / 2**20)
    return min(candidates) if candidates else None


def default_memory_mb() -> float | None:
    """``PLANNING_CORE_MEMORY_LIMIT_MB`` or half the machine's (cgroup's) memory."""
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


_ACTIVE: contextvars.ContextVar[Budget | None] = contextvars.ContextVar(
    "planning_core_active_budget", default=None)


@contextlib.contextmanager
def metering(budget: Budget | None) -> Iterator[Budget | None]:
    """Make ``budget`` the active budget of this thread (context) for the ``with`` block:
    the loops that cannot be handed a budget (parsing, checking) tick it."""
    token = _ACTIVE.set(budget)
    try:
        yield budget
    finally:
        _ACTIVE.reset(token)


def active_budget() -> Budget | None:
    """The budget ``metering`` made active, or None."""
    return _ACTIVE.get()


def tick_active(n: int = 1) -> None:
    """Tick the active budget, if any (raises ``LimitReached`` at its limit)."""
    budget = _ACTIVE.get()
    if budget is not None:
        budget.tick(n)
