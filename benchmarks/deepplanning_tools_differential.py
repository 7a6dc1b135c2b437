"""Differential: our DeepPlanning tools against the authors' released tools, call by call.

The released tools (QwenLM/Qwen-Agent ``benchmark/deepplanning/*/tools``) are not part of
the project: fetch the repository outside it and give a Python with their dependencies
(pandas, jsonschema, json5, rank-bm25, the checkout on ``PYTHONPATH``)::

    python benchmarks/deepplanning_tools_differential.py \\
        --released /work/ext/Qwen-Agent/benchmark/deepplanning \\
        --python /work/ext/venv/bin/python --qwen-agent /work/ext/Qwen-Agent [--n 3]

For ``--n`` generated databases per domain (``deepplanning generate``'s travel tasks and
shopping cases of levels 1-3, written to disk as the generator writes them) it builds a
list of calls from the database: every tool with arguments that find something, arguments
that find nothing (other dates, names, coordinates), bad arguments (a required one
missing, a wrong JSON type, text that is not JSON, JSON that is not an object, null), an
unknown tool, and for shopping random cart sequences (products added, removed, quantities
0/negative/fractional/text, coupons owned or not, VIP, over-removal, the cart read between
steps).  The released tools answer the calls in a subprocess
(``deepplanning_released_driver.py``), ours in process, each database's calls in order on
one tool set; every answer text is compared byte for byte.  The table goes into
``benchmarks/results/deepplanning_differential.md`` (the section between the
``tools-differential`` markers); any difference is listed with both answers.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "deepplanning_differential.md"
DRIVER = Path(__file__).resolve().parent / "deepplanning_released_driver.py"
BEGIN, END = "<!-- tools-differential -->", "<!-- /tools-differential -->"
#: an answer that finds nothing: the released not-found texts, the flight tool's not-found
#: error, an empty result list
NOT_FOUND = re.compile(r'^(No (train|hotel|attraction|recommended|transportation|'
                       r'information found)|Detailed information not found|Coordinate '
                       r'(information not found|\S+ is not in query range)|'
                       r'\{\n  "message": "Detailed information not found|'
                       r'\{"error": "FlightQueryTool)|'
                       r'^\{\n  "(product_ids|filtered_products_ids|sorted_product_ids|'
                       r'products)": \[\]\n\}$')


def _j(args) -> str:
    return json.dumps(args, ensure_ascii=False)


def _bad(rng: random.Random, name: str, good: dict) -> list[tuple[str, str]]:
    """Bad-argument calls of one tool from a good argument set."""
    out = [(name, ""), (name, "{"), (name, "[1]"), (name, "{}")]
    for k in list(good):
        rest = dict(good)
        del rest[k]
        out.append((name, _j(rest)))
        out.append((name, _j({**good, k: rng.choice((5, None, ["x"], 2.5, True))})))
    out.append((name, _j({**good, "extra": "x"})))
    return out


def travel_calls(rng: random.Random, db) -> list[tuple[str, str]]:
    calls: list[tuple[str, str]] = [("no_such_tool", "{}")]
    for table, tool, seat in (("trains", "query_train_info", "Second Class Seat"),
                              ("flights", "query_flight_info", "Economy Class")):
        rows = db.rows(table)
        if not rows:
            calls.append((tool, _j({"origin": "Beijing", "destination": "Shanghai",
                                    "depDate": "2025-01-01"})))
            continue
        for r in rng.sample(rows, min(3, len(rows))):
            good = {"origin": r["origin_city"], "destination": r["destination_city"],
                    "depDate": r["dep_date"]}
            calls += [(tool, _j(good)), (tool, _j({**good, "seatClassName": seat})),
                      (tool, _j({**good, "seatClassName": "First Class"})),
                      (tool, _j({**good, "depDate": "2031-02-30"})),
                      (tool, _j({**good, "origin": good["destination"],
                                 "destination": good["origin"]}))]
        calls += _bad(rng, tool, good)
    hotels = db.rows("hotels")
    h = rng.choice(hotels)
    good = {"destination": h["city"], "checkinDate": "2025-05-01", "checkoutDate": "2025-05-03"}
    calls += [("query_hotel_info", _j(good)),
              ("query_hotel_info", _j({**good, "hotelStar": h["hotel_star"]})),
              ("query_hotel_info", _j({**good, "hotelBrands": h["brand"]})),
              ("query_hotel_info", _j({**good, "hotelStar": "1"})),
              ("query_hotel_info", _j({**good, "hotelBrands": "Ritz"})),
              ("query_hotel_info", _j({**good, "hotelStar": ""}))]
    calls += _bad(rng, "query_hotel_info", good)
    atts = db.rows("attractions")
    for a in rng.sample(atts, min(4, len(atts))):
        calls.append(("query_attraction_details", _j({"attraction_name": a["attraction_name"]})))
    calls += [("query_attraction_details", _j({"attraction_name": "Atlantis Museum"})),
              ("query_attraction_details", _j({"attraction_name": atts[0]["attraction_name"]
                                               + " "}))]
    calls += _bad(rng, "query_attraction_details", {"attraction_name": atts[0]["attraction_name"]})
    calls += [("recommend_attractions", _j({"city": atts[0]["city"]})),
              ("recommend_attractions", _j({"city": "Nowhere"})),
              ("recommend_attractions", _j({"city": atts[0]["city"],
                                            "attraction_type": atts[0]["attraction_type"]})),
              ("recommend_attractions", _j({"city": atts[0]["city"],
                                            "attraction_type": "Space Station"}))]
    calls += _bad(rng, "recommend_attractions", {"city": atts[0]["city"]})
    pois = db.rows("pois")
    for p in rng.sample(pois, min(4, len(pois))):
        calls.append(("search_location", _j({"place_name": p["poi_name"]})))
    calls.append(("search_location", _j({"place_name": "The Moon"})))
    calls += _bad(rng, "search_location", {"place_name": pois[0]["poi_name"]})
    routes = db.rows("road_routes")
    for r in rng.sample(routes, min(5, len(routes))):
        calls.append(("query_road_route_info", _j({"origin": r["origin"],
                                                   "destination": r["destination"]})))
    r = routes[0]
    calls += [("query_road_route_info", _j({"origin": r["origin"], "destination": r["origin"]})),
              ("query_road_route_info", _j({"origin": r["origin"][:-1],
                                            "destination": r["destination"]})),
              ("query_road_route_info", _j({"origin": r["origin"],
                                            "destination": "0.000000,0.000000"}))]
    calls += _bad(rng, "query_road_route_info", {"origin": r["origin"],
                                                 "destination": r["destination"]})
    rests = db.rows("restaurants")
    for x in rng.sample(rests, min(4, len(rests))):
        calls.append(("recommend_restaurants", _j({"latitude": x["query_latitude"],
                                                   "longitude": x["query_longitude"]})))
        calls.append(("query_restaurant_details", _j({"restaurant_name": x["restaurant_name"]})))
    x = rests[0]
    calls += [("recommend_restaurants", _j({"latitude": x["latitude"],
                                            "longitude": x["longitude"]})),
              ("recommend_restaurants", _j({"latitude": x["query_latitude"][:-2],
                                            "longitude": x["query_longitude"]})),
              ("query_restaurant_details", _j({"restaurant_name": "Nobody's Diner"}))]
    calls += _bad(rng, "recommend_restaurants", {"latitude": x["query_latitude"],
                                                 "longitude": x["query_longitude"]})
    calls += _bad(rng, "query_restaurant_details", {"restaurant_name": x["restaurant_name"]})
    return calls


def shopping_calls(rng: random.Random, case) -> list[tuple[str, str]]:
    from planning_core.validators.deepplanning.shopping_db import VALID_COUPONS
    products = case.products
    ids = [p["product_id"] for p in products]
    calls: list[tuple[str, str]] = [("no_such_tool", "{}")]
    p0 = rng.choice(products)
    for q in (p0["name"], p0["name"].lower(), f"{p0['brand']} {p0['color']}",
              f"{p0['color']} {p0['size']} {p0['name'].split()[-1]}", "zzz qqq", "",
              "jacket for winter hiking", p0["brand"]):
        calls.append(("search_products", _j({"query": q})))
    calls += [("search_products", _j({"query": p0["name"], "limit": 3})),
              ("search_products", _j({"query": p0["name"], "limit": 0}))]
    calls += _bad(rng, "search_products", {"query": p0["name"]})
    some = rng.sample(ids, min(6, len(ids)))
    for tool, arg, vals in (("filter_by_brand", "brand_names", [p0["brand"], "nobody"]),
                            ("filter_by_color", "colors", [p0["color"].upper()]),
                            ("filter_by_size", "sizes", [p0["size"], "XXL"])):
        calls += [(tool, _j({arg: vals})), (tool, _j({arg: vals, "product_ids": some})),
                  (tool, _j({arg: vals, "product_ids": some + ["nope"]})),
                  (tool, _j({arg: []}))]
        calls += _bad(rng, tool, {arg: vals})
    owned = list((case.user.get("coupons") or {}))
    c0 = (p0.get("applicable_coupons") or [VALID_COUPONS[0]])[0]
    calls += [("filter_by_applicable_coupons", _j({"coupon_names": [c0]})),
              ("filter_by_applicable_coupons", _j({"coupon_names": [c0], "product_ids": some})),
              ("filter_by_applicable_coupons", _j({"coupon_names": ["50% off"]})),
              ("filter_by_applicable_coupons", _j({"coupon_names": []}))]
    calls += _bad(rng, "filter_by_applicable_coupons", {"coupon_names": [c0]})
    for key in ("price", "rating.average_score", "sales_volume.monthly", "stock_quantity",
                "rating.total_reviews"):
        for op in (">", ">=", "<", "<=", "=="):
            calls.append(("filter_by_range", _j({"condition_key": key, "operator": op,
                                                 "value": rng.choice((4.5, 300, 100, 0))})))
    calls += [("filter_by_range", _j({"condition_key": "price", "operator": "<",
                                      "value": 500, "product_ids": some})),
              ("filter_by_range", _j({"condition_key": "weight", "operator": "<", "value": 5})),
              ("filter_by_range", _j({"condition_key": "price", "operator": "!=", "value": 5})),
              ("filter_by_range", _j({"condition_key": "price", "operator": "<",
                                      "value": "300"}))]
    calls += _bad(rng, "filter_by_range", {"condition_key": "price", "operator": "<",
                                           "value": 400})
    for key in ("price", "sales_volume.monthly", "rating.average_score", "name", "PRICE",
                "brand", "weight"):
        for order in (None, "asc", "desc", "DESC", "up"):
            a = {"sort_by": key}
            if order:
                a["order"] = order
            calls.append(("sort_products", _j(a)))
    calls.append(("sort_products", _j({"sort_by": "price", "product_ids": some + ["nope"]})))
    calls.append(("sort_products", _j({"sort_by": "price", "product_ids": ["nope"]})))
    calls += _bad(rng, "sort_products", {"sort_by": "price"})
    calls += [("get_product_details", _j({"product_ids": some[:2]})),
              ("get_product_details", _j({"product_ids": ["nope", some[0]]})),
              ("get_product_details", _j({"product_ids": []}))]
    calls += _bad(rng, "get_product_details", {"product_ids": some[:1]})
    prov = case.user.get("shipping_province", "guangdong")
    for dest in (prov, f"{prov} province", prov.title(), "Guangdong Province", "xinjiang",
                 "Atlantis", "inner mongolia", "Hong Kong", ""):
        calls.append(("calculate_transport_time", _j({"product_id": p0["product_id"],
                                                      "destination_address": dest})))
    calls += [("calculate_transport_time", _j({"product_id": "nope",
                                               "destination_address": prov})),
              ("calculate_transport_time", _j({"product_id": p0["product_id"],
                                               "destination_address": prov,
                                               "provider": "EMS"}))]
    calls += _bad(rng, "calculate_transport_time", {"product_id": p0["product_id"],
                                                    "destination_address": prov})
    calls += [("get_user_info", "{}"), ("get_user_info", _j({"user_id":
                                                             case.user.get("user_id", "u")})),
              ("get_user_info", _j({"user_id": "nobody"})), ("get_user_info", ""),
              ("get_user_info", "{")]
    # cart sequences
    truth = [g["product_id"] for g in case.truth.get("ground_truth_products", [])]
    pool = truth + rng.sample(ids, min(4, len(ids))) + ["nope"]
    coupons = owned + [VALID_COUPONS[-1], "Free lunch"]
    for _ in range(3):
        calls.append(("get_cart_info", rng.choice(("{}", "", "{\"x\": 1}"))))
        for _ in range(12):
            kind = rng.random()
            q = rng.choice((None, None, None, 1, 2, 0, -1, 2.5, "2", 50))
            if kind < 0.45:
                a = {"product_id": rng.choice(pool)}
                if q is not None:
                    a["quantity"] = q
                calls.append((rng.choice(("add_product_to_cart", "add_product_to_cart",
                                          "delete_product_from_cart")), _j(a)))
            elif kind < 0.8:
                a = {"coupon_name": rng.choice(coupons)}
                if q is not None:
                    a["quantity"] = q
                calls.append((rng.choice(("add_coupon_to_cart", "add_coupon_to_cart",
                                          "delete_coupon_from_cart")), _j(a)))
            else:
                calls.append(("get_cart_info", "{}"))
        # every truth product, every owned coupon, then half the products removed
        calls += [("add_product_to_cart", _j({"product_id": t})) for t in truth]
        calls += [("add_coupon_to_cart", _j({"coupon_name": c})) for c in owned]
        calls += [("delete_product_from_cart", _j({"product_id": t}))
                  for t in truth[: len(truth) // 2 + 1]]
        calls.append(("get_cart_info", "{}"))
        calls += [("delete_coupon_from_cart", _j({"coupon_name": c, "quantity": 9}))
                  for c in owned[:1]]
        calls += [("delete_coupon_from_cart", _j({"coupon_name": c})) for c in owned]
    for tool, good in (("add_product_to_cart", {"product_id": ids[0]}),
                       ("delete_product_from_cart", {"product_id": ids[0]}),
                       ("add_coupon_to_cart", {"coupon_name": c0}),
                       ("delete_coupon_from_cart", {"coupon_name": c0})):
        calls += _bad(rng, tool, good)
    return calls


def main() -> int:
    from planning_core.validators.deepplanning.shopping_db import ShoppingCase, case_dir
    from planning_core.validators.deepplanning.shopping_gen import generate_level
    from planning_core.validators.deepplanning.shopping_tools import (ShoppingTools,
                                                                      shopping_schemas)
    from planning_core.validators.deepplanning.shopping_db import Cart
    from planning_core.validators.deepplanning.travel_db import TravelDB, task_dir
    from planning_core.validators.deepplanning.travel_gen import generate_many
    from planning_core.validators.deepplanning.travel_tools import TravelTools, travel_schemas

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--released", required=True, type=Path,
                    help="the Qwen-Agent checkout's benchmark/deepplanning folder")
    ap.add_argument("--python", default=sys.executable,
                    help="a Python with the released tools' dependencies")
    ap.add_argument("--qwen-agent", type=Path, default=None,
                    help="the Qwen-Agent checkout (put on PYTHONPATH for the travel tools)")
    ap.add_argument("--n", type=int, default=3, help="generated databases per domain")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args()
    env = dict(os.environ)
    if args.qwen_agent:
        env["PYTHONPATH"] = str(args.qwen_agent)
    rng = random.Random(args.seed)
    per_tool: dict[str, Counter] = {}
    diffs: list[str] = []
    kinds = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        generate_many(args.n, args.seed, tmp / "travel")
        jobs = {"travel": [], "shopping": []}
        for i in range(args.n):
            folder = task_dir(tmp / "travel" / "database_en", str(i))
            db = TravelDB.load(folder)
            jobs["travel"].append((str(folder), travel_calls(rng, db),
                                   lambda f=folder: TravelTools(TravelDB.load(f))))
        # and one database of each domain written by hand in the released layout (empty
        # cells, a two-segment route, the released column names; tests/deepplanning)
        from tests.deepplanning.fixtures import write_released_shopping, write_released_travel
        write_released_travel(tmp / "hand_travel")
        jobs["travel"].append((str(tmp / "hand_travel"),
                               travel_calls(rng, TravelDB.load(tmp / "hand_travel")),
                               lambda f=tmp / "hand_travel": TravelTools(TravelDB.load(f))))
        for level in (1, 2, 3):
            generate_level(args.n, args.seed, level, tmp / "shopping")
            for i in range(args.n):
                folder = case_dir(tmp / "shopping" / f"database_level{level}", str(i))
                case = ShoppingCase.load(folder)
                jobs["shopping"].append((str(folder), shopping_calls(rng, case),
                                         lambda f=folder: ShoppingTools(
                                             Cart(ShoppingCase.load(f)))))
        write_released_shopping(tmp / "hand_shopping")
        jobs["shopping"].append((str(tmp / "hand_shopping"),
                                 shopping_calls(rng, ShoppingCase.load(tmp / "hand_shopping")),
                                 lambda f=tmp / "hand_shopping": ShoppingTools(
                                     Cart(ShoppingCase.load(f)))))
        schemas = {"travel": {s["function"]["name"]: s["function"] for s in travel_schemas()},
                   "shopping": {s["function"]["name"]: s["function"]
                                for s in shopping_schemas()}}
        for domain, dbs in jobs.items():
            ours = []
            for folder, calls, make in dbs:
                tools = make()
                ours.append([tools.call(n, a) for n, a in calls])
            job = {"domain": domain, "schemas": schemas[domain],
                   "databases": [{"folder": f, "calls": c} for f, c, _ in dbs]}
            jp, op = tmp / f"{domain}_job.json", tmp / f"{domain}_out.json"
            jp.write_text(json.dumps(job, ensure_ascii=False), encoding="utf-8")
            subprocess.run([args.python, str(DRIVER), str(args.released), str(jp), str(op)],
                           check=True, env=env, cwd=tmp)
            theirs = json.loads(op.read_text(encoding="utf-8"))
            for (folder, calls, _), mine, their in zip(dbs, ours, theirs):
                for (name, arguments), a, b in zip(calls, mine, their):
                    c = per_tool.setdefault(f"{domain}:{name}", Counter())
                    c["calls"] += 1
                    c["same"] += a == b
                    kind = ("not found" if NOT_FOUND.search(b) else
                            "error" if b.lstrip().startswith('{\n  "error"') or
                            b.startswith('{"error"') else "answer")
                    kinds[(domain, kind)] += 1
                    c[kind] += 1
                    if a != b and len(diffs) < 40:
                        diffs.append(f"- {domain} `{name}` `{arguments[:120]}`:\n"
                                     f"  - released: `{b[:300]!r}`\n  - ours: `{a[:300]!r}`")
    total = sum(c["calls"] for c in per_tool.values())
    same = sum(c["same"] for c in per_tool.values())
    lines = [BEGIN, "## Tool answers: released tools vs ours, call by call", "",
             f"`python benchmarks/deepplanning_tools_differential.py --released RELEASED "
             f"--python PY --qwen-agent QWEN --n {args.n} --seed {args.seed}`: the released "
             "tools (QwenLM/Qwen-Agent `benchmark/deepplanning/*/tools`, run unchanged outside "
             "the project by `benchmarks/deepplanning_released_driver.py`, each call executed "
             "as the released agents execute it) and ours answer the same calls on the same "
             f"databases written by `deepplanning generate` ({args.n} travel tasks; {args.n} "
             f"shopping cases of each level 1-3) and on one database per domain written by "
             "hand in the released layout (released column names, empty cells, a "
             "two-segment train route, a cart file with an item and no coupon list: "
             "`tests/deepplanning/fixtures.py`).  An answer counts as identical when the "
             "two texts are equal byte for byte.  Travel tools were given our schemas (a "
             "refused call's answer quotes the schema the model was given).", "",
             f"Calls compared: {total}; identical: {same}.  Among them error answers (bad "
             "arguments, unknown ids, refused cart steps): travel "
             f"{kinds[('travel', 'error')]}, shopping {kinds[('shopping', 'error')]}; "
             "answers that find nothing (the released not-found texts, empty result lists): "
             f"travel {kinds[('travel', 'not found')]}, shopping "
             f"{kinds[('shopping', 'not found')]}.", "",
             "| domain | tool | calls | identical | errors | not found |",
             "|---|---|---:|---:|---:|---:|"]
    for key in sorted(per_tool):
        d, n = key.split(":")
        c = per_tool[key]
        lines.append(f"| {d} | `{n}` | {c['calls']} | {c['same']} | {c['error']} | "
                     f"{c['not found']} |")
    if diffs:
        lines += ["", "Differences (first 40):", ""] + diffs
    lines.append(END)
    section = "\n".join(lines)
    print(section)
    if not args.no_write:
        text = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if BEGIN in text:
            text = text[:text.index(BEGIN)] + section + text[text.index(END) + len(END):]
        else:
            text = text.rstrip("\n") + "\n\n" + section + "\n"
        OUT.write_text(text, encoding="utf-8")
    return 0 if same == total else 1


if __name__ == "__main__":
    sys.exit(main())
