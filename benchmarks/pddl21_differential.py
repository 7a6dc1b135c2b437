"""PDDL 2.1 differential: real planners' plans on the IPC 2002 numeric, time and simple-time
tasks, and mutations of them, judged by VAL and by our ``validate``.

Plans: ``benchmarks/pddl21_plans/<planner>/<variant>/instance-N.plan``, made by LPG-td
(``up-lpg``), ENHSP (``up-enhsp``) and TAMER (``up-tamer``) outside the project under
per-task CPU limits (how: the section "Plans" of the results file). Tasks:
``../shared/data/pddl21/ipc2002/<variant>/`` (domain and ``instances/instance-N.pddl``).

Mutations (each deterministic; a kind that does not apply to a plan is skipped and counted):

* ``remove``: the middle step removed;
* ``shift`` (timed plans): the middle step starts half-way between its predecessor's start
  and its own; sequential plans: the middle step moved one place earlier;
* ``shorten`` (durative steps): the middle step's duration halved;
* ``overlap``: two steps that interfere (one's start effects touch an atom or fluent the
  other's start conditions or effects use; found with this file's own small reading of the
  domain, independent of the validators) made to start at the same time; sequential
  plans are written with time stamps for it, the pair at one happening;
* ``numeric``: a numeric precondition broken: the first step with a numeric comparison in
  its (start) condition has one ground fluent of that comparison moved far the wrong way in
  the problem's ``:init`` (the mutated case is the plan with that problem);
* ``duplicate``: the middle step repeated right after itself (timed plans: the copy starts
  when the original ends plus 0.01);
* ``truncate``: the last step removed (the last to start, for timed plans);
* ``swap``: the first two steps exchanged (timed plans: each starts at the other's time,
  durations kept);
* ``substitute``: one argument of the middle step replaced by the first other object of
  the problem of the same declared type (a one-step plan gets this one too).

So every plan gets at least 5 mutations (remove, duplicate, truncate, substitute, and shift
or swap), and the kinds that need a duration, an interfering pair or a numeric condition
come on top where the plan has one.

Every case runs through VAL's ``Validate`` and our ``validate`` (``python -m
planning_core.cli.validate``-equivalent entry point), each as its own process; verdict
valid/invalid per side, agreement counted per domain and variant, every disagreement listed
with both sides' messages (explained by hand in the results file's section "Findings").
The timing runs the cases of the first ``--timing-per-variant`` tasks of each variant again
as processes: VAL, our ``validate`` console script as users run it (with
``--wheel-python``, the ``validate`` script of that venv, a wheel install; and beside it this
interpreter's script importing this tree, the editable checkout) and a bare interpreter
of each; whole process, wall and CPU from ``getrusage``, the sides alternating per case.
Usage::

    python benchmarks/pddl21_differential.py --val /path/to/Validate [--plans DIR]
        [--limit N] [--timing-per-variant N] [--wheel-python VENV/bin/python]

It writes ``benchmarks/results/pddl21_differential.md`` (the section "Findings" is kept
from the previous file) and ``benchmarks/results/pddl21_differential.jsonl`` (one row per
case).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("PLANNING_CORE_SHARED_DATA", ROOT.parent / "shared" / "data"))
DATA = SHARED / "pddl21" / "ipc2002"
PLANS = ROOT / "benchmarks" / "pddl21_plans"
RESULTS = ROOT / "benchmarks" / "results" / "pddl21_differential.md"
ROWS = ROOT / "benchmarks" / "results" / "pddl21_differential.jsonl"
FINDINGS = "## Findings (by hand)"
MUTATIONS = ("remove", "shift", "shorten", "overlap", "numeric", "duplicate", "truncate",
             "swap", "substitute")
#: VAL's own default tolerance (-t); LPG-td separates happenings by ~0.0005, so its timed
#: plans are judged at a smaller one (by both sides; see the results file)
DEFAULT_TOLERANCE = 0.01
LPG_TOLERANCE = 0.001
#: our ``validate`` as users run it: the console script pip wrote (``bin/validate``) of an
#: interpreter's environment
def validate_script(python: str) -> str:
    return str(Path(python).parent / "validate")


# ------------------------------------------------------------ a small PDDL reading

def sexprs(text: str):
    """The nested lists of a PDDL text (lower-case atoms, comments dropped)."""
    tokens = re.findall(r"\(|\)|[^\s()]+", re.sub(r";[^\n]*", "", text.lower()))
    stack: list[list] = [[]]
    for tok in tokens:
        if tok == "(":
            stack.append([])
        elif tok == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    return stack[0]


@dataclass
class Schema:
    name: str
    params: list[str]
    durative: bool
    conditions: list[tuple[str, list]]   # (when: start|all|end|pre, formula)
    effects: list[tuple[str, list]]      # (when: start|end|pre, effect)


def _params(items: list) -> list[str]:
    return [x for x in items if isinstance(x, str) and x.startswith("?")]


def _split_timed(formula, default: str) -> list[tuple[str, list]]:
    if not isinstance(formula, list) or not formula:
        return []
    if formula[0] == "and":
        out = []
        for part in formula[1:]:
            out.extend(_split_timed(part, default))
        return out
    if formula[0] == "at" and len(formula) == 3 and formula[1] in ("start", "end"):
        return [(formula[1], formula[2])]
    if formula[0] == "over" and len(formula) == 3:
        return [("all", formula[2])]
    return [(default, formula)]


def read_domain(text: str) -> dict[str, Schema]:
    schemas = {}
    for item in sexprs(text)[0]:
        if not isinstance(item, list) or item[0] not in (":action", ":durative-action"):
            continue
        fields = {item[i]: item[i + 1] for i in range(2, len(item) - 1) if isinstance(item[i], str)}
        durative = item[0] == ":durative-action"
        cond = fields.get(":condition" if durative else ":precondition", [])
        schemas[item[1]] = Schema(item[1], _params(fields.get(":parameters", [])), durative,
                                  _split_timed(cond, "pre"),
                                  _split_timed(fields.get(":effect", []), "pre"))
    return schemas


def _ground(expr, binding: dict[str, str]):
    if isinstance(expr, list):
        return [_ground(e, binding) for e in expr]
    return binding.get(expr, expr)


_COMPARE = ("<", "<=", ">", ">=")
_NUM_EFFECTS = ("increase", "decrease", "assign", "scale-up", "scale-down")


def _touched(formula, atoms: set, fluents: set, comparisons: list) -> None:
    """Atoms, fluents and comparisons a ground formula or effect mentions."""
    if not isinstance(formula, list) or not formula:
        return
    head = formula[0]
    if head in ("and", "or", "not", "imply", "when"):
        for part in formula[1:]:
            _touched(part, atoms, fluents, comparisons)
    elif head in ("forall", "exists"):
        _touched(formula[2], atoms, fluents, comparisons)
    elif head in _COMPARE or (head == "=" and any(isinstance(x, list) for x in formula[1:])):
        comparisons.append(formula)
        _fluents(formula[1:], fluents)
    elif head in _NUM_EFFECTS:
        _fluents(formula[1:], fluents)
    elif head == "=":
        return
    else:
        atoms.add(tuple(formula))


def _fluents(exprs, out: set) -> None:
    for e in exprs:
        if isinstance(e, list) and e:
            if e[0] in ("+", "-", "*", "/"):
                _fluents(e[1:], out)
            else:
                out.add(tuple(e))


# ------------------------------------------------------------ plans and mutations

@dataclass(frozen=True)
class Step:
    time: float | None
    action: str            # "name arg ..."
    duration: float | None


_STEP = re.compile(r"^\s*(?:([0-9.eE+-]+)\s*:)?\s*\(([^()]*)\)\s*(?:\[\s*([0-9.eE+-]+)\s*\])?")


def read_plan(text: str) -> list[Step]:
    out = []
    for line in text.splitlines():
        found = _STEP.match(line)
        if found:
            out.append(Step(None if found.group(1) is None else float(found.group(1)),
                            " ".join(found.group(2).split()),
                            None if found.group(3) is None else float(found.group(3))))
    return out


def _num(value: float) -> str:
    text = f"{value:.6f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def write_plan(steps: list[Step], stamped: bool = False) -> str:
    lines = []
    for index, step in enumerate(steps):
        when = step.time if step.time is not None else (float(index + 1) if stamped else None)
        line = f"({step.action})"
        if when is not None:
            line = f"{_num(when)}: {line}"
        if step.duration is not None:
            line += f" [{_num(step.duration)}]"
        lines.append(line)
    return "\n".join(lines) + "\n"


def _footprint(step: Step, schemas: dict[str, Schema], part: str) -> tuple[set, set, set, set, list]:
    """(condition atoms, condition fluents, effect atoms, effect fluents, comparisons) of a
    step's start (``part="start"``: at start and plain parts, plus over all conditions)."""
    name, *args = step.action.split()
    schema = schemas.get(name)
    if schema is None:
        return set(), set(), set(), set(), []
    binding = dict(zip(schema.params, args))
    catoms, cflu, eatoms, eflu, comps = set(), set(), set(), set(), []
    for when, formula in schema.conditions:
        if when in ("pre", "start", "all") if part == "start" else when == part:
            _touched(_ground(formula, binding), catoms, cflu, comps)
    for when, effect in schema.effects:
        if when in ("pre", "start") if part == "start" else when == part:
            _touched(_ground(effect, binding), eatoms, eflu, [])
    return catoms, cflu, eatoms, eflu, comps


def _interfere(a: Step, b: Step, schemas: dict[str, Schema]) -> bool:
    ca, cfa, ea, efa, _ = _footprint(a, schemas, "start")
    cb, cfb, eb, efb, _ = _footprint(b, schemas, "start")
    # two increase/decrease effects on one fluent commute (PDDL 2.1's additive updates):
    # only a fluent one step changes and the other reads counts
    return bool(ea & (cb | eb) or eb & ca or efa & cfb or efb & cfa)


def mutations(steps: list[Step], schemas: dict[str, Schema], problem_text: str,
              timed: bool) -> dict[str, tuple[str, str, str] | None]:
    """kind -> (plan text, problem text, what was done), or None when it does not apply."""
    out: dict[str, tuple[str, str, str] | None] = {k: None for k in MUTATIONS}
    n = len(steps)
    if n == 0:
        return out
    mid = n // 2
    rest = steps[:mid] + steps[mid + 1:]
    out["remove"] = (write_plan(rest), problem_text, f"step {mid + 1} ({steps[mid].action}) removed")
    if timed:
        earlier = [s.time for s in steps if s.time is not None and s.time < steps[mid].time]
        prev = max(earlier) if earlier else 0.0
        new = round((prev + steps[mid].time) / 2, 4)
        if new != steps[mid].time:
            moved = steps[:mid] + [replace(steps[mid], time=new)] + steps[mid + 1:]
            out["shift"] = (write_plan(moved), problem_text,
                            f"step {mid + 1} ({steps[mid].action}) starts at {new:g} "
                            f"instead of {steps[mid].time:g}")
        if steps[mid].duration:
            short = steps[:mid] + [replace(steps[mid], duration=round(steps[mid].duration / 2, 4))] \
                + steps[mid + 1:]
            out["shorten"] = (write_plan(short), problem_text,
                              f"step {mid + 1} ({steps[mid].action}) lasts "
                              f"{steps[mid].duration / 2:g} instead of {steps[mid].duration:g}")
        end = steps[mid].time + (steps[mid].duration or 0) + 0.01
        dup = steps[:mid + 1] + [replace(steps[mid], time=round(end, 4))] + steps[mid + 1:]
        out["duplicate"] = (write_plan(dup), problem_text,
                            f"step {mid + 1} ({steps[mid].action}) repeated at {end:g}")
    else:
        if mid > 0:
            moved = steps[:mid - 1] + [steps[mid], steps[mid - 1]] + steps[mid + 1:]
            out["shift"] = (write_plan(moved), problem_text,
                            f"step {mid + 1} ({steps[mid].action}) moved before step {mid}")
        dup = steps[:mid + 1] + [steps[mid]] + steps[mid + 1:]
        out["duplicate"] = (write_plan(dup), problem_text,
                            f"step {mid + 1} ({steps[mid].action}) repeated")
    order = sorted(range(n), key=lambda i: (steps[i].time or 0, i)) if timed else list(range(n))
    last = order[-1]
    out["truncate"] = (write_plan(steps[:last] + steps[last + 1:]), problem_text,
                       f"the last step {last + 1} ({steps[last].action}) removed")
    if n >= 2:
        i, j = order[0], order[1]
        swapped = list(steps)
        if timed:
            swapped[i] = replace(steps[j], time=steps[i].time)
            swapped[j] = replace(steps[i], time=steps[j].time)
        else:
            swapped[i], swapped[j] = steps[j], steps[i]
        out["swap"] = (write_plan(swapped), problem_text,
                       f"steps {i + 1} ({steps[i].action}) and {j + 1} ({steps[j].action}) "
                       "exchanged")
    out["substitute"] = _substitute(steps, mid, problem_text)
    out["overlap"] = _overlap(steps, schemas, problem_text, timed)
    out["numeric"] = _break_numeric(steps, schemas, problem_text, timed)
    return out


def _objects(problem_text: str) -> dict[str, str]:
    """object -> declared type, from the problem's ``:objects``."""
    for item in sexprs(problem_text)[0]:
        if isinstance(item, list) and item and item[0] == ":objects":
            out, pending = {}, []
            items = item[1:]
            k = 0
            while k < len(items):
                if items[k] == "-" and k + 1 < len(items):
                    kind = items[k + 1] if isinstance(items[k + 1], str) else "object"
                    out.update((name, kind) for name in pending)
                    pending, k = [], k + 2
                    continue
                if isinstance(items[k], str):
                    pending.append(items[k])
                k += 1
            out.update((name, "object") for name in pending)
            return out
    return {}


def _substitute(steps, mid, problem_text):
    objects = _objects(problem_text)
    name, *args = steps[mid].action.split()
    for i, arg in enumerate(args):
        kind = objects.get(arg)
        if kind is None:
            continue
        other = next((o for o in sorted(objects) if objects[o] == kind and o != arg), None)
        if other is None:
            continue
        new_args = args[:i] + [other] + args[i + 1:]
        changed = steps[:mid] + [replace(steps[mid], action=" ".join([name] + new_args))] \
            + steps[mid + 1:]
        return (write_plan(changed), problem_text,
                f"step {mid + 1} ({steps[mid].action}): argument {i + 1} {arg} replaced by {other}")
    return None


def _overlap(steps, schemas, problem_text, timed):
    order = sorted(range(len(steps)), key=lambda i: (steps[i].time or 0, i)) if timed \
        else list(range(len(steps)))
    best = None
    for a_pos in range(len(order)):
        for b_pos in range(a_pos + 1, min(len(order), a_pos + 6)):
            a, b = steps[order[a_pos]], steps[order[b_pos]]
            if timed and a.time == b.time:
                continue
            if not timed and b_pos != a_pos + 1:
                continue
            if _interfere(a, b, schemas):
                gap = (b.time - a.time) if timed else 0
                if best is None or gap < best[0]:
                    best = (gap, order[a_pos], order[b_pos])
    if best is None:
        return None
    _, i, j = best
    if timed:
        new = steps[:j] + [replace(steps[j], time=steps[i].time)] + steps[j + 1:]
        return (write_plan(new), problem_text,
                f"step {j + 1} ({steps[j].action}) starts with step {i + 1} ({steps[i].action}) "
                f"at {steps[i].time:g}")
    stamped = [replace(s, time=float(k + 1)) for k, s in enumerate(steps)]
    stamped = [replace(s, time=float(k)) if k > i else s for k, s in enumerate(stamped)]
    return (write_plan(stamped), problem_text,
            f"steps {i + 1} ({steps[i].action}) and {j + 1} ({steps[j].action}) at one time "
            f"point {i + 1:g} (plan written with time stamps)")


_INIT_VALUE = r"\(\s*=\s*\(\s*{}\s*\)\s*(-?[0-9.]+)\s*\)"


def _break_numeric(steps, schemas, problem_text, timed):
    order = sorted(steps, key=lambda s: s.time or 0) if timed else steps
    for step in order:
        *_, comps = _footprint(step, schemas, "start")
        for comp in comps:
            op, left, right = comp[0], comp[1], comp[2]
            # move a fluent on the side that must stay small up, on the other side down
            for side, grow in ((left, op in ("<", "<=")), (right, op in (">", ">="))):
                found: set = set()
                _fluents([side], found)
                for fluent in sorted(found):
                    pattern = _INIT_VALUE.format(r"\s+".join(re.escape(x) for x in fluent))
                    match = re.search(pattern, problem_text, re.I)
                    if match is None:
                        continue
                    old = float(match.group(1))
                    new = old + (abs(old) + 1) * 1000 if grow else old - (abs(old) + 1) * 1000
                    text = problem_text[:match.start(1)] + _num(new) + problem_text[match.end(1):]
                    return (None, text, f"(= ({' '.join(fluent)}) {_num(old)}) in :init set to "
                                        f"{_num(new)}, against ({step.action})'s condition "
                                        f"{_show(comp)}")
    return None


def _show(expr) -> str:
    return "(" + " ".join(_show(e) if isinstance(e, list) else e for e in expr) + ")" \
        if isinstance(expr, list) else expr


# ------------------------------------------------------------ the two judges

def _timed(argv: list[str], env: dict | None = None) -> tuple[float, float, int, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode, done.stdout + done.stderr


def val_verdict(output: str) -> str:
    if "Plan valid" in output:
        return "valid"
    if any(m in output for m in ("Plan failed", "Goal not satisfied", "Plan invalid",
                                 "Bad plan", "Failed plans", "Plan Repair Advice",
                                 "Error in type-checking", "Type-checking")):
        return "invalid"
    return "error"


def ours_verdict(code: int) -> str:
    return {0: "valid", 1: "invalid", 3: "unknown"}.get(code, "error")


def _first_line(text: str, marks: tuple[str, ...]) -> str:
    for line in text.splitlines():
        if any(m in line for m in marks):
            return line.strip()[:200]
    return " ".join(text.split())[:200]


# ------------------------------------------------------------ the run

def plan_files(plans: Path) -> list[tuple[str, str, str, Path]]:
    out = []
    for path in sorted(plans.glob("*/*/instance-*.plan")):
        planner, variant = path.parent.parent.name, path.parent.name
        out.append((planner, variant, path.stem, path))
    out.sort(key=lambda r: (r[1], int(r[2].split("-")[1]), r[0]))
    return out


def _ours_in_process(argv: list[str]) -> tuple[int, str]:
    """Our ``validate`` command's exit code and output, called in this process (the
    verdicts; the process timing is measured separately, on a sample)."""
    import contextlib
    import io

    from planning_core.cli.validate import validate_main
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            code = validate_main(argv)
        except SystemExit as exit_:
            code = int(exit_.code or 0)
    return code, out.getvalue()


def _sha(text: str) -> str:
    import hashlib
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def run(args) -> list[dict]:
    rows = []
    files = plan_files(Path(args.plans))
    # --reuse: the rows of an earlier run (this script's, same mutation kinds) for a plan
    # whose text has not changed are taken as they are
    reuse: dict[tuple, list[dict]] = defaultdict(list)
    if args.reuse and Path(args.reuse).exists():
        for line in Path(args.reuse).read_text().splitlines():
            old = json.loads(line)
            if "plan_sha" in old and (old["case"] in MUTATIONS or old["case"].startswith("plan")):
                reuse[(old["planner"], old["variant"], old["instance"], old["plan_sha"])].append(old)
    if args.limit:
        files = files[:args.limit]
    timed_keys: set[tuple[str, str]] = set()
    with tempfile.TemporaryDirectory(prefix="pddl21diff_") as tmp:
        # as a user runs it: bytecode cached, validate's parse cache on (in a fresh folder,
        # so the first call on a task fills it)
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
        env.update(PLANNING_CORE_PARSE_CACHE="1",
                   PLANNING_CORE_PARSE_CACHE_DIR=str(Path(tmp) / "cache"))
        # the checkout: this interpreter's console script (an editable install) importing
        # this tree; its own parse cache folder (the two installs' sources differ in path)
        ck_env = dict(env, PYTHONPATH=str(ROOT),
                      PLANNING_CORE_PARSE_CACHE_DIR=str(Path(tmp) / "cache-checkout"))
        if not args.wheel_python:
            env = ck_env
        for count, (planner, variant, inst, path) in enumerate(files):
            domain = DATA / variant / "domain.pddl"
            problem = DATA / variant / "instances" / f"{inst}.pddl"
            problem_text = problem.read_text()
            schemas = read_domain(domain.read_text())
            steps = read_plan(path.read_text())
            timed = "-time" in variant
            tol = LPG_TOLERANCE if planner == "lpg" and timed else DEFAULT_TOLERANCE
            # process timing: the first --timing-per-variant plans of each variant
            key = (variant, inst)
            timing = len({k for k in timed_keys if k[0] == variant}) < args.timing_per_variant \
                or key in timed_keys
            if timing:
                timed_keys.add(key)
            sha = _sha(path.read_text() + problem_text + domain.read_text())
            reused = reuse.get((planner, variant, inst, sha), [])
            rows.extend(reused)
            have = {r["case"] for r in reused}
            cases = {"plan": (path.read_text(), problem_text, "the planner's plan")}
            cases.update(mutations(steps, schemas, problem_text, timed))
            if tol != DEFAULT_TOLERANCE:
                cases["plan@0.01"] = (path.read_text(), problem_text,
                                      "the planner's plan at VAL's default tolerance 0.01")
            for kind, case in cases.items():
                if kind in have:
                    continue
                case_tol = DEFAULT_TOLERANCE if kind == "plan@0.01" else tol
                row = {"planner": planner, "variant": variant, "instance": inst, "case": kind,
                       "tolerance": case_tol, "plan_sha": sha}
                if case is None:
                    row["skipped"] = True
                    rows.append(row)
                    continue
                plan_text, prob_text, what = case
                plan_path = Path(tmp) / f"{count}-{kind}.plan"
                plan_path.write_text(plan_text if plan_text is not None else path.read_text())
                prob_path = problem
                if prob_text != problem_text:
                    prob_path = Path(tmp) / f"{count}-{kind}-problem.pddl"
                    prob_path.write_text(prob_text)
                val_cmd = [args.val, "-t", str(case_tol), str(domain), str(prob_path),
                           str(plan_path)]
                ours_args = ["-t", str(case_tol), str(plan_path), str(domain), str(prob_path)]
                vw, vc, vcode, vout = _timed(val_cmd)
                ocode, oout = _ours_in_process(ours_args)
                row.update(what=what, val=val_verdict(vout), ours=ours_verdict(ocode),
                           val_code=vcode, ours_code=ocode,
                           val_msg=_first_line(vout, ("Mutex", "unsatisfied", "Goal not",
                                                      "violat", "Error", "Bad", "failed",
                                                      "Plan valid")),
                           ours_msg=_first_line(oout, ("Mutex", "not satisfied", "Goal not",
                                                       "violat", "rror", "unknown", "failed",
                                                       "Plan valid")))
                if row["val"] != row["ours"]:
                    # VAL says why only with -v: keep its reason for the disagreement list
                    detail = _timed([args.val, "-v"] + val_cmd[1:])[3]
                    row["val_msg"] = _first_line(detail, ("Mutex", "unsatisfied", "Goal not",
                                                          "violat", "Error", "Bad",
                                                          "Plan valid"))
                if timing:
                    python = args.wheel_python or sys.executable
                    order = [("val", val_cmd, None),
                             ("ours", [validate_script(python)] + ours_args, env),
                             ("bare", [python, "-c", "pass"], env)]
                    if args.wheel_python:   # the editable checkout beside the wheel
                        order += [("ck", [validate_script(sys.executable)] + ours_args, ck_env),
                                  ("ck_bare", [sys.executable, "-c", "pass"], ck_env)]
                    if count % 2:
                        order = order[::-1]
                    res = {side: _timed(cmd, side_env) for side, cmd, side_env in order}
                    for side in res:
                        row.update({f"{side}_wall": res[side][0], f"{side}_cpu": res[side][1]})
                    row["ours_process"] = ours_verdict(res["ours"][2])
                    if "ck" in res:
                        row["ck_process"] = ours_verdict(res["ck"][2])
                rows.append(row)
            print(f"{count + 1}/{len(files)} {planner} {variant} {inst}", flush=True)
    return rows


def _domain(variant: str) -> str:
    return variant.split("-")[0]


def _kind(variant: str) -> str:
    return variant.split("-", 1)[1].replace("-automatic", "")


def _plans_table() -> list[str]:
    """Which tasks each planner was given and what came of it (``pddl21_make_plans.py``'s
    log, ``benchmarks/pddl21_plans/runs.jsonl``)."""
    log = PLANS / "runs.jsonl"
    if not log.exists():
        return []
    runs = [json.loads(x) for x in log.read_text().splitlines() if x.strip()]
    lines = ["## Plans: every task given to each planner", "",
             "Made by `nice -n 10 python benchmarks/pddl21_make_plans.py` (one row per attempt "
             "in `benchmarks/pddl21_plans/runs.jsonl`). A task is *solved* when the planner "
             "wrote a plan within its CPU limit.", "",
             "| planner | variant | tasks | solved | CPU limit s | at the limit | reader refused | no plan | not tried |",
             "|---|---|---:|---:|---|---:|---:|---:|---:|"]
    groups = defaultdict(list)
    for r in runs:
        groups[(r["planner"], r["variant"])].append(r)
    total = Counter()
    for (planner, variant), g in sorted(groups.items()):
        why = Counter(r.get("why", "").split(":")[0] for r in g if not r["solved"])
        limits = sorted({r["cpu_limit"] for r in g})
        counts = dict(tasks=len(g), solved=sum(r["solved"] for r in g), limit=why["cpu limit"],
                      reader=why["reader refused"], none=why["no plan"],
                      skipped=why["not tried"])
        total.update(counts)
        lines.append(f"| {planner} | {variant} | {counts['tasks']} | {counts['solved']} | "
                     f"{'/'.join(map(str, limits))} | {counts['limit']} | {counts['reader']} | "
                     f"{counts['none']} | {counts['skipped']} |")
    lines += [f"| **all** | | {total['tasks']} | {total['solved']} | | {total['limit']} | "
              f"{total['reader']} | {total['none']} | {total['skipped']} |", ""]
    return lines


def report(rows: list[dict], args, load: tuple[str, str]) -> str:
    judged = [r for r in rows if not r.get("skipped")]
    lines = ["# PDDL 2.1 differential: planners' plans and mutations, VAL vs planning_core", "",
             f"Made by `python benchmarks/pddl21_differential.py --val VALIDATE "
             f"--timing-per-variant {args.timing_per_variant}"
             + (" --wheel-python VENV/bin/python" if args.wheel_python else "") + "` "
             f"(VAL 4 built from KCL-Planning/VAL, outside the project). Load average at "
             f"start / end: {load[0]} / {load[1]} (2 cores shared with other jobs). Plans: "
             "`benchmarks/pddl21_plans/` (section Plans below).", "",
             "Every case is one plan file (and, for `numeric`, one mutated problem file) "
             "judged by VAL's `Validate -t TOL` (a process; VAL's exit code is 0 for a "
             "failed plan too, so its output is read) and by our `validate -t TOL` (the "
             "command's entry point, in process; the timing section runs it as a process). "
             f"`TOL` is VAL's default 0.01, and {LPG_TOLERANCE:g} for LPG-td's timed plans "
             "(see Findings). A mutation that does not apply to a plan (a duration on a "
             "sequential plan, a numeric condition in a domain without one) is skipped.", "",
             ] + _plans_table() + [
             "## Agreement per domain and variant", "",
             "| domain | variant | planner | tasks | cases | VAL valid | ours valid | agree | disagree | skipped mutations |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    groups = defaultdict(list)
    for r in rows:
        groups[(_domain(r["variant"]), _kind(r["variant"]), r["planner"])].append(r)
    tot = Counter()
    for key in sorted(groups):
        g = groups[key]
        j = [r for r in g if not r.get("skipped")]
        tasks = len({r["instance"] for r in g})
        agree = sum(r["val"] == r["ours"] for r in j)
        vv = sum(r["val"] == "valid" for r in j)
        ov = sum(r["ours"] == "valid" for r in j)
        skipped = len(g) - len(j)
        tot.update(tasks=tasks, cases=len(j), vv=vv, ov=ov, agree=agree,
                   dis=len(j) - agree, skipped=skipped)
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {tasks} | {len(j)} | {vv} | {ov} | "
                     f"{agree} | {len(j) - agree} | {skipped} |")
    lines.append(f"| **all** | | | {tot['tasks']} | {tot['cases']} | {tot['vv']} | {tot['ov']} | "
                 f"{tot['agree']} | {tot['dis']} | {tot['skipped']} |")
    lines += ["", "## Agreement per case kind", "",
              "| case | judged | VAL valid | ours valid | agree | disagree |",
              "|---|---:|---:|---:|---:|---:|"]
    for kind in ("plan",) + MUTATIONS + ("plan@0.01",):
        j = [r for r in judged if r["case"] == kind]
        a = sum(r["val"] == r["ours"] for r in j)
        lines.append(f"| {kind} | {len(j)} | {sum(r['val'] == 'valid' for r in j)} | "
                     f"{sum(r['ours'] == 'valid' for r in j)} | {a} | {len(j) - a} |")
    timed_rows = [r for r in judged if "ours_wall" in r]
    if not timed_rows:
        lines += ["", "## Timing", "", "Not measured in this run (`--timing-per-variant 0`); "
                  "see Findings."]
    else:
        lines += _timing(timed_rows)
    lines += ["", "## Every disagreement", ""]
    dis = [r for r in judged if r["val"] != r["ours"]]
    if not dis:
        lines.append("None.")
    else:
        lines += ["| variant | instance | planner | case | mutation | VAL | ours | VAL says | we say |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in dis:
            lines.append("| " + " | ".join(str(x).replace("|", "\\|") for x in (
                r["variant"], r["instance"], r["planner"], r["case"], r["what"], r["val"],
                r["ours"], r["val_msg"], r["ours_msg"])) + " |")
    return "\n".join(lines) + "\n"


def _timing(timed_rows: list[dict]) -> list[str]:
    lines = []
    checkout = any("ck_cpu" in r for r in timed_rows)
    ours_name = "wheel" if checkout else "ours"
    lines += ["", "## Timing, whole process per call (paired)", "",
              "Every case of the first tasks of each variant (`--timing-per-variant`) runs "
              "again as processes: VAL's `Validate`; our `validate` as users run it, the "
              "script pip installed (`scripts/validate`; bytecode cached, validate's parse "
              "cache on and filled by the first call on a task); and a bare `python -c pass` "
              "of the same interpreter (the floor of any Python command). "
              + ("**wheel** is a clean venv with a wheel of this tree installed (`VENV/bin/"
                 "validate`), **checkout** this tree through the machine's editable install "
                 "(its interpreter runs the sandbox's `.pth` start-up hooks: a slower bare "
                 "start). " if checkout else "")
              + "The commands alternate in order per case. CPU (`getrusage` of the child, "
              "user + system) and wall per call: medians over the cases; ratio = median over "
              "cases of ours / VAL (CPU; wall for the wheel in the last column).", "",
              f"| variant | calls | VAL CPU ms | {ours_name} CPU ms | {ours_name} bare CPU ms | "
              f"{ours_name} / VAL (CPU) | "
              + ("checkout CPU ms | checkout bare CPU ms | checkout / VAL (CPU) | "
                 if checkout else "")
              + f"{ours_name} / VAL (wall) |",
              "|---|---:|---:|---:|---:|---:|" + ("---:|---:|---:|" if checkout else "")
              + "---:|"]
    by_variant = defaultdict(list)
    for r in timed_rows:
        by_variant[r["variant"]].append(r)

    def _ratio(g, side, kind="cpu"):
        found = [r[f"{side}_{kind}"] / r[f"val_{kind}"] for r in g if r[f"val_{kind}"] > 0]
        return f"{statistics.median(found):.1f}x" if found else "-"

    def _line(name, g):
        med = lambda key: statistics.median(r[key] for r in g) * 1000
        text = (f"| {name} | {len(g)} | {med('val_cpu'):.1f} | {med('ours_cpu'):.1f} | "
                f"{med('bare_cpu'):.1f} | {_ratio(g, 'ours')} | ")
        if checkout:
            text += (f"{med('ck_cpu'):.1f} | {med('ck_bare_cpu'):.1f} | "
                     f"{_ratio(g, 'ck')} | ")
        return text + f"{_ratio(g, 'ours', 'wall')} |"
    for variant in sorted(by_variant):
        lines.append(_line(variant, by_variant[variant]))
    if timed_rows:
        lines.append(_line("**all**", timed_rows))
        worst = max(timed_rows, key=lambda r: r["ours_cpu"] / max(r["val_cpu"], 1e-3))
        lines += ["", f"Largest single-call CPU ratio: "
                      f"{worst['ours_cpu'] / max(worst['val_cpu'], 1e-3):.1f}x "
                      f"({worst['variant']} {worst['instance']} {worst['planner']} {worst['case']}: "
                      f"{worst['ours_cpu'] * 1000:.1f} vs {worst['val_cpu'] * 1000:.1f} ms CPU). "
                      f"The process verdicts agree with the in-process ones on "
                      f"{sum(r['ours_process'] == r['ours'] for r in timed_rows)}/{len(timed_rows)} "
                      f"timed cases"
                      + (f" (checkout: {sum(r.get('ck_process') == r['ours'] for r in timed_rows)}"
                         f"/{len(timed_rows)})." if checkout else ".")]
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--val", required=True, help="VAL's Validate binary")
    ap.add_argument("--plans", default=str(PLANS))
    ap.add_argument("--limit", type=int, default=0, help="only the first N plan files")
    ap.add_argument("--wheel-python", default=None,
                    help="time ours with this interpreter: a venv with planning_core installed "
                         "from a wheel build of this tree and lark only (what a user's install "
                         "runs, without this venv's start-up hooks); also its bare start-up")
    ap.add_argument("--timing-per-variant", type=int, default=2,
                    help="time every case of the first N tasks of each variant as processes")
    ap.add_argument("--rows", default=None, help="render from a rows file instead of running")
    ap.add_argument("--reuse", default=None,
                    help="a rows file of an earlier run: unchanged plans take their rows from it")
    args = ap.parse_args()
    load0 = f"{os.getloadavg()[0]:.2f}"
    if args.rows:
        rows = [json.loads(x) for x in Path(args.rows).read_text().splitlines()]
    else:
        rows = run(args)
        ROWS.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    text = report(rows, args, (load0, f"{os.getloadavg()[0]:.2f}"))
    if RESULTS.exists() and FINDINGS in RESULTS.read_text():
        text += "\n" + RESULTS.read_text()[RESULTS.read_text().index(FINDINGS):]
    RESULTS.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
