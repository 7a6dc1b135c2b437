"""The step-wise setting: applicability now and membership of an optimal continuation."""
from __future__ import annotations

import pytest

from planning_core.errors import PlanningError
from planning_core.validators.toolplans import judge_next

from tests.toolplans.toolplans_fixtures import mini

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
