"""``solve`` on numeric and temporal (PDDL 2.1) tasks: handed to ENHSP or TAMER, and the
plan reported only after our validator accepted it (issue 28, item 4)."""
from __future__ import annotations

import pytest

from planning_core.errors import EngineError, UnsupportedFeature
from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.result import SolveResult, Status
from planning_core.search import pddl21_planners as pp
from planning_core.solve import solve
from tests.search.test_pddl21_planners import (COUNTER_DOMAIN, COUNTER_PROBLEM, LIGHT_DOMAIN,
                                               LIGHT_PROBLEM, _need)

CLASSICAL_DOMAIN = """(define (domain d) (:requirements :strips :action-costs)
  (:predicates (p) (q)) (:functions (total-cost))
  (:action a :parameters () :precondition (p) :effect (and (q) (increase (total-cost) 1))))"""
CLASSICAL_PROBLEM = """(define (problem x) (:domain d) (:init (p) (= (total-cost) 0))
  (:goal (q)) (:metric minimize (total-cost)))"""


def _task(domain: str, problem: str):
    return parse_domain(domain), parse_problem(problem)


def test_task_kinds():
    assert pp.pddl21_kind(*_task(CLASSICAL_DOMAIN, CLASSICAL_PROBLEM)) is None
    assert pp.pddl21_kind(*_task(COUNTER_DOMAIN, COUNTER_PROBLEM)) == "numeric"
    assert pp.pddl21_kind(*_task(LIGHT_DOMAIN, LIGHT_PROBLEM)) == "temporal"
    # an increase of another fluent than total-cost is numeric planning already
    fuel = CLASSICAL_DOMAIN.replace("total-cost", "fuel")
    assert pp.pddl21_kind(*_task(fuel, CLASSICAL_PROBLEM.replace("total-cost", "fuel"))) \
        == "numeric"


@pytest.mark.parametrize("engine", ["internal", "fd"])
def test_classical_engines_refuse_a_numeric_task_by_name(engine):
    with pytest.raises(UnsupportedFeature, match="numeric .*enhsp"):
        solve(*_task(COUNTER_DOMAIN, COUNTER_PROBLEM), engine=engine)


def test_enhsp_refuses_durative_actions():
    with pytest.raises(UnsupportedFeature, match="ENHSP does not plan with durative"):
        solve(*_task(LIGHT_DOMAIN, LIGHT_PROBLEM), engine="enhsp")


def test_no_planner_installed_says_which_to_install(monkeypatch):
    monkeypatch.setattr(pp, "available", lambda engine: False)
    with pytest.raises(EngineError, match=r"TAMER \(up-tamer\).*planning-core\[planners\]"):
        solve(*_task(LIGHT_DOMAIN, LIGHT_PROBLEM))
    with pytest.raises(EngineError, match="ENHSP .* or TAMER"):
        solve(*_task(COUNTER_DOMAIN, COUNTER_PROBLEM))


def _fake_planner(plan, status=Status.SOLVED, reason=""):
    def run_planner(engine, domain_text, problem_text, **limits):
        assert limits["time_limit"] > 0
        return SolveResult(status, plan, None, engine, 0.01,
                           (("planner_cpu_s", 0.01),), reason)
    return run_planner


def test_a_plan_our_validator_rejects_is_never_reported(monkeypatch):
    monkeypatch.setattr(pp, "available", lambda engine: True)
    monkeypatch.setattr(pp, "run_planner", _fake_planner(("(inc)", "(inc)")))
    res = solve(*_task(COUNTER_DOMAIN, COUNTER_PROBLEM), time_limit=30)
    assert res.status is Status.UNKNOWN
    assert res.plan is None
    assert res.reason.startswith("enhsp's plan is invalid (goal_not_satisfied)")


def test_a_plan_our_validator_accepts_is_reported_with_its_value(monkeypatch):
    monkeypatch.setattr(pp, "available", lambda engine: True)
    monkeypatch.setattr(pp, "run_planner", _fake_planner(("(inc)",) * 3))
    problem = COUNTER_PROBLEM.replace("(:goal (>= (c) 3))",
                                      "(:goal (>= (c) 3)) (:metric minimize (c))")
    res = solve(*_task(COUNTER_DOMAIN, problem), time_limit=30)
    assert res.status is Status.SOLVED
    assert res.plan == ("(inc)",) * 3
    assert res.cost == 3
    assert res.engine == "enhsp"


def test_a_planner_limit_is_unknown(monkeypatch):
    monkeypatch.setattr(pp, "available", lambda engine: True)
    monkeypatch.setattr(pp, "run_planner", _fake_planner(None, Status.UNKNOWN, "time limit"))
    res = solve(*_task(LIGHT_DOMAIN, LIGHT_PROBLEM), time_limit=5)
    assert (res.status, res.reason, res.engine) == (Status.UNKNOWN, "time limit", "tamer")


@pytest.mark.slow
def test_enhsp_solves_and_we_validate():
    _need("enhsp")
    res = solve(*_task(COUNTER_DOMAIN, COUNTER_PROBLEM), time_limit=60)
    assert res.status is Status.SOLVED
    assert res.plan == ("(inc)",) * 3
    assert dict(res.stats)["kind"] == "numeric"


@pytest.mark.slow
def test_tamer_solves_and_we_validate():
    _need("tamer")
    res = solve(*_task(LIGHT_DOMAIN, LIGHT_PROBLEM), time_limit=60)
    assert res.status is Status.SOLVED
    assert res.plan == ("0.0: (switch) [2.0]",)
    assert res.engine == "tamer"
