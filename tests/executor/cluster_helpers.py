"""A real Dask cluster for tests: ``dask scheduler`` and ``dask worker`` processes on
127.0.0.1, each in its own process group (a test can kill one; ``close`` kills all).

Workers can be started in another folder (``cwd``), as on another machine, and with a
``--preload`` script (e.g. one that hides planning_core, as on a node without it)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.executor.kill_helpers import stop

ROOT = Path(__file__).resolve().parents[2]

# a --preload for `dask worker`: planning_core cannot be imported there
HIDE_PLANNING_CORE = '''
import sys

class _Hide:
    def find_spec(self, name, path=None, target=None):
        if name == "planning_core" or name.startswith("planning_core."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _Hide())
for name in [m for m in sys.modules if m.startswith("planning_core")]:
    del sys.modules[name]
'''


def scheduler_argv(scheduler_file: Path) -> list[str]:
    """``dask scheduler`` on 127.0.0.1 at a port it picks itself, written to
    ``scheduler_file``: a port probed free here and handed over could be taken before the
    scheduler binds it (a ``dask scheduler`` takes a second or two to start, and any new
    connection on the machine, e.g. the other xdist worker's, may get it as its source
    port)."""
    return ["scheduler", "--host", "127.0.0.1", "--port", "0", "--scheduler-file",
            str(scheduler_file), "--dashboard-address", "127.0.0.1:0", "--no-show"]


def scheduler_address(proc: subprocess.Popen, scheduler_file: Path,
                      timeout: float = 120) -> str:
    """The address the scheduler ``proc`` wrote to ``scheduler_file``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            return json.loads(scheduler_file.read_text())["address"]
        except (OSError, ValueError, KeyError, TypeError):
            pass        # not written yet, or half written
        if proc.poll() is not None:
            raise AssertionError(f"the scheduler ended (exit {proc.returncode}) before "
                                 f"writing {scheduler_file}")
        time.sleep(0.05)
    raise AssertionError(f"the scheduler wrote no {scheduler_file} in {timeout} s")


class Cluster:
    """A scheduler and ``workers`` single-threaded workers (more with :meth:`add_worker`)."""

    def __init__(self, logs: Path, workers: int = 1, *, cwd: Path | None = None,
                 allowed_failures: int = 3) -> None:
        self.logs = logs
        logs.mkdir(parents=True, exist_ok=True)
        self.address = ""
        self.env = dict(os.environ,
                        DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=str(allowed_failures),
                        PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), str(ROOT)]))
        self.procs: list[subprocess.Popen] = []
        self.workers: list[subprocess.Popen] = []
        try:
            found = logs / "scheduler.json"
            self.scheduler = self._start(scheduler_argv(found), "scheduler", cwd)
            self.address = scheduler_address(self.scheduler, found)
            for _ in range(workers):
                self.add_worker(cwd=cwd)
            if workers:
                self.wait_for(workers)
        except BaseException:
            self.close()
            raise

    def _start(self, argv: list[str], name: str, cwd: Path | None) -> subprocess.Popen:
        with open(self.logs / f"{name}.log", "ab") as out:
            proc = subprocess.Popen([sys.executable, "-m", "dask", *argv], stdout=out,
                                    stderr=subprocess.STDOUT, env=self.env, cwd=cwd,
                                    start_new_session=True)
        self.procs.append(proc)
        return proc

    def add_worker(self, *, cwd: Path | None = None, preload: str | None = None
                   ) -> subprocess.Popen:
        argv = ["worker", self.address, "--nthreads", "1", "--nworkers", "1", "--host",
                "127.0.0.1", "--no-dashboard", "--death-timeout", "60"]
        if preload is not None:
            script = self.logs / f"preload-{len(self.workers)}.py"
            script.write_text(preload)
            argv += ["--preload", str(script)]
        proc = self._start(argv, f"worker-{len(self.workers)}", cwd)
        self.workers.append(proc)
        return proc

    def wait_for(self, count: int, timeout: float = 120) -> None:
        import distributed

        with distributed.Client(self.address, timeout=60) as client:
            client.wait_for_workers(count, timeout=timeout)

    def close(self) -> None:
        for proc in self.procs:
            stop(proc)


def wait_until(predicate, timeout: float = 60, every: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(every)
    return predicate()
