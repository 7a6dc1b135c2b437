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


# ------------------------------------------------------------------ issue 19, items 5-8

# Sockets of every address family, through raw system calls (no audit hook sees them),
# plain and with the upper 32 bits of the family set (libseccomp compared 64 bits, the
# kernel reads 32: issue 19, item 5); then the same call under the x32 and i386 ABIs, each
# in a child of its own (a foreign architecture kills the process). One line per attempt.
RAW_SOCKETS = textwrap.dedent("""
    import ctypes, mmap, os
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    L = ctypes.c_long
    FAMILIES = {"unix": 1, "inet": 2, "inet6": 10, "netlink": 16, "packet": 17,
                "alg": 38, "vsock": 40}
    made = []
    for name, family in FAMILIES.items():
        for high in (0, 1 << 32):
            ctypes.set_errno(0)
            fd = libc.syscall(41, L(high | family), L(1), L(0))
            print("socket", name, bool(high), fd, ctypes.get_errno())
            pair = (ctypes.c_int * 2)()
            ctypes.set_errno(0)
            done = libc.syscall(53, L(high | family), L(1), L(0), pair)
            print("socketpair", name, bool(high), done, ctypes.get_errno())
            made += [f"socket {name} {bool(high)}"] * (fd >= 0)
            made += [f"socketpair {name} {bool(high)}"] * (done >= 0)
    print("io_uring_setup", libc.syscall(425, L(8), None), ctypes.get_errno())

    def child(attempt):
        pid = os.fork()
        if pid == 0:
            try:
                result = attempt()
                os.write(1, f"made {result}\\n".encode())
            finally:
                os._exit(0)
        return os.waitpid(pid, 0)[1]

    x32 = lambda: libc.syscall(L(0x40000000 | 41), L(1), L(1), L(0))
    # i386: socket (359) through int 0x80; rbx is callee-saved, so pushed and popped
    code = bytes([0x53, 0xB8, 0x67, 0x01, 0, 0, 0xBB, 1, 0, 0, 0, 0xB9, 1, 0, 0, 0,
                  0xBA, 0, 0, 0, 0, 0xCD, 0x80, 0x5B, 0xC3])
    page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    i386 = ctypes.CFUNCTYPE(ctypes.c_int)(address)
    for name, attempt in (("x32", x32), ("i386", i386)):
        status = child(attempt)
        print(name, "signal" if os.WIFSIGNALED(status) else "exit",
              os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status))
    print("sockets made:", made)
    """)

# Root-only kernel files (the program is uid 0 outside its namespace when root runs the
# sandbox) and PID 1's mount table, read from inside (issue 19, item 7).
ROOT_ONLY_FILES = ("kpageflags", "kpagecount", "kpagecgroup", "timer_list", "slabinfo",
                   "vmallocinfo", "pagetypeinfo")
READS_KERNEL_FILES = textwrap.dedent(f"""
    import os, stat
    named = ["/proc/" + name for name in {ROOT_ONLY_FILES!r}]
    found, readable, mounts = [], [], ""
    for root, dirs, files in os.walk("/proc"):
        dirs[:] = [d for d in dirs if not d.isdigit() and d not in ("self", "thread-self")]
        for name in files:
            path = os.path.join(root, name)
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISREG(mode) and not mode & 0o004 and path not in named:
                found.append(path)
    for path in named + found:
        try:
            with open(path, "rb") as handle:
                data = handle.read(4096)
            print("READ" if data else "empty", path, len(data))
            # the sandbox's own network namespace has its own (tcp_fastopen_key...)
            readable += [path] * bool(data and not path.startswith("/proc/sys/net/"))
        except OSError as exc:
            print("refused", path, exc.strerror)
    for path in ("/proc/self/mountinfo", "/proc/1/mountinfo"):
        try:
            text = open(path).read()
            mounts += text
            print("MOUNTS", path, text.replace("\\n", " | "))
        except OSError as exc:
            print("refused", path, exc.strerror)
    print("readable:", readable)
    print("project in mountinfo:", {str(PROJECT_FILE.parent)!r} in mounts)
    """)

# Everything a process with PID 1's uid may try on it (issue 19, item 8): signals (to pid
# 1, to the process group, with the upper 32 bits set), its resource limits, scheduling
# policy, nice value and OOM score. The program ignores the signals itself, since kill(0)
# reaches it too. PID 1's nice value and policy are read back at the end.
ATTACKS_PID_ONE = textwrap.dedent("""
    import ctypes, os, resource, signal, time
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    L = ctypes.c_long
    SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT,
               signal.SIGUSR1, signal.SIGUSR2, signal.SIGPIPE, signal.SIGTSTP,
               signal.SIGTTIN, signal.SIGTTOU, signal.SIGXCPU, signal.SIGXFSZ,
               signal.SIGALRM, signal.SIGSTOP, signal.SIGVTALRM, signal.SIGPROF]
    for sig in SIGNALS:
        if sig != signal.SIGSTOP:
            signal.signal(sig, signal.SIG_IGN)

    allowed = []

    def attempt(name, action):
        try:
            action()
            print("ALLOWED", name)
            allowed.append(name)
        except OSError as exc:
            print("refused", name, exc.strerror)

    def raw(name, number, *args):
        ctypes.set_errno(0)
        result = libc.syscall(L(number), *[L(a) for a in args])
        print("ALLOWED" if result >= 0 else "refused", name, ctypes.get_errno())
        allowed.extend([name] * (result >= 0))

    for sig in SIGNALS:
        attempt(f"kill 1 {sig.name}", lambda: os.kill(1, sig))
        raw(f"kill high 1 {sig.name}", 62, (1 << 32) | 1, sig)
        raw(f"tgkill 1 {sig.name}", 234, 1, 1, sig)
    for sig in SIGNALS:
        if sig != signal.SIGSTOP:  # the program's own group: it ignores these itself
            os.kill(0, sig)
    raw("pidfd_open 1", 434, 1, 0)
    try:   # a pidfd without pidfd_open: /proc/1 opened as a directory (issue 27)
        pidfd = os.open("/proc/1", os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        print("no /proc/1 descriptor", exc.strerror)
    else:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGUSR1):
            raw(f"pidfd_send_signal /proc/1 {sig.name}", 424, pidfd, sig, 0, 0)
        raw("pidfd_getfd /proc/1", 438, pidfd, 0, 0)
        os.close(pidfd)
    attempt("prlimit cpu", lambda: resource.prlimit(1, resource.RLIMIT_CPU, (1, 1)))
    attempt("prlimit nofile", lambda: resource.prlimit(1, resource.RLIMIT_NOFILE, (3, 3)))
    attempt("prlimit as", lambda: resource.prlimit(1, resource.RLIMIT_AS, (1 << 20,) * 2))
    limit = (ctypes.c_ulong * 2)(1, 1)
    raw("prlimit high", 302, (1 << 32) | 1, resource.RLIMIT_CPU, ctypes.addressof(limit), 0)
    attempt("sched_setscheduler", lambda: os.sched_setscheduler(
        1, os.SCHED_IDLE, os.sched_param(0)))
    attempt("sched_setparam", lambda: os.sched_setparam(1, os.sched_param(0)))
    attempt("sched_setaffinity", lambda: os.sched_setaffinity(1, {0}))
    attempt("setpriority pid", lambda: os.setpriority(os.PRIO_PROCESS, 1, 19))
    attempt("setpriority group", lambda: os.setpriority(os.PRIO_PGRP, 0, 19))
    attempt("setpriority user", lambda: os.setpriority(os.PRIO_USER, 0, 19))
    raw("ioprio_set", 251, 1, 1, (3 << 13))
    for path in ("/proc/1/oom_score_adj", "/proc/1/task/1/oom_score_adj",
                 "/proc/1/oom_adj", "/proc/1/autogroup", "/proc/1/timerslack_ns"):
        def write(path=path):
            with open(path, "w") as handle:
                handle.write("15" if "oom_adj" in path and "score" not in path
                             else "1000" if "oom" in path else "19")
        attempt("write " + path, write)
    # the program's own process keeps what it may need
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    os.nice(1)
    os.sched_setaffinity(0, os.sched_getaffinity(0))
    print("self ok", resource.getrlimit(resource.RLIMIT_NOFILE)[0], os.getpriority(
        os.PRIO_PROCESS, 0))
    time.sleep(0.3)
    with open("/proc/1/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    print("pid1 nice", fields[16], "policy", fields[38], "state", fields[0])
    with open("/proc/1/status") as handle:
        print("pid1 ignores", [line.split()[1] for line in handle
                               if line.startswith("SigIgn")][0])
    print("allowed:", allowed)
    """)
