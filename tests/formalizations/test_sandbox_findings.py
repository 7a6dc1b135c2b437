"""Regression tests for what issue 9 found in the SMT sandbox, one (or more) per finding:

1. host files (``/etc/passwd``, a project file) were readable;
2. ``memfd_create`` + ``mmap`` and SysV shared memory held 2.4 GB under a 256 MB limit;
3. a host Unix socket in a bound directory accepted a connection from a child interpreter;
4. a program could forge the sandbox's setup error (stderr text and exit code);
5. the memory bomb sometimes ended ``timed_out`` under load;
9. killing the evaluator left its sandboxes running; ``cpu_s`` missed forked children.

Each runs the hostile program through :func:`run_program`; ``test_smt_cli_findings.py``
runs the same programs through ``cope eval --method smt``.
"""
from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from dataclasses import replace

import pytest

from formalizations.hostile_programs import CHILDREN_BURN_CPU, FORGES_SETUP_ERROR, \
    FORKED_MEMORY_BOMB, MEMFD_BOMB, MEMORY_BOMB, PROJECT_FILE, READS_HOST_FILES, SHM_BOMB, \
    SLEEPER, kill_and_check, unix_listener, unix_socket_program  # noqa: F401 (fixture)
from formalizations.sandbox_helpers import LIMITS, needs_namespaces, processes_in_namespace
from planning_core.validators.formalizations import sandbox
from planning_core.validators.formalizations.sandbox import Outcome, SandboxError, run_program

pytestmark = needs_namespaces

def _held_mb(stdout: str) -> int:
    """The last amount the program reported holding (its lines that are a number)."""
    return max([int(line) for line in stdout.split("\n") if line.isdigit()] or [0])


# ------------------------------------------------------------------ 1: host files

def test_host_files_are_not_readable():
    result = run_program(READS_HOST_FILES, LIMITS)
    assert result.outcome is Outcome.CRASHED and result.returncode == 3
    assert result.stdout.strip() == "", result.stdout
    assert "refused /etc/passwd No such file or directory" in result.stderr_tail
    assert f"refused {PROJECT_FILE} No such file or directory" in result.stderr_tail
    assert "root:" not in result.stdout + result.stderr_tail


def test_only_the_runtime_and_z3_are_visible():
    result = run_program(textwrap.dedent("""
        import os, sys
        print(sorted(os.listdir("/")))
        print(sorted(os.listdir(os.path.dirname(os.__file__) + "/site-packages")))
        print(sorted(os.listdir("/sandbox/site")))
        import z3
        print(z3.get_version_string() != "")
        """), LIMITS)
    assert result.outcome is Outcome.OK, result.stderr_tail
    top, site, ours, z3_ok = result.stdout.splitlines()
    assert "etc" not in top and "home" not in top and "work" not in top
    assert site == "[]"  # the base site-packages is covered: no installed package but z3
    assert ours == "['z3']" and z3_ok == "True"


def test_kernel_settings_are_read_only():
    """The program's processes are uid 0 outside their user namespace when root runs the
    sandbox, and sysctl files check only owner bits: /proc/sys must be a read-only mount
    (opening for append writes nothing, even where it would be allowed)."""
    result = run_program(textwrap.dedent("""
        import os
        for path in ("/proc/sys/kernel/core_pattern", "/proc/sys/vm/drop_caches",
                     "/proc/sysrq-trigger"):
            try:
                open(path, "a").close()
                print("opened", path)
            except OSError as exc:
                print("refused", path, exc.strerror)
        """), LIMITS)
    assert result.outcome is Outcome.OK, result.stderr_tail
    assert "opened" not in result.stdout, result.stdout
    assert result.stdout.count("refused") == 3


# ------------------------------------------------------------------ 2: memory bypasses

@pytest.mark.parametrize("program", [MEMFD_BOMB, SHM_BOMB], ids=["memfd", "sysv_shm"])
def test_shared_memory_cannot_pass_the_limit(program):
    limits = replace(LIMITS, memory_mb=256, wall_s=60.0)
    result = run_program(program, limits)
    assert _held_mb(result.stdout) < 256, result.stdout
    if result.memory_limit_mechanism.startswith("cgroup"):
        assert result.outcome is Outcome.MEMORY_EXCEEDED, (result, result.stderr_tail)
        assert result.limit == "memory" and result.oom_kills >= 1
        assert result.memory_peak_kb <= 256 << 10
    else:
        assert "refused" in result.stdout


@pytest.mark.parametrize("program", [MEMFD_BOMB, SHM_BOMB], ids=["memfd", "sysv_shm"])
def test_without_a_cgroup_shared_memory_is_refused(program):
    result = run_program(program, replace(LIMITS, memory_mb=256), cgroups=False)
    assert result.memory_limit_mechanism == "rlimits+seccomp"
    assert result.outcome is Outcome.OK and _held_mb(result.stdout) == 0
    assert result.stdout.startswith("refused"), result.stdout


def test_memory_of_forked_children_counts_towards_one_limit():
    result = run_program(FORKED_MEMORY_BOMB, replace(LIMITS, memory_mb=256, wall_s=60.0))
    if not result.memory_limit_mechanism.startswith("cgroup"):
        pytest.skip("a total over processes needs a memory cgroup (rlimits are per process)")
    assert result.outcome is Outcome.MEMORY_EXCEEDED and result.oom_kills >= 1
    assert result.memory_peak_kb <= 256 << 10


def test_without_a_cgroup_processes_are_counted_by_pid_one():
    """uid 0 outside the namespace is exempt from RLIMIT_NPROC: without a pids cgroup the
    sandbox's PID 1 counts the run's processes. (A bounded 'bomb' of sleeping children,
    so that a failure here cannot flood the machine.)"""
    result = run_program(textwrap.dedent("""
        import os, time
        for _ in range(300):
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
        time.sleep(60)
        """), replace(LIMITS, wall_s=30.0), cgroups=False)
    assert result.outcome is Outcome.CRASHED and result.limit == "processes", result
    assert processes_in_namespace(result.pid_namespace) == []


# ------------------------------------------------------------------ 3: host sockets

def test_host_unix_socket_is_unreachable(unix_listener):
    path, server = unix_listener
    result = run_program(unix_socket_program(path), LIMITS)
    assert result.outcome is Outcome.OK, result.stderr_tail
    child, parent = result.stdout.splitlines()
    assert child.startswith("child 1 ") and "Permission denied" in child
    assert parent == "parent refused Permission denied"
    with pytest.raises(BlockingIOError):
        server.accept()


def test_no_unix_socket_even_to_a_path_inside():
    """A Unix socket is refused before any path is looked up: a socket file on a bound
    (read-only) file system, which connect() does not need to write, is out of reach."""
    result = run_program(textwrap.dedent("""
        import ctypes, socket
        for make in (lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM),
                     lambda: socket.socketpair(socket.AF_UNIX)):
            try:
                make()
                print("made")
            except OSError as exc:
                print(exc.strerror)
        libc = ctypes.CDLL(None, use_errno=True)
        print(libc.syscall(425, 8, None), ctypes.get_errno())  # io_uring_setup
        """), LIMITS)
    assert result.stdout.splitlines() == ["Permission denied", "Permission denied", "-1 1"]


# ------------------------------------------------------------------ 4: forged setup error

def test_forged_setup_error_is_a_crash():
    result = run_program(FORGES_SETUP_ERROR, LIMITS)
    assert result.outcome is Outcome.CRASHED and result.returncode == 71
    assert "wrote" not in result.stdout, result.stdout
    assert result.stdout.count("refused /proc/1/fd/") >= 3  # stdout, stderr, status
    assert "sandbox setup failed: forged" in result.stderr_tail


def test_real_setup_failure_is_still_reported(monkeypatch):
    """The out-of-band channel still carries genuine failures: an interpreter that cannot
    start inside the sandbox is a SandboxError, whatever it printed."""
    real = sandbox.runtime

    def broken(python):
        rt = real(python)
        clone = object.__new__(type(rt))
        clone.__dict__.update(rt.__dict__, libraries=[])  # no libc: nothing can start
        return clone

    monkeypatch.setattr(sandbox, "runtime", broken)
    with pytest.raises(SandboxError, match="could not be set up"):
        run_program("print('hi')", LIMITS)


# ------------------------------------------------------------------ 5: memory bomb

def test_memory_bomb_is_memory_exceeded_whatever_the_load():
    """The wall limit is far away: only memory (and CPU time, which the bomb hardly uses)
    can end the run, so the outcome does not depend on how loaded the machine is."""
    result = run_program(MEMORY_BOMB, replace(LIMITS, wall_s=120.0))
    assert result.outcome is Outcome.MEMORY_EXCEEDED, (result.outcome, result.stderr_tail)
    assert result.limit == "memory" and result.cpu_s < LIMITS.cpu_s


def test_classification_prefers_memory_evidence():
    classify = sandbox._classify
    # an OOM kill of the program (SIGKILL), even with much CPU time used
    assert classify(-9, None, False, "", 9.0, LIMITS, oom_kills=1) \
        == (Outcome.MEMORY_EXCEEDED, "memory")
    # the OOM killer ended the sandbox's first process too: no report, still memory
    assert classify(None, None, False, "", 0.5, LIMITS, oom_kills=2) \
        == (Outcome.MEMORY_EXCEEDED, "memory")
    # a program that survived its child's OOM kill ended normally
    assert classify(0, None, False, "", 0.5, LIMITS, oom_kills=1) == (Outcome.OK, None)
    # the wall limit with no memory evidence stays a time-out
    assert classify(-9, None, True, "", 0.5, LIMITS) == (Outcome.TIMED_OUT, "wall")


# ------------------------------------------------------------------ 9: children, kills

@pytest.mark.slow
def test_cpu_time_counts_forked_children():
    result = run_program(CHILDREN_BURN_CPU, replace(LIMITS, cpu_s=5, wall_s=60.0))
    assert result.outcome is Outcome.OK and result.stdout == "children busy\n"
    assert result.cpu_s >= 1.2, result.cpu_s
    assert processes_in_namespace(result.pid_namespace) == []


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT],
                         ids=["SIGKILL", "SIGTERM", "SIGINT"])
def test_killing_the_evaluator_ends_its_sandbox(sig):
    code = ("from planning_core.validators.formalizations.sandbox import SandboxLimits, "
            f"run_program\nrun_program({SLEEPER!r}, SandboxLimits(cpu_s=300, wall_s=300))")
    # the evaluator starts with SIGINT's default action whatever this test inherited: a
    # shell's background job (`cmd &`) has SIGINT ignored, and Python keeps it ignored
    evaluator = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE,
                                 preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        kill_and_check(evaluator, 1, sig)
    finally:
        if evaluator.poll() is None:
            evaluator.kill()
            evaluator.wait()
