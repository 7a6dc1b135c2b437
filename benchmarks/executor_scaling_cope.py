"""Scaling of ``cope check`` and ``validate --batch`` over executors (issue 13).

Each configuration runs the command as a user would (one subprocess, wall clock from start
to exit; CPU is the user+system time of the command and every process it started and
waited for, Dask's worker processes included):

* ``local 1`` (``--workers 1``: in the CLI process), ``local 2`` (two forked workers),
  ``dask local:1`` and ``dask local:2`` (a LocalCluster of one or two worker processes,
  started and stopped by the command, which is part of its wall time);
* ``cope check`` on a deterministic subset of both shared CoPE datasets (every
  ``--stride``-th pair; CPU time limit per pair ``--time-limit``) and ``validate --batch``
  on the VAL-judged plan corpus (412 plans, repeated ``--repeat`` times under new ids).

The scheduling overhead per task is measured apart: ``--noop`` tasks that return at once,
through the executor API, on each executor (wall time per task). From the measured per-task
CPU cost and that overhead the notes estimate the wall time of 10^5 formalizations on N
workers.

``--full-equality`` instead checks every pair of both datasets with ``--workers 2`` and
with ``--scheduler local:2``, compares the rows (all fields but the per-pair time) and
writes that section of the results file (a separate run: it takes minutes per executor).

Writes ``benchmarks/results/executor_scaling_cope.md``. Usage::

    python benchmarks/executor_scaling_cope.py [--stride 4] [--repeat 3]
    python benchmarks/executor_scaling_cope.py --full-equality
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "benchmarks" / "results" / "executor_scaling_cope.md"
CONFIGS = (("local 1", ["--workers", "1"]), ("local 2", ["--workers", "2"]),
           ("dask local:1", ["--scheduler", "local:1"]),
           ("dask local:2", ["--scheduler", "local:2"]))
CLI = [sys.executable, "-c", "import sys; from planning_core.console import main; "
                             "sys.exit(main(sys.argv[1:]))"]
VALIDATE = [sys.executable, "-c", "import sys; from planning_core.cli.validate import "
                                  "validate_main; sys.exit(validate_main(sys.argv[1:]))"]


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 60:.0f} min" if seconds >= 600 else f"{seconds / 60:.1f} min"


def noop(context, item):
    """A task that does nothing: what remains of its wall time is the executor's."""
    return item


def timed(argv: list[str]) -> tuple[float, float, int]:
    """Run ``argv``; its wall seconds, CPU seconds (it and its waited-for descendants)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1, 2, 3):
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr}")
    return wall, cpu, done.returncode


def subset_dataset(folder: Path, stride: int) -> int:
    """A CoPE data folder holding every ``stride``-th pair (in the checker's order) of each
    shared dataset: everything but the pairs' own files linked in, those only for the pairs
    kept, and the label files cut down to them."""
    from planning_core.validators.cope.dataset import load_dataset

    count = 0
    for dataset in sorted(p for p in (SHARED / "cope").iterdir() if p.is_dir()):
        kept = {(p.category, p.problem, p.constraint)
                for p in load_dataset(dataset)[::stride]}
        count += len(kept)
        target = folder / dataset.name
        target.mkdir(parents=True)
        for entry in dataset.iterdir():
            if entry.name != "constraints":
                (target / entry.name).symlink_to(entry)
        for category in sorted((dataset / "constraints").iterdir()):
            out = target / "constraints" / category.name
            for path in sorted(category.rglob("*")):
                if path.is_dir():
                    continue
                rel = path.relative_to(category)
                if path.name == "groundtruth_plan_info.jsonl":
                    records = [line for line in path.read_text().splitlines() if line.strip()
                               and (category.name, json.loads(line).get("problem"),
                                    json.loads(line).get("constraint")) in kept]
                    (out / rel).parent.mkdir(parents=True, exist_ok=True)
                    (out / rel).write_text("".join(line + "\n" for line in records))
                    continue
                stem = path.stem.removesuffix("_df").removesuffix("_pf")
                problem, _, constraint = stem.partition("_")
                if constraint and (category.name, problem, constraint) not in kept:
                    continue     # a pair file of a pair left out
                (out / rel).parent.mkdir(parents=True, exist_ok=True)
                (out / rel).symlink_to(path)
    return count


def corpus_manifest(folder: Path, repeat: int) -> Path:
    cases = [json.loads(line) for line in
             (SHARED / "val_oracle" / "ipc_cases.jsonl").read_text().splitlines()]
    manifest = folder / "manifest.jsonl"
    with manifest.open("w") as handle:
        for r in range(repeat):
            for k, case in enumerate(cases):
                handle.write(json.dumps({"id": f"{r}-{k}", "plan_text": case["plan"],
                                         "domain": str(SHARED / "ipc" / case["domain"]),
                                         "problem": str(SHARED / "ipc" / case["problem"])})
                             + "\n")
    return manifest


def rows(path: Path, volatile: str) -> list[dict]:
    return [{k: v for k, v in json.loads(line).items() if k != volatile}
            for line in path.read_text().splitlines()]


def overhead(tasks: int) -> dict[str, float]:
    """Wall seconds per no-op task on each executor (the executor already running)."""
    from planning_core.executor import make_executor

    result = {}
    for name, kind, workers, scheduler in (("local 2", "local", 2, None),
                                           ("dask local:1", "dask", 1, "local:1"),
                                           ("dask local:2", "dask", 2, "local:2")):
        with make_executor(kind, workers=workers, scheduler=scheduler) as executor:
            list(executor.run(noop, None, range(20)))          # warm the workers up
            start = time.perf_counter()
            done = sum(1 for _ in executor.run(noop, None, range(tasks)))
            assert done == tasks
            result[name] = (time.perf_counter() - start) / tasks
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stride", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--noop", type=int, default=2000)
    parser.add_argument("--full-equality", action="store_true")
    args = parser.parse_args()
    os.chdir(ROOT)
    if args.full_equality:
        full_equality(args.time_limit)
        return
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        data = tmp / "cope"
        pairs = subset_dataset(data, args.stride)
        manifest = corpus_manifest(tmp, args.repeat)
        plans = 412 * args.repeat
        check, batch = {}, {}
        plan_cpu: list[float] = []
        for name, flags in CONFIGS:
            out = tmp / f"check-{name.replace(' ', '_')}.jsonl"
            wall, cpu, _ = timed(CLI + ["cope", "check", "--dataset", str(data), "--out",
                                        str(out), "--time-limit", str(args.time_limit),
                                        "--no-progress", "--json", *flags])
            check[name] = (wall, cpu, rows(out, "time_s"))
            print(f"cope check {name}: {wall:.1f} s wall, {cpu:.1f} s CPU", file=sys.stderr)
            out = tmp / f"batch-{name.replace(' ', '_')}.jsonl"
            wall, cpu, _ = timed(VALIDATE + ["--batch", str(manifest), "--out", str(out),
                                             "--no-progress", *flags])
            batch[name] = (wall, cpu, rows(out, "cpu_s"))
            if name == "local 1":
                plan_cpu = [json.loads(line)["cpu_s"] for line in out.read_text().splitlines()]
            print(f"validate --batch {name}: {wall:.1f} s wall, {cpu:.1f} s CPU", file=sys.stderr)
        per_task = overhead(args.noop)
        print(f"overhead per task: {per_task}", file=sys.stderr)
    same_check = all(v[2] == check["local 1"][2] for v in check.values())
    same_batch = all(v[2] == batch["local 1"][2] for v in batch.values())
    lines += [
        "# Executors for `cope check` and `validate --batch`: local workers vs Dask",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, **shared with other "
        "engineers' jobs during the run** (load from them slows every configuration; the "
        "configurations ran one after the other in one run, so compare ratios, not "
        f"absolute times). Python {platform.python_version()}. "
        "Each row is the command run as a subprocess: wall from start to exit (a Dask "
        "LocalCluster is started and stopped inside it), CPU of the command and all the "
        "processes it waited for.",
        "",
        f"## `cope check`: {pairs} pairs (every {args.stride}th pair of BlocksWorld-100 "
        f"and CoinCollector-100), CPU limit {args.time_limit:g} s per pair",
        "",
        "| Executor | Wall (s) | CPU (s) | Speed-up vs local 1 | Rows equal to local 1 |",
        "|---|---:|---:|---:|---|",
    ]
    base = check["local 1"][0]
    for name, (wall, cpu, got) in check.items():
        lines.append(f"| {name} | {wall:.1f} | {cpu:.1f} | {base / wall:.2f} | "
                     f"{'yes' if got == check['local 1'][2] else 'NO'} |")
    lines += ["", f"## `validate --batch`: the VAL corpus x {args.repeat} ({plans} plans, "
                  "38 tasks)", "",
              "| Executor | Wall (s) | CPU (s) | Speed-up vs local 1 | Rows equal to local 1 |",
              "|---|---:|---:|---:|---|"]
    base = batch["local 1"][0]
    for name, (wall, cpu, got) in batch.items():
        lines.append(f"| {name} | {wall:.1f} | {cpu:.1f} | {base / wall:.2f} | "
                     f"{'yes' if got == batch['local 1'][2] else 'NO'} |")
    # the whole command's CPU (Fast Downward's included) over its pairs; the rows' own
    # time_s is wall time inside the worker, which the other jobs on this machine inflate
    mean_pair = check["local 1"][1] / pairs
    mean_plan = statistics.fmean(plan_cpu)
    lines += ["", f"## Scheduling overhead per task ({args.noop} no-op tasks, executor "
                  "already running)", "",
              "| Executor | Wall per task (ms) |", "|---|---:|"]
    for name, seconds in per_task.items():
        lines.append(f"| {name} | {seconds * 1000:.2f} |")
    lines += notes(mean_pair, mean_plan, per_task, args.time_limit, same_check, same_batch)
    _write(lines, _section(RESULTS.read_text()) if RESULTS.exists() else "")


# Dask's own cost per task (distributed's documentation: "about 1ms of overhead")
SCHEDULER_FLOOR_S = 0.001
# tasks the Dask executor keeps in flight per worker thread (planning_core.executor.dask)
WINDOW_PER_THREAD = 4


def notes(mean_pair: float, mean_plan: float, per_task: dict[str, float], time_limit: float,
          same_check: bool, same_batch: bool) -> list[str]:
    """The notes under the tables, with the estimate for 10^5 formalizations."""
    dask_overhead = per_task["dask local:2"]
    window = 2 * WINDOW_PER_THREAD

    def floor(n: int) -> float:
        # the measured rate is bound by the round trip of a window of tasks; a cluster of n
        # workers keeps n / 2 times as many in flight, down to the scheduler's own cost
        return max(dask_overhead * 2 / n, SCHEDULER_FLOOR_S)

    def wall(n: int) -> float:
        return max(1e5 * mean_pair / n, 1e5 * floor(n))

    return [
        "", "## Notes and an estimate for 10^5 formalizations", "",
        f"- Per-task cost measured here: a `cope check` pair takes {mean_pair:.3f} s CPU on "
        "average (the `local 1` command's CPU over its pairs, start-up and Fast Downward "
        "included; the mean is dominated by the few pairs that run into the "
        f"{time_limit:g} s limit), a `validate --batch` plan {mean_plan * 1000:.2f} ms "
        "(its task's parse not included).",
        "- Two workers bought little here because the machine's two cores were busy with "
        "other jobs as well (load average 4-7 during the run); the ratios between executors "
        "are what this run shows. The small `validate --batch` runs are dominated by "
        "starting workers (forking a pool, or spawning a LocalCluster and importing the "
        "engine in each worker).",
        f"- No-op tasks pass through Dask at {dask_overhead * 1000:.2f} ms of wall each with "
        f"2 workers ({per_task['dask local:1'] * 1000:.2f} ms with 1) and through local "
        f"workers at {per_task['local 2'] * 1000:.2f} ms: the Dask executor keeps "
        f"{WINDOW_PER_THREAD} tasks per worker thread in flight, so that rate is the round "
        f"trip of a window of {window} tasks through client, scheduler and worker on this "
        "loaded machine. It is hidden behind tasks that take longer than a round trip (a "
        "pair: judging a formalization means solving it, as a check does) but not behind "
        "one plan, which is why `validate --batch` sends a group of plans per task.",
        f"- 10^5 formalizations judged like these pairs need about 10^5 x {mean_pair:.3f} s "
        f"= {1e5 * mean_pair / 3600:.1f} CPU hours. On N single-threaded Dask workers the "
        f"wall time is about max(10^5 x {mean_pair:.3f} s / N, 10^5 x f(N)), where f(N) "
        f"is the client's hand-out floor per task: the measured {dask_overhead * 1000:.2f} ms "
        f"x 2 / N (N workers keep N / 2 times as many tasks in flight), but not below the "
        f"scheduler's own ~{SCHEDULER_FLOOR_S * 1000:g} ms per task. That gives "
        + "; ".join(f"N = {n}: {_duration(wall(n))}" for n in (2, 8, 32, 256, 1024))
        + f". The work term dominates up to N of about {mean_pair / SCHEDULER_FLOOR_S:.0f} "
        "workers; beyond that, larger tasks (several outputs per task) would be needed. "
        "Local workers need the first term only (N at most the cores of one machine). The "
        "pairs that hit the time limit set the tail: one that runs into the limit costs "
        "up to twice the limit in CPU on one worker, so the limit, not the worker count, "
        "bounds the slowest task.",
        f"- Rows are identical on every executor (cope check: "
        f"{'yes' if same_check else 'NO'}; validate --batch: "
        f"{'yes' if same_batch else 'NO'}): the limits inside a task are CPU time and "
        "deterministic budgets, which do not depend on where the task runs.",
        "",
        "Reproduce: `python benchmarks/executor_scaling_cope.py` (and `--full-equality` for "
        "the section below).",
        "",
    ]


MARK, END = "<!-- full-equality -->", "<!-- /full-equality -->"


def _section(text: str) -> str:
    """The full-equality section of an earlier results file (kept across scaling runs)."""
    if MARK not in text or END not in text:
        return ""
    return text[text.index(MARK):text.index(END) + len(END)] + "\n"


def _write(lines: list[str], section: str) -> None:
    RESULTS.write_text("\n".join(lines) + "\n" + section)
    print(f"wrote {RESULTS}", file=sys.stderr)


def full_equality(time_limit: float) -> None:
    """Check every pair of both datasets with ``--workers 2`` and ``--scheduler local:2``;
    write the comparison into the results file's full-equality section."""
    with tempfile.TemporaryDirectory() as tmp:
        results = {}
        for name, flags in (("local 2", ["--workers", "2"]),
                            ("dask local:2", ["--scheduler", "local:2"])):
            out = Path(tmp) / f"full-{name.replace(' ', '_')}.jsonl"
            wall, cpu, _ = timed(CLI + ["cope", "check", "--dataset", str(SHARED / "cope"),
                                        "--out", str(out), "--time-limit", str(time_limit),
                                        "--no-progress", *flags])
            results[name] = (wall, cpu, rows(out, "time_s"))
            print(f"full cope check {name}: {wall:.1f} s wall, {cpu:.1f} s CPU",
                  file=sys.stderr)
    (lw, lc, lrows), (dw, dc, drows) = results["local 2"], results["dask local:2"]
    from collections import Counter

    verdicts = Counter(r["verdict"] for r in lrows)
    section = [
        MARK, "## Full equality: every pair of both datasets", "",
        f"`cope check --dataset ../shared/data/cope --time-limit {time_limit:g} --out ...`, "
        f"{len(lrows)} pairs ({', '.join(f'{n} {v}' for v, n in sorted(verdicts.items()))}), "
        "run once with each executor, one after the other (machine shared with other "
        "jobs):", "",
        "| Executor | Wall (s) | CPU (s) |", "|---|---:|---:|",
        f"| local 2 (`--workers 2`) | {lw:.1f} | {lc:.1f} |",
        f"| dask local:2 (`--scheduler local:2`) | {dw:.1f} | {dc:.1f} |", "",
        f"**Rows identical (every field but `time_s`, in the same order): "
        f"{'yes' if lrows == drows else 'NO'}.**",
        "",
        "Reproduce: `python benchmarks/executor_scaling_cope.py --full-equality`.", END]
    text = RESULTS.read_text() if RESULTS.exists() else ""
    old = _section(text)
    RESULTS.write_text((text.replace(old, "") if old else text) + "\n".join(section) + "\n")
    print(f"wrote {RESULTS}", file=sys.stderr)


if __name__ == "__main__":
    main()
