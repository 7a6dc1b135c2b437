"""Checking agent tool chains: time per chain, beside Fast Downward on the same tasks.

Two sets of tasks, measured side by side in one run:

* the project's tool-use dataset (``domains/toolplans``: 40 hand-written tasks and their 80
  variants), every reference chain (valid and invalid);
* synthetic tool sets of 10^2, 10^3 and 10^4 tools: a planted chain of ``PLANTED`` tools
  leads from the user's item to the required output, every other tool is a distractor
  (one input of a random type, one output of a type off the planted chain, so the optimum
  stays ``PLANTED`` calls). Chains checked: the planted chain, and per step one chain that
  drops it (E4), one that hallucinates its input (E6) and one that calls an unknown tool (E5).

For each set: the time to compile a task (tool JSON -> PDDL AST -> validator; once per
task), the time to check one chain on a compiled task (median and p99; the verdict on an
invalid chain included), and the time Fast Downward takes to solve the same compiled
(folded) PDDL, as a subprocess with translation (``planning_core.solve(engine="fd")``),
the peer for "is this plan right" questions. All wall-clock on a shared machine; CPU-bound
Python in one process. Every planted chain must be valid and every broken one invalid with
the planted class (the benchmark exits non-zero otherwise), and FD's optimum must equal the
planted length. Results go to ``benchmarks/results/toolplans.md`` (its section "APB
settings", written by ``benchmarks/apb_agents.py``, is kept). Usage::

    python benchmarks/toolplans_bench.py [--sizes 100 1000 10000] [--repeat 5] [--fd-limit 60]
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "toolplans.md"
PLANTED = 10


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def synthetic(n_tools: int, seed: int = 0):
    from planning_core.validators.toolplans import parse_task
    rng = random.Random(seed)
    planted = [f"p{k}" for k in range(PLANTED + 1)]
    others = [f"t{k}" for k in range(max(10, n_tools // 4))]
    tools = []
    for k in range(PLANTED):
        tools.append({"name": f"step{k}", "parameters": {"type": "object", "properties": {
            "x": {"type": "string", "x-data-type": planted[k]}}, "required": ["x"]},
            "x-planning": {"produces": [planted[k + 1]]}})
    for k in range(n_tools - PLANTED):
        tools.append({"name": f"tool{k}", "parameters": {"type": "object", "properties": {
            "x": {"type": "string", "x-data-type": rng.choice(planted + others)}},
            "required": ["x"]}, "x-planning": {"produces": [rng.choice(others)]}})
    rng.shuffle(tools)
    task = parse_task({"id": f"synthetic-{n_tools}", "tools": tools,
                       "items": [{"name": "start", "type": "p0", "value": "start"}]
                       + [{"name": f"o{k}", "type": t, "value": f"o{k}"}
                          for k, t in enumerate(others[:5])],
                       "goal": [planted[-1]]})
    valid = [{"name": f"step{k}", "arguments": {"x": "start" if k == 0 else f"${k}"}}
             for k in range(PLANTED)]
    chains = [(valid, None)]
    for k in range(PLANTED):
        dropped = [dict(c) for c in valid[:k] + valid[k + 1:]]
        chains.append((dropped, "missing_prerequisite" if k < PLANTED - 1 else "incomplete"))
        halluc = [dict(c) for c in valid]
        halluc[k] = {"name": f"step{k}", "arguments": {"x": "nonexistent value"}}
        chains.append((halluc, "hallucinated_input"))
        unknown = [dict(c) for c in valid]
        unknown[k] = {"name": f"stp{k}", "arguments": {"x": "start"}}
        chains.append((unknown, "unknown_tool"))
    return task, chains


def fix_refs(chain):
    """Dropping a call shifts the step numbers of later references: keep them pointing at
    the same tool by naming it (``$step3``)."""
    out = []
    for c in chain:
        x = c["arguments"]["x"]
        if isinstance(x, str) and x.startswith("$") and x[1:].isdigit():
            x = f"$step{int(x[1:]) - 1}"
        out.append({"name": c["name"], "arguments": {"x": x}})
    return out


def prepare(ctx) -> None:
    """What a task needs before its first chain: PDDL, validators, relevant tools."""
    ctx.validator  # noqa: B018 - cached properties, built here
    ctx.prefix_validator  # noqa: B018
    ctx.relevant  # noqa: B018


def time_checks(ctx, chains, expect, repeat: int = 1) -> list[tuple[float, float]]:
    """(wall, CPU) seconds per chain and repetition (repetitions make p99 more than a
    maximum; CPU time shows what load from other jobs hides in the wall time)."""
    from planning_core.validators.toolplans import check_output
    times = []
    for _ in range(repeat):
        for chain, fault in chains:
            t0, c0 = time.perf_counter(), time.process_time()
            rep = check_output(ctx, chain, grade=False)
            times.append((time.perf_counter() - t0, time.process_time() - c0))
            expect(rep, fault, chain)
    return times


def fd_time(ctx, limit: float):
    from planning_core.solve import solve
    c = ctx.folded
    t0 = time.perf_counter()
    res = solve(c.domain, c.problem, optimal=True, engine="fd", time_limit=limit)
    return time.perf_counter() - t0, res


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    ap.add_argument("--repeat", type=int, default=5,
                    help="check every chain this many times (default 5)")
    ap.add_argument("--fd-limit", type=float, default=60.0,
                    help="seconds per Fast Downward run (default 60)")
    args = ap.parse_args()
    from planning_core.validators.toolplans import TaskContext, parse_output
    from planning_core.validators.toolplans.dataset import load_dataset
    failures: list[str] = []
    parse_output("warm_up(x=1)")  # builds the call grammar's parser once, outside the timings

    def expect(rep, fault, chain):
        got = rep.primary.kind if rep.primary else None
        if (fault is None and not rep.correct) or (fault is not None and got != fault):
            failures.append(f"expected {fault}, got {got}: {chain}")

    rows = []
    # ---- the dataset
    compile_s, check_s, fd_s = [], [], []
    n_chains = 0
    for ref in load_dataset(ROOT / "domains" / "toolplans"):
        t0 = time.perf_counter()
        ctx = TaskContext(ref.task)
        prepare(ctx)
        compile_s.append(time.perf_counter() - t0)
        chains = [((v["chain"] if isinstance(v, dict) else v), None) for v in ref.data["valid"]]
        chains += [(i["chain"], i["fault"]) for i in ref.data["invalid"]]
        check_s += time_checks(ctx, chains, expect, args.repeat)
        n_chains += len(chains)
        secs, res = fd_time(ctx, args.fd_limit)
        fd_s.append(secs)
        if (res.status.value == "solved") != ref.solvable or (ref.solvable and res.cost != ref.data["optimal_cost"]):
            failures.append(f"FD disagrees on {ref.id}: {res.status.value} {res.cost}")
    sizes = [len(r.task.tools) for r in load_dataset(ROOT / "domains" / "toolplans")]
    rows.append((f"dataset ({len(sizes)} tasks)", f"{min(sizes)}-{max(sizes)}", n_chains,
                 compile_s, check_s, fd_s))
    # ---- synthetic tool sets
    for n in args.sizes:
        task, chains = synthetic(n)
        chains = [(fix_refs(c), f) for c, f in chains]
        t0 = time.perf_counter()
        ctx = TaskContext(task)
        prepare(ctx)
        comp = time.perf_counter() - t0
        times = time_checks(ctx, chains, expect, args.repeat)
        secs, res = fd_time(ctx, args.fd_limit)
        if res.status.value == "unknown":
            secs = None  # FD hit the limit: reported as such, not a disagreement
        elif res.status.value != "solved" or res.cost != PLANTED:
            failures.append(f"FD on {n} tools: {res.status.value} {res.cost} {res.reason}")
        rows.append(("synthetic", str(n), len(chains), [comp], times, [secs]))
    lines = ["# Checking tool chains vs Fast Downward on the same compiled tasks", "",
             "Made by `python benchmarks/toolplans_bench.py` on a 2-core machine shared with "
             "other jobs (wall-clock). *compile*: tool JSON -> PDDL AST -> validators and "
             "relevant tools, once per task. *check*: one chain (parse, resolve arguments, validate, map faults; "
             "`grade=False`) on a compiled task. *FD*: Fast Downward solving the same folded "
             "PDDL optimally (subprocess, translation included).", "",
             "| tasks | tools | chains | compile ms (median) | check ms median | check ms p99 "
             "| check CPU ms median / p99 | FD ms (median) | FD / check median |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, tools, n, comp, both, fd in rows:
        chk = [w for w, _ in both]
        cpu = [c for _, c in both]
        cm, c99 = statistics.median(chk) * 1e3, pct(chk, 0.99) * 1e3
        um, u99 = statistics.median(cpu) * 1e3, pct(cpu, 0.99) * 1e3
        if None in fd:
            fd_cell, ratio = f"> {args.fd_limit * 1e3:.0f} (limit)", f"> {args.fd_limit * 1e3 / cm:.0f}x"
        else:
            fm = statistics.median(fd) * 1e3
            fd_cell, ratio = f"{fm:.0f}", f"{fm / cm:.0f}x"
        lines.append(f"| {name} | {tools} | {n} x {args.repeat} | {statistics.median(comp) * 1e3:.1f} | {cm:.2f} "
                     f"| {c99:.2f} | {um:.2f} / {u99:.2f} | {fd_cell} | {ratio} |")
    fd_bad = any("FD" in f for f in failures)
    lines += ["", f"Every chain's verdict as planted (valid accepted, invalid rejected with the "
                  f"planted fault): {'yes' if len(failures) == fd_bad * len(failures) else 'NO'}. "
                  f"Fast Downward's status and optimum equal the reference wherever it finished "
                  f"within {args.fd_limit:g} s: {'NO' if fd_bad else 'yes'}."]
    old = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
    apb = old[old.find("## APB settings"):] if "## APB settings" in old else ""
    OUT.write_text("\n".join(lines) + "\n" + ("\n" + apb if apb else ""), encoding="utf-8")
    print("\n".join(lines))
    for f in failures[:20]:
        print("FAIL", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
