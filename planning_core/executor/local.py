"""The executors that need nothing installed: in this process, or a pool of local workers."""
from __future__ import annotations

import os
import signal
from collections import deque
from typing import Any, Callable, Iterator, Sequence

from planning_core.executor.base import MAX_WORKER_DEATHS, Executor, TaskFailed

TYPE_CHECKING = False   # typing.TYPE_CHECKING; the process pool (concurrent.futures,
if TYPE_CHECKING:       # multiprocessing: ~0.1 s of CPU) is imported by LocalExecutor only,
    import concurrent.futures as cf   # so a serial `acp score` or `validate --batch` skips it

__all__ = ["SerialExecutor", "LocalExecutor"]


def _failure(err: BaseException) -> TaskFailed:
    return TaskFailed("error", f"{type(err).__name__}: {err}")


class SerialExecutor(Executor):
    """Every task in this process, one after the other (no pickling, no workers)."""

    name = "serial"

    @property
    def workers(self) -> int:
        return 1

    def run(self, fn: Callable, context: Any, items: Sequence) -> Iterator[tuple[int, Any]]:
        for index, item in enumerate(items):
            try:
                result = fn(context, item)
            except Exception as err:  # noqa: BLE001 - one task never ends the run
                result = _failure(err)
            yield index, result


def _die_with_parent() -> None:
    """Pool initializer: the kernel kills this worker (SIGKILL) when the CLI process dies,
    so killing the CLI in any way ends its workers and whatever they started (the SMT
    sandbox dies with its parent too)."""
    import ctypes

    # Ctrl-C reaches the whole process group: the CLI stops the workers itself, so a
    # worker ignores SIGINT instead of printing a KeyboardInterrupt traceback of its own
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):   # not Linux: workers still end with the pool
        return
    if os.getppid() != parent:   # the CLI died before the request took effect
        os._exit(1)


def _call(fn: Callable, context: Any, item: Any) -> Any:
    return fn(context, item)


class LocalExecutor(Executor):
    """A pool of ``workers`` forked processes on this machine.

    At most ``workers`` tasks are in flight, so when a worker dies the tasks that could
    have killed it are known: they are run again one at a time in a fresh pool, and a task
    that takes its worker down ``max_worker_deaths`` times becomes ``TaskFailed`` (kind
    ``worker-died``) while the rest of the run goes on.
    """

    name = "local"

    def __init__(self, workers: int, *, max_worker_deaths: int = MAX_WORKER_DEATHS) -> None:
        if workers < 1:
            raise ValueError("workers must be >= 1")
        self._workers = workers
        self.max_worker_deaths = max_worker_deaths
        import multiprocessing   # here: a serial run (SerialExecutor) never pays for it

        self._pool: cf.ProcessPoolExecutor | None = None
        methods = multiprocessing.get_all_start_methods()
        # fork: workers start in milliseconds and inherit what the CLI already imported
        self._context = multiprocessing.get_context("fork" if "fork" in methods else None)

    @property
    def workers(self) -> int:
        return self._workers

    def _new_pool(self) -> cf.ProcessPoolExecutor:
        import concurrent.futures as cf

        self._shutdown()
        self._pool = cf.ProcessPoolExecutor(max_workers=self._workers, mp_context=self._context,
                                            initializer=_die_with_parent)
        return self._pool

    def _shutdown(self, terminate: bool = True) -> None:
        """Stop the pool and wait for its threads. Unless the run finished (``terminate``
        false), workers still alive are terminated first, so waiting is short. Waiting matters:
        a pool left with ``wait=False`` makes ``concurrent.futures``' exit hook write to a
        closed pipe when the interpreter ends, which prints a traceback after a good run."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            if terminate and process.is_alive():
                process.terminate()
        pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        self._shutdown()

    def run(self, fn: Callable, context: Any, items: Sequence) -> Iterator[tuple[int, Any]]:
        import concurrent.futures as cf
        from concurrent.futures.process import BrokenProcessPool

        todo = deque(range(len(items)))       # never run yet
        suspects: deque[int] = deque()        # were running when a worker died
        deaths: dict[int, int] = {}
        pool = self._new_pool()
        running: dict[cf.Future, int] = {}
        finished = False
        try:
            while todo or suspects or running:
                # a suspect runs alone, so a death during it is its own
                broken = False
                try:
                    if suspects and not running:
                        index = suspects[0]
                        running[pool.submit(_call, fn, context, items[index])] = index
                        suspects.popleft()
                    while not suspects and todo and len(running) < self._workers:
                        index = todo[0]
                        running[pool.submit(_call, fn, context, items[index])] = index
                        todo.popleft()
                except BrokenProcessPool:
                    # a worker died while the caller was writing rows: the index that was
                    # being submitted stays in its queue; settle the ones in flight below
                    broken = True
                done, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED) if running and \
                    not broken else (set(), set())
                for fut in done:
                    index = running.pop(fut)
                    try:
                        result = fut.result()
                    except BrokenProcessPool:
                        broken = True
                        running[fut] = index   # settled below with the others in flight
                        continue
                    except Exception as err:  # noqa: BLE001 - fn raised in the worker
                        result = _failure(err)
                    yield index, result
                if not broken:
                    continue
                victims = sorted(running.values())
                running.clear()
                if len(victims) == 1:
                    index = victims[0]
                    deaths[index] = deaths.get(index, 0) + 1
                    if deaths[index] >= self.max_worker_deaths:
                        yield index, TaskFailed(
                            "worker-died", f"the task's worker process died {deaths[index]} "
                            "times (a crash, a kill, or out of memory); given up",
                            deaths[index])
                    else:
                        suspects.append(index)
                else:
                    suspects.extend(victims)
                pool = self._new_pool()
            finished = True
        finally:
            self._shutdown(terminate=not finished)
