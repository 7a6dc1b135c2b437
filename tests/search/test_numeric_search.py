"""The in-process numeric search over ground_numeric's tasks (search/numeric_search.py):
numeric conditions checked exactly, amounts read before the step, undefined values and
divisions by zero make a step inapplicable, a deterministic expansion budget."""
from __future__ import annotations

import pytest

from planning_core.errors import UnsupportedFeature
from planning_core.ground.numeric import ground_numeric
from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.result import Status
from planning_core.search.numeric_search import numeric_gbfs
from planning_core.validate.simulator import validate_plan

JUG = """(define (domain jug) (:requirements :numeric-fluents)
  (:functions (a) (b) (cap-a) (cap-b) (k))
  (:action fill-a :parameters () :precondition (< (a) (cap-a)) :effect (assign (a) (cap-a)))
  (:action empty-b :parameters () :precondition (> (b) 0) :effect (assign (b) 0))
  (:action pour :parameters () :precondition (and (> (a) 0) (< (b) (cap-b)))
    :effect (and (decrease (a) (- (cap-b) (b))) (assign (b) (cap-b))))
  (:action halve :parameters () :precondition (> (a) 0) :effect (scale-down (a) (k))))"""


def _jug(init: str, goal: str):
    problem = f"(define (problem p) (:domain jug) (:init {init}) (:goal {goal}))"
    return parse_domain(JUG), parse_problem(problem)


def _search(domain, problem, **kw):
    return numeric_gbfs(ground_numeric(domain, problem), **kw)


def test_amounts_are_read_before_the_step_and_the_plan_validates():
    # pour reads b before assigning it: from a=5, b=0 (cap-b 3) it leaves a=2, b=3
    domain, problem = _jug("(= (a) 0) (= (b) 0) (= (cap-a) 5) (= (cap-b) 3) (= (k) 2)",
                           "(= (a) 2)")
    out = _search(domain, problem)
    assert out.status is Status.SOLVED
    assert out.plan == ("(fill-a)", "(pour)")
    assert validate_plan(domain, problem, "\n".join(out.plan)).valid


@pytest.mark.parametrize("weight", [None, 2.0])
def test_greedy_and_weighted_find_the_same_short_plan(weight):
    domain, problem = _jug("(= (a) 0) (= (b) 0) (= (cap-a) 8) (= (cap-b) 3) (= (k) 2)",
                           "(= (a) 4)")
    out = _search(domain, problem, weight=weight)
    assert out.status is Status.SOLVED
    assert validate_plan(domain, problem, "\n".join(out.plan)).valid


def test_a_division_by_zero_makes_the_step_inapplicable():
    # halve by k = 0 would be a division by zero: the only way to a = 2.5 is closed
    domain, problem = _jug("(= (a) 0) (= (b) 0) (= (cap-a) 5) (= (cap-b) 9) (= (k) 0)",
                           "(= (a) 2.5)")
    out = _search(domain, problem)
    assert out.status is Status.UNKNOWN and out.plan is None
    # with k = 2 it is the plan
    domain, problem = _jug("(= (a) 0) (= (b) 0) (= (cap-a) 5) (= (cap-b) 9) (= (k) 2)",
                           "(= (a) 2.5)")
    assert _search(domain, problem).plan == ("(fill-a)", "(halve)")


def test_an_undefined_fluent_is_never_read():
    # cap-b has no value: pour (which reads it) is never applied, so b stays 0
    domain, problem = _jug("(= (a) 0) (= (b) 0) (= (cap-a) 5) (= (k) 2)", "(> (b) 0)")
    out = _search(domain, problem)
    assert (out.status, out.plan) == (Status.UNKNOWN, None)


def test_the_expansion_budget_is_a_count():
    # a must reach 7 but fill-a only ever gives 5: no plan; every run stops at the same count
    domain, problem = _jug("(= (a) 0) (= (b) 0) (= (cap-a) 5) (= (cap-b) 3) (= (k) 3)",
                           "(>= (a) 7)")
    runs = [_search(domain, problem, node_limit=50) for _ in range(2)]
    assert all(r.status is Status.UNKNOWN for r in runs)
    assert runs[0].expanded == runs[1].expanded


def test_durative_actions_are_refused():
    from tests.search.test_pddl21_planners import LIGHT_DOMAIN, LIGHT_PROBLEM
    domain, problem = parse_domain(LIGHT_DOMAIN), parse_problem(LIGHT_PROBLEM)
    with pytest.raises(UnsupportedFeature, match="durative"):
        _search(domain, problem)
