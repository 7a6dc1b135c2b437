"""Review of issue 23: the recorded optima of generated tasks re-checked by brute force
written from the query's words and the database alone -- not from ``travel_problem`` or
``case_problem``, which the project's own brute force shares with the z3 proof."""
from __future__ import annotations

from decimal import Decimal

import pytest

from planning_core.validators.deepplanning.travel_kinds_stay import STAY_KINDS
from tests.deepplanning.fixtures import travel, travel_with


def _seats(status: str) -> int:
    s = status.strip()
    return int(s) if s.isdigit() else (0 if s.lower() in ("sold out", "none") else 10 ** 9)


def _minute(dt: str) -> int:
    hh, mm = dt.split(" ")[1].split(":")[:2]
    return int(hh) * 60 + int(mm)


def _only_best(rows, key, name):
    """The single row minimising ``key`` (``None`` if two tie), and how many candidates."""
    assert rows, "no candidate"
    best = min(key(r) for r in rows)
    winners = [r[name] for r in rows if key(r) == best]
    return winners[0] if len(winners) == 1 else None


def _transport_filter(kind, data, var, rows):
    """The rows a flight_*/train_* kind of travel_kinds_transport allows, from its words."""
    def within(minute, window):
        lo, hi = ((int(x[:2]) * 60 + int(x[3:])) for x in window)
        return lo <= minute <= hi

    if kind.endswith("_seat_class"):
        return [r for r in rows if r["seat_class"] == data["seat_class"]]
    if kind.endswith("departure_time_range") and var == "outbound":
        return [r for r in rows if within(_minute(r["dep_datetime"]), data["dep_time_range"])]
    if kind.endswith("arrival_time_range") and var == "inbound":
        return [r for r in rows if within(_minute(r["arr_datetime"]), data["arr_time_range"])]
    for suffix, field in (("airline_direct", "airline"),
                          ("manufacturer_direct", "manufacturer"),
                          ("cheapest_train_type", "train_type")):
        if kind.endswith(suffix) and var == "outbound":
            return [r for r in rows if r[field] == data[field]]
    return rows


def brute_travel(meta, db) -> dict:
    hard = meta["hard_constraints"]
    kind = next(k for k in hard if k.startswith(("train_", "flight_")))
    fam = kind.split("_", 1)[0]
    table, no = (fam + "s", fam + "_no")
    people = meta["people_number"]
    out = {}
    for var, a, b, date in (("outbound", meta["org"], meta["dest"][0], meta["depart_date"]),
                            ("inbound", meta["dest"][0], meta["org"], meta["return_date"])):
        rows = [r for r in db.rows(table) if r["origin_city"] == a and
                r["destination_city"] == b and r["dep_date"] == date and
                _seats(r["seat_status"]) >= people]
        rows = _transport_filter(kind, hard[kind], var, rows)
        price = lambda r: Decimal(r["price"])
        if kind.endswith(("earliest_departure_direct", "earliest_airline_direct")) and \
                var == "outbound":
            key = lambda r: (_minute(r["dep_datetime"]), price(r))
        elif kind.endswith("shortest_duration_direct") and \
                var == hard[kind]["direction"]:
            key = lambda r: (int(r["duration"]), price(r))
        elif kind.endswith("latest_arrival_direct") and var == "inbound":
            key = lambda r: (-_minute(r["arr_datetime"]), price(r))
        else:
            key = lambda r: (price(r),)
        out[var] = _only_best(rows, key, no)
    hk = next(k for k in hard if k.startswith("hotel_"))
    hd = hard[hk]
    hotels = db.rows("hotels")
    score = lambda h: Decimal(h["score"])
    if hk == "hotel_price_range":   # "priced between A and B yuan a night (the cheapest
        hotels = [h for h in hotels   # such, then the highest-rated)"
                  if hd["min_price"] <= Decimal(h["price"]) <= hd["max_price"]]
        key = lambda h: (Decimal(h["price"]), -score(h))
    elif hk == "hotel_cheapest_star":   # "the cheapest N-star hotel (then the highest-rated)"
        hotels = [h for h in hotels if int(h["hotel_star"]) == int(hd["hotel_star"])]
        key = lambda h: (Decimal(h["price"]), -score(h))
    elif hk == "hotel_star_highest_rated":   # "the highest-rated N-star (then the cheapest)"
        hotels = [h for h in hotels if int(h["hotel_star"]) == int(hd["hotel_star"])]
        key = lambda h: (-score(h), Decimal(h["price"]))
    elif hk == "hotel_brand_highest_rated":   # "the highest-rated B hotel (then the cheapest)"
        hotels = [h for h in hotels if h["brand"] == hd["brand"]]
        key = lambda h: (-score(h), Decimal(h["price"]))
    elif hk == "hotel_cheapest_brand":
        hotels = [h for h in hotels if h["brand"] == hd["brand"]]
        key = lambda h: (Decimal(h["price"]),)
    elif hk == "hotel_star_service_required":
        hotels = [h for h in hotels if int(h["hotel_star"]) == int(hd["hotel_star"]) and
                  hd["required_service"] in h["services"].split(";")]
        key = lambda h: (Decimal(h["price"]),)
    elif hk == "hotel_highest_rated":
        key = lambda h: (-Decimal(h["score"]), Decimal(h["price"]))
    else:
        key = lambda h: (-int(h["decoration_time"]), Decimal(h["price"]))
    out["hotel"] = _only_best(hotels, key, "name")
    if "restaurant_must_eat_named" in hard:   # "Have one meal at 'R'." (besides another)
        named = [r["restaurant_name"] for r in db.rows("restaurants")
                 if r["restaurant_name"] == hard["restaurant_must_eat_named"]["restaurant_name"]]
        out["must_eat"] = named[0] if len(named) == 1 else None
    rk = next((k for k in hard if k.startswith("restaurant_") and
               k != "restaurant_must_eat_named"), None)
    if rk == "restaurant_closest_to_attraction":   # "closest to 'A' by road distance from
        rd = hard[rk]                                  # the attraction to the restaurant"
        spot = next(r for r in db.rows("attractions")
                    if r["attraction_name"] == rd["attraction_name"])
        metres = {(r["origin"], r["destination"]): int(r["distance_meters"])
                  for r in db.rows("road_routes")}
        rows = [r for r in db.rows("restaurants")
                if r["nearby_attraction_name"] == rd["attraction_name"]]
        out["restaurant"] = _only_best(
            rows, lambda r: (metres[(f"{spot['latitude']},{spot['longitude']}",
                                     f"{r['latitude']},{r['longitude']}")],
                             Decimal(r["price_per_person"])), "restaurant_name")
    elif rk:
        rd = hard[rk]
        rows = [r for r in db.rows("restaurants")
                if r["nearby_attraction_name"] == rd["attraction_name"]]
        if rk == "restaurant_specific_cuisine_nearby":   # "the highest-rated C restaurant"
            rows = [r for r in rows if r["cuisine"] == rd["cuisine"]]
        if rk == "restaurant_specific_tag_nearby":
            rows = [r for r in rows if rd["required_tag"] in r["tags"].split(";")]
        if rk == "restaurant_cheapest_nearby_attraction":
            key = lambda r: (Decimal(r["price_per_person"]), -Decimal(r["rating"]))
        else:
            key = lambda r: (-Decimal(r["rating"]), Decimal(r["price_per_person"]))
        out["restaurant"] = _only_best(rows, key, "restaurant_name")
    if "attraction_type_highest_rated" in hard:
        t = hard["attraction_type_highest_rated"]["attraction_type"]
        rows = [r for r in db.rows("attractions") if r["attraction_type"] == t]
        out["attraction"] = _only_best(
            rows, lambda r: (-Decimal(r["rating"]), Decimal(r["ticket_price"])),
            "attraction_name")
    if "attraction_top_rated_must_visit" in hard:
        # "the 3 highest-rated attractions (rating ties broken by the cheaper ticket, then
        # by name in alphabetical order)": a set, so the 3rd and 4th must not tie
        rows = sorted(db.rows("attractions"), key=lambda r: (-Decimal(r["rating"]),
                                                              Decimal(r["ticket_price"]),
                                                              r["attraction_name"]))
        out["top_rated_attractions"] = frozenset(r["attraction_name"] for r in rows[:3])
    if "attraction_all_free_attractions" in hard:   # "every free attraction (ticket 0)"
        out["free_attractions"] = frozenset(r["attraction_name"] for r in db.rows("attractions")
                                            if Decimal(r["ticket_price"]) == 0)
    return out


def _decoded(optimum: dict) -> dict:
    """The proof's optimum with its set-valued options (JSON lists of names) as sets."""
    import json

    return {k: frozenset(json.loads(v)) if k in ("top_rated_attractions", "free_attractions")
            else v for k, v in optimum.items()}


def _check_recorded_optimum(t):
    meta = t["entry"]["meta_info"]
    want = brute_travel(meta, t["db"])
    assert None not in want.values(), f"a tie: {want}"
    assert want == _decoded(t["proof"]["optimum"])
    hard = meta["hard_constraints"]
    for kind, data in hard.items():   # the answers the query file records
        if kind.startswith(("train_", "flight_")):
            fam = kind.split("_", 1)[0]   # released kinds may record one direction only
            assert f"outbound_{fam}_no" in data or f"inbound_{fam}_no" in data
            for var in ("outbound", "inbound"):
                assert data.get(f"{var}_{fam}_no", want[var]) == want[var]
        elif kind.startswith("hotel_"):
            assert data["hotel_name"] == want["hotel"]
        elif kind == "restaurant_must_eat_named":
            assert data["restaurant_name"] == want["must_eat"]
        elif kind.startswith("restaurant_"):
            assert data["restaurant_name"] == want["restaurant"]
        elif kind == "attraction_type_highest_rated":
            assert data["attraction_names"] == [want["attraction"]]
        elif kind == "attraction_top_rated_must_visit":
            assert set(data["attraction_names"]) == want["top_rated_attractions"]
        elif kind == "attraction_all_free_attractions":
            assert set(data["attraction_names"]) == want["free_attractions"]


@pytest.mark.parametrize("index", range(12))
def test_recorded_travel_optimum_is_the_unique_brute_force_optimum(index):
    _check_recorded_optimum(travel(1, index))


@pytest.mark.parametrize("kind", STAY_KINDS)
def test_recorded_optimum_of_each_stay_kind_is_the_brute_force_optimum(kind):
    # the nine hotel/restaurant/attraction kinds of travel_kinds_stay, each on a small
    # generated task that has it
    _check_recorded_optimum(travel_with(kind))


def _coupon(name: str) -> tuple[int, int]:
    import re

    d, t = re.search(r"¥([\d,]+) off every ¥([\d,]+)", name).groups()
    return int(d.replace(",", "")) * 100, int(t.replace(",", "")) * 100


def brute_shopping(case, spec) -> list[tuple[tuple[str, ...], dict]]:
    """Every optimal (products, coupons) of a case, by enumeration from the spec's words."""
    import itertools

    from planning_core.validators.deepplanning.shopping_tools import delivery_days, feature

    user = case.user
    pools = []
    for f in spec["items"]:
        pool = []
        for p in case.products:
            if p["name"] != f["name"] or p["size"] != f["size"] or p["stock_quantity"] < 1:
                continue
            if any(Decimal(str(feature(p, k))) <= Decimal(str(v)) for k, v in f["above"]):
                continue
            if f.get("days") is not None:
                d = delivery_days(p["shipping_info"]["origin"], user["shipping_province"],
                                  p["shipping_info"]["provider"])
                if d is None or d > f["days"]:
                    continue
            pool.append((p["product_id"], int(Decimal(str(p["price"])) * 100)))
        pools.append(pool)
    coupons = {}
    if spec["level"] == 3:
        coupons = {n: k for n, k in (user.get("coupons") or {}).items()
                   if k > 0 and (user.get("is_vip") or not n.startswith("VIP:"))}
    names = sorted(coupons)
    best, winners = None, []
    for combo in itertools.product(*pools):
        total = sum(price for _, price in combo)
        if spec.get("floor") is not None and total < Decimal(str(spec["floor"])) * 100:
            continue
        for qs in itertools.product(*(range(coupons[n] + 1) for n in names)):
            used = dict(zip(names, qs))
            if sum(_coupon(n)[1] * q for n, q in used.items()) > total:
                continue
            final = max(0, total - sum(_coupon(n)[0] * q for n, q in used.items()))
            value = {1: 0, 2: total, 3: final}[spec["level"]]
            key = (tuple(sorted(pid for pid, _ in combo)),
                   {n: q for n, q in used.items() if q})
            if best is None or value < best:
                best, winners = value, [key]
            elif value == best:
                winners.append(key)
    return winners


@pytest.mark.parametrize("level", (1, 2, 3))
@pytest.mark.parametrize("index", range(4))
def test_recorded_cart_is_the_unique_brute_force_optimum(level, index):
    from tests.deepplanning.fixtures import shopping

    s = shopping(1, level, index)
    winners = brute_shopping(s["case"], s["spec"])
    assert len(winners) == 1, winners
    products, coupons = winners[0]
    assert set(products) == set(s["proof"]["optimum"]["products"])
    assert coupons == s["proof"]["optimum"]["coupons"]
    truth = s["case"].truth
    assert sorted(p["product_id"] for p in truth["ground_truth_products"]) == \
        sorted(products)
    assert (truth.get("ground_truth_coupons") or {}) == coupons
