"""Generated travel tasks with proved unique optima, in the released query/database layout.

Reverse generation as the paper describes it (lines 91-97): a skeleton (origin,
destination, dates, travellers), personalized constraints of the released kinds with their
parameters, environment constraints (sold-out or short trains, closing days), then the
database is checked -- not merely assumed -- to have exactly one optimum:
:func:`~.solver.prove_unique` over :func:`~.travel_problem.travel_problem` must answer
``unique``, and the oracle's itinerary must score 1 on all 21 checkpoints and every
constraint in both scoring modes.  A draw that fails either is replaced by the next draw of
the same seed stream (``attempts`` records how many), so ``(seed, index)`` fixes the task.
"""
from __future__ import annotations

import datetime as dt
import json
import math
import random
from pathlib import Path
from typing import Any

from planning_core.validators.deepplanning.solver import prove_unique
from planning_core.validators.deepplanning.travel_db import TravelDB, task_dir
from planning_core.validators.deepplanning.travel_kinds_transport import (EXTRA_KINDS,
                                                                          RELEASED_COUNT,
                                                                          decorate_legs,
                                                                          draw_transport,
                                                                          record_transport,
                                                                          transport_text)
from planning_core.validators.deepplanning.travel_kinds_stay import (STAY_KINDS, draw_stay,
                                                                     record_stay_answers,
                                                                     stay_query_line)
from planning_core.validators.deepplanning.travel_oracle import build_plan
from planning_core.validators.deepplanning.travel_problem import (ATTRACTION_KINDS,
                                                                  HOTEL_KINDS,
                                                                  RESTAURANT_KINDS,
                                                                  TRANSPORT_KINDS,
                                                                  travel_problem)
from planning_core.validators.deepplanning.travel_score import score_travel

__all__ = ["generate_task", "generate_many", "CITIES"]

CITIES = {  # city centre (lat, lon), approximate
    "Hefei": (31.820591, 117.227219), "Nanjing": (32.060255, 118.796877),
    "Hangzhou": (30.274084, 120.155070), "Shanghai": (31.230416, 121.473701),
    "Suzhou": (31.298886, 120.585316), "Wuhan": (30.592849, 114.305539),
    "Beijing": (39.904200, 116.407396), "Xi'an": (34.341574, 108.939770),
    "Chengdu": (30.572815, 104.066801), "Guangzhou": (23.129110, 113.264385),
}
TYPES = ("Historical and Cultural", "Natural Scenery", "Art Exhibition", "City Landmark",
         "Theme Park", "Leisure Experience")
NOUNS = {"Historical and Cultural": ("Ancient Temple", "Old Town", "City Wall", "Museum"),
         "Natural Scenery": ("Lake Park", "Mountain Trail", "Botanical Garden", "Wetland"),
         "Art Exhibition": ("Art Gallery", "Design Centre", "Photo Museum", "Craft Hall"),
         "City Landmark": ("TV Tower", "Riverside Walk", "Grand Plaza", "Old Bridge"),
         "Theme Park": ("Ocean World", "Fun Park", "Film Studio", "Adventure Land"),
         "Leisure Experience": ("Tea Street", "Night Market", "Hot Spring", "Food Alley")}
ADJ = ("Golden", "Purple", "Jade", "Crescent", "Phoenix", "Willow", "Lotus", "Cloud",
       "Pine", "Dragon", "Silk", "Lantern", "Plum", "Bamboo", "Maple", "River")
BRANDS = ("Ji Hotel", "Atour Hotel", "Marriott", "Hilton", "Home Inn", "Jinjiang Inn",
          "Hanting Hotel", "Orange Hotel")
SERVICES = ("Swimming Pool", "Gym", "Washer and Dryer", "Free Parking", "Airport Shuttle",
            "Breakfast")
TAGS = ("Birthday Package", "Must-Eat Top 10", "Private Rooms", "Child Friendly",
        "Late Night")
CUISINES = ("Huaiyang Cuisine", "Sichuan Cuisine", "Cantonese Cuisine", "Hot Pot",
            "Noodles", "Barbecue", "Vegetarian")
FOODS = ("Kitchen", "Dining Hall", "House", "Bistro", "Teahouse", "Eatery")
DAYNAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _coord(x: float) -> str:
    return f"{x:.6f}"


def _distance_m(a: tuple[float, float], b: tuple[float, float]) -> int:
    dy = (a[0] - b[0]) * 111_000
    dx = (a[1] - b[1]) * 111_000 * math.cos(math.radians(a[0]))
    return int(round(math.hypot(dx, dy)))


def _route(dist: int) -> tuple[int, int]:
    """(minutes, cost in yuan): walking up to 2 km, taxi beyond (paper Table 3)."""
    if dist <= 2000:
        return max(1, -(-dist // 80)), 0
    return -(-dist // 500) + 5, 10 + max(0, -(-(dist - 3000) // 1000)) * 2


def _build_db(rng: random.Random, org: str, dest: str, days: int, depart: dt.date,
              people: int, mode: str) -> TravelDB:
    lat0, lon0 = CITIES[dest]
    ret = depart + dt.timedelta(days=days - 1)
    tables: dict[str, list[dict[str, str]]] = {k: [] for k in
                                               ("attractions", "flights", "trains", "hotels",
                                                "restaurants", "pois", "road_routes")}
    places: list[tuple[str, tuple[float, float], str]] = []

    def spot(spread: float = 0.05) -> tuple[float, float]:
        return (round(lat0 + rng.uniform(-spread, spread), 6),
                round(lon0 + rng.uniform(-spread, spread), 6))

    # intercity legs, direct routes
    table = "flights" if mode == "flight" else "trains"
    numbers: set[str] = set()
    for direction, (a, b, day) in enumerate(((org, dest, depart), (dest, org, ret))):
        a_st = f"{a} International Airport" if mode == "flight" else f"{a} South Station"
        b_st = f"{b} International Airport" if mode == "flight" else f"{b} South Station"
        for k in range(rng.randint(4, 6)):
            dep = rng.randint(6 * 60, 7 * 60 + 30) if direction == 0 else \
                rng.randint(17 * 60 + 30, 20 * 60 + 30)
            dur = rng.randint(50, 140)
            arr = dep + dur
            while True:   # a number names one service: no two legs share it
                number = (f"{rng.choice('GD')}{rng.randint(100, 9999)}" if mode == "train"
                          else f"{rng.choice(('MU', 'CA', 'CZ', 'HU'))}"
                               f"{rng.randint(1000, 9999)}")
                if number not in numbers:
                    numbers.add(number)
                    break
            status = rng.choice(("Available", str(rng.randint(0, 9)), str(rng.randint(0, 20))))
            row = {"origin_city": a, "destination_city": b, "dep_date": day.isoformat(),
                   "dep_station_code": a[:3].upper(), "dep_station_name": a_st,
                   "arr_station_code": b[:3].upper(), "arr_station_name": b_st,
                   "dep_datetime": f"{day.isoformat()} {dep // 60:02d}:{dep % 60:02d}:00",
                   "arr_datetime": f"{day.isoformat()} {arr // 60:02d}:{arr % 60:02d}:00",
                   "duration": str(dur), "seat_status": status,
                   "price": str(rng.randint(8, 60) * 10 + rng.choice((0, 5))),
                   "segment_index": "1", "route_index": str(direction * 10 + k)}
            if mode == "train":
                row.update(train_no=number, train_type="Electric Multiple Unit",
                           seat_class="Second Class Seat")
            else:
                row.update(flight_no=number, airline="China Eastern", seat_class="Economy Class",
                           equip_type="320", equip_size="Medium Aircraft",
                           manufacturer="Airbus")
            tables[table].append(row)
        if direction == 0:
            places.append((b_st, spot(0.08), "station"))
        else:
            if a_st not in [p[0] for p in places]:
                places.append((a_st, spot(0.08), "station"))
    # hotels
    for k in range(rng.randint(5, 7)):
        brand = rng.choice(BRANDS)
        name = f"{brand} {dest} {rng.choice(ADJ)} Road"
        while any(h["name"] == name for h in tables["hotels"]):
            name += " II"
        pos = spot(0.03)
        tables["hotels"].append({
            "city": dest, "name": name, "address": f"{rng.randint(1, 300)} {name}",
            "latitude": _coord(pos[0]), "longitude": _coord(pos[1]),
            "decoration_time": str(rng.randint(2012, 2024)),
            "hotel_star": str(rng.randint(2, 5)), "price": str(rng.randint(18, 90) * 10 + 1),
            "score": f"{rng.randint(38, 49) / 10:.1f}", "brand": brand,
            "services": ";".join(sorted(rng.sample(SERVICES, rng.randint(1, 4))))})
        places.append((name, pos, "hotel"))
    # attractions and the restaurants near each
    used = set()
    closing = DAYNAMES
    for k in range(2 * days + 4):
        atype = TYPES[k % len(TYPES)] if k < 6 else rng.choice(TYPES)
        while True:
            name = f"{dest} {rng.choice(ADJ)} {rng.choice(NOUNS[atype])}"
            if name not in used:
                used.add(name)
                break
        pos = spot()
        allday = rng.random() < 0.15
        lo = rng.choice((1, 1.5, 2, 2.5))
        tables["attractions"].append({
            "city": dest, "attraction_name": name, "attraction_id": f"A{k:03d}",
            "description": f"A {atype.lower()} site in {dest}", "attraction_type": atype,
            "address": f"No. {k + 1} {name.split(' ', 1)[1]} Road, {dest}",
            "latitude": _coord(pos[0]), "longitude": _coord(pos[1]),
            "rating": f"{rng.randint(40, 49) / 10:.1f}",
            "opening_time": "Open 24 Hours" if allday else rng.choice(("08:00", "08:30",
                                                                       "09:00")),
            "closing_time": "Open 24 Hours" if allday else rng.choice(("17:00", "17:30",
                                                                       "21:00", "22:00")),
            "closing_dates": rng.choice(closing) if rng.random() < 0.25 else "",
            "min_visit_hours": f"{lo:g}", "max_visit_hours": f"{lo + rng.choice((1, 1.5, 2)):g}",
            "ticket_price": str(rng.choice((0, 0, 20, 35, 50, 60, 80, 120)))})
        places.append((name, pos, "attraction"))
        for j in range(3):
            rpos = (round(pos[0] + rng.uniform(-0.006, 0.006), 6),
                    round(pos[1] + rng.uniform(-0.006, 0.006), 6))
            rname = f"{rng.choice(ADJ)} {rng.choice(FOODS)} ({name.split(' ', 1)[1]} Branch)"
            while any(r["restaurant_name"] == rname for r in tables["restaurants"]):
                rname = rname.replace(" (", " Plus (", 1)
            lunch_only = rng.random() < 0.1
            tables["restaurants"].append({
                "restaurant_id": f"R{len(tables['restaurants']):04d}", "restaurant_name": rname, "city": dest, "latitude": _coord(rpos[0]),
                "longitude": _coord(rpos[1]),
                "price_per_person": str(rng.randint(4, 40) * 10 - rng.choice((0, 1))),
                "cuisine": rng.choice(CUISINES),
                "opening_time": rng.choice(("10:00", "10:30", "11:00")),
                "closing_time": "14:30" if lunch_only else rng.choice(("21:00", "22:00")),
                "nearby_attraction_name": name,
                "nearby_attraction_coords": f"{_coord(pos[1])},{_coord(pos[0])}",
                "query_latitude": _coord(pos[0]), "query_longitude": _coord(pos[1]),
                "rating": f"{rng.randint(38, 49) / 10:.1f}",
                "tags": ";".join(sorted(rng.sample(TAGS, rng.randint(0, 2))))})
            places.append((rname, rpos, "restaurant"))
    for name, pos, kind in places:
        tables["pois"].append({"poi_name": name, "latitude": _coord(pos[0]),
                               "longitude": _coord(pos[1]), "address": "", "poi_type": kind})
    for a, pa, _ in places:
        for b, pb, _ in places:
            if a != b:
                d = _distance_m(pa, pb)
                minutes, cost = _route(d)
                tables["road_routes"].append({
                    "origin": f"{_coord(pa[0])},{_coord(pa[1])}",
                    "destination": f"{_coord(pb[0])},{_coord(pb[1])}",
                    "distance_meters": str(d), "duration_minutes": str(minutes),
                    "cost": str(cost)})
    return TravelDB(tables)


def _constraints(rng: random.Random, db: TravelDB, mode: str, people: int,
                 meta: dict | None = None, transport: str | None = None) -> dict | None:
    """The constraints of one draw; ``None`` when the transport kind cannot bind here."""
    hard: dict[str, dict[str, Any]] = {}
    kinds = [k for k in TRANSPORT_KINDS if k.startswith(mode)]
    tk = transport if transport in kinds else \
        rng.choices(kinds, [max(3, RELEASED_COUNT[k]) for k in kinds])[0]   # released mix
    if tk in EXTRA_KINDS:   # flight_*/train_* kinds of travel_kinds_transport
        data = draw_transport(rng, db, tk, meta or {})
        if data is None:
            return None
        hard[tk] = data
    else:
        hard[tk] = {"people_number": people} if tk.endswith("seat_status") else {}
    hk = rng.choice(HOTEL_KINDS)
    hotels = db.rows("hotels")
    h = rng.choice(hotels)
    hard[hk] = ({"brand": h["brand"]} if hk == "hotel_cheapest_brand" else
                {"hotel_star": int(h["hotel_star"]),
                 "required_service": rng.choice(h["services"].split(";"))}
                if hk == "hotel_star_service_required" else {})
    if rng.random() < 0.8:
        rk = rng.choice(RESTAURANT_KINDS)
        a = rng.choice(db.rows("attractions"))["attraction_name"]
        data: dict[str, Any] = {"attraction_name": a}
        if rk == "restaurant_specific_tag_nearby":
            tags = [t for r in db.rows("restaurants") if r["nearby_attraction_name"] == a
                    for t in r["tags"].split(";") if t]
            if not tags:
                rk = "restaurant_highest_rated"
            else:
                data["required_tag"] = rng.choice(sorted(tags))
        hard[rk] = data
    if rng.random() < 0.7:
        ak = rng.choice(ATTRACTION_KINDS)
        rows = db.rows("attractions")
        if ak == "attraction_must_visit_named":
            hard[ak] = {"attraction_names": sorted(r["attraction_name"]
                                                   for r in rng.sample(rows, 2))}
        else:
            counts: dict[str, int] = {}
            for r in rows:
                counts[r["attraction_type"]] = counts.get(r["attraction_type"], 0) + 1
            small = sorted(t for t, n in counts.items() if n <= 3)
            if ak == "attraction_all_of_type" and small:
                hard[ak] = {"attraction_type": rng.choice(small)}
            else:
                hard["attraction_type_highest_rated"] = {
                    "attraction_type": rng.choice(sorted(counts))}
    return hard


def _record_answers(hard: dict, choice: dict, db: TravelDB) -> None:
    """Write the solved answer into each constraint, in the released field names."""
    for kind, data in hard.items():
        if kind in EXTRA_KINDS:
            record_transport(kind, data, choice)
        elif kind.startswith(("train_", "flight_")):
            fam = kind.split("_", 1)[0]
            data[f"outbound_{fam}_no"] = choice["outbound"]
            data[f"inbound_{fam}_no"] = choice["inbound"]
        elif kind.startswith("hotel_"):
            data["hotel_name"] = choice["hotel"]
        elif kind.startswith("restaurant_") and kind not in STAY_KINDS:
            data["restaurant_name"] = choice["restaurant"]
        elif kind == "attraction_type_highest_rated":
            data["attraction_names"] = [choice["attraction"]]
        elif kind == "attraction_all_of_type":
            data["attraction_names"] = sorted(
                r["attraction_name"] for r in db.rows("attractions")
                if r["attraction_type"] == data["attraction_type"])
    record_stay_answers(hard, choice, db)   # the kinds of travel_kinds_stay


def _query_text(meta: dict) -> str:
    h = meta["hard_constraints"]
    mode = "flight" if any(k.startswith("flight_") for k in h) else "train"
    lines = [f"I plan to travel from {meta['org']} to {meta['dest'][0]}, departing "
             f"{meta['depart_date']} and returning {meta['return_date']} "
             f"({meta['days']} days), {meta['people_number']} people, "
             f"{meta['room_number']} room(s). Please plan transportation, accommodation, "
             f"dining and sightseeing. We travel by {mode}, direct only."]
    say = {
        "cheapest_direct": "Take the cheapest {m} each way.",
        "seat_status": "Every one of us needs a seat; take the cheapest {m} with enough "
                       "seats each way.",
        "earliest_departure_direct": "Take the earliest {m} out (then the cheapest); "
                                     "the cheapest {m} back.",
        "latest_arrival_direct": "Take the cheapest {m} out and the {m} back that arrives "
                                 "latest (then the cheapest).",
    }
    for kind, d in h.items():
        if kind in EXTRA_KINDS:
            lines.append(transport_text(kind, d))
        elif kind.startswith(("train_", "flight_")):
            lines.append(say[kind.split("_", 1)[1]].format(m=mode))
        elif kind == "hotel_cheapest_brand":
            lines.append(f"Stay every night at the cheapest {d['brand']} hotel.")
        elif kind == "hotel_highest_rated":
            lines.append("Stay every night at the highest-rated hotel (then the cheapest).")
        elif kind == "hotel_star_service_required":
            lines.append(f"Stay every night at the cheapest {d['hotel_star']}-star hotel "
                         f"with {d['required_service']}.")
        elif kind == "hotel_newest_decoration":
            lines.append("Stay every night at the most recently renovated hotel (then the "
                         "cheapest).")
        elif kind == "restaurant_highest_rated":
            lines.append(f"Have one meal at the highest-rated restaurant near "
                         f"'{d['attraction_name']}' (then the cheapest).")
        elif kind == "restaurant_cheapest_nearby_attraction":
            lines.append(f"Have one meal at the cheapest restaurant near "
                         f"'{d['attraction_name']}' (then the highest-rated).")
        elif kind == "restaurant_specific_tag_nearby":
            lines.append(f"Have one meal near '{d['attraction_name']}' at the highest-rated "
                         f"restaurant offering '{d['required_tag']}' (then the cheapest).")
        elif kind == "attraction_must_visit_named":
            lines.append("We must visit " + " and ".join(f"'{n}'" for n in
                                                        d["attraction_names"]) + ".")
        elif kind == "attraction_type_highest_rated":
            lines.append(f"Visit the highest-rated {d['attraction_type']} attraction (then "
                         "the cheapest ticket).")
        elif kind == "attraction_all_of_type":
            lines.append(f"Visit every {d['attraction_type']} attraction.")
        elif kind == "budget_constraint":
            lines.append(f"The whole trip must cost at most {d['max_budget']} yuan.")
    # the kinds of travel_kinds_stay
    lines += [stay_query_line(k, d) for k, d in h.items() if k in STAY_KINDS]
    # a number's economy row may lack seats while its first-class row has them: the leg
    # is then an option at that fare (travel_kinds_transport.leg_options); say so
    lines.append("Where nothing else is said, choose the cheapest option; an intercity leg "
                 "may be booked in any seat class that has a seat for each of us.")
    return "\n".join(lines)


def generate_task(seed: int, index: int, days: int | None = None,
                  max_attempts: int = 200, transport: str | None = None) -> dict[str, Any]:
    """One task: ``{"entry": query-file entry, "db": TravelDB, "proof": ..., "plan": ...}``.
    Deterministic in ``(seed, index, days, transport)``; ``transport`` forces the intercity
    constraint kind (and its mode)."""
    for attempt in range(max_attempts):
        rng = random.Random(f"travel:{seed}:{index}:{attempt}")
        d = days or 2 + index % 6
        org, dest = rng.sample(sorted(CITIES), 2)
        depart = dt.date(2025, 10, 1) + dt.timedelta(days=rng.randint(0, 80))
        people = rng.randint(1, 4)
        mode = rng.choice(("train", "train", "flight"))
        if transport:
            mode = transport.split("_", 1)[0]
        db = _build_db(rng, org, dest, d, depart, people, mode)
        decorate_legs(random.Random(f"travel-legs:{seed}:{index}:{attempt}"), db, mode)
        meta = {"org": org, "dest": [dest], "days": d, "depart_date": depart.isoformat(),
                "return_date": (depart + dt.timedelta(days=d - 1)).isoformat(),
                "people_number": people, "room_number": (people + 1) // 2}
        hard = _constraints(rng, db, mode, people, meta, transport)
        if hard is None:
            continue
        # the kinds of travel_kinds_stay, from a stream of their own
        draw_stay(random.Random(f"travel-stay:{seed}:{index}:{attempt}"), hard, db, d)
        meta.update(hard_constraints=hard, depart_weekday=depart.isoweekday())
        proof = prove_unique(travel_problem(meta, db))
        if proof.status != "unique":
            continue
        plan = build_plan(meta, db, proof.optimum)
        if plan is None:
            continue
        if rng.random() < 0.3:
            total = plan["budget_summary"]["total_estimated_budget"]
            hard["budget_constraint"] = {"max_budget": int(-(-total // 100) * 100 + 100)}
        _record_answers(hard, proof.optimum, db)
        ok = all(score_travel(plan, meta, db, mode=m).case_acc == 1
                 for m in ("paper", "released"))
        if not ok:
            continue
        entry = {"id": str(index), "query": _query_text(meta), "meta_info": meta}
        entry["query_with_constraints"] = entry["query"]
        return {"entry": entry, "db": db, "proof": dict(proof.to_json(), attempts=attempt + 1),
                "plan": plan}
    raise RuntimeError(f"no valid travel task for seed {seed} index {index}")


def generate_many(n: int, seed: int, out: str | Path, lang: str = "en",
                  on_done=None) -> list[dict[str, Any]]:
    """``n`` tasks written as the release lays them out: ``OUT/travelplanning_query_{lang}
    .json`` and ``OUT/database_{lang}/id_{i}/...`` (with our ``proof.json`` and
    ``oracle_plan.json`` beside the tables)."""
    out = Path(out)
    entries, rows = [], []
    for i in range(n):
        task = generate_task(seed, i)
        folder = task_dir(out / f"database_{lang}", str(i))
        task["db"].write(folder)
        (folder / "proof.json").write_text(json.dumps(task["proof"], indent=2),
                                           encoding="utf-8")
        (folder / "oracle_plan.json").write_text(json.dumps(task["plan"], indent=2,
                                                            ensure_ascii=False),
                                                 encoding="utf-8")
        entries.append(task["entry"])
        row = {"id": str(i), "days": task["entry"]["meta_info"]["days"],
               "constraints": sorted(task["entry"]["meta_info"]["hard_constraints"]),
               "proof": task["proof"]}
        rows.append(row)
        if on_done:
            on_done(row)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"travelplanning_query_{lang}.json").write_text(
        json.dumps(entries, indent=1, ensure_ascii=False), encoding="utf-8")
    return rows
