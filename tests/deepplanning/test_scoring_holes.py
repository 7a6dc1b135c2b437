"""Paper-mode scoring holes closed (issue 30): a level-3 cart not at the proved optimum
after coupons, day numbers, ``queries`` against the released kinds, a missing plans
folder."""
from __future__ import annotations

import copy
import json

import pytest

from planning_core.validators.deepplanning.shopping_score import score_cart
from planning_core.validators.deepplanning.travel_score import score_travel
from tests.deepplanning.fixtures import shopping, travel


def _level3_with_coupons():
    for i in range(6):
        s = shopping(0, 3, i)
        if s["case"].truth.get("ground_truth_coupons"):
            return s
    raise LookupError("no level-3 case whose optimum uses coupons")


def _score(s, cart, mode="paper"):
    case = s["case"]
    return score_cart(cart, case.truth, set(case.by_id), mode=mode, case=case,
                      stock={i: p.get("stock_quantity") for i, p in case.by_id.items()})


def test_a_level3_cart_without_its_coupons_is_not_the_optimum():
    s = _level3_with_coupons()
    oracle = s["oracle_cart"]
    assert _score(s, oracle).case_acc == 1
    bare = dict(copy.deepcopy(oracle), used_coupons=[])
    v = _score(s, bare)
    assert v.case_acc == 0 and "not_lowest_after_coupons" in v.failed and v.match == 1
    assert _score(s, bare, "released").case_acc == 0   # the release fails it too
    # one coupon fewer than the optimum uses: still more to pay
    fewer = copy.deepcopy(oracle)
    c = fewer["used_coupons"][0]
    if c["quantity"] > 1:
        c["quantity"] -= 1
    else:
        fewer["used_coupons"].pop(0)
    assert "not_lowest_after_coupons" in _score(s, fewer).failed


def test_day_numbers_are_checked_in_paper_mode_only():
    t = travel(0, 2)
    plan = json.loads(json.dumps(t["plan"]))
    meta, db = t["entry"]["meta_info"], t["db"]
    ok = score_travel(plan, meta, db)
    assert ok.checkpoints["valid_trip_duration"][0]
    for d in plan["daily_plans"]:
        d["day_number"] += 1                      # 2..N+1
    v = score_travel(plan, meta, db)
    n = len(plan["daily_plans"])
    assert v.checkpoints["valid_trip_duration"] == (
        False, "days not numbered 1..N: " + ", ".join(
            f"day {i} numbered {i + 1}" for i in range(1, min(n, 5) + 1)))
    assert v.case_acc == 0
    assert score_travel(plan, meta, db, mode="released").checkpoints[
        "valid_trip_duration"][0]
    plan["daily_plans"][0]["day_number"] = True
    plan["daily_plans"][1:] = [dict(d, day_number=i) for i, d in
                               enumerate(plan["daily_plans"][1:], 2)]
    assert "numbered True" in score_travel(plan, meta, db).checkpoints[
        "valid_trip_duration"][1]


def _main(capsys, *argv):
    from planning_core.console import main
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_queries_flags_a_kind_outside_the_released_table_and_exits_1(tmp_path, capsys):
    entries = [{"id": "0", "query": "q", "meta_info": {"hard_constraints": {
        "hotel_cheapest_with_pool": {"hotel_name": "Orange Hotel"},   # hotel_*, not released
        "hotel_highest_rated": {"hotel_name": "Orange Hotel"}}}}]
    path = tmp_path / "travelplanning_query_en.json"
    path.write_text(json.dumps(entries))
    code, text, err = _main(capsys, "deepplanning", "queries", str(path), "--json")
    r = json.loads(text)
    assert code == 1 and r["flagged"]
    assert r["cannot_check"] == {
        "hotel_cheapest_with_pool": "not a kind of the released query files"}
    assert r["not_in_release"] == ["hotel_cheapest_with_pool"]
    entries[0]["meta_info"]["hard_constraints"].pop("hotel_cheapest_with_pool")
    path.write_text(json.dumps(entries))
    code, text, err = _main(capsys, "deepplanning", "queries", str(path))
    assert code == 0 and "flagged" not in err


def test_score_with_a_missing_plans_folder_is_an_error(tmp_path, capsys):
    from planning_core.console import main
    assert main(["deepplanning", "generate", "travel", "--n", "1", "--out",
                 str(tmp_path / "t")]) == 0
    capsys.readouterr()
    code, _, err = _main(capsys, "deepplanning", "score", "travel", "--tasks",
                         str(tmp_path / "t"), "--plans", str(tmp_path / "plnas"))
    assert code == 2 and "plnas" in err and "no such folder" in err
