"""unified-planning results as UP's own engines fill them (issue 32, item 5).

``PlanValidator(name="planning_core")`` on an invalid plan fills ``reason`` and
``inapplicable_action`` as UP's ``sequential_plan_validator`` does (the cause used to be
only in ``log_messages``), and ``OneshotPlanner(name="planning_core",
optimality_guarantee=SOLVED_OPTIMALLY)`` gives a plan as short (as cheap) as Fast Downward's
optimal configuration, UP's own oracle here.
"""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("unified_planning")

from unified_planning.engines import (  # noqa: E402
    OptimalityGuarantee, PlanGenerationResultStatus, ValidationResultStatus)
from unified_planning.engines.results import FailedValidationReason  # noqa: E402
from unified_planning.io import PDDLReader  # noqa: E402
from unified_planning.model.metrics import (MinimizeActionCosts,  # noqa: E402
                                            MinimizeSequentialPlanLength)
from unified_planning.plans import SequentialPlan  # noqa: E402
from unified_planning.shortcuts import OneshotPlanner, PlanValidator, get_environment  # noqa: E402

import planning_core.up_engine as up_engine  # noqa: E402

BW = str(Path(__file__).resolve().parents[2] / "domains" / "blocksworld") + "/"


@pytest.fixture(scope="module")
def problem():
    get_environment().credits_stream = None
    up_engine.register()
    return PDDLReader().parse_problem(BW + "domain.pddl", BW + "p01.pddl")


def _both(problem, plan):
    with PlanValidator(name="planning_core") as ours, \
            PlanValidator(name="sequential_plan_validator") as theirs:
        return ours.validate(problem, plan), theirs.validate(problem, plan)


def _plan(problem) -> SequentialPlan:
    with OneshotPlanner(name="planning_core") as planner:
        return planner.solve(problem, timeout=30).plan


def test_an_inapplicable_step_is_named_as_ups_validator_names_it(problem):
    plan = _plan(problem)
    broken = SequentialPlan(list(reversed(plan.actions)))
    ours, theirs = _both(problem, broken)
    assert theirs.reason is FailedValidationReason.INAPPLICABLE_ACTION   # the oracle agrees
    assert ours.status is ValidationResultStatus.INVALID
    assert ours.reason is theirs.reason
    assert str(ours.inapplicable_action) == str(theirs.inapplicable_action)
    assert ours.inapplicable_action is broken.actions[0]


def test_a_plan_that_stops_short_has_unsatisfied_goals(problem):
    plan = _plan(problem)
    short = SequentialPlan(list(plan.actions[:-1]))
    ours, theirs = _both(problem, short)
    assert theirs.reason is FailedValidationReason.UNSATISFIED_GOALS
    assert (ours.status, ours.reason, ours.inapplicable_action) == \
        (ValidationResultStatus.INVALID, FailedValidationReason.UNSATISFIED_GOALS, None)


def test_a_valid_plan_has_no_reason(problem):
    ours, _ = _both(problem, _plan(problem))
    assert (ours.status, ours.reason, ours.inapplicable_action) == \
        (ValidationResultStatus.VALID, None, None)


@pytest.mark.parametrize("metric", ["length", "costs"])
def test_optimal_guarantee_is_accepted_and_met(problem, metric):
    task = problem.clone()
    if metric == "length":
        task.add_quality_metric(MinimizeSequentialPlanLength())
    else:
        task.add_quality_metric(MinimizeActionCosts({a: 1 for a in task.actions}))
    with OneshotPlanner(name="planning_core",
                        optimality_guarantee=OptimalityGuarantee.SOLVED_OPTIMALLY) as planner:
        ours = planner.solve(task, timeout=60)
    assert ours.status is PlanGenerationResultStatus.SOLVED_OPTIMALLY
    with OneshotPlanner(name="fast-downward-opt") as oracle:
        best = oracle.solve(task, timeout=60)
    assert best.status is PlanGenerationResultStatus.SOLVED_OPTIMALLY
    assert len(ours.plan.actions) == len(best.plan.actions)
    with PlanValidator(name="sequential_plan_validator") as up_validator:
        assert up_validator.validate(task, ours.plan).status is ValidationResultStatus.VALID
