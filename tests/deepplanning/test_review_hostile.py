"""Review of issue 23: hostile inputs found by attacking the commands; each was a crash
(an internal error or a row marked error) before its fix and is a recorded verdict after."""
from __future__ import annotations

import copy
import json

import pytest

from planning_core.validators.deepplanning.travel_score import score_travel
from planning_core.validators.deepplanning.units import cents
from tests.deepplanning.fixtures import travel


def _meals(plan):
    return [a for d in plan["daily_plans"] for a in d["activities"] if a["type"] == "meal"]


@pytest.mark.parametrize("text", ["1e999999999", "-1e999999999", "1e5000", "1e15",
                                  "1e-999999999", "0e-999999999"])
def test_cents_of_absurd_exponents_is_none_or_exact(text):
    c = cents(text)
    assert c is None or c == 0


def test_cents_keeps_large_ordinary_amounts_and_refuses_hidden_decimals():
    assert cents("99999999999999.99") == 9999999999999999
    assert cents(10 ** 14) == 10 ** 16
    assert cents(10 ** 400) is None
    assert cents("1.000000000000000000000000000001") is None   # not two decimals


@pytest.mark.parametrize("mode", ("paper", "released"))
@pytest.mark.parametrize("where,value", [
    ("total", "1e999999999"), ("total", "1e5000"), ("total", 10 ** 400),
    ("hotel", "1e999999"), ("meal", "1e5000"), ("meal", 10 ** 400),
    ("leg", 10 ** 400), ("leg", "1e999999999")], ids=lambda v: str(v)[:12])
def test_absurd_amounts_are_verdicts(mode, where, value):
    t = travel(0, 2)
    p = copy.deepcopy(t["plan"])
    if where == "total":
        p["budget_summary"]["total_estimated_budget"] = value
    elif where == "hotel":
        p["daily_plans"][0]["accommodation"]["price_per_night"] = value
    elif where == "meal":
        for a in _meals(p):
            a["details"]["cost"] = value
    else:
        p["daily_plans"][0]["activities"][0]["details"]["cost"] = value
    v = score_travel(json.dumps(p), t["entry"]["meta_info"], t["db"], mode=mode)
    json.dumps(v.to_json())
    assert v.case_acc == 0
    assert "cost_calculation_correctness" in v.failed


@pytest.mark.parametrize("mode", ("paper", "released"))
def test_absurd_visit_hours_in_a_supplied_database_are_verdicts(mode):
    t = travel(0, 2)
    for row in t["db"].rows("attractions"):
        row["max_visit_hours"] = "1e999999999"
    v = score_travel(t["plan"], t["entry"]["meta_info"], t["db"], mode=mode)
    assert "reasonable_duration_at_attractions" in v.failed
