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
