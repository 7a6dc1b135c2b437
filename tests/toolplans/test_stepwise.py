"""The step-wise setting: applicability now and membership of an optimal continuation."""
from __future__ import annotations

import pytest

from planning_core.errors import PlanningError
from planning_core.validators.toolplans import TaskContext, judge_next, parse_output
from planning_core.validators.toolplans.dataset import load_dataset

from tests.toolplans.toolplans_fixtures import DATASET, mini

L = 'login(username="ana.l")'
S = 'search(origin="Paris", destination="Rome", date="2025-05-01")'


@pytest.mark.parametrize("prefix,call,applicable,optimal", [
    ("[]", L, True, True),
    ("[]", S, True, True),
    ("[]", "make_voucher()", True, False),                  # applicable, not needed
    (L, L, True, False),                                     # adds nothing
    (f"{L}\n{S}", 'book(offer=$2.offer, passenger="Ana")', True, True),
    (f"{L}\n{S}", 'book(offer=$2.offer, passenger="Bob")', False, None),      # E6
    (L, 'book(offer=$search.offer, passenger="Ana")', False, None),           # E4
    ("[]", 'weather(city="Rome")', False, None),                               # broken
    ("[]", 'old_pay(amount="x")', False, None),                                # forbidden
])
def test_next_call(prefix, call, applicable, optimal):
    rep = judge_next(mini(), prefix, call)
    assert (rep.applicable, rep.optimal) == (applicable, optimal), rep
    if optimal:
        assert rep.h_after + 1 == rep.h_before


def test_h_star_values_and_a_dead_end():
    rep = judge_next(mini(), "[]", L)
    assert (rep.h_before, rep.h_after) == (4, 3)
    # two searches use up the limit of two: a third is not applicable
    ctx = mini()
    rep = judge_next(ctx, f"{S}\n{S}", S)
    assert rep.applicable is False and rep.fault.kind == "constraint_violated"
    # searching again is allowed (limit two) but never on an optimal chain
    ctx = mini(constraints=[{"kind": "at_most", "tool": "search", "n": 2}], goal=["booking"])
    assert judge_next(ctx, S, S).optimal is False


def test_bad_prefix_and_bad_call():
    rep = judge_next(mini(), 'book(offer=$search.offer, passenger="Ana")', L)
    assert rep.applicable is None and rep.fault.step == 1
    with pytest.raises(PlanningError, match="one proposed call"):
        judge_next(mini(), "[]", f"{L}\n{S}")
    with pytest.raises(PlanningError, match="not a list of tool calls"):
        judge_next(mini(), "search(", L)


@pytest.mark.parametrize("ref", [r for r in load_dataset(DATASET, variants=False)], ids=lambda r: r.id)
def test_every_call_of_an_optimal_reference_chain_is_an_optimal_next_call(ref):
    """Along a reference chain of optimal cost, h* drops by each call's cost; a call of an
    extraneous tool in a longer valid chain is applicable but not optimal."""
    ctx = TaskContext(ref.task)
    for entry in ref.data["valid"]:
        chain = entry["chain"] if isinstance(entry, dict) else entry
        calls = parse_output(chain).calls
        optimal = not isinstance(entry, dict)   # the dict entries are the longer chains
        for k, call in enumerate(calls):
            rep = judge_next(ctx, list(calls[:k]), [call])
            assert rep.applicable, (k, rep)
            if optimal:
                assert rep.optimal, (k, rep)
        if isinstance(entry, dict) and entry.get("extraneous"):
            k = entry["extraneous"][0] - 1
            assert judge_next(ctx, list(calls[:k]), [calls[k]]).optimal is False


def test_fast_downward_gets_a_cpu_limit_so_verdicts_do_not_depend_on_load(monkeypatch):
    """Feasibility (which ``engine="auto"`` hands to Fast Downward for the largest tool
    sets) and the step-wise h* must give FD a CPU budget: with a wall-clock limit a loaded
    machine could turn a decided row into unknown."""
    import planning_core.search.fast_downward as fd

    seen = []
    real = fd.run_fast_downward

    def spy(*args, **kwargs):
        seen.append(kwargs.get("cpu_budget"))
        return real(*args, **kwargs)

    monkeypatch.setattr(fd, "run_fast_downward", spy)
    assert mini().feasibility(engine="fd", time_limit=30).status.name == "SOLVED"
    from planning_core.search import hstar
    ctx = mini()
    assert hstar.h_star(ctx.ground, engine="fd", cpu_budget=True) == 4
    assert seen == [True, True]
    from planning_core.validators.toolplans import stepwise
    asked = []
    monkeypatch.setattr(stepwise, "split_h_star", lambda *a, **k: asked.append(k) or 4)
    judge_next(mini(), "[]", L)
    assert asked and all(k.get("cpu_budget") is True for k in asked)
