"""``cope check`` over both CoPE datasets: time per pair and in total, and what it found.

Runs ``planning-core cope check --dataset ../shared/data/cope --json --workers 2`` as a
user would (one subprocess, wall clock from start to exit) and reads each pair's own time
(load, parse, check, solve, validate) from the JSON rows. Optional extras:

``--compare-fd``
    the same pairs solved by Fast Downward's ``lama-first`` alone (the written PDDL, the
    same limit as CPU budget, one subprocess per pair, two at a time), as the peer; its
    time per dataset is tabled beside ``cope check``'s. The reference pipeline's remote solver is not reachable offline.
``--formalizer``
    every pair whose ground truth is solvable and agrees with its label, fed to the PDDL
    formalizer pipeline as a model answer holding the ground truth with cosmetic changes
    (reversed sections, upper case, comments): each must come out ``correct``.

Writes ``benchmarks/results/cope_check.md``. Usage::

    python benchmarks/cope_check_bench.py [--time-limit S] [--compare-fd] [--formalizer]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data" / "cope"
RESULTS = ROOT / "benchmarks" / "results" / "cope_check.md"
sys.path.insert(0, str(ROOT / "tests"))   # the cosmetic rewriter of the formalizer tests


def run_check(time_limit: float, workers: int) -> tuple[list[dict], float]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "planning_core.console", "cope", "check",
                           "--dataset", str(SHARED), "--json", "--workers", str(workers),
                           "--time-limit", str(time_limit), "--no-progress"],
                          capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1, 3):
        sys.exit(f"cope check failed ({done.returncode}):\n{done.stderr}")
    return [json.loads(line) for line in done.stdout.splitlines()], wall


def _fd_one(job: tuple[str, str, float, str]) -> tuple[str, float, str]:
    from planning_core.errors import PlanningError
    from planning_core.pddl.parser import parse_domain_file, parse_problem_file
    from planning_core.pddl.writer import write_domain, write_problem
    from planning_core.search.fast_downward import run_fast_downward

    domain, problem, limit, dataset = job
    start = time.perf_counter()
    try:
        result = run_fast_downward(write_domain(parse_domain_file(domain)),
                                   write_problem(parse_problem_file(problem)),
                                   search="lama-first", optimal=False, time_limit=limit,
                                   cpu_budget=True)
        status = result.status.value
    except PlanningError:
        status = "error"
    return status, time.perf_counter() - start, dataset


def run_fd(rows: list[dict], time_limit: float, workers: int) -> tuple[list, float]:
    from planning_core.validators.cope.dataset import load_dataset

    pairs = {p.key: p for p in load_dataset(SHARED)}
    jobs = []
    for row in rows:
        pair = pairs[(row["dataset"], row["category"], row["problem"], row["constraint"])]
        if row["status"] != "error":
            jobs.append((str(pair.domain_path), str(pair.problem_path), time_limit,
                         row["dataset"]))
    start = time.perf_counter()
    with get_context("fork").Pool(workers) as pool:
        results = pool.map(_fd_one, jobs, chunksize=1)
    return results, time.perf_counter() - start


def run_formalizer(rows: list[dict], time_limit: float) -> tuple[Counter, float, list]:
    from formalizations.pddl_answers import answer, cosmetic
    from planning_core.validators.cope.dataset import load_dataset
    from planning_core.validators.cope.results import EvalContext
    from planning_core.validators.formalizations.pddl import judge_pddl

    pairs = {p.key: p for p in load_dataset(SHARED)}
    context = EvalContext(time_limit=time_limit, use_oracle=False)
    outcomes: Counter = Counter()
    failures = []
    start = time.perf_counter()
    for row in rows:
        if row["verdict"] != "agrees" or row["status"] != "solved":
            continue
        pair = pairs[(row["dataset"], row["category"], row["problem"], row["constraint"])]
        text = answer(cosmetic(pair.domain_path.read_text()),
                      cosmetic(pair.problem_path.read_text()))
        judgement = judge_pddl(pair, text, context)
        outcomes[judgement.outcome] += 1
        if not judgement.correct:
            failures.append((pair.key, judgement.outcome))
    return outcomes, time.perf_counter() - start, failures


def _stats(values: list[float]) -> str:
    if not values:
        return "| – | – | – | – |"
    return (f"| {statistics.mean(values):.3f} | {statistics.median(values):.3f} | "
            f"{max(values):.2f} | {sum(values):.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--compare-fd", action="store_true")
    parser.add_argument("--formalizer", action="store_true")
    args = parser.parse_args()

    rows, wall = run_check(args.time_limit, args.workers)
    lines = ["# `cope check` on CoPE BlocksWorld-100 and CoinCollector-100", "",
             f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores "
             f"(shared), Python {platform.python_version()}. Command: `planning-core cope check "
             f"--dataset ../shared/data/cope --json --workers {args.workers} --time-limit "
             f"{args.time_limit:g}`. Load average at the start: "
             f"{os.getloadavg()[0]:.1f}.", "",
             f"**Total wall time: {wall:.1f} s for {len(rows)} pairs** "
             f"(target: at most 300 s on 2 cores).", "",
             "## Verdicts", "",
             "| Dataset | Pairs | Agrees | Defect | Label disagreement | Unknown | "
             "Engine disagreement |", "|---|---:|---:|---:|---:|---:|---:|"]
    by_dataset: dict[str, Counter] = defaultdict(Counter)
    for row in rows:
        by_dataset[row["dataset"]][row["verdict"]] += 1
    for dataset, counts in sorted(by_dataset.items()):
        lines.append(f"| {dataset} | {sum(counts.values())} | {counts['agrees']} | "
                     f"{counts['defect']} | {counts['label_disagreement']} | "
                     f"{counts['unknown']} | {counts['engine_disagreement']} |")
    lines += ["", "## Time per pair (seconds, inside a worker)", "",
              "| Dataset | Engine | Status | Pairs | Mean | Median | Max | Sum |",
              "|---|---|---|---:|---:|---:|---:|---:|"]
    groups: dict[tuple, list[float]] = defaultdict(list)
    for row in rows:
        groups[(row["dataset"], row["engine"] or "–", row["status"])].append(row["time_s"])
    for key, values in sorted(groups.items()):
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {len(values)} " + _stats(values))
    lines.append("| all | | | " + str(len(rows)) + " " + _stats([r["time_s"] for r in rows]))
    proofs = Counter((r["dataset"], r.get("proof") or "–") for r in rows
                     if r["status"] == "unsolvable")
    lines += ["", "## Unsolvability proofs (the rows' `proof` field)", "",
              "| Dataset | Proof | Pairs |", "|---|---|---:|"]
    lines += [f"| {d} | {k} | {n} |" for (d, k), n in sorted(proofs.items())]
    lines += ["", "Findings (positions and evidence are in `cope check`'s text output):", ""]
    for row in rows:
        if row["verdict"] != "agrees":
            why = row["error"] or (f"plan {' '.join(row['plan'])}" if row["plan"] else "") \
                or row["reason"]
            lines.append(f"- {row['verdict']}: {row['dataset']} {row['category']} "
                         f"{row['problem']} {row['constraint']} (plan_exists="
                         f"{row['plan_exists']}, {row['status']}): {why[:160]}")
    RESULTS.write_text("\n".join(lines) + "\n")   # the check's part, before the peer runs
    if args.compare_fd:
        results, fd_wall = run_fd(rows, args.time_limit, args.workers)
        statuses = Counter(status for status, _, _ in results)
        lines += ["", "## Peer: Fast Downward lama-first alone", "",
                  "Each parsable pair solved by Fast Downward `lama-first` (written PDDL, the "
                  f"same limit as CPU budget), {args.workers} at a time; no validation.", "",
                  f"Wall time {fd_wall:.1f} s for {len(results)} pairs; statuses: "
                  + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())) + ".", "",
                  "| Solver | Pairs | Mean | Median | Max | Sum |",
                  "|---|---:|---:|---:|---:|---:|",
                  f"| Fast Downward alone | {len(results)} "
                  + _stats([t for _, t, _ in results]),
                  f"| planning_core `cope check` (solve + validate) | {len(rows)} "
                  + _stats([r["time_s"] for r in rows])]
        lines += ["", "### Time per dataset (seconds per pair summed; unknown = no answer "
                  "within the limit)", "",
                  "| Dataset | cope check | its unknown | lama-first | its unknown |",
                  "|---|---:|---:|---:|---:|"]
        for dataset in sorted(by_dataset):
            ours = [r for r in rows if r["dataset"] == dataset]
            theirs = [(s, t) for s, t, d in results if d == dataset]
            lines.append(f"| {dataset} | {sum(r['time_s'] for r in ours):.1f} | "
                         f"{sum(r['status'] == 'unknown' for r in ours)} | "
                         f"{sum(t for _, t in theirs):.1f} | "
                         f"{sum(s == 'unknown' for s, _ in theirs)} |")
    if args.formalizer:
        outcomes, seconds, failures = run_formalizer(rows, args.time_limit)
        lines += ["", "## PDDL formalizer round trip", "",
                  "Every pair that is solvable and agrees with its label, answered by a "
                  "scripted formalizer with the ground truth in cosmetic disguise (reversed "
                  "sections, upper case, comments), in one process: "
                  + ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items()))
                  + f" in {seconds:.1f} s."]
        lines += [f"- not correct: {' '.join(key)}: {outcome}" for key, outcome in failures]
    RESULTS.write_text("\n".join(lines) + "\n")
    Path("/tmp/cope_check_rows.jsonl").write_text(   # raw rows, for a look afterwards
        "".join(json.dumps(r) + "\n" for r in rows))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
