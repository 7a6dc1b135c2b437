"""The executor a name stands for."""
from __future__ import annotations

from planning_core.executor.base import Executor, ExecutorUnavailable

__all__ = ["EXECUTORS", "make_executor"]

EXECUTORS = ("local", "dask")


def make_executor(kind: str = "local", *, workers: int = 1,
                  scheduler: str | None = None) -> Executor:
    """The executor for ``kind`` (``local`` or ``dask``)."""
    if kind == "local":
        from planning_core.executor.local import LocalExecutor, SerialExecutor

        return SerialExecutor() if workers <= 1 else LocalExecutor(workers)
    if kind == "dask":
        from planning_core.executor.dask import DaskExecutor

        return DaskExecutor(scheduler or f"local:{max(1, workers)}")
    raise ExecutorUnavailable(f"unknown executor {kind!r}; expected one of "
                              f"{', '.join(EXECUTORS)}")
