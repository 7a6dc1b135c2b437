"""Compilation: compile -> write -> parse round trips, determinism, and both constraint forms."""
from __future__ import annotations

import pytest

from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.pddl.plans import Plan
from planning_core.validate import Validator
from planning_core.validators.toolplans import check_output, compile_task, parse_output, parse_task
from planning_core.validators.toolplans.check import execute
from planning_core.validators.toolplans.context import TaskContext
from planning_core.validators.toolplans.dataset import load_dataset

from tests.toolplans.toolplans_fixtures import DATASET, TASK, TOOLS, VALID, mini

TASKS = load_dataset(DATASET)


ROUND_TRIPS = [(r, "pddl3") for r in TASKS] + [(r, "folded") for r in TASKS if not r.variant]


@pytest.mark.parametrize("ref,mode", ROUND_TRIPS, ids=lambda x: getattr(x, "id", x))
def test_compile_write_parse_round_trip(ref, mode):
    c = compile_task(ref.task, mode)
    domain, problem = c.texts()
    assert parse_domain(domain) == c.domain
    assert parse_problem(problem) == c.problem
    assert compile_task(ref.task, mode).texts() == (domain, problem)  # deterministic


@pytest.mark.parametrize("ref", [r for r in TASKS if not r.variant], ids=lambda r: r.id)
def test_parsed_back_pddl_gives_the_same_verdicts(ref):
    """Check every reference chain on the PDDL as written and read back by our parser."""
    ctx = TaskContext(ref.task)
    d, p = ctx.pddl3.texts()
    domain, problem = parse_domain(d), parse_problem(p)
    chains = [v["chain"] if isinstance(v, dict) else v for v in ref.data["valid"]]
    chains += [inv["chain"] for inv in ref.data["invalid"]]
    validator = Validator(domain, problem)
    for chain in chains:
        ex = execute(ctx, parse_output(chain).calls)
        again = validator.validate(Plan(ex.steps))
        assert (again.verdict, again.step) == (ex.report.verdict, ex.report.step), chain


def test_pddl3_and_folded_forms_have_the_same_optimum():
    from planning_core.solve import solve
    ctx = mini()
    a = solve(ctx.pddl3.domain, ctx.pddl3.problem, optimal=True, engine="internal")
    b = solve(ctx.folded.domain, ctx.folded.problem, optimal=True, engine="internal")
    assert a.status == b.status and a.cost == b.cost == 4


def test_compiled_shape():
    d, p = mini().pddl3.texts()
    assert "(:action book" in d and "(exists (?r1 - auth_token) (have ?r1))" in d
    assert "(working-weather)" in d and "(working-weather)" not in p   # broken: never true
    assert "(always (not (called-old_pay)))" in p
    assert "(sometime-before (called-pay) (called-login))" in p
    assert "(not (count-of-search-2))" in d and "(count-of-search-0)" in p
    assert "booking-of-book - booking" in d
    f, _ = mini().folded.texts()
    assert "(:action old_pay" not in f and "(called-login)" in f


def test_at_most_once_needs_no_counter():
    d, _ = mini(constraints=[{"kind": "at_most", "tool": "pay", "n": 1}]).pddl3.texts()
    assert "(not (called-pay))" in d and "count-of-pay" not in d


def test_item_named_like_an_output_is_refused():
    from planning_core.validators.toolplans import ToolSpecError
    items = [{"name": "offer-of-search", "type": "offer"}]
    with pytest.raises(ToolSpecError, match="rename the item"):
        mini(items=items).pddl3


def test_output_names_that_collide_are_refused():
    from planning_core.validators.toolplans import ToolSpecError
    tools = [{"name": "z", "x-planning": {"produces": ["x-of-y"]}},
             {"name": "y-of-z", "x-planning": {"produces": ["x"]}}]
    with pytest.raises(ToolSpecError, match="both named 'x-of-y-of-z'"):
        compile_task(parse_task({"goal": ["x"], "tools": tools}))


def test_costs_become_a_metric():
    costly = [dict(t, **{"x-planning": dict(t["x-planning"], cost=5)}) if t["function"]["name"] == "login"
              else t for t in TOOLS]
    ctx = TaskContext(parse_task({**TASK, "tools": costly}))
    d, p = ctx.pddl3.texts()
    assert "(increase (total-cost) 5)" in d and "(:metric minimize (total-cost))" in p
    rep = check_output(ctx, VALID)
    assert rep.correct and rep.cost == 8 and rep.optimal_cost == 8
