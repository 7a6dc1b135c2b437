"""The command-line options every batch command shares: ``--executor``, ``--scheduler``,
``--workers``, ``--cluster`` and its job settings, ``--no-workers-timeout`` (see
:mod:`planning_core.executor`), and the executor they describe."""
from __future__ import annotations

import argparse
import os
import sys

from planning_core.cli.args import positive_int, seconds

#: typing.TYPE_CHECKING, without importing typing (~2 ms of every `validate` call)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO

    from planning_core.executor import Executor

__all__ = ["add_executor_options", "executor_for", "executor_from_args"]

CLUSTERS = ("slurm", "pbs", "sge")
#: ``--executor``'s choices: :data:`planning_core.executor.factory.EXECUTORS`, spelled out so
#: that registering the options imports no executor (``validate`` is called once per plan;
#: tests/cli/test_validate_startup.py checks the two agree)
EXECUTORS = ("local", "dask")


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
    group.add_argument("--no-workers-timeout", type=seconds, default=None, metavar="S",
                       help="Dask: end the run (rows kept, rerun to resume) when the "
                            "cluster has had no worker for S seconds (default 300; 3600 "
                            "with --cluster, whose jobs may wait in the queue)")
    jobs = parser.add_argument_group(
        "Dask workers as batch jobs (--cluster; run it where jobs can be submitted, e.g. a "
        "login node; settings not given come from dask-jobqueue's jobqueue.yaml)")
    jobs.add_argument("--cluster", choices=CLUSTERS, default=None,
                      help="start a dask-jobqueue cluster on this batch system, kept at "
                           "--jobs jobs (a job that ends at its walltime is replaced); "
                           "implies --executor dask")
    jobs.add_argument("--jobs", type=positive_int, default=1, metavar="N",
                      help="--cluster: batch jobs to keep running (default 1)")
    jobs.add_argument("--queue", metavar="NAME", help="--cluster: the queue / partition")
    jobs.add_argument("--account", metavar="NAME", help="--cluster: the account to charge")
    jobs.add_argument("--walltime", metavar="HH:MM:SS", help="--cluster: each job's walltime")
    jobs.add_argument("--cores", type=positive_int, metavar="N",
                      help="--cluster: cores per job (one single-threaded worker each)")
    jobs.add_argument("--memory", metavar="SIZE", help="--cluster: memory per job, e.g. 16GB")
    jobs.add_argument("--interface", metavar="NIC",
                      help="--cluster: the network interface the jobs reach this machine "
                           "on (e.g. ib0); the scheduler listens there")


def executor_from_args(args: argparse.Namespace) -> Executor:
    """The executor the command line asks for (``ExecutorUnavailable`` when it cannot be
    had: Dask not installed, no scheduler at the address)."""
    from planning_core.executor import ExecutorUnavailable, make_executor

    cluster_kind = getattr(args, "cluster", None)
    kind = args.executor or ("dask" if args.scheduler or cluster_kind else "local")
    if kind == "local" and (args.scheduler or cluster_kind):
        raise ExecutorUnavailable(f"{'--scheduler' if args.scheduler else '--cluster'} "
                                  "needs --executor dask")
    if args.scheduler and cluster_kind:
        raise ExecutorUnavailable("give --scheduler or --cluster, not both")
    cluster = None
    if cluster_kind:
        cluster = {"kind": cluster_kind, "jobs": args.jobs}
        for name in ("queue", "account", "walltime", "cores", "memory", "interface"):
            if getattr(args, name, None) is not None:
                cluster[name] = getattr(args, name)
    else:
        given = [name for name in ("queue", "account", "walltime", "cores", "memory",
                                   "interface")
                 if getattr(args, name, None) is not None]
        if given:
            raise ExecutorUnavailable(f"--{given[0]} needs --cluster slurm|pbs|sge")
    timeout = getattr(args, "no_workers_timeout", None)
    if timeout is None and cluster_kind:
        timeout = 3600.0
    executor = make_executor(kind, workers=args.workers, scheduler=args.scheduler,
                             cluster=cluster, no_workers_timeout=timeout)
    if kind == "dask" and os.environ.get("PLANNING_CORE_DEBUG") != "1":
        _quiet_dask()
    return executor


def executor_for(args: argparse.Namespace, tasks: int | None = None,
                 stream: IO[str] | None = None) -> Executor:
    """The executor a batch command runs on: :func:`executor_from_args`, except this
    process alone when ``tasks`` says there is nothing to do (a resumed run that is done
    starts no cluster; with ``tasks`` None the executor asked for is always made, so a
    bad address is reported even then). When the work goes beyond this process, one line
    on ``stream`` (default stderr) says where (and the Dask dashboard's address)."""
    if tasks == 0:
        # imported here: the worker-process machinery (concurrent.futures.process,
        # multiprocessing) is not paid by commands that only register these options
        from planning_core.executor.local import SerialExecutor

        return SerialExecutor()
    executor = executor_from_args(args)
    if executor.name != "serial":
        print(executor.describe(), file=stream or sys.stderr)
    return executor


def _quiet_dask() -> None:
    """The Dask client logs its failed reconnects with tracebacks, and so does the event
    loop under it (``tornado.application``: a result fetch cut off when the scheduler
    goes); the command reports a lost scheduler itself (``ExecutorLost``: one message, exit
    130). Dask's logging config gives some of its loggers levels of their own, so each one
    is set."""
    import logging

    for name in ["tornado.application", *logging.root.manager.loggerDict]:
        if name in ("distributed", "tornado.application") or name.startswith("distributed."):
            logging.getLogger(name).setLevel(logging.CRITICAL)
