"""Where batch work runs: in this process, in local worker processes, or on a Dask cluster.

Every batch command (``acp score``, ``acp check-gold``, ``acp run``, ``cope check``,
``cope eval``, ``cope run``, ``validate --batch``) hands its work to one :class:`Executor`
and writes the results itself, in the one CLI process. The seam is deliberately small:

* a **task** is ``fn(context, item)``: ``fn`` a module-level function (so it can be
  pickled to another process or machine), ``context`` the run's settings (the same for
  every task; a worker builds its expensive state from it once, see
  :func:`worker_state`), ``item`` one unit of work -- for the scorers a group of answers
  that share one problem, so a worker parses and grounds each problem once;
* :meth:`Executor.run` yields ``(index, result)`` as tasks finish, where ``result`` is what
  ``fn`` returned or a :class:`TaskFailed` when the task could not produce it (it raised, or
  it took its worker down more often than ``max_worker_deaths``);
* :func:`in_input_order` turns that stream into input order for commands whose output
  follows the input file.

Three executors share those semantics (``make_executor``):

* ``serial``: everything in this process, no pickling (one worker);
* ``local``: a pool of forked worker processes on this machine, each of which dies with
  the CLI (``PR_SET_PDEATHSIG``). A worker that dies mid-task breaks the pool; the pool is
  rebuilt, the tasks that were running are run again one at a time so the one that kills
  its worker is known, and a task that kills ``max_worker_deaths`` workers becomes a
  :class:`TaskFailed` instead of ending the run;
* ``dask``: a ``dask.distributed`` cluster -- a ``LocalCluster`` of N worker processes
  started here (``local:N``), an existing scheduler (``tcp://host:port``), a scheduler
  file (``scheduler.json``, as ``dask scheduler --scheduler-file`` and ``dask-jobqueue``
  write), or batch jobs on Slurm, PBS or SGE (:mod:`.jobqueue`). Items travel in chunks
  sized from their measured cost, so Dask's serial cost per task does not grow with the
  run. Dask reschedules the task of a dead worker elsewhere itself and gives up on a task
  after the scheduler's ``allowed-failures`` worker deaths (``KilledWorker``). Dask blames
  every task that sat on the dying worker, so such items are run once more at the end, one
  at a time; only one that still kills its worker alone becomes a :class:`TaskFailed`.
  Losing the scheduler, or having no worker for a while, raises :class:`ExecutorLost`; a
  worker that cannot import planning_core raises :class:`ExecutorUnavailable`.

Callers make the row of a :class:`TaskFailed` item not final (``retry``), so a rerun
computes it again: a worker killed once says nothing about the item.

The command-line options (``--executor``, ``--scheduler``, ``--workers``, ``--cluster``
and its job settings, ``--no-workers-timeout``) are in
:mod:`planning_core.cli.executor_args`.

Limits inside a task are the task's own business (deterministic search budgets, the
subprocess limits of Fast Downward, the SMT sandbox), so they hold the same on any executor.
"""
from __future__ import annotations

from planning_core.executor.base import (
    Executor,
    ExecutorLost,
    ExecutorUnavailable,
    TaskFailed,
    in_input_order,
    split_items,
    worker_state,
)
from planning_core.executor.factory import make_executor

__all__ = ["Executor", "ExecutorLost", "ExecutorUnavailable", "TaskFailed", "in_input_order",
           "split_items", "worker_state", "make_executor"]
