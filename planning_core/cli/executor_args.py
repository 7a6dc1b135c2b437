"""The command-line options every batch command shares: ``--executor``, ``--scheduler``,
``--workers`` (see :mod:`planning_core.executor`), and the executor they describe."""
from __future__ import annotations

import argparse

from planning_core.cli.args import positive_int
from planning_core.executor import Executor, ExecutorUnavailable, make_executor
from planning_core.executor.factory import EXECUTORS

__all__ = ["add_executor_options", "executor_from_args"]


def add_executor_options(parser: argparse.ArgumentParser, *, unit: str = "task") -> None:
    """Add ``--executor``, ``--scheduler`` and ``--workers`` to a batch command."""
    group = parser.add_argument_group("where the work runs")
    group.add_argument("--executor", choices=EXECUTORS, default=None,
                       help="local: worker processes on this machine (the default); dask: "
                            "a Dask cluster (pip install 'planning-core[dask]'; see "
                            "--scheduler)")
    group.add_argument("--scheduler", metavar="ADDRESS",
                       help="the Dask cluster: local:N (start a LocalCluster of N worker "
                            "processes), tcp://HOST:PORT (an existing `dask scheduler`), or a "
                            "scheduler file (*.json, e.g. from dask-jobqueue on Slurm); "
                            "implies --executor dask")
    group.add_argument("--workers", type=positive_int, default=1, metavar="N",
                       help=f"local worker processes, each working on one {unit} group at "
                            "a time (default 1: in this process); with --executor dask and "
                            "no --scheduler, the size of the LocalCluster")


def executor_from_args(args: argparse.Namespace) -> Executor:
    """The executor the command line asks for (``ExecutorUnavailable`` when it cannot be
    had: Dask not installed, no scheduler at the address)."""
    kind = args.executor or ("dask" if args.scheduler else "local")
    if kind == "local" and args.scheduler:
        raise ExecutorUnavailable("--scheduler needs --executor dask")
    return make_executor(kind, workers=args.workers, scheduler=args.scheduler)
