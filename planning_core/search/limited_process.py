"""Run an external program under a time and a memory limit, and measure it.

Two limits guard every child, the way Fast Downward's own driver does (driver/limits.py),
plus one it lacks:

* ``RLIMIT_CPU`` (soft = the limit, hard = one second more): the program gets ``SIGXCPU`` and
  can stop cleanly with its own exit code (FD's translator and search both do);
* ``RLIMIT_AS``: allocation fails, so the program reports "out of memory" itself;
* a wall-clock timeout that kills the child's whole process group, because CPU time does
  not advance while a process sleeps or waits for a core on a busy machine.

The child is reaped with ``os.wait4`` so that its own peak resident memory and CPU time are
known exactly (``RUSAGE_CHILDREN`` keeps only a running maximum over all children, so a
before/after delta cannot isolate one run).
"""
from __future__ import annotations

import math
import os
import resource
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

# Seconds past the limit that a child gets to stop by itself before it is killed.
WALL_GRACE_S = 0.25


@dataclass(frozen=True, slots=True)
class ProcessRun:
    """What one limited child did. ``returncode`` is negative for a signal, as in subprocess."""

    returncode: int
    wall_s: float
    cpu_s: float
    peak_rss_kb: int
    killed_at_wall_limit: bool
    stdout: str
    stderr: str

    def tail(self, lines: int = 12) -> str:
        """The last lines of stdout and stderr, for error messages."""
        out = "\n".join(self.stdout.strip().splitlines()[-lines:])
        err = "\n".join(self.stderr.strip().splitlines()[-lines:])
        return "\n".join(part for part in (out, err) if part)

    @property
    def signal_name(self) -> str | None:
        if self.returncode >= 0:
            return None
        try:
            return signal.Signals(-self.returncode).name
        except ValueError:
            return f"signal {-self.returncode}"


def _clamp_to_hard(which: int, value: int) -> int:
    hard = resource.getrlimit(which)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


def _load_prctl():
    """libc's ``prctl``, looked up in the parent (nothing is loaded between fork and exec),
    or None off Linux."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()


def _limit_setter(cpu_s: int | None, memory_bytes: int | None) -> Callable[[], None] | None:
    """A ``preexec_fn`` that installs the limits in the child between fork and exec.

    The numbers are computed (and clamped to any hard limit already in force) in the parent,
    so the child only makes three system calls. The child also asks for ``SIGKILL`` when
    its parent dies: it runs in a session of its own (for the wall-clock group kill), so
    nothing else would end a planner whose batch worker or CLI was killed.
    """
    if cpu_s is None and memory_bytes is None and _PRCTL is None:
        return None
    cpu = None
    if cpu_s is not None:
        soft = _clamp_to_hard(resource.RLIMIT_CPU, cpu_s)
        cpu = (soft, _clamp_to_hard(resource.RLIMIT_CPU, soft + 1))
    memory = None
    if memory_bytes is not None:
        value = _clamp_to_hard(resource.RLIMIT_AS, memory_bytes)
        memory = (value, value)

    def set_limits() -> None:
        if _PRCTL is not None:   # die with the process that started us (a killed worker)
            _PRCTL(1, signal.SIGKILL, 0, 0, 0)   # PR_SET_PDEATHSIG
        if cpu is not None:
            resource.setrlimit(resource.RLIMIT_CPU, cpu)
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, memory)

    return set_limits


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


MAX_TIME_LIMIT_S = 1_000_000.0


def run_limited(cmd: Sequence[str | os.PathLike[str]], *, cwd: Path, time_limit: float | None,
                memory_limit_mb: int | None, stdin_path: Path | None = None,
                env: Mapping[str, str] | None = None, name: str = "child",
                wall_limit: float | None = None) -> ProcessRun:
    """Run ``cmd`` in ``cwd`` with the limits above; stdout/stderr go through files in ``cwd``.

    ``time_limit`` is the CPU limit; the wall-clock kill comes ``WALL_GRACE_S`` after it,
    or at ``wall_limit`` when given (a caller whose verdicts must not depend on machine
    load passes a generous one, so that only CPU time decides).

    Files rather than pipes keep a chatty search (one progress line per f-layer) from
    filling a pipe buffer or the parent's memory. Raises ``OSError`` when the program
    cannot be started at all.
    """
    if time_limit is not None:
        if not math.isfinite(time_limit) or time_limit <= 0:
            raise ValueError(f"time_limit must be a positive number of seconds, not {time_limit!r}")
        time_limit = min(time_limit, MAX_TIME_LIMIT_S)  # larger values overflow time_t / rlimits
    cpu_s = None if time_limit is None else max(1, math.floor(time_limit))
    memory = None if memory_limit_mb is None else int(memory_limit_mb) * 1024 * 1024
    wall = None if time_limit is None else time_limit + WALL_GRACE_S
    if wall_limit is not None:
        wall = wall_limit
    out_path, err_path = cwd / f"{name}.stdout", cwd / f"{name}.stderr"
    stdin = open(stdin_path, "rb") if stdin_path is not None else subprocess.DEVNULL
    try:
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            start = time.perf_counter()
            proc = subprocess.Popen([os.fspath(part) for part in cmd], cwd=cwd, stdin=stdin,
                                    stdout=out, stderr=err, env=env,
                                    preexec_fn=_limit_setter(cpu_s, memory),
                                    start_new_session=True, close_fds=True)
            waited: list[tuple[int, int, resource.struct_rusage]] = []
            waiter = threading.Thread(target=lambda: waited.append(os.wait4(proc.pid, 0)),
                                      name=f"wait4-{name}", daemon=True)
            waiter.start()
            try:
                waiter.join(wall)
                killed = waiter.is_alive()
                if killed:
                    _kill_group(proc.pid)
                    waiter.join()
            except BaseException:  # KeyboardInterrupt: never leave the search running
                _kill_group(proc.pid)
                waiter.join()
                raise
            wall_s = time.perf_counter() - start
    finally:
        if stdin_path is not None:
            stdin.close()  # type: ignore[union-attr]
    _, status, usage = waited[0]
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    return ProcessRun(
        returncode=proc.returncode,
        wall_s=wall_s,
        cpu_s=usage.ru_utime + usage.ru_stime,
        peak_rss_kb=int(usage.ru_maxrss),
        killed_at_wall_limit=killed,
        stdout=_read_tail(out_path),
        stderr=_read_tail(err_path),
    )


# Everything FD reports that we parse (statistics, errors) is at the end of its output.
_MAX_OUTPUT_BYTES = 1 << 20


def _read_tail(path: Path) -> str:
    with open(path, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, size - _MAX_OUTPUT_BYTES))
        return handle.read().decode(errors="replace")
