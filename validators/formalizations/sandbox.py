"""Running untrusted Python (a model's z3 formalization) in a limited, isolated process.

CoPE's reference harness executes model-written code in its own interpreter. Here every
program runs in a separate process under the limits of :class:`SandboxLimits`, and nothing
it does outlives the run or reaches outside it. docs/sandbox.md says precisely how each
limit is enforced on Linux and what is not guaranteed; in short:

* ``bwrap`` isolation (the default): bubblewrap builds new user, PID, network, IPC, UTS
  and cgroup namespaces with nothing but the Python runtime and the z3 package bound
  read-only and a private size-limited tmpfs as the only writable place
  (:mod:`.sandbox_bwrap`); the run's total memory is bounded by a cgroup where the machine
  allows one (:mod:`.sandbox_cgroup`), else by rlimits with the allocations that escape
  them refused by seccomp. ``SandboxResult.memory_limit_mechanism`` says which. When
  any of this cannot be set up, :func:`run_program` raises :class:`SandboxError` (the SMT
  pipeline records ``sandbox_unavailable``): it never runs the program with less.
* ``rlimits`` isolation (only when asked for, ``--unsafe-no-sandbox`` on the command line):
  the same resource limits and a child subreaper, but the program shares the file system,
  network and process table with the caller.

Both read the program's stdout and stderr incrementally from pipes, keep at most a cap of
each and kill the run when a cap is passed. How the run ended is reported by the sandbox's
first process (``sandbox_init.py``) on a descriptor the program never holds, never parsed
from the program's own output or exit status; CPU time is the ``wait4`` usage of the whole
process tree, children the program forked and left behind included.
"""
from __future__ import annotations

import itertools
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from enum import Enum

from planning_core import safe_json
from planning_core.errors import EngineError
from planning_core.validators.formalizations.sandbox_bwrap import INIT_SCRIPT, SITE_INSIDE, \
    WORKDIR, bwrap_command, runtime, seccomp_filter
from planning_core.validators.formalizations.sandbox_cgroup import RunGroup, create_group

__all__ = ["ISOLATIONS", "Outcome", "SandboxError", "SandboxLimits", "SandboxResult",
           "bwrap_path", "isolation_available", "run_program"]

ISOLATIONS = ("bwrap", "rlimits")
BWRAP_ENV = "PLANNING_CORE_BWRAP"  # the bwrap executable to use (default: bwrap on PATH)
# uids inside the sandbox's user namespace; one per run (see _sandbox_uid)
UID_BASE, UID_SPAN = 1_500_000_000, 50_000_000
ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
MAX_PROGRAM_BYTES = 4 << 20
STDERR_TAIL_BYTES = 8 << 10
KILL_DRAIN_S = 2.0
# The first process inside enforces the wall limit itself; the caller kills the sandbox
# only this much later, if that report never comes.
WALL_BACKSTOP_S = 1.5
_MEMORY_MARKERS = ("MemoryError", "out of memory", "bad_alloc", "Cannot allocate memory")

# Run in the program's interpreter before its code: the z3 folder on sys.path (bwrap mode),
# a socket guard (in bwrap mode seccomp refuses every socket anyway; the guard gives the
# clearer message, and is all there is in rlimits mode), then main.py as __main__.
BOOTSTRAP = """\
import sys
{path}def _guard(event, args):
    if event == "socket.__new__" and args[1] != 1:
        raise PermissionError("sandbox: network access is not allowed")
    if event in ("socket.connect", "socket.bind", "socket.getaddrinfo", "socket.sendto"):
        raise PermissionError("sandbox: network access is not allowed")
sys.addaudithook(_guard)
del _guard
with open("main.py", "rb") as _f:
    _code = compile(_f.read(), "main.py", "exec")
del _f
exec(_code, {{"__name__": "__main__", "__file__": "main.py", "__builtins__": __builtins__}})
"""


class SandboxError(EngineError):
    """The sandbox itself could not be set up: no verdict on the program can be given."""


class Outcome(str, Enum):
    OK = "ok"
    CRASHED = "crashed"
    TIMED_OUT = "timed_out"
    MEMORY_EXCEEDED = "memory_exceeded"
    OUTPUT_EXCEEDED = "output_exceeded"


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    """Limits of one run (see docs/sandbox.md).

    ``memory_mb`` bounds the whole run where a cgroup is available and every process's
    address space in any case; ``processes`` bounds the run's processes and threads (a
    cgroup's ``pids.max``); ``tmpfs_mb`` bounds all files the program writes. Output
    beyond ``stdout_bytes`` or ``stderr_bytes`` ends the run as ``output_exceeded``.
    """

    cpu_s: int = 10
    wall_s: float = 20.0
    memory_mb: int = 1024
    processes: int = 16
    file_size_mb: int = 16
    tmpfs_mb: int = 64
    open_files: int = 256
    stdout_bytes: int = 1 << 20
    stderr_bytes: int = 4 << 20


@dataclass(frozen=True, slots=True)
class SandboxResult:
    """How a run ended. ``limit`` names the limit that ended it (cpu, wall, memory, output).

    ``limit="processes"``: the run was killed for having more than ``processes`` processes
    (counted by PID 1 when no cgroup's ``pids.max`` does).
    ``returncode`` is the program's exit status, negative for a signal (as in subprocess),
    None when the run was killed from outside. ``cpu_s`` and ``peak_rss_kb`` cover every
    process of the run. ``isolation`` lists what was in force; ``memory_limit_mechanism``
    is ``cgroup v2``, ``cgroup v1``, ``rlimits+seccomp`` or ``rlimits`` (unsafe mode);
    ``memory_peak_kb`` is the cgroup's peak (shared memory and tmpfs files included), or
    the largest process's peak RSS without a cgroup. ``pid_namespace`` is the inode
    number of the run's PID namespace, ``oom_kills`` what the cgroup's OOM killer did.
    """

    outcome: Outcome
    returncode: int | None
    stdout: str
    stderr_tail: str
    cpu_s: float
    wall_s: float
    peak_rss_kb: int = 0
    limit: str | None = None
    stdout_truncated: bool = False
    isolation: tuple[str, ...] = field(default=())
    uid: int | None = None
    memory_limit_mechanism: str = ""
    pid_namespace: int | None = None
    oom_kills: int = 0
    memory_peak_kb: int = 0

    @property
    def signal_name(self) -> str | None:
        if self.returncode is None or self.returncode >= 0:
            return None
        try:
            return signal.Signals(-self.returncode).name
        except ValueError:
            return f"signal {-self.returncode}"


def bwrap_path() -> str | None:
    """The bubblewrap executable: ``$PLANNING_CORE_BWRAP`` if set, else ``bwrap`` on PATH."""
    configured = os.environ.get(BWRAP_ENV)
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    return shutil.which("bwrap")


_available: dict[str, str | None] = {}


def isolation_available() -> str | None:
    """``"bwrap"`` when a trivial program runs in the bubblewrap sandbox here, else None
    (probed once per bwrap executable)."""
    path = bwrap_path()
    if path not in _available:
        try:
            ok = run_program("print('ok')", SandboxLimits(cpu_s=5, wall_s=30.0)).stdout
            _available[path] = "bwrap" if ok == "ok\n" else None
        except SandboxError:
            _available[path] = None
    return _available[path]


_counter = itertools.count()


def _sandbox_uid() -> int:
    """The program's uid inside its user namespace, distinct across concurrent runs."""
    return UID_BASE + (os.getpid() * 997 + next(_counter)) % UID_SPAN


def _config(limits: SandboxLimits, *, python: str, workdir: str, status_fd: int,
            pid_one: bool, site: str | None, uid: int | None) -> dict:
    return {
        "pid_one": pid_one,
        "uid": uid,
        "workdir": workdir,
        "python": python,
        "status_fd": status_fd,
        "bootstrap": BOOTSTRAP.format(path=f"sys.path.append({site!r})\n" if site else ""),
        "wall_s": float(limits.wall_s),
        "env": dict(ENV, HOME=workdir, TMPDIR="/tmp" if pid_one else workdir),
        "limits": {
            "cpu_s": max(1, int(limits.cpu_s)),
            "as": limits.memory_mb << 20,
            "fsize": limits.file_size_mb << 20,
            "nproc": limits.processes,
            "nofile": limits.open_files,
        },
    }


def run_program(text: str, limits: SandboxLimits = SandboxLimits(), *,
                python: str | None = None, isolation: str = "bwrap",
                cgroups: bool = True) -> SandboxResult:
    """Run the Python program ``text`` in the sandbox and say how it ended.

    ``isolation`` is ``"bwrap"`` (the default: refuse to run without it) or ``"rlimits"``
    (resource limits only: the program can read and write what the caller can).
    ``python`` is the interpreter whose runtime and z3 the program gets (default: this
    one). ``cgroups=False`` skips the memory cgroup (then rlimits and seccomp bound memory).

    Raises :class:`SandboxError` when the isolation asked for cannot be set up; a program
    that misbehaves in any way is a result, never an exception.
    """
    if isolation not in ISOLATIONS:
        raise ValueError(f"isolation must be one of {ISOLATIONS}, not {isolation!r}")
    data = text.encode("utf-8", errors="replace")
    if len(data) > MAX_PROGRAM_BYTES:
        raise SandboxError(f"program of {len(data)} bytes exceeds {MAX_PROGRAM_BYTES}")
    python = python or sys.executable
    if isolation == "rlimits":
        return _run_rlimits(data, limits, python)
    return _run_bwrap(data, limits, python, cgroups)


def _run_rlimits(data: bytes, limits: SandboxLimits, python: str) -> SandboxResult:
    workdir = tempfile.mkdtemp(prefix="sandbox-")
    status_r, status_w = os.pipe()
    try:
        config = _config(limits, python=python, workdir=workdir, status_fd=status_w,
                         pid_one=False, site=None, uid=None)
        cmd = [sys.executable, "-I", "-S", "-B", str(INIT_SCRIPT), json.dumps(config)]
        owned = [status_w]
        run = _supervise(cmd, data, limits, owned, status_r, None, None)
        return _result(run, limits, "rlimits", ("rlimits only (unsafe)",), None, None)
    finally:
        _close(status_r, *owned)
        shutil.rmtree(workdir, ignore_errors=True)


def _run_bwrap(data: bytes, limits: SandboxLimits, python: str,
               cgroups: bool) -> SandboxResult:
    bwrap = bwrap_path()
    if bwrap is None or sys.platform != "linux":
        raise SandboxError("bubblewrap ('bwrap', Debian package bubblewrap) was not found"
                           + (f" at ${BWRAP_ENV}" if os.environ.get(BWRAP_ENV) else "")
                           + "; the program was not run (--unsafe-no-sandbox runs it with "
                             "resource limits only)")
    try:
        rt = runtime(python)
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        raise SandboxError(f"cannot prepare the sandbox's runtime: {exc}") from exc
    group = create_group((limits.memory_mb << 20), limits.processes) if cgroups else None
    mechanism = group.mechanism if group is not None else "rlimits+seccomp"
    uid = _sandbox_uid()
    status_r, status_w = os.pipe()
    json_r, json_w = os.pipe()
    owned = [status_w, json_w]  # write ends: closed as soon as the sandbox holds them
    bpf = None
    init = tempfile.TemporaryFile()
    try:
        init.write(INIT_SCRIPT.read_bytes())
        init.flush()
        init.seek(0)
        try:
            bpf = seccomp_filter(block_shared_memory=group is None)
        except (ImportError, OSError) as exc:
            raise SandboxError(f"cannot build the seccomp filter (pyseccomp and libseccomp "
                               f"are needed): {exc}") from exc
        config = _config(limits, python=rt.executable, workdir=WORKDIR, status_fd=status_w,
                         pid_one=True, site=SITE_INSIDE if rt.z3 else None, uid=uid)
        if group is None or not group.counts_processes:
            config["count_processes"] = limits.processes
        cmd = bwrap_command(bwrap, rt, seccomp_fd=bpf.fileno(), init_fd=init.fileno(),
                            status_fd=status_w, json_fd=json_w, tmpfs_mb=limits.tmpfs_mb,
                            config=config)
        run = _supervise(cmd, data, limits, owned, status_r, json_r,
                         group.join if group is not None else None,
                         extra_fds=(bpf.fileno(), init.fileno()))
        notes = ("bubblewrap", "namespaces: user pid net ipc uts cgroup", "read-only root",
                 f"uid {uid}", f"memory: {mechanism}",
                 "seccomp: no sockets, no io_uring, PID 1 out of reach"
                 + ("" if group else ", no memfd, no SysV shm"))
        return _result(run, limits, mechanism, notes, uid, group)
    finally:
        _close(status_r, json_r, *owned)
        init.close()
        if bpf is not None:
            bpf.close()
        if group is not None:
            group.remove()


def _close(*fds: int) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


class _Streams:
    """Incremental reading of stdout (capped), stderr (tail kept) and the status pipes."""

    def __init__(self, limits: SandboxLimits) -> None:
        self.limits = limits
        self.stdout = bytearray()
        self.stdout_total = 0
        self.stderr_tail = bytearray()
        self.stderr_total = 0
        self.status = bytearray()
        self.json = bytearray()

    def take(self, name: str, chunk: bytes) -> bool:
        """Store a chunk; False when a cap is passed."""
        if name == "stdout":
            self.stdout_total += len(chunk)
            room = self.limits.stdout_bytes - len(self.stdout)
            self.stdout += chunk[:max(0, room)]
            return self.stdout_total <= self.limits.stdout_bytes
        if name == "stderr":
            self.stderr_total += len(chunk)
            self.stderr_tail = (self.stderr_tail + chunk)[-STDERR_TAIL_BYTES:]
            return self.stderr_total <= self.limits.stderr_bytes
        buffer = self.status if name == "status" else self.json
        if len(buffer) < 1 << 16:
            buffer += chunk
        return True

    @staticmethod
    def lines(buffer: bytearray) -> list[dict]:
        found = []
        for line in bytes(buffer).decode(errors="replace").splitlines():
            try:
                value = safe_json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                found.append(value)
        return found


@dataclass
class _Run:
    streams: _Streams
    killed_for: str | None
    wall_s: float
    rusage: object | None


def _init_pid(streams: _Streams) -> int | None:
    """The host pid of the sandbox's first process (bwrap's ``child-pid``) while it is
    still that process (checked by its PID namespace, so a reused pid is never hit)."""
    for line in _Streams.lines(streams.json):
        pid, namespace = line.get("child-pid"), line.get("pid-namespace")
        if isinstance(pid, int) and isinstance(namespace, int):
            try:
                if os.readlink(f"/proc/{pid}/ns/pid") == f"pid:[{namespace}]":
                    return pid
            except OSError:
                return None
    return None


def _kill(proc: subprocess.Popen, streams: _Streams) -> None:
    """Kill bwrap's process group and the sandbox's PID 1, whose death ends every process
    of its namespace."""
    targets = [(os.killpg, proc.pid)]
    init = _init_pid(streams)
    if init is not None:
        targets.append((os.kill, init))
    for kill, pid in targets:
        try:
            kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _await_namespace_end(streams: _Streams, timeout: float = 10.0) -> None:
    """Wait until the sandbox's PID 1 is gone or a zombie: the kernel turns it into one
    only after every other process of its namespace has been killed and reaped."""
    pid = _init_pid(streams)
    end = time.monotonic() + timeout
    while pid is not None and time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                if handle.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X"):
                    return
        except (OSError, IndexError):
            return
        time.sleep(0.01)


def _supervise(cmd: list[str], data: bytes, limits: SandboxLimits, owned: list[int],
               status_r: int, json_r: int | None, preexec, extra_fds: tuple = ()) -> _Run:
    """Start ``cmd`` with the descriptors ``owned`` (closed here once the sandbox holds
    them, and removed from the list), feed it the program, read its output under the caps,
    and reap it."""
    start = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, pass_fds=(*owned, *extra_fds),
                                cwd="/", env=ENV, start_new_session=True, close_fds=True,
                                preexec_fn=preexec)
    except (OSError, subprocess.SubprocessError) as exc:
        raise SandboxError(f"cannot start the sandbox: {exc}") from exc
    _close(*owned)  # the write ends now belong to the sandbox alone
    owned.clear()
    streams = _Streams(limits)
    killed_for = None
    sel = selectors.DefaultSelector()
    channels = [("stdout", proc.stdout), ("stderr", proc.stderr), ("status", status_r)]
    if json_r is not None:
        channels.append(("json", json_r))
    for name, fd in channels:
        os.set_blocking(fd if isinstance(fd, int) else fd.fileno(), False)
        sel.register(fd, selectors.EVENT_READ, name)
    pending = memoryview(data)
    os.set_blocking(proc.stdin.fileno(), False)
    sel.register(proc.stdin, selectors.EVENT_WRITE, "stdin")
    deadline = start + limits.wall_s + WALL_BACKSTOP_S
    rusage = None
    try:
        while sel.get_map():
            now = time.monotonic()
            if killed_for is None and now >= deadline:
                killed_for = "wall"
                _kill(proc, streams)
                deadline = now + KILL_DRAIN_S
            elif killed_for is not None and now >= deadline:
                break
            for key, _ in sel.select(timeout=max(0.0, min(deadline - now, 0.5))):
                if key.data == "stdin":
                    try:
                        written = os.write(key.fd, pending[:1 << 16])
                        pending = pending[written:]
                    except BlockingIOError:
                        continue
                    except OSError:  # the sandbox died before reading its program
                        pending = pending[:0]
                    if not pending:
                        sel.unregister(key.fileobj)
                        proc.stdin.close()
                    continue
                try:
                    chunk = os.read(key.fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                if not streams.take(key.data, chunk) and killed_for is None:
                    killed_for = "output"
                    _kill(proc, streams)
                    deadline = time.monotonic() + KILL_DRAIN_S
    except BaseException:  # interrupted (Ctrl-C, a signal turned exception): end it now
        killed_for = killed_for or "interrupted"
        raise
    finally:
        sel.close()
        if killed_for is None:
            rusage = _wait4(proc, max(0.1, deadline - time.monotonic()))
            if rusage is None:
                killed_for = "wall"
        if rusage is None:
            _kill(proc, streams)
            rusage = _wait4(proc, None)
        _await_namespace_end(streams)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()
    return _Run(streams, killed_for, time.monotonic() - start, rusage)


def _wait4(proc: subprocess.Popen, timeout: float | None):
    """Reap the sandbox with ``wait4`` (whose rusage covers its whole process tree);
    None if it is still running after ``timeout`` seconds."""
    end = None if timeout is None else time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG if end is not None else 0)
        if pid == proc.pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return usage
        if end is not None and time.monotonic() >= end:
            return None
        time.sleep(0.01)


def _result(run: _Run, limits: SandboxLimits, mechanism: str, notes: tuple,
            uid: int | None, group: RunGroup | None) -> SandboxResult:
    status = _Streams.lines(run.streams.status)
    stderr = bytes(run.streams.stderr_tail).decode(errors="replace")
    for line in status:
        if "setup_error" in line:
            raise SandboxError(f"sandbox setup failed: {line['setup_error']}")
    if not any(line.get("started") for line in status):
        raise SandboxError("the sandbox could not be set up: "
                           + (stderr.strip()[-500:] or "no report from its first process"))
    report = next((line for line in status if "exit" in line), {})
    returncode = None
    if report.get("signal") is not None:
        returncode = -int(report["signal"])
    elif report.get("exit") is not None:
        returncode = int(report["exit"])
    usage = run.rusage
    cpu_s = usage.ru_utime + usage.ru_stime if usage is not None else 0.0
    oom_kills = group.oom_kills() if group is not None else 0
    outcome, limit = _classify(returncode, run.killed_for, bool(report.get("wall_killed")),
                               stderr, cpu_s, limits, oom_kills)
    if report.get("process_limit") and outcome is not Outcome.OUTPUT_EXCEEDED:
        outcome, limit = Outcome.CRASHED, "processes"
    namespace = next((line.get("pid-namespace") for line in _Streams.lines(run.streams.json)
                      if "pid-namespace" in line), None)
    return SandboxResult(
        outcome=outcome,
        returncode=returncode,
        stdout=bytes(run.streams.stdout).decode(errors="replace"),
        stderr_tail=stderr,
        cpu_s=cpu_s,
        wall_s=run.wall_s,
        peak_rss_kb=usage.ru_maxrss if usage is not None else 0,
        limit=limit,
        stdout_truncated=run.streams.stdout_total > len(run.streams.stdout),
        isolation=tuple(notes) + tuple(next((l.get("notes", ()) for l in status
                                             if "started" in l), ())),
        uid=uid,
        memory_limit_mechanism=mechanism,
        pid_namespace=namespace,
        oom_kills=oom_kills,
        memory_peak_kb=(group.peak_bytes() >> 10 if group is not None else 0)
        or (usage.ru_maxrss if usage is not None else 0),
    )


def _classify(returncode: int | None, killed_for: str | None, wall_killed: bool, stderr: str,
              cpu_s: float, limits: SandboxLimits,
              oom_kills: int = 0) -> tuple[Outcome, str | None]:
    """The outcome, and the limit that caused it.

    Memory comes before time, and is read from the kernel where possible: the cgroup's
    OOM-kill counter, else what a program says when an allocation failed under its
    rlimit (Python's MemoryError, z3's "out of memory", C++ bad_alloc). A run that died
    of its memory limit is ``memory_exceeded`` however long it took on a loaded machine.
    """
    if killed_for == "output":
        return Outcome.OUTPUT_EXCEEDED, "output"
    ended_itself = killed_for is None and not wall_killed and returncode != 0
    if ended_itself and (oom_kills > 0 or (returncode is not None and any(
            marker in stderr[-2000:] for marker in _MEMORY_MARKERS))):
        return Outcome.MEMORY_EXCEEDED, "memory"
    if killed_for == "wall" or wall_killed:
        return Outcome.TIMED_OUT, "wall"
    if returncode == -signal.SIGXCPU or (returncode == -signal.SIGKILL
                                         and cpu_s >= limits.cpu_s):
        return Outcome.TIMED_OUT, "cpu"
    if returncode == 0:
        return Outcome.OK, None
    if returncode == -signal.SIGXFSZ:
        return Outcome.CRASHED, "file_size"
    return Outcome.CRASHED, None
