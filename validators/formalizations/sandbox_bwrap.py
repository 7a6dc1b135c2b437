"""The bubblewrap command line of one sandbox run, and the seccomp filter it loads.

bubblewrap (``bwrap``, Debian package ``bubblewrap``) builds the sandbox: new user, PID,
network, IPC, UTS and cgroup namespaces (``--unshare-all``, with ``--unshare-user`` made
explicit and further user namespaces disabled), every capability dropped, an empty
environment, a new session (no terminal to push input into), and death with its parent.
The file system is an empty tmpfs root, remounted read-only, into which only this is bound
read-only:

* the interpreter's executable and its standard library (the base ``site-packages`` inside
  it is covered by an empty read-only tmpfs, so no installed package is visible);
* the ``z3`` package alone, at ``/sandbox/site/z3`` (the program's ``sys.path`` gets
  ``/sandbox/site``);
* the shared libraries these need, as the dynamic loader resolves them (``ldd`` of the
  interpreter, ``libz3`` and the standard library's extension modules), file by file;
* the sandbox's first process (``sandbox_init.py``), copied (not bound) to
  ``/sandbox/init.py``, so that no mount shows the project's path.

Nothing else: no ``/etc`` (Python starts without it; ``getpwuid`` simply finds no
account), no home directory, no project file, no host socket. The writable places are a
size-limited ``/tmp`` and ``/dev/shm``. ``/proc`` is the sandbox's own, with ``/proc/sys``
read-only, root-only kernel files and PID 1's writable files covered (:func:`proc_masks`).

A small seccomp filter (compiled by libseccomp through ``pyseccomp``; docs/sandbox.md
lists every rule with the attack it stops) refuses sockets of every family and
``io_uring`` (which could create them unseen by the filter), calls that reach PID 1
(signals, resource limits, scheduling), and calls no z3 program needs that widen what a
uid-0-outside process reaches; a call under another ABI (i386, x32) kills the process.
Without a memory cgroup it also refuses ``memfd_create`` and SysV ``shmget``, whose memory
no rlimit counts.
"""
from __future__ import annotations

import errno
import functools
import glob
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["Runtime", "bwrap_command", "runtime", "seccomp_filter"]

INIT_SCRIPT = Path(__file__).with_name("sandbox_init.py")
INIT_INSIDE = "/sandbox/init.py"
SITE_INSIDE = "/sandbox/site"
WORKDIR = "/tmp/sandbox"
TOP_LEVEL_LINKS = ("/lib", "/lib32", "/lib64", "/libx32")
_PROBE = """\
import importlib.util, json, os, sys, sysconfig
spec = importlib.util.find_spec("z3")
base = {"base": sys.base_prefix, "platbase": sys.base_prefix,
        "installed_base": sys.base_prefix, "installed_platbase": sys.base_prefix}
path = lambda name: sysconfig.get_path(name, vars=base)
print(json.dumps({
    "executable": os.path.realpath(getattr(sys, "_base_executable", sys.executable)),
    "stdlib": path("stdlib"), "platstdlib": path("platstdlib"),
    "site": sorted({path("purelib"), path("platlib")}),
    "dynload": os.path.join(path("platstdlib"), "lib-dynload"),
    "z3": os.path.dirname(spec.origin) if spec and spec.origin else None,
}))
"""


class Runtime:
    """What to bind for one interpreter (found once per interpreter and cached)."""

    def __init__(self, info: dict, libraries: list[str]) -> None:
        self.executable: str = info["executable"]
        self.stdlib = sorted({os.path.realpath(info["stdlib"]),
                              os.path.realpath(info["platstdlib"])})
        self.hidden_site = sorted(os.path.realpath(p) for p in info["site"]
                                  if os.path.isdir(p)
                                  and any(os.path.realpath(p).startswith(s + "/")
                                          for s in self.stdlib))
        self.z3 = os.path.realpath(info["z3"]) if info["z3"] else None
        self.libraries = libraries


def _libraries(files: list[str]) -> list[str]:
    """Shared libraries that ``files`` need, as ``ldd`` (the dynamic loader) resolves them."""
    ldd = shutil.which("ldd")
    if ldd is None:
        raise OSError("ldd (libc-bin) not found: cannot tell which libraries to bind")
    found = set()
    for start in range(0, len(files), 64):
        done = subprocess.run([ldd, *files[start:start + 64]], capture_output=True, text=True,
                              timeout=60, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
        for line in done.stdout.splitlines():
            for word in line.split():
                if word.startswith("/") and not word.endswith(":") and os.path.exists(word):
                    found.add(word)
    return sorted(found - set(files))


@functools.lru_cache(maxsize=4)
def runtime(python: str) -> Runtime:
    """The runtime of ``python``: its real executable, standard library, z3, libraries."""
    done = subprocess.run([python, "-I", "-c", _PROBE], capture_output=True, text=True,
                          timeout=60, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
    if done.returncode != 0:
        raise OSError(f"cannot inspect {python}: {done.stderr.strip()[-300:]}")
    info = json.loads(done.stdout)
    files = [info["executable"], *sorted(glob.glob(os.path.join(info["dynload"], "*.so")))]
    if info["z3"]:
        files += sorted(glob.glob(os.path.join(info["z3"], "lib", "*.so*")))
    return Runtime(info, _libraries(files))


# Refused outright (EPERM): no z3 program needs them, and each widens what a process that
# is uid 0 outside its namespace reaches. io_uring could also create sockets past the
# socket rule; ioprio_set could lower PID 1's I/O priority.
REFUSED = ("io_uring_setup", "io_uring_enter", "io_uring_register", "keyctl", "add_key",
           "request_key", "bpf", "perf_event_open", "userfaultfd", "kexec_load",
           "kexec_file_load", "init_module", "finit_module", "delete_module", "acct",
           "swapon", "swapoff", "syslog", "mount", "umount2", "pivot_root", "setns",
           "unshare", "ioprio_set")
# Refused with EACCES whatever their arguments: no socket of any address family (AF_UNIX
# reaches a host socket file on a bound file system, AF_VSOCK the VM's host, which no
# namespace separates); socketcall is the 32-bit multiplexer for the same calls.
NO_SOCKETS = ("socket", "socketpair", "socketcall")
SHARED_MEMORY = ("memfd_create", "memfd_secret", "shmget")
# Allowed on the calling process only (argument 0, a pid, is 0): prlimit64 and the
# scheduler calls would otherwise reach the sandbox's PID 1, which has the same uid.
SELF_ONLY = ("prlimit64", "sched_setscheduler", "sched_setparam", "sched_setattr",
             "sched_setaffinity", "migrate_pages")
# Refused when argument 0 (a pid) is 1, the sandbox's PID 1, compared on the low 32 bits
# (the kernel reads a pid_t); PID 1 ignores the signals it does not need anyway.
NOT_TO_PID_ONE = ("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
                  "pidfd_open")
# Refused outright (EPERM): calls that act on another process through a pidfd, which the
# program gets without pidfd_open by opening /proc/1 (its argument is a descriptor, so the
# pid cannot be compared). The kernel drops the signals an init does not handle, but the
# filter should not rely on that (issue 27); pidfd_getfd would copy PID 1's descriptors.
PIDFD_CALLS = ("pidfd_send_signal", "pidfd_getfd")
LOW_32_BITS = 0xFFFF_FFFF


def _add(rules, action, name: str, *args) -> None:
    """One rule; a call this architecture does not have (``socketcall`` on x86-64, where
    32-bit and x32 calls are refused as a foreign architecture) is skipped."""
    import pyseccomp

    if pyseccomp.resolve_syscall(pyseccomp.system_arch(), name) < 0:  # none, or a pseudo-call
        return
    rules.add_rule(action, name, *args)


def seccomp_filter(block_shared_memory: bool):
    """A temporary file holding the filter as BPF, for ``bwrap --seccomp FD``.

    Every rule that compares an argument either refuses when the full 64-bit value is not
    0 (a value the kernel reads as 32 bits is non-zero there too, so nothing passes that
    should not) or compares the low 32 bits only (``MASKED_EQ``): an equality on all 64
    bits is what ``socket(1 << 32 | AF_UNIX, ...)`` slipped past (issue 19, item 5).
    A call made under another architecture (``int 0x80``, x32) kills the process.
    """
    import pyseccomp

    rules = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    try:
        rules.set_attr(pyseccomp.Attr.ACT_BADARCH, pyseccomp.KILL_PROCESS)
    except OSError:  # libseccomp before 2.4: the thread that made the call is killed
        rules.set_attr(pyseccomp.Attr.ACT_BADARCH, pyseccomp.KILL)
    for name in NO_SOCKETS:
        _add(rules, pyseccomp.ERRNO(errno.EACCES), name)
    names = list(REFUSED) + list(PIDFD_CALLS) + (list(SHARED_MEMORY) if block_shared_memory
                                                 else [])
    for name in names:
        _add(rules, pyseccomp.ERRNO(errno.EPERM), name)
    for name in SELF_ONLY:
        _add(rules, pyseccomp.ERRNO(errno.EPERM), name, pyseccomp.Arg(0, pyseccomp.NE, 0))
    # setpriority(which, who, prio): PRIO_PROCESS (0) of the caller (0) only; a process
    # group or the uid would include PID 1
    for index in (0, 1):
        _add(rules, pyseccomp.ERRNO(errno.EPERM), "setpriority",
             pyseccomp.Arg(index, pyseccomp.NE, 0))
    for name in NOT_TO_PID_ONE:
        _add(rules, pyseccomp.ERRNO(errno.EPERM), name,
             pyseccomp.Arg(0, pyseccomp.MASKED_EQ, LOW_32_BITS, 1))
    handle = tempfile.TemporaryFile()
    rules.export_bpf(handle)
    handle.flush()
    handle.seek(0)
    return handle


# Writable files of a process (owner bits only) that the program, with PID 1's uid, could
# otherwise write in /proc/1: the OOM killer's choice, autogroup nice, timer slack...
PID_ONE_FILES = ("oom_score_adj", "oom_adj", "autogroup", "sched", "timerslack_ns",
                 "coredump_filter", "clear_refs", "mountinfo", "mounts", "mountstats")
# covered by bwrap itself (irq, bus), per process, or per network namespace (sys/net: the
# sandbox's own, whose files differ from the host's)
PROC_SKIPPED = {"/proc/self", "/proc/thread-self", "/proc/irq", "/proc/bus", "/proc/sys/net"}


@functools.lru_cache(maxsize=1)
def proc_masks() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The files and directories of ``/proc`` that only their owner (root) may read, and
    PID 1's writable files: what the sandbox covers (issue 19, item 7).

    The program's processes are uid 0 outside their namespace when root runs the sandbox,
    so root-only kernel files (``kpageflags``, ``timer_list``, ``slabinfo``, ...) would be
    readable; they are found on the host's ``/proc`` (the same kernel), below the
    per-process directories, and each is covered by ``/dev/null`` (files; on a ``nodev``
    mount, so opening it is refused) or an empty read-only tmpfs (directories).
    """
    files, dirs = [], []

    def walk(path: str) -> None:
        try:
            entries = sorted(os.scandir(path), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if entry.name.isdigit() or entry.path in PROC_SKIPPED:
                continue
            try:
                if entry.is_symlink():
                    continue
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError:
                continue
            if entry.is_dir(follow_symlinks=False):
                if not mode & 0o001:
                    dirs.append(entry.path)
                else:
                    walk(entry.path)
            elif not mode & 0o004:
                files.append(entry.path)

    walk("/proc")
    own = (("/proc/1", "/proc/self"), ("/proc/1/task/1", f"/proc/self/task/{os.getpid()}"))
    for base, here in own:
        files += [f"{base}/{name}" for name in PID_ONE_FILES
                  if os.path.exists(f"{here}/{name}")]
    return tuple(files), tuple(dirs)


def _bind(source: str, dest: str) -> list[str]:
    return ["--ro-bind", source, dest]


def bwrap_command(bwrap: str, rt: Runtime, *, seccomp_fd: int, init_fd: int, status_fd: int,
                  json_fd: int, tmpfs_mb: int, config: dict) -> list[str]:
    """The full command: bwrap's options, then the sandbox's first process (copied from
    ``init_fd`` into the sandbox's root, so that no bind shows the project's path)."""
    uid = str(config["uid"])
    cmd = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
           "--new-session", "--cap-drop", "ALL", "--clearenv", "--as-pid-1",
           "--uid", uid, "--gid", uid, "--hostname", "sandbox",
           "--json-status-fd", str(json_fd), "--seccomp", str(seccomp_fd)]
    for link in TOP_LEVEL_LINKS:
        if os.path.islink(link):
            cmd += ["--symlink", os.readlink(link), link]
    cmd += _bind(rt.executable, rt.executable)
    for path in rt.stdlib:
        cmd += _bind(path, path)
    for path in rt.hidden_site:
        cmd += ["--size", "4096", "--tmpfs", path, "--remount-ro", path]
    if rt.z3:
        cmd += _bind(rt.z3, f"{SITE_INSIDE}/z3")
    for lib in rt.libraries:
        dest = os.path.join(os.path.realpath(os.path.dirname(lib)), os.path.basename(lib))
        cmd += _bind(os.path.realpath(lib), dest)
    cmd += ["--perms", "0444", "--file", str(init_fd), INIT_INSIDE]
    # bwrap covers /proc/sys only when the directory itself is writable; its files are
    # writable by owner bits, and the sandbox's uid is the caller's outside (root here)
    cmd += ["--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys"]
    files, dirs = proc_masks()
    for path in files:
        cmd += ["--ro-bind", "/dev/null", path]
    for path in dirs:
        cmd += ["--size", "4096", "--perms", "0555", "--tmpfs", path, "--remount-ro", path]
    cmd += ["--dev", "/dev",
            "--size", str(1 << 20), "--perms", "1777", "--tmpfs", "/dev/shm",
            "--remount-ro", "/dev",
            "--size", str(tmpfs_mb << 20), "--perms", "1777", "--tmpfs", "/tmp",
            "--remount-ro", "/", "--chdir", "/tmp",
            "--", rt.executable, "-I", "-S", "-B", INIT_INSIDE, json.dumps(config)]
    return cmd
