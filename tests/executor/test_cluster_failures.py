"""Clusters that cannot work fail loudly, and work done where files were missing is redone
(issue 19 items 14, 15 and 17), on a real ``dask scheduler`` with ``dask worker``
processes on 127.0.0.1 (:mod:`tests.executor.cluster_helpers`).

* workers started in another folder read the files a relative ``--dataset`` or manifest
  path names (paths are made absolute on the client);
* a check whose files were unreadable where it ran, or whose worker died, is not final: a
  rerun computes it again;
* a scheduler with no workers says so on the start line and ends the run after
  ``--no-workers-timeout`` (exit 130, rows kept), as does one whose only worker dies
  mid-run; a worker that cannot import planning_core is named (exit 2) instead of dying
  on the first task and leaving the run waiting forever.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from executor_tasks import Ctx, slow_square
from planning_core.console import main
from tests.cope.minicope import write_minicope, write_outputs
from tests.conftest import DOMAINS
from tests.executor.cluster_helpers import HIDE_PLANNING_CORE, Cluster, wait_until
from tests.executor.kill_helpers import CLI, stop

distributed = pytest.importorskip("distributed")

BLOCKS = DOMAINS / "blocksworld"
PLAN = "(unstack c a)\n(putdown c)\n(pickup b)\n(stack b c)\n(pickup a)\n(stack a b)\n"


def _cli(argv, cwd: Path, timeout: float = 180) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-c", CLI, *map(str, argv)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)
    return done.returncode, done.stderr


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _manifest(folder: Path, count: int = 4) -> Path:
    """A manifest whose every path is relative to it."""
    for name in ("domain.pddl", "p01.pddl", "p01.plan"):
        (folder / name).write_text((BLOCKS / name).read_text())
    manifest = folder / "m.jsonl"
    manifest.write_text("".join(json.dumps({"id": k, "plan": "p01.plan",
                                            "domain": "domain.pddl",
                                            "problem": "p01.pddl"}) + "\n"
                                for k in range(count)))
    return manifest


# ------------------------------------------------------- item 14: workers in another folder

@pytest.mark.slow
def test_workers_in_another_folder_read_the_files_of_relative_paths(tmp_path):
    client_dir, elsewhere = tmp_path / "client", tmp_path / "elsewhere"
    client_dir.mkdir()
    elsewhere.mkdir()
    write_minicope(client_dir / "data")
    (client_dir / "plans").mkdir()
    _manifest(client_dir / "plans")
    # the same relative paths under the workers' folder name nothing
    cluster = Cluster(tmp_path / "logs", workers=1, cwd=elsewhere)
    try:
        code, err = _cli(["cope", "check", "--dataset", "data/Mini-1", "--out", "c.jsonl",
                          "--scheduler", cluster.address, "--no-progress"], client_dir)
        assert code == 1, err   # the mini dataset's defects and label disagreements
        code, err = _cli(["validate", "--batch", "plans/m.jsonl", "--out", "v.jsonl",
                          "--scheduler", cluster.address, "--no-progress"], client_dir)
        assert code == 0, err
    finally:
        cluster.close()
    assert [r["verdict"] for r in _rows(client_dir / "v.jsonl")] == ["valid"] * 4
    checks = _rows(client_dir / "c.jsonl")
    assert not [i for r in checks for i in r["issues"] if i["kind"] == "unreadable"]
    assert main(["cope", "check", "--dataset", str(client_dir / "data" / "Mini-1"),
                 "--out", str(tmp_path / "serial.jsonl"), "--no-progress"]) == 1
    serial = _rows(tmp_path / "serial.jsonl")
    assert [(r["category"], r["status"], r["verdict"]) for r in checks] == \
        [(r["category"], r["status"], r["verdict"]) for r in serial]


def test_a_check_whose_files_were_unreadable_where_it_ran_is_checked_again(tmp_path,
                                                                           capsys):
    root = write_minicope(tmp_path)
    out = tmp_path / "c.jsonl"
    argv = ["cope", "check", "--dataset", str(root), "--out", str(out), "--no-progress"]
    assert main(argv) == 1
    rows = _rows(out)
    assert rows[0]["category"] == "baseline" and rows[0]["verdict"] == "agrees"
    # as a worker that could not read the file wrote it (and one whose worker died)
    unreadable = dict(rows[0], status="error", verdict="defect", agrees=None, plan=None,
                      issues=[{"kind": "unreadable", "file": "x_df.pddl", "line": None,
                               "column": None, "message": "cannot read: no such file"}])
    died = dict(rows[2], status="unknown", verdict="unknown", agrees=None,
                reason="worker-died: not checked: the task's worker process died")
    out.write_text("".join(json.dumps(r) + "\n" for r in [unreadable, rows[1], died,
                                                            *rows[3:]]))
    capsys.readouterr()
    assert main(argv) == 1
    assert "4 pair(s) already in" in capsys.readouterr().err
    again = _rows(out)
    assert len(again) == len(rows)   # the retried rows replace theirs (issue 27 item 5)
    assert [(r["category"], r["verdict"]) for r in again[-2:]] == \
        [(rows[0]["category"], "agrees"), (rows[2]["category"], rows[2]["verdict"])]
    assert main(argv) == 1   # final now
    assert f"{len(rows)} pair(s) already in" in capsys.readouterr().err


def test_an_eval_row_marked_retry_is_judged_again(tmp_path, capsys):
    root = write_minicope(tmp_path)
    outputs = write_outputs(tmp_path / "outputs.jsonl", [
        {"category": "baseline", "problem": "p01", "constraint": "constraint1",
         "output": PLAN}])
    out = tmp_path / "r.jsonl"
    out.write_text(json.dumps({
        "dataset": "Mini-1", "category": "baseline", "problem": "p01",
        "constraint": "constraint1", "correct": False, "outcome": "internal_error",
        "detail": {"error": "worker-died: not judged"}, "method": "planner",
        "retry": True}) + "\n")
    argv = ["cope", "eval", "--dataset", str(root), "--method", "planner", "--outputs",
            str(outputs), "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    rows = _rows(out)
    assert [r["outcome"] for r in rows] == ["internal_error", "correct"]
    capsys.readouterr()
    assert main(argv) == 0
    assert len(_rows(out)) == 2


# ------------------------------------------------------- item 15: no workers, bad workers

@pytest.mark.slow
def test_a_scheduler_without_workers_says_so_and_ends_the_run(tmp_path):
    manifest = _manifest(tmp_path)
    cluster = Cluster(tmp_path / "logs", workers=0)
    try:
        start = time.monotonic()
        code, err = _cli(["validate", "--batch", manifest, "--out", tmp_path / "r.jsonl",
                          "--scheduler", cluster.address, "--no-workers-timeout", "3",
                          "--no-progress"], tmp_path)
        took = time.monotonic() - start
    finally:
        cluster.close()
    assert code == 130, err
    assert "no workers yet" in err and "worker thread(s)" not in err
    assert "no Dask workers for" in err and "rerun to resume" in err
    assert "Traceback" not in err and took < 120


@pytest.mark.slow
def test_a_worker_without_planning_core_is_named_not_waited_for(tmp_path):
    manifest = _manifest(tmp_path)
    cluster = Cluster(tmp_path / "logs", workers=0)
    try:
        cluster.add_worker(preload=HIDE_PLANNING_CORE)
        cluster.wait_for(1)
        code, err = _cli(["validate", "--batch", manifest, "--out", tmp_path / "r.jsonl",
                          "--scheduler", cluster.address, "--no-progress"], tmp_path)
        # the worker was probed, not handed a task: it is still there
        assert cluster.workers[0].poll() is None
    finally:
        cluster.close()
    assert code == 2, err
    assert "cannot import planning_core" in err and "ModuleNotFoundError" in err, err
    assert "Traceback" not in err


@pytest.mark.slow
def test_the_only_worker_dying_mid_run_ends_the_run_with_the_rows_so_far(tmp_path):
    from planning_core.executor import ExecutorLost
    from planning_core.executor.dask import DaskExecutor

    cluster = Cluster(tmp_path / "logs", workers=1)
    got = []
    try:
        with DaskExecutor(cluster.address, no_workers_timeout=3) as executor:
            start = time.monotonic()
            with pytest.raises(ExecutorLost, match="no Dask workers for"):
                for index, result in executor.run(slow_square, Ctx(), list(range(200))):
                    got.append((index, result))
                    if len(got) == 1:
                        stop(cluster.workers[0])   # worker and nanny: nothing restarts it
            assert time.monotonic() - start < 60
    finally:
        cluster.close()
    assert got and all(result == index * index for index, result in got)
    assert len(got) < 200


def test_an_acp_score_row_marked_retry_is_scored_again(tmp_path, capsys):
    from tests.acp.acp_fixtures import record

    q = tmp_path / "q.json"
    q.write_text(json.dumps([record("app", qid="1"), record("reach", qid="2")]))
    a = tmp_path / "a.jsonl"
    a.write_text(json.dumps({"id": "1", "task": "app", "response": "(move r0 r1) (pick c r0)"})
                 + "\n" + json.dumps({"id": "2", "response": "(in g r0)"}) + "\n")
    out = tmp_path / "r.jsonl"
    argv = ["acp", "score", "--questions", str(q), "--answers", str(a), "--out", str(out),
            "--no-progress"]
    assert main(argv) == 0
    rows = _rows(out)
    # as a run whose worker the out-of-memory killer took wrote the first row
    died = dict(rows[0], score=None, evidence="worker-died", retry=True,
                reason="not scored: the task's worker process died")
    out.write_text(json.dumps(died) + "\n" + json.dumps(rows[1]) + "\n")
    capsys.readouterr()
    assert main(argv) == 0
    assert "1 answer(s) already in" in capsys.readouterr().err
    again = _rows(out)
    assert [(r["task"], r["score"], r.get("retry")) for r in again] == \
        [("app", None, True), ("reach", rows[1]["score"], None), ("app", rows[0]["score"], None)]
    assert main(argv) == 0
    assert "2 answer(s) already in" in capsys.readouterr().err


def test_a_toolplans_row_marked_retry_is_checked_again(tmp_path, capsys):
    from tests.toolplans.toolplans_fixtures import TASK, VALID

    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "a", "task": TASK, "output": VALID}) + "\n")
    out = tmp_path / "o.jsonl"
    out.write_text(json.dumps({"id": "a", "verdict": "error", "retry": True,
                               "error": "not checked: the task's worker process died"})
                   + "\n")
    argv = ["toolplans", "batch", "--rows", str(rows), "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    # the retried row replaces the worker-died one: one row per id (issue 27 item 5)
    assert [r["verdict"] for r in _rows(out)] == ["valid"]
    # the summary counts the retried row once, as what it is now
    assert "rows 1, holistic 1, correct 1" in capsys.readouterr().out
    capsys.readouterr()
    assert main(argv) == 0
    assert "1 row(s) already in" in capsys.readouterr().err and len(_rows(out)) == 1
