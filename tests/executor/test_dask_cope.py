"""``cope check``, ``cope eval`` and ``validate --batch`` give the same rows on local workers
and on a Dask cluster; per-task limits hold on a Dask worker (the SMT sandbox runs there,
and refuses to run when the worker cannot isolate); a task that keeps killing its worker
becomes a failure row.

One LocalCluster of two worker processes serves the module (starting one costs seconds of
CPU); the commands reach it as an existing scheduler (``--scheduler tcp://...``). The SMT
test starts its own ``--scheduler local:1``, the way users type it.
"""
from __future__ import annotations

import json
import logging
import os

import pytest

from planning_core.console import main
from planning_core.executor.dask import DaskExecutor
from planning_core.validators.cope import check as check_module
from planning_core.validators.cope import evaluate as evaluate_module
from planning_core.validators.cope.check import check_pairs, iter_checks
from planning_core.validators.cope.dataset import load_dataset, load_dataset_report

from tests.conftest import require_shared
from tests.cope.minicope import write_minicope, write_outputs
from tests.executor.dask_helpers import get_env, set_env
from tests.executor.test_validate_batch import rows_of, write_corpus_manifest

distributed = pytest.importorskip("distributed")

CHECK_TIME_LIMIT = 10.0    # CPU seconds, as the full-check fixture of tests/cope


@pytest.fixture(scope="module")
def cluster():
    """The address of a LocalCluster of two single-threaded worker processes."""
    local = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=":0", silence_logs=logging.CRITICAL)
    try:
        yield local.scheduler_address
    finally:
        local.close()


def _without(rows, *volatile):
    return [{k: v for k, v in row.items() if k not in volatile} for row in rows]


def check_subset() -> list:
    """A deterministic subset of the pairs of both shared CoPE datasets that checks in a few
    CPU seconds: every 5th BlocksWorld pair on a small task (problem file under 700 bytes;
    the large ones take up to the whole time limit, which the benchmark measures) and every
    3rd CoinCollector pair (defects with located issues among them)."""
    pairs, _ = load_dataset_report(require_shared() / "cope")
    blocks = [p for p in pairs if p.dataset == "BlocksWorld-100"
              and p.base_problem_path.stat().st_size < 700]
    coins = [p for p in pairs if p.dataset == "CoinCollector-100"]
    return blocks[::5] + coins[::3]


@pytest.mark.slow
def test_cope_check_rows_are_the_same_on_local_workers_and_dask(cluster):
    pairs = check_subset()
    assert len({p.dataset for p in pairs}) == 2
    local = check_pairs(pairs, time_limit=CHECK_TIME_LIMIT, workers=2)
    with DaskExecutor(cluster) as executor:
        assert executor.workers == 2
        remote = tuple(iter_checks(pairs, executor, time_limit=CHECK_TIME_LIMIT))
    assert [c.key for c in remote] == [p.key for p in pairs]      # dataset order
    assert _without([c.to_json() for c in remote], "time_s") == \
        _without([c.to_json() for c in local], "time_s")
    assert {c.status for c in local} >= {"solved", "unsolvable", "error"}


@pytest.mark.slow
def test_validate_batch_rows_are_the_same_on_local_workers_and_dask(cluster, tmp_path,
                                                                     capsys):
    manifest, cases = write_corpus_manifest(tmp_path)
    local, dask = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    base = ["--batch", str(manifest), "--no-progress", "--out"]
    assert main(["validate", *base, str(local), "--workers", "2"]) == 1
    assert main(["validate", *base, str(dask), "--scheduler", cluster]) == 1
    assert "dask executor on tcp://" in capsys.readouterr().err
    assert len(rows_of(dask)) == len(cases)
    assert _without(rows_of(dask), "cpu_s") == _without(rows_of(local), "cpu_s")


# ------------------------------------------------------------------ the SMT sandbox

def _smt_outputs(tmp_path):
    from tests.formalizations.smt_programs import bounded_program
    from planning_core.pddl.parser import parse_domain_file, parse_problem_file

    root = require_shared() / "cope" / "BlocksWorld-100"
    pair = next(p for p in load_dataset(root)
                if (p.category, p.problem, p.constraint) == ("baseline", "p20", "constraint20"))
    domain, problem = parse_domain_file(pair.domain_path), parse_problem_file(pair.problem_path)
    programs = [bounded_program(domain, problem, style="sexpr"),
                bounded_program(domain, problem, style="sexpr", drop_precondition="holding")]
    outputs = write_outputs(tmp_path / "outputs.jsonl", [
        {"category": "baseline", "problem": "p20", "constraint": "constraint20",
         "output": f"Here is my encoding:\n```python\n{programs[0]}\n```\n"},
        {"category": "state", "problem": "p20", "constraint": "constraint16",
         "output": f"Here is my encoding:\n```python\n{programs[1]}\n```\n"}])
    return root, outputs


def _smt_eval(root, outputs, out, *extra) -> int:
    return main(["cope", "eval", "--dataset", str(root), "--method", "smt", "--outputs",
                 str(outputs), "--out", str(out), "--no-progress", "--no-label-check",
                 "--time-limit", "30", *extra])


@pytest.mark.slow
def test_cope_eval_smt_on_a_local_cluster_gives_the_rows_of_local(tmp_path, capsys):
    from tests.formalizations.sandbox_helpers import needs_namespaces

    if needs_namespaces.args[0]:
        pytest.skip(needs_namespaces.kwargs["reason"])
    root, outputs = _smt_outputs(tmp_path)
    local, dask = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    assert _smt_eval(root, outputs, local) == 0
    assert _smt_eval(root, outputs, dask, "--scheduler", "local:1") == 0
    assert "dask executor on a LocalCluster" in capsys.readouterr().err
    rows = rows_of(dask)
    # the programs ran in the sandbox on the worker, with the same limits and outcomes
    assert [r["outcome"] for r in rows] == ["correct", "plan_given"]   # state: no plan exists
    assert all(r["detail"]["isolation"] == "bwrap" for r in rows)
    volatile = ("cpu_s", "wall_s")
    assert [_without([r["detail"]], *volatile) for r in rows] == \
        [_without([r["detail"]], *volatile) for r in rows_of(local)]
    assert _without(rows, "detail") == _without(rows_of(local), "detail")


@pytest.mark.slow
def test_the_sandbox_refuses_to_run_on_a_dask_worker_that_cannot_isolate(cluster, tmp_path):
    root, outputs = _smt_outputs(tmp_path)
    missing = str(tmp_path / "no-such-bwrap")
    with distributed.Client(cluster) as client:
        client.run(set_env, "PLANNING_CORE_BWRAP", missing)
        try:
            assert set(client.run(get_env, "PLANNING_CORE_BWRAP").values()) == {missing}
            assert os.environ.get("PLANNING_CORE_BWRAP") != missing   # only the workers
            out = tmp_path / "results.jsonl"
            assert _smt_eval(root, outputs, out, "--scheduler", cluster) == 0
        finally:
            client.run(set_env, "PLANNING_CORE_BWRAP", None)
    rows = rows_of(out)
    assert [r["outcome"] for r in rows] == ["sandbox_unavailable"] * 2
    assert all("bubblewrap" in r["detail"]["error"] and "not run" in r["detail"]["error"]
               for r in rows)


# ------------------------------------------------------------------ workers that die

def _dies_on_goal(original):
    def task(pair, *args, **kwargs):
        if pair.category == "goal":
            os._exit(13)   # as a crash in native code or the out-of-memory killer would
        return original(pair, *args, **kwargs)
    return task


def test_a_pair_that_kills_its_worker_becomes_an_unknown_check(tmp_path, monkeypatch,
                                                                capsys):
    root = write_minicope(tmp_path)
    out = tmp_path / "checks.jsonl"
    serial = {c.key: c.to_json() for c in check_pairs(load_dataset(root), time_limit=20)}
    # the local workers are forked after the patch, so they run it
    monkeypatch.setattr(check_module, "check_pair", _dies_on_goal(check_module.check_pair))
    assert main(["cope", "check", "--dataset", str(root), "--out", str(out), "--workers", "2",
                 "--time-limit", "20", "--no-progress", "--json"]) == 1
    rows = rows_of(out)
    assert [r["category"] for r in rows] == [k[1] for k in serial]   # dataset order
    for row in rows:
        key = (row["dataset"], row["category"], row["problem"], row["constraint"])
        if row["category"] == "goal":
            assert row["status"] == "unknown" and row["verdict"] == "unknown"
            assert row["reason"].startswith("worker-died: not checked")
        else:
            assert _without([row], "time_s") == _without([serial[key]], "time_s")
    capsys.readouterr()


def test_an_output_that_kills_its_worker_becomes_an_internal_error_row(tmp_path, monkeypatch):
    root = write_minicope(tmp_path)
    plan = "(unstack c a)\n(putdown c)\n(pickup b)\n(stack b c)\n(pickup a)\n(stack a b)\n"
    outputs = write_outputs(tmp_path / "outputs.jsonl", [
        {"category": c, "problem": "p01", "constraint": k, "output": plan}
        for c, k in (("baseline", "constraint1"), ("goal", "constraint2"),
                     ("action", "constraint3"))])
    out = tmp_path / "results.jsonl"
    original = evaluate_module.judge

    def judge(method, pair, *args):
        return _dies_on_goal(lambda p, *a: original(method, p, *a))(pair, *args)

    monkeypatch.setattr(evaluate_module, "judge", judge)
    assert main(["cope", "eval", "--dataset", str(root), "--method", "planner", "--outputs",
                 str(outputs), "--out", str(out), "--workers", "2", "--no-progress"]) == 0
    rows = rows_of(out)
    assert [r["category"] for r in rows] == ["baseline", "goal", "action"]  # file order
    assert rows[1]["outcome"] == "internal_error" and rows[1]["method"] == "planner"
    assert rows[1]["detail"]["error"].startswith("worker-died: not judged")
    assert [r["outcome"] for r in (rows[0], rows[2])] == ["correct", "plan_given"]
