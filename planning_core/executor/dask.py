"""The Dask executor: tasks on a ``dask.distributed`` cluster (``pip install planning-core[dask]``).

Where the cluster comes from (``--scheduler``):

* ``local:N`` -- a ``LocalCluster`` of N single-threaded worker processes, started here and
  stopped at the end (the scorers are CPU-bound Python: one thread per process);
* ``tcp://HOST:PORT`` (or any address Dask accepts) -- an existing scheduler, e.g. one
  started by ``dask scheduler`` with ``dask worker`` processes on other machines;
* a path ending in ``.json`` -- a scheduler file, as written by ``dask scheduler
  --scheduler-file`` or by a ``dask-jobqueue`` cluster on Slurm/PBS/SGE.

Tasks are submitted in a bounded window (a few per worker thread), so a million-answer run
neither floods the scheduler nor holds every future in memory; the window follows the
cluster as workers come and go. A task whose worker dies is rescheduled by Dask on another
worker; after the scheduler's ``allowed-failures`` deaths it fails with ``KilledWorker``.
Dask blames every task that was on the dying worker, so those are run once more at the end
of the run, one at a time, and only one that kills its worker again alone is yielded as
:class:`TaskFailed` (``worker-died``). Losing the scheduler raises
:class:`ExecutorLost`: what was written stays, and a rerun resumes.
"""
from __future__ import annotations

import logging
import os
from typing import Any, Callable, Iterator, Sequence

from planning_core.executor.base import Executor, ExecutorLost, ExecutorUnavailable, TaskFailed

__all__ = ["DaskExecutor"]

CONNECT_TIMEOUT_S = 20
# tasks in flight per worker thread: enough to keep every worker busy between round trips
WINDOW_PER_THREAD = 4


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise ExecutorUnavailable("--executor dask needs Dask: pip install "
                                  "'planning-core[dask]'") from None
    return distributed


def _call(fn: Callable, context: Any, item: Any) -> Any:
    return fn(context, item)


class DaskExecutor(Executor):
    """Run tasks through a ``distributed.Client`` (see the module docstring for addresses)."""

    name = "dask"

    def __init__(self, scheduler: str, *, connect_timeout: float = CONNECT_TIMEOUT_S) -> None:
        distributed = _import_distributed()
        self.scheduler = scheduler
        self._cluster = None
        try:
            if scheduler.startswith("local:"):
                count = scheduler.partition(":")[2]
                if not count.isdigit() or int(count) < 1:
                    raise ExecutorUnavailable(f"--scheduler {scheduler}: expected local:N "
                                              "with N >= 1 workers")
                self._cluster = distributed.LocalCluster(
                    n_workers=int(count), threads_per_worker=1, processes=True,
                    dashboard_address=":0", silence_logs=logging.CRITICAL)
                self.client = distributed.Client(self._cluster, timeout=connect_timeout)
            elif scheduler.endswith(".json"):
                if not os.path.exists(scheduler):
                    raise ExecutorUnavailable("no such scheduler file", file=scheduler)
                self.client = distributed.Client(scheduler_file=scheduler,
                                                 timeout=connect_timeout)
            else:
                self.client = distributed.Client(scheduler, timeout=connect_timeout)
        except ExecutorUnavailable:
            self.close()
            raise
        except (OSError, TimeoutError, ValueError, RuntimeError) as err:
            # RuntimeError: a LocalCluster whose workers failed to start (e.g. timed out)
            self.close()
            raise ExecutorUnavailable(f"cannot reach the Dask scheduler at {scheduler}: "
                                      f"{err}") from None
        self.dashboard_link = self._dashboard()

    def _dashboard(self) -> str | None:
        try:
            link = self.client.dashboard_link
        except Exception:  # noqa: BLE001 - no dashboard (bokeh not installed) is fine
            return None
        return link or None

    @property
    def workers(self) -> int:
        """Worker threads the scheduler knows now (at least 1)."""
        try:
            info = self.client.scheduler_info()
        except Exception:  # noqa: BLE001 - a lost scheduler surfaces in run()
            return 1
        threads = sum(w.get("nthreads", 1) for w in info.get("workers", {}).values())
        return max(1, threads)

    def describe(self) -> str:
        where = "a LocalCluster" if self._cluster is not None else self.scheduler
        line = f"dask executor on {where}, {self.workers} worker thread(s)"
        if self.dashboard_link:
            line += f"; dashboard {self.dashboard_link}"
        return line

    def close(self) -> None:
        client, self.client = getattr(self, "client", None), None
        if client is not None:
            try:
                client.close()
            except Exception:  # noqa: BLE001 - closing a lost connection
                pass
        cluster, self._cluster = self._cluster, None
        if cluster is not None:
            try:
                cluster.close()
            except Exception:  # noqa: BLE001
                pass

    def run(self, fn: Callable, context: Any, items: Sequence) -> Iterator[tuple[int, Any]]:
        distributed = _import_distributed()
        from asyncio import CancelledError

        from distributed import KilledWorker
        from distributed.client import FutureCancelledError

        client = self.client
        if client is None:
            raise ExecutorLost("the Dask client is closed")
        token = os.urandom(6).hex()
        attempt = 0
        position: dict[str, int] = {}
        next_index = 0

        def submit(queue, index: int) -> None:
            nonlocal attempt
            attempt += 1   # a fresh key per submission: a retried task is a new task
            key = f"{getattr(fn, '__name__', 'task')}-{token}-{index}-{attempt}"
            fut = client.submit(_call, fn, context, items[index], key=key, pure=False)
            position[fut.key] = index
            queue.add(fut)

        def outcome(fut, value):
            """The task's result, a TaskFailed, or None for KilledWorker."""
            status = fut.status
            if status == "error":   # value is (type, exception, traceback)
                err = value[1] if isinstance(value, tuple) else value
                if isinstance(err, KilledWorker):
                    return None
                return TaskFailed("error", f"{type(err).__name__}: {err}")
            if status == "cancelled" or isinstance(value, (CancelledError,
                                                           FutureCancelledError)):
                # the scheduler dropped it (stopped, restarted, or the connection lost)
                raise ExecutorLost(f"the Dask scheduler at {self.scheduler} dropped a "
                                   "task (was it stopped or restarted?); rows written so "
                                   "far are kept: rerun to resume")
            return value   # finished (its status may read "lost" by now: the value is here)

        window = max(2, self.workers * WINDOW_PER_THREAD)
        # with_results: each result is fetched the moment its task finishes, so a worker
        # that dies afterwards cannot take a finished result with it
        queue = distributed.as_completed(loop=client.loop, with_results=True,
                                         raise_errors=False)
        # KilledWorker blames every task that sat on the dying worker, so a task that kills
        # workers takes its neighbours down with it; those are run again at the end, alone
        # on the cluster, and only a task that still kills its worker alone is given up
        suspects: list[int] = []
        try:
            while next_index < len(items) and next_index < window:
                submit(queue, next_index)
                next_index += 1
            finished = 0
            for fut, value in queue:
                index = position.pop(fut.key)
                result = outcome(fut, value)
                fut.release()
                finished += 1
                if finished % 16 == 0:   # workers come and go (dask-jobqueue): follow them
                    window = max(2, self.workers * WINDOW_PER_THREAD)
                in_flight = next_index - finished
                while next_index < len(items) and in_flight < window:
                    submit(queue, next_index)
                    next_index += 1
                    in_flight += 1
                if result is None:
                    suspects.append(index)
                    continue
                yield index, result
            for index in suspects:
                queue = distributed.as_completed(loop=client.loop, with_results=True,
                                                 raise_errors=False)
                submit(queue, index)
                for fut, value in queue:
                    position.pop(fut.key)
                    result = outcome(fut, value)
                    fut.release()
                if result is None:
                    result = TaskFailed("worker-died", "the task's worker process died too "
                                        "often, also when run alone (Dask KilledWorker: a "
                                        "crash, a kill, or out of memory); given up")
                yield index, result
        except (OSError, TimeoutError) as err:
            raise ExecutorLost(f"lost the Dask scheduler at {self.scheduler}: {err}; rows "
                               "written so far are kept: rerun to resume") from None
        finally:
            pending = list(getattr(queue, "futures", ()))
            for fut in pending:
                try:
                    fut.cancel()
                except Exception:  # noqa: BLE001
                    pass
