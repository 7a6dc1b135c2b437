"""The sandbox's ordinary behaviour: results, z3 available, limits reported, both modes."""
from __future__ import annotations

import os
import textwrap
import time
from dataclasses import replace

import pytest

from formalizations.sandbox_helpers import LIMITS, needs_namespaces, processes_of
from planning_core.validators.formalizations import sandbox
from planning_core.validators.formalizations.sandbox import MAX_PROGRAM_BYTES, Outcome, SandboxError, \
    SandboxResult, run_program


@needs_namespaces
def test_z3_program_runs_and_prints():
    result = run_program(textwrap.dedent("""
        import z3
        x, y = z3.Ints("x y")
        solver = z3.Solver()
        solver.add(x + y == 10, x - y == 4)
        assert solver.check() == z3.sat
        model = solver.model()
        print(model[x], model[y])
        """), LIMITS)
    assert result.outcome is Outcome.OK, result.stderr_tail
    assert result.stdout == "7 3\n"
    assert result.returncode == 0 and result.limit is None
    assert result.cpu_s > 0 and result.peak_rss_kb > 0
    assert "read-only root" in result.isolation and "bubblewrap" in result.isolation
    assert f"uid {result.uid}" in result.isolation
    assert result.memory_limit_mechanism in ("cgroup v2", "cgroup v1", "rlimits+seccomp")


@needs_namespaces
def test_program_sees_its_own_world():
    result = run_program(textwrap.dedent("""
        import os
        print(os.getuid(), os.getgid(), os.getgroups())
        print(os.getcwd(), sorted(os.listdir(".")))
        print(len([p for p in os.listdir("/proc") if p.isdigit()]))
        with open("/proc/self/status") as handle:
            print([l.split()[1] for l in handle if l.startswith(("CapEff", "NoNewPrivs"))])
        import resource
        print([resource.getrlimit(getattr(resource, "RLIMIT_" + n))[0]
               for n in ("CPU", "AS", "FSIZE", "NPROC", "CORE")])
        """), LIMITS)
    assert result.outcome is Outcome.OK, result.stderr_tail
    ids, cwd, procs, caps, limits = result.stdout.splitlines()
    assert ids == f"{result.uid} {result.uid} []"
    assert cwd == "/tmp/sandbox ['main.py']"
    assert int(procs) <= 3  # the sandbox's init and this program (a PID namespace)
    assert caps == "['0000000000000000', '1']"
    assert limits == str([LIMITS.cpu_s, LIMITS.memory_mb << 20, LIMITS.file_size_mb << 20,
                          LIMITS.processes, 0])


@needs_namespaces
def test_crash_keeps_traceback_and_exit_code():
    result = run_program("import sys\nprint('partial')\nsys.stderr.write('bad\\n')\n"
                         "raise SystemExit(3)\n", LIMITS)
    assert result.outcome is Outcome.CRASHED
    assert result.returncode == 3 and result.stdout == "partial\n"
    assert result.stderr_tail.endswith("bad\n")
    error = run_program("1 / 0\n", LIMITS)
    assert error.outcome is Outcome.CRASHED and "ZeroDivisionError" in error.stderr_tail
    syntax = run_program("def (:\n", LIMITS)
    assert syntax.outcome is Outcome.CRASHED and "SyntaxError" in syntax.stderr_tail


@pytest.mark.slow
@needs_namespaces
def test_z3_out_of_memory_is_memory_exceeded():
    """z3's allocator fails under RLIMIT_AS and z3 raises "out of memory". (Inside
    ``check()`` z3 instead answers ``unknown`` with that reason: the program decides what
    to print then, so that case is an ordinary run.)"""
    program = textwrap.dedent("""
        import z3
        x = z3.Int("x")
        terms = [x + i for i in range(10**7)]
        """)
    tight = run_program(program, replace(LIMITS, cpu_s=10, wall_s=30.0, memory_mb=200))
    assert tight.outcome is Outcome.MEMORY_EXCEEDED, (tight.outcome, tight.stderr_tail)
    assert tight.limit == "memory" and "out of memory" in tight.stderr_tail


def test_rlimits_mode_limits_and_cleans_up(tmp_path):
    """Without namespaces (any user): limits, capped output and the subreaper still work."""
    ok = run_program("print('hi')", LIMITS, isolation="rlimits")
    assert ok.outcome is Outcome.OK and ok.stdout == "hi\n"
    assert ok.isolation and "child subreaper" in ok.isolation
    assert run_program("x = bytearray(2**33)", LIMITS, isolation="rlimits").outcome \
        is Outcome.MEMORY_EXCEEDED
    flood = run_program("while True: print('x' * 9999)", LIMITS, isolation="rlimits")
    assert flood.outcome is Outcome.OUTPUT_EXCEEDED
    marker = tmp_path / "daemon-ran"
    left = run_program(textwrap.dedent(f"""
        import os, time
        if os.fork() == 0:
            time.sleep(2)
            open({str(marker)!r}, "w").close()
            os._exit(0)
        print("parent done")
        """), LIMITS, isolation="rlimits")
    assert left.outcome is Outcome.OK
    time.sleep(2.5)
    assert not marker.exists()  # the orphan was killed when the program ended
    if left.uid is not None:
        assert processes_of(left.uid) == []


def test_rlimits_mode_blocks_sockets_in_python():
    result = run_program("import socket\nsocket.socket(socket.AF_INET)\n", LIMITS,
                         isolation="rlimits")
    assert result.outcome is Outcome.CRASHED
    assert "network access is not allowed" in result.stderr_tail


def test_refuses_without_bubblewrap(monkeypatch, tmp_path):
    """Fail closed: no bwrap (here a configured path that does not exist) is an error,
    never a run with less isolation; the rlimits mode must be asked for."""
    monkeypatch.setenv(sandbox.BWRAP_ENV, str(tmp_path / "no-such-bwrap"))
    with pytest.raises(SandboxError, match="bubblewrap.*was not found.*not run"):
        run_program("print(1)", LIMITS)
    assert run_program("print(1)", LIMITS, isolation="rlimits").stdout == "1\n"
    with pytest.raises(ValueError, match="isolation must be"):
        run_program("print(1)", LIMITS, isolation="none")
    with pytest.raises(SandboxError, match="exceeds"):
        run_program("#" * (MAX_PROGRAM_BYTES + 1), LIMITS, isolation="rlimits")


def test_classification_without_running():
    classify = sandbox._classify
    assert classify(None, "output", False, "", 0, LIMITS) == (Outcome.OUTPUT_EXCEEDED, "output")
    assert classify(-9, None, True, "", 0.5, LIMITS) == (Outcome.TIMED_OUT, "wall")
    assert classify(-24, None, False, "", 2.0, LIMITS) == (Outcome.TIMED_OUT, "cpu")
    assert classify(-9, None, False, "", 3.0, LIMITS) == (Outcome.TIMED_OUT, "cpu")
    assert classify(-9, None, False, "", 0.1, LIMITS) == (Outcome.CRASHED, None)
    assert classify(1, None, False, "z3types.Z3Exception: b'out of memory'", 0.1, LIMITS) \
        == (Outcome.MEMORY_EXCEEDED, "memory")
    assert classify(0, None, False, "", 0.1, LIMITS) == (Outcome.OK, None)
    assert SandboxResult(Outcome.CRASHED, -11, "", "", 0, 0).signal_name == "SIGSEGV"
    assert SandboxResult(Outcome.OK, 0, "", "", 0, 0).signal_name is None


def test_no_temporary_directory_left(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)
    run_program("open('scratch.txt', 'w').write('x')", LIMITS, isolation="rlimits")
    assert os.listdir(tmp_path) == []
