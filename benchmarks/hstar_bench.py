"""h* of ACPBench Hard states: in-process search versus a Fast Downward subprocess.

Every dev question (8 tasks x 40) carries ``PDDL_domain`` and ``PDDL_problem`` whose
``:init`` is the question's state. For each distinct (domain, problem) pair the benchmark
measures, side by side in one run:

* ``in-process``: parse both texts, ground, and run A* with the feature-chosen admissible
  heuristic (``planning_core.search.hstar.h_star(engine="internal")``), all timed;
* ``auto``: the same with ``engine="auto"``, the portfolio scorers use (in-process A* for at
  most ``hstar.INTERNAL_BUDGET_S``, then Fast Downward on the rest of the limit);
* ``fd``: Fast Downward (``astar(lmcut())`` chosen by ``fast_downward.choose_search``) on the
  same two texts, as a subprocess, translation included.

The values of the engines must agree (it exits non-zero otherwise). The table gives per
domain the number of states, the median wall-clock milliseconds of each engine and the
ratio of the medians FD / in-process; it is written to ``benchmarks/results/hstar.md``.
Usage::

    python benchmarks/hstar_bench.py [--limit SECONDS] [--every K]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "data" / "acpbench_hard"
OUT = ROOT / "benchmarks" / "results" / "hstar.md"
TASKS = ("app", "areach", "just", "land", "nexta", "prog", "reach", "val")


def records(every: int) -> list[tuple[str, str, str]]:
    seen, out = set(), []
    for task in TASKS:
        for rec in json.loads((SHARED / task / "dev.gen.json").read_text())[::every]:
            key = (rec["PDDL_domain"], rec["PDDL_problem"])
            if key not in seen:
                seen.add(key)
                out.append((task, rec["PDDL_domain"], rec["PDDL_problem"]))
    return out


def in_process(domain_text: str, problem_text: str, engine: str, limit: float):
    from planning_core.ground.grounder import ground
    from planning_core.pddl.parser import parse_domain, parse_problem
    from planning_core.search.hstar import clear_cache, h_star
    clear_cache()
    t0 = time.perf_counter()
    domain = parse_domain(domain_text)
    problem = parse_problem(problem_text)
    task = ground(domain, problem)
    value = h_star(task, time_limit=limit, engine=engine)
    return value, time.perf_counter() - t0, domain.name


def fast_downward(domain_text: str, problem_text: str, limit: float):
    from planning_core.result import Status
    from planning_core.search.fast_downward import run_fast_downward
    t0 = time.perf_counter()
    res = run_fast_downward(domain_text, problem_text, optimal=True, time_limit=limit)
    value = res.cost if res.status is Status.SOLVED else (
        float("inf") if res.status is Status.UNSOLVABLE else None)
    return value, time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=60.0, help="seconds per state and engine")
    ap.add_argument("--every", type=int, default=1, help="use every K-th question")
    args = ap.parse_args(argv)
    rows: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    mismatches = []
    items = records(args.every)
    for n, (task, dtext, ptext) in enumerate(items, 1):
        v_in, t_in, name = in_process(dtext, ptext, "internal", args.limit)
        v_auto, t_auto, _ = in_process(dtext, ptext, "auto", args.limit)
        v_fd, t_fd = fast_downward(dtext, ptext, args.limit)
        for key, t in (("in", t_in), ("auto", t_auto), ("fd", t_fd)):
            rows[name][key].append(t)
            rows["all"][key].append(t)
        known = {v for v in (v_in, v_auto, v_fd) if v is not None}
        if len(known) > 1:
            mismatches.append((task, name, v_in, v_auto, v_fd))
        for key, v in (("unknown_in", v_in), ("unknown_fd", v_fd)):
            if v is None:
                rows[name][key].append(1)
                rows["all"][key].append(1)
        print(f"[{n}/{len(items)}] {task:6s} {name[:18]:18s} h*={v_fd} in={t_in*1000:.0f}ms "
              f"auto={t_auto*1000:.0f}ms fd={t_fd*1000:.0f}ms", file=sys.stderr, flush=True)
    lines = ["# h* of ACPBench Hard states: in-process vs Fast Downward", "",
             "Made by `python benchmarks/hstar_bench.py"
             + (f" --every {args.every}" if args.every != 1 else "")
             + (f" --limit {args.limit:g}" if args.limit != 60.0 else "") + "` "
             "(2-core machine shared with other jobs; wall-clock, parse + ground + search for "
             "in-process, translate + search subprocesses for FD).", "",
             "| domain | n | median ms in-process | median ms auto | median ms FD | "
             "ratio FD / in-process | unknown in-process / FD |",
             "|---|---|---|---|---|---|---|"]
    for name in sorted(rows, key=lambda k: (k == "all", k)):
        r = rows[name]
        m_in, m_auto, m_fd = (statistics.median(r[k]) * 1000 for k in ("in", "auto", "fd"))
        label = "**all**" if name == "all" else name
        lines.append(f"| {label} | {len(r['in'])} | {m_in:.0f} | {m_auto:.0f} | {m_fd:.0f} | "
                     f"{m_fd / m_in:.1f}x | {len(r['unknown_in'])} / {len(r['unknown_fd'])} |")
    allr = rows["all"]
    lines += ["", f"Per-state ratio FD / in-process: median "
              f"{statistics.median(f / i for f, i in zip(allr['fd'], allr['in'])):.1f}x; "
              f"in-process faster on {sum(f > i for f, i in zip(allr['fd'], allr['in']))} of "
              f"{len(allr['in'])} states; maximum in-process "
              f"{max(allr['in']) * 1000:.0f} ms, maximum auto {max(allr['auto']) * 1000:.0f} ms.",
              f"Disagreements between engines: {len(mismatches)}."]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    for m in mismatches:
        print("MISMATCH", m, file=sys.stderr)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
