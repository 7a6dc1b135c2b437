"""Classical/ADL edge cases judged by VAL and by our ``validate``, side by side.

The cases are hand-written (``benchmarks/classical_edge/``, listed in ``cases.txt``): PDDL
features and plan-file forms the IPC corpora hardly use (negative preconditions, equality,
quantifiers, ``imply``, conditional effects, derived predicates, constants, ``either`` and
type hierarchies, untyped domains, missing requirements, action costs, empty plans, bad
steps, comments, time stamps and durations on classical plans, ...).

Each case runs through VAL's ``Validate -v DOMAIN PROBLEM PLAN`` (``-v``: its report says
whether a precondition failed) (its exit code is 0 for a
failed plan, so its output is read) and through our ``validate --json PLAN DOMAIN PROBLEM``
(in-process, the console script's entry point, parse cache off). Both verdicts are put into
the same classes and compared, with the plan's value when both say valid::

    valid          VAL "Plan valid"                          ours valid
    precondition   VAL "Plan failed to execute" (precond.)   precondition_failed
    goal           VAL "Goal not satisfied"                  goal_not_satisfied
    bad_plan       VAL "Bad plan description!" or            unknown_action, wrong_arity,
                   "Error in type-checking!" of a plan       unknown_object, type_error,
                                                             plan_syntax_error
    mutex          VAL "Mutex violation"                     mutex_violated (steps at one time)
    undefined      VAL "Attempt to access undefined ..."     undefined_value
    refused        VAL "Problem in domain definition!",      bad_input
                   "Type problem in problem specification!"
    crash          VAL killed by a signal                    (a traceback of ours)

Usage::

    python benchmarks/classical_edge.py [--val PATH] [--out benchmarks/results/classical_edge.md]
        [--write-expected]

``--write-expected`` stores our verdicts (and VAL's, for the record) in
``benchmarks/classical_edge/expected.json``, which ``tests/validate/test_classical_edge.py``
checks without VAL. The findings (why each disagreement is VAL's error or a deliberate
departure) are kept by hand in the ``FINDINGS`` table below and printed into the results.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# this checkout's planning_core, whatever is installed; PLANNING_CORE_TREE=DIR judges with
# another tree's (the "before" column: a `git archive` of an older commit, with PYTHONPATH=DIR)
sys.path.insert(0, os.environ.get("PLANNING_CORE_TREE", str(ROOT)))
EDGE = ROOT / "benchmarks" / "classical_edge"
VAL = "/work/ext/VAL/build/bin/Validate"

OUR_CLASS = {
    "valid": "valid",
    "precondition_failed": "precondition",
    "numeric_precondition_failed": "precondition",
    "goal_not_satisfied": "goal",
    "unknown_action": "bad_plan",
    "wrong_arity": "bad_plan",
    "unknown_object": "bad_plan",
    "type_error": "bad_plan",
    "plan_syntax_error": "bad_plan",
    "undefined_value": "undefined",
    "mutex_violated": "mutex",
    "bad_input": "refused",
}


def read_cases(path: Path = EDGE / "cases.txt") -> list[dict]:
    """The cases of ``cases.txt``: folder, plan, problem, domain (``-``: domain.pddl), about."""
    cases = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        folder, plan, problem, domain, about = line.split(None, 4)
        domain = "domain.pddl" if domain == "-" else domain
        stem = "" if domain == "domain.pddl" else Path(domain).stem + "/"
        cases.append({"id": f"{folder}/{stem}{Path(problem).stem}/{Path(plan).stem}",
                      "folder": folder, "plan": plan, "problem": problem, "domain": domain,
                      "about": about})
    return cases


def run_val(val: str, case: dict) -> dict:
    folder = EDGE / case["folder"]
    try:
        proc = subprocess.run([val, "-v", case["domain"], case["problem"], case["plan"]],
                              cwd=folder, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return {"class": "timeout", "value": None, "text": "timed out after 60 s"}
    out = proc.stdout + proc.stderr
    value = None
    m = re.search(r"Final value: (\S+)", out)
    if m:
        value = float(m.group(1))
    if proc.returncode < 0:
        # -v adds the repair advice, which can crash where the verdict does not: the
        # verdict is then the plain run's, and the crash is said in the text
        plain = subprocess.run([val, case["domain"], case["problem"], case["plan"]],
                               cwd=folder, capture_output=True, text=True, timeout=60)
        if plain.returncode >= 0 and "Plan failed to execute" in plain.stdout:
            return {"class": "precondition", "value": None, "exit": plain.returncode,
                    "text": f"Plan failed to execute (without -v; with -v killed by signal "
                            f"{-proc.returncode})"}
        cls, text = "crash", f"killed by signal {-proc.returncode}"
    elif "Plan valid" in out:
        cls, text = "valid", "Plan valid"
    elif "Mutex violation" in out:
        cls, text = "mutex", next(line for line in out.splitlines() if "Mutex" in line).strip()
    elif "Goal not satisfied" in out:
        cls, text = "goal", "Goal not satisfied"
    elif "Plan failed to execute" in out:
        cls = "precondition" if "unsatisfied precondition" in out else "failed"
        text = "Plan failed to execute"
    elif "Type problem in problem specification" in out:
        cls, text = "refused", "Type problem in problem specification!"
    elif "Type problem in domain description" in out:
        cls, text = "refused", "Type problem in domain description!"
    elif "Bad plan description" in out:
        cls, text = "bad_plan", "Bad plan description!"
    elif "Error in type-checking" in out:
        # before "Checking plan:" the problem failed VAL's type check, after it the plan
        cls = "bad_plan" if "Checking plan:" in out else "refused"
        text = "Error: Error in type-checking!" + ("" if cls == "bad_plan" else
                                                   " (of the problem, before the plan)")
    elif "undefined" in out:
        cls, text = "undefined", "Attempt to access undefined numeric expression!"
    elif "Problem in domain definition" in out or "Problem in problem definition" in out:
        cls = "refused"
        text = next(line for line in out.splitlines() if "Problem in" in line).strip()
    else:
        cls = "other"
        text = " | ".join(line.strip() for line in out.splitlines() if line.strip())[:200]
    return {"class": cls, "value": value, "text": text, "exit": proc.returncode}


def run_ours(case: dict) -> dict:
    """Our ``validate --json`` on the case, in this process (the console script's code)."""
    from planning_core.cli.validate import validate_main

    folder = EDGE / case["folder"]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = validate_main(["--json", str(folder / case["plan"]),
                                  str(folder / case["domain"]), str(folder / case["problem"])])
        except BaseException as exc:   # a traceback is a finding, not the end of the run
            return {"class": "crash", "verdict": "crash", "value": None,
                    "text": f"{type(exc).__name__}: {exc}", "exit": None}
    rows = [json.loads(line) for line in out.getvalue().splitlines() if line.startswith("{")]
    if not rows:
        return {"class": "other", "verdict": None, "value": None,
                "text": (out.getvalue() + err.getvalue()).strip()[:200], "exit": code}
    row = rows[0]
    verdict = row.get("verdict")
    text = row.get("message") or "; ".join(e.get("message", "") if isinstance(e, dict) else
                                           str(e) for e in row.get("errors") or []) or verdict
    return {"class": OUR_CLASS.get(verdict, verdict), "verdict": verdict,
            "value": row.get("cost") if verdict == "valid" else None,
            "text": text, "exit": code}


def agree(val: dict, ours: dict) -> bool:
    if val["class"] != ours["class"]:
        return False
    if val["class"] == "valid":
        return val["value"] is not None and ours["value"] is not None \
            and abs(val["value"] - ours["value"]) < 1e-9
    return True


# Why each disagreement is VAL's error (or a deliberate departure of ours), by case id.
# Written by hand from VAL's source (/work/ext/VAL) and PDDL's semantics; the results file
# prints them. A disagreement without an entry here is printed as UNEXPLAINED.
_ARITY_TYPED = (
    "VAL is wrong (it crashes). In a typed domain `TypeChecker::typecheckActionInstance` "
    "(`libraries/VAL/src/typecheck.cpp`) walks the step's arguments and advances the "
    "action's parameter iterator beside them without testing its end, so an extra argument "
    "dereferences the parameter list's end; a missing argument passes that check (only the "
    "given arguments are checked) and then `buildBindings` (`libraries/VAL/include/"
    "Action.h`), called by `Action`'s constructor, zips the parameters with the arguments "
    "and reads past the end of the argument list. Either way a segmentation fault, no "
    "verdict. The step is not an instance of the action: ours is `wrong_arity`, located at "
    "the step's line.")
_PREFIX = (
    "VAL is wrong. Its plan grammar (`c_plan` in `Parser/pddl+.y`) is a right-recursive "
    "list of steps; `yyerror` returns 0 and `getPlan` (`applications/Validate/src/main.cpp`) "
    "does not look at `yyparse`'s result. When the unreadable text comes where the step list "
    "may end, bison's default reduction has already built the plan from the steps before "
    "it, and that prefix is validated as if it were the whole file. Ours is "
    "`plan_syntax_error` with the line and column of the unreadable text.")
FINDINGS: dict[str, str] = {
    "planforms/problem/arity-too-few": _ARITY_TYPED,
    "planforms/problem/arity-too-many": _ARITY_TYPED,
    "planforms/problem/arity-zero-ary": _ARITY_TYPED,
    "untyped/problem/arity-too-few": (
        "VAL is wrong (it crashes). In an untyped domain there is no type check; "
        "`buildBindings` (`libraries/VAL/include/Action.h`) zips the parameters with the "
        "step's arguments and reads past the end of the shorter argument list: a "
        "segmentation fault. Ours is `wrong_arity`."),
    "untyped/problem/arity-too-many": (
        "VAL is wrong. In an untyped domain `buildBindings` binds the parameters to the first "
        "arguments and drops the extra one, so `(board c1 l1 l2)` runs as `(board c1 l1)` and "
        "the plan is accepted. A step with three arguments is not an instance of a "
        "two-parameter action; ours is `wrong_arity`."),
    "planforms/problem/syntax-no-parens": _PREFIX + (
        " Here the first line `move r1 c1 c2` has no parentheses, so VAL validates an empty "
        "plan (its `-v` trace says `Plan size: 0`) and reports only that the goal is not "
        "satisfied, although `(beep)` follows."),
    "planforms/problem/syntax-stray-paren": _PREFIX + (
        " Here the stray `)` after `(beep)` ends the parse and VAL accepts the plan."),
    "planforms/problem/hash-line": _PREFIX + (
        " Here VAL's lexer drops the `#` (see `commas`) and `a hash line` ends the parse: "
        "VAL validates the first step alone (goal not satisfied)."),
    "planforms/problem/commas": (
        "VAL's acceptance is an accident of its lexer: `Parser/pddl+.l` has no rule for `,`, "
        "so flex's default action echoes the character to standard output (VAL prints `,,` "
        "before its report) and drops it. PDDL names are letters, digits, `-` and `_`; "
        "`r1,` is not an object of the task. We keep `unknown_object` naming `'r1,'` and the "
        "step's line: a user sees what to fix."),
    "planforms/problem/numbered": (
        "A deliberate departure (README, `validate`: plan files): we read the numbered lines "
        "language models write (`1. (a x)`, `1: (a x)`). VAL lexes `1.` as a number, expects "
        "`:` after it and, the step list not yet built, answers `Bad plan description!`. The "
        "steps are unambiguous; the plan is valid with value 2."),
    "costs/domain-lone-effect/problem/valid-12": (
        "VAL is wrong. PDDL 2.1's BNF lets an action's whole `:effect` be one `<p-effect>`, an "
        "`(increase ...)` included; VAL's grammar (`c_effect` in `Parser/pddl+.y`) has no "
        "alternative for a lone assignment (only inside `(and ...)`), so it refuses the "
        "domain (`Problem in domain definition!`). The same departure is listed for "
        "numeric effects in `docs/pddl21.md`. Ours: valid, 12, as with the `(and ...)` "
        "form (`costs/problem/valid-12`)."),
    "adl/domain-no-precondition/problem/valid": (
        "VAL is wrong. `:precondition` is optional in PDDL's action definition (`[:precondition "
        "<GD>]`); VAL's `c_action_def` (`Parser/pddl+.y`) requires `PRE c_pre_goal_descriptor`, "
        "so a domain with an action without one is refused (`Problem in domain definition!`). "
        "The same domain with `:precondition (and)` is valid in both (`adl/problem/valid`)."),
    "adl/domain-untyped-parameter/problem/valid": (
        "VAL is wrong. In a typed domain a name without `- type` in a typed list is of type "
        "`object` (PDDL 1.2's typed lists; Fast Downward's `default_type=\"object\"`). VAL gives "
        "the predicate parameter `?x` of `(cleared ?x)` no type at all and "
        "`TypeChecker::subType` (`typecheck.cpp`) throws (`x has bad type definition`, "
        "`Error in type-checking!`) when an action uses the predicate. With `?x - object` both "
        "say valid (`adl/problem/valid`)."),
    "forms2/problem-untyped-object/untyped-object": (
        "VAL is wrong, as for the untyped predicate parameter: the problem's `b` is declared "
        "without a type, so it is an `object`; VAL's `subType` finds neither a type nor "
        "`either` types on it and throws (`Object with unknown type: b`). Ours: valid, 4."),
    "forms2/domain-implicit-object/problem-implicit/implicit-object": (
        "VAL is wrong. Every type is a subtype of `object`; `(:types thing)` declares `thing` "
        "with the implicit parent `object`. VAL's type graph has no edge from `thing` to "
        "`object` (`th.reachable` in `typecheck.cpp`), so `(done a)` with `?x - object` fails "
        "its type check and the problem is refused (`Type problem in problem "
        "specification!`). With `(:types thing - object)` both say valid "
        "(`forms2/problem/valid-init-cost`)."),
    "scoping/domain-free-variable/problem-free-variable/free-variable": (
        "VAL is wrong. The rule `(:derived (covered ?x) (and (link ?y ?x) (not (marked "
        "?y))))` uses `?y`, bound nowhere (neither a parameter of the head nor quantified). "
        "VAL builds the rule anyway and evaluates it with `?y` unbound: `(covered b)` "
        "comes out false although `(link a b)` holds and `a` is unmarked, so `(mark b)` runs. "
        "Fast Downward refuses the domain (`Undefined variable ?y`), as we do (a located "
        "`undeclared variable '?y'`)."),
    "scoping/domain-undeclared-derived/problem/valid": (
        "Both refuse (classes differ only in name: VAL's `Predicate all-p not found` / `Type "
        "problem in domain description!` is a refusal of the domain). Fixed in this work: "
        "we accepted a derived predicate declared only by its `:derived` rule; PDDL 2.2 "
        "declares it in `:predicates` like any predicate, and VAL and Fast Downward "
        "(`Expected logical operator or predicate name`) refuse the domain; ours is now a "
        "located error at the rule's head."),
    "misc/domain-cycle/problem-cycle/cycle": (
        "VAL is wrong. `(:derived (p) (and (q) (not (p))))` makes `(p)` depend negatively on "
        "itself: no stratification exists and the rule has no least fixpoint (PDDL 2.2 "
        "allows negation of derived predicates only in a stratified way). VAL evaluates the "
        "rule anyway and lets `(go)` run. Ours refuses the domain with a located error "
        "(`derived predicate p depends negatively on itself`); with `--json` that refusal "
        "printed no object, fixed in this work (a `bad_input` row)."),
    "names/domain-case-twin/problem-case-twin/case-twin": (
        "Ours is a refusal with a located error (`duplicate action 'go'`, the second "
        "declaration's line): PDDL names are case-insensitive, so `Go` and `go` are one "
        "action declared twice with different effects, and the step `(go)` has no single "
        "meaning. VAL lower-cases names in its lexer and takes the first match "
        "(`find_if(..., matchOp(...))`), the action that adds `(a)`, so the goal `(b)` fails. "
        "Fast Downward warns about duplicate action names and keeps both. We keep the refusal."),
}


# What the cases made us change (each with a regression test in
# tests/validate/test_classical_edge_fixes.py) and what else they showed about VAL.
FIXES = [
    "`constants/problem-retyped/*`: a domain constant declared again as a problem object "
    "of another type has both types (the checker let the problem's type win and refused "
    "`(at c1 depot)` in the goal; the validator's universe already took both, as VAL does).",
    "`derived/domain-strata/problem-derived-init/derived-init`: a derived atom listed in "
    "`:init` is ignored with a warning (it was an error): its value comes from its rule. "
    "VAL, Fast Downward, our validator and our grounder all ignore it.",
    "`forms2/problem-twice/object-twice`: an object declared twice in `:objects` is one "
    "object, with a warning (it was an error); VAL accepts it (Fast Downward refuses it).",
    "`adl/domain-forall-in-when/*`: a `forall` or a `when` inside a `when`'s body is read "
    "(the grammar allowed only literals there, as PDDL's BNF does); VAL and Fast Downward "
    "read it, and the validator and grounder already handled the nesting.",
    "`misc/domain-cycle/*`: `validate --json` printed no object when the domain was "
    "refused past the checker (derived rules that cannot be stratified); it prints a "
    "located `bad_input` row, as for the checker's errors.",
    "`scoping/domain-undeclared-derived/*`: a derived predicate not declared in "
    "`:predicates` is now a located error, as VAL and Fast Downward refuse the domain "
    "(we accepted it).",
]
NOTES = [
    "`scoping/problem/pre-exists-empty`: VAL's verdict agrees, but `Validate -v` crashes "
    "(segmentation fault) on it: the repair advice of a false `(exists () ...)` calls "
    "`pp->getAdviceProp` with `pp` null, since `QfiedGoal::create` (`Proposition.cpp`) sets "
    "`pp` only when there is a variable to range over. The driver then takes the verdict of "
    "a run without `-v`. Fast Downward refuses `(exists () ...)` outright (its parser "
    "wants a non-empty variable list); PDDL's typed list may be empty, and we read it.",
]


def md_cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def value_text(v) -> str:
    return "" if v is None else f"{v:g}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--val", default=VAL)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "classical_edge.md"))
    ap.add_argument("--write-expected", action="store_true")
    ap.add_argument("--label", default="", help="a note for the results' header")
    ap.add_argument("--before-tree", metavar="DIR",
                    help="also judge every case with the planning_core of DIR (e.g. `git "
                         "archive OLD planning_core grammars validators | tar -x -C DIR`): "
                         "a 'before' column and agreement count")
    ap.add_argument("--before-label", help="how the results name the --before-tree")
    ap.add_argument("--ours-only", action="store_true",
                    help="print our verdicts as JSON (one object by case id) and stop")
    args = ap.parse_args(argv)
    os.environ["PLANNING_CORE_PARSE_CACHE"] = "0"
    cases = read_cases()
    if args.ours_only:
        print(json.dumps({case["id"]: run_ours(case) for case in cases}))
        return 0
    before = None
    if args.before_tree:
        env = dict(os.environ, PYTHONPATH=args.before_tree, PLANNING_CORE_TREE=args.before_tree)
        proc = subprocess.run([sys.executable, __file__, "--ours-only"], env=env,
                              capture_output=True, text=True, check=True)
        before = json.loads(proc.stdout.splitlines()[-1])
    rows = []
    for case in cases:
        val, ours = run_val(args.val, case), run_ours(case)
        rows.append((case, val, ours, agree(val, ours)))
        print(f"{'ok ' if rows[-1][3] else 'DIFF'} {case['id']}: VAL {val['class']} "
              f"{value_text(val['value'])} / ours {ours['class']} {value_text(ours['value'])}",
              file=sys.stderr)
    n_agree = sum(r[3] for r in rows)
    n_before = None if before is None else sum(agree(val, before[case["id"]])
                                               for case, val, _, _ in rows)
    lines = ["# Classical/ADL edge cases: planning_core vs VAL", "",
             f"Cases: `benchmarks/classical_edge/cases.txt`, {len(rows)} hand-written plans on "
             f"{len({c['folder'] for c in cases})} folders of hand-written domains and problems. "
             "Command: `python benchmarks/classical_edge.py` (VAL 4, "
             f"`{args.val}`, built from KCL-Planning/VAL). {args.label}", "",
             f"**Agreement: {n_agree}/{len(rows)}** (same class of verdict, and the same plan "
             "value when both say valid)"
             + ("." if before is None else
                f"; before the fixes ({args.before_label or args.before_tree}): "
                f"{n_before}/{len(rows)}."), "",
             "Classes: `valid`; `precondition` (VAL: Plan failed to execute); `goal` (VAL: Goal "
             "not satisfied); `bad_plan` (VAL: Bad plan description! or Error in "
             "type-checking!; ours: unknown_action, wrong_arity, unknown_object, type_error, "
             "plan_syntax_error); `undefined` (a value read that the problem never gives); "
             "`mutex` (interfering steps at one time point); `refused` (VAL: Problem in domain definition!; ours: bad_input); `crash` (VAL "
             "killed by a signal).", "",
             "| case | tests | VAL | VAL value | ours | our verdict | our value | agree |"
             + (" before |" if before else ""),
             "|---|---|---|---:|---|---|---:|---|" + ("---|" if before else "")]
    for case, val, ours, ok in rows:
        extra = ""
        if before:
            b = before[case["id"]]
            extra = f" {b['verdict']}{'' if agree(val, b) else ' (differs)'} |"
        lines.append(f"| `{case['id']}` | {md_cell(case['about'])} | {val['class']} | "
                     f"{value_text(val['value'])} | {ours['class']} | {ours['verdict']} | "
                     f"{value_text(ours['value'])} | {'yes' if ok else '**no**'} |{extra}")
    lines += ["", "## Fixes these cases led to", ""] + [f"- {f}" for f in FIXES]
    lines += ["", "## Other findings about VAL", ""] + [f"- {n}" for n in NOTES]
    lines += ["", "## Disagreements, explained by hand", ""]
    diffs = [r for r in rows if not r[3]]
    if not diffs:
        lines.append("None.")
    for case, val, ours, _ in diffs:
        why = FINDINGS.get(case["id"], "UNEXPLAINED")
        lines.append(f"- `{case['id']}` ({md_cell(case['about'])}): VAL {val['class']} "
                     f"(`{md_cell(val['text'])}`), ours {ours['verdict']} "
                     f"(`{md_cell(ours['text'])[:160]}`). {why}")
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"{n_agree}/{len(rows)} agree; wrote {args.out}", file=sys.stderr)
    if args.write_expected:
        expected = {case["id"]: {"verdict": ours["verdict"], "value": ours["value"],
                                 "val": val["class"], "val_value": val["value"],
                                 "agrees_with_val": ok}
                    for case, val, ours, ok in rows}
        (EDGE / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
