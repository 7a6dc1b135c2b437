"""The cart state machine and its coupon rules, the 15 tools, and the shopping scores."""
from __future__ import annotations

import json

import pytest

from planning_core.validators.deepplanning.shopping_db import (Cart, CartError, ShoppingCase,
                                                               parse_coupon)
from planning_core.validators.deepplanning.shopping_score import score_cart
from planning_core.validators.deepplanning.shopping_tools import (SHOPPING_TOOLS, _bm25,
                                                                  ShoppingTools,
                                                                  delivery_days)
from tests.deepplanning.fixtures import shopping

C300 = "Cross-store: ¥30 off every ¥300"
C500 = "Cross-store: ¥60 off every ¥500"
VIP = "VIP: ¥200 off every ¥1,000"


def _case(vip=False, coupons=None):
    products = [{"product_id": "p1", "name": "Tee", "price": 250.5, "stock_quantity": 2,
                 "brand": "A", "color": "Black", "size": "M",
                 "rating": {"average_score": 4.7, "total_reviews": 10},
                 "sales_volume": {"monthly": 5, "total": 50},
                 "shipping_info": {"origin": "jiangsu", "provider": "sf_express"},
                 "applicable_coupons": [C300]},
                {"product_id": "p2", "name": "Jeans", "price": 800, "stock_quantity": 9,
                 "brand": "B", "color": "Blue", "size": "L",
                 "rating": {"average_score": 4.2, "total_reviews": 99},
                 "sales_volume": {"monthly": 50, "total": 500},
                 "shipping_info": {"origin": "xinjiang", "provider": "china_post"},
                 "applicable_coupons": [C300, C500]}]
    return ShoppingCase(products, {"user_id": "U1", "is_vip": vip,
                                   "coupons": coupons or {C300: 3, C500: 1, VIP: 1}})


def test_the_released_tool_count_and_names():
    names = [t["function"]["name"] for t in SHOPPING_TOOLS]
    assert len(names) == 15 and len(set(names)) == 15
    assert {"add_coupon_to_cart", "calculate_transport_time", "filter_by_range"} <= set(names)


def test_coupons_parse_to_cents():
    assert parse_coupon(VIP) == (20000, 100000) and parse_coupon("free stuff") is None


def test_products_respect_stock_and_money_is_exact():
    cart = Cart(_case())
    cart.add_product("p1", 2)
    assert cart.base_total() == 50100
    with pytest.raises(CartError, match="Insufficient stock"):
        cart.add_product("p1")
    with pytest.raises(CartError, match="not found"):
        cart.add_product("nope")
    for q in (0, -1, 1.5, True, "2"):
        with pytest.raises(CartError, match="positive integer"):
            cart.add_product("p2", q)
    cart.delete_product("p1", 5)
    assert cart.items == {}
    with pytest.raises(CartError, match="not in the cart"):
        cart.delete_product("p1")


def test_coupon_thresholds_stack_by_sum_ownership_and_vip():
    cart = Cart(_case())
    cart.add_product("p2")                      # 800
    cart.add_coupon(C300, 2)                    # needs 600
    with pytest.raises(CartError, match="insufficient"):
        cart.add_coupon(C300)                   # 900 > 800
    with pytest.raises(CartError, match="insufficient"):
        cart.add_coupon(C500)                   # 600 + 500 > 800
    assert cart.final_total() == 80000 - 6000
    cart.add_product("p1", 2)                   # 1301
    cart.add_coupon(C500)                       # 1100 <= 1301
    with pytest.raises(CartError, match="Insufficient coupon quantity"):
        cart.add_coupon(C500)
    with pytest.raises(CartError, match="VIP status"):
        cart.add_coupon(VIP)
    with pytest.raises(CartError, match="Coupon not found"):
        cart.add_coupon("Cross-store: ¥1 off every ¥2")
    cart.delete_coupon(C300, 9)
    assert cart.coupons == {C500: 1}
    assert cart.to_json()["summary"]["total_price"] == 1241.0


@pytest.mark.parametrize("name,args,error", [
    ("add_product_to_cart", "{bad", "Parameters must be a valid JSON string! Error: "
     "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
    ("add_product_to_cart", "[]", "Missing required argument: product_id"),
    ("add_product_to_cart", {}, "Missing required argument: product_id"),
    ("nope", {}, "tool 'nope' not found"),
    ("filter_by_range", {"condition_key": "price", "operator": ">", "value": "x"}, None),
    ("filter_by_range", {"condition_key": "price", "operator": "~", "value": 1}, None),
    ("get_product_details", {"product_ids": []}, None),
    ("calculate_transport_time", {"product_id": "p1", "destination_address": "Mars"},
     "Could not determine a valid province from destination address: 'Mars'. Please "
     "provide a valid Chinese province name."),
    ("sort_products", {"sort_by": "colour"},
     "Sort key 'colour' cannot be found in product data or is null. Please check again."),
])
def test_tools_answer_as_released_never_raise(name, args, error):
    """Refused calls answer the released tools' texts; calls the released tools accept
    (an unknown operator, a value that is not a number) answer as they do."""
    out = json.loads(ShoppingTools(Cart(_case())).call(name, args))
    if error is None:
        assert "error" not in out
    else:
        assert out == {"error": error}


def test_filters_sort_and_search():
    tools = ShoppingTools(Cart(_case()))
    call = lambda n, a: json.loads(tools.call(n, a))  # noqa: E731
    assert call("filter_by_range", {"condition_key": "rating.average_score",
                                    "operator": ">", "value": 4.5}) == \
        {"filtered_products_ids": ["p1"]}
    assert call("filter_by_range", {"condition_key": "price", "operator": "==",
                                    "value": 250.5})["filtered_products_ids"] == ["p1"]
    assert call("sort_products", {"sort_by": "price", "order": "asc"})[
        "sorted_product_ids"] == ["p1", "p2"]
    assert call("sort_products", {"sort_by": "price"})["sorted_product_ids"] == ["p2", "p1"]
    assert call("filter_by_applicable_coupons", {"coupon_names": [C300, C500]})[
        "filtered_products_ids"] == ["p2"]
    # BM25 keeps scores above 2 only (as released): in a catalogue of two, none reach it
    assert call("search_products", {"query": "jeans"})["product_ids"] == []
    assert call("filter_by_color", {"colors": ["black"], "product_ids": ["p1", "p2"]})[
        "filtered_products_ids"] == ["p1"]


def test_bm25_is_rank_bm25_okapi():
    """Okapi BM25 with rank_bm25's idf floor: a word in more than half the documents gets
    0.25 x the mean idf.  Hand-computed on three documents."""
    import math
    docs = [["red", "shirt"], ["red", "jeans", "slim"], ["blue", "shirt"]]
    scores = _bm25(docs, ["jeans"])
    idf = math.log(3 - 1 + 0.5) - math.log(1 + 0.5)
    avgdl = 7 / 3
    assert scores[0] == scores[2] == 0
    assert scores[1] == idf * (1 * 2.5 / (1 + 1.5 * (1 - 0.75 + 0.75 * 3 / avgdl)))
    idfs = {"red": math.log(1.5) - math.log(2.5), "shirt": math.log(1.5) - math.log(2.5),
            "jeans": idf, "slim": idf, "blue": idf}
    floor = 0.25 * sum(idfs.values()) / 5
    red = _bm25(docs, ["red"])
    assert red[0] == floor * (2.5 / (1 + 1.5 * (1 - 0.75 + 0.75 * 2 / avgdl)))


def test_delivery_days_as_released():
    assert delivery_days("jiangsu", "jiangsu", "default") == 1
    assert delivery_days("jiangsu", "sichuan", "yto express") == 4
    assert delivery_days("xinjiang", "guangdong", "china post") == 8
    assert delivery_days("heilongjiang", "Guangdong Province", "sf express") == 2
    assert delivery_days("jiangsu", "Atlantis", None) is None


def test_paper_scores_extras_against_the_case_released_does_not():
    truth = {"ground_truth_products": [{"product_id": "p1"}, {"product_id": "p2"}],
             "ground_truth_coupons": {C300: 1}}
    cart = {"items": [{"product_id": "p1"}, {"product_id": "p2"}, {"product_id": "p3"}],
            "used_coupons": []}
    paper = score_cart(cart, truth, {"p1", "p2", "p3"})
    assert paper.match == 1 and paper.case_acc == 0 and "extra:p3" in paper.failed
    released = score_cart(cart, truth, {"p1", "p2", "p3"}, mode="released")
    assert float(released.match) == 2 / 3 and released.case_acc == 0
    cart["used_coupons"] = [{"coupon_name": C300, "quantity": 1}]
    released = score_cart(cart, truth, {"p1", "p2", "p3"}, mode="released")
    assert released.match == 1 and released.case_acc == 1


@pytest.mark.parametrize("cart", ["not json", "[]", '{"items": 3}', '{"items": [5]}',
                                  '{"items": [{"product_id": 7}]}',
                                  '{"items": [], "used_coupons": [{"coupon_name": "x", '
                                  '"quantity": "2"}]}'])
def test_an_unreadable_cart_is_a_verdict(cart):
    v = score_cart(cart, {"ground_truth_products": [{"product_id": "p1"}]}, {"p1"})
    assert v.parse_error and v.case_acc == 0 and v.match == 0 and "parse" in v.failed


def test_an_unknown_product_id_is_recorded():
    v = score_cart({"items": [{"product_id": "p1"}, {"product_id": "ghost"}]},
                   {"ground_truth_products": [{"product_id": "p1"}]}, {"p1"})
    assert v.unknown_products == ["ghost"] and v.case_acc == 0 and v.match == 1


def test_the_generated_oracle_cart_scores_one_and_round_trips_the_released_layout(tmp_path):
    t = shopping(0, 3, 0)
    t["case"].write(tmp_path / "case_0")
    case = ShoppingCase.load(tmp_path / "case_0")
    assert case.truth["ground_truth_coupons"]
    for mode in ("paper", "released"):
        assert score_cart(t["oracle_cart"], case.truth, set(case.by_id), mode=mode).case_acc == 1
    assert json.loads((tmp_path / "case_0" / "cart.json").read_text())["items"] == []
