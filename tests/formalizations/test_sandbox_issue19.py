"""Regression tests for issue 19's sandbox findings (items 5-8), through :func:`run_program`;
``test_smt_cli_findings.py`` runs the same hostile programs through ``cope eval --method smt``.

5. ``socket(1 << 32 | AF_UNIX, ...)`` passed the seccomp rule that compared all 64 bits;
6. AF_VSOCK (and every other family) sockets could be created;
7. root-only kernel files in ``/proc`` were readable, ``mountinfo`` showed the project;
8. PID 1 died of a SIGINT and its limits, scheduling, nice value and OOM score could be set.

The hostile programs use x86-64 system call numbers and machine code.
"""
from __future__ import annotations

import os
import platform
import signal
import textwrap
from dataclasses import replace

import pytest

from formalizations.hostile_programs import ATTACKS_PID_ONE, RAW_SOCKETS, READS_KERNEL_FILES, \
    ROOT_ONLY_FILES
from formalizations.sandbox_helpers import LIMITS, needs_namespaces, processes_in_namespace
from planning_core.validators.formalizations.sandbox import Outcome, run_program
from planning_core.validators.formalizations.sandbox_bwrap import proc_masks, seccomp_filter

pytestmark = [needs_namespaces,
              pytest.mark.skipif(platform.machine() != "x86_64",
                                 reason="the hostile programs use x86-64 system calls")]


def _last(stdout: str, prefix: str) -> str:
    return [line for line in stdout.splitlines() if line.startswith(prefix)][-1]


# ------------------------------------------------------------------ 5, 6: sockets

def test_no_socket_of_any_family_high_bits_or_foreign_abi():
    result = run_program(RAW_SOCKETS, LIMITS)
    assert result.outcome is Outcome.OK, result.stderr_tail
    lines = result.stdout.splitlines()
    calls = [line for line in lines if line.startswith(("socket ", "socketpair "))]
    assert len(calls) == 28  # 7 families, plain and with the upper 32 bits, both calls
    assert all(line.endswith(" -1 13") for line in calls), calls  # EACCES, every one
    assert "socket vsock True -1 13" in calls and "socketpair unix True -1 13" in calls
    assert "io_uring_setup -1 1" in lines
    # the same call through the x32 and i386 system call tables kills the process (SIGSYS;
    # a kernel without 32-bit emulation faults on int 0x80 before any filter: SIGSEGV)
    assert f"x32 signal {signal.SIGSYS.value}" in lines
    assert _last(result.stdout, "i386") in (f"i386 signal {signal.SIGSYS.value}",
                                            f"i386 signal {signal.SIGSEGV.value}")
    assert not any(line.startswith("made") for line in lines)
    assert lines[-1] == "sockets made: []"


def test_no_argument_rule_compares_64_bit_equality(monkeypatch):
    """The kernel reads int arguments as 32 bits: a rule may refuse on "not 0" (64 bits,
    safe) or on an equality of the low 32 bits (MASKED_EQ 0xffffffff), never on a 64-bit
    equality, which the upper bits slip past (item 5)."""
    pyseccomp = pytest.importorskip("pyseccomp")
    seen = []
    real = pyseccomp.SyscallFilter.add_rule

    def record(self, action, name, *args):
        seen.append((name, [(a._op, a._data_a, a._data_b) for a in args]))
        return real(self, action, name, *args)

    monkeypatch.setattr(pyseccomp.SyscallFilter, "add_rule", record)
    seccomp_filter(block_shared_memory=True).close()
    names = {name for name, _ in seen}
    assert {"socket", "socketpair", "prlimit64", "setpriority", "kill"} <= names
    assert all(not args for name, args in seen if name in ("socket", "socketpair"))
    for name, args in seen:
        for op, first, second in args:
            assert (op, first) == (pyseccomp.NE, 0) \
                or (op, first) == (pyseccomp.MASKED_EQ, 0xFFFF_FFFF), (name, op, first, second)


def test_a_normal_program_still_has_what_it_uses():
    """What the filter keeps: limits, nice value, affinity and signals of the program's own
    process and of its children (z3 needs none of these, Python's standard library some)."""
    result = run_program(textwrap.dedent("""
        import os, resource, signal, subprocess, sys
        resource.setrlimit(resource.RLIMIT_NOFILE, (32, 32))
        os.nice(2)
        os.sched_setaffinity(0, os.sched_getaffinity(0))
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        os.kill(child.pid, signal.SIGTERM)
        print(child.wait(), resource.getrlimit(resource.RLIMIT_NOFILE)[0],
              os.getpriority(os.PRIO_PROCESS, 0))
        import z3
        x = z3.Int("x")
        solver = z3.Solver()
        solver.add(x * x == 49, x > 0)
        print(solver.check(), solver.model()[x])
        """), LIMITS)
    assert result.outcome is Outcome.OK, result.stderr_tail
    # nice values are relative to the runner's own (a test run under `nice` starts higher)
    assert result.stdout.splitlines() == [f"-15 32 {_niced(2)}", "sat 7"]


def _niced(increment: int) -> int:
    """The nice value a sandboxed program reaches with os.nice(increment): it inherits the
    test runner's value (0 normally, 19 under `nice -n 19`), capped at 19."""
    return min(os.getpriority(os.PRIO_PROCESS, 0) + increment, 19)


# ------------------------------------------------------------------ 7: kernel files

def test_root_only_kernel_files_are_covered():
    result = run_program(READS_KERNEL_FILES, LIMITS)
    assert result.outcome is Outcome.OK, result.stderr_tail
    lines = result.stdout.splitlines()
    for name in ROOT_ONLY_FILES:
        assert f"refused /proc/{name} Permission denied" in lines, name
    assert lines[-2] == "readable: []", lines[-2]
    assert lines[-1] == "project in mountinfo: False"
    assert "refused /proc/1/mountinfo Permission denied" in lines


def test_proc_masks_cover_the_issue_files():
    files, _ = proc_masks()
    for name in ROOT_ONLY_FILES:
        assert f"/proc/{name}" in files
    assert "/proc/1/oom_score_adj" in files and "/proc/1/task/1/oom_score_adj" in files


# ------------------------------------------------------------------ 8: PID 1

def test_pid_one_ignores_signals_and_keeps_its_settings():
    result = run_program(ATTACKS_PID_ONE, LIMITS)
    assert result.outcome is Outcome.OK, (result, result.stderr_tail)
    lines = result.stdout.splitlines()
    assert lines[-1] == "allowed: []", [line for line in lines if "ALLOWED" in line]
    assert f"self ok 64 {_niced(1)}" in lines
    assert f"pid1 nice {_niced(0)} policy 0 state S" in lines
    ignored = int(_last(result.stdout, "pid1 ignores").split()[-1], 16)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGQUIT):
        assert ignored >> (sig - 1) & 1, sig
    assert not ignored >> (signal.SIGCHLD - 1) & 1  # waited for, never auto-reaped
    assert processes_in_namespace(result.pid_namespace) == []


@pytest.mark.slow
def test_pid_one_still_enforces_the_wall_limit_after_signals():
    """A program that sends PID 1 every signal it can (through its process group) is
    still ended by the wall-clock limit PID 1 keeps."""
    result = run_program(textwrap.dedent("""
        import os, signal, time
        for sig in range(1, 32):
            if sig not in (signal.SIGKILL, signal.SIGSTOP):
                signal.signal(sig, signal.SIG_IGN)
        for sig in range(1, 32):
            if sig not in (signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD):
                os.kill(0, sig)
        print("sent", flush=True)
        while True:
            time.sleep(0.1)
        """), replace(LIMITS, wall_s=3.0))
    assert result.outcome is Outcome.TIMED_OUT and result.limit == "wall", result
    assert result.stdout == "sent\n"
    assert processes_in_namespace(result.pid_namespace) == []
