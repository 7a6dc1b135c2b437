"""PDDL 2.1/2.2 edge cases, hand-written, judged by VAL and by our ``validate``.

The IPC 2002 differential (``pddl21_differential.py``) exercises a small part of PDDL 2.1:
its tasks have no timed initial literals, duration inequalities, ``scale-up``, conditional
numeric effects, undefined fluents or plan-file oddities. ``benchmarks/pddl21_edge/`` holds
small tasks written for those parts (one folder per task: ``domain.pddl``, ``problem.pddl``,
other problems, and plans). A plan's leading comments may say which problem it goes with
(``; problem: p-b.pddl``, default ``problem.pddl``) and at which tolerance it is judged
(``; tolerance: 0.001``, default VAL's 0.01); both judges ignore comments.

Every case runs through VAL's ``Validate [-t TOL] DOMAIN PROBLEM PLAN`` (a process; its exit
code is 0 for a failed plan too, so its output is read: "Plan valid" and "Final value: N",
or "Plan failed to execute" / "Goal not satisfied" / "Plan invalid") and our ``validate
--json [-t TOL]`` (its entry point, in this process). Verdicts (valid / invalid / error:
a refused input or a crash) and plan values are compared. Usage::

    python benchmarks/pddl21_edge.py --val /path/to/Validate [--write-expected]

It writes ``benchmarks/results/pddl21_edge.md`` (a table of every case, both verdicts and
values, the agreement count, and each disagreement with the reason, from ``NOTES`` below)
and, with ``--write-expected``, ``benchmarks/pddl21_edge/expected.json``: our verdict and
value per case, which ``tests/pddl21/test_edge_set.py`` checks without VAL.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EDGE = ROOT / "benchmarks" / "pddl21_edge"
RESULTS = ROOT / "benchmarks" / "results" / "pddl21_edge.md"
EXPECTED = EDGE / "expected.json"
DEFAULT_TOLERANCE = 0.01
#: VAL's words when it stops without accepting the plan: an undefined value read ("Error
#: occurred in validation attempt", listed under "Queries (validator failed)"), or a plan
#: step naming an object the problem does not have ("Error in type-checking!")
VAL_REJECTS = ("Error occurred in validation attempt", "Error in type-checking")

#: every case where the two judges differ, explained by hand (who is right, and why)
NOTES: dict[str, str] = {}


def cases(root: Path = EDGE) -> list[dict]:
    """Every (task, plan) of the edge set, with its problem and tolerance."""
    out = []
    for plan in sorted(root.glob("*/*.plan")):
        problem, tolerance = "problem.pddl", None
        for line in plan.read_text().splitlines():
            line = line.strip()
            if not line.startswith(";"):
                break
            m = re.match(r";\s*problem:\s*(\S+)", line)
            if m:
                problem = m.group(1)
            m = re.match(r";\s*tolerance:\s*(\S+)", line)
            if m:
                tolerance = float(m.group(1))
        out.append({"id": f"{plan.parent.name}/{plan.stem}", "domain": plan.parent / "domain.pddl",
                    "problem": plan.parent / problem, "plan": plan, "tolerance": tolerance})
    return out


# ------------------------------------------------------------------ the two judges

def run_val(val: str, case: dict) -> dict:
    argv = [val]
    if case["tolerance"] is not None:
        argv += ["-t", str(case["tolerance"])]
    argv += [str(case["domain"]), str(case["problem"]), str(case["plan"])]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return {"verdict": "error", "value": None, "text": "timeout"}
    text = done.stdout + done.stderr
    if done.returncode < 0:
        verdict = "error"
    elif "Plan valid" in text:
        verdict = "valid"
    elif any(m in text for m in ("Plan failed", "Goal not satisfied", "Plan invalid",
                                 "Bad plan", "Failed plans")):
        verdict = "invalid"
    elif any(m in text for m in VAL_REJECTS):
        verdict = "invalid"     # VAL gives the plan no verdict and does not accept it
    else:
        verdict = "error"
    m = re.search(r"Final value: (\S+)", text)
    value = float(m.group(1)) if m and verdict == "valid" else None
    return {"verdict": verdict, "value": value, "text": text, "code": done.returncode}


def run_ours(case: dict) -> dict:
    """Our ``validate --json`` through its entry point, in this process."""
    from planning_core.cli.validate import validate_main

    argv = ["--json", "--no-warnings"]
    if case["tolerance"] is not None:
        argv += ["-t", str(case["tolerance"])]
    argv += [str(case["domain"]), str(case["problem"]), str(case["plan"])]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = validate_main(argv)
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 2
        except Exception as exc:    # a traceback is a finding, recorded as a row
            return {"verdict": "error", "value": None, "detail": "traceback",
                    "text": f"{type(exc).__name__}: {exc}"}
    row = None
    for line in out.getvalue().splitlines():
        if line.startswith("{"):
            row = json.loads(line)
    text = (out.getvalue() + err.getvalue()).strip()
    if row is None or code == 2:
        return {"verdict": "error", "value": None, "detail": "bad_input", "text": text}
    verdict = "valid" if row.get("valid") else "invalid"
    return {"verdict": verdict, "value": row.get("cost") if verdict == "valid" else None,
            "detail": row.get("verdict"), "text": row.get("message") or text}


def same_value(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-5)


def _first(text: str) -> str:
    marks = ("Plan valid", "Plan failed", "Goal not", "Plan invalid", "Bad plan", "Error",
             "error", "problem", "Problem", "Type", "Mutex", "Invariant", "unsatisfied")
    for line in text.splitlines():
        if any(m in line for m in marks) and not line.startswith("Checking plan"):
            return line.strip()[:160]
    return " ".join(text.split())[:160]


# ------------------------------------------------------------------ the report

def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _num(v) -> str:
    return "" if v is None else f"{v:g}"


def report(rows: list[dict]) -> str:
    agree = sum(r["agree"] for r in rows)
    lines = [
        "# PDDL 2.1/2.2 edge cases: VAL and `validate`",
        "",
        "Hand-written tasks in `benchmarks/pddl21_edge/` for the parts of PDDL 2.1/2.2 the "
        "IPC 2002 differential does not reach (timed initial literals, duration inequalities, "
        "`?duration` in effects, `scale-up`/`scale-down`, `assign` of expressions, conditional "
        "numeric and timed effects, a continuous effect, metrics, undefined fluents, division "
        "by zero, epsilon separation, mutexes, self-overlap, zero durations, plan order, "
        "negative times, plan-file oddities). Made by `python benchmarks/pddl21_edge.py --val "
        "VAL/build/bin/Validate` (VAL 4 from KCL-Planning/VAL; our `validate --json` through "
        "its entry point). A case agrees when both verdicts (valid / invalid / error: input "
        "refused) are the same and, for a valid plan, the values are within 1e-5.",
        "",
        f"**{agree}/{len(rows)} cases agree.** Each disagreement is explained below the "
        "table (who is right by PDDL 2.1's semantics, Fox and Long 2003, and VAL's source).",
        "",
        "| case | -t | VAL | value | ours | value | our verdict | agree |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['id']} | {r['tolerance'] or ''} | {r['val']} | {_num(r['val_value'])} "
                     f"| {r['ours']} | {_num(r['ours_value'])} | {r['detail'] or ''} "
                     f"| {'yes' if r['agree'] else '**no**'} |")
    lines += ["", "## Disagreements", ""]
    for r in rows:
        if r["agree"]:
            continue
        note = NOTES.get(r["id"], "(not yet explained)")
        lines += [f"### {r['id']}", "", f"- VAL: {r['val']} `{_cell(r['val_first'])}`",
                  f"- ours: {r['ours']} `{_cell(r['ours_first'])}`", "", note, ""]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--val", required=True, help="VAL's Validate binary")
    ap.add_argument("--write-expected", action="store_true",
                    help="store our verdicts and values in benchmarks/pddl21_edge/expected.json")
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args(argv)
    rows = []
    expected = {}
    for case in cases():
        val = run_val(args.val, case)
        ours = run_ours(case)
        agree = val["verdict"] == ours["verdict"] and same_value(val["value"], ours["value"])
        rows.append({"id": case["id"], "tolerance": case["tolerance"], "val": val["verdict"],
                     "val_value": val["value"], "ours": ours["verdict"],
                     "ours_value": ours["value"], "detail": ours.get("detail"),
                     "agree": agree, "val_first": _first(val["text"]),
                     "ours_first": ours["text"][:200]})
        expected[case["id"]] = {"verdict": ours.get("detail") or ours["verdict"],
                                "value": ours["value"]}
        print(f"{case['id']:45} VAL {val['verdict']:8} {_num(val['value']):8} ours "
              f"{ours['verdict']:8} {_num(ours['value']):8} {ours.get('detail') or ''}"
              f"{'' if agree else '   <-- differs'}", flush=True)
    Path(args.out).write_text(report(rows))
    if args.write_expected:
        EXPECTED.write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    print(f"{sum(r['agree'] for r in rows)}/{len(rows)} agree; {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
