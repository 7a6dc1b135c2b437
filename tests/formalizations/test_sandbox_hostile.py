"""Hostile programs in the namespace sandbox: each ends with the right outcome, within its
limits, and leaves no trace: canary files unchanged, no process of its uid left, no
connection made, no secret printed (issue 6, "Done means")."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import textwrap
import uuid
from dataclasses import replace

import pytest

from formalizations.sandbox_helpers import LIMITS, Canaries, needs_namespaces, \
    processes_in_namespace
from planning_core.validators.formalizations.sandbox import STDERR_TAIL_BYTES, WALL_BACKSTOP_S, Outcome, \
    run_program

pytestmark = needs_namespaces

SECRET = "sk-sandbox-test-" + uuid.uuid4().hex
TOKEN = uuid.uuid4().hex[:12]
HOST_PROBES = (f"/etc/sandbox-probe-{TOKEN}", f"/var/tmp/sandbox-probe-{TOKEN}",
               f"/dev/shm/sandbox-probe-{TOKEN}", f"/tmp/sandbox-probe-{TOKEN}",
               f"/run/lock/sandbox-probe-{TOKEN}")


@pytest.fixture
def canaries(tmp_path):
    made = Canaries(tmp_path)
    yield made
    made.remove()


@pytest.fixture
def listener():
    """A TCP listener on the host's loopback; the programs must never reach it."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


@pytest.fixture
def sentinel():
    """A process of the caller's uid that kill(-1) from inside must not reach."""
    proc = subprocess.Popen(["sleep", "60"], start_new_session=True)
    yield proc
    proc.kill()
    proc.wait()


def _program(body: str, canaries: Canaries, port: int) -> str:
    text = textwrap.dedent(body)
    for key, value in (("@IN@", canaries.inside_tmp), ("@OUT@", canaries.outside_tmp),
                       ("@PORT@", port), ("@TOKEN@", TOKEN)):
        text = text.replace(key, str(value))
    return text


# name -> (program, allowed outcomes, limits overrides)
HOSTILE = {
    "infinite_loop": ("while True:\n    pass\n", {Outcome.TIMED_OUT}, {"wall_s": 3.0}),
    "memory_bomb": ("""
        chunks = []
        while True:
            chunks.append(bytearray(50 * 2**20))
        """, {Outcome.MEMORY_EXCEEDED}, {"wall_s": 120.0}),  # memory, not load, ends it
    "fork_bomb": ("""
        import os
        while True:
            try:
                os.fork()
            except OSError:
                pass
        """, {Outcome.TIMED_OUT}, {"wall_s": 4.0}),
    "writes_outside": ("""
        import os
        targets = ["@IN@/new.txt", "@IN@/keep.txt", "@OUT@/new.txt", "@OUT@/keep.txt",
                   "@OUT@/sub/data.bin", "/etc/sandbox-probe-@TOKEN@",
                   "/var/tmp/sandbox-probe-@TOKEN@", "/dev/shm/sandbox-probe-@TOKEN@",
                   "/tmp/sandbox-probe-@TOKEN@", "/run/lock/sandbox-probe-@TOKEN@"]
        for target in targets:
            try:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "a") as handle:
                    handle.write("pwned\\n")
                print("wrote", target)
            except OSError as exc:
                print("refused", target, exc.strerror)
        for target in ("@OUT@/keep.txt", "@OUT@/sub"):
            try:
                os.chmod(target, 0)
            except OSError as exc:
                print("refused chmod", exc.strerror)
        """, {Outcome.OK}, {}),
    "deletes_files": ("""
        import os, shutil
        for root in ("@IN@", "@OUT@"):
            for name in ("keep.txt", "secret.txt", "sub/data.bin"):
                try:
                    os.remove(os.path.join(root, name))
                except OSError as exc:
                    print("refused", exc.strerror)
            shutil.rmtree(root, ignore_errors=True)
            os.system(f"rm -rf {root} 2>/dev/null")
            try:
                os.rename(root, root + ".moved")
            except OSError as exc:
                print("refused rename", exc.strerror)
        """, {Outcome.OK}, {}),
    "opens_socket": ("""
        import socket
        socket.create_connection(("127.0.0.1", @PORT@), timeout=2).sendall(b"hello")
        """, {Outcome.CRASHED}, {}),
    "network_without_audit_hook": ("""
        import os, subprocess, sys
        os.system("bash -c 'echo hi > /dev/tcp/127.0.0.1/@PORT@' 2>/dev/null")
        code = "import socket; socket.create_connection(('127.0.0.1', @PORT@), timeout=2)"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        print(done.returncode, done.stderr.strip().splitlines()[-1])
        """, {Outcome.OK}, {}),
    "reads_environment": ("""
        import glob, os
        print(dict(os.environ))
        for path in sorted(glob.glob("/proc/*/environ")):
            try:
                print(path, open(path, "rb").read())
            except OSError as exc:
                print("refused", path, exc.strerror)
        """, {Outcome.OK}, {}),
    "huge_output": ("""
        import sys
        while True:
            sys.stdout.write("x" * 65536)
        """, {Outcome.OUTPUT_EXCEEDED}, {}),
    "stderr_flood": ("""
        import sys
        while True:
            sys.stderr.write("e" * 65536)
        """, {Outcome.OUTPUT_EXCEEDED}, {}),
    "never_exits_after_plan": ("""
        import time
        print("(pickup b1)", flush=True)
        while True:
            time.sleep(0.2)
        """, {Outcome.TIMED_OUT}, {"wall_s": 3.0}),
    "leaves_daemons": ("""
        import os, subprocess, sys, time
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"])
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(1000)
            os._exit(0)
        print("done")
        """, {Outcome.OK}, {}),
    "os_system_background": ("""
        import os, subprocess, sys
        os.system("yes > /dev/null &")  # no shell in the sandbox: these fail
        os.system("setsid sleep 1000 > /dev/null 2>&1 &")
        spin = "while True: pass"
        subprocess.Popen([sys.executable, "-c", spin], start_new_session=True)
        print("done")
        """, {Outcome.OK}, {}),
    "ctypes_segfault": ("""
        import ctypes
        ctypes.string_at(0)
        """, {Outcome.CRASHED}, {}),
    "kills_everything": ("""
        import os, signal
        for target in (-1, 1, os.getppid()):
            try:
                os.kill(target, signal.SIGKILL)
            except OSError as exc:
                print("refused", target, exc.strerror)
        print("still here")
        """, {Outcome.OK}, {}),
    "ignores_sigterm": ("""
        import signal, time
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGXCPU):
            signal.signal(sig, signal.SIG_IGN)
        while True:
            time.sleep(0.1)
        """, {Outcome.TIMED_OUT}, {"wall_s": 3.0}),
    "threads_spinning": ("""
        import threading
        def spin():
            while True:
                pass
        for _ in range(8):
            threading.Thread(target=spin).start()
        spin()
        """, {Outcome.TIMED_OUT}, {"wall_s": 4.0}),
    "reads_secret_files": ("""
        for path in ("/etc/shadow", "@IN@/secret.txt", "@OUT@/secret.txt"):
            try:
                print(path, open(path).read())
            except OSError as exc:
                print("refused", path, exc.strerror)
        """, {Outcome.OK}, {}),
    "huge_file": ("""
        with open("big.bin", "wb") as handle:
            for _ in range(64):
                handle.write(b"\\0" * 2**20)
        """, {Outcome.CRASHED}, {}),
    "fills_tmp": ("""
        import os
        for index in range(1000):
            with open(f"/tmp/fill-{index}", "wb") as handle:
                handle.write(b"\\0" * (4 * 2**20))
        """, {Outcome.CRASHED}, {}),
    "recursion_bomb": ("""
        import sys
        sys.setrecursionlimit(10**8)
        def deeper(n):  # through map(), so each level also takes C stack
            return list(map(deeper, [n + 1]))
        deeper(0)
        """, {Outcome.CRASHED}, {}),
    "privilege_escalation": ("""
        import ctypes, os
        for attempt in (lambda: os.setuid(0), lambda: os.setgid(0),
                        lambda: os.chroot("/"), lambda: os.setgroups([0])):
            try:
                attempt()
                print("escalated")
            except OSError as exc:
                print("refused", exc.strerror)
        libc = ctypes.CDLL(None, use_errno=True)
        print("mount", libc.mount(b"tmpfs", b"@OUT@", b"tmpfs", 0, None))
        os.system("unshare -Urm sh -c 'mount -o remount,rw / ; rm -rf @OUT@ @IN@;"
                  " touch /etc/sandbox-probe-@TOKEN@' 2>/dev/null")
        os.system("su -c 'rm -rf @OUT@' root < /dev/null 2>/dev/null")
        """, {Outcome.OK}, {}),
}


# the details behind some outcomes: which limit, which signal, what the program saw
SPECIFIC = {
    "never_exits_after_plan": lambda r: r.limit == "wall" and r.stdout == "(pickup b1)\n",
    "ctypes_segfault": lambda r: r.returncode == -signal.SIGSEGV and r.signal_name == "SIGSEGV",
    "recursion_bomb": lambda r: r.returncode == -signal.SIGSEGV,
    "huge_file": lambda r: "File too large" in r.stderr_tail,
    "fills_tmp": lambda r: "No space left on device" in r.stderr_tail,
    "huge_output": lambda r: r.limit == "output" and r.stdout_truncated
    and len(r.stdout.encode()) == LIMITS.stdout_bytes,
    "stderr_flood": lambda r: r.limit == "output",
    "opens_socket": lambda r: "network access is not allowed" in r.stderr_tail,
    # no socket of any family is created (seccomp; behind it, bwrap's network namespace
    # has only its own loopback, where nothing listens)
    "network_without_audit_hook": lambda r: r.stdout.startswith("1 ")
    and "Permission denied" in r.stdout,
    "reads_secret_files": lambda r: r.stdout.count("refused") == 3,
    "reads_environment": lambda r: "'PATH': '/usr/local/bin:/usr/bin:/bin'" in r.stdout,
    "writes_outside": lambda r: "Read-only file system" in r.stdout,
    "kills_everything": lambda r: r.stdout.endswith("still here\n"),
    "memory_bomb": lambda r: r.limit == "memory",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_program_is_contained(name, canaries, listener, sentinel, monkeypatch):
    monkeypatch.setenv("PLANNING_CORE_SANDBOX_SECRET", SECRET)
    body, allowed, overrides = HOSTILE[name]
    limits = replace(LIMITS, **overrides)
    result = run_program(_program(body, canaries, listener.getsockname()[1]), limits)

    assert result.outcome in allowed, (result.outcome, result.stderr_tail[-600:])
    assert result.wall_s < limits.wall_s + WALL_BACKSTOP_S + 5.0
    assert processes_in_namespace(result.pid_namespace) == []
    assert canaries.unchanged()
    assert not any(os.path.lexists(path) for path in HOST_PROBES)
    with pytest.raises(BlockingIOError):
        listener.accept()
    assert sentinel.poll() is None
    everything = result.stdout + result.stderr_tail
    assert SECRET not in everything
    assert "TOP-SECRET-CANARY" not in everything
    assert len(result.stdout.encode()) <= limits.stdout_bytes
    assert len(result.stderr_tail.encode()) <= STDERR_TAIL_BYTES
    assert SPECIFIC.get(name, lambda r: True)(result), result


def test_process_limit_counts_processes():
    result = run_program(textwrap.dedent("""
        import os, time
        started = 0
        for _ in range(100):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(60)
                os._exit(0)
            started += 1
        print(started)
        """), LIMITS)
    assert result.outcome is Outcome.OK, result.stderr_tail
    assert 0 < int(result.stdout) < LIMITS.processes
    assert processes_in_namespace(result.pid_namespace) == []
