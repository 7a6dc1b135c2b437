"""The Dask executor sends chunks, not one task per item (issue 24 item 2): Dask's cost per
task is serial (client and scheduler), so the number of tasks must not grow with the run
but stay a small multiple of the workers', sized from the measured item cost."""
from __future__ import annotations

import pytest

from executor_tasks import Ctx, square
from planning_core.executor.dask import (CHUNKS_PER_THREAD, FLOOR_CHUNK_S, MIN_CHUNK_S,
                                         ChunkSizer)


def _sizer(cost: float | None) -> ChunkSizer:
    sizer = ChunkSizer()
    if cost is not None:
        sizer.observe(10, 10 * cost)
    return sizer


def _tasks(items: int, cost: float, threads: int) -> int:
    sizer, tasks = _sizer(cost), 0
    while items:
        items -= sizer.size(items, threads)
        tasks += 1
    return tasks


def test_one_item_until_the_cost_is_measured():
    assert _sizer(None).size(10_000, 4) == 1
    assert _sizer(0.01).size(0, 4) == 0


def test_chunks_take_the_target_time_and_guided_self_scheduling_caps_them():
    # 10 ms items, 2 threads: 0.5 s is 50 items; 10,000 left allow 10,000 / 8
    assert _sizer(0.01).size(10_000, 2) == int(MIN_CHUNK_S / 0.01)
    # near the end the guided cap wins: 80 left over 2 threads -> 10 (not below the floor)
    assert _sizer(0.01).size(80, 2) == max(80 // (CHUNKS_PER_THREAD * 2),
                                           int(FLOOR_CHUNK_S / 0.01))
    # expensive items go one by one
    assert _sizer(2.0).size(1_000, 8) == 1
    # cheap items are never sent one by one for balance's sake
    assert _sizer(1e-6).size(500, 64) == 500


def test_the_number_of_tasks_does_not_grow_with_the_run_beyond_the_work_it_is():
    """Ten times the items at a cost that fills chunks: tasks grow with the work's seconds
    over the target chunk time, not with the items; a million cheap items are a handful."""
    small, large = _tasks(10_000, 0.001, 4), _tasks(100_000, 0.001, 4)
    assert large <= 100_000 * 0.001 / MIN_CHUNK_S + 4 * CHUNKS_PER_THREAD * 10
    assert small < 10_000 / 10 and large < 100_000 / 50
    assert _tasks(1_000_000, 1e-6, 8) <= 1_000_000 * 1e-6 / FLOOR_CHUNK_S + 1


def test_the_measured_cost_is_smoothed():
    sizer = _sizer(0.01)
    sizer.observe(1, 1.0)   # one slow item
    assert 0.01 < sizer.cost < 1.0
    for _ in range(10):     # and the usual ones again
        sizer.observe(50, 0.5)
    assert sizer.cost < 0.02 and sizer.size(10_000, 2) >= 25


@pytest.mark.slow
def test_a_dask_run_sends_far_fewer_tasks_than_items(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    from planning_core.executor.dask import DaskExecutor
    from tests.executor.cluster_helpers import Cluster

    def processing(dask_scheduler):
        return sum(tp.state_counts.get("processing", 0)
                   for tp in dask_scheduler.task_prefixes.values())

    cluster = Cluster(tmp_path / "logs", workers=2)
    try:
        with DaskExecutor(cluster.address) as executor:
            assert executor.client.direct_to_workers   # results fetched from the workers
            results = dict(executor.run(square, Ctx(bad=7), list(range(3000))))
            tasks = executor.client.run_on_scheduler(processing)
        monkeypatch.setenv("PLANNING_CORE_DASK_DIRECT", "0")   # through the scheduler
        with DaskExecutor(cluster.address) as executor:
            assert not executor.client.direct_to_workers
            assert dict(executor.run(square, Ctx(), list(range(50)))) == \
                {i: i * i for i in range(50)}
    finally:
        cluster.close()
    assert len(results) == 3000 and results[3] == 9
    assert results[7].kind == "error" and "item 7 is bad" in results[7].message
    assert tasks < 3000 / 20, tasks
