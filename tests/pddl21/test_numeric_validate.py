"""Sequential numeric plans (PDDL 2.1 level 2) in the validator (issue 28, item 2)."""
from __future__ import annotations

import math
import textwrap
from pathlib import Path

import pytest

from planning_core.pddl.parser import parse_domain, parse_domain_file, parse_problem, \
    parse_problem_file
from planning_core.validate import Verdict, render_text, validate_plan

TANKER = Path(__file__).resolve().parents[2] / "domains" / "pddl21" / "tanker"


@pytest.fixture(scope="module")
def tanker():
    return parse_domain_file(TANKER / "domain.pddl"), parse_problem_file(TANKER / "p01.pddl")


def _plan(name: str) -> str:
    return (TANKER / name).read_text()


def test_valid_plan_and_metric_value(tanker):
    report = validate_plan(*tanker, _plan("p01.plan"), trace=True)
    assert report.verdict is Verdict.VALID, report.message
    assert report.cost == 10          # (fuel-used): 4 + 6
    text = render_text(report, verbose=True)
    assert "Updating (fuel t1) (1) by 8 assignment" in text
    assert "Updating (fuel t1) (8) by 6 decrease" in text


def test_false_comparison_is_a_numeric_precondition_failure_with_values(tanker):
    report = validate_plan(*tanker, _plan("p01.nofuel.bad.plan"))
    assert report.verdict is Verdict.NUMERIC_PRECONDITION_FAILED
    assert report.step == 4
    assert report.unsatisfied == ("(>= (fuel t1) (distance b c))",)
    assert report.advice[1] == "(Satisfy (fuel t1)[=1] >= (distance b c)[=6])"


def test_numeric_goal_failure_advises_with_values(tanker):
    report = validate_plan(*tanker, _plan("p01.goal.bad.plan"))
    assert report.verdict is Verdict.GOAL_NOT_SATISFIED
    assert "(Satisfy (demand c)[=1] <= 0)" in report.advice


def test_reading_an_undefined_fluent_is_undefined_value(tanker):
    problem = parse_problem_file(TANKER / "p01.undefined.pddl")
    report = validate_plan(tanker[0], problem, _plan("p01.undefined.plan"))
    assert report.verdict is Verdict.UNDEFINED_VALUE
    assert report.step == 1 and "(distance a b)" in report.message


DOMAIN = textwrap.dedent("""\
    (define (domain calc)
      (:requirements :numeric-fluents)
      (:predicates (done))
      (:functions (x) (y))
      (:action halve :parameters () :precondition (>= (x) 0) :effect (scale-down (x) (y)))
      (:action square :parameters () :precondition (and) :effect (scale-up (x) (x)))
      (:action ratio :parameters () :precondition (> (/ (x) (y)) 1) :effect (done))
      (:action finish :parameters () :precondition (>= (x) 0) :effect (done)))
    """)


def _calc(x: str, y: str):
    problem = parse_problem(f"(define (problem p) (:domain calc) (:init (= (x) {x}) (= (y) {y})) "
                            "(:goal (done)))")
    return parse_domain(DOMAIN), problem


@pytest.mark.parametrize("x, y, plan, verdict, words", [
    ("4", "0", "(halve)", Verdict.UNDEFINED_VALUE, "division by zero"),
    ("4", "0", "(ratio)", Verdict.UNDEFINED_VALUE, "division by zero"),
    ("1" + "0" * 300, "1", "(square)\n(finish)", Verdict.UNDEFINED_VALUE, "not a finite number"),
    ("8", "2", "(halve)\n(finish)", Verdict.VALID, ""),
])
def test_hostile_arithmetic_is_a_verdict_not_a_traceback(x, y, plan, verdict, words):
    report = validate_plan(*_calc(x, y), plan)
    assert report.verdict is verdict, report.message
    assert words in report.message


def test_classical_tasks_keep_plain_set_states():
    from planning_core.validate.simulator import validator_for

    dom = parse_domain("(define (domain c) (:predicates (p)) (:action a :parameters () "
                       ":precondition (and) :effect (p)))")
    prob = parse_problem("(define (problem q) (:domain c) (:init) (:goal (p)))")
    v = validator_for(dom, prob)
    assert not v.numeric and not v.temporal
    assert validate_plan(dom, prob, "(a)").valid
    assert math.isfinite(validate_plan(dom, prob, "(a)").cost)


def test_an_expression_nested_to_the_parser_limit_validates():
    """250 nested additions (the parser refuses more than 256 levels): compiled, evaluated,
    printed in the advice, no recursion error."""
    expr = "(+ 1 " * 250 + "(x)" + ")" * 250
    dom = parse_domain(DOMAIN.replace("(:action finish :parameters () :precondition (>= (x) 0)",
                                      f"(:action finish :parameters () :precondition (> {expr} 1000)"))
    report = validate_plan(dom, _calc("1", "1")[1], "(finish)")
    assert report.verdict is Verdict.NUMERIC_PRECONDITION_FAILED
    assert report.advice[1].startswith("(Satisfy (1 + (1 + ")
    assert validate_plan(dom, _calc("800", "1")[1], "(finish)").verdict is Verdict.VALID
