"""The sandbox's first process: builds the child's world, runs the program, reports how it ended.

This file is executed as a script (``python -I -S sandbox_init.py CONFIG``) by
:mod:`planning_core.validators.formalizations.sandbox`, never imported, so it uses the standard library only
and reads no environment. It runs as root, and in namespace mode it is PID 1 of fresh PID,
mount, network, IPC and UTS namespaces made by ``unshare`` (util-linux). Its steps:

1. Read the program text from standard input (the parent closes it after writing).
2. Namespace mode only: remount ``/`` read-only and ``nosuid`` (a per-mount flag of this
   namespace's copy; the host's mount is untouched), put fresh size-limited tmpfs mounts over
   the world-writable directories (``/tmp``, ``/var/tmp``, ``/run/lock``, ``/dev/shm``), and
   over every directory that hides the Python runtime from an unprivileged user (``/root``
   when Python lives in ``/root/.pyenv``) a tmpfs into which only the runtime's directories are
   bound back. The working directory is ``/tmp/sandbox`` in the fresh ``/tmp``: it disappears
   with the namespace.
3. Fork the program's process: set the resource limits, leave every group, switch to the
   sandbox's own unused uid/gid (which drops every capability), set ``no_new_privs`` (setuid
   binaries stay unprivileged), stdin from ``/dev/null``, close every other descriptor, and
   exec ``python -I -B -c BOOTSTRAP``; the bootstrap installs an audit hook refusing sockets
   and runs ``main.py``.
4. Reap every process until the program's own process ends (or kill it when the wall-clock
   limit passes, so that its CPU time is still measured); then (outside namespace mode)
   kill whatever it left behind, and write one JSON line to the status descriptor: exit code
   or signal, CPU time and peak memory of every reaped process. In namespace mode the
   kernel kills every remaining process of the namespace when this process exits.

Setup failures are written as ``{"setup_error": ...}`` and end with exit status 70.
"""
import ctypes
import json
import os
import resource
import signal
import stat
import sys

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 32, 4096, 16384
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38
HIDDEN_WRITABLE = ("/tmp", "/var/tmp", "/run/lock", "/dev/shm")
WORKDIR = "/tmp/sandbox"

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                        ctypes.c_char_p)
_libc.prctl.argtypes = (ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                        ctypes.c_ulong)


def _encode(value):
    return None if value is None else os.fsencode(value)


def mount(source, target, fstype, flags, data=None):
    if _libc.mount(_encode(source), _encode(target), _encode(fstype), flags,
                   _encode(data)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {source} on {target}: {os.strerror(err)}")


def prctl(option, value):
    if _libc.prctl(option, value, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl({option}): {os.strerror(err)}")


def blocked_ancestor(path):
    """The outermost directory on ``path`` that an unrelated user cannot enter, or None."""
    current = "/"
    for part in path.strip("/").split("/"):
        current = os.path.join(current, part)
        mode = os.stat(current).st_mode
        if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
            return current
    return None


def build_mounts(config, notes):
    """Namespace mode: read-only root, private writable tmpfs mounts, runtime made reachable."""
    runtime = sorted({os.path.realpath(p) for p in config["runtime_paths"] if os.path.isdir(p)})
    hide = {}
    for path in runtime:
        ancestor = blocked_ancestor(path)
        if ancestor is not None:
            hide.setdefault(ancestor, "mode=0755,size=1m")
    for path in HIDDEN_WRITABLE:
        if os.path.isdir(path) and not os.path.islink(path):
            size = f"{config['tmpfs_mb']}m" if path == "/tmp" else "1m"
            hide[path] = f"mode=1777,size={size}"
    outer = [h for h in sorted(hide)
             if not any(h != o and h.startswith(o.rstrip("/") + "/") for o in hide)]
    rebind = [p for p in runtime
              if any(p == h or p.startswith(h.rstrip("/") + "/") for h in outer)]
    held = {p: os.open(p, os.O_PATH | os.O_DIRECTORY) for p in rebind}

    mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID)
    notes.append("read-only root")
    for path in outer:
        mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, hide[path])
    notes.append("private tmpfs: " + " ".join(outer))
    for path in rebind:
        os.makedirs(path, exist_ok=True)
        mount(f"/proc/self/fd/{held[path]}", path, None, MS_BIND | MS_REC)
        mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID)
        os.close(held[path])
    if rebind:
        notes.append("runtime bound back read-only: " + " ".join(rebind))
    os.makedirs(WORKDIR, mode=0o700)
    return WORKDIR


def set_limits(limits):
    cpu = limits["cpu_s"]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for name in ("AS", "FSIZE", "NPROC", "NOFILE"):
        value = limits[name.lower()]
        if value is not None:
            which = getattr(resource, "RLIMIT_" + name)
            resource.setrlimit(which, (value, value))


def run_child(config, workdir, program_path):
    """In the forked child: limits, identity, descriptors, then exec the interpreter."""
    try:
        uid = config["uid"]
        if uid is not None:
            os.chown(workdir, uid, uid)
            os.chown(program_path, uid, uid)
        os.chdir(workdir)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.closerange(3, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
        set_limits(config["limits"])
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # after setuid, which clears it
        prctl(PR_SET_NO_NEW_PRIVS, 1)
        for sig in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGXCPU):
            signal.signal(sig, signal.SIG_DFL)
        python = config["python"]
        os.execve(python, [python, "-I", "-B", "-c", config["bootstrap"]], config["env"])
    except BaseException as exc:  # anything here is a setup failure, told through stderr
        os.write(2, f"sandbox: cannot start the program: {exc}\n".encode())
    os._exit(71)


def _children():
    me = str(os.getpid())
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if fields[1].decode() == me:
                found.append(int(entry))
    return found


def _drain():
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
        except InterruptedError:
            continue


def reap(child, namespaces, uid):
    """Wait for ``child``, reaping orphans meanwhile; then end what it left; its wait status.

    In namespace mode this process is PID 1 and its exit kills the namespace, so nothing is
    waited for. Otherwise it is a child subreaper: with a sandbox uid, ``kill(-1, SIGKILL)``
    sent as that uid reaches exactly the program's processes; without one, children are
    killed until none is left (orphaned grandchildren are re-parented here one by one).
    """
    status = None
    while status is None:
        try:
            pid, st = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if pid == child:
            status = st
    if namespaces:
        return status
    if uid is not None:
        killer = os.fork()
        if killer == 0:
            try:
                os.setresuid(uid, uid, uid)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        _drain()
        return status
    for _ in range(1000):
        left = _children()
        if not left:
            break
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            pass
    _drain()
    return status


def main():
    config = json.loads(sys.argv[1])
    status_fd = config["status_fd"]
    notes = []
    try:
        program = sys.stdin.buffer.read()
        if config["namespaces"]:
            workdir = build_mounts(config, notes)
        else:
            workdir = config["workdir"]
            prctl(PR_SET_CHILD_SUBREAPER, 1)
            notes.append("child subreaper")
        program_path = os.path.join(workdir, "main.py")
        with open(program_path, "wb") as handle:
            handle.write(program)
        if config["uid"] is not None:
            notes.append(f"uid {config['uid']}")
    except BaseException as exc:
        os.write(status_fd, json.dumps({"setup_error": str(exc), "notes": notes}).encode())
        os._exit(70)
    child = os.fork()
    if child == 0:
        run_child(config, workdir, program_path)
    os.close(0)
    timed_out = []

    def on_alarm(signum, frame):  # the wall-clock limit: waitpid below then sees the kill
        timed_out.append(True)
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, config["wall_s"])
    status = reap(child, config["namespaces"], config["uid"])
    signal.setitimer(signal.ITIMER_REAL, 0)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = {
        "exit": os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else None,
        "signal": os.WTERMSIG(status) if status is not None and os.WIFSIGNALED(status) else None,
        "wall_killed": bool(timed_out),
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "maxrss_kb": usage.ru_maxrss,
        "notes": notes,
    }
    os.write(status_fd, (json.dumps(report) + "\n").encode())
    os._exit(0)


if __name__ == "__main__":
    main()
