"""planning_core as a unified-planning engine (issue 9, item 22), tested through UP's API."""
from __future__ import annotations

from pathlib import Path

import pytest

up = pytest.importorskip("unified_planning")

from unified_planning.engines import PlanGenerationResultStatus, ValidationResultStatus  # noqa: E402
from unified_planning.io import PDDLReader  # noqa: E402
from unified_planning.plans import SequentialPlan  # noqa: E402
from unified_planning.shortcuts import OneshotPlanner, PlanValidator, get_environment  # noqa: E402

import planning_core.up_engine as up_engine  # noqa: E402

# from the checkout, not the working directory
BW = str(Path(__file__).resolve().parents[2] / "domains" / "blocksworld") + "/"


@pytest.fixture(scope="module")
def problem():
    get_environment().credits_stream = None
    up_engine.register()
    return PDDLReader().parse_problem(BW + "domain.pddl", BW + "p01.pddl")


def test_oneshot_planner_by_name_gives_a_plan_up_validates(problem):
    with OneshotPlanner(name="planning_core") as planner:
        result = planner.solve(problem, timeout=30)
    assert result.status is PlanGenerationResultStatus.SOLVED_SATISFICING
    assert result.engine_name == "planning_core" and result.plan.actions
    with PlanValidator(name="sequential_plan_validator") as up_validator:   # UP's own oracle
        assert up_validator.validate(problem, result.plan).status is ValidationResultStatus.VALID
    with PlanValidator(name="planning_core") as validator:
        assert validator.validate(problem, result.plan).status is ValidationResultStatus.VALID


def test_plan_validator_refuses_a_broken_plan(problem):
    with OneshotPlanner(name="planning_core") as planner:
        plan = planner.solve(problem, timeout=30).plan
    broken = SequentialPlan(list(reversed(plan.actions)))
    with PlanValidator(name="planning_core") as validator:
        result = validator.validate(problem, broken)
    assert result.status is ValidationResultStatus.INVALID
    assert result.metrics["verdict"] in ("precondition_failed", "goal_not_satisfied")


def test_unsolvable_is_proven(problem):
    impossible = problem.clone()
    on = impossible.fluent("on")
    a = impossible.object("b1") if impossible.has_object("b1") else impossible.all_objects[0]
    impossible.add_goal(on(a, a))
    with OneshotPlanner(name="planning_core") as planner:
        result = planner.solve(impossible, timeout=30)
    assert result.status is PlanGenerationResultStatus.UNSOLVABLE_PROVEN


# --------------------------------------------------- numeric and temporal (issue 28, item 4)

def _read(tmp_path, domain: str, problem: str):
    (tmp_path / "d.pddl").write_text(domain)
    (tmp_path / "p.pddl").write_text(problem)
    up_engine.register()
    return PDDLReader().parse_problem(str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"))


def test_the_engine_declares_the_numeric_and_temporal_kinds_it_validates(tmp_path):
    from tests.search.test_pddl21_planners import (COUNTER_DOMAIN, COUNTER_PROBLEM,
                                                   LIGHT_DOMAIN, LIGHT_PROBLEM)
    from unified_planning.plans import PlanKind
    for domain, problem in ((COUNTER_DOMAIN, COUNTER_PROBLEM), (LIGHT_DOMAIN, LIGHT_PROBLEM)):
        task = _read(tmp_path, domain, problem)
        assert up_engine.PlanningCoreEngine.supports(task.kind), task.kind
    assert up_engine.PlanningCoreEngine.supports_plan(PlanKind.TIME_TRIGGERED_PLAN)


def test_numeric_plans_are_validated_with_vals_verdicts(tmp_path):
    from tests.search.test_pddl21_planners import COUNTER_DOMAIN, COUNTER_PROBLEM
    task = _read(tmp_path, COUNTER_DOMAIN, COUNTER_PROBLEM)
    inc = task.action("inc")
    with PlanValidator(name="planning_core") as validator:
        good = validator.validate(task, SequentialPlan([inc()] * 3))
        short = validator.validate(task, SequentialPlan([inc()] * 2))
    assert good.status is ValidationResultStatus.VALID
    assert short.status is ValidationResultStatus.INVALID
    assert short.metrics["verdict"] == "goal_not_satisfied"


def test_time_triggered_plans_are_validated(tmp_path):
    from fractions import Fraction

    from tests.search.test_pddl21_planners import LIGHT_DOMAIN, LIGHT_PROBLEM
    from unified_planning.plans import TimeTriggeredPlan
    task = _read(tmp_path, LIGHT_DOMAIN, LIGHT_PROBLEM)
    switch = task.action("switch")
    with PlanValidator(name="planning_core") as validator:
        good = validator.validate(task, TimeTriggeredPlan([(Fraction(0), switch(), Fraction(2))]))
        bad = validator.validate(task, TimeTriggeredPlan([(Fraction(0), switch(), Fraction(1))]))
    assert good.status is ValidationResultStatus.VALID
    assert bad.status is ValidationResultStatus.INVALID
    assert bad.metrics["verdict"] == "duration_violated"


@pytest.mark.slow
def test_a_numeric_task_is_solved_through_enhsp_and_checked(tmp_path):
    from tests.search.test_pddl21_planners import COUNTER_DOMAIN, COUNTER_PROBLEM, _need
    _need("enhsp")
    task = _read(tmp_path, COUNTER_DOMAIN, COUNTER_PROBLEM)
    with OneshotPlanner(name="planning_core") as planner:
        result = planner.solve(task, timeout=60)
    assert result.status is PlanGenerationResultStatus.SOLVED_SATISFICING
    assert result.metrics["engine"] == "enhsp"
    assert [a.action.name for a in result.plan.actions] == ["inc"] * 3
