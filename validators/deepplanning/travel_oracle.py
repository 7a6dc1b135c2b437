"""The oracle itinerary: the solver's choice laid out minute by minute.

Given the proved optimum (legs, hotel, restaurant, attraction), :func:`build_plan` writes a
day-by-day plan in the released JSON format that every checkpoint accepts: each move is a
``travel_city`` of exactly the road route's duration, waiting is a ``buffer``, visits last
the recommended minimum, meals an hour at open restaurants, the attractions open that
weekday.  It returns ``None`` when the greedy layout does not fit (the generator then draws
another task), never a plan it has not checked.
"""
from __future__ import annotations

from typing import Any

from planning_core.validators.deepplanning.travel_checks import day_weekday
from planning_core.validators.deepplanning.travel_cost import plan_cost
from planning_core.validators.deepplanning.travel_db import TravelDB
from planning_core.validators.deepplanning.travel_kinds_transport import leg_row
from planning_core.validators.deepplanning.travel_kinds_stay import (meal_anchor, meal_choice,
                                                                     stay_required_attractions)
from planning_core.validators.deepplanning.travel_plan import read_plan
from planning_core.validators.deepplanning.travel_problem import leg_time
from planning_core.validators.deepplanning.units import (ALL_DAY, cents, clock, fmt_cents,
                                                         fmt_clock)

__all__ = ["build_plan", "required_attractions"]

WEEKDAY = {"monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5,
           "saturday": 6, "sunday": 7}


def _num(text: str) -> int | float:
    c = cents(text) or 0
    return c // 100 if c % 100 == 0 else float(fmt_cents(c))


def required_attractions(meta: dict, choice: dict[str, str], db: TravelDB) -> list[str]:
    hard = meta.get("hard_constraints") or {}
    out: list[str] = []
    for kind, data in hard.items():
        if kind == "attraction_must_visit_named":
            out += data["attraction_names"]
        elif kind == "attraction_all_of_type":
            out += sorted(r["attraction_name"] for r in db.rows("attractions")
                          if r["attraction_type"] == data["attraction_type"])
        elif kind == "attraction_type_highest_rated":
            out.append(choice["attraction"])
        elif kind.startswith("restaurant_"):
            out.append(meal_anchor(kind, data, db))
        out += stay_required_attractions(kind, choice)
    return list(dict.fromkeys(out))


class _Day:
    def __init__(self, db: TravelDB, routes: dict, place: str, t: int) -> None:
        self.db, self.routes, self.place, self.t = db, routes, place, t
        self.acts: list[dict[str, Any]] = []

    def key(self, name: str) -> str:
        la, lo = self.db.coords(name)
        return f"{la},{lo}"

    def route(self, to: str) -> dict[str, str]:
        return self.routes[(self.key(self.place), self.key(to))]

    def move(self, to: str) -> None:
        if to == self.place:
            return
        r = self.route(to)
        d = int(r["duration_minutes"])
        self.acts.append({"time_slot": f"{fmt_clock(self.t)}-{fmt_clock(self.t + d)}",
                          "type": "travel_city",
                          "details": {"mode": "walking" if _num(r["cost"]) == 0 else "taxi",
                                      "from": self.place, "to": to,
                                      "distance": f"{r['distance_meters']}m",
                                      "duration": f"{d}min", "cost": _num(r["cost"])}})
        self.t += d
        self.place = to

    def wait(self, until: int, why: str) -> None:
        if until > self.t:
            self.acts.append({"time_slot": f"{fmt_clock(self.t)}-{fmt_clock(until)}",
                              "type": "buffer", "details": {"description": why}})
            self.t = until

    def add(self, kind: str, start: int, end: int, details: dict) -> None:
        self.acts.append({"time_slot": f"{fmt_clock(start)}-{fmt_clock(end)}", "type": kind,
                          "details": details})
        self.t = end


def _hours(row: dict[str, str]) -> tuple[int, int]:
    o, c = row.get("opening_time", ""), row.get("closing_time", "")
    if o.strip().lower() in ALL_DAY and c.strip().lower() in ALL_DAY:
        return 0, 1439
    return clock(o) or 0, clock(c) or 0


def _closed(row: dict[str, str], weekday: int) -> bool:
    return weekday in {WEEKDAY.get(p.strip().lower()) for p in
                       (row.get("closing_dates") or "").split(",")}


def build_plan(meta: dict, db: TravelDB, choice: dict[str, str]) -> dict | None:
    days = int(meta["days"])
    org, dest = meta["org"], meta["dest"][0]
    table = "flights" if any(r.get("flight_no") == choice["outbound"]
                             for r in db.rows("flights")) else "trains"
    key = "flight_no" if table == "flights" else "train_no"
    mode = "flight" if table == "flights" else "train"
    # the row (seat class) each leg is bought on: its best one the constraints allow
    out_leg = leg_row(meta, db, "outbound", choice["outbound"])
    in_leg = leg_row(meta, db, "inbound", choice["inbound"])
    if out_leg is None or in_leg is None:
        return None
    hotels = db.by_name("hotels")
    hotel = hotels[choice["hotel"]]
    attractions = db.by_name("attractions")
    restaurants = db.rows("restaurants")
    routes = db.route_index()
    required = required_attractions(meta, choice, db)
    rest = sorted((n for n in attractions if n not in required),
                  key=lambda n: (-(cents(attractions[n]["rating"]) or 0), n))
    pending = required + rest
    near_for, must_eat = {}, set()   # the constrained meals: after which attraction
    for kind, data in (meta.get("hard_constraints") or {}).items():
        if kind.startswith("restaurant_"):
            near_for[meal_anchor(kind, data, db)] = meal_choice(kind, choice)
            must_eat.add(meal_choice(kind, choice))
    used_attr: set[str] = set()
    used_rest: set[str] = set()

    def leg_act(r: dict[str, str]) -> dict:
        return {"time_slot": f"{fmt_clock(leg_time(r['dep_datetime']))}-"
                             f"{fmt_clock(leg_time(r['arr_datetime']))}",
                "type": "travel_intercity_public",
                "details": {"mode": mode, "number": r[key], "from": r["dep_station_name"],
                            "to": r["arr_station_name"], "cost": _num(r["price"])}}

    def visit(day: _Day, weekday: int, latest_end: int) -> str | None:
        for name in pending:
            if name in used_attr:
                continue
            row = attractions[name]
            if _closed(row, weekday):
                continue
            o, c = _hours(row)
            r = day.route(name) if name != day.place else {"duration_minutes": "0"}
            arrive = day.t + int(r["duration_minutes"])
            start = max(arrive, o)
            need = int(round(float(row["min_visit_hours"]) * 60))
            if start + need > min(c, latest_end):
                continue
            day.move(name)
            day.wait(start, "waiting for opening")
            day.add("attraction", start, start + need,
                    {"name": name, "city": dest, "cost": _num(row["ticket_price"])})
            used_attr.add(name)
            return name
        return None

    def dine(day: _Day, near: str | None, earliest: int, meal: str) -> bool:
        wanted = near_for.get(near) if near else None
        cands = [r for r in restaurants if r["restaurant_name"] == wanted] if \
            wanted and wanted not in used_rest else []
        cands += sorted((r for r in restaurants if r["nearby_attraction_name"] == near),
                        key=lambda r: r["restaurant_name"])
        cands += sorted(restaurants, key=lambda r: r["restaurant_name"])
        for r in cands:
            name = r["restaurant_name"]
            if name in used_rest or (name in must_eat and near_for.get(near) != name):
                continue
            o, c = _hours(r)
            arrive = day.t + int(day.route(name)["duration_minutes"])
            start = max(arrive, o, earliest)
            if start + 60 > c:
                continue
            day.move(name)
            day.wait(start, f"waiting for {meal}")
            day.add("meal", start, start + 60, {"meal_type": meal, "name": name,
                                                "cost": _num(r["price_per_person"])})
            used_rest.add(name)
            return True
        return False

    plan_days = []
    for i in range(days):
        weekday = day_weekday(meta, i)
        first, last = i == 0, i == days - 1
        if first:
            station = out_leg["arr_station_name"]
            day = _Day(db, routes, station, leg_time(out_leg["arr_datetime"]))
            day.acts.append(leg_act(out_leg))
            day.move(choice["hotel"])
            day.add("hotel", day.t, day.t + 30, {"activity": "check-in",
                                                 "name": choice["hotel"]})
        else:
            day = _Day(db, routes, choice["hotel"], 8 * 60 + 30)
        dep = leg_time(in_leg["dep_datetime"]) if last else 24 * 60
        station = in_leg["dep_station_name"]
        a1 = visit(day, weekday, dep - 150 if last else 15 * 60)
        if a1 is None or not dine(day, a1, 11 * 60, "lunch"):
            return None
        lunch_end = day.t
        a2 = visit(day, weekday, dep - 60 if last else 20 * 60)
        if last:
            if a2 is not None and day.t + int(day.route(station)["duration_minutes"]) > dep:
                return None
            day.move(station)
            day.wait(dep, "waiting to board")
            day.acts.append(leg_act(in_leg))
        else:
            if a2 is None or not dine(day, a2, max(lunch_end + 120, 17 * 60), "dinner"):
                return None
            day.move(choice["hotel"])
            end = max(day.t + 30, 21 * 60 + 30)
            if end > 23 * 60 + 59:
                return None
            day.add("hotel", day.t, end, {"activity": "rest", "name": choice["hotel"]})
        entry: dict[str, Any] = {
            "day_number": i + 1,
            "current_city": f"from {org} to {dest}" if first else
            f"from {dest} to {org}" if last else dest,
            "activities": day.acts}
        if not last:
            entry["accommodation"] = {"name": choice["hotel"],
                                      "price_per_night": _num(hotel["price"])}
        plan_days.append(entry)
    if any(n not in used_attr for n in required) or \
            must_eat - used_rest:
        return None
    plan = {"budget_summary": {"currency": "CNY"}, "daily_plans": plan_days}
    total, bad = plan_cost(read_plan(plan), meta)
    if total is None:
        return None
    plan["budget_summary"]["total_estimated_budget"] = \
        total // 100 if total % 100 == 0 else float(fmt_cents(total))
    return plan
