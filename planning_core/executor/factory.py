"""The executor a name stands for."""
from __future__ import annotations

from typing import Any

from planning_core.executor.base import Executor, ExecutorUnavailable

__all__ = ["EXECUTORS", "make_executor"]

EXECUTORS = ("local", "dask")


def make_executor(kind: str = "local", *, workers: int = 1, scheduler: str | None = None,
                  cluster: dict[str, Any] | None = None,
                  no_workers_timeout: float | None = None) -> Executor:
    """The executor for ``kind`` (``local`` or ``dask``). For Dask, ``cluster`` asks for a
    dask-jobqueue cluster started here (``{"kind": "slurm", "jobs": 2, "cores": 8, ...}``,
    see :func:`~planning_core.executor.jobqueue.start_jobqueue_cluster`) instead of
    ``scheduler``; ``no_workers_timeout`` is how long a run waits with no worker at all."""
    if kind == "local":
        from planning_core.executor.local import LocalExecutor, SerialExecutor

        return SerialExecutor() if workers <= 1 else LocalExecutor(workers)
    if kind == "dask":
        from planning_core.executor.dask import NO_WORKERS_TIMEOUT_S, DaskExecutor

        timeout = NO_WORKERS_TIMEOUT_S if no_workers_timeout is None else no_workers_timeout
        if cluster is not None:
            from planning_core.executor.jobqueue import start_jobqueue_cluster

            options = dict(cluster)
            started = start_jobqueue_cluster(options.pop("kind"), **options)
            return DaskExecutor(cluster=started, no_workers_timeout=timeout)
        return DaskExecutor(scheduler or f"local:{max(1, workers)}",
                            no_workers_timeout=timeout)
    raise ExecutorUnavailable(f"unknown executor {kind!r}; expected one of "
                              f"{', '.join(EXECUTORS)}")
