"""The compiled PDDL judged by an independent validator: unified-planning.

For hand-written tasks (all with constraints, a third of the others), the folded compilation is written
out, read by unified-planning's PDDL reader, and every reference chain whose steps name only
declared objects and actions (so not the hallucination, unknown-tool, wrong-argument and
forbidden-tool chains, which UP cannot even read as plans) is validated by UP's sequential
plan validator: valid chains must be valid (with our cost), chains whose first fault is a
missing or premature prerequisite, a broken tool or a call limit must fail at that call, and
incomplete chains must miss the goal.
"""
from __future__ import annotations

import warnings

import pytest

from planning_core.validators.toolplans import TaskContext, parse_output
from planning_core.validators.toolplans.check import execute
from planning_core.validators.toolplans.dataset import load_dataset

from tests.toolplans.toolplans_fixtures import DATASET

AT_STEP = {"premature_call", "missing_prerequisite", "broken_tool", "constraint_violated"}
BASE = [r for r in load_dataset(DATASET) if not r.variant]
# unified-planning reads a domain in ~0.3 s of CPU: every task with user constraints (the
# counters and orders of the compilation) and every third of the others
TASKS = [r for k, r in enumerate(BASE) if r.task.constraints or k % 3 == 0]


def _up():
    pytest.importorskip("unified_planning", reason="unified-planning (the oracle) is not installed")
    from unified_planning.shortcuts import get_environment
    get_environment().credits_stream = None


@pytest.mark.slow
@pytest.mark.parametrize("ref", TASKS, ids=lambda r: r.id)
def test_unified_planning_agrees_on_the_compiled_pddl(ref, tmp_path):
    _up()
    from unified_planning.engines import ValidationResultStatus
    from unified_planning.engines.results import FailedValidationReason
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import PlanValidator

    ctx = TaskContext(ref.task)
    domain, problem = ctx.folded.texts()
    (tmp_path / "d.pddl").write_text(domain)
    (tmp_path / "p.pddl").write_text(problem)
    reader = PDDLReader()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        up_problem = reader.parse_problem(str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"))
    cases = [(v["chain"] if isinstance(v, dict) else v, None, None) for v in ref.data["valid"]]
    cases += [(i["chain"], i["fault"], i["step"]) for i in ref.data["invalid"]
              if i["fault"] in AT_STEP | {"incomplete"}]
    checked = 0
    validator = PlanValidator(name="sequential_plan_validator")
    for chain, fault, step in cases:
        ex = execute(ctx, parse_output(chain).calls)
        assert all(ctx.task.tool(s.name) is not None and s.name not in ctx.task.forbidden
                   for s in ex.steps), chain   # only chains UP can read were selected
        plan_file = tmp_path / "plan"
        plan_file.write_text("\n".join(str(s) for s in ex.steps) + "\n")
        up_plan = reader.parse_plan(up_problem, str(plan_file))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = validator.validate(up_problem, up_plan)
        checked += 1
        if fault is None:
            assert result.status == ValidationResultStatus.VALID, (chain, str(result))
            if result.metric_evaluations:
                (cost,) = result.metric_evaluations.values()
                assert cost == ex.report.cost, chain
        elif fault == "incomplete":
            assert result.reason == FailedValidationReason.UNSATISFIED_GOALS, (chain, str(result))
        else:
            assert result.reason == FailedValidationReason.INAPPLICABLE_ACTION, (chain, str(result))
            assert len(result.trace) == step, (chain, str(result))   # initial state + applied steps
    assert checked >= 1
