"""Hostile programs of issue 9's sandbox findings, and process-tree helpers, shared by
``test_sandbox_findings.py`` (through :func:`run_program`) and
``test_smt_cli_findings.py`` (through ``cope eval --method smt``)."""
from __future__ import annotations

import os
import socket
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

PROJECT_FILE = Path(__file__).resolve().parents[2] / "pyproject.toml"

READS_HOST_FILES = textwrap.dedent(f"""
    import sys
    leaked = []
    for path in ("/etc/passwd", {str(PROJECT_FILE)!r}, "/etc/hostname", "/proc/1/environ"):
        try:
            leaked.append(path + " " + open(path).read()[:40])
        except OSError as exc:
            print("refused", path, exc.strerror, file=sys.stderr)
    print("\\n".join(leaked))
    raise SystemExit(3)
    """)

# memfd files written through a mapping that is then dropped, 8 MiB each (under the
# file-size limit): RLIMIT_AS no longer counts them, the open descriptors keep them
MEMFD_BOMB = textwrap.dedent("""
    import mmap, os
    held = 0
    try:
        for index in range(240):
            fd = os.memfd_create(f"m{index}")
            os.ftruncate(fd, 8 << 20)
            with mmap.mmap(fd, 8 << 20) as mapping:
                mapping.write(b"x" * (8 << 20))
            held += 8
            print(held, flush=True)
    except OSError as exc:
        print("refused", exc.strerror, flush=True)
    """)

# SysV segments filled and detached: no process maps them, the IPC namespace keeps them
SHM_BOMB = textwrap.dedent("""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    held = 0
    for index in range(40):
        segment = libc.shmget(0, 64 << 20, 0o1600)
        if segment < 0:
            print("refused", ctypes.get_errno(), flush=True)
            break
        address = libc.shmat(segment, None, 0)
        ctypes.memset(address, 1, 64 << 20)
        libc.shmdt(ctypes.c_void_p(address))
        held += 64
        print(held, flush=True)
    """)

MEMORY_BOMB = textwrap.dedent("""
    chunks = []
    while True:
        chunks.append(bytearray(50 * 2**20))
    """)

# memory held by a forked child: per-process rlimits let each process have its own share
FORKED_MEMORY_BOMB = textwrap.dedent("""
    import os
    for _ in range(4):
        if os.fork() == 0:
            chunks = []
            while True:
                chunks.append(bytearray(16 * 2**20))
    while True:
        try:
            os.wait()
        except ChildProcessError:
            break
    raise SystemExit(1)
    """)


def unix_socket_program(path: str) -> str:
    return textwrap.dedent(f"""
        import socket, subprocess, sys
        code = ("import socket; s = socket.socket(socket.AF_UNIX); "
                "s.connect({path!r}); s.sendall(b'child')")
        child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        print("child", child.returncode, child.stderr.strip().splitlines()[-1])
        for family in (socket.AF_UNIX,):
            try:
                s = socket.socket(family, socket.SOCK_STREAM)
                s.connect({path!r})
                s.sendall(b"parent")
                print("connected")
            except OSError as exc:
                print("parent refused", exc.strerror)
        """)


FORGES_SETUP_ERROR = textwrap.dedent("""
    import json, os, sys
    for fd in range(3, 64):  # no status descriptor is inherited to write to
        try:
            os.write(fd, b'{"setup_error": "forged"}\\n')
            print("wrote to", fd)
        except OSError:
            pass
    try:  # the sandbox's PID 1 holds the status pipe: every descriptor of it is tried
        held = sorted(os.listdir("/proc/1/fd"), key=int)
    except OSError:
        held = ["1", "2", "3", "4"]
    for path in ["/proc/1/fd/" + name for name in held]:
        try:
            with open(path, "w") as handle:
                handle.write('{"setup_error": "forged"}\\n')
            print("wrote", path)
        except OSError as exc:
            print("refused", path, exc.strerror)
    sys.stderr.write("sandbox setup failed: forged\\n")
    sys.stderr.write("sandbox: cannot start the program: forged\\n")
    sys.stderr.write('{"setup_error": "forged"}\\n')
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(71)
    """)

# two children burn 0.6 s of CPU each, tell the parent, and spin on; the parent exits
# without waiting, so the children are killed at the end of the run, unreaped by it
CHILDREN_BURN_CPU = textwrap.dedent("""
    import os, time
    read_end, write_end = os.pipe()
    for _ in range(2):
        if os.fork() == 0:
            while time.process_time() < 0.6:
                pass
            os.write(write_end, b"x")
            while True:
                pass
    got = b""
    while len(got) < 2:
        got += os.read(read_end, 2)
    print("children busy")
    """)


@pytest.fixture
def unix_listener(tmp_path):
    """A listening Unix socket on the host, in a temporary directory."""
    path = str(tmp_path / "host.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(4)
    server.setblocking(False)
    yield path, server
    server.close()


def _descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    ppid = int(handle.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _sandboxed(pids: set[int]) -> set[int]:
    """The programs among ``pids``: processes with pid 2 in a PID namespace of their own."""
    found = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as handle:
                for line in handle:
                    if line.startswith("NSpid:") and line.split()[-1] == "2" \
                            and len(line.split()) > 2:
                        found.add(pid)
        except OSError:
            continue
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                if handle.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X"):
                    alive.add(pid)
        except (OSError, IndexError):
            continue
    return alive


def kill_and_check(evaluator: subprocess.Popen, programs: int, sig: int) -> None:
    """Wait for ``programs`` sandboxed programs under ``evaluator``, send ``sig`` to it,
    and check that every process below it is gone soon after (never 90 s later)."""
    deadline = time.monotonic() + 60
    tree: set[int] = set()
    while time.monotonic() < deadline:
        tree = _descendants(evaluator.pid)
        if len(_sandboxed(tree)) >= programs:
            break
        assert evaluator.poll() is None, evaluator.communicate()
        time.sleep(0.1)
    assert len(_sandboxed(tree)) >= programs, "the sandboxes never started"
    os.kill(evaluator.pid, sig)
    evaluator.wait(timeout=30)
    deadline = time.monotonic() + 15  # generous; the program itself would run 300 s
    while _alive(tree) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _alive(tree) == set()


SLEEPER = "import time\ntime.sleep(300)\n"
