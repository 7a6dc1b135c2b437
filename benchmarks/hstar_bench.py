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

``--ipc`` measures search speed instead (issue 24), on the shared IPC tasks without
conditional effects or axioms that have a stored plan: in-process A* with LM-cut, stopped
after ``--nodes`` expansions or ``--cpu`` CPU seconds, gives expansions per CPU second of
the search (grounding excluded); Fast Downward's ``astar(lmcut())`` on the same task gives
its expansions over its own reported search time. ``--json FILE`` keeps the rows;
``--before FILE`` (rows of an earlier run, e.g. of the code before a change) adds them as
the "before" column and reuses their Fast Downward figures (``--no-fd``). It writes the
section ``## Search speed`` of ``benchmarks/results/hstar.md``, keeping the rest::

    python benchmarks/hstar_bench.py --ipc --json before.json          # old code
    python benchmarks/hstar_bench.py --ipc --before before.json --no-fd # new code
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("PLANNING_CORE_SHARED_DATA", ROOT.parent / "shared" / "data"))
SHARED = DATA / "acpbench_hard"
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


IPC = DATA / "ipc"
IPC_TASKS = ("blocks/probBLOCKS-8-0.pddl", "depot/p02.pddl", "elevators-opt08-strips/p01.pddl",
             "ferry/p-10locs-5cars.pddl", "floortile-opt11-strips/opt-p01-001.pddl",
             "grid/prob01.pddl", "gripper/prob02.pddl", "hiking-opt14-strips/ptesting-1-2-3.pddl",
             "logistics00/probLOGISTICS-5-0.pddl", "miconic/s2-0.pddl",
             "openstacks-strips/p01.pddl", "parking-opt11-strips/pfile03-011.pddl",
             "rovers/p01.pddl", "satellite/p02-pfile2.pddl", "scanalyzer-opt11-strips/p01.pddl",
             "sokoban-opt08-strips/p01.pddl", "tpp/p03.pddl",
             "visitall-opt11-strips/problem04-full.pddl", "zenotravel/p02.pddl")
SPEED = "## Search speed"
NOTES = "### Findings (by hand)"


def ipc_speed(rel: str, nodes: int, cpu: float, fd: bool) -> dict:
    from planning_core.ground.grounder import ground
    from planning_core.pddl.parser import parse_domain_file, parse_problem_file
    from planning_core.search.astar import astar
    folder, name = rel.split("/")
    domain = IPC / folder / next(row.split("\t")[2] for row in
                                 (IPC / "MANIFEST.tsv").read_text().splitlines()
                                 if row.split("\t")[:2] == [folder, name])
    problem = IPC / rel
    task = ground(parse_domain_file(domain), parse_problem_file(problem))
    t0 = time.process_time()
    out = astar(task, heuristic="lmcut", node_limit=nodes, time_limit=cpu)
    spent = time.process_time() - t0
    row = {"task": rel, "actions": len(task.actions), "expanded": out.expanded,
           "generated": out.generated, "cpu_s": spent, "status": out.status.name,
           "cost": out.cost}
    if fd:
        from planning_core.search.fast_downward import run_fast_downward
        res = run_fast_downward(domain, problem, search="astar(lmcut())", time_limit=120)
        stats = dict(res.stats)
        row.update(fd_expanded=stats.get("expanded"), fd_search_s=stats.get("search_time_s"),
                   fd_status=res.status.name, fd_cost=res.cost)
    return row


def _rate(expanded, seconds) -> float | None:
    return expanded / seconds if expanded and seconds else None


def _fmt(x: float | None) -> str:
    return "-" if x is None else (f"{x:.0f}" if x >= 100 else f"{x:.1f}")


def _old_tree_row(tree: str, rel: str, args) -> dict:
    """``ipc_speed`` of this file run with the planning_core of ``tree`` (an export of an
    older commit) first on the path."""
    env = dict(os.environ, PYTHONPATH=tree)
    # this file puts its own tree first on sys.path: the old tree must come first instead
    code = ("import json, runpy, sys; b = runpy.run_path(sys.argv[1]); "
            "sys.path[:] = [sys.argv[5]] + [p for p in sys.path if p != str(b['ROOT'])]; "
            "row = b['ipc_speed'](sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), False); "
            "import planning_core; row['code'] = planning_core.__file__; print(json.dumps(row))")
    done = subprocess.run([sys.executable, "-c", code, __file__, rel, str(args.nodes),
                           str(args.cpu), str(Path(tree).resolve())], capture_output=True,
                          text=True, env=env, check=True, cwd=tree)
    row = json.loads(done.stdout.strip().splitlines()[-1])
    if not row["code"].startswith(str(Path(tree).resolve())):
        raise SystemExit(f"the old tree's run imported {row['code']}")
    return row


def _median_row(rows: list[dict]) -> dict:
    """The row of median expansion rate (its counts and CPU kept together)."""
    ranked = sorted(rows, key=lambda r: _rate(r["expanded"], r["cpu_s"]) or 0.0)
    return dict(ranked[len(ranked) // 2], rounds=len(rows))


def speed_main(args) -> int:
    before = {r["task"]: r for r in json.loads(Path(args.before).read_text())} \
        if args.before else {}
    rows = []
    for k, rel in enumerate(IPC_TASKS):
        if args.before_tree:  # paired: the old tree and this one alternate on each task
            old_rows, new_rows = [], []
            for r in range(args.rounds):
                for side in (("old", "new") if (k + r) % 2 == 0 else ("new", "old")):
                    if side == "old":
                        old_rows.append(_old_tree_row(args.before_tree, rel, args))
                    else:
                        new_rows.append(ipc_speed(rel, args.nodes, args.cpu, fd=False))
            before[rel] = _median_row(old_rows)
            row = _median_row(new_rows)
            if not args.no_fd:
                row.update({k2: v for k2, v in ipc_speed(rel, 1, 1.0, fd=True).items()
                            if k2.startswith("fd_")})
        else:
            row = ipc_speed(rel, args.nodes, args.cpu, fd=not args.no_fd)
        if args.no_fd and rel in before:
            row.update({k2: v for k2, v in before[rel].items() if k2.startswith("fd_")})
        rows.append(row)
        print(f"{rel}: {row['expanded']} exp in {row['cpu_s']:.2f}s cpu "
              f"({row['status']})", file=sys.stderr, flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    lines = [SPEED, "",
             f"Made by `python benchmarks/hstar_bench.py --ipc --nodes {args.nodes} --cpu "
             f"{args.cpu:g}" + (f" --before-tree OLD --rounds {args.rounds}`: the code before "
             "the change (OLD) and after it alternate on each task, median of the rounds per "
             "side" if args.before_tree else "`") + " (2-core machine shared with other "
             "jobs). A* with LM-cut from the "
             "initial state of each shared IPC task, stopped after the node or CPU limit; "
             "expansions per CPU second of the search (grounding excluded). Fast Downward: "
             "`astar(lmcut())` run to the end, its own expansions over its own search time. "
             "Equal plan costs where both finished.", "",
             "| task | ground actions | expanded | before exp/s | after exp/s | speed-up | "
             "FD exp/s | FD / after |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    ups = []
    for row in rows:
        old = before.get(row["task"])
        after = _rate(row["expanded"], row["cpu_s"])
        prev = _rate(old["expanded"], old["cpu_s"]) if old else None
        fd = _rate(row.get("fd_expanded"), row.get("fd_search_s"))
        if prev and after:
            ups.append(after / prev)
        if old and old["status"] == row["status"] == "SOLVED" and old["cost"] != row["cost"]:
            raise SystemExit(f"{row['task']}: cost {row['cost']} differs from {old['cost']}")
        lines.append(f"| {row['task']} | {row['actions']} | {row['expanded']} | {_fmt(prev)} | "
                     f"{_fmt(after)} | {_fmt(after / prev) + 'x' if prev and after else '-'} | "
                     f"{_fmt(fd)} | {_fmt(fd / after) + 'x' if fd and after else '-'} |")
    if ups:
        lines += ["", f"Median speed-up over the tasks: {statistics.median(ups):.2f}x "
                      f"(min {min(ups):.2f}x, max {max(ups):.2f}x)."]
    text = OUT.read_text() if OUT.exists() else ""
    head = text.split(SPEED)[0].rstrip()
    notes = text.split(SPEED, 1)[1].split(NOTES, 1) if SPEED in text else []
    kept = "\n" + NOTES + notes[1] if len(notes) == 2 else ""  # notes by hand are kept
    OUT.write_text((head + "\n\n" if head else "") + "\n".join(lines) + "\n" + kept)
    print("\n".join(lines))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=60.0, help="seconds per state and engine")
    ap.add_argument("--every", type=int, default=1, help="use every K-th question")
    ap.add_argument("--ipc", action="store_true", help="search speed on shared IPC tasks")
    ap.add_argument("--nodes", type=int, default=1000, help="--ipc: expansions per task")
    ap.add_argument("--cpu", type=float, default=15.0, help="--ipc: CPU seconds per task")
    ap.add_argument("--json", help="--ipc: write the rows here")
    ap.add_argument("--before", help="--ipc: rows of an earlier run")
    ap.add_argument("--no-fd", action="store_true", help="--ipc: take FD's rows from --before")
    ap.add_argument("--before-tree", help="--ipc: a folder with an older planning_core (e.g. "
                    "`git archive OLD | tar x -C DIR`), run alternately with this one")
    ap.add_argument("--rounds", type=int, default=3, help="--before-tree: runs per side")
    args = ap.parse_args(argv)
    if args.ipc:
        return speed_main(args)
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
    old = OUT.read_text() if OUT.exists() else ""
    kept = SPEED + old.split(SPEED, 1)[1] if SPEED in old else ""
    OUT.write_text("\n".join(lines) + "\n" + ("\n" + kept if kept else ""))
    print("\n".join(lines))
    for m in mismatches:
        print("MISMATCH", m, file=sys.stderr)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
