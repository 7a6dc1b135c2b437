"""PDDL 2.1 random differential: random mutations of the planners' plans on the IPC 2002
numeric, time and simple-time tasks, judged by VAL and by our ``validate``.

Beyond the fixed mutations of ``pddl21_differential.py`` (whose plan and task readers, VAL
output classification and in-process ``validate`` call this file imports), every plan gets
``--per-plan`` random cases from a fixed seed. A case applies 1 to 3 random edits at once:

* ``shift``: one step's time moved by a delta drawn mostly from the tolerance boundary
  (+-0.005, +-0.0099, +-0.01, +-0.0101, +-0.001, +-0.0005, +-0.0011; a plan at ``-t 0.001``
  gets those scaled by 0.1 too) and otherwise uniform in [-1, 1] (timed plans);
* ``scale``: one durative step's duration multiplied by a factor in {0.5, 0.9, 0.99, 1.01,
  1.1, 2} or moved by a boundary delta;
* ``swap``: two steps exchange their start times (timed) or places (sequential);
* ``init``: one numeric value of the problem's ``:init`` moved by a small amount
  (+-0.0001, +-0.00005, +-0.5, +-1, or a random fraction of it), or, for a step's
  comparison of two fluents with init values, one side set to the other's value (the
  comparison at exact equality);
* ``drop`` / ``dup``: one step removed / repeated (timed: the copy starts at the
  original's start plus a boundary delta or at its end plus one).

Usage::

    nice -n 10 python benchmarks/pddl21_random.py --val /path/to/Validate [--seed 21]
        [--per-plan 4] [--limit N] [--max-cases N]

Writes ``benchmarks/results/pddl21_random.md`` (the section "Findings (by hand)" is kept
from the previous file) and ``benchmarks/results/pddl21_random.jsonl`` (one row per case).
"""
from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pddl21_differential as diff  # noqa: E402

ROOT = diff.ROOT
RESULTS = ROOT / "benchmarks" / "results" / "pddl21_random.md"
BOUNDARY = (0.005, 0.0099, 0.01, 0.0101, 0.001, 0.0005, 0.0011)
_INIT_ANY = re.compile(r"\(\s*=\s*(\([^()]*\))\s*(-?[0-9.]+)\s*\)")


def _delta(rng: random.Random, tol: float) -> float:
    if rng.random() < 0.75:
        d = rng.choice(BOUNDARY) * (0.1 if tol < 0.01 and rng.random() < 0.5 else 1)
        return d if rng.random() < 0.5 else -d
    return round(rng.uniform(-1, 1), 4)


def _init_values(problem_text: str) -> list[tuple[int, int, tuple, float]]:
    """(start, end of the number, fluent, value) of every numeric :init value."""
    out = []
    for m in _INIT_ANY.finditer(problem_text):
        fluent = tuple(m.group(1).lower().strip("()").split())
        out.append((m.start(2), m.end(2), fluent, float(m.group(2))))
    return out


def _set_value(problem_text: str, start: int, end: int, value: float) -> str:
    return problem_text[:start] + diff._num(value) + problem_text[end:]


def _edit_init(rng, steps, schemas, problem_text, timed):
    values = _init_values(problem_text)
    if not values:
        return None
    by_fluent = {v[2]: v for v in values}
    if rng.random() < 0.4:
        # a comparison of two fluents with init values: one side set to the other's value
        pairs = []
        for step in steps:
            *_, comps = diff._footprint(step, schemas, "start")
            for comp in comps:
                left, right = set(), set()
                diff._fluents([comp[1]], left)
                diff._fluents([comp[2]], right)
                for a in sorted(left):
                    for b in sorted(right):
                        if a in by_fluent and b in by_fluent and a != b:
                            pairs.append((a, b, diff._show(comp), step.action))
        if pairs:
            a, b, comp, action = rng.choice(pairs)
            if rng.random() < 0.5:
                a, b = b, a
            s, e, _, old = by_fluent[a]
            new = by_fluent[b][3]
            return problem_text if new == old else _set_value(problem_text, s, e, new), \
                f"init ({' '.join(a)}) {diff._num(old)} -> {diff._num(new)} (= ({' '.join(b)})," \
                f" {comp} of ({action}))"
    s, e, fluent, old = rng.choice(values)
    step = rng.choice((0.0001, 0.00005, 0.5, 1.0, round(rng.uniform(0, 0.05) * max(1, abs(old)), 4)))
    new = round(old + (step if rng.random() < 0.5 else -step), 6)
    return _set_value(problem_text, s, e, new), \
        f"init ({' '.join(fluent)}) {diff._num(old)} -> {diff._num(new)}"


def random_case(rng: random.Random, steps, schemas, problem_text: str, timed: bool,
                tol: float, only: tuple[str, ...] = ()) -> tuple[str, str, str] | None:
    """(plan text, problem text, what was done) of 1-3 random edits, or None."""
    steps = list(steps)
    what = []
    # weighted to the edits that keep a plan near valid (boundary shifts, small init moves)
    kinds = ["swap", "init", "init", "drop", "dup"] \
        + (["shift"] * 4 + ["scale"] * 2 if timed else ["init"])
    if only:
        kinds = [k for k in kinds if k in only] or kinds
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        kind = rng.choice(kinds)
        n = len(steps)
        if n == 0 and kind != "init":
            continue
        i = rng.randrange(n) if n else 0
        if kind == "shift":
            d = _delta(rng, tol)
            new = round(max(0.0, steps[i].time + d), 6)
            what.append(f"shift #{i + 1} {steps[i].time:g}->{new:g}")
            steps[i] = replace(steps[i], time=new)
        elif kind == "scale":
            dur = [k for k in range(n) if steps[k].duration]
            if not dur:
                continue
            i = rng.choice(dur)
            if rng.random() < 0.5:
                new = steps[i].duration * rng.choice((0.5, 0.9, 0.99, 1.01, 1.1, 2))
            else:
                new = steps[i].duration + _delta(rng, tol)
            new = round(max(0.001, new), 6)
            what.append(f"duration #{i + 1} {steps[i].duration:g}->{new:g}")
            steps[i] = replace(steps[i], duration=new)
        elif kind == "swap":
            if n < 2:
                continue
            j = rng.randrange(n - 1)
            j = j + 1 if j >= i else j
            if timed:
                ti, tj = steps[i].time, steps[j].time
                steps[i], steps[j] = replace(steps[i], time=tj), replace(steps[j], time=ti)
                what.append(f"swap times #{i + 1}<->#{j + 1}")
            else:
                steps[i], steps[j] = steps[j], steps[i]
                what.append(f"swap #{i + 1}<->#{j + 1}")
        elif kind == "drop":
            what.append(f"drop #{i + 1} ({steps[i].action})")
            del steps[i]
        elif kind == "dup":
            if timed:
                if rng.random() < 0.5:
                    at = steps[i].time + abs(_delta(rng, tol))
                else:
                    at = steps[i].time + (steps[i].duration or 0) + rng.choice(BOUNDARY + (1.0,))
                at = round(at, 6)
                steps.insert(i + 1, replace(steps[i], time=at))
                what.append(f"dup #{i + 1} at {at:g}")
            else:
                steps.insert(i + 1, steps[i])
                what.append(f"dup #{i + 1}")
        elif kind == "init":
            done = _edit_init(rng, steps, schemas, problem_text, timed)
            if done is None:
                continue
            problem_text, text = done
            what.append(text)
    if not what:
        return None
    return diff.write_plan(steps), problem_text, "; ".join(what)


_SATISFY = re.compile(r"\(Satisfy (.*)\)\s*$", re.M)
_VALUE = re.compile(r"\[=(-?[0-9.eE+-]+)\]")
_OP = re.compile(r"\]\s*(>=|<=|>|<|=)\s")
#: VAL's margin on every numeric comparison (``tooSmall`` in its ``Proposition.cpp``)
VAL_MARGIN = 0.0001


def _satisfy(output: str) -> str:
    """Our repair advice's ``(Satisfy ...)`` line: the failed condition with its values."""
    found = _SATISFY.search(output)
    return found.group(1).strip() if found else ""


def classify(row: dict) -> str:
    """A disagreement's class, from our failed condition's two values: ``margin`` when VAL
    accepts and the comparison misses by at most VAL's 0.0001 margin (at equality for a
    strict one), else ``other`` (diagnosed by hand)."""
    why = row.get("why", "")
    op = _OP.search(why) or re.search(r"\s(>=|<=|>|<)\s", why)
    values = []
    if op:
        for side in (why[:op.start(1)], why[op.end(1):]):
            found = _VALUE.findall(side) or re.findall(r"^\s*(-?[0-9.]+)\s*$", side)
            values += [float(x) for x in found[-1:] if side.count("[=") <= 1]
    if row["val"] == "valid" and row["ours"] == "invalid" and len(values) == 2 and op:
        gap = {">": values[0] - values[1], ">=": values[0] - values[1],
               "<": values[1] - values[0], "<=": values[1] - values[0]}.get(op.group(1))
        if gap is not None and -VAL_MARGIN <= gap <= 0:
            return f"margin ({op.group(1)} misses by {abs(gap):g})"
    return "other"


def run(args) -> list[dict]:
    rng = random.Random(args.seed)
    files = diff.plan_files(Path(args.plans))
    # a seeded order over all variants, so a cut (--limit, --max-cases) still covers them
    random.Random(args.seed).shuffle(files)
    if args.variants:
        files = [f for f in files if args.variants in f[1]]
    if args.limit:
        files = files[:args.limit]
    rows: list[dict] = []
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="pddl21rand_") as tmp:
        for count, (planner, variant, inst, path) in enumerate(files):
            domain = diff.DATA / variant / "domain.pddl"
            problem = diff.DATA / variant / "instances" / f"{inst}.pddl"
            problem_text = problem.read_text()
            schemas = diff.read_domain(domain.read_text())
            steps = diff.read_plan(path.read_text())
            timed = "-time" in variant
            tol = diff.LPG_TOLERANCE if planner == "lpg" and timed else diff.DEFAULT_TOLERANCE
            for k in range(args.per_plan):
                case = random_case(rng, steps, schemas, problem_text, timed, tol,
                                   tuple(args.kinds.split(",")) if args.kinds else ())
                if case is None:
                    continue
                plan_text, prob_text, what = case
                plan_path = Path(tmp) / "case.plan"
                plan_path.write_text(plan_text)
                prob_path = problem
                if prob_text != problem_text:
                    prob_path = Path(tmp) / "case-problem.pddl"
                    prob_path.write_text(prob_text)
                val_cmd = [args.val, "-t", str(tol), str(domain), str(prob_path), str(plan_path)]
                vout = subprocess.run(val_cmd, capture_output=True, text=True, timeout=120)
                vout = vout.stdout + vout.stderr
                ocode, oout = diff._ours_in_process(["-t", str(tol), str(plan_path), str(domain),
                                                     str(prob_path)])
                row = dict(planner=planner, variant=variant, instance=inst, k=k, tolerance=tol,
                           what=what, val=diff.val_verdict(vout), ours=diff.ours_verdict(ocode))
                if row["val"] != row["ours"]:
                    detail = subprocess.run([args.val, "-v"] + val_cmd[1:], capture_output=True,
                                            text=True, timeout=120)
                    row["val_msg"] = diff._first_line(detail.stdout + detail.stderr,
                                                      ("Mutex", "unsatisfied", "Goal not",
                                                       "violat", "Error", "Bad", "Plan valid"))
                    row["ours_msg"] = diff._first_line(oout, ("Mutex", "not satisfied",
                                                              "Goal not", "violat", "rror",
                                                              "unknown", "failed", "Plan valid"))
                    row["plan"] = plan_text
                    row["why"] = _satisfy(oout)
                    row["class"] = classify(row)
                    if prob_text != problem_text:
                        row["problem_changed"] = True
                        row["problem"] = prob_text
                rows.append(row)
                if args.max_cases and len(rows) >= args.max_cases:
                    return rows
            if (count + 1) % 20 == 0:
                print(f"{count + 1}/{len(files)} plans, {len(rows)} cases, "
                      f"{time.time() - t0:.0f} s", flush=True)
    return rows


def report(rows: list[dict], args) -> str:
    agree = sum(r["val"] == r["ours"] for r in rows)
    lines = ["# PDDL 2.1 random differential: VAL vs planning_core", "",
             f"Made by `nice -n 10 python benchmarks/pddl21_random.py --val VALIDATE --seed "
             f"{args.seed} --per-plan {args.per_plan}"
             + (f" --kinds {args.kinds}" if args.kinds else "")
             + (f" --variants {args.variants}" if args.variants else "")
             + (f" --limit {args.limit}" if args.limit else "")
             + (f" --max-cases {args.max_cases}" if args.max_cases else "") + "`. "
             "Plans: `benchmarks/pddl21_plans/`; each case is 1-3 random edits of one plan "
             "(and maybe its problem's `:init`; the docstring of the script lists them), judged "
             "by VAL's `Validate -t TOL` and our `validate -t TOL` (TOL 0.01, 0.001 for LPG-td's "
             "timed plans, as in `pddl21_differential.py`).", "",
             f"**{len(rows)} cases, {agree} agree ({100 * agree / max(1, len(rows)):.2f}%), "
             f"{len(rows) - agree} disagree.**", "",
             "| variant | cases | VAL valid | ours valid | agree | disagree |",
             "|---|---:|---:|---:|---:|---:|"]
    groups = defaultdict(list)
    for r in rows:
        groups[r["variant"]].append(r)
    for v in sorted(groups):
        g = groups[v]
        a = sum(r["val"] == r["ours"] for r in g)
        lines.append(f"| {v} | {len(g)} | {sum(r['val'] == 'valid' for r in g)} | "
                     f"{sum(r['ours'] == 'valid' for r in g)} | {a} | {len(g) - a} |")
    kinds = Counter()
    for r in rows:
        for part in r["what"].split("; "):
            kinds[part.split()[0]] += 1
    lines += ["", "Edits drawn: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())),
              "", "## Every disagreement", ""]
    dis = [r for r in rows if r["val"] != r["ours"]]
    if not dis:
        lines.append("None.")
    else:
        for r in dis:
            r["class"] = classify(r)
        classes = Counter(r.get("class", "other").split(" (")[0] for r in dis)
        lines += ["Classes (`margin`: VAL accepts, our failed condition misses by at most "
                  "VAL's 0.0001 comparison margin, read from our repair advice; `other`: by "
                  "hand, section Findings): "
                  + ", ".join(f"{k} {n}" for k, n in sorted(classes.items())), "",
                  "| variant | instance | planner | case | edits | VAL | ours | class | our failed condition |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in dis:
            lines.append("| " + " | ".join(str(x).replace("|", "\\|") for x in (
                r["variant"], r["instance"], r["planner"], r["k"], r["what"], r["val"],
                r["ours"], r.get("class", ""), r.get("why") or r.get("ours_msg", ""))) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--val", required=True, help="VAL's Validate binary")
    ap.add_argument("--plans", default=str(diff.PLANS))
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--per-plan", type=int, default=4)
    ap.add_argument("--limit", type=int, default=0, help="only the first N plan files")
    ap.add_argument("--max-cases", type=int, default=0)
    ap.add_argument("--kinds", default="",
                    help="draw only these edits (comma-separated: shift,scale,swap,init,drop,dup)")
    ap.add_argument("--variants", default="", help="only variants whose name contains this")
    ap.add_argument("--out", default=str(RESULTS), help="the results file (.md; rows beside it)")
    ap.add_argument("--rows", default=None, help="render from a rows file instead of running")
    args = ap.parse_args()
    if args.rows:
        rows = [json.loads(x) for x in Path(args.rows).read_text().splitlines()]
    else:
        rows = run(args)
        Path(args.out).with_suffix(".jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    text = report(rows, args)
    findings = diff.FINDINGS
    out = Path(args.out)
    if out.exists() and findings in out.read_text():
        text += "\n" + out.read_text()[out.read_text().index(findings):]
    out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
