"""PDDL 2.1/2.2 in the parser, the checker and the writer (issue 28, item 1)."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from planning_core.errors import PDDLSyntaxError, PlanningError, UnsupportedFeature
from planning_core.pddl import ast as pddl
from planning_core.pddl.checker import check, errors_of, used_requirements
from planning_core.pddl.features import first_pddl21_feature, is_temporal
from planning_core.pddl.parser import parse, parse_domain, parse_domain_file, parse_problem, \
    parse_problem_file
from planning_core.pddl.writer import write_domain, write_problem

FIXTURES = Path(__file__).resolve().parents[2] / "domains" / "pddl21"
TANKER = FIXTURES / "tanker"
KITCHEN = FIXTURES / "kitchen"


def _domain(body: str, requirements: str = ":numeric-fluents :durative-actions") -> str:
    return textwrap.dedent(f"""\
        (define (domain d)
          (:requirements :typing {requirements})
          (:types obj)
          (:predicates (p ?x - obj) (q))
          (:functions (f ?x - obj) (g))
          {body})
        """)


def test_numeric_action_parses_to_formula_and_effect_nodes():
    dom = parse_domain_file(TANKER / "domain.pddl")
    drive = dom.action("drive")
    cmp = drive.precondition.parts[2]
    assert cmp == pddl.Comparison(">=", pddl.FunctionTerm("fuel", ("?t",)),
                                  pddl.FunctionTerm("distance", ("?from", "?to")))
    assert pddl.NumericEffect("decrease", pddl.FunctionTerm("fuel", ("?t",)),
                              pddl.FunctionTerm("distance", ("?from", "?to"))) in drive.effects
    assert dom.action("refuel").effects[0].op == "assign"
    assert dom.action("double-tank").effects[0].op == "scale-up"


def test_durative_action_is_an_action_with_timed_parts():
    dom = parse_domain_file(KITCHEN / "domain.pddl")
    brew = dom.action("brew")
    assert brew.durative
    assert brew.duration == (pddl.DurationConstraint("=", pddl.Number(3.0)),)
    assert brew.over_all == pddl.Atom("hot", ("?k",))
    assert pddl.Add(pddl.Atom("tea", ("?p",))) in brew.end_effects
    assert pddl.Delete(pddl.Atom("empty", ("?p",))) in brew.effects
    warm = dom.action("warm-stove")
    assert [d.op for d in warm.duration] == [">=", "<="]
    assert pddl.NumericEffect("decrease", pddl.FunctionTerm("gas"),
                              pddl.NumericVariable("?duration")) in warm.end_effects


def test_timed_initial_literals_and_metric():
    prob = parse_problem_file(KITCHEN / "p01.pddl")
    assert prob.timed_literals == (
        pddl.TimedLiteral(1.0, pddl.Atom("shop-open"), True),
        pddl.TimedLiteral(6.0, pddl.Atom("shop-open"), False))
    assert str(prob.metric.expression) == "(total-time)"
    assert is_temporal(parse_domain_file(KITCHEN / "domain.pddl"), prob)


def test_predicate_called_at_still_parses_next_to_timed_literals():
    text = "(define (problem x) (:domain d) (:objects a - obj) (:init (at a) (at 2 (p a))) (:goal (and)))"
    prob = parse_problem(text)
    assert prob.init == (pddl.Atom("at", ("a",)),)
    assert prob.timed_literals[0].time == 2.0


@pytest.mark.parametrize("expr, value", [
    ("(= (g) 3)", pddl.Comparison("=", pddl.FunctionTerm("g"), pddl.Number(3.0))),
    ("(= ?x ?y)", pddl.Equals("?x", "?y")),
    ("(< (- (g)) (* 2 (f ?x)))", pddl.Comparison(
        "<", pddl.BinaryOp("-", pddl.Number(0.0), pddl.FunctionTerm("g")),
        pddl.BinaryOp("*", pddl.Number(2.0), pddl.FunctionTerm("f", ("?x",))))),
])
def test_equals_is_numeric_only_when_a_side_is_a_number_or_expression(expr, value):
    dom = parse_domain(_domain(f"(:action a :parameters (?x ?y - obj) :precondition {expr} :effect (q))"))
    assert dom.actions[0].precondition == value


@pytest.mark.parametrize("dom", sorted((FIXTURES).glob("*/domain.pddl")), ids=lambda p: p.parent.name)
def test_fixtures_check_clean_and_round_trip(dom):
    domain = parse_domain_file(dom)
    assert parse_domain(write_domain(domain)) == domain
    for prob_path in sorted(dom.parent.glob("p*.pddl")):
        problem = parse_problem_file(prob_path)
        assert parse_problem(write_problem(problem)) == problem
        diags = check(domain, problem)
        assert not [d for d in diags if d.severity == "error"], diags
        assert not [d for d in diags if "without declaring" in d.message], diags


def test_requirements_used_are_recognised():
    dom = parse_domain_file(KITCHEN / "domain.pddl")
    prob = parse_problem_file(KITCHEN / "p01.pddl")
    used = used_requirements(dom, prob)
    assert {":durative-actions", ":duration-inequalities", ":numeric-fluents",
            ":timed-initial-literals"} <= used


def _errors(domain_text: str, problem_text: str | None = None) -> list[str]:
    dom = parse_domain(domain_text, "d.pddl")
    prob = parse_problem(problem_text, "p.pddl") if problem_text else None
    return [str(d) for d in errors_of(check(dom, prob))]


@pytest.mark.parametrize("body, message", [
    ("(:action a :parameters (?x - obj) :precondition (> (h ?x) 1) :effect (q))",
     "d.pddl:6:55: error: undeclared function 'h'"),
    ("(:action a :parameters (?x - obj) :precondition (> (f) 1) :effect (q))",
     "function 'f' takes 1 argument(s), 0 given"),
    ("(:action a :parameters () :precondition (q) :effect (increase (f q) 1))",
     "undeclared constant 'q'"),
    ("(:action a :parameters (?x - obj) :precondition (> (/ (g) 0) 1) :effect (q))",
     "d.pddl:6:55: error: division by zero in action 'a' precondition"),
    ("(:action a :parameters (?x - obj) :precondition (> ?x 1) :effect (q))",
     "variable ?x used as a number"),
    ("(:durative-action a :parameters () :duration (<= ?duration 4) :condition (at start (q)) "
     ":effect (at end (q)))", "d.pddl:6:52: error: duration inequality (<= ?duration ...) in "
     "durative action 'a' needs (:requirements :duration-inequalities)"),
    ("(:action a :parameters () :precondition (q) :effect (increase (g) ?duration))",
     "?duration in action 'a' effect"),
    ("(:durative-action a :parameters () :duration (= ?duration (g)) :condition (over all (p b)) "
     ":effect (at end (q)))", "undeclared constant 'b'"),
])
def test_located_errors_for_new_forms(body, message):
    assert any(message in e for e in _errors(_domain(body))), _errors(_domain(body))


def test_object_fluents_are_refused_located():
    text = _domain("", ":numeric-fluents").replace("(g))", "(g) - obj)")
    assert any("object fluents are not supported" in e for e in _errors(text))


def test_timed_literal_of_undeclared_predicate_is_located():
    problem = "(define (problem x) (:domain d) (:objects a - obj)\n (:init (at 3 (r a))) (:goal (q)))"
    errors = _errors(_domain(""), problem)
    assert errors == ["p.pddl:2:16: error: undeclared predicate 'r' in timed initial literal (at 3 ...)"]


@pytest.mark.parametrize("text, pattern", [
    ("(define (problem x) (:domain d) (:init (= (g) 1" + "0" * 400 + ")) (:goal (q)))", "too large"),
    ("(define (problem x) (:domain d) (:init (at -1 (q))) (:goal (q)))", "negative time"),
    ("(define (problem x) (:domain d) (:init (on 3 (q))) (:goal (q)))", "timed initial literal"),
    ("(define (domain d) (:action a :effect (at end (q))))", "unexpected"),
    ("(define (domain d) (:durative-action a :duration (= ?d 3)))", r"expected \?duration"),
    ("(define (domain d) (:durative-action a :effect (increase (g) (* 2 (* #t 3)))))",
     "continuous effects"),
    ("(define (domain d) (:durative-action a :effect (increase (g) (/ #t 2))))",
     "continuous effect is read as a rate"),
    ("(define (domain d) (:durative-action a :effect (assign (g) (* #t 2))))",
     "continuous 'assign' is not supported"),
])
def test_bad_pddl21_text_is_a_located_error(text, pattern):
    with pytest.raises(PlanningError, match=pattern) as info:
        parse(text, "x.pddl")
    assert info.value.line == 1 and info.value.column


def test_grounder_names_the_feature_it_does_not_support():
    from planning_core.ground.normalize import normalize

    dom = parse_domain_file(TANKER / "domain.pddl")
    prob = parse_problem_file(TANKER / "p01.pddl")
    assert first_pddl21_feature(dom, prob).what == "the numeric comparison '>='"
    with pytest.raises(UnsupportedFeature, match=r"numeric comparison '>='.*validate"):
        normalize(dom, prob)


def test_deep_numeric_nesting_is_a_located_error_not_a_crash():
    expr = "(+ 1 " * 300 + "1" + ")" * 300
    text = _domain(f"(:action a :parameters () :precondition (> {expr} 1) :effect (q))")
    with pytest.raises(PDDLSyntaxError, match="nested more than"):
        parse(text)
