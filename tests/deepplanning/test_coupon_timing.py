"""Coupon timing (paper line 211): a coupon is judged when it is added, against the products
then in the cart, and removing products later leaves it standing (the released tools);
paper-mode scoring judges the final cart, so a coupon left standing on a cart below its
threshold fails exactly ``coupon_threshold``.  Level-3 generation records the optimum's
timing facts, proved by z3 and re-checked by enumeration."""
from __future__ import annotations

import json

import pytest

from planning_core.validators.deepplanning.shopping_db import (Cart, CartError, ShoppingCase,
                                                               coupon_breaks)
from planning_core.validators.deepplanning.shopping_gen import case_problem
from planning_core.validators.deepplanning.shopping_problem import (brute_force_cart,
                                                                    brute_force_timing,
                                                                    prove_timing)
from planning_core.validators.deepplanning.shopping_score import score_cart
from planning_core.validators.deepplanning.shopping_tools import ShoppingTools
from tests.deepplanning.fixtures import shopping

C300 = "Cross-store: ¥30 off every ¥300"
C500 = "Cross-store: ¥60 off every ¥500"
VIP = "VIP: ¥200 off every ¥1,000"


def _case(user=None):
    products = [{"product_id": "p1", "name": "Tee", "price": 250.5, "stock_quantity": 3},
                {"product_id": "p2", "name": "Jeans", "price": 800, "stock_quantity": 9},
                {"product_id": "p3", "name": "Cap", "price": "oops", "stock_quantity": 9}]
    user = user if user is not None else {"is_vip": True, "coupons": {C300: 3, C500: 1,
                                                                       VIP: 1}}
    return ShoppingCase(products, user)


def _truth(*pids, coupons=None):
    return {"ground_truth_products": [{"product_id": p} for p in pids],
            "ground_truth_coupons": coupons or {}}


def _paper(cart, case, truth):
    return score_cart(cart, truth, set(case.by_id), case=case,
                      stock={i: p.get("stock_quantity") for i, p in case.by_id.items()})


# ---- the sandbox: when a coupon is added decides whether it is accepted -----------------------

def test_a_coupon_before_its_products_is_refused_after_them_accepted():
    cart = Cart(_case())
    with pytest.raises(CartError, match="insufficient"):
        cart.add_coupon(C500)                   # empty cart: too early
    cart.add_product("p1")                      # 250.50
    with pytest.raises(CartError, match="insufficient"):
        cart.add_coupon(C500)                   # still too early
    cart.add_product("p2")                      # 1050.50
    cart.add_coupon(C500)
    assert cart.coupons == {C500: 1} and not cart.stale()


def test_removing_products_leaves_the_coupon_standing_as_the_release_does():
    tools = ShoppingTools(Cart(_case()))
    tools.call("add_product_to_cart", {"product_id": "p2"})
    assert "error" not in json.loads(tools.call("add_coupon_to_cart",
                                                {"coupon_name": C500}))
    out = json.loads(tools.call("delete_product_from_cart", {"product_id": "p2"}))
    assert out["used_coupons"] == [{"coupon_name": C500, "quantity": 1}]
    assert tools.cart.stale() and tools.cart.final_total() == 0
    tools.call("add_product_to_cart", {"product_id": "p1"})
    assert tools.cart.stale()                   # 250.50 < 500
    tools.call("add_product_to_cart", {"product_id": "p1", "quantity": 2})
    assert not tools.cart.stale()               # 751.50 >= 500 again


# ---- the scorer: exactly the broken rule fails -------------------------------------------------

def test_a_stale_coupon_fails_exactly_coupon_threshold_in_paper_mode_only():
    case = _case()
    truth = _truth("p1", coupons={C300: 1})
    stale = {"items": [{"product_id": "p1", "quantity": 1}],
             "used_coupons": [{"coupon_name": C500, "quantity": 1}]}
    v = _paper(stale, case, truth)
    assert v.failed == ["coupon_threshold"] and v.case_acc == 0 and v.match == 1
    assert v.to_json()["coupon_breaks"] == ["coupon_threshold"]
    released = score_cart(stale, truth, set(case.by_id), mode="released", case=case)
    assert released.coupon_breaks == [] and "coupon_threshold" not in released.failed
    fine = {"items": [{"product_id": "p1", "quantity": 2}],
            "used_coupons": [{"coupon_name": C300, "quantity": 1}]}
    ok = _paper(fine, case, truth)
    assert ok.failed == [] and ok.case_acc == 1


def test_the_threshold_is_the_sum_over_coupons_and_quantities():
    case = _case()
    items = {"p2": 1}                           # 800
    assert coupon_breaks(case, items, {C300: 2}) == []
    assert coupon_breaks(case, items, {C300: 3}) == ["coupon_threshold"]
    assert coupon_breaks(case, items, {C300: 1, C500: 1}) == []          # 800 <= 800
    assert coupon_breaks(case, items, {C300: 2, C500: 1}) == ["coupon_threshold"]
    assert coupon_breaks(case, {"p2": 3}, {C300: 1, C500: 1, VIP: 1}) == []   # 1800 <= 2400
    assert coupon_breaks(case, {"p2": 2}, {C300: 1, C500: 1, VIP: 1}) == ["coupon_threshold"]


def test_other_coupon_rules_fail_by_name_not_as_timing():
    case = _case({"is_vip": False, "coupons": {C300: 1}})
    items = {"p2": 5}
    assert coupon_breaks(case, items, {C300: 2}) == [f"coupon:{C300}"]     # owns one
    assert coupon_breaks(case, items, {VIP: 1}) == [f"coupon:{VIP}"]       # not owned, not VIP
    assert coupon_breaks(case, items, {"Cross-store: ¥1 off every ¥2": 1}) == \
        ["coupon:Cross-store: ¥1 off every ¥2"]


def test_the_oracle_carts_pass_in_both_modes():
    for index in (0, 1):
        t = shopping(0, 3, index)
        case = t["case"]
        for mode in ("paper", "released"):
            v = score_cart(t["oracle_cart"], case.truth, set(case.by_id), mode=mode,
                           case=case)
            assert v.case_acc == 1 and v.failed == [], (index, mode, v.failed)


# ---- hostile inputs are verdicts ----------------------------------------------------------------

@pytest.mark.parametrize("user", [
    {"coupons": "all of them"}, {"coupons": None}, {"coupons": {C500: "1"}},
    {"coupons": {C500: True}}, {"coupons": {C500: -1}}, {"coupons": {C500: 1.0}},
    {"is_vip": "true", "coupons": {VIP: 1}}, {"coupons": {C500: 10 ** 4000}}, "not a user"])
def test_hostile_user_coupon_records_are_verdicts(user):
    case = _case({} if not isinstance(user, dict) else user)
    case.user = user
    cart = {"items": [{"product_id": "p2", "quantity": 1}],
            "used_coupons": [{"coupon_name": C500, "quantity": 1},
                             {"coupon_name": VIP, "quantity": 1}]}
    v = _paper(cart, case, _truth("p2"))
    assert v.case_acc == 0 and v.coupon_breaks, v.coupon_breaks


@pytest.mark.parametrize("quantity", [0, -3, 10 ** 4000, -10 ** 4000])
def test_hostile_coupon_quantities_are_verdicts(quantity):
    case = _case()
    cart = {"items": [{"product_id": "p2", "quantity": 1}],
            "used_coupons": [{"coupon_name": C300, "quantity": quantity}]}
    v = _paper(cart, case, _truth("p2"))
    assert v.case_acc == 0 and v.coupon_breaks == [f"coupon:{C300}"]


def test_an_unreadable_price_under_a_coupon_fails_the_threshold_not_the_scorer():
    case = _case()
    cart = {"items": [{"product_id": "p3", "quantity": 1}, {"product_id": "p2"}],
            "used_coupons": [{"coupon_name": C300, "quantity": 1}]}
    assert _paper(cart, case, _truth("p2", "p3")).coupon_breaks == ["coupon_threshold"]
    with pytest.raises(CartError, match="no valid price"):
        Cart(case).add_product("p3")


def test_bad_item_quantities_do_not_count_towards_the_threshold():
    case = _case()
    cart = {"items": [{"product_id": "p2", "quantity": "9"}, {"product_id": "p1",
                                                                 "quantity": True}],
            "used_coupons": [{"coupon_name": C300, "quantity": 1}]}
    v = _paper(cart, case, _truth("p1", "p2"))
    assert "coupon_threshold" in v.failed and v.case_acc == 0


# ---- generated level-3 tasks: timing proved, re-checked, reproduced in the sandbox -------------

@pytest.mark.parametrize("index", [1, 3])
def test_odd_level3_tasks_have_an_optimum_that_depends_on_timing(index):
    t = shopping(0, 3, index)
    case, proof = t["case"], t["proof"]
    problem = case_problem(case, t["spec"])
    assert proof["status"] == "unique" and proof["second_optimum"] == "unsat"
    assert brute_force_cart(problem).optimum == proof["optimum"]
    timing = proof["timing"]
    value = proof["objective"][0]
    assert timing["stale"] is not None and timing["stale"]["final"] < value
    assert timing["stale_proof"] == "min"
    brute = brute_force_timing(problem, proof["optimum"], value)
    assert brute.stale["final"] == timing["stale"]["final"]
    assert brute.coupons_last == timing["coupons_last"]
    # the stale cart really is reachable in the sandbox: coupons applied on the costlier
    # choice, products switched after; it is cheaper, and paper mode fails exactly the rule
    stale = timing["stale"]
    cart = Cart(case)
    for pid in stale["applied_on"]:
        cart.add_product(pid)
    for c, q in stale["coupons"].items():
        cart.add_coupon(c, q)
    for old, new in zip(stale["applied_on"], stale["products"]):
        if old != new:
            cart.delete_product(old)
            cart.add_product(new)
    assert cart.stale() and cart.final_total() == stale["final"] < value
    v = score_cart(cart.to_json(), case.truth, set(case.by_id), case=case)
    assert "coupon_threshold" in v.failed and v.case_acc == 0


def test_timing_proofs_agree_with_enumeration_on_many_tasks():
    for index in range(6):
        t = shopping(0, 3, index)
        problem = case_problem(t["case"], t["spec"])
        opt, value = t["proof"]["optimum"], t["proof"]["objective"][0]
        z, b = prove_timing(problem, opt, value), brute_force_timing(problem, opt, value)
        again = prove_timing(problem, opt, value)     # canonical witness: same every time
        assert z.to_json() == t["proof"]["timing"] | {"cpu_seconds": z.to_json()[
            "cpu_seconds"]} and z.stale == again.stale
        assert z.coupons_last == b.coupons_last
        assert (z.stale or {}).get("final") == (b.stale or {}).get("final")
        assert z.last_proof == ("unsat" if z.coupons_last else "sat")


def test_coupons_last_means_no_coupon_fits_before_the_last_product():
    for index in range(6):
        t = shopping(0, 3, index)
        if not t["proof"]["timing"]["coupons_last"]:
            continue
        for skip in range(len(t["proof"]["optimum"]["products"])):
            cart = Cart(t["case"])
            for k, pid in enumerate(t["proof"]["optimum"]["products"]):
                if k != skip:
                    cart.add_product(pid)
            coupons = t["proof"]["optimum"]["coupons"]
            with pytest.raises(CartError, match="insufficient"):
                for c, q in coupons.items():
                    cart.add_coupon(c, q)
        return
    pytest.fail("no task of seed 0 has coupons that fit only the whole cart")


def test_the_sandbox_and_the_judge_read_vip_status_alike():
    for flag, ok in ((True, True), ("false", False), (1, False), (None, False)):
        case = _case({"is_vip": flag, "coupons": {VIP: 1}})
        cart = Cart(case)
        cart.add_product("p2", 2)
        if ok:
            cart.add_coupon(VIP)
        else:
            with pytest.raises(CartError, match="VIP status"):
                cart.add_coupon(VIP)
        assert (coupon_breaks(case, {"p2": 2}, {VIP: 1}) == []) is ok


@pytest.mark.parametrize("stamp", ["2025-13-45T99:99", "yesterday", "1e999", -1, 10 ** 4000,
                                   "9999-12-31T23:59:59Z", "2025/01/01 10:00", None, [1]])
def test_time_stamps_carry_no_meaning_and_never_crash(stamp):
    # the release has no coupon time (docs: "Coupon timing"): a time written into a cart
    # or a user's coupon record changes no verdict
    case = _case()
    case.user["coupon_valid_until"] = stamp
    truth = _truth("p2", coupons={C300: 1})
    cart = {"items": [{"product_id": "p2", "quantity": 1, "added_at": stamp}],
            "used_coupons": [{"coupon_name": C300, "quantity": 1, "applied_at": stamp,
                              "valid_until": stamp}], "current_time": stamp}
    for mode in ("paper", "released"):
        v = score_cart(cart, truth, set(case.by_id), mode=mode, case=case)
        assert v.case_acc == 1 and v.failed == [], (mode, v.failed)


def test_a_stale_coupon_is_taxonomy_b2():
    from planning_core.validators.deepplanning.report import taxonomy

    case = _case()
    v = _paper({"items": [{"product_id": "p1", "quantity": 1}],
                "used_coupons": [{"coupon_name": C500, "quantity": 1}]}, case, _truth("p1"))
    row = {"domain": "shopping", "score": v.to_json(),
           "messages": [{"role": "assistant", "tool_calls": [
               {"function": {"name": "get_user_info", "arguments": "{}"}}]}]}
    assert "B2" in taxonomy(row)


def test_a_hand_made_stale_trap_is_found_and_its_absence_proved():
    from planning_core.validators.deepplanning.shopping_problem import CartProblem, prove_cart

    p = CartProblem([{"a": 20000, "b": 40000}], {C300: 1}, None, "final")
    proof = prove_cart(p)     # 200 alone, no coupon fits: 200 is the optimum
    assert proof.optimum == {"products": ["a"], "coupons": {}} and proof.objective == [20000]
    z = prove_timing(p, proof.optimum, 20000)
    assert z.stale == {"applied_on": ["b"], "products": ["a"], "coupons": {C300: 1},
                       "final": 17000} and z.coupons_last is None
    assert brute_force_timing(p, proof.optimum, 20000).stale["final"] == 17000
    q = CartProblem([{"a": 20000, "b": 25000}], {C300: 1}, None, "final")
    assert prove_timing(q, {"products": ["a"], "coupons": {}}, 20000).stale_proof == "unsat"
    assert brute_force_timing(q, {"products": ["a"], "coupons": {}}, 20000).stale is None
    r = CartProblem([{"a": 20000}, {"b": 15000}], {C300: 1}, None, "final")
    opt = prove_cart(r).optimum
    assert opt == {"products": ["a", "b"], "coupons": {C300: 1}}
    assert prove_timing(r, opt, 32000).coupons_last is True
    assert brute_force_timing(r, opt, 32000).coupons_last is True
    empty = CartProblem([{}], {C300: 1}, None, "final")     # an item nothing passes
    assert brute_force_timing(empty, {"products": [], "coupons": {}}, 0).stale is None
    assert prove_timing(empty, {"products": [], "coupons": {}}, 0).stale is None


def test_the_exact_products_with_a_stale_extra_coupon_pass_released_fail_paper():
    case = _case()
    cart = Cart(case)
    cart.add_product("p1")
    cart.add_product("p2", 2)                  # 1850.50: room for every coupon
    for c in (C300, C500, VIP):
        cart.add_coupon(c)                      # 1800 <= 1850.50
    cart.delete_product("p2")                   # 1050.50 left: stale, the release allows it
    assert cart.stale() and cart.items == {"p1": 1, "p2": 1}
    truth = _truth("p1", "p2", coupons={C300: 1})
    released = score_cart(cart.to_json(), truth, set(case.by_id), mode="released", case=case)
    assert released.case_acc == 1               # extra coupons are not penalised there
    paper = _paper(cart.to_json(), case, truth)
    assert paper.failed == ["coupon_threshold"] and paper.case_acc == 0 and paper.match == 1
