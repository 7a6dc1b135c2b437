"""The executor contract: tasks in, ``(index, result | TaskFailed)`` out; shared helpers."""
from __future__ import annotations

import heapq
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Iterable, Iterator, Sequence, TypeVar

from planning_core.errors import InputError, PlanningError

__all__ = ["Executor", "ExecutorLost", "ExecutorUnavailable", "TaskFailed", "in_input_order",
           "split_items", "worker_state"]

T = TypeVar("T")
R = TypeVar("R")

# A task that kills this many workers is given up (Dask's default allowed-failures is 3).
MAX_WORKER_DEATHS = 3


@dataclass(frozen=True, slots=True)
class TaskFailed:
    """A task that produced no result.

    ``kind`` is ``"worker-died"`` (its worker process died under it ``deaths`` times: a
    crash or a kill in native code, or the out-of-memory killer) or ``"error"`` (``fn``
    raised; the task functions of the batch commands catch their own errors per item, so
    this is a defect or an unpicklable result). Callers turn it into one failure row per
    item of the task, so one bad task never ends a run.
    """

    kind: str
    message: str
    deaths: int = 0


class ExecutorUnavailable(InputError):
    """The executor asked for cannot be used (its extra is not installed, a bad address,
    no scheduler answering)."""


class ExecutorLost(PlanningError):
    """The executor went away mid-run (the Dask scheduler died or cannot be reached). Rows
    written so far are kept; rerunning the command resumes."""


class Executor(ABC):
    """Runs ``fn(context, item)`` for every item; see the package docstring."""

    #: what the progress line and the results notes call it ("serial", "local", "dask")
    name: str = "executor"
    #: the Dask dashboard's address, when there is one
    dashboard_link: str | None = None

    @property
    @abstractmethod
    def workers(self) -> int:
        """How many tasks can run at once (for sizing groups)."""

    @abstractmethod
    def run(self, fn: Callable[[Any, T], R], context: Any,
            items: Sequence[T]) -> Iterator[tuple[int, R | TaskFailed]]:
        """Yield ``(index into items, result)`` for every item, in completion order."""

    def close(self) -> None:
        """Release workers and connections (idempotent)."""

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def describe(self) -> str:
        """One line for stderr: where the work runs."""
        return f"{self.name} executor, {self.workers} worker(s)"


def in_input_order(results: Iterable[tuple[int, R]], total: int | None = None
                   ) -> Iterator[tuple[int, R]]:
    """Reorder ``(index, result)`` pairs that arrive in any order into index order.

    Indices must be ``0 .. n-1`` without repeats; a result is held only until every lower
    index has been yielded. With ``total`` it checks that none is missing at the end.
    """
    waiting: list[tuple[int, int, R]] = []
    tie = 0
    next_index = 0
    for index, result in results:
        if index == next_index:
            yield index, result
            next_index += 1
            while waiting and waiting[0][0] == next_index:
                yield next_index, heapq.heappop(waiting)[2]
                next_index += 1
        else:
            tie += 1
            heapq.heappush(waiting, (index, tie, result))
    if waiting or (total is not None and next_index != total):
        raise RuntimeError(f"results missing: got {next_index} in order of {total}, "
                           f"{len(waiting)} held")


def split_items(items: Sequence[T], max_size: int) -> list[Sequence[T]]:
    """Cut ``items`` (one group that shares a problem) into pieces of at most ``max_size``,
    so that no worker holds a straggler of hundreds of answers while the others idle."""
    if max_size < 1:
        raise ValueError("max_size must be >= 1")
    if len(items) <= max_size:
        return [items]
    parts = -(-len(items) // max_size)   # as even as possible
    size = -(-len(items) // parts)
    return [items[k:k + size] for k in range(0, len(items), size)]


_STATE: dict[Hashable, Any] = {}
_STATE_LOCK = threading.Lock()


def worker_state(key: Hashable, factory: Callable[[], T]) -> T:
    """The object ``factory()`` builds, built once per process for ``key``.

    Task functions use it for what a worker keeps between tasks of one run (a scorer and
    its parsed-problem cache, a ground-truth cache): ``key`` is the run's context (a frozen,
    hashable settings object), so two runs with other settings on one long-lived Dask
    worker never share state. Only the most recent key is kept, so a worker that serves run
    after run does not grow.
    """
    with _STATE_LOCK:
        if key in _STATE:
            return _STATE[key]
    value = factory()
    with _STATE_LOCK:
        if key not in _STATE:
            _STATE.clear()
            _STATE[key] = value
        return _STATE[key]
