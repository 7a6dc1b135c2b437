"""Scaling of ``cope check`` and ``validate --batch`` over executors, and 10^5 pairs by Amdahl.

Issue 24 item 2: Dask's cost per task is serial (the one client and the one scheduler pay
it whatever the number of workers), so the executor sends chunks of items sized from the
measured item cost; this benchmark measures the serial and the parallel parts directly,
with the method of ``executor_scaling.py`` (``acp score``):

* ``local 1`` (``--workers 1``: in the command's process), ``local 2`` (two forked workers);
* ``dask 1`` and ``dask 2``: a real ``dask scheduler`` and 1 or 2 ``dask worker --nthreads 1
  --no-nanny`` processes on 127.0.0.1 (the process layout of a LocalCluster, with the
  scheduler in a process of its own so that its CPU can be read), started fresh for each
  run, outside the command's time; the command connects with ``--scheduler``;
* ``LocalCluster 2`` (``--scheduler local:2``): what a user runs; the command starts and
  stops the cluster, which is part of its wall time;
* on ``cope check`` of a subset of both shared CoPE datasets (every ``--stride``-th pair;
  CPU limit ``--time-limit`` per pair) and ``validate --batch`` of the VAL-judged plan
  corpus (412 plans, repeated ``--repeat-plans`` times under new ids).

Measured per run: wall; the command's CPU (for the Dask runs the client's alone, as it has
no child processes); the scheduler's CPU and the workers' CPU, Fast Downward's included
(``/proc/PID/stat``, the workers' waited-for children counted); the Dask tasks (the
scheduler's own count). Each configuration runs ``--repeat`` times, interleaved; every
figure is the median of its runs; every run's rows must equal the first run's. The load
average is recorded before and after each run. Then the per-task cost apart from any work
(no-op items, one per task, at 1x1, 2x1, 1x16 and 4x16 worker threads: the client's and the
scheduler's CPU per task), and the command's fixed cost (a check of one pair per dataset on
a 2-worker cluster). The 10^5 estimate follows Amdahl's law from CPU times only.

``--full-equality`` instead checks every pair of both datasets with ``--workers 2`` and
with ``--scheduler local:2``, compares the rows (all fields but the per-pair time) and
writes that section of the results file (a separate run: it takes minutes per executor).

Writes ``benchmarks/results/executor_scaling_cope.md`` (raw measurements to
``--raw``, from which ``--render`` rewrites the file without measuring). Usage::

    nice python benchmarks/executor_scaling_cope.py [--stride 4] [--repeat 3]
    python benchmarks/executor_scaling_cope.py --full-equality
"""
from __future__ import annotations

import argparse
import functools
import importlib.util
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
SHARED = Path(os.environ.get("PLANNING_CORE_SHARED_DATA", ROOT.parent / "shared" / "data"))
RESULTS = ROOT / "benchmarks" / "results" / "executor_scaling_cope.md"
RAW = Path(tempfile.gettempdir()) / "executor_scaling_cope.json"
CLI = [sys.executable, "-c", "import sys; from planning_core.console import main; "
                             "sys.exit(main(sys.argv[1:]))"]
VALIDATE = [sys.executable, "-c", "import sys; from planning_core.cli.validate import "
                                  "validate_main; sys.exit(validate_main(sys.argv[1:]))"]
TICK = os.sysconf("SC_CLK_TCK")
# (name, dask worker processes started outside the command (0: none), command options)
CONFIGS = (("local 1", 0, ["--workers", "1"]), ("local 2", 0, ["--workers", "2"]),
           ("dask 1", 1, []), ("dask 2", 2, []),
           ("LocalCluster 2", 0, ["--scheduler", "local:2"]))


@functools.lru_cache(maxsize=None)
def _scaling():
    """``executor_scaling.py`` (its cluster of real scheduler and worker processes, its
    no-op measurement and its chunk-sizer simulation)."""
    spec = importlib.util.spec_from_file_location(
        "executor_scaling", ROOT / "benchmarks" / "executor_scaling.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load() -> float:
    return os.getloadavg()[0]


def proc_cpu_with_children(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and its waited-for children (Fast Downward)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(fields[k]) for k in (11, 12, 13, 14)) / TICK


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


def one_run(scaling, name: str, workers: int, options: list[str], command: list[str],
            out: Path, volatile: str) -> tuple[dict, list[dict]]:
    """One run of ``command`` (writing ``out``) on the configuration ``name``: its
    measures and its rows (``volatile``, a measured time, left out)."""
    cluster = scaling.Cluster(workers) if workers else None
    try:
        if cluster is not None:
            options = ["--scheduler", cluster.address]
            sched0 = scaling.proc_cpu(cluster.scheduler.pid)
            work0 = sum(proc_cpu_with_children(w.pid) for w in cluster.workers)
            tasks0 = cluster.tasks()
        load0 = _load()
        wall, cpu, _ = timed(command + options)
        load1 = _load()
        run = {"name": name, "wall": wall, "command_cpu": cpu, "load_before": load0,
               "load_after": load1, "dask": cluster is not None}
        if cluster is not None:
            run.update(scheduler_cpu=scaling.proc_cpu(cluster.scheduler.pid) - sched0,
                       worker_cpu=sum(proc_cpu_with_children(w.pid)
                                      for w in cluster.workers) - work0,
                       tasks=cluster.tasks() - tasks0)
    finally:
        if cluster is not None:
            cluster.close()
    got = [json.loads(line) for line in out.read_text().splitlines()]
    run["items"] = len(got)
    run["longest_item_s"] = max((float(r.get(volatile) or 0.0) for r in got), default=0.0)
    print(json.dumps(run), file=sys.stderr)
    return run, [{k: v for k, v in r.items() if k != volatile} for r in got]


def measure(args) -> dict:
    """Every configuration ``args.repeat`` times, interleaved; the raw runs."""
    scaling = _scaling()
    raw: dict = {"stride": args.stride, "time_limit": args.time_limit,
                 "repeat_plans": args.repeat_plans, "repeat": args.repeat, "runs": [],
                 "fixed": [], "load_start": _load(), "started": time.strftime(
                     "%Y-%m-%d %H:%M UTC", time.gmtime())}
    with tempfile.TemporaryDirectory(prefix="executor-scaling-cope-") as tmp:
        tmp = Path(tmp)
        data, small = tmp / "cope", tmp / "cope-small"
        raw["pairs"] = subset_dataset(data, args.stride)
        raw["small_pairs"] = subset_dataset(small, 10 ** 9)
        manifest = corpus_manifest(tmp, args.repeat_plans)
        reference: dict[str, list] = {}
        for attempt in range(args.repeat):
            for name, workers, options in CONFIGS:
                for bench in ("cope check", "validate --batch"):
                    out = tmp / f"{attempt}-{bench[:4]}-{name.replace(' ', '_')}.jsonl"
                    if bench == "cope check":
                        command = CLI + ["cope", "check", "--dataset", str(data), "--out",
                                         str(out), "--time-limit", str(args.time_limit),
                                         "--no-progress", "--json"]
                        volatile = "time_s"
                    else:
                        command = VALIDATE + ["--batch", str(manifest), "--out", str(out),
                                              "--no-progress"]
                        volatile = "cpu_s"
                    run, got = one_run(scaling, name, workers, options, command, out,
                                       volatile)
                    run.update(bench=bench, attempt=attempt,
                               equal=reference.setdefault(bench, got) == got)
                    raw["runs"].append(run)
                    RAW_PATH[0].write_text(json.dumps(raw, indent=1))
        for attempt in range(args.repeat):
            out = tmp / f"small-{attempt}.jsonl"
            run, _ = one_run(scaling, "fixed", 2, [], CLI + [
                "cope", "check", "--dataset", str(small), "--out", str(out), "--time-limit",
                str(args.time_limit), "--no-progress", "--json"], out, "time_s")
            raw["fixed"].append(run)
    raw["noop_n"] = args.noop
    raw["noop"] = scaling.noop_costs(args.noop) if args.noop else []
    raw["load_end"] = _load()
    RAW_PATH[0].write_text(json.dumps(raw, indent=1))
    return raw


RAW_PATH = [RAW]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stride", type=int, default=4)
    parser.add_argument("--repeat-plans", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3, help="runs per configuration "
                        "(medians are reported)")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--noop", type=int, default=1000, help="no-op tasks per cluster")
    parser.add_argument("--raw", type=Path, default=RAW, help="raw measurements (JSON)")
    parser.add_argument("--render", action="store_true", help="rewrite the results file "
                        "from --raw without measuring")
    parser.add_argument("--full-equality", action="store_true")
    args = parser.parse_args()
    os.chdir(ROOT)
    RAW_PATH[0] = args.raw
    if args.full_equality:
        full_equality(args.time_limit)
        return
    raw = json.loads(args.raw.read_text()) if args.render else measure(args)
    text = render(raw)
    _write(text.splitlines(), _section(RESULTS.read_text()) if RESULTS.exists() else "")


def _median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f}"


def summarize(raw: dict, bench: str) -> list[dict]:
    """Per configuration, the median of each measure over its runs."""
    result = []
    for name, *_ in CONFIGS:
        runs = [r for r in raw["runs"] if r["bench"] == bench and r["name"] == name]
        if not runs:
            continue
        s = {"name": name, "dask": runs[0]["dask"], "n": len(runs),
             "items": runs[0]["items"], "equal": all(r["equal"] for r in runs),
             "loads": [(r["load_before"], r["load_after"]) for r in runs]}
        for key in ("wall", "command_cpu", "scheduler_cpu", "worker_cpu", "tasks",
                    "longest_item_s"):
            if key in runs[0]:
                s[key] = _median(runs, key)
        result.append(s)
    return result


def bench_tables(rows_: list[dict], unit: str) -> list[str]:
    base = rows_[0]["wall"]
    lines = ["| run | wall s | speed-up vs local 1 | command CPU s | scheduler CPU s | "
             "workers' CPU s | Dask tasks | load before-after (each run) | rows equal |",
             "|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in rows_:
        loads = ", ".join(f"{a:.1f}-{b:.1f}" for a, b in r["loads"])
        if r["dask"]:
            lines.append(f"| {r['name']} | {r['wall']:.1f} | {base / r['wall']:.2f} | "
                         f"{r['command_cpu']:.2f} (client) | {r['scheduler_cpu']:.2f} | "
                         f"{r['worker_cpu']:.2f} | {r['tasks']:.0f} | {loads} | "
                         f"{'yes' if r['equal'] else 'NO'} |")
        else:
            what = "with its cluster" if r["name"].startswith("LocalCluster") else \
                "with its workers"
            lines.append(f"| {r['name']} | {r['wall']:.1f} | {base / r['wall']:.2f} | "
                         f"{r['command_cpu']:.2f} ({what}) | - | - | - | {loads} | "
                         f"{'yes' if r['equal'] else 'NO'} |")
    lines += ["", f"Per {unit} (CPU ms, medians):", "",
              "| run | client | scheduler | workers | serial part (client + scheduler) |",
              "|---|---:|---:|---:|---:|"]
    for r in rows_:
        if r["dask"]:
            n = r["items"]
            lines.append(f"| {r['name']} | {_ms(r['command_cpu'] / n)} | "
                         f"{_ms(r['scheduler_cpu'] / n)} | {_ms(r['worker_cpu'] / n)} | "
                         f"{_ms((r['command_cpu'] + r['scheduler_cpu']) / n)} |")
    return lines


def render(raw: dict) -> str:
    scaling = _scaling()
    check = summarize(raw, "cope check")
    batch = summarize(raw, "validate --batch")
    pairs, plans = raw["pairs"], 412 * raw["repeat_plans"]
    loads = [x for r in raw["runs"] for x in (r["load_before"], r["load_after"])]
    busy = sum(1 for x in loads if x > 1.5)
    load_note = (
        f"Load average (1 min) before and after each run: {min(loads):.1f} to "
        f"{max(loads):.1f}, median {statistics.median(loads):.1f}; "
        f"{raw['load_start']:.1f} at the start, {raw['load_end']:.1f} at the end. ")
    if busy > len(loads) / 4:
        load_note += (
            f"**{busy} of {len(loads)} readings were above 1.5 on this 2-core machine (other "
            "engineers' jobs ran alongside), so the wall times and their ratios are not "
            "clean: a run waited for a core part of its time. The CPU times are the figures "
            "to trust, and the model below is fed CPU times only.**")
    else:
        load_note += ("Most readings were at or under 1.5 on this 2-core machine, so the "
                      "wall times are usable; the model below is still fed CPU times only.")
    by = {r["name"]: r for r in check}
    bb = {r["name"]: r for r in batch}
    d1, d2 = by["dask 1"], by["dask 2"]
    lines = [
        "# Executors for `cope check` and `validate --batch`: where the time goes, and "
        "10^5 pairs by Amdahl's law",
        "",
        f"Measured {raw['started']} on {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, with the chunked Dask executor (chunks sized from the "
        "measured item cost, results fetched from the workers). Each row is one fresh "
        "command process. `dask 1` and `dask 2` run on a real `dask scheduler` and 1 or 2 "
        "`dask worker --nthreads 1 --no-nanny` processes on 127.0.0.1, started before the "
        "command (as a cluster is; a LocalCluster has the same processes, with the "
        "scheduler inside the command, where its CPU cannot be told from the client's) and "
        "read from `/proc`: the command's CPU is the client's alone, the workers' includes "
        "Fast Downward's. `LocalCluster 2` is `--scheduler local:2` as a user runs it: the "
        "command starts and stops the cluster inside its wall time. Each configuration ran "
        f"{raw['repeat']} times, interleaved, with a fresh cluster each time; every figure "
        "is the median of its runs, and every run's rows are compared with the first "
        "run's. " + load_note,
        "",
        f"## `cope check`: {pairs} pairs (every {raw['stride']}th pair of BlocksWorld-100 "
        f"and CoinCollector-100), CPU limit {raw['time_limit']:g} s per pair",
        "",
        *bench_tables(check, "pair"),
        "",
        f"## `validate --batch`: the VAL corpus x {raw['repeat_plans']} ({plans} plans, "
        "38 tasks)",
        "",
        *bench_tables(batch, "plan"),
        "",
        f"A plan costs {_ms(bb['dask 2']['worker_cpu'] / plans)} ms of worker CPU in "
        f"`dask 2` (the workers' parse of each task they meet included) against "
        f"{_ms((bb['dask 2']['command_cpu'] + bb['dask 2']['scheduler_cpu']) / plans)} ms of "
        "client and scheduler CPU, and a run of this size is mostly start-up: forking a "
        "pool, or the client connecting and each worker importing the engine. The executor "
        "sends groups of plans of one task (`task_groups`), and the chunk sizer packs the "
        "groups into the Dask tasks counted above.",
    ]
    noop = raw.get("noop") or []
    if noop:
        lines += [
            "", "## The cost of a task, apart from any work", "",
            f"{raw['noop_n']:,} items that do nothing, one per task, through a cluster "
            "already running (client CPU from `process_time`, scheduler CPU from `/proc`), "
            "and the same items with the chunk sizer on:", "",
            "| worker processes x threads | client CPU ms/task | scheduler CPU ms/task | "
            "wall ms/task | chunked: tasks | chunked: wall s |",
            "|---|---:|---:|---:|---:|---:|"]
        for c in noop:
            lines.append(f"| {c['workers']} x {c['threads']} | {_ms(c['client'])} | "
                         f"{_ms(c['scheduler'])} | {_ms(c['wall'])} | "
                         f"{c['chunked_tasks']:,} | {c['chunked_wall']:.2f} |")
        per_task_client = statistics.fmean(c["client"] for c in noop)
        sched_task = {c["workers"] * c["threads"]: c["scheduler"] for c in noop}
    else:   # no no-op runs: the per-task costs measured inside the 2-worker run
        per_task_client = 0.0
        sched_task = {2: d2["scheduler_cpu"] / max(1, d2["tasks"])}
    widest = max(sched_task)
    # ---------------------------------------------------------------- the model
    fixed = statistics.median(r["command_cpu"] for r in raw["fixed"])
    fixed_wall = statistics.median(r["wall"] for r in raw["fixed"])
    worker = d2["worker_cpu"] / pairs                    # the parallel part, per pair
    client_rows = max(0.0, (d2["command_cpu"] - fixed - d2["tasks"] * per_task_client)
                      / pairs)
    longest = max(r["longest_item_s"] for r in check)

    def sched(threads: int) -> float:
        return sched_task.get(threads) or sched_task[min(sched_task, key=lambda t:
                                                         abs(t - threads))]

    def model(n: float, threads: int) -> tuple[float, float, int]:
        tasks = scaling.simulated_tasks(int(n), worker, threads)
        serial = fixed + n * client_rows + tasks * (per_task_client + sched(threads))
        return serial, n * worker / threads, tasks

    lines += [
        "", "## 10^5 pairs (Amdahl)", "",
        "T(N) = serial + parallel / N, from the CPU times measured above:", "",
        f"* parallel part: the workers' CPU per pair in the `dask 2` run, {_ms(worker)} ms "
        f"(checking the pair, Fast Downward's solves included; unpickling pairs, pickling "
        f"checks); at 1 worker "
        f"it was {_ms(d1['worker_cpu'] / pairs)} ms;",
        f"* serial part: the command's fixed cost, {fixed:.2f} s of CPU (start-up, imports, "
        f"reading the datasets, connecting: `cope check` of {raw['small_pairs']} pairs on "
        f"a 2-worker cluster, {fixed_wall:.1f} s wall), its own work per pair, "
        f"{_ms(client_rows)} ms (the `dask 2` client's CPU less the fixed cost and its "
        f"tasks), plus per task the client's {_ms(per_task_client)} ms (mean over the no-op "
        f"clusters) and the scheduler's (measured at {', '.join(map(str, sorted(sched_task)))}"
        f" threads; the nearest is used, the {widest}-thread figure beyond);",
        "* tasks: what the executor's own `ChunkSizer` makes of the pairs at the measured "
        "pair cost (the first window, 2 N chunks, are single pairs, to measure the cost; "
        "then chunks of at least `target_s(N)` seconds, at most remaining / (4 N); so the "
        "single-pair probes are most of the tasks at 512 and more workers).",
        "",
        "Assumptions: the client, the scheduler and every worker have a core of their own "
        "(here they shared 2); the serial parts do not overlap each other or the workers "
        "(an upper bound: in fact they run at once); the workers' CPU per pair does not "
        "change with N (each worker keeps its own ground-truth cache, so a pair whose "
        "problem another worker already solved costs more: the 2-worker figure is used); "
        "the pairs cost what this subset's do ("
        + (f"none ran into the {raw['time_limit']:g} s limit: the longest took {longest:.1f} s; "
           "a mix with more pairs at the limit has a larger parallel part"
           if longest < 0.9 * raw["time_limit"] else
           f"pairs ran into the {raw['time_limit']:g} s limit: in `local 1` the longest took "
           f"{by['local 1']['longest_item_s']:.1f} s of the run's "
           f"{by['local 1']['command_cpu']:.1f} s of CPU, so the few such pairs weigh "
           "heavily in the mean")
        + f"); the scheduler's cost per task beyond "
        f"{widest} threads is the {widest}-thread figure; the chunk sizer sees a chunk's "
        "wall time inside the worker, here taken equal to its CPU; reading the datasets "
        "and writing `--out` stay in the one command process. No T(N) is below the "
        f"longest single pair, {longest:.1f} s here (a pair's limit is CPU time: one that "
        "runs into it takes about the limit plus the ground truth's solve).",
        "",
        "Measured points beside the model (CPU-based model vs measured wall):", "",
        "| run | model s | measured wall s (median) |", "|---|---:|---:|",
    ]
    for r, threads in ((d1, 1), (d2, 2)):
        serial, parallel, _ = model(pairs, threads)
        lines.append(f"| {r['name']} ({pairs} pairs) | {serial + parallel:.1f} | "
                     f"{r['wall']:.1f} |")
    lines += [
        "", "| workers N | tasks | serial part | parallel part | T(N) for 10^5 pairs | "
        "serial share |", "|---:|---:|---:|---:|---:|---:|"]
    for threads in (1, 2, 8, 32, 128, 512, 1024):
        serial, parallel, tasks = model(1e5, threads)
        total = max(serial + parallel, longest)
        lines.append(f"| {threads} | {tasks:,} | {_duration(serial)} | "
                     f"{_duration(parallel)} | {_duration(total)} | "
                     f"{serial / (serial + parallel):.0%} |")
    serial_1k, parallel_1k, tasks_1k = model(1e5, 1024)
    crossing = next((t for t in (1, 2, 8, 32, 128, 512, 1024)
                     if model(1e5, t)[0] >= model(1e5, t)[1]), None)
    lines += [
        "",
        f"A pair costs {_ms(worker)} ms of worker CPU against "
        f"{_ms((d2['command_cpu'] + d2['scheduler_cpu']) / pairs)} ms of client and "
        "scheduler CPU in `dask 2` (the client's fixed start-up included; "
        f"{_ms(client_rows + d2['tasks'] * (per_task_client + sched(2)) / pairs)} ms without "
        "it). "
        + (f"The serial part is as large as the parallel part from N = {crossing} on in the "
           "table: beyond that more workers buy little. " if crossing else
           "The parallel part stays the larger up to the widest N in the table. ")
        + f"At 1,024 workers the serial part is {_duration(serial_1k)} of "
        f"{_duration(serial_1k + parallel_1k)}: {tasks_1k:,} tasks cost "
        f"{_duration(tasks_1k * (per_task_client + sched(1024)))} of client and scheduler "
        f"CPU, the command's own work per pair (reading the pairs, ordering and writing "
        f"rows) {_duration(1e5 * client_rows)}, start-up {_duration(fixed)}. Local workers "
        "pay no per-task Dask cost but stop at one machine's cores; a larger job is split "
        "into several datasets, each its own command with its own `--out`, on one cluster.",
        "",
        "Reproduce: `nice python benchmarks/executor_scaling_cope.py` (raw measurements to "
        "`--raw`; `--render` rewrites this file from them; `--full-equality` for the "
        "section below).",
        "",
    ]
    return "\n".join(lines)


def _duration(seconds: float) -> str:
    return _scaling()._duration(seconds)


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
