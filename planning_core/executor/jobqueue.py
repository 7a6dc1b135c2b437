"""Dask workers as batch jobs on Slurm, PBS or SGE (``--cluster slurm|pbs|sge``).

The command runs where jobs can be submitted (a login node) and starts the Dask scheduler
in its own process, as ``dask-jobqueue`` does; each job runs ``dask worker`` processes that
connect back to it. Settings come from ``dask-jobqueue``'s own configuration
(``~/.config/dask/jobqueue.yaml``, section ``jobqueue.slurm``/``pbs``/``sge``: cores,
memory, queue, account, walltime, interface, job directives, environment setup) and the
command-line flags override them one by one, so a site keeps its recipe in one file.

Each job runs one single-threaded worker process per core (``processes = cores``): the
batch work is CPU-bound Python, which threads do not share well.

Jobs end at their walltime. The cluster is kept at ``jobs`` jobs with ``adapt()``, so a job
that ends is replaced by a new one; the workers are told to leave a few minutes before the
walltime (``--lifetime``, staggered) so that they hand their work back instead of being
killed mid-task, as dask-jobqueue's documentation recommends. Work a job loses anyway is
run again elsewhere (:mod:`planning_core.executor.dask`), and a run with no workers at all
for ``--no-workers-timeout`` seconds ends with its rows kept.
"""
from __future__ import annotations

import re
from typing import Any

from planning_core.executor.base import ExecutorUnavailable

__all__ = ["JOBQUEUE_CLUSTERS", "start_jobqueue_cluster", "worker_lifetime"]

#: --cluster name -> the dask-jobqueue class
JOBQUEUE_CLUSTERS = {"slurm": "SLURMCluster", "pbs": "PBSCluster", "sge": "SGECluster"}

# workers leave this long before the walltime (and up to STAGGER earlier, so that not all
# leave at once), when the walltime is long enough for that to leave real work
_MARGIN_S = 5 * 60
_STAGGER_S = 2 * 60


def _seconds(walltime: str) -> int | None:
    """``[D-]HH:MM:SS``, ``MM:SS`` or minutes, as Slurm, PBS and SGE write walltimes."""
    match = re.fullmatch(r"(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)|(\d+)", walltime.strip())
    if match is None:
        return None
    days, hours, minutes, seconds, only_minutes = match.groups()
    if only_minutes is not None:
        return int(only_minutes) * 60
    return ((int(days or 0) * 24 + int(hours or 0)) * 60 + int(minutes)) * 60 + int(seconds)


def worker_lifetime(walltime: str | None) -> list[str]:
    """``dask worker`` options that make a worker leave before its job's walltime."""
    total = _seconds(walltime) if walltime else None
    if total is None or total < 2 * (_MARGIN_S + _STAGGER_S):
        return []
    return ["--lifetime", f"{total - _MARGIN_S}s", "--lifetime-stagger", f"{_STAGGER_S}s"]


def start_jobqueue_cluster(kind: str, *, jobs: int = 1, queue: str | None = None,
                           account: str | None = None, walltime: str | None = None,
                           cores: int | None = None, memory: str | None = None,
                           interface: str | None = None) -> Any:
    """A dask-jobqueue cluster of ``kind`` kept at ``jobs`` jobs by ``adapt()``; flags
    given override dask-jobqueue's configuration, the rest comes from it."""
    if kind not in JOBQUEUE_CLUSTERS:
        raise ExecutorUnavailable(f"unknown --cluster {kind!r}; expected one of "
                                  f"{', '.join(JOBQUEUE_CLUSTERS)}")
    try:
        import dask
        import dask_jobqueue
    except ImportError:
        raise ExecutorUnavailable("--cluster needs dask-jobqueue: pip install "
                                  "'planning-core[dask]' dask-jobqueue") from None
    options: dict[str, Any] = {k: v for k, v in {
        "queue": queue, "account": account, "walltime": walltime, "cores": cores,
        "memory": memory, "interface": interface}.items() if v is not None}
    configured = dask.config.get(f"jobqueue.{kind}", default={}) or {}
    cores_now = options.get("cores", configured.get("cores"))
    if cores_now:
        options["processes"] = int(cores_now)   # one single-threaded worker per core
    lifetime = worker_lifetime(options.get("walltime", configured.get("walltime")))
    if lifetime:
        extra = list(configured.get("worker-extra-args") or [])
        if "--lifetime" not in extra:
            options["worker_extra_args"] = extra + lifetime
    try:
        cluster = getattr(dask_jobqueue, JOBQUEUE_CLUSTERS[kind])(**options)
    except (ValueError, TypeError, KeyError) as err:
        # e.g. "You must specify how much cores and memory per job you want to use"
        raise ExecutorUnavailable(f"--cluster {kind}: {err} (set it with --cores/--memory "
                                  "or in dask-jobqueue's jobqueue.yaml)") from None
    except OSError as err:   # the scheduler's interface or port
        raise ExecutorUnavailable(f"--cluster {kind}: cannot start the scheduler: {err} "
                                  "(--interface names the network the jobs reach this "
                                  "machine on)") from None
    try:
        cluster.adapt(minimum_jobs=jobs, maximum_jobs=jobs)
    except Exception:
        cluster.close()
        raise
    return cluster
