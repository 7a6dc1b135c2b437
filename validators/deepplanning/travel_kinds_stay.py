"""Nine more hotel, restaurant and attraction constraint kinds for generated travel tasks.

The released ``travelplanning_query_en.json`` holds 38 constraint kinds; this module adds
to the generator the nine stay kinds it did not draw, with the released field names and
semantics (each released entry's parameters, answer fields and ``constraint_context``
wording), in order of how often they occur there:

==================================  ====  ==========================================
kind                                 en    parameters -> answers
==================================  ====  ==========================================
restaurant_must_eat_named            24    restaurant_name -> restaurant_rating
attraction_top_rated_must_visit      22    (three) -> attraction_names, attraction_ratings
restaurant_specific_cuisine_nearby   14    attraction_name, cuisine -> restaurant_name, ...
restaurant_closest_to_attraction     13    attraction_name -> restaurant_name, price
hotel_price_range                    12    min_price, max_price -> hotel_name, hotel_price
hotel_cheapest_star                   8    hotel_star -> hotel_name, hotel_price
hotel_star_highest_rated              8    hotel_star -> hotel_name, hotel_price, hotel_score
hotel_brand_highest_rated             7    brand -> hotel_name, hotel_price, hotel_score
attraction_all_free_attractions       2    () -> attraction_names, attraction_ratings
==================================  ====  ==========================================

The released entries name the cuisine and the brand only in their ``constraint_context``
text; ours also carry them as parameters (``cuisine``, ``brand``: the database's field
names) so that the choice problem is built from parameters alone.  Every superlative ends
in a tie-break the query states.  A must-eat restaurant is a variable of its own
(``must_eat``), so it can come beside another restaurant kind (``restaurant``).  A set of
attractions (the top three, all the free ones) is
one variable whose options are the candidate sets, each costed by its members' sorted
keys, so the lexicographic optimum is the top set and the proof covers the set, not an
order of it.

Stages, each a function here: :func:`draw_stay` (the constraint draw, from its own seeded
stream so the other draws are unchanged), :func:`stay_variables` (the choice problem's
variables), :func:`record_stay_answers` (the answers, after the proof),
:func:`stay_query_line` (the query text), :func:`meal_anchor` and
:func:`stay_required_attractions` (what the oracle must fit in).
"""
from __future__ import annotations

import itertools
import json
import random
from typing import Any

from planning_core.validators.deepplanning.travel_db import TravelDB
from planning_core.validators.deepplanning.units import cents

__all__ = ["STAY_HOTEL_KINDS", "STAY_RESTAURANT_KINDS", "STAY_ATTRACTION_KINDS",
           "STAY_KINDS", "MUST_EAT", "TOP_K", "draw_stay", "stay_variables",
           "record_stay_answers", "stay_query_line", "meal_anchor", "meal_choice",
           "stay_required_attractions"]

STAY_HOTEL_KINDS = ("hotel_price_range", "hotel_cheapest_star", "hotel_star_highest_rated",
                    "hotel_brand_highest_rated")
STAY_RESTAURANT_KINDS = ("restaurant_must_eat_named", "restaurant_specific_cuisine_nearby",
                         "restaurant_closest_to_attraction")
STAY_ATTRACTION_KINDS = ("attraction_top_rated_must_visit", "attraction_all_free_attractions")
STAY_KINDS = STAY_HOTEL_KINDS + STAY_RESTAURANT_KINDS + STAY_ATTRACTION_KINDS
# a must-eat restaurant is its own variable ("must_eat"), so it can come with another
# restaurant kind (the "restaurant" variable), as in 17 of the 24 released entries
MUST_EAT = "restaurant_must_eat_named"
_MUST_EAT_BESIDE = 0.7
TOP_K = 3   # every released attraction_top_rated_must_visit names three

# how often a drawn family's kind is replaced by one of ours: about the share our kinds
# would have if every kind of the family were drawn equally often
_SHARE = {"hotel_": 0.5, "restaurant_": 0.5, "attraction_": 0.4}


def _c(value: object) -> int:
    c = cents(value)
    return 0 if c is None else c


def _yuan(value: object) -> float:
    """A number as the released answer fields write it (``358.0``, ``4.6``)."""
    return _c(value) / 100


# ---- the constraint draw ------------------------------------------------------------------

def _draw_hotel(rng: random.Random, kind: str, db: TravelDB) -> dict | None:
    hotels = sorted(db.rows("hotels"), key=lambda h: h["name"])
    if not hotels:
        return None
    low = min(_c(h["price"]) for h in hotels)
    cheap_stars = {h["hotel_star"] for h in hotels if _c(h["price"]) == low}
    if kind == "hotel_price_range":
        # a range around a hotel dearer than the cheapest, above the cheapest price: the
        # default "cheapest" hotel is outside it
        dear = [h for h in hotels if _c(h["price"]) > low]
        if not dear:
            return None
        k = _c(rng.choice(dear)["price"]) // 1000          # tens of yuan
        lo = 10 * (k - rng.randint(0, 2))
        if lo * 100 <= low:
            lo = 10 * k
        hi = 10 * (k + 1 + rng.randint(0, 2))
        # "priced between lo and hi" could be read inclusive or exclusive: no hotel may sit
        # on a bound (the drawn prices end in 1 and the bounds in 0, but only by coincidence)
        if any(_c(h["price"]) in (lo * 100, hi * 100) for h in hotels):
            return None
        return {"min_price": lo, "max_price": hi}
    if kind in ("hotel_cheapest_star", "hotel_star_highest_rated"):
        # a star the cheapest hotel does not have; preferably one whose cheapest hotel is
        # not its best-rated (so "cheapest" and "highest-rated" pick different hotels),
        # else one with a choice in it
        stars = sorted({h["hotel_star"] for h in hotels} - cheap_stars, key=int)

        def split(star: str) -> bool:
            mine = [h for h in hotels if h["hotel_star"] == star]
            return min(mine, key=lambda h: (_c(h["price"]), -_c(h["score"]))) is not \
                min(mine, key=lambda h: (-_c(h["score"]), _c(h["price"])))
        stars = [s for s in stars if split(s)] or \
            [s for s in stars if sum(h["hotel_star"] == s for h in hotels) > 1] or stars
        return {"hotel_star": int(rng.choice(stars))} if stars else None
    # hotel_brand_highest_rated: a brand of two or more hotels whose best-rated is not its
    # cheapest (else hotel_cheapest_brand would say the same)
    brands = []
    for brand in sorted({h["brand"] for h in hotels}):
        mine = [h for h in hotels if h["brand"] == brand]
        top = min(mine, key=lambda h: (-_c(h["score"]), _c(h["price"])))
        if len(mine) > 1 and _c(top["price"]) > min(_c(h["price"]) for h in mine):
            brands.append(brand)
    return {"brand": rng.choice(brands)} if brands else None


def _draw_restaurant(rng: random.Random, kind: str, db: TravelDB) -> dict | None:
    rows = sorted(db.rows("restaurants"), key=lambda r: r["restaurant_name"])
    if not rows:
        return None
    if kind == "restaurant_must_eat_named":
        return {"restaurant_name": rng.choice(rows)["restaurant_name"]}
    near = sorted({r["nearby_attraction_name"] for r in rows})
    if kind == "restaurant_closest_to_attraction":
        # the road matrix differs by direction (a few metres) and "closest to 'A'" says
        # neither from nor to A: only an attraction where both give the same nearest
        near = [a for a in near if _closest_agrees(db, a, rows)]
        if not near:
            return None
    a = rng.choice(near)
    if kind == "restaurant_closest_to_attraction":
        return {"attraction_name": a}
    cuisines = sorted({r["cuisine"] for r in rows if r["nearby_attraction_name"] == a})
    return {"attraction_name": a, "cuisine": rng.choice(cuisines)}


def _closest_agrees(db: TravelDB, a: str, rows: list[dict[str, str]]) -> bool:
    """Do the routes from ``a`` and towards it give the same unique nearest restaurant
    (then the cheapest) among those recommended near it?"""
    best = []
    for there in (True, False):
        keys = {}
        for r in rows:
            if r["nearby_attraction_name"] != a:
                continue
            name = r["restaurant_name"]
            m = _route_metres(db, a, name) if there else _route_metres(db, name, a)
            if m is not None:
                keys[name] = (m, _c(r["price_per_person"]))
        low = min(keys.values(), default=None)
        best.append({n for n, k in keys.items() if k == low})
    return len(best[0]) == 1 and best[0] == best[1]


def _draw_attraction(rng: random.Random, kind: str, db: TravelDB, days: int) -> dict | None:
    rows = db.rows("attractions")
    if kind == "attraction_top_rated_must_visit":
        return {} if len(rows) > TOP_K else None
    free = [r for r in rows if _c(r["ticket_price"]) == 0]
    # two or more, and no more than the oracle can fit in (about two visits a day)
    return {} if 2 <= len(free) <= days + 1 else None


def draw_stay(rng: random.Random, hard: dict, db: TravelDB, days: int) -> None:
    """Replace, in place, some of ``hard``'s hotel/restaurant/attraction kinds by ours.

    ``rng`` is a stream of its own: the other draws of the task stay as they were.  A kind
    whose parameters cannot bind on this database (no brand with a choice, too many free
    attractions for the days) leaves the drawn kind in place."""
    draws = ((STAY_HOTEL_KINDS, lambda k: _draw_hotel(rng, k, db)),
             (STAY_RESTAURANT_KINDS, lambda k: _draw_restaurant(rng, k, db)),
             (STAY_ATTRACTION_KINDS, lambda k: _draw_attraction(rng, k, db, days)))
    for kinds, draw in draws:
        family = kinds[0].split("_", 1)[0] + "_"
        share, kind = rng.random(), rng.choice(kinds)
        old = [k for k in hard if k.startswith(family)]
        if not old or share >= _SHARE[family]:
            continue
        beside = rng.random() < _MUST_EAT_BESIDE
        data = draw(kind)
        if data is None:
            continue
        if kind == MUST_EAT and beside:
            # keep the drawn kind; the must-eat restaurant follows another attraction
            taken = {hard[k].get("attraction_name") for k in old}
            rows = sorted((r for r in db.rows("restaurants")
                           if r["nearby_attraction_name"] not in taken),
                          key=lambda r: r["restaurant_name"])
            if rows:
                hard[kind] = {"restaurant_name": rng.choice(rows)["restaurant_name"]}
            continue
        for k in old:
            del hard[k]
        hard[kind] = data


# ---- the choice problem -------------------------------------------------------------------

def _route_metres(db: TravelDB, a: str, b: str) -> int | None:
    pa, pb = db.coords(a), db.coords(b)
    if pa is None or pb is None:
        return None
    r = db.route(",".join(pa), ",".join(pb))
    d = (r or {}).get("distance_meters", "")
    return int(d) if d.strip().isdigit() else None


def _set_option(rows: list[dict[str, str]], key, size: int,
                costs: dict[str, tuple[int, ...]]) -> None:
    """Every ``size``-set of ``rows`` as one option, costed by its members' places in the
    order ``key`` states (a strict order: its last component is unique), best first.

    Comparing two sets' place lists lexicographically is comparing their members' key
    tuples lexicographically; small places keep z3's objectives small (the concatenated
    key tuples, 3 x 3 objectives, took z3 up to 2.3 s on a 7-day task, a mixed-radix
    integer of them 11 s)."""
    place = {r["attraction_name"]: i for i, r in enumerate(sorted(rows, key=key))}
    for combo in itertools.combinations(rows, size):
        members = sorted(r["attraction_name"] for r in combo)
        members.sort(key=place.__getitem__)
        costs[json.dumps(members, ensure_ascii=False)] = tuple(place[n] for n in members)


def stay_variables(hard: dict, db: TravelDB
                   ) -> tuple[dict[str, list[str]], dict[str, dict[str, tuple[int, ...]]]]:
    """Our kinds' variables (options, lexicographic costs), from parameters and database
    only (never the answer fields).  ``hotel`` and ``restaurant`` replace the shared
    variables of those names; ``must_eat``, ``top_rated_attractions`` and
    ``free_attractions`` are ours.  A parameter that matches nothing leaves a variable
    without options: the proof answers ``infeasible``."""
    options: dict[str, list[str]] = {}
    costs: dict[str, dict[str, tuple[int, ...]]] = {}
    hk = next((k for k in hard if k in STAY_HOTEL_KINDS), None)
    if hk:
        d = hard[hk]
        hotels = sorted(db.rows("hotels"), key=lambda h: h["name"])
        if hk == "hotel_price_range":
            lo, hi = _c(d.get("min_price")), _c(d.get("max_price"))
            hotels = [h for h in hotels if lo <= _c(h["price"]) <= hi]
        elif hk == "hotel_brand_highest_rated":
            hotels = [h for h in hotels if h["brand"] == d.get("brand")]
        else:
            hotels = [h for h in hotels if h["hotel_star"] == str(d.get("hotel_star"))]
        cheapest = hk in ("hotel_price_range", "hotel_cheapest_star")
        options["hotel"] = [h["name"] for h in hotels]
        costs["hotel"] = {h["name"]: (_c(h["price"]), -_c(h["score"])) if cheapest else
                          (-_c(h["score"]), _c(h["price"])) for h in hotels}
    if MUST_EAT in hard:
        name = hard[MUST_EAT].get("restaurant_name")
        cost = {r["restaurant_name"]: (_c(r["price_per_person"]),)
                for r in db.rows("restaurants") if r["restaurant_name"] == name}
        options["must_eat"], costs["must_eat"] = sorted(cost), cost
    rk = next((k for k in hard if k in STAY_RESTAURANT_KINDS and k != MUST_EAT), None)
    if rk:
        d = hard[rk]
        rows = sorted(db.rows("restaurants"), key=lambda r: r["restaurant_name"])
        rows = [r for r in rows if r["nearby_attraction_name"] == d.get("attraction_name")]
        if rk == "restaurant_specific_cuisine_nearby":
            rows = [r for r in rows if r["cuisine"] == d.get("cuisine")]
            cost = {r["restaurant_name"]: (-_c(r["rating"]), _c(r["price_per_person"]))
                    for r in rows}
        else:   # closest by road distance, then the cheapest; no route, no candidate
            metres = {r["restaurant_name"]: _route_metres(db, d.get("attraction_name", ""),
                                                          r["restaurant_name"])
                      for r in rows}
            cost = {r["restaurant_name"]: (metres[r["restaurant_name"]],
                                           _c(r["price_per_person"]))
                    for r in rows if metres[r["restaurant_name"]] is not None}
        options["restaurant"] = sorted(cost)
        costs["restaurant"] = cost
    rows = sorted(db.rows("attractions"), key=lambda r: r["attraction_name"])
    rank = {r["attraction_name"]: i for i, r in enumerate(rows)}
    if "attraction_top_rated_must_visit" in hard:
        # highest rating, then the cheaper ticket, then the name (alphabetical)
        c: dict[str, tuple[int, ...]] = {}
        _set_option(rows, lambda r: (-_c(r["rating"]), _c(r["ticket_price"]),
                                     rank[r["attraction_name"]]),
                    min(TOP_K, len(rows)), c)
        options["top_rated_attractions"], costs["top_rated_attractions"] = sorted(c), c
    if "attraction_all_free_attractions" in hard:
        free = [r for r in rows if _c(r["ticket_price"]) == 0]
        c = {}
        if free:
            _set_option(free, lambda r: (rank[r["attraction_name"]],), len(free), c)
        options["free_attractions"], costs["free_attractions"] = sorted(c), c
    return options, costs


# ---- answers, query text, oracle needs ----------------------------------------------------

_SENTENCES = {
    "hotel_price_range": "Stay every night at a hotel priced between {min_price} and "
                         "{max_price} yuan a night (the cheapest such, then the highest-rated).",
    "hotel_cheapest_star": "Stay every night at the cheapest {hotel_star}-star hotel (then the "
                           "highest-rated).",
    "hotel_star_highest_rated": "Stay every night at the highest-rated {hotel_star}-star hotel "
                                "(then the cheapest).",
    "hotel_brand_highest_rated": "Stay every night at the highest-rated {brand} hotel (then the "
                                 "cheapest).",
    "restaurant_must_eat_named": "Have one meal at '{restaurant_name}'.",
    "restaurant_specific_cuisine_nearby": "Have one meal near '{attraction_name}' at the "
                                          "highest-rated {cuisine} restaurant recommended near "
                                          "it (then the cheapest).",
    # road routes are one-way (as released): the sentence says which way it is measured
    "restaurant_closest_to_attraction": "Have one meal at the restaurant closest to "
                                        "'{attraction_name}' by road distance from the "
                                        "attraction to the restaurant, among those "
                                        "recommended near it (then the cheapest).",
    "attraction_top_rated_must_visit": f"Visit the {TOP_K} highest-rated attractions of the "
                                       "city (rating ties broken by the cheaper ticket, then by "
                                       "name in alphabetical order).",
}


def _sentence(kind: str, d: dict) -> str:
    if kind not in _SENTENCES:
        return "Visit every free attraction (ticket price 0) of the city."
    return _SENTENCES[kind].format_map(d)


def stay_query_line(kind: str, d: dict) -> str:
    return d.get("constraint_context") or _sentence(kind, d)


def record_stay_answers(hard: dict, choice: dict[str, str], db: TravelDB) -> None:
    """Our kinds' answer fields (released names), their ``constraint_type`` (released: all
    but hotel_price_range) and ``constraint_context``."""
    hotels, rests = db.by_name("hotels"), db.by_name("restaurants")
    attractions = db.by_name("attractions")
    for kind, d in hard.items():
        if kind not in STAY_KINDS:
            continue
        d["constraint_context"] = _sentence(kind, d)
        if kind != "hotel_price_range":
            d["constraint_type"] = "superlative_" + kind.split("_", 1)[1]
        if kind in STAY_HOTEL_KINDS:
            h = hotels[choice["hotel"]]
            d["hotel_name"] = choice["hotel"]
            d["hotel_price"] = _yuan(h["price"])
            if kind.endswith("highest_rated"):
                d["hotel_score"] = _yuan(h["score"])
        elif kind in STAY_RESTAURANT_KINDS:
            r = rests[meal_choice(kind, choice)]
            d["restaurant_name"] = meal_choice(kind, choice)
            if kind != "restaurant_must_eat_named":
                d["price_per_person"] = _yuan(r["price_per_person"])
            if kind != "restaurant_closest_to_attraction":
                d["restaurant_rating"] = _yuan(r["rating"])
        else:
            var = "top_rated_attractions" if kind == "attraction_top_rated_must_visit" \
                else "free_attractions"
            names = json.loads(choice[var])
            if kind == "attraction_all_free_attractions":
                names.sort(key=lambda n: (-_c(attractions[n]["rating"]), n))
            d["attraction_names"] = names
            d["attraction_ratings"] = [_yuan(attractions[n]["rating"]) for n in names]


def meal_anchor(kind: str, data: dict, db: TravelDB) -> str:
    """The attraction a constrained meal follows: the one named, or for a must-eat
    restaurant the attraction it is recommended near."""
    if kind == "restaurant_must_eat_named":
        row = db.by_name("restaurants").get(data.get("restaurant_name", ""))
        return row["nearby_attraction_name"] if row else ""
    return data["attraction_name"]


def meal_choice(kind: str, choice: dict[str, str]) -> str:
    """The restaurant a restaurant kind's answer is, in the proved optimum."""
    return choice["must_eat" if kind == MUST_EAT else "restaurant"]


def stay_required_attractions(kind: str, choice: dict[str, str]) -> list[str]:
    if kind == "attraction_top_rated_must_visit":
        return json.loads(choice["top_rated_attractions"])
    if kind == "attraction_all_free_attractions":
        return json.loads(choice["free_attractions"])
    return []
