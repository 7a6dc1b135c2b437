"""A travel task's decision as a :class:`~.solver.ChoiceProblem`, from its constraints'
parameters and its database only (never from the answers the query file records).

Variables: the outbound and the inbound leg, the hotel, and -- when a constraint asks --
the restaurant near an attraction and the top attraction of a type (and the variables of
:mod:`.travel_kinds_stay`: a must-eat restaurant, the top-rated or the free attractions).
Implicit constraint (paper line 226): a leg must have seats for every traveller.  A
direction's leg options and their cost vectors, for every flight_*/train_* kind, come from
:func:`~.travel_kinds_transport.leg_options` (a number at its best allowed row).  Every
objective ends in a tie-break ("then the cheapest"), which the generated queries state.
A budget is not a variable here: the generator sets it at or above the optimal itinerary's
cost, so it prunes nothing the optimum needs (the oracle's plan is checked against it).
"""
from __future__ import annotations

from planning_core.validators.deepplanning.solver import ChoiceProblem
from planning_core.validators.deepplanning.travel_db import TravelDB
from planning_core.validators.deepplanning.travel_kinds_transport import (EXTRA_KINDS,
                                                                          leg_options)
from planning_core.validators.deepplanning.travel_kinds_stay import (STAY_KINDS,
                                                                     stay_variables)
from planning_core.validators.deepplanning.units import cents, clock, leg_time, seats

__all__ = ["travel_problem", "TRANSPORT_KINDS", "HOTEL_KINDS", "RESTAURANT_KINDS",
           "ATTRACTION_KINDS", "seats", "leg_time"]

TRANSPORT_KINDS = ("train_cheapest_direct", "train_seat_status",
                   "train_earliest_departure_direct", "train_latest_arrival_direct",
                   "flight_cheapest_direct", "flight_seat_status",
                   "flight_earliest_departure_direct") + EXTRA_KINDS
HOTEL_KINDS = ("hotel_cheapest_brand", "hotel_highest_rated", "hotel_star_service_required",
               "hotel_newest_decoration")
RESTAURANT_KINDS = ("restaurant_highest_rated", "restaurant_cheapest_nearby_attraction",
                    "restaurant_specific_tag_nearby")
ATTRACTION_KINDS = ("attraction_must_visit_named", "attraction_type_highest_rated",
                    "attraction_all_of_type")


def _r(value: str) -> int:
    c = cents(value)
    return 0 if c is None else c


def travel_problem(meta: dict, db: TravelDB) -> ChoiceProblem:
    hard = meta.get("hard_constraints") or {}
    people = int(meta.get("people_number") or 1)
    org, dest = meta["org"], meta["dest"][0]
    options: dict[str, list[str]] = {}
    costs: dict[str, dict[str, tuple[int, ...]]] = {}

    for var, (a, b, date) in (("outbound", (org, dest, meta["depart_date"])),
                              ("inbound", (dest, org, meta["return_date"]))):
        # one number may have several rows (seat classes): its best allowed row counts
        _, legs = leg_options(hard, db, var, a, b, date, people)
        options[var] = sorted(legs)
        costs[var] = {n: vec for n, (vec, _) in legs.items()}

    hk = next((k for k in hard if k.startswith("hotel_")), None)
    hd = hard.get(hk, {}) if hk else {}
    hotels = sorted(db.rows("hotels"), key=lambda r: r["name"])
    if hk == "hotel_cheapest_brand":
        hotels = [h for h in hotels if h["brand"] == hd.get("brand")]
    elif hk == "hotel_star_service_required":
        hotels = [h for h in hotels if h["hotel_star"] == str(hd.get("hotel_star")) and
                  hd.get("required_service") in h["services"].split(";")]
    options["hotel"] = [h["name"] for h in hotels]
    costs["hotel"] = {}
    for h in hotels:
        price = _r(h["price"])
        costs["hotel"][h["name"]] = (
            (-_r(h["score"]), price) if hk == "hotel_highest_rated" else
            (-int(h["decoration_time"]), price) if hk == "hotel_newest_decoration" else
            (price,))

    rk = next((k for k in hard if k.startswith("restaurant_") and k not in STAY_KINDS), None)
    if rk:
        rd = hard[rk]
        rows = sorted((r for r in db.rows("restaurants")
                       if r["nearby_attraction_name"] == rd["attraction_name"]),
                      key=lambda r: r["restaurant_name"])
        if rk == "restaurant_specific_tag_nearby":
            rows = [r for r in rows if rd.get("required_tag") in r["tags"].split(";")]
        options["restaurant"] = [r["restaurant_name"] for r in rows]
        costs["restaurant"] = {
            r["restaurant_name"]: ((_r(r["price_per_person"]), -_r(r["rating"]))
                                   if rk == "restaurant_cheapest_nearby_attraction" else
                                   (-_r(r["rating"]), _r(r["price_per_person"])))
            for r in rows}

    ak = next((k for k in hard if k.startswith("attraction_")), None)
    if ak == "attraction_type_highest_rated":
        rows = sorted((r for r in db.rows("attractions")
                       if r["attraction_type"] == hard[ak]["attraction_type"]),
                      key=lambda r: r["attraction_name"])
        options["attraction"] = [r["attraction_name"] for r in rows]
        costs["attraction"] = {r["attraction_name"]: (-_r(r["rating"]), _r(r["ticket_price"]))
                               for r in rows}
    # the hotel/restaurant/attraction kinds of travel_kinds_stay (theirs replace "hotel")
    stay_options, stay_costs = stay_variables(hard, db)
    options.update(stay_options)
    costs.update(stay_costs)
    return ChoiceProblem(options, costs)
