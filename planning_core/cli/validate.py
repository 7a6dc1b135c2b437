"""The ``validate`` command (also ``planning-core validate``): files in, reports out, an
honest exit code.

Users type ``validate plan.txt domain.pddl problem.pddl``; VAL's users type
``Validate domain.pddl problem.pddl plan1 plan2``. Both work because each file's role is
told apart by its content: a ``(define (domain ...``, a ``(define (problem ...``, and
everything else is a plan. Every failure to read or understand an input is reported with
file, line and column and gives exit code 2; no input produces a traceback.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence, TextIO

from planning_core.cli import ArgumentParser, ExitCode, run
from planning_core.errors import InputError, PlanningError
from planning_core.pddl.files import read_text

if TYPE_CHECKING:
    from planning_core.pddl import ast as A

_DEFINE = re.compile(r"\A(?:\s|;[^\n]*(?:\n|\Z))*\(\s*define\s*\(\s*(domain|problem)\b", re.I)


def classify(text: str) -> str:
    """``"domain"``, ``"problem"`` or ``"plan"`` by the file's first definition."""
    m = _DEFINE.match(text)
    return m.group(1).lower() if m else "plan"


_LOOKS_LIKE_PDDL = re.compile(r"\(\s*(?:define\b|:(?:domain|action|predicates|objects|init|goal)\b)",
                              re.I)


def _misread_as_plan(path: str, text: str) -> PlanningError | None:
    """Why a file that looks meant as a domain or problem is not one, if it looks so.

    An empty ``domain.pddl`` or one with ``(defne (domain`` is taken for a plan by
    :func:`classify`; the user then deserves that file's own located syntax error rather
    than only "no domain file given".
    """
    if not (path.lower().endswith(".pddl") or _LOOKS_LIKE_PDDL.search(text)):
        return None
    from planning_core.pddl.parser import parse

    try:
        parse(text, path)
    except PlanningError as err:
        return err
    return None


@dataclass
class _Inputs:
    domain: tuple[str, str] | None = None   # (path, text)
    problem: tuple[str, str] | None = None
    plans: list[tuple[str, str]] | None = None


def _sort_roles(paths: list[str]) -> tuple[_Inputs, list[PlanningError]]:
    inputs = _Inputs(plans=[])
    problems: list[PlanningError] = []
    for path in paths:
        try:
            text = read_text(path, expected="text (a PDDL domain, problem or plan)")
        except PlanningError as err:
            problems.append(err)
            continue
        role = classify(text)
        if role == "plan":
            inputs.plans.append((path, text))
        elif getattr(inputs, role) is not None:
            problems.append(InputError(f"a second {role} file (the first is "
                                       f"{getattr(inputs, role)[0]}); expected one domain and "
                                       "one problem", file=path, line=1, column=1))
        else:
            setattr(inputs, role, (path, text))
    if not problems:
        if inputs.domain is None or inputs.problem is None:
            problems.extend(e for e in (_misread_as_plan(*plan) for plan in inputs.plans)
                            if e is not None)
        for role in ("domain", "problem"):
            if getattr(inputs, role) is None:
                problems.append(InputError(f"no {role} file given; expected a plan, a domain "
                                           "and a problem (in any order)"))
        if not inputs.plans:
            problems.append(InputError("no plan file given; expected a plan, a domain and a "
                                       "problem (in any order)"))
    return inputs, problems


def _print_diagnostics(diags, err: TextIO, show_warnings: bool) -> None:
    for d in diags:
        if d.severity == "error" or show_warnings:
            print(str(d), file=err)


def _bad_input_json(plans, errors, warnings, out: TextIO) -> None:
    for path in plans or [None]:
        print(json.dumps({"plan": path, "valid": False, "verdict": "bad_input", "step": None,
                          "action": None, "unsatisfied": [], "advice": [],
                          "unsatisfied_goals": [], "cost": None,
                          "errors": [e.to_dict() for e in errors],
                          "warnings": [w.to_dict() for w in warnings]}), file=out)


def load_task(domain_path: str, domain_text: str, problem_path: str, problem_text: str
              ) -> tuple[A.Domain, A.Problem, tuple[A.Diagnostic, ...]]:
    """Parse and check; raises the first syntax error, returns semantic diagnostics."""
    from planning_core.pddl.checker import check_domain, check_problem
    from planning_core.pddl.parser import parse_domain, parse_problem

    domain = parse_domain(domain_text, domain_path)
    problem = parse_problem(problem_text, problem_path)
    return domain, problem, check_domain(domain) + check_problem(domain, problem)


def run_validate(paths: list[str], *, verbose: bool, as_json: bool, show_warnings: bool,
                 out: TextIO, err: TextIO) -> int:
    """Validate every plan among ``paths``; print the reports to ``out``, problems to ``err``.

    The parser, checker and simulator are imported here, not at the top, so that
    registering the command costs ``planning-core``'s other commands nothing.
    """
    from planning_core.pddl.checker import errors_of
    from planning_core.pddl.plans import parse_plan
    from planning_core.validate.render import render_text
    from planning_core.validate.simulator import validate_plan

    inputs, problems = _sort_roles(paths)
    plan_paths = [p for p, _ in inputs.plans or []]
    if problems:
        if as_json:
            _bad_input_json(plan_paths, problems, [], out)
        for p in problems:  # a missing role has no file to name: say just what is missing
            print(f"error: {p if p.file else p.message}", file=err)
        return ExitCode.BAD_INPUT
    try:
        domain, problem, diags = load_task(*inputs.domain, *inputs.problem)
    except PlanningError as e:
        if as_json:
            _bad_input_json(plan_paths, [e], [], out)
        print(f"error: {e}", file=err)
        return ExitCode.BAD_INPUT
    errors = errors_of(diags)
    warnings = tuple(d for d in diags if d.severity == "warning")
    if not as_json:
        _print_diagnostics(diags, err, show_warnings)
    if errors:
        if as_json:
            _bad_input_json(plan_paths, errors, warnings, out)
        return ExitCode.BAD_INPUT
    all_valid = True
    for path, text in inputs.plans:
        plan = parse_plan(text, path)
        report = validate_plan(domain, problem, plan, trace=verbose)
        all_valid &= report.valid
        if as_json:
            print(json.dumps(report.to_json(path, (), warnings if show_warnings else ())), file=out)
        else:
            print(render_text(report, path, verbose=verbose), file=out)
    return ExitCode.OK if all_valid else ExitCode.INVALID


# ---------------------------------------------------------------- the command line

def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="a plan, a domain and a problem in any order (roles are told apart "
                        "by content); several plans may be given")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="print VAL's per-step trace and the repair advice")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object per plan, one per line")
    p.add_argument("--no-warnings", action="store_true", help="do not print warnings")


def cmd_validate(args: argparse.Namespace) -> int:
    return run_validate(args.files, verbose=args.verbose, as_json=args.json,
                        show_warnings=not args.no_warnings, out=sys.stdout, err=sys.stderr)


def register(subparsers) -> None:
    """Add ``validate`` to ``planning-core``'s subcommands."""
    p = subparsers.add_parser("validate", help="validate plans (VAL-style)")
    _add_arguments(p)
    p.set_defaults(func=cmd_validate)


def validate_main(argv: Sequence[str] | None = None) -> int:
    """The ``validate`` console script."""
    parser = ArgumentParser(prog="validate",
                            description="Validate plans against a PDDL domain and problem, "
                                        "as VAL does. Exit 0: all plans valid; 1: some plan "
                                        "invalid; 2: bad input.")
    _add_arguments(parser)
    args = parser.parse_args(argv)
    return int(run(cmd_validate, args))
