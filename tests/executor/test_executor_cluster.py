"""``acp score`` on a real Dask cluster of separate OS processes, and what survives kills.

One ``dask scheduler`` and two ``dask worker`` processes (``--nthreads 1``) on 127.0.0.1
serve the module; the command runs as its own process with ``--scheduler
tcp://127.0.0.1:PORT``. On the dev split's gold and constructed wrong answers it writes the
same rows as ``--executor local`` with 1 and 2 workers. Then the issue's kill tests: 10
kills of a worker process and 10 SIGKILLs of the command at random moments, on a few
thousand answers (the dev answers repeated under new ids); after the resume every id is in
``--out`` exactly once with the score of the uninterrupted run. Killing the scheduler
mid-run ends the command with exit 130 and a message, keeping the rows written; a bad
address is exit 2 with a message; Dask not installed is a message naming the extra.
"""
from __future__ import annotations

import json
import os
import random
import runpy
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, require_shared
from tests.executor.cluster_helpers import scheduler_address, scheduler_argv
from tests.executor.kill_helpers import stop as _stop

pytestmark = pytest.mark.slow
distributed = pytest.importorskip("distributed")

CLI = "import sys; from planning_core.console import main; sys.exit(main(sys.argv[1:]))"
COMPARED = ("task", "domain", "score", "reason", "evidence", "response_sha256")
KILLS = 10


def _write_dataset(*args):
    """``write_dataset`` of ``benchmarks/executor_scaling.py`` (the benchmark's answers)."""
    script = runpy.run_path(str(ROOT / "benchmarks" / "executor_scaling.py"))
    return script["write_dataset"](*args)


def _unused_port() -> socket.socket:
    """A socket bound to a port of 127.0.0.1 and not listening: connections to it are
    refused, and while it is open no other process (the other xdist worker's servers) can
    take the port, as one could a port probed free and closed."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    return s


class Cluster:
    """A ``dask scheduler`` and ``workers`` ``dask worker`` processes, each in its own
    process group (so a test can kill the scheduler alone, and teardown kills all)."""

    def __init__(self, logs: Path, workers: int, allowed_failures: int = 3) -> None:
        self.address = ""
        env = dict(os.environ,
                   DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=str(allowed_failures))
        self.procs: list[subprocess.Popen] = []
        logs.mkdir(parents=True, exist_ok=True)
        try:
            found = logs / "scheduler.json"
            self.scheduler = self._start(scheduler_argv(found), logs / "scheduler.log", env)
            self.address = scheduler_address(self.scheduler, found)
            for k in range(workers):
                self._start(["worker", self.address, "--nthreads", "1", "--nworkers", "1",
                             "--host", "127.0.0.1", "--no-dashboard", "--death-timeout", "60"],
                            logs / f"worker-{k}.log", env)
            self.client = distributed.Client(self.address, timeout=60)
            self.client.wait_for_workers(workers, timeout=120)
        except BaseException:
            self.close()
            raise

    def _start(self, argv: list[str], log: Path, env: dict) -> subprocess.Popen:
        with open(log, "ab") as out:
            proc = subprocess.Popen([sys.executable, "-m", "dask", *argv], stdout=out,
                                    stderr=subprocess.STDOUT, env=env, start_new_session=True)
        self.procs.append(proc)
        return proc

    def worker_pids(self) -> list[int]:
        return sorted(self.client.run(os.getpid).values())

    def close(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            client.close()
        for proc in self.procs:
            _stop(proc)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """The dev answers twice (copy 0 first), and copy 0 alone."""
    folder = require_shared() / "acpbench_hard"
    dest = tmp_path_factory.mktemp("acp-cluster")
    q_path, a_path, origin = _write_dataset(folder, dest / "x2", 2 * 1500)
    assert len(origin) >= 3000 and origin[: len(origin) // 2] == origin[len(origin) // 2:]
    base = len(origin) // 2
    (dest / "x1").mkdir()
    for name in ("questions.jsonl", "answers.jsonl"):
        lines = (dest / "x2" / name).read_text().splitlines(keepends=True)
        (dest / "x1" / name).write_text("".join(lines[:base]))
    return {"x1": (dest / "x1" / "questions.jsonl", dest / "x1" / "answers.jsonl"),
            "x2": (q_path, a_path), "origin": origin, "dir": dest}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    # random worker kills may hit one task several times: the scheduler allows that here
    c = Cluster(tmp_path_factory.mktemp("dask-logs"), workers=2, allowed_failures=50)
    try:
        yield c
    finally:
        c.close()


def _score(paths, out: Path, *options: str, **popen) -> subprocess.Popen:
    q_path, a_path = paths
    return subprocess.Popen([sys.executable, "-c", CLI, "acp", "score", "--questions",
                             str(q_path), "--answers", str(a_path), "--out", str(out),
                             "--no-progress", *options], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **popen)


def _finish(proc: subprocess.Popen) -> tuple[int, str]:
    _, err = proc.communicate(timeout=600)
    return proc.returncode, err


def _rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in out.read_text().splitlines()]


@pytest.fixture(scope="module")
def serial_rows(data, tmp_path_factory):
    out = tmp_path_factory.mktemp("serial") / "serial.jsonl"
    code, err = _finish(_score(data["x1"], out, "--workers", "1"))
    assert code == 0, err
    return _rows(out)


def _same_as(rows: list[dict], expected: list[dict]) -> None:
    assert [r["id"] for r in rows] == [r["id"] for r in expected]   # input order kept
    assert [tuple(r[k] for k in COMPARED) for r in rows] == \
        [tuple(r[k] for k in COMPARED) for r in expected]


def test_same_rows_on_local_workers_and_on_a_dask_cluster(data, cluster, serial_rows,
                                                          tmp_path):
    assert len(serial_rows) == len(data["origin"]) // 2
    code, err = _finish(_score(data["x1"], tmp_path / "local.jsonl", "--workers", "2"))
    assert code == 0, err
    _same_as(_rows(tmp_path / "local.jsonl"), serial_rows)
    code, err = _finish(_score(data["x1"], tmp_path / "dask.jsonl", "--scheduler",
                               cluster.address))
    assert code == 0, err
    assert f"dask executor on {cluster.address}, 2 worker thread(s)" in err
    assert "Traceback" not in err
    _same_as(_rows(tmp_path / "dask.jsonl"), serial_rows)
    assert not (tmp_path / "dask.jsonl.pending").exists()   # a clean end leaves no journal


def _check_complete(out: Path, data, serial_rows) -> None:
    """Every answer of x2 once, with the score of the uninterrupted serial run."""
    rows = _rows(out)
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), "an id appears twice"
    by_id = {r["id"]: r for r in rows}
    answers = [json.loads(line) for line in data["x2"][1].read_text().splitlines()]
    assert set(by_id) == {a["id"] for a in answers}
    for a, n in zip(answers, data["origin"]):
        got, want = by_id[a["id"]], serial_rows[n]
        assert tuple(got[k] for k in COMPARED) == tuple(want[k] for k in COMPARED), a["id"]


def _wait_for_new_rows(proc: subprocess.Popen, journal: Path) -> None:
    """Until the run journals rows of its own: the journal a killed run left is kept (its
    rows are written in their places as the new run goes on), so until it grows past the
    size it had when the run started (less a torn last line the run cuts off)."""
    start = journal.stat().st_size if journal.exists() else 0
    while proc.poll() is None:
        if journal.exists() and journal.stat().st_size > start:
            return
        time.sleep(0.02)


def test_killed_workers_lose_and_duplicate_nothing(data, cluster, serial_rows, tmp_path):
    rng = random.Random(13)
    kills = runs = 0
    while kills < KILLS:
        out = tmp_path / f"run{runs}.jsonl"
        runs += 1
        proc = _score(data["x2"], out, "--scheduler", cluster.address)
        _wait_for_new_rows(proc, Path(f"{out}.pending"))   # past start-up: workers busy
        while kills < KILLS and proc.poll() is None:
            cluster.client.wait_for_workers(2, timeout=120)   # the nanny restarted it
            time.sleep(rng.uniform(0.3, 1.2))
            if proc.poll() is not None:
                break
            victim = rng.choice(cluster.worker_pids())
            os.kill(victim, signal.SIGKILL)
            kills += 1
        code, err = _finish(proc)
        assert code == 0, err
        _check_complete(out, data, serial_rows)
        assert "worker-died" not in out.read_text()
    assert runs <= KILLS


def test_killed_client_resumes_without_losing_or_duplicating(data, cluster, serial_rows,
                                                             tmp_path):
    """SIGKILL of the command at random moments while it scores (after its start-up, once
    rows come in); each rerun resumes. When a rerun finishes before its kill, its file is
    checked and the next kills go to a fresh one."""
    rng = random.Random(7)
    files = [tmp_path / "run0.jsonl"]
    kills = 0
    while kills < KILLS:
        out = files[-1]
        proc = _score(data["x2"], out, "--scheduler", cluster.address)
        _wait_for_new_rows(proc, Path(f"{out}.pending"))
        time.sleep(rng.uniform(0.0, 1.5))
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
            kills += 1
            continue
        code, err = _finish(proc)
        assert code == 0, err
        files.append(tmp_path / f"run{len(files)}.jsonl")
    code, err = _finish(_score(data["x2"], files[-1], "--scheduler", cluster.address))
    assert code == 0, err
    for out in files:
        _check_complete(out, data, serial_rows)
        assert not Path(f"{out}.pending").exists()


def test_journal_rows_are_moved_into_the_results_not_computed_again(data, tmp_path):
    """Rows a killed client computed but had not written are taken from OUT.pending: a
    journal row whose reason no scorer writes shows up in OUT unchanged, in its place."""
    q_path, a_path = data["x1"]
    answers = [json.loads(line) for line in a_path.read_text().splitlines()][:3]
    small = tmp_path / "answers.jsonl"
    small.write_text("".join(json.dumps(a) + "\n" for a in answers))
    out = tmp_path / "out.jsonl"
    from planning_core.validators.acp.dataset import response_hash

    journal = [{"id": a["id"], "task": a["task"], "domain": "d", "score": 1,
                "reason": "from the journal", "evidence": "journal",
                "response_sha256": response_hash(a["response"]), "cpu_s": 0.0}
               for a in answers[1:]]
    out.touch()   # a killed run's OUT exists: it is opened before its journal
    Path(f"{out}.pending").write_text("".join(json.dumps(r) + "\n" for r in journal)
                                      + journal[0]["id"] + '", "torn')
    code, err = _finish(_score((q_path, small), out, "--workers", "1"))
    assert code == 0, err
    assert "2 row(s) computed by an interrupted run recovered" in err
    rows = _rows(out)
    # in the order of the answers file, the journal's rows in their places
    assert [r["id"] for r in rows] == [a["id"] for a in answers]
    assert [r["reason"] for r in rows[1:]] == ["from the journal"] * 2
    assert rows[0]["reason"] != "from the journal"
    assert not Path(f"{out}.pending").exists()


def test_losing_the_scheduler_ends_the_run_with_130_and_keeps_the_rows(data, tmp_path):
    lost = Cluster(tmp_path / "logs", workers=1)
    out = tmp_path / "out.jsonl"
    try:
        proc = _score(data["x2"], out, "--scheduler", lost.address)
        lost.client.close()
        deadline = time.monotonic() + 300
        while (not out.exists() or len(out.read_text().splitlines()) < 20) \
                and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()
        _stop(lost.scheduler)
        written = len(out.read_text().splitlines())
        code, err = _finish(proc)
    finally:
        lost.close()
    assert code == 130, err
    assert "Dask scheduler" in err and "rerun to resume" in err and "Traceback" not in err
    rows = _rows(out)
    assert len(rows) >= written
    assert len({r["id"] for r in rows}) == len(rows)


def test_a_bad_scheduler_address_is_a_message_and_exit_2(data, tmp_path):
    for address, message in (("no-such-file.json", "no such scheduler file"),
                             ("nonsense://host", "cannot reach the Dask scheduler at "
                                                 "nonsense://host: unknown address scheme"),
                             ("local:0", "expected local:N with N >= 1")):
        code, err = _finish(_score(data["x1"], tmp_path / "out.jsonl", "--scheduler", address))
        assert code == 2, err
        assert message in err and "Traceback" not in err


def test_no_scheduler_listening_is_executor_unavailable():
    """Nothing listens on the port: a message once the connect timeout (20 s for the
    command; shortened here) runs out."""
    from planning_core.executor import ExecutorUnavailable
    from planning_core.executor.dask import DaskExecutor

    with _unused_port() as unused:
        address = f"tcp://127.0.0.1:{unused.getsockname()[1]}"
        with pytest.raises(ExecutorUnavailable, match=f"cannot reach the Dask scheduler at "
                                                      f"{address}: Timed out"):
            DaskExecutor(address, connect_timeout=2)


def test_dask_not_installed_names_the_extra(tmp_path, capsys, monkeypatch):
    from planning_core.console import main

    monkeypatch.setitem(sys.modules, "distributed", None)   # import distributed fails
    folder = require_shared() / "acpbench_hard" / "app"
    answers = tmp_path / "a.jsonl"
    answers.write_text('{"id": "x", "response": "None"}\n')
    code = main(["acp", "score", "--questions", str(folder), "--answers", str(answers),
                 "--out", str(tmp_path / "o.jsonl"), "--executor", "dask", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2
    assert "pip install 'planning-core[dask]'" in err


def test_check_gold_says_the_same_on_every_executor(cluster, tmp_path):
    questions = require_shared() / "acpbench_hard"
    outputs = []
    for options in (["--workers", "1"], ["--workers", "2"], ["--scheduler", cluster.address]):
        proc = subprocess.run([sys.executable, "-c", CLI, "acp", "check-gold", "--questions",
                               str(questions), "--json", "--no-progress", *options],
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 1, proc.stderr   # the nine refuted stored Nones
        assert "Traceback" not in proc.stderr
        outputs.append(json.loads(proc.stdout))
    assert outputs[0]["questions"] == 320 and outputs[0]["gold_right"] == 311
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]
