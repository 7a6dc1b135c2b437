"""The sandbox's first process: writes the program, runs it under rlimits, reports how it ended.

Executed as a script (``python -I -S -B sandbox_init.py CONFIG``), never imported: it uses
the standard library only and reads no environment. With bubblewrap it is PID 1 of the
sandbox's PID namespace (``bwrap --as-pid-1``; copied to ``/sandbox/init.py``), so the
program cannot kill it and every process of the run dies when it exits (it ignores every
signal but SIGALRM, its own timer, and SIGCHLD; the seccomp filter keeps the program's
signals, limits and scheduling calls off it); in the unsafe
``rlimits`` mode it runs on the host as a child subreaper.

Its report goes to a status descriptor that only it holds (close-on-exec, so the program
never has it) and that the program cannot reach through ``/proc`` either: this process
makes itself non-dumpable, and the program has no capability to override that. That is
the out-of-band channel of issue 9, item 4: nothing the program prints or returns can pass
for a setup failure. Lines written, each one JSON object:

* ``{"setup_error": ...}`` when the program could not be started (then exit status 70);
* ``{"started": true, "notes": [...]}`` once the program's file is written, just before
  the program's process is forked: from here on, whatever happens is the program's doing;
* ``{"exit": ..., "signal": ..., "wall_killed": ..., "process_limit": ...}`` when the
  program's own process
  ended, after every other process of the run was killed and reaped (so that the caller's
  ``wait4`` rusage of the whole tree includes them all).
"""
import ctypes
import json
import os
import resource
import signal
import sys
import time

PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36


def prctl(option, value):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl({option}): {os.strerror(err)}")


def set_limits(limits):
    cpu = limits["cpu_s"]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for name in ("AS", "FSIZE", "NPROC", "NOFILE"):
        value = limits[name.lower()]
        if value is not None:
            which = getattr(resource, "RLIMIT_" + name)
            resource.setrlimit(which, (value, value))


# PID 1 keeps SIGALRM (its wall-clock limit; the handler checks the time, so one the
# program sends changes nothing) and SIGCHLD at its default (ignoring it would reap
# children unseen); SIGKILL and SIGSTOP cannot be caught (and from inside the namespace
# the kernel does not deliver them to PID 1).
KEPT_SIGNALS = (signal.SIGALRM, signal.SIGCHLD, signal.SIGKILL, signal.SIGSTOP)


def ignore_signals():
    """PID 1 ignores every signal it does not need: a program's SIGINT, SIGTERM, SIGHUP,
    SIGUSR1, ... (sent to pid 1, to its process group by ``kill(0, ...)``, or queued)
    neither kills it nor raises an exception in it (issue 19, item 8)."""
    for sig in signal.valid_signals():
        if sig not in KEPT_SIGNALS:
            try:
                signal.signal(sig, signal.SIG_IGN)
            except (OSError, ValueError):  # signals the C library reserves
                pass


def default_signals():
    """Every signal back to its default action, for the program's process."""
    for sig in signal.valid_signals():
        if sig not in (signal.SIGKILL, signal.SIGSTOP):
            try:
                signal.signal(sig, signal.SIG_DFL)
            except (OSError, ValueError):
                pass


def write_status(fd, report):
    os.write(fd, (json.dumps(report) + "\n").encode())


def run_child(config, workdir, status_fd):
    """In the forked child: limits and descriptors, then exec the program's interpreter."""
    try:
        os.chdir(workdir)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        for fd in range(3, resource.getrlimit(resource.RLIMIT_NOFILE)[0]):
            if fd != status_fd:  # close-on-exec: kept only to report a failed exec
                try:
                    os.close(fd)
                except OSError:
                    pass
        try:  # the program, not this process, is the OOM killer's first choice
            with open("/proc/self/oom_score_adj", "w") as handle:
                handle.write("1000")
        except OSError:
            pass
        set_limits(config["limits"])
        default_signals()  # an ignored signal would stay ignored across exec
        python = config["python"]
        os.execve(python, [python, "-I", "-B", "-c", config["bootstrap"]], config["env"])
    except BaseException as exc:  # exec failed: a setup failure, said out of band
        try:
            write_status(status_fd, {"setup_error": f"cannot start the program: {exc}"})
        finally:
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


def end_everything(pid_one):
    """Kill and reap every other process of the run, so their CPU time is counted.

    As PID 1 of the namespace, ``kill(-1)`` reaches every process of the run at once;
    as a subreaper (rlimits mode), orphans are re-parented here one by one.
    """
    for _ in range(1000):
        if pid_one:
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                return _drain()
            _drain()
            continue
        left = _children()
        if not left:
            return _drain()
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _drain()


def _process_count():
    return sum(1 for entry in os.listdir("/proc") if entry.isdigit())


def wait_for(child, max_processes):
    """Reap every process until ``child`` ends; its wait status, and whether the run had
    to be ended for having more than ``max_processes`` processes.

    ``max_processes`` is set only when no cgroup counts the run's processes (the kernel
    does not apply ``RLIMIT_NPROC`` to a sandbox that is uid 0 outside): then the
    namespace's processes are counted every few milliseconds, and a run with too many is
    killed whole, so a fork bomb stays within a few hundred processes of the limit.
    """
    exceeded = False
    while True:
        watching = max_processes is not None and not exceeded
        try:
            pid, status = os.waitpid(-1, os.WNOHANG if watching else 0)
        except ChildProcessError:
            return None, exceeded
        except InterruptedError:
            continue
        if pid == child:
            return status, exceeded
        if pid == 0:
            if _process_count() > max_processes + 1:  # this process is one of them
                exceeded = True
                os.kill(-1, signal.SIGKILL)
            else:
                time.sleep(0.005)


def main():
    config = json.loads(sys.argv[1])
    status_fd = config["status_fd"]
    notes = []
    try:
        if config["pid_one"]:
            ignore_signals()
        os.set_inheritable(status_fd, False)
        prctl(PR_SET_DUMPABLE, 0)
        program = sys.stdin.buffer.read()
        workdir = config["workdir"]
        if config["pid_one"]:
            os.makedirs(workdir, mode=0o700)
        else:
            prctl(PR_SET_CHILD_SUBREAPER, 1)
            notes.append("child subreaper")
        with open(os.path.join(workdir, "main.py"), "wb") as handle:
            handle.write(program)
    except BaseException as exc:
        write_status(status_fd, {"setup_error": str(exc), "notes": notes})
        os._exit(70)
    write_status(status_fd, {"started": True, "notes": notes})
    start = time.monotonic()
    child = os.fork()
    if child == 0:
        run_child(config, workdir, status_fd)
    os.close(0)
    timed_out = []

    def on_alarm(signum, frame):
        # the wall-clock limit; a SIGALRM the program sends early changes nothing
        if time.monotonic() - start >= config["wall_s"] - 0.05:
            timed_out.append(True)
            try:
                os.kill(child, signal.SIGKILL)
            except ProcessLookupError:
                pass
        else:
            signal.setitimer(signal.ITIMER_REAL, config["wall_s"] - (time.monotonic() - start))

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, config["wall_s"])
    status, too_many = wait_for(child, config.get("count_processes"))
    signal.setitimer(signal.ITIMER_REAL, 0)
    end_everything(config["pid_one"])
    write_status(status_fd, {
        "exit": os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else None,
        "signal": os.WTERMSIG(status) if status is not None and os.WIFSIGNALED(status) else None,
        "wall_killed": bool(timed_out),
        "process_limit": too_many,
    })
    os._exit(0)


if __name__ == "__main__":
    main()
