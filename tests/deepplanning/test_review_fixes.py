"""Review of issue 23, second round: the tool-call budget caps what a turn stores, task ids
are folder names only, tool arguments are checked against the schema, and ``score`` carries
on past a task whose database is missing."""
from __future__ import annotations

import json

import pytest

from planning_core.validators.deepplanning.agent import run_episode
from planning_core.validators.deepplanning.chat_tools import ScriptedToolModel
from planning_core.validators.deepplanning.tasks import Task
from tests.deepplanning.fixtures import shopping, travel


@pytest.fixture(scope="module")
def travel_task(tmp_path_factory):
    t = travel(0, 3)
    folder = tmp_path_factory.mktemp("dp") / "id_3"
    t["db"].write(folder)
    e = t["entry"]
    return Task("travel", e["id"], e["query"], e["meta_info"], folder)


def test_calls_past_the_budget_are_not_executed_and_are_recorded_once(travel_task):
    n = 100_000
    many = ScriptedToolModel(lambda m, t: {"tool_calls": [
        {"id": f"c{i}", "name": "search_location", "arguments": '{"place_name": "x"}'}
        for i in range(n)]})
    ep = run_episode(many, travel_task, max_tool_calls=5)
    assert ep["status"] == "incomplete" and ep["tool_calls"] == 5
    tool_msgs = [m for m in ep["messages"] if m["role"] == "tool"]
    assert len(tool_msgs) == 6
    assert f"{n - 5} call(s) of this turn not executed" in tool_msgs[-1]["content"]
    turn = ep["messages"][2]
    # the turn keeps the executed calls and the first one refused, and counts the rest
    assert len(turn["tool_calls"]) == 6 and turn["tool_calls_not_executed"] == n - 5
    assert tool_msgs[-1]["tool_call_id"] == turn["tool_calls"][-1]["id"]
    assert str(n - 5) in ep["note"]


def test_a_turn_that_fits_the_budget_exactly_is_not_cut(travel_task):
    calls = iter([3, 0])
    agent = ScriptedToolModel(lambda m, t: (lambda k: {"content": "done", "tool_calls": [
        {"id": f"c{i}", "name": "search_location", "arguments": '{"place_name": "x"}'}
        for i in range(k)]})(next(calls)))
    ep = run_episode(agent, travel_task, max_tool_calls=3)
    assert ep["status"] == "answered" and ep["tool_calls"] == 3
    assert not any("tool_calls_not_executed" in m for m in ep["messages"])


# ---- score carries on past a task whose database is missing ------------------------------
def two_travel_tasks(tmp_path):
    """A query file of tasks 3 and 4, a database holding only id_3, plans for both."""
    entries, plans = [], tmp_path / "plans"
    plans.mkdir()
    for i in (3, 4):
        t = travel(0, i)
        entries.append(t["entry"])
        (plans / f"id_{t['entry']['id']}.json").write_text(json.dumps(t["plan"]))
    db = tmp_path / "db"
    travel(0, 3)["db"].write(db / f"id_{entries[0]['id']}")
    q = tmp_path / "q.json"
    q.write_text(json.dumps(entries))
    return q, db, plans, entries


def run_cli(capsys, *argv):
    from planning_core.console import main

    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_score_records_a_missing_database_folder_and_scores_the_others(tmp_path, capsys):
    q, db, plans, entries = two_travel_tasks(tmp_path)
    code, out, err = run_cli(capsys, "deepplanning", "score", "travel", "--queries", q,
                             "--database", db, "--plans", plans, "--json")
    assert code == 2 and "1 task(s) with bad input" in err
    assert f"id_{entries[1]['id']}: error: " in err     # the error line, as every command
    rows = [json.loads(l) for l in out.splitlines()]
    assert [r["task"] for r in rows] == [str(e["id"]) for e in entries]
    assert rows[0]["case_acc"] == 1 and not rows[0].get("bad_input")
    assert rows[1]["case_acc"] == 0 and rows[1]["commonsense"] == 0
    assert f"id_{entries[1]['id']}" in rows[1]["bad_input"]
    # the table counts the bad case in N
    code, out, _ = run_cli(capsys, "deepplanning", "score", "travel", "--queries", q,
                           "--database", db, "--plans", plans)
    assert code == 2 and "bad_input=" in out
    assert "| mean | - | 50.0 [" in out and "N=2 |" in out   # the bad-input case is in N
    assert "travel: bad_input 1" in out


def test_score_records_a_missing_shopping_case_and_scores_the_others(tmp_path, capsys):
    db = tmp_path / "database_level3"
    s = shopping(0, 3, 0)
    s["case"].write(db / "case_1")
    q = tmp_path / "q.json"
    q.write_text(json.dumps([{"id": 1, "query": "x"}, {"id": 2, "query": "y"}]))
    code, out, err = run_cli(capsys, "deepplanning", "score", "shopping", "--queries", q,
                             "--database", db, "--json")
    assert code == 2
    rows = [json.loads(l) for l in out.splitlines()]
    assert len(rows) == 2 and rows[1]["case_acc"] == 0 and "case_2" in rows[1]["bad_input"]
    assert not rows[0].get("bad_input")


# ---- task ids are plain folder names --------------------------------------------------------
@pytest.mark.parametrize("bad", ["../../etc", "a/b", "..\\x", "x\u0000y", "", "é" * 200])
def test_a_task_id_that_is_not_a_folder_name_is_refused_per_task(tmp_path, capsys, bad):
    from planning_core.validators.deepplanning.tasks import find_tasks

    q, db, plans, entries = two_travel_tasks(tmp_path)
    # a database reachable through the hostile id, if it were followed
    travel(0, 4)["db"].write(tmp_path / "etc")
    entries[1]["id"] = bad
    q.write_text(json.dumps(entries))
    tasks = list(find_tasks(tmp_path, "travel", db, q))
    assert not tasks[0].bad and "not a plain folder name" in tasks[1].bad
    with pytest.raises(Exception, match="not a plain folder name"):
        tasks[1].travel_db()
    code, out, err = run_cli(capsys, "deepplanning", "score", "travel", "--queries", q,
                             "--database", db, "--plans", plans, "--json")
    rows = [json.loads(l) for l in out.splitlines()]
    assert code == 2 and rows[0]["case_acc"] == 1
    assert "not a plain folder name" in rows[1]["bad_input"]


def test_run_records_a_hostile_id_as_that_task_s_failed_case(tmp_path, capsys):
    # as in score: a refused id is a scored failed case (bad_input, counted in N), exit 2
    q, db, plans, entries = two_travel_tasks(tmp_path)
    travel(0, 4)["db"].write(tmp_path / "id_x" / "etc")
    entries[1]["id"] = "x/../../etc"
    q.write_text(json.dumps(entries))
    out = tmp_path / "r.jsonl"
    code, _, err = run_cli(capsys, "deepplanning", "run", "--domain", "travel", "--agent",
                           "oracle", "--queries", q, "--database", db, "--out", out)
    assert code == 2 and "not a plain folder name" in err
    rows = {r["task"]: r for r in map(json.loads, out.read_text().splitlines())}
    bad = rows["x/../../etc"]
    assert bad["status"] == "bad_input" and "not a plain folder name" in bad["error"]
    assert bad["score"]["case_acc"] == 0 and "not a plain folder name" in \
        bad["score"]["bad_input"]
    assert rows[str(entries[0]["id"])]["score"]["case_acc"] == 1


# ---- tool arguments are checked against the schema ------------------------------------------
@pytest.fixture(scope="module")
def travel_tools():
    from planning_core.validators.deepplanning.travel_tools import TravelTools

    return TravelTools(travel(0, 3)["db"]), travel(0, 3)["entry"]["meta_info"]


@pytest.mark.parametrize("args,param", [
    ({"origin": 5}, "origin"), ({"destination": ["x"]}, "destination"),
    ({"depDate": None}, "depDate"), ({"seatClassName": True}, "seatClassName")])
def test_travel_tools_refuse_arguments_of_the_wrong_type(travel_tools, args, param):
    tools, meta = travel_tools
    good = {"origin": meta["org"], "destination": meta["dest"][0],
            "depDate": meta["depart_date"]}
    assert "error" not in json.loads(tools.call("query_train_info", good))
    answer = json.loads(tools.call("query_train_info", json.dumps({**good, **args})))
    assert set(answer) == {"error"} and repr(param) in answer["error"]


def test_a_null_argument_is_refused_as_released(travel_tools):
    """The released travel tools validate arguments with jsonschema: null is not a string,
    optional or not."""
    tools, meta = travel_tools
    good = {"origin": meta["org"], "destination": meta["dest"][0],
            "depDate": meta["depart_date"]}
    for key in ("seatClassName", "depDate"):
        answer = json.loads(tools.call("query_train_info", {**good, key: None}))
        assert answer["error"].startswith("None is not of type 'string'")
        assert f"schema['properties']['{key}']" in answer["error"]


def test_travel_tools_name_the_missing_parameter(travel_tools):
    tools, _ = travel_tools
    answer = json.loads(tools.call("query_hotel_info", {"destination": "x",
                                                        "checkinDate": "2025-01-01"}))
    assert answer["error"].startswith("'checkoutDate' is a required property\n")
    answer = json.loads(tools.call("query_hotel_info", {"destination": "x", "hotelStar": 4,
                                                        "checkinDate": "2025-01-01",
                                                        "checkoutDate": "2025-01-02"}))
    assert answer["error"].startswith("4 is not of type 'string'")


@pytest.fixture()
def shop_tools():
    from planning_core.validators.deepplanning.shopping_db import Cart
    from planning_core.validators.deepplanning.shopping_tools import ShoppingTools

    return ShoppingTools(Cart(shopping(0, 3, 0)["case"]))


@pytest.mark.parametrize("name,args,error", [
    ("add_product_to_cart", {"product_id": 7}, "Product not found: product_id '7'"),
    ("add_product_to_cart", {"product_id": "p", "quantity": "2"},
     "quantity must be a positive number"),
    ("add_coupon_to_cart", {"coupon_name": "x", "quantity": 0},
     "quantity must be a positive number"),
    ("sort_products", {"sort_by": "price", "order": "up"},
     "Invalid value for 'order': 'up'. Must be 'asc' or 'desc'."),
    ("sort_products", {"sort_by": "colour"},
     "Sort key 'colour' cannot be found in product data or is null. Please check again."),
    ("filter_by_brand", {"brand_names": ["Nike"], "product_ids": [1, 2]},
     "Some product_ids not found in database: [1, 2]"),
    ("filter_by_range", {"condition_key": "weight", "operator": ">", "value": 10},
     "condition_key cannot be found in product data, please check again."),
    ("search_products", {"limit": 5}, "Missing required argument: query"),
    ("search_products", {"query": ["shirt"]}, "'list' object has no attribute 'lower'"),
])
def test_shopping_tools_refuse_as_released(shop_tools, name, args, error):
    """A refused call answers the released tool's error text and leaves the cart as it
    was (the released tools' own checks; they validate no JSON types)."""
    before = shop_tools.cart.to_json()
    answer = json.loads(shop_tools.call(name, json.dumps(args)))
    assert answer == {"error": error}
    assert shop_tools.cart.to_json() == before


def test_an_integral_float_is_an_integer_as_json_schema_says(shop_tools):
    pid = shop_tools.case.products[0]["product_id"]
    answer = json.loads(shop_tools.call("add_product_to_cart",
                                        '{"product_id": "%s", "quantity": 1.0}' % pid))
    assert "error" not in answer and shop_tools.cart.items == {pid: 1}


@pytest.mark.parametrize("n", [201, 240, 252])
def test_an_id_too_long_for_its_plan_file_name_is_refused_not_a_crash(tmp_path, capsys, n):
    q, db, plans, entries = two_travel_tasks(tmp_path)
    entries[1]["id"] = "a" * n      # id_<id>_converted.json is over 255 bytes from 238 on
    q.write_text(json.dumps(entries))
    code, out, err = run_cli(capsys, "deepplanning", "score", "travel", "--queries", q,
                             "--database", db, "--plans", plans, "--json")
    assert code == 2 and "internal error" not in err, err
    rows = [json.loads(l) for l in out.splitlines()]
    assert "not a plain folder name" in rows[1]["bad_input"]


def test_queries_database_refuses_a_hostile_id_per_query(tmp_path, capsys):
    q, db, plans, entries = two_travel_tasks(tmp_path)
    travel(0, 4)["db"].write(tmp_path / "etc")       # reachable as db/id_x/../../etc
    (db / "id_x").mkdir()
    entries[1]["id"] = "x/../../etc"
    q.write_text(json.dumps(entries + [dict(entries[1], id="b" * 300)]))
    code, out, err = run_cli(capsys, "deepplanning", "queries", q, "--database", db, "--json")
    # the refused ids are ungrounded queries: flagged, exit 1
    assert code == 1 and json.loads(out)["flagged"] and "internal error" not in err, err
    bad = {u["id"]: u for u in json.loads(out)["ungrounded"]}
    assert "not a plain folder name" in bad["x/../../etc"]["reason"]
    assert "not a plain folder name" in bad["b" * 300]["reason"]
