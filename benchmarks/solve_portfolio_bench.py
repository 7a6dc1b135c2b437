"""Which engine should ``solve --engine auto`` pick? In-process search versus Fast Downward.

Issue 9 item 16: ``auto`` sent airport-adl p21 to Fast Downward (95 s) where the internal
search needs 4.7 s. This script measures, on a subset of the shared IPC tasks
(``../shared/data/ipc/MANIFEST.tsv``: by default the largest problem of every domain, the
ones where the choice matters), both engines side by side in ONE run:

* ``internal``: ``planning-core solve --engine internal --json D P`` (parse, ground, greedy
  best-first search with h_FF, or A* with ``--optimal``);
* ``fd``: ``planning-core solve --engine fd --json D P`` (Fast Downward's translator and
  search as a subprocess of that process);
* ``auto`` (the rule under test) is run too, so the table shows what it costs.

Every run is a fresh process under ``limited_process.run_limited`` (CPU and wall limit, 8 GiB
address space), started with ``nice``; CPU seconds (user + system, the process and the
children it reaped) and peak RSS come from ``os.wait4``. Engines alternate task by task, so
load from other jobs on the shared machine hits both sides alike. Each run also records the
lifted and ground sizes that the rule may look at.

Usage::

    python benchmarks/solve_portfolio_bench.py [--time-limit 20] [--tasks dom/prob,...]
        [--json runs.json] [--out benchmarks/results/solve_portfolio.md]
"""
from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent.parent / "shared" / "data" / "ipc"
if not DATA.exists():
    DATA = Path("/work/shared/data/ipc")
ENGINES = ("internal", "fd", "auto")


def manifest() -> list[dict]:
    with open(DATA / "MANIFEST.tsv", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def default_subset(rows: list[dict]) -> list[dict]:
    """The largest problem (in bytes) of every domain, in MANIFEST order of domains."""
    best: dict[str, dict] = {}
    for r in rows:
        cur = best.get(r["domain_dir"])
        if cur is None or int(r["problem_bytes"] or 0) > int(cur["problem_bytes"] or 0):
            best[r["domain_dir"]] = r
    return list(best.values())


def sizes(domain: Path, problem: Path) -> dict:
    """Lifted sizes and the task features the portfolio rule reads (parse only)."""
    from planning_core.pddl.parser import parse_domain_file, parse_problem_file
    from planning_core.search.features import features_from_text
    d, p = parse_domain_file(str(domain)), parse_problem_file(str(problem))
    feats = features_from_text(domain.read_text(errors="replace"))
    return {"objects": len(p.objects) + len(d.constants), "init": len(p.init),
            "features": list(feats.names())}


def run_one(engine: str, domain: Path, problem: Path, time_limit: float, folder: Path) -> dict:
    from planning_core.search.limited_process import run_limited
    cmd = ["nice", sys.executable, "-m", "planning_core.cli", "solve", "--engine", engine,
           "--time-limit", str(time_limit), "--json", str(domain), str(problem)]
    run = run_limited(cmd, cwd=folder, time_limit=time_limit * 2 + 10, memory_limit_mb=8192,
                      name=engine)
    row = {"engine": engine, "cpu_s": round(run.cpu_s, 3), "wall_s": round(run.wall_s, 3),
           "rss_mb": round(run.peak_rss_kb / 1024, 1), "rc": run.returncode}
    try:
        data = json.loads(run.stdout.strip().splitlines()[-1])
        row.update(status=data["status"], cost=data["cost"], used=data["engine"])
    except (ValueError, IndexError, KeyError):
        row.update(status="error", cost=None, used=engine, tail=run.tail(4))
    return row


def table(results: list[dict], time_limit: float, meta: str) -> str:
    lines = [
        "# solve --engine auto: in-process search versus Fast Downward",
        "",
        meta,
        "",
        f"Satisficing `solve` (the CLI default), time limit {time_limit:g} s per run; CPU s = "
        "user + system of the `planning-core` process and the children it reaped (Fast "
        "Downward), from `os.wait4`; `-` = no plan within the limit. `auto` is the rule as "
        "committed when the table was made; `best` is the faster engine that solved the task.",
        "",
        "| task | objects | init | features | internal CPU s | FD CPU s | auto CPU s "
        "| auto used | best | auto / best |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    summary = {"auto_is_best_or_close": 0, "tasks": 0, "auto_solved": 0, "internal_solved": 0,
               "fd_solved": 0, "either_solved": 0}
    for r in results:
        runs = {x["engine"]: x for x in r["runs"]}

        def cell(e: str) -> str:
            x = runs.get(e)
            if x is None:
                return "n/a"
            return f"{x['cpu_s']:.2f}" if x["status"] == "solved" else f"- ({x['status']})"

        solved = {e: runs[e]["cpu_s"] for e in ("internal", "fd")
                  if e in runs and runs[e]["status"] == "solved"}
        best = min(solved, key=solved.get) if solved else "-"
        auto = runs.get("auto")
        ratio = "-"
        summary["tasks"] += 1
        summary["internal_solved"] += "internal" in solved
        summary["fd_solved"] += "fd" in solved
        summary["either_solved"] += bool(solved)
        if auto is not None and auto["status"] == "solved":
            summary["auto_solved"] += 1
            if solved:
                q = auto["cpu_s"] / max(solved[best], 0.05)
                ratio = f"{q:.1f}x"
                summary["auto_is_best_or_close"] += q <= 1.5 or auto["cpu_s"] - solved[best] < 1
        lines.append(f"| {r['task']} | {r['objects']} | {r['init']} | "
                     f"{', '.join(r['features']) or '-'} | {cell('internal')} | {cell('fd')} | "
                     f"{cell('auto')} | {auto['used'] if auto else '-'} | {best} | {ratio} |")
    lines += ["", f"Summary: {summary['tasks']} tasks; solved by internal "
              f"{summary['internal_solved']}, by FD {summary['fd_solved']}, by either "
              f"{summary['either_solved']}, by auto {summary['auto_solved']}; auto within 1.5x "
              f"(or 1 s) of the faster engine on {summary['auto_is_best_or_close']}.", ""]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--time-limit", type=float, default=20.0)
    ap.add_argument("--tasks", help="comma-separated domain_dir/problem names")
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--json", help="write the raw runs here")
    ap.add_argument("--out", help="write the Markdown table here")
    args = ap.parse_args()
    rows = manifest()
    if args.tasks:
        want = set(args.tasks.split(","))
        rows = [r for r in rows if f"{r['domain_dir']}/{r['problem']}" in want]
    else:
        rows = default_subset(rows)
    results = []
    start = datetime.datetime.now(datetime.timezone.utc)
    for r in rows:
        domain = DATA / r["domain_dir"] / r["domain_file"]
        problem = DATA / r["domain_dir"] / r["problem"]
        entry = {"task": f"{r['domain_dir']} {r['problem'].removesuffix('.pddl')}",
                 **sizes(domain, problem), "runs": []}
        with tempfile.TemporaryDirectory(prefix="portfolio_") as tmp:
            for engine in args.engines.split(","):
                entry["runs"].append(run_one(engine, domain, problem, args.time_limit, Path(tmp)))
        results.append(entry)
        print(json.dumps(entry), flush=True)
    load = os.getloadavg()[0]
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    meta = (f"Made by `python benchmarks/solve_portfolio_bench.py` on "
            f"{start:%Y-%m-%d %H:%M} UTC; machine {platform.machine()}, {os.cpu_count()} "
            f"cores, shared with other engineers' jobs (load average at end {load:.2f}); "
            f"planning_core at {commit}.")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    text = table(results, args.time_limit, meta)
    if args.out:
        Path(args.out).write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
