"""Helpers for tests that SIGKILL a batch command and resume it.

* :func:`start` runs ``planning-core ARGS`` as its own process group, so :func:`stop` can
  SIGKILL it with everything it started (worker processes, Fast Downward) at once.
* :func:`wait_for_lines` waits until a file (the journal ``OUT.pending``) holds rows.
* :class:`Opens` counts, with Linux inotify, how often any process opens each of some
  files: a spy that sees a worker read an item's files, so a test can tell an item computed
  again from one whose row was taken from the journal, without touching the command.
"""
from __future__ import annotations

import ctypes
import os
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

CLI = "import sys; from planning_core.console import main; sys.exit(main(sys.argv[1:]))"


def start(*argv: str) -> subprocess.Popen:
    """``planning-core *argv`` in a new process group, its output captured."""
    return subprocess.Popen([sys.executable, "-c", CLI, *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def stop(proc: subprocess.Popen) -> None:
    """SIGKILL the process group ``proc`` leads (the process and whatever it started)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.communicate()


def finish(proc: subprocess.Popen, timeout: float = 600) -> tuple[int, str]:
    """Wait for ``proc``; its exit code and standard error."""
    _, err = proc.communicate(timeout=timeout)
    return proc.returncode, err


def wait_for_lines(proc: subprocess.Popen, path: Path, lines: int,
                   timeout: float = 300) -> None:
    """Until ``path`` holds ``lines`` complete lines; fails if ``proc`` ends first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") >= lines:
            return
        if proc.poll() is not None:
            raise AssertionError(f"the run ended before {path} held {lines} line(s): "
                                 f"{proc.communicate()[1]}")
        time.sleep(0.02)
    stop(proc)
    raise AssertionError(f"{path} did not get {lines} line(s) in {timeout} s")


_IN_CLOSE_NOWRITE, _IN_OPEN = 0x10, 0x20
_EVENT = struct.Struct("iIII")   # wd, mask, cookie, len (then len bytes of name)


class Opens:
    """How often each of ``paths`` is opened, by any process, while the ``with`` block runs.

    Close events are watched too: the kernel merges an event into an identical unread one
    before it, and an open followed by its close is never identical, so opens one after the
    other are each counted. :meth:`take` returns the counts since the last call.
    """

    def __init__(self, paths) -> None:
        self.paths = [Path(p) for p in paths]
        self._fd = -1
        self._path_of: dict[int, Path] = {}

    def __enter__(self) -> "Opens":
        libc = ctypes.CDLL(None, use_errno=True)
        self._fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self._fd < 0:
            # e.g. fs.inotify.max_user_instances used up on a shared runner: the spy is
            # unavailable, which says nothing about the code under test
            pytest.skip(f"inotify unavailable: {os.strerror(ctypes.get_errno())}")
        for path in self.paths:
            wd = libc.inotify_add_watch(self._fd, os.fsencode(path),
                                        _IN_OPEN | _IN_CLOSE_NOWRITE)
            if wd < 0:
                code = ctypes.get_errno()
                os.close(self._fd)
                pytest.skip(f"inotify_add_watch {path}: {os.strerror(code)}")
            self._path_of[wd] = path
        return self

    def take(self) -> dict[Path, int]:
        counts = {path: 0 for path in self.paths}
        while True:
            try:
                data = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                return counts
            offset = 0
            while offset < len(data):
                wd, mask, _, length = _EVENT.unpack_from(data, offset)
                offset += _EVENT.size + length
                if mask & _IN_OPEN and wd in self._path_of:
                    counts[self._path_of[wd]] += 1

    def __exit__(self, *exc) -> None:
        os.close(self._fd)
