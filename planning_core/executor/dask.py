"""The Dask executor: tasks on a ``dask.distributed`` cluster (``pip install planning-core[dask]``).

Where the cluster comes from (``--scheduler``, ``--cluster``):

* ``local:N`` -- a ``LocalCluster`` of N single-threaded worker processes, started here and
  stopped at the end (the scorers are CPU-bound Python: one thread per process);
* ``tcp://HOST:PORT`` (or any address Dask accepts) -- an existing scheduler, e.g. one
  started by ``dask scheduler`` with ``dask worker`` processes on other machines;
* a path ending in ``.json`` -- a scheduler file, as written by ``dask scheduler
  --scheduler-file`` or by a ``dask-jobqueue`` cluster on Slurm/PBS/SGE;
* ``--cluster slurm|pbs|sge`` -- a ``dask-jobqueue`` cluster started here, whose workers are
  batch jobs (:mod:`planning_core.executor.jobqueue`).

**Chunks, not one task per item.** Dask's cost per task is serial: about 4 ms of CPU in the
one client and the one scheduler at 1-2 worker threads, whatever the number of workers
(``benchmarks/results/executor_scaling.md``). So items go to the workers in chunks, one
Dask task each, sized by guided self-scheduling (Polychronopoulos & Kuck 1987): a chunk is
at most ``remaining / (CHUNKS_PER_THREAD x threads)`` items, so the tail is balanced and a
run has a small multiple of the workers' count of tasks, and at least enough items to take
``target_chunk_s`` of worker time at the item cost measured so far (the first chunks are
single items, to measure it), so the serial per-task cost stays a small fraction of the
work however large the run. At most ``WINDOW_PER_THREAD`` chunks per worker thread are in
flight, so a million-item run neither floods the scheduler nor holds every item in memory;
the window follows the cluster as workers come and go.

**Results off the scheduler.** The client fetches each chunk's results from the worker that
holds them (``direct_to_workers``), the moment the chunk finishes, so result bytes never pass
through the scheduler and a worker that dies afterwards cannot take a finished result with
it. A client that cannot reach the workers (a firewall between a login node and compute
nodes) sets ``PLANNING_CORE_DASK_DIRECT=0`` to fetch through the scheduler.

**Failures.** A task whose worker dies is rescheduled by Dask on another worker; after the
scheduler's ``allowed-failures`` deaths it fails with ``KilledWorker``. Dask blames every
task that was on the dying worker, so the items of such chunks are run once more at the end
of the run, one at a time, and only one that kills its worker again alone is yielded as
(``worker-died``). An item whose function raises is a :class:`TaskFailed` (``error``) of
its own; the rest of its chunk is unaffected (a result that cannot be pickled fails its
whole chunk, each item as ``error``).

**A cluster that cannot work fails loudly.** Each worker is probed when it joins: one that
cannot import ``planning_core`` (it would die unpickling the first task, and a cluster of
such workers waits forever) raises :class:`ExecutorUnavailable` naming it. No worker for
``no_workers_timeout`` seconds (the only worker died, Slurm ended the jobs at their
walltime and none replaced them) raises :class:`ExecutorLost`; so does losing the
scheduler. Rows written so far are kept in both cases, and a rerun resumes.
"""
from __future__ import annotations

import logging
import os
import time
from collections import deque
from typing import Any, Callable, Iterator, Sequence

from planning_core.executor.base import Executor, ExecutorLost, ExecutorUnavailable, TaskFailed

__all__ = ["DaskExecutor", "ChunkSizer", "NO_WORKERS_TIMEOUT_S"]

CONNECT_TIMEOUT_S = 20
# chunks in flight per worker thread: one running, one queued behind it to hide the round trip
WINDOW_PER_THREAD = 2
# guided self-scheduling: a chunk is at most remaining / (CHUNKS_PER_THREAD * threads) items
CHUNKS_PER_THREAD = 4
# worker time a chunk should take: enough that the client's and the scheduler's serial cost
# per task (SCHEDULER_S_PER_TASK, measured) stays under MAX_SERIAL_SHARE of the cluster's
# work, and never under MIN_CHUNK_S
MIN_CHUNK_S = 0.5
SCHEDULER_S_PER_TASK = 0.005
MAX_SERIAL_SHARE = 0.1
# no chunk carries less work than this, balance or not: below it the per-task cost
# (SCHEDULER_S_PER_TASK) would be over a tenth of the work, and a chunk this short cannot
# leave the other workers idle for long
FLOOR_CHUNK_S = 0.05
# no worker for this long ends the run (ExecutorLost)
NO_WORKERS_TIMEOUT_S = 300.0
# how often the workers are looked at (their number, new ones probed, none left)
CHECK_EVERY_S = 1.0
# what a joining worker must be able to run: it imports the package the tasks come from.
# Sent as text to the built-in eval, which every worker can unpickle (a function of
# planning_core cannot be: unpickling it is what kills a worker without the package).
_PROBE = "__import__('planning_core.executor.base').__name__"


_SCHEDULER_FILE_BYTES = 1 << 20     # a scheduler file is a few hundred bytes


def _read_small(path: str) -> bytes:
    """The bytes of a scheduler file: a regular file only, opened without blocking (a FIFO
    blocked ``open()`` forever), at most :data:`_SCHEDULER_FILE_BYTES` (more is refused).
    The base layer's own small copy of ``planning_core.pddl.files``' checks (executors
    sit below the PDDL layer). OS failures raise ``OSError``."""
    import os
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with open(fd, "rb", buffering=0) as f:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else
                    "a directory" if stat.S_ISDIR(mode) else "not a regular file")
            raise ExecutorUnavailable(f"is {kind}, not a regular file; expected a Dask "
                                      "scheduler file", file=path)
        data = f.read(_SCHEDULER_FILE_BYTES + 1)
    if len(data) > _SCHEDULER_FILE_BYTES:
        raise ExecutorUnavailable(f"larger than {_SCHEDULER_FILE_BYTES >> 20} MB; not a Dask "
                                  "scheduler file", file=path)
    return data


def _check_scheduler_file(path: str, tries: int = 10, pause_s: float = 0.05) -> None:
    """Raise ExecutorUnavailable unless ``path`` holds a JSON object with a string
    ``address``.  distributed raised AssertionError or TypeError for such a file (exit 4,
    "internal error"); a scheduler still writing it gets a few retries, as distributed
    gives it."""
    import json

    from planning_core import safe_json

    problem = ""
    for attempt in range(tries):
        if attempt:
            time.sleep(pause_s)
        try:
            info = safe_json.loads(_read_small(path))
        except OSError as err:
            raise ExecutorUnavailable(f"cannot read: {err.strerror}", file=path) from None
        except json.JSONDecodeError as err:
            problem = f"not JSON ({err.msg})"
            continue
        if isinstance(info, dict) and isinstance(info.get("address"), str):
            return
        problem = "no \"address\" string in it"
    raise ExecutorUnavailable(f"not a Dask scheduler file: {problem} (dask scheduler "
                              "--scheduler-file writes one)", file=path)


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise ExecutorUnavailable("--executor dask needs Dask: pip install "
                                  "'planning-core[dask]'") from None
    return distributed


def _call_chunk(fn: Callable, context: Any, chunk: Sequence) -> tuple[list, float]:
    """One Dask task: ``fn(context, item)`` for every item of ``chunk``; the results (a
    :class:`TaskFailed` for an item whose ``fn`` raised) and the seconds the chunk took
    (the item cost that sizes the next chunks)."""
    start = time.perf_counter()
    results: list = []
    for item in chunk:
        try:
            results.append(fn(context, item))
        except Exception as err:  # noqa: BLE001 - one item never fails its chunk
            results.append(TaskFailed("error", f"{type(err).__name__}: {err}"))
    return results, time.perf_counter() - start


class ChunkSizer:
    """How many items the next chunk gets: enough to take ``target_s(threads)`` at the
    measured item cost, but no more than guided self-scheduling allows (``remaining /
    (CHUNKS_PER_THREAD * threads)``, so the tail is balanced), and never less than
    ``FLOOR_CHUNK_S`` of work (cheap items are not sent one by one for balance's sake). One
    item while nothing is measured."""

    def __init__(self) -> None:
        self.cost: float | None = None    # seconds per item on a worker, smoothed

    def observe(self, items: int, seconds: float) -> None:
        if items < 1:
            return
        per_item = max(seconds, 0.0) / items
        self.cost = per_item if self.cost is None else 0.7 * self.cost + 0.3 * per_item

    @staticmethod
    def target_s(threads: int) -> float:
        """Seconds of work per chunk: the serial cost of one task per chunk, spread over
        ``threads`` busy threads, stays under ``MAX_SERIAL_SHARE`` of the time."""
        return max(MIN_CHUNK_S, threads * SCHEDULER_S_PER_TASK / MAX_SERIAL_SHARE)

    def size(self, remaining: int, threads: int) -> int:
        if remaining < 1:
            return 0
        threads = max(1, threads)
        guided = max(1, -(-remaining // (CHUNKS_PER_THREAD * threads)))
        if self.cost is None:
            return 1
        cost = max(self.cost, 1e-7)
        wanted = max(1, int(self.target_s(threads) / cost))
        floor = max(1, int(FLOOR_CHUNK_S / cost))
        return min(remaining, max(min(wanted, guided), floor))


class _Watch:
    """The workers as the run sees them: how many threads, new ones probed, none for too
    long. Looked at no more than once per ``CHECK_EVERY_S``."""

    def __init__(self, executor: "DaskExecutor", timeout: float) -> None:
        self.executor = executor
        self.timeout = timeout
        self.threads = 0
        self.known: set[str] = set()
        self.last_seen = time.monotonic()
        self.next_look = 0.0

    def look(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now < self.next_look:
            return
        self.next_look = now + CHECK_EVERY_S
        workers = self.executor._worker_threads()
        new = [address for address in workers if address not in self.known]
        if new:
            self.known.update(self.executor._probe(new))
        self.threads = sum(workers.values())
        if workers:
            self.last_seen = now
        elif now - self.last_seen > self.timeout:
            raise ExecutorLost(
                f"no Dask workers for {now - self.last_seen:.0f} s at "
                f"{self.executor.where()} (the workers died or ended, e.g. at a Slurm "
                "walltime, and none replaced them; workers that join and leave at once "
                "may lack planning_core: see their logs); rows written so far are kept: "
                "rerun to resume")


def _spawn_environ() -> dict[str, str | None]:
    """This process's values of the variables a Dask nanny writes into ``os.environ`` of
    the process that starts its workers (``distributed.nanny.pre-spawn-environ`` plus
    ``PYTHONHASHSEED``, set to 6640 before every worker spawn), to put back when the
    LocalCluster closes: otherwise every later child of this process (Fast Downward, K*,
    a test's subprocess) inherits a fixed hash seed and Dask's malloc and thread settings."""
    import dask

    names = set(dask.config.get("distributed.nanny.pre-spawn-environ", {}) or {})
    names |= {"PYTHONHASHSEED", "__DASK_PARENT_PID"}
    return {name: os.environ.get(name) for name in names}


def _restore_environ(saved: dict[str, str | None]) -> None:
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


class DaskExecutor(Executor):
    """Run tasks through a ``distributed.Client`` (see the module docstring for addresses)."""

    name = "dask"

    def __init__(self, scheduler: str | None = None, *, connect_timeout: float =
                 CONNECT_TIMEOUT_S, no_workers_timeout: float = NO_WORKERS_TIMEOUT_S,
                 cluster: Any = None) -> None:
        distributed = _import_distributed()
        self.scheduler = scheduler or ""
        self.no_workers_timeout = no_workers_timeout
        self._cluster = cluster
        self._cluster_name = None if cluster is None else type(cluster).__name__
        direct = os.environ.get("PLANNING_CORE_DASK_DIRECT", "1") != "0"
        try:
            if cluster is not None:
                self.client = distributed.Client(cluster, timeout=connect_timeout,
                                                 direct_to_workers=direct)
            elif self.scheduler.startswith("local:"):
                count = self.scheduler.partition(":")[2]
                if not count.isdigit() or int(count) < 1:
                    raise ExecutorUnavailable(f"--scheduler {scheduler}: expected local:N "
                                              "with N >= 1 workers")
                self._environ = _spawn_environ()
                self._cluster = distributed.LocalCluster(
                    n_workers=int(count), threads_per_worker=1, processes=True,
                    dashboard_address=":0", silence_logs=logging.CRITICAL)
                self._cluster_name = "a LocalCluster"
                self.client = distributed.Client(self._cluster, timeout=connect_timeout,
                                                 direct_to_workers=direct)
            elif self.scheduler.endswith(".json"):
                if not os.path.exists(self.scheduler):
                    raise ExecutorUnavailable("no such scheduler file", file=self.scheduler)
                _check_scheduler_file(self.scheduler)
                self.client = distributed.Client(scheduler_file=self.scheduler,
                                                 timeout=connect_timeout,
                                                 direct_to_workers=direct)
            else:
                self.client = distributed.Client(self.scheduler, timeout=connect_timeout,
                                                 direct_to_workers=direct)
        except ExecutorUnavailable:
            self.close()
            raise
        except (OSError, TimeoutError, ValueError, RuntimeError) as err:
            # RuntimeError: a LocalCluster whose workers failed to start (e.g. timed out)
            self.close()
            raise ExecutorUnavailable(f"cannot reach the Dask scheduler at {self.where()}: "
                                      f"{err}") from None
        self.dashboard_link = self._dashboard()
        try:   # a worker that cannot run our tasks is reported now, before any work
            threads = self._worker_threads()
            if threads:
                self._probe(list(threads))
        except (OSError, TimeoutError):
            pass   # a lost scheduler surfaces in run()
        except ExecutorUnavailable:
            self.close()
            raise

    def where(self) -> str:
        if self._cluster_name == "a LocalCluster":
            return "a LocalCluster"
        if self._cluster_name:
            return f"a {self._cluster_name}"
        return self.scheduler

    def _dashboard(self) -> str | None:
        try:
            link = self.client.dashboard_link
        except Exception:  # noqa: BLE001 - no dashboard (bokeh not installed) is fine
            return None
        return link or None

    def _worker_threads(self) -> dict[str, int]:
        """Worker address -> threads, as the scheduler knows them now (a small message,
        unlike ``scheduler_info``, which carries every worker's metrics)."""
        return {address: int(threads) for address, threads in self.client.nthreads().items()}

    def _probe(self, addresses: list[str]) -> set[str]:
        """The workers of ``addresses`` that answered the probe; raises
        :class:`ExecutorUnavailable` when one cannot import planning_core. A worker that did
        not answer (it died or left meanwhile: a connection error) is probed again when it
        is seen next."""
        try:
            answers = self.client.run(eval, _PROBE, workers=addresses, on_error="return")
        except (OSError, TimeoutError):
            raise
        except Exception:  # noqa: BLE001 - a worker gone between listing and probing
            return set()
        bad = {address: answer for address, answer in answers.items()
               if isinstance(answer, ImportError)}
        if bad:
            address, answer = sorted(bad.items())[0]
            raise ExecutorUnavailable(
                f"{len(bad)} Dask worker(s) cannot import planning_core (e.g. {address}: "
                f"{type(answer).__name__}: {answer}): install planning-core, the same "
                "version as here, in the environment the workers run in")
        return {address for address, answer in answers.items()
                if not isinstance(answer, BaseException)}

    @property
    def workers(self) -> int:
        """Worker threads the scheduler knows now (at least 1)."""
        try:
            return max(1, sum(self._worker_threads().values()))
        except Exception:  # noqa: BLE001 - a lost scheduler surfaces in run()
            return 1

    def describe(self) -> str:
        try:
            threads = sum(self._worker_threads().values())
        except Exception:  # noqa: BLE001
            threads = 0
        count = f"{threads} worker thread(s)" if threads else \
            f"no workers yet (waiting up to {self.no_workers_timeout:.0f} s for one)"
        line = f"dask executor on {self.where()}, {count}"
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
        cluster, self._cluster = getattr(self, "_cluster", None), None
        if cluster is not None:
            try:
                cluster.close()
            except Exception:  # noqa: BLE001
                pass
        environ, self._environ = getattr(self, "_environ", None), None
        if environ is not None:
            _restore_environ(environ)

    def run(self, fn: Callable, context: Any, items: Sequence) -> Iterator[tuple[int, Any]]:
        distributed = _import_distributed()
        from asyncio import CancelledError

        from distributed import KilledWorker
        from distributed.client import FutureCancelledError

        client = self.client
        if client is None:
            raise ExecutorLost("the Dask client is closed")
        token = os.urandom(6).hex()
        name = getattr(fn, "__name__", "task")
        attempt = 0
        chunks: dict[str, list[int]] = {}   # key of a task in flight -> its items' indices
        todo = deque(range(len(items)))
        sizer = ChunkSizer()
        watch = _Watch(self, self.no_workers_timeout)
        queue = None

        def submit(indices: list[int]) -> None:
            nonlocal attempt
            attempt += 1   # a fresh key per submission: a retried chunk is a new task
            fut = client.submit(_call_chunk, fn, context, [items[i] for i in indices],
                                key=f"{name}-{token}-{attempt}", pure=False)
            chunks[fut.key] = indices
            queue.add(fut)

        def fill() -> None:
            threads = max(1, watch.threads)
            while todo and len(chunks) < WINDOW_PER_THREAD * threads:
                size = sizer.size(len(todo), threads)
                submit([todo.popleft() for _ in range(size)])

        def outcome(fut, value):
            """``(results, seconds)``, a TaskFailed for the whole chunk, or None for
            KilledWorker."""
            status = fut.status
            if status == "error":   # value is (type, exception, traceback)
                err = value[1] if isinstance(value, tuple) else value
                if isinstance(err, KilledWorker):
                    return None
                return TaskFailed("error", f"{type(err).__name__}: {err}")
            if status == "cancelled" or isinstance(value, (CancelledError,
                                                           FutureCancelledError)):
                # the scheduler dropped it (stopped, restarted, or the connection lost)
                raise ExecutorLost(f"the Dask scheduler at {self.where()} dropped a task "
                                   "(was it stopped or restarted?); rows written so far "
                                   "are kept: rerun to resume")
            return value   # finished (its status may read "lost" by now: the value is here)

        def ready():
            """The finished chunks, waiting for one while watching the workers."""
            while True:
                batch = queue.next_batch(block=False)
                if batch:
                    return batch
                watch.look()
                condition = queue.thread_condition
                with condition:   # finished chunks are queued under this lock: no lost wake
                    if not queue.has_ready():
                        condition.wait(0.1)

        # KilledWorker blames every task that sat on the dying worker, so a task that kills
        # workers takes its neighbours down with it; those items are run again at the end,
        # alone on the cluster, and only one that still kills its worker alone is given up
        suspects: list[int] = []
        try:
            # with_results: each result is fetched the moment its chunk finishes
            queue = distributed.as_completed(loop=client.loop, with_results=True,
                                             raise_errors=False)
            watch.look(force=True)
            fill()
            while chunks:
                done: list[tuple[int, Any]] = []
                for fut, value in ready():
                    indices = chunks.pop(fut.key)
                    result = outcome(fut, value)
                    fut.release()
                    if result is None:
                        suspects.extend(indices)
                    elif isinstance(result, TaskFailed):
                        done.extend((index, result) for index in indices)
                    else:
                        results, seconds = result
                        sizer.observe(len(indices), seconds)
                        done.extend(zip(indices, results))
                watch.look()
                fill()   # before handing results over: the workers stay busy meanwhile
                yield from done
            for index in sorted(suspects):
                submit([index])
                result = None
                while chunks:
                    for fut, value in ready():
                        chunks.pop(fut.key)
                        result = outcome(fut, value)
                        fut.release()
                if result is None:
                    result = TaskFailed("worker-died", "the task's worker process died too "
                                        "often, also when run alone (Dask KilledWorker: a "
                                        "crash, a kill, or out of memory); given up")
                elif not isinstance(result, TaskFailed):
                    result = result[0][0]
                yield index, result
        except (OSError, TimeoutError) as err:
            raise ExecutorLost(f"lost the Dask scheduler at {self.where()}: {err}; rows "
                               "written so far are kept: rerun to resume") from None
        finally:
            for fut in list(getattr(queue, "futures", ()) or ()):
                try:
                    fut.cancel()
                except Exception:  # noqa: BLE001
                    pass
