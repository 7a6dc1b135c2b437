"""The executor contract (``planning_core.executor``) on every executor: in this process,
two local worker processes, and a Dask ``LocalCluster`` of two worker processes.

Results come back for every item (in any order; ``in_input_order`` restores the input's);
a task that raises becomes ``TaskFailed('error')``; a task that kills its worker once is run
again and succeeds; a task that always kills its worker becomes ``TaskFailed('worker-died')``
while every other task still finishes; ``worker_state`` builds once per process per key.
"""
from __future__ import annotations

import os
import uuid

import pytest

from executor_tasks import Ctx, kill_always, kill_once, square, state_probe
from planning_core.executor import TaskFailed, in_input_order, make_executor, split_items

ITEMS = list(range(12))


@pytest.fixture(scope="module")
def dask_cluster():
    """One LocalCluster for the module (starting one costs seconds of CPU). Its scheduler
    gives a task up after 2 worker deaths instead of 4, so the always-killing task costs
    fewer worker restarts."""
    pytest.importorskip("distributed")   # its config defaults load before the override
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        executor = make_executor("dask", scheduler="local:2")
    try:
        yield executor
    finally:
        executor.close()


def _executor(request):
    if request.param == "dask":
        yield request.getfixturevalue("dask_cluster")
        return
    with make_executor("local", workers=1 if request.param == "serial" else 2) as ex:
        assert ex.name == request.param
        yield ex


@pytest.fixture(params=["serial", "local", "dask"])
def executor(request):
    yield from _executor(request)


@pytest.fixture(params=["local", "dask"])
def worker_executor(request):
    """The executors whose tasks run in worker processes (a kill in the serial executor's
    one worker, the caller, ends the caller)."""
    yield from _executor(request)


def _results(executor, fn, ctx, items=ITEMS) -> dict:
    seen: dict = {}
    for index, result in executor.run(fn, ctx, items):
        assert index not in seen, f"index {index} yielded twice"
        seen[index] = result
    assert sorted(seen) == list(range(len(items)))
    return seen


def test_every_result_comes_back_and_input_order_restores_the_input(executor):
    pairs = list(executor.run(square, Ctx(), ITEMS))
    assert sorted(i for i, _ in pairs) == list(range(len(ITEMS)))
    assert list(in_input_order(pairs, total=len(ITEMS))) == [(i, i * i) for i in ITEMS]


@pytest.mark.slow
def test_a_task_that_raises_is_a_failed_task_and_the_rest_finish(executor):
    seen = _results(executor, square, Ctx(bad=5))
    failed = seen.pop(5)
    assert isinstance(failed, TaskFailed) and failed.kind == "error"
    assert "ValueError" in failed.message and "item 5 is bad" in failed.message
    assert seen == {i: i * i for i in ITEMS if i != 5}


@pytest.mark.slow
def test_a_task_that_kills_its_worker_once_is_run_again(worker_executor, tmp_path):
    seen = _results(worker_executor, kill_once, Ctx(str(tmp_path), bad=7))
    assert (tmp_path / "killed-7").exists()   # it did kill a worker
    assert seen == {i: i * i for i in ITEMS}


@pytest.mark.slow
def test_a_task_that_always_kills_its_worker_fails_alone(worker_executor, tmp_path):
    seen = _results(worker_executor, kill_always, Ctx(str(tmp_path), bad=3))
    failed = seen.pop(3)
    assert isinstance(failed, TaskFailed) and failed.kind == "worker-died"
    assert seen == {i: i * i for i in ITEMS if i != 3}
    assert len(list(tmp_path.glob("attempt-*"))) >= 2   # tried again before giving up


def test_worker_state_is_built_once_per_process_and_key(executor):
    ctx = Ctx(tag=uuid.uuid4().hex)   # a key no earlier run on these workers has seen
    seen = _results(executor, state_probe, ctx, list(range(24)))
    by_pid: dict[int, set] = {}
    for pid, builds, state_id in seen.values():
        assert builds == 1, f"state built {builds} times in process {pid}"
        by_pid.setdefault(pid, set()).add(state_id)
    assert all(len(ids) == 1 for ids in by_pid.values())
    if executor.name == "serial":
        assert set(by_pid) == {os.getpid()}
    else:
        assert os.getpid() not in by_pid
    # another key is another state: built again, once
    other = _results(executor, state_probe, Ctx(tag=uuid.uuid4().hex), [0, 1])
    assert all(builds == 1 for _, builds, _ in other.values())


def test_in_input_order_holds_results_until_their_turn_and_notices_gaps():
    assert list(in_input_order([(2, "c"), (0, "a"), (1, "b")])) == [(0, "a"), (1, "b"),
                                                                     (2, "c")]
    with pytest.raises(RuntimeError, match="missing"):
        list(in_input_order([(0, "a"), (2, "c")], total=3))
    with pytest.raises(RuntimeError, match="missing"):
        list(in_input_order([(0, "a")], total=2))


def test_split_items_cuts_evenly_and_keeps_order():
    parts = split_items(list(range(10)), 4)
    assert [len(p) for p in parts] == [4, 4, 2] or [len(p) for p in parts] == [4, 3, 3]
    assert [x for p in parts for x in p] == list(range(10))
    assert split_items([1, 2], 5) == [[1, 2]]
    with pytest.raises(ValueError):
        split_items([1], 0)


@pytest.mark.slow           # starts a LocalCluster of its own (2-4 s)
def test_a_local_cluster_leaves_the_environment_as_it_found_it(monkeypatch):
    """A Dask nanny writes PYTHONHASHSEED=6640, OMP_NUM_THREADS=1, MALLOC_TRIM_THRESHOLD_
    ... into os.environ of the process that starts its workers: after a LocalCluster every
    later child of a CLI or test process inherited them. Closing the executor puts back
    what was there."""
    pytest.importorskip("distributed")
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    before = dict(os.environ)
    executor = make_executor("dask", scheduler="local:1")
    try:
        assert os.environ.get("PYTHONHASHSEED") == "6640"     # what the nanny does
        assert sorted(r for _, r in executor.run(square, Ctx(), [1, 2])) == [1, 4]
    finally:
        executor.close()
    assert dict(os.environ) == before
