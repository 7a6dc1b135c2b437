"""Hostile input for every reader of model output: mangled itineraries, carts, tool
arguments and turns never raise; they become verdicts or error answers."""
from __future__ import annotations

import copy
import json
import random

import pytest

from planning_core.validators.deepplanning.chat_tools import normalise_turn
from planning_core.validators.deepplanning.shopping_db import Cart
from planning_core.validators.deepplanning.shopping_score import score_cart
from planning_core.validators.deepplanning.shopping_tools import SHOPPING_TOOLS, ShoppingTools
from planning_core.validators.deepplanning.travel_score import score_travel
from planning_core.validators.deepplanning.travel_tools import TRAVEL_TOOLS, TravelTools
from tests.deepplanning.fixtures import shopping, travel

JUNK = [None, True, -1, 0, 10 ** 30, 1.5e308, float("inf"), "", "x" * 300, "12:00-",
        "25:99-26:00", [], [1, "a"], {}, {"name": []}, "from  to ", "-"]


def _mangle(rng: random.Random, node, depth=0):
    """Replace one random node of a JSON tree by junk."""
    if isinstance(node, dict) and node and rng.random() < 0.8:
        k = rng.choice(sorted(node, key=str))
        if depth > 4 or rng.random() < 0.3:
            node[k] = copy.deepcopy(rng.choice(JUNK))
        else:
            _mangle(rng, node[k], depth + 1)
    elif isinstance(node, list) and node and rng.random() < 0.8:
        i = rng.randrange(len(node))
        if depth > 4 or rng.random() < 0.3:
            node[i] = copy.deepcopy(rng.choice(JUNK))
        else:
            _mangle(rng, node[i], depth + 1)


@pytest.mark.parametrize("mode", ("paper", "released"))
def test_mangled_itineraries_are_verdicts(mode):
    t = travel(0, 2)
    rng = random.Random(5)
    for _ in range(70):
        plan = copy.deepcopy(t["plan"])
        for _ in range(rng.randint(1, 4)):
            _mangle(rng, plan)
        v = score_travel(plan, t["entry"]["meta_info"], t["db"], mode=mode)
        json.dumps(v.to_json())
        assert 0 <= v.commonsense <= 1


def test_mangled_meta_is_survived():
    t = travel(0, 2)
    rng = random.Random(9)
    for _ in range(80):
        meta = copy.deepcopy(t["entry"]["meta_info"])
        _mangle(rng, meta)
        v = score_travel(t["plan"], meta, t["db"])
        json.dumps(v.to_json())


def test_mangled_carts_are_verdicts():
    t = shopping(0, 3, 0)
    rng = random.Random(3)
    for _ in range(150):
        cart = copy.deepcopy(t["oracle_cart"])
        _mangle(rng, cart)
        for mode in ("paper", "released"):
            json.dumps(score_cart(cart, t["case"].truth, set(t["case"].by_id),
                                  mode=mode).to_json())


def test_junk_tool_arguments_get_error_answers():
    tt = travel(0, 2)
    st = shopping(0, 3, 0)
    travel_tools = TravelTools(tt["db"])
    shop_tools = ShoppingTools(Cart(st["case"]))
    rng = random.Random(1)
    for tools, schemas in ((travel_tools, TRAVEL_TOOLS), (shop_tools, SHOPPING_TOOLS)):
        for schema in schemas:
            name = schema["function"]["name"]
            props = list(schema["function"]["parameters"]["properties"])
            for _ in range(20):
                args = {p: copy.deepcopy(rng.choice(JUNK)) for p in props}
                out = tools.call(name, rng.choice([args, json.dumps(args), "", "{", "7"]))
                # the released tools' answers: JSON, or their plain-text not-found messages
                assert isinstance(out, str) and out


@pytest.mark.parametrize("turn", [None, 3, "text", {"content": 5},
                                  {"tool_calls": [3]}, {"tool_calls": [{"arguments": {}}]}])
def test_malformed_turns_are_refused_with_value_error(turn):
    with pytest.raises(ValueError):
        normalise_turn(turn)


def test_a_turn_with_object_arguments_is_normalised():
    t = normalise_turn({"tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]})
    assert t["tool_calls"] == [{"id": "call_0", "name": "f", "arguments": '{"a": 1}'}]


@pytest.mark.parametrize("mode", ("paper", "released"))
def test_regressions_found_by_fuzzing(mode):
    t = travel(0, 2)
    meta, db = t["entry"]["meta_info"], t["db"]
    cases = []
    p = copy.deepcopy(t["plan"])
    p["daily_plans"][0]["activities"] = 7                      # activities not a list
    cases.append((p, meta))
    p = copy.deepcopy(t["plan"])
    next(a for a in p["daily_plans"][1]["activities"]
         if a["type"] == "meal")["details"]["cost"] = float("inf")   # infinite price
    cases.append((p, meta))
    p = copy.deepcopy(t["plan"])
    p["budget_summary"]["total_estimated_budget"] = 1.5e308    # overflows x100
    cases.append((p, meta))
    m = copy.deepcopy(meta)
    m["days"] = float("inf")
    m["depart_weekday"] = float("inf")
    cases.append((t["plan"], m))
    m = copy.deepcopy(meta)
    for data in m["hard_constraints"].values():                # names that are lists
        for k in ("hotel_name", "restaurant_name", "outbound_train_no",
                  "outbound_flight_no"):
            if k in data:
                data[k] = ["x"]
        if "attraction_names" in data:
            data["attraction_names"] = [["x"]]
    cases.append((t["plan"], m))
    for plan, meta_ in cases:
        v = score_travel(plan, meta_, db, mode=mode)
        assert v.case_acc in (0, None)
        json.dumps(v.to_json())
    v = score_cart({"items": [], "used_coupons": 3}, {"ground_truth_products": 5}, set())
    assert v.parse_error


HOSTILE_JSON = ['{"a": ' + "9" * 5000 + "}",          # ValueError from json.loads
                "[" * 100_000 + "]" * 100_000]      # RecursionError from json.loads


@pytest.mark.parametrize("text", HOSTILE_JSON, ids=("long-int", "deep"))
def test_hostile_json_is_a_verdict_or_an_error_answer(text):
    """A 5,000-digit integer or 100,000 brackets in an answer, a cart or tool arguments is
    an unparseable answer or an error answer, never an exception out of the scorer."""
    tt = travel(0, 2)
    st = shopping(0, 3, 0)
    v = score_travel(text, tt["entry"]["meta_info"], tt["db"])
    assert v.parse_error
    v = score_cart(text, st["case"].truth, set(st["case"].by_id))
    assert v.to_json()["failed"] or v.to_json().get("error")
    for tools, schemas in ((TravelTools(tt["db"]), TRAVEL_TOOLS),
                           (ShoppingTools(Cart(st["case"])), SHOPPING_TOOLS)):
        out = tools.call(schemas[0]["function"]["name"], text)
        # as released: arguments that are not JSON are no arguments (travel: a refused
        # call), or the decoder's error (shopping)
        assert "error" in json.loads(out)


@pytest.mark.timeout(60, method="thread")
def test_itinerary_text_readers_are_linear():
    """Unclosed ``<JSON>`` tags, runs of ``from`` and unclosed brackets in an answer took
    time quadratic (or worse) in their length: ``"from " * 20_000`` in a current_city was
    20 s of CPU, ``"<JSON>" * 20_000`` 20 s, ``"(" * 20_000`` 3 s."""
    from planning_core.validators.deepplanning.travel_plan import city, extract_json, from_to

    with pytest.raises(ValueError):
        extract_json("<JSON>" * 200_000)
    assert extract_json('<JSON>{"a": 1}</JSON> <JSON>x') == {"a": 1}
    with pytest.raises(ValueError):
        extract_json("```" + "\n" * 200_000)                  # was 2.7 s at 20,000
    assert extract_json('```json\n{"a": 2}\n``` ```x') == {"a": 2}
    assert extract_json("x <JSON>y</JSON> <JSON>[1]</JSON>") == [1]
    assert from_to("from " * 200_000) is None
    assert from_to("from a to b" + " " * 200_000 + "x") is None
    assert from_to("From Beijing (PEK) to Shanghai, by train") == ("Beijing", "Shanghai")
    assert city("(" * 200_000 + "\n(a)b") == "(" * 200_000 + "\nb"
    assert city("Beijing（北京） (x) y (") == "Beijing  y ("
    t = travel(0, 2)
    v = score_travel({"daily_plans": [{"current_city": "from " * 200_000}]},
                     t["entry"]["meta_info"], t["db"])
    json.dumps(v.to_json())
