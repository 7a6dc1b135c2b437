"""Task functions for the executor tests.

Dask workers are spawned processes (and, in one test, separate ``dask worker`` programs):
a task function must be importable by module name there, so the tests' tasks live in this
module (``tests/`` is on the workers' ``sys.path``: LocalCluster workers inherit it, and the
tests give ``dask worker`` processes ``PYTHONPATH``).
"""
from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from pathlib import Path

from planning_core.executor import worker_state


@dataclass(frozen=True)
class Ctx:
    """A run's context: where kill markers go, which item raises, a tag for worker_state."""

    marker_dir: str = ""
    bad: int = -1
    tag: str = "run"


def square(ctx: Ctx, item: int) -> int:
    if item == ctx.bad:
        raise ValueError(f"item {item} is bad")
    return item * item


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def kill_once(ctx: Ctx, item: int) -> int:
    """Kill the worker on the first attempt at ``ctx.bad`` (a marker file remembers the
    attempt across processes); every other attempt and item squares."""
    if item == ctx.bad:
        marker = Path(ctx.marker_dir) / f"killed-{item}"
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return item * item
        os.close(fd)
        _die()
    return item * item


def kill_always(ctx: Ctx, item: int) -> int:
    """Kill the worker every time ``ctx.bad`` is tried (counting attempts in files)."""
    if item == ctx.bad:
        Path(ctx.marker_dir, f"attempt-{os.getpid()}-{os.urandom(4).hex()}").touch()
        _die()
    return item * item


_BUILDS: dict = {}


def _build(ctx: Ctx) -> dict:
    _BUILDS[ctx] = _BUILDS.get(ctx, 0) + 1
    return {"ctx": ctx, "pid": os.getpid()}


def state_probe(ctx: Ctx, item: int) -> tuple[int, int, int]:
    """``(pid, builds of ctx's state in this process, id of the state)``."""
    state = worker_state(ctx, lambda: _build(ctx))
    assert state["ctx"] == ctx and state["pid"] == os.getpid()
    return os.getpid(), _BUILDS[ctx], id(state)


def slow_square(ctx: Ctx, item: int) -> int:
    """``item * item`` after a fifth of a second (a task that keeps a worker busy)."""
    import time

    time.sleep(0.2)
    return item * item
