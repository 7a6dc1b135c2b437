"""Travel scores (paper lines 113-127): Commonsense, Personalized, Composite, Case Accuracy.

* Commonsense Score: eight dimensions, each 1/8 iff every one of its checkpoints holds
  (line 115; :mod:`.travel_checks`).
* Personalized Score: 1 iff every personalized constraint holds (line 119).  The released
  query files carry each constraint with its solved answer in ``meta_info.hard_constraints``
  (the train numbers, the hotel, the restaurant, the attractions, the budget); the check is
  that the plan uses that answer.  A constraint kind we cannot check makes the score
  undecided (``None``) in ``paper`` mode; the released code skips it (counts as met).
* Composite: the mean of the two (line 123).  Case Accuracy: 1 iff both are perfect (127).

Scores are exact fractions (eighths) carried as ``Fraction`` and reported as floats.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from planning_core.validators.deepplanning.travel_checks import (DIMENSIONS, Context,
                                                                 run_checkpoints)
from planning_core.validators.deepplanning.travel_cost import plan_cost
from planning_core.validators.deepplanning.travel_db import TravelDB
from planning_core.validators.deepplanning.travel_plan import (Plan, extract_json, money,
                                                               read_plan)
from planning_core.validators.deepplanning.units import cents, fmt_cents

__all__ = ["TravelVerdict", "score_travel", "check_personalized", "RELEASED_KINDS",
           "checkable_kind"]

# every constraint kind of the released travelplanning_query_{en,zh}.json
RELEASED_KINDS = (
    "attraction_all_free_attractions", "attraction_all_of_type",
    "attraction_must_visit_named", "attraction_top_rated_must_visit",
    "attraction_type_highest_rated", "budget_constraint", "flight_arrival_time_range",
    "flight_cheapest_airline_direct", "flight_cheapest_direct",
    "flight_cheapest_manufacturer_direct", "flight_departure_time_range",
    "flight_earliest_airline_direct", "flight_earliest_departure_direct",
    "flight_seat_class", "flight_seat_status", "flight_shortest_duration_direct",
    "hotel_brand_highest_rated", "hotel_cheapest_brand", "hotel_cheapest_star",
    "hotel_highest_rated", "hotel_newest_decoration", "hotel_price_range",
    "hotel_star_highest_rated", "hotel_star_service_required",
    "restaurant_cheapest_nearby_attraction", "restaurant_closest_to_attraction",
    "restaurant_highest_rated", "restaurant_must_eat_named",
    "restaurant_specific_cuisine_nearby", "restaurant_specific_tag_nearby",
    "train_cheapest_direct", "train_cheapest_train_type", "train_departure_time_range",
    "train_earliest_departure_direct", "train_latest_arrival_direct", "train_seat_class",
    "train_seat_status", "train_shortest_duration_direct",
)


def checkable_kind(kind: str, data: object) -> str | None:
    """``None`` if we can check a constraint of this kind with this data, else why not."""
    if not isinstance(data, dict):
        return "the constraint is not an object"
    if kind == "budget_constraint":
        return None if cents(data.get("max_budget")) is not None else "no max_budget"
    family = kind.split("_", 1)[0]
    need = {"flight": ("outbound_flight_no", "inbound_flight_no"),
            "train": ("outbound_train_no", "inbound_train_no"),
            "hotel": ("hotel_name",), "restaurant": ("restaurant_name",),
            "attraction": ("attraction_names",)}.get(family)
    if need is None:
        return f"unknown constraint family {family!r}"
    if not any(data.get(k) for k in need):
        return f"none of {list(need)} given"
    if family == "attraction":
        names = data.get("attraction_names")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return "attraction_names is not a list of names"
    elif not all(isinstance(data.get(k), (str, int)) and not isinstance(data.get(k), bool)
                 for k in need if data.get(k)):
        return f"{list(need)} must be names or numbers"
    return None


def _numbers(plan: Plan, mode_words: tuple[str, ...], day: int | None) -> set[str]:
    days = plan.days if day is None else plan.days[day:day + 1] if plan.days else ()
    return {str(a.details.get("number", "")).strip() for d in days
            for a in d.of("travel_intercity_public")
            if str(a.details.get("mode", "")).lower() in mode_words or not mode_words}


def _bought_in(plan: Plan, day: int, number: str, seat_class: str, db: TravelDB) -> bool:
    """Paper mode: is leg ``number`` on plan day ``day`` bought at a fare of ``seat_class``
    (its written cost the price of a record of that number in that class)?  The released
    plan format has no class field; the fare paid is the class bought."""
    fares = {cents(r.get("price", "")) for table, key in (("trains", "train_no"),
                                                           ("flights", "flight_no"))
             for r in db.rows(table)
             if r.get(key) == number and r.get("seat_class") == seat_class}
    fares.discard(None)
    return any(str(a.details.get("number", "")).strip() == number and
               money(a.details.get("cost")) in fares
               for a in plan.days[day].of("travel_intercity_public"))


def check_personalized(plan: Plan, kind: str, data: dict, meta: dict,
                       mode: str = "paper", db: TravelDB | None = None
                       ) -> tuple[bool | None, str | None]:
    why = checkable_kind(kind, data)
    if why is not None:
        # the released code fails a known family with missing data, skips unknown kinds
        known = isinstance(data, dict) and kind.split("_", 1)[0] in \
            ("flight", "train", "hotel", "restaurant", "attraction", "budget")
        return (False if mode == "released" and known else None), why
    paper = mode == "paper"
    if kind == "budget_constraint":
        if not plan.days:
            return False, "the plan has no days"
        total, bad = plan_cost(plan, meta, mode)
        if total is None:
            return False, f"unreadable costs: {bad}"
        cap = cents(data.get("max_budget"))
        return (total <= cap), None if total <= cap else \
            f"costs {fmt_cents(total)} over the budget {fmt_cents(cap)}"
    family = kind.split("_", 1)[0]
    if family in ("flight", "train"):
        words = ("flight", "飞机", "airplane", "plane") if family == "flight" else \
            ("train", "火车", "railway", "高铁", "gaotie")
        reasons = []
        for direction, day in (("outbound", 0), ("inbound", -1)):
            number = data.get(f"{direction}_{family}_no")
            if not number:
                continue
            if paper:
                have = _numbers(plan, (), 0 if day == 0 else len(plan.days) - 1)
            else:
                have = _numbers(plan, words, None)
            if str(number) not in have:
                reasons.append(f"{direction} {family} {number} not taken"
                               + (" on its day" if paper else ""))
            elif paper and db is not None and kind.endswith("_seat_class") and \
                    isinstance(data.get("seat_class"), str) and plan.days and \
                    not _bought_in(plan, 0 if day == 0 else len(plan.days) - 1,
                                   str(number), data["seat_class"], db):
                # our generated entries name the class (released ones only in their text)
                reasons.append(f"{direction} {family} {number} not bought in "
                               f"{data['seat_class']!r} (its cost is no fare of that class)")
        return (not reasons), "; ".join(reasons) or None
    if family == "hotel":
        name = data["hotel_name"]
        nights = [str((d.accommodation or {}).get("name", "")).strip()
                  for d in plan.days[:-1]] if paper else \
            [str((d.accommodation or {}).get("name", "")).strip() for d in plan.days]
        if paper:
            ok = bool(nights) and all(n == name for n in nights)
        else:
            ok = name in nights
        return ok, None if ok else f"not every night at {name}" if paper else \
            f"{name} not booked"
    if family == "restaurant":
        name = data["restaurant_name"]
        ok = name in {a.name for a in plan.all("meal")}
        return ok, None if ok else f"no meal at {name}"
    names = data["attraction_names"]
    visited = {a.name for a in plan.all("attraction")}
    missing = [n for n in names if n not in visited]
    return (not missing), f"missing {missing}" if missing else None


def _seat_shortage(plan: Plan, meta: dict, db: TravelDB) -> list[str]:
    from planning_core.validators.deepplanning.travel_cost import positive_int
    from planning_core.validators.deepplanning.travel_problem import seats

    people = positive_int(meta.get("people_number"), 1)
    records: dict[str, list[dict[str, str]]] = {}
    for table, key in (("trains", "train_no"), ("flights", "flight_no")):
        for r in db.rows(table):
            records.setdefault(r.get(key, ""), []).append(r)
    short = []
    for a in plan.all("travel_intercity_public"):
        number = str(a.details.get("number", "")).strip()
        rows = records.get(number)
        if rows and all(seats(r.get("seat_status", "")) < people for r in rows):
            short.append(number)
    return sorted(set(short))


@dataclass
class TravelVerdict:
    task_id: str
    parse_error: str | None
    checkpoints: dict[str, tuple[bool, str | None]]
    personalized: dict[str, tuple[bool | None, str | None]]
    mode: str = "paper"
    dimension_scores: dict[str, int] = field(default_factory=dict)
    # intercity legs whose every database record has fewer seats than travellers: the
    # paper's own B2 example (line 226); a diagnostic for the taxonomy, not a checkpoint
    seat_shortage: list[str] = field(default_factory=list)

    @property
    def commonsense(self) -> Fraction:
        return Fraction(sum(self.dimension_scores.values()), len(DIMENSIONS))

    @property
    def personalized_score(self) -> int | None:
        values = [v for v, _ in self.personalized.values()]
        if any(v is False for v in values):
            return 0
        if self.mode == "paper" and any(v is None for v in values):
            return None
        if self.mode == "released" and not [v for v in values if v is not None]:
            return 0   # the released code scores a case with no checkable constraint 0
        return 1

    @property
    def composite(self) -> Fraction | None:
        ps = self.personalized_score
        return None if ps is None else (self.commonsense + ps) / 2

    @property
    def case_acc(self) -> int | None:
        ps = self.personalized_score
        if ps is None:
            return None if self.commonsense == 1 else 0
        return int(self.commonsense == 1 and ps == 1)

    @property
    def failed(self) -> list[str]:
        return [k for k, (ok, _) in self.checkpoints.items() if not ok] + \
            [k for k, (ok, _) in self.personalized.items() if ok is False]

    def to_json(self) -> dict[str, Any]:
        ps, comp, acc = self.personalized_score, self.composite, self.case_acc
        return {"task": self.task_id, "domain": "travel", "mode": self.mode,
                "parse_error": self.parse_error,
                "commonsense": float(self.commonsense), "personalized": ps,
                "composite": None if comp is None else float(comp), "case_acc": acc,
                "dimensions": self.dimension_scores,
                "checkpoints": {k: {"passed": ok, "reason": r}
                                for k, (ok, r) in self.checkpoints.items()},
                "constraints": {k: {"passed": ok, "reason": r}
                                for k, (ok, r) in self.personalized.items()},
                "failed": self.failed, "seat_shortage": self.seat_shortage}


def score_travel(answer: str | dict, meta: dict, db: TravelDB, *, task_id: str = "",
                 mode: str = "paper") -> TravelVerdict:
    """Score an itinerary (the agent's answer text or decoded JSON) against a task's meta
    (``meta_info``) and database.  Never raises on the answer."""
    parse_error = None
    plan = None
    try:
        obj = extract_json(answer) if isinstance(answer, str) else answer
        plan = read_plan(obj)
    except ValueError as err:
        parse_error = str(err)
    hard = meta.get("hard_constraints") if isinstance(meta.get("hard_constraints"), dict) \
        else {}
    if plan is None:
        cps = {name: (False, f"unparseable itinerary: {parse_error}")
               for names in DIMENSIONS.values() for name in names}
        pers = {k: (False if checkable_kind(k, v) is None else None,
                    f"unparseable itinerary: {parse_error}") for k, v in hard.items()}
    else:
        cps = run_checkpoints(Context(plan, meta, db, mode))
        pers = {k: check_personalized(plan, k, v, meta, mode, db) for k, v in hard.items()}
    v = TravelVerdict(task_id, parse_error, cps, pers, mode)
    if plan is not None:
        v.seat_shortage = _seat_shortage(plan, meta, db)
    v.dimension_scores = {dim: int(all(cps[n][0] for n in names))
                          for dim, names in DIMENSIONS.items()}
    return v
