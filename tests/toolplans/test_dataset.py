"""The project's 40 tool-use tasks and their variants: reference chains, optima, refusals."""
from __future__ import annotations

import importlib.util
import math

import pytest

from planning_core.result import Status
from planning_core.solve import solve
from planning_core.validators.toolplans import TaskContext, check_output
from planning_core.validators.toolplans.dataset import load_dataset

from tests.toolplans.toolplans_fixtures import DATASET

TASKS = load_dataset(DATASET)
BASE = [r for r in TASKS if not r.variant]
IDS = lambda r: r.id  # noqa: E731


def _ctx(ref, cache={}):  # noqa: B006 - one context per task for the whole module
    if ref.id not in cache:
        cache[ref.id] = TaskContext(ref.task)
    return cache[ref.id]


def test_forty_hand_written_tasks_in_three_domains_with_variants():
    assert len(BASE) >= 40
    assert {r.domain for r in BASE} == {"travel", "files", "data"}
    assert len(TASKS) == 3 * len(BASE)
    for r in BASE:
        assert r.data["invalid"] and r.data["valid"], r.id
        # distractor tools: every task's tool set has tools its request does not need
        assert set(t.name for t in r.task.tools) - _ctx(r).relevant, r.id


def test_invalid_chains_cover_every_plan_fault():
    kinds = {inv["fault"] for r in TASKS for inv in r.data["invalid"]}
    assert kinds == {"hallucinated_input", "missing_prerequisite", "premature_call",
                     "broken_tool", "forbidden_tool", "constraint_violated", "incomplete",
                     "unknown_tool", "wrong_arguments"}


@pytest.mark.parametrize("ref", TASKS, ids=IDS)
def test_reference_chains(ref):
    ctx = _ctx(ref)
    for entry in ref.data["valid"]:
        chain = entry["chain"] if isinstance(entry, dict) else entry
        rep = check_output(ctx, chain, grade=False)
        assert rep.correct, (chain, rep.to_dict())
        if isinstance(entry, dict):
            assert list(rep.extraneous) == entry.get("extraneous", [])
            assert list(rep.redundant) == entry.get("redundant", [])
            assert rep.cost == entry["cost"]
    for inv in ref.data["invalid"]:
        rep = check_output(ctx, inv["chain"], grade=False)
        assert rep.correct is False
        assert (rep.primary.kind, rep.primary.step) == (inv["fault"], inv["step"]), \
            (inv["chain"], rep.to_dict())


@pytest.mark.parametrize("ref", TASKS, ids=IDS)
def test_solvability_kind_optimum_and_refusal(ref):
    ctx = _ctx(ref)
    feas = ctx.feasibility(engine="internal", time_limit=30)
    assert feas.solvable is ref.solvable
    assert feas.kind == ref.data.get("kind")
    assert feas.cost == ref.data["optimal_cost"]
    refusal = check_output(ctx, "REFUSE", engine="internal", time_limit=30)
    assert refusal.correct is (not ref.solvable)
    if ref.solvable:
        first = ref.data["valid"][0]
        rep = check_output(ctx, first if isinstance(first, str) else first["chain"],
                           engine="internal", time_limit=30)
        assert rep.optimal_cost == ref.data["optimal_cost"]


def test_variants_are_what_the_script_makes():
    spec = importlib.util.spec_from_file_location("make_variants", DATASET / "make_variants.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for domain in mod.DOMAINS:
        assert (DATASET / "generated" / f"{domain}.json").read_text(encoding="utf-8") == \
            mod.render(domain), f"run python domains/toolplans/make_variants.py ({domain})"


@pytest.mark.slow
@pytest.mark.parametrize("ref", TASKS, ids=IDS)
def test_fast_downward_agrees_on_the_compiled_pddl(ref):
    """Solvability and the optimal cost by Fast Downward on the folded PDDL as written."""
    ctx = _ctx(ref)
    res = solve(ctx.folded.domain, ctx.folded.problem, optimal=True, engine="fd", time_limit=60)
    assert res.status is (Status.SOLVED if ref.solvable else Status.UNSOLVABLE), res.reason
    if ref.solvable:
        assert math.isclose(res.cost, ref.data["optimal_cost"])
