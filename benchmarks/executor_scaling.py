"""How ``acp score`` scales over executors: serial, local worker processes, Dask LocalCluster.

Issue 13 asks what a user gains from ``--executor dask`` on one machine and what a cluster
would give. The answers are the dev split's (``acp_reference_bench.build_answers``: per
question its gold answer and our constructed wrong answers, about five per question),
repeated under new question ids until there are at least ``--answers`` of them, as a
leaderboard run scores many models' answers to the same questions. Each configuration
runs ``planning-core acp score`` as a fresh process on a fresh ``--out``, so its time
includes the interpreter, the imports and, for Dask, starting the LocalCluster:

* serial (``--workers 1``), local (``--workers 2``), dask ``--scheduler local:1`` and
  ``local:2``;
* wall seconds, CPU seconds of the command and all its processes (``RUSAGE_CHILDREN``
  after it ends: the LocalCluster's workers are its descendants), answers per wall second;
* scheduling overhead per task: a task that does nothing (``max(0, i)``) run N times through
  ``Executor.run`` on local 2 workers and on a LocalCluster of 2, wall per task after the
  executor is up.

Every configuration's rows are compared with the serial run's (ids, scores, reasons,
evidence; not ``cpu_s``), so a table is only written for runs that agree. The machine is
shared with other users: the table states its load average. Usage::

    nice python benchmarks/executor_scaling.py [--answers 20000] [--noop 2000]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("PLANNING_CORE_SHARED_DATA", ROOT.parent / "shared" / "data"))
RESULTS = ROOT / "benchmarks" / "results" / "executor_scaling.md"
CONFIGS = (("serial", ["--workers", "1"]), ("local, 2 workers", ["--workers", "2"]),
           ("dask local:1", ["--scheduler", "local:1"]),
           ("dask local:2", ["--scheduler", "local:2"]))
# the installed `planning-core` command, with this interpreter
CLI = "import sys; from planning_core.console import main; sys.exit(main(sys.argv[1:]))"
COMPARED = ("id", "task", "domain", "score", "reason", "evidence", "response_sha256")


def _reference_bench():
    spec = importlib.util.spec_from_file_location(
        "acp_reference_bench", ROOT / "benchmarks" / "acp_reference_bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_dataset(folder: Path, dest: Path, min_answers: int) -> tuple[Path, Path, list[int]]:
    """Questions and answers files in ``dest``: the dev answers of ``folder`` repeated under
    new ids (``<id>~<copy>.<n>``) until there are at least ``min_answers``.

    Returns the two paths and, per answer, the position of the dev answer it repeats (its
    score is that answer's score: the copies differ in the id only)."""
    from planning_core.validators.acp.dataset import load_questions

    bench = _reference_bench()
    data = bench.build_answers(folder, bench.TASKS)
    questions = {(q.task, q.id): q for q in load_questions(folder)}
    base = data["answers"]
    copies = max(1, -(-min_answers // len(base)))
    origin: list[int] = []
    dest.mkdir(parents=True, exist_ok=True)
    q_path, a_path = dest / "questions.jsonl", dest / "answers.jsonl"
    with open(q_path, "w") as fq, open(a_path, "w") as fa:
        for copy in range(copies):
            for n, a in enumerate(base):
                record = questions[(a["task"], a["id"])].to_record()
                record["id"] = f"{a['id']}~{copy}.{n}"
                fq.write(json.dumps(record) + "\n")
                fa.write(json.dumps({"id": record["id"], "task": a["task"],
                                     "response": a["response"]}) + "\n")
                origin.append(n)
    return q_path, a_path, origin


def comparable(row: dict) -> tuple:
    """What must agree between executors (everything but the measured ``cpu_s``)."""
    return tuple(row.get(k) for k in COMPARED)


def run_score(q_path: Path, a_path: Path, out: Path, options: list[str]) -> tuple[float, float]:
    """Run ``acp score`` in a fresh process; (wall s, CPU s of it and its descendants)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", CLI, "acp", "score", "--questions",
                    str(q_path), "--answers", str(a_path), "--out", str(out), "--no-progress",
                    *options], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def noop_overhead(kind: str, scheduler: str | None, tasks: int) -> float:
    """Wall seconds per do-nothing task through ``Executor.run`` (executor already up)."""
    from planning_core.executor import make_executor

    with make_executor(kind, workers=2, scheduler=scheduler) as executor:
        list(executor.run(max, 0, list(range(20))))   # workers warm
        start = time.perf_counter()
        done = sum(1 for _ in executor.run(max, 0, list(range(tasks))))
        wall = time.perf_counter() - start
    assert done == tasks
    return wall / tasks


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--answers", type=int, default=20000, help="at least this many answers")
    ap.add_argument("--noop", type=int, default=2000, help="no-op tasks per executor")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="executor-scaling-") as tmp:
        tmp = Path(tmp)
        q_path, a_path, origin = write_dataset(SHARED / "acpbench_hard", tmp, args.answers)
        n = len(origin)
        runs = []
        reference = None
        groups = None
        for name, options in CONFIGS:
            out = tmp / f"{len(runs)}.jsonl"
            wall, cpu = run_score(q_path, a_path, out, options)
            rows = [json.loads(line) for line in out.read_text().splitlines()]
            assert len(rows) == n, f"{name}: {len(rows)} rows for {n} answers"
            if reference is None:
                reference = [comparable(r) for r in rows]
                task_cpu = sum(r["cpu_s"] for r in rows)
            else:
                assert [comparable(r) for r in rows] == reference, f"{name}: rows differ"
            runs.append((name, wall, cpu))
            print(f"{name}: {wall:.1f} s wall, {cpu:.1f} s CPU", file=sys.stderr)
        from planning_core.validators.acp.batch import problem_groups
        from planning_core.validators.acp.dataset import load_answers, load_questions
        from planning_core.validators.acp.batch import match_answers
        jobs = match_answers(load_questions(q_path), load_answers(a_path))
        groups = len(problem_groups(jobs, 2))
    local_task = noop_overhead("local", None, args.noop)
    dask_task = noop_overhead("dask", "local:2", args.noop)
    load_end = os.getloadavg()[0]
    text = render(n, runs, task_cpu, groups, local_task, dask_task, args.noop,
                  load_start, load_end)
    args.out.write_text(text)
    print(text)


def render(n: int, runs: list, task_cpu: float, groups: int, local_task: float,
           dask_task: float, noop: int, load_start: float, load_end: float) -> str:
    serial_wall = runs[0][1]
    lines = [
        "# Executor scaling: `acp score` serial, on local workers and on a Dask LocalCluster",
        "",
        f"{n:,} answers: the ACPBench Hard dev split's gold and constructed wrong answers "
        "(`acp_reference_bench.build_answers`, about five per question), repeated under new "
        "question ids, as a leaderboard scores many models' answers to the same questions "
        "(a worker's problem cache serves the repeats). Each row is one fresh "
        "`planning-core acp score` process (interpreter, imports and, for Dask, starting "
        "the LocalCluster included). CPU is the command's and all its processes'. Every "
        "run's rows equal the serial run's (ids, scores, reasons, evidence). Load average "
        f"{load_start:.1f} at the start and {load_end:.1f} at the end on 2 cores (a shared "
        "machine: the ratios matter, not the seconds). Produced by "
        "`benchmarks/executor_scaling.py`.",
        "",
        "| executor | wall s | CPU s | answers/s | speed-up |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, wall, cpu in runs:
        lines.append(f"| {name} | {wall:.1f} | {cpu:.1f} | {n / wall:,.0f} | "
                     f"{serial_wall / wall:.2f} |")
    per_answer = task_cpu / n
    per_task = max(dask_task, local_task)
    lines += [
        "",
        f"Scoring alone (the rows' `cpu_s`) took {task_cpu:.1f} CPU s, "
        f"{per_answer * 1e3:.2f} ms per answer; the run had {groups:,} tasks (groups of "
        "answers that share a problem, split so no worker holds a straggler).",
        "",
        f"Scheduling overhead per task ({noop:,} tasks that do nothing, 2 workers, after "
        "start-up): "
        f"local {local_task * 1e3:.2f} ms, Dask {dask_task * 1e3:.2f} ms "
        f"({dask_task / local_task:.1f}x). With {n / groups:.0f} answers per task that is "
        f"{dask_task / (n / groups) * 1e3:.3f} ms per answer on Dask, "
        f"{dask_task / (n / groups) / per_answer:.1%} of the scoring cost.",
        "",
        "## Estimate for 10^6 answers",
        "",
        f"Scoring costs about {per_answer * 1e3:.2f} ms of CPU per answer when the "
        "questions repeat (a worker parses and grounds each problem once); 10^6 answers are "
        f"then about {per_answer * 1e6 / 60:.0f} CPU minutes. Dask's per-task cost "
        f"({dask_task * 1e3:.1f} ms of scheduler round trip, spread over a task's answers) "
        "and the per-worker first sight of each problem (the first copy of the dev set cost "
        "most of the serial run) add little, so on N single-threaded workers the wall time "
        "is about:",
        "",
        "| workers N | wall for 10^6 answers |",
        "|---:|---:|",
    ]
    for workers in (1, 2, 8, 32, 128):
        seconds = per_answer * 1e6 / workers + dask_task * (1e6 / max(1.0, n / groups)) / workers
        lines.append(f"| {workers} | {_duration(seconds)} |")
    lines += [
        "",
        "Beyond a few dozen workers the one CLI process that writes `--out` (about "
        f"{n / runs[0][1]:,.0f} rows/s when it does nothing else) and the scheduler "
        "(a few thousand tasks/s) set the pace, not the workers; answers to questions "
        "never seen before cost more (first sight of a problem: parsing, grounding, "
        "searches), see `benchmarks/results/acp_score.md`.",
        "",
    ]
    return "\n".join(lines)


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s"


if __name__ == "__main__":
    main()
