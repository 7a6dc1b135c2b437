"""VAL-style text output, and the layering rule that validate depends on pddl only."""
from __future__ import annotations

import ast
from pathlib import Path
from textwrap import dedent

import pytest

from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.validate.render import render_text
from planning_core.validate.simulator import validate_plan

DOMAIN = dedent("""
(define (domain lights)
  (:requirements :strips :action-costs)
  (:predicates (on ?l) (off ?l) (light ?l))
  (:functions (total-cost))
  (:action switch-on
    :parameters (?l)
    :precondition (and (light ?l) (off ?l))
    :effect (and (not (off ?l)) (on ?l) (increase (total-cost) 2))))
""")
PROBLEM = dedent("""
(define (problem two) (:domain lights)
  (:objects l1 l2)
  (:init (light l1) (light l2) (off l1) (off l2) (= (total-cost) 0))
  (:goal (and (on l1) (on l2)))
  (:metric minimize (total-cost)))
""")


def render(plan: str, verbose: bool = False) -> str:
    report = validate_plan(parse_domain(DOMAIN), parse_problem(PROBLEM), plan, trace=verbose)
    return render_text(report, "plan.txt", verbose=verbose)


def test_valid_plan_text():
    assert render("(switch-on l1)\n(switch-on l2)") == "\n".join([
        "Checking plan: plan.txt",
        "Plan executed successfully - checking goal",
        "Plan valid",
        "Final value: 4"])


def test_verbose_trace_in_vals_form():
    text = render("(switch-on l1)\n(switch-on l2)", verbose=True)
    assert "\n".join([
        "Plan Validation details",
        "-----------------------",
        "",
        "Checking next happening (time 1)",
        "Deleting (off l1)",
        "Adding (on l1)",
        "Updating (total-cost) (0) by 2 increase",
        "",
        "Checking next happening (time 2)",
        "Deleting (off l2)",
        "Adding (on l2)",
        "Updating (total-cost) (2) by 2 increase",
        "",
        "Plan executed successfully - checking goal"]) in text


def test_precondition_failure_text_with_advice():
    text = render("(switch-on l1)\n(switch-on l1)", verbose=True)
    assert "\n".join([
        "Checking next happening (time 2)",
        "Plan failed because of unsatisfied precondition in:",
        "(switch-on l1)",
        "",
        "Plan failed to execute",
        "",
        "Plan Repair Advice:",
        "",
        "(switch-on l1) has an unsatisfied precondition at time 2",
        "(Set (off l1) to true)",
        "",
        "Plan invalid"]) in text
    assert "Checking next happening (time 1)\nDeleting (off l1)" in text


def test_goal_failure_text():
    assert render("(switch-on l2)").endswith("\n".join([
        "Plan executed successfully - checking goal",
        "Goal not satisfied",
        "Plan invalid",
        "",
        "Plan Repair Advice:",
        "",
        "The goal is not satisfied",
        "(Set (on l1) to true)"]))


def test_malformed_step_and_bad_plan_file_text():
    text = render("(switch-on l1 l2)")
    assert "Bad plan description!" in text and "takes 1 argument(s)" in text
    assert text.endswith("Plan invalid")
    text = render("(switch-on l1)\n(switch-on")
    assert "Bad plan file!" in text and "line 2, column 1" in text


def test_validate_imports_nothing_beyond_pddl_and_errors():
    """DESIGN: validate depends on pddl only, so grounding cannot hide a validation bug."""
    package = Path(__file__).resolve().parents[2] / "planning_core" / "validate"
    # limits: the CPU/memory meter, nodes: the frozen-dataclass decorator, and light_enum:
    # enumerations without enum, base modules like errors (they ground nothing)
    allowed = ("planning_core.pddl", "planning_core.errors", "planning_core.limits",
               "planning_core.nodes", "planning_core.light_enum", "planning_core.validate")
    for source in package.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and \
                    node.module.startswith("planning_core"):
                assert node.module.startswith(allowed), f"{source.name} imports {node.module}"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("planning_core"):
                        assert alias.name.startswith(allowed), f"{source.name}: {alias.name}"


def test_constraint_violation_text():
    problem = PROBLEM.replace("(:goal", "(:constraints (always (off l2)))\n  (:goal")
    report = validate_plan(parse_domain(DOMAIN), parse_problem(problem),
                           "(switch-on l1)\n(switch-on l2)")
    assert render_text(report).endswith("\n".join([
        "Plan executed successfully - checking goal",
        "Goal satisfied",
        "Trajectory constraint violated",
        "Plan invalid",
        "",
        "Plan Repair Advice:",
        "",
        "The constraint (always (off l2)) is violated in the state after step 2 "
        "(switch-on l2): is false in this state"]))


@pytest.mark.parametrize("plan_text, verdict, line", [
    ("(pick-up a)\n(fly a b)\n", "unknown_action", 2),
    ("(pick-up a b)\n", "wrong_arity", 1),
    ("\n(pick-up zz)\n", "unknown_object", 2),
])
def test_json_locates_plan_input_faults(plan_text, verdict, line):
    domain = parse_domain("(define (domain b) (:predicates (clear ?x) (holding ?x)) "
                          "(:action pick-up :parameters (?x) :precondition (clear ?x) "
                          ":effect (holding ?x)))")
    problem = parse_problem("(define (problem p) (:domain b) (:objects a b) (:init (clear a)) "
                            "(:goal (holding a)))")
    row = validate_plan(domain, problem, plan_text).to_json("plan.txt")
    assert row["verdict"] == verdict
    assert len(row["errors"]) == 1
    err = row["errors"][0]
    assert (err["file"], err["line"]) == ("plan.txt", line) and err["message"]
