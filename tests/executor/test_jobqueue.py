"""``--cluster slurm`` (issue 19 item 18) against a fake Slurm: ``sbatch`` on ``PATH``
copies the job script dask-jobqueue writes and starts it here, detached, as a job would
start on a compute node (``FAKE_JOB_SECONDS`` kills each job after that long, as a
walltime does); ``scancel`` kills the job. The workers connect back to the scheduler the
command starts (``--interface lo``).

Checked: the flags reach the job script and dask-jobqueue's own configuration fills in the
rest; ``validate --batch --cluster slurm`` writes the rows ``--workers 1`` writes; jobs
that hit their walltime are replaced (``adapt()``) and the run still finishes with every
result; options are refused where they mean nothing.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from executor_tasks import Ctx, slow_square
from planning_core.console import main
from tests.conftest import DOMAINS
from tests.executor.cluster_helpers import ROOT
from tests.executor.kill_helpers import CLI

pytest.importorskip("distributed")
pytest.importorskip("dask_jobqueue")
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bash, setsid")

BLOCKS = DOMAINS / "blocksworld"

SBATCH = r'''#!/bin/bash
# a fake sbatch: run the job script (the last argument) here, detached, as job N
set -e
jobs="$FAKE_SLURM_DIR"
n=$(ls "$jobs" | grep -c '\.sh$' || true)
id=$((n + 1000))
cp "${@: -1}" "$jobs/job-$id.sh"
if [ -n "$FAKE_JOB_SECONDS" ]; then
  setsid timeout -s KILL "$FAKE_JOB_SECONDS" bash "$jobs/job-$id.sh" \
    > "$jobs/job-$id.log" 2>&1 < /dev/null &
else
  setsid bash "$jobs/job-$id.sh" > "$jobs/job-$id.log" 2>&1 < /dev/null &
fi
echo $! > "$jobs/job-$id.pid"
echo "Submitted batch job $id"
'''

SCANCEL = r'''#!/bin/bash
# a fake scancel: kill each job's process group
for id in "$@"; do
  pid=$(cat "$FAKE_SLURM_DIR/job-$id.pid" 2>/dev/null) && kill -KILL -- -"$pid" 2>/dev/null
done
exit 0
'''


@pytest.fixture
def slurm(tmp_path, monkeypatch):
    """A fake Slurm on PATH; its jobs' scripts, logs and pids go to the returned folder."""
    bin_dir, jobs = tmp_path / "bin", tmp_path / "jobs"
    bin_dir.mkdir()
    jobs.mkdir()
    for name, text in (("sbatch", SBATCH), ("scancel", SCANCEL),
                       ("squeue", "#!/bin/bash\nexit 0\n")):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_SLURM_DIR", str(jobs))
    # the jobs' workers import the tests' task functions; a lost worker is let go quickly
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT / "tests"), str(ROOT)]))
    monkeypatch.setenv("DASK_DISTRIBUTED__DEPLOY__LOST_WORKER_TIMEOUT", "1s")
    try:
        yield jobs
    finally:   # whatever a failed test left running
        for pid_file in jobs.glob("*.pid"):
            try:
                os.killpg(int(pid_file.read_text()), 9)
            except (ProcessLookupError, ValueError):
                pass


def _scripts(jobs: Path) -> list[str]:
    return [p.read_text() for p in sorted(jobs.glob("job-*.sh"))]


def _manifest(folder: Path, count: int = 6) -> Path:
    manifest = folder / "m.jsonl"
    manifest.write_text("".join(json.dumps({
        "id": k, "plan": str(BLOCKS / "p01.plan"), "domain": str(BLOCKS / "domain.pddl"),
        "problem": str(BLOCKS / "p01.pddl")}) + "\n" for k in range(count)))
    return manifest


@pytest.mark.slow
def test_validate_batch_on_a_slurm_cluster_writes_the_rows_of_a_local_run(slurm, tmp_path):
    manifest = _manifest(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", CLI, "validate", "--batch", str(manifest), "--out",
         str(tmp_path / "slurm.jsonl"), "--no-progress", "--cluster", "slurm", "--jobs", "1",
         "--cores", "1", "--memory", "1GB", "--interface", "lo", "--queue", "short",
         "--account", "proj7", "--walltime", "01:00:00", "--no-workers-timeout", "120"],
        capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "dask executor on a SLURMCluster" in done.stderr
    assert main(["validate", "--batch", str(manifest), "--out", str(tmp_path / "local.jsonl"),
                 "--no-progress"]) == 0
    strip = lambda path: [{k: v for k, v in json.loads(line).items() if k != "cpu_s"}
                          for line in path.read_text().splitlines()]
    assert strip(tmp_path / "slurm.jsonl") == strip(tmp_path / "local.jsonl")
    script = _scripts(slurm)[0]
    for line in ("#SBATCH -p short", "#SBATCH -A proj7", "#SBATCH -t 01:00:00",
                 "#SBATCH --cpus-per-task=1"):
        assert line in script, script
    # workers leave before the walltime, staggered, so adapt() replaces them in time
    assert "--lifetime 3300s" in script and "--lifetime-stagger 120s" in script
    assert "--interface lo" in script and "--nthreads 1" in script


def test_flags_override_dask_jobqueue_configuration_and_the_rest_comes_from_it(slurm):
    import dask

    from planning_core.executor.jobqueue import start_jobqueue_cluster

    with dask.config.set({"jobqueue.slurm.queue": "from-config",
                          "jobqueue.slurm.account": "config-account",
                          "jobqueue.slurm.cores": 2, "jobqueue.slurm.memory": "2GB",
                          "jobqueue.slurm.interface": "lo"}):
        cluster = start_jobqueue_cluster("slurm", jobs=1, account="flag-account")
        try:
            script = cluster.job_script()
        finally:
            cluster.close()
    assert "#SBATCH -p from-config" in script and "#SBATCH -A flag-account" in script
    # two cores: two single-threaded worker processes
    assert "--nworkers 2" in script and "--nthreads 1" in script, script


@pytest.mark.slow
def test_jobs_that_hit_their_walltime_are_replaced_and_the_run_finishes(slurm, monkeypatch):
    from planning_core.executor import make_executor

    monkeypatch.setenv("FAKE_JOB_SECONDS", "10")   # every job is killed after 10 s
    items = list(range(80))                        # 16 s of work for the one worker
    start = time.monotonic()
    with make_executor("dask", cluster={"kind": "slurm", "jobs": 1, "cores": 1,
                                        "memory": "1GB", "interface": "lo"},
                       no_workers_timeout=90) as executor:
        results = dict(executor.run(slow_square, Ctx(), items))
    assert results == {i: i * i for i in items}
    assert len(_scripts(slurm)) >= 2, "no job replaced the one that ended"
    assert time.monotonic() - start < 200


def test_job_flags_without_cluster_and_cluster_with_scheduler_are_refused(capsys,
                                                                          tmp_path):
    manifest = _manifest(tmp_path, 1)
    assert main(["validate", "--batch", str(manifest), "--no-progress", "--queue", "q"]) == 2
    assert "--queue needs --cluster" in capsys.readouterr().err
    assert main(["validate", "--batch", str(manifest), "--no-progress", "--cluster", "slurm",
                 "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["validate", "--batch", str(manifest), "--no-progress", "--cluster", "pbs",
                 "--executor", "local"]) == 2
    assert "--cluster needs --executor dask" in capsys.readouterr().err
    plan, domain, problem = (BLOCKS / name for name in ("p01.plan", "domain.pddl", "p01.pddl"))
    assert main(["validate", str(plan), str(domain), str(problem), "--cluster", "slurm"]) == 2
    assert "--cluster is an option of --batch" in capsys.readouterr().err
