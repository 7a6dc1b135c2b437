"""The intercity-leg constraint kinds of the released travel queries: the database fields
they read, how a draw sets their parameters so that they bind, how the choice problem
orders a direction's legs under them, the answers they record and the sentence that states
them.

The released ``travelplanning_query_en.json`` records, per kind, ``constraint_type`` (for
the superlatives), a ``constraint_context`` sentence and the solved numbers
(``outbound_{train,flight}_no`` and/or ``inbound_...``) of the direction(s) it
constrains; the parameters live only in the sentence.  We keep the answers and
``constraint_type`` as released, write our own ``constraint_context``, and also store the
parameters under the database's own field names (``airline``, ``manufacturer``,
``train_type``, ``seat_class``) or ours (``dep_time_range``, ``arr_time_range``,
``direction``) so that :func:`leg_options` reads them without parsing text.

Semantics (one leg per direction, direct, with a seat for every traveller -- paper line
226 -- on the row it is bought on):

* ``*_seat_class``: both directions in first class (trains "First Class Seat", flights
  "First Class"); the cheapest first-class fare each way.
* ``*_departure_time_range``: the outbound leaves within ``dep_time_range`` (inclusive;
  a drawn window has no leg on either end, so a half-open reading agrees); the cheapest
  such.  ``flight_arrival_time_range``: the inbound arrives within
  ``arr_time_range``; the cheapest such.
* ``flight_cheapest_airline_direct`` / ``flight_cheapest_manufacturer_direct`` /
  ``train_cheapest_train_type``: the cheapest outbound of that airline / aircraft
  manufacturer / train type.  ``flight_earliest_airline_direct``: the earliest-departing
  outbound of that airline, then the cheapest.
* ``*_shortest_duration_direct``: the shortest ``duration`` in ``direction``, then the
  cheapest.

The direction a kind does not constrain takes the cheapest leg ("Where nothing else is
said, choose the cheapest option; an intercity leg may be booked in any seat class that has
a seat for each of us", which every generated query states).  A leg number may
have several rows (seat classes); its option cost is the best row it may be bought on, and
:func:`leg_row` gives that row to the oracle.
"""
from __future__ import annotations

import random
from typing import Any

from planning_core.validators.deepplanning.travel_db import TravelDB
from planning_core.validators.deepplanning.units import cents, clock, fmt_clock, leg_time, seats

__all__ = ["EXTRA_KINDS", "RELEASED_COUNT", "AIRLINES", "FIRST_CLASS", "decorate_legs",
           "draw_transport", "leg_options", "leg_row", "record_transport", "transport_text"]

EXTRA_KINDS = ("train_departure_time_range", "train_seat_class",
               "train_cheapest_train_type", "train_shortest_duration_direct",
               "flight_arrival_time_range", "flight_shortest_duration_direct",
               "flight_cheapest_manufacturer_direct", "flight_cheapest_airline_direct",
               "flight_seat_class", "flight_departure_time_range",
               "flight_earliest_airline_direct")
CONSTRAINT_TYPE = {"cheapest_train_type": "superlative_cheapest_train_type",
                   "shortest_duration_direct": "superlative_shortest_duration",
                   "cheapest_manufacturer_direct": "superlative_cheapest_manufacturer",
                   "cheapest_airline_direct": "superlative_cheapest_airline",
                   "earliest_airline_direct": "superlative_earliest_airline"}
AIRLINES = {"MU": "China Eastern Airlines", "CA": "Air China",
            "CZ": "China Southern Airlines", "HU": "Hainan Airlines"}
TRAIN_TYPES = {"G": "High-Speed Rail", "D": "Electric Multiple Unit"}
PLANES = {"Airbus": ("320", "321", "330", "350"), "Boeing": ("737", "738", "787")}
FIRST_CLASS = {"train": "First Class Seat", "flight": "First Class"}
# how often each intercity kind occurs in the released travelplanning_query_en.json (120
# queries): the generator draws a mode's kind with these weights, at least 3 each (so that
# the rarest, 1 of 120, still turns up in a 120-task generation)
RELEASED_COUNT = {
    "train_departure_time_range": 13, "flight_cheapest_direct": 12,
    "train_earliest_departure_direct": 10, "train_cheapest_direct": 10,
    "train_latest_arrival_direct": 9, "train_seat_class": 9, "train_seat_status": 6,
    "train_cheapest_train_type": 6, "flight_seat_status": 6,
    "train_shortest_duration_direct": 5, "flight_arrival_time_range": 5,
    "flight_shortest_duration_direct": 5, "flight_earliest_departure_direct": 5,
    "flight_cheapest_manufacturer_direct": 5, "flight_cheapest_airline_direct": 5,
    "flight_seat_class": 4, "flight_departure_time_range": 4,
    "flight_earliest_airline_direct": 1}


def _minute(datetime_text: str) -> int:
    return leg_time(datetime_text) or 0


def _price(row: dict[str, str]) -> int:
    c = cents(row.get("price", ""))
    return 0 if c is None else c


# ---- database draw -------------------------------------------------------------------------
def decorate_legs(rng: random.Random, db: TravelDB, mode: str) -> None:
    """Give every leg the released fields these kinds read -- the airline of its number's
    prefix, an aircraft (manufacturer, model, size), the train type of its letter -- and
    give about half of the numbers a first-class row (dearer, its own seat status)."""
    table = "flights" if mode == "flight" else "trains"
    out: list[dict[str, str]] = []
    for row in db.rows(table):
        if mode == "flight":
            maker = rng.choice(sorted(PLANES))
            model = rng.choice(PLANES[maker])
            row.update(airline=AIRLINES.get(row["flight_no"][:2], "China Eastern Airlines"),
                       manufacturer=maker, equip_type=model,
                       equip_size="Large Aircraft" if model in ("330", "350", "787")
                       else "Medium Aircraft")
        else:
            row.update(train_type=TRAIN_TYPES.get(row["train_no"][:1], "Regular Train"))
        out.append(row)
        if rng.random() < 0.6:
            first = dict(row)
            price = _price(row) * rng.choice((16, 17, 18, 19, 20, 21, 22)) // 10
            # its own route: the tools group a route's rows as its segments
            first.update(seat_class=FIRST_CLASS[mode], route_index=str(
                             100 + int(row["route_index"])),
                         price=str(-(-price // 500) * 5),
                         seat_status=rng.choice(("Available", "Available",
                                                 str(rng.randint(0, 12)))))
            out.append(first)
    db.tables[table] = out


# ---- the choice problem's leg options -----------------------------------------------------
def _direction(kind: str, data: dict) -> tuple[str, ...]:
    """The direction(s) a kind constrains."""
    rest = kind.split("_", 1)[1]
    if rest == "seat_class":
        return ("outbound", "inbound")
    if rest == "arrival_time_range":
        return ("inbound",)
    if rest == "shortest_duration_direct":
        return (str(data.get("direction", "outbound")),)
    return ("outbound",)


def _in_range(minute: int, window: Any) -> bool:
    """``minute`` within ``["HH:MM", "HH:MM"]`` (inclusive); anything else allows none."""
    if not isinstance(window, (list, tuple)) or len(window) != 2:
        return False
    lo, hi = clock(window[0]), clock(window[1])
    return lo is not None and hi is not None and lo <= minute <= hi


def _allowed(kind: str | None, data: dict, var: str, row: dict[str, str]) -> bool:
    if kind not in EXTRA_KINDS or var not in _direction(kind, data):
        return True
    rest = kind.split("_", 1)[1]
    if rest == "seat_class":
        return row.get("seat_class") == data.get("seat_class")
    if rest == "departure_time_range":
        return _in_range(_minute(row.get("dep_datetime", "")), data.get("dep_time_range"))
    if rest == "arrival_time_range":
        return _in_range(_minute(row.get("arr_datetime", "")), data.get("arr_time_range"))
    if rest in ("cheapest_airline_direct", "earliest_airline_direct"):
        return row.get("airline") == data.get("airline")
    if rest == "cheapest_manufacturer_direct":
        return row.get("manufacturer") == data.get("manufacturer")
    if rest == "cheapest_train_type":
        return row.get("train_type") == data.get("train_type")
    return True


def _vector(kind: str | None, data: dict, var: str, row: dict[str, str]) -> tuple[int, ...]:
    price = _price(row)
    if kind is None:
        return (price,)
    rest = kind.split("_", 1)[1]
    if rest in ("earliest_departure_direct", "earliest_airline_direct") and var == "outbound":
        return (_minute(row["dep_datetime"]), price)
    if rest == "latest_arrival_direct" and var == "inbound":
        return (-_minute(row["arr_datetime"]), price)
    if rest == "shortest_duration_direct" and var in _direction(kind, data):
        return (int(row.get("duration") or 0), price)
    return (price,)


def leg_options(hard: dict, db: TravelDB, var: str, a: str, b: str, date: str,
                people: int) -> tuple[str, dict[str, tuple[tuple[int, ...], dict[str, str]]]]:
    """``(number field, {number: (cost vector, the row it is bought on)})`` for one
    direction: rows from ``a`` to ``b`` on ``date`` with a seat for everyone that the
    transport constraint allows, each number at its best row."""
    kind = next((k for k in hard if k.startswith(("train_", "flight_"))), None)
    table = "flights" if kind and kind.startswith("flight_") else "trains"
    key = "flight_no" if table == "flights" else "train_no"
    data = hard.get(kind) or {} if kind else {}
    best: dict[str, tuple[tuple[int, ...], dict[str, str]]] = {}
    for r in db.rows(table):
        if r.get("origin_city") != a or r.get("destination_city") != b or \
                r.get("dep_date") != date or seats(r.get("seat_status", "")) < people or \
                not _allowed(kind, data, var, r):
            continue
        vec = _vector(kind, data, var, r)
        if r[key] not in best or vec < best[r[key]][0]:
            best[r[key]] = (vec, r)
    return key, best


def leg_row(meta: dict, db: TravelDB, var: str, number: str) -> dict[str, str] | None:
    """The row the oracle buys leg ``number`` on in direction ``var``."""
    org, dest = meta["org"], meta["dest"][0]
    a, b, date = ((org, dest, meta["depart_date"]) if var == "outbound" else
                  (dest, org, meta["return_date"]))
    _, best = leg_options(meta.get("hard_constraints") or {}, db, var, a, b, date,
                          int(meta.get("people_number") or 1))
    return best[number][1] if number in best else None


# ---- constraint draw ----------------------------------------------------------------------
def _argmins(opts: dict[str, tuple[tuple[int, ...], dict[str, str]]]) -> set[str]:
    if not opts:
        return set()
    low = min(v for v, _ in opts.values())
    return {n for n, (v, _) in opts.items() if v == low}


def draw_transport(rng: random.Random, db: TravelDB, kind: str, meta: dict) -> dict | None:
    """Parameters for ``kind`` that bind -- the constrained direction's optimum is none of
    the cheapest legs (and, for the airline/manufacturer/type kinds, not the optimum
    without that filter) -- or ``None`` when this database admits no such draw."""
    mode = kind.split("_", 1)[0]
    rest = kind.split("_", 1)[1]
    data: dict[str, Any] = {}
    if rest in CONSTRAINT_TYPE:
        data["constraint_type"] = CONSTRAINT_TYPE[rest]
    if rest == "shortest_duration_direct":   # a direction where it binds
        data["direction"] = "outbound"
    var = _direction(kind, data)[-1] if rest != "seat_class" else None
    people = int(meta.get("people_number") or 1)
    org, dest = meta["org"], meta["dest"][0]
    legs = {"outbound": (org, dest, meta["depart_date"]),
            "inbound": (dest, org, meta["return_date"])}

    def options(d: dict, v: str, k: str | None = kind):
        hard = {k: d} if k else {}
        if k is None:   # no transport constraint reads the other table: name it
            hard = {f"{mode}_cheapest_direct": {}}
        return leg_options(hard, db, v, *legs[v], people)[1]

    def binds(d: dict, v: str, also: str | None = None) -> bool:
        got = _argmins(options(d, v))
        if len(got) != 1 or got & _argmins(options({}, v, None)):
            return False
        if also is not None and got & _argmins(options({}, v, also)):
            return False
        return True

    if rest == "seat_class":
        data["seat_class"] = FIRST_CLASS[mode]
        if not all(options(data, v) for v in legs) or \
                not any(binds(data, v) for v in legs):
            return None
        return data
    if rest in ("departure_time_range", "arrival_time_range"):
        field = "dep_time_range" if rest.startswith("departure") else "arr_time_range"
        when = "dep_datetime" if field == "dep_time_range" else "arr_datetime"
        # no leg on either end of the window: "between 16:00 and 20:00" read inclusive or
        # half-open then allows the same legs (a leg at 20:00 made the two readings differ)
        ends = {_minute(row.get(when, "")) for _, row in options({}, var, None).values()}
        windows = []
        for width in (60, 120, 180, 240):
            for start in range(0, 23 * 60 - width + 1, 60):
                w = [fmt_clock(start), fmt_clock(start + width)]
                if start not in ends and start + width not in ends and \
                        binds({field: w}, var):
                    windows.append(w)
        if not windows:
            return None
        data[field] = rng.choice(windows)
        return data
    if rest == "shortest_duration_direct":
        ways = [v for v in legs if binds(dict(data, direction=v), v)]
        if not ways:
            return None
        data["direction"] = rng.choice(ways)
        return data
    field = {"cheapest_airline_direct": "airline", "earliest_airline_direct": "airline",
             "cheapest_manufacturer_direct": "manufacturer",
             "cheapest_train_type": "train_type"}[rest]
    values = sorted({row[field] for _, row in options({}, var, None).values()})
    also = f"{mode}_earliest_departure_direct" if rest == "earliest_airline_direct" else None
    good = [x for x in values if binds(dict(data, **{field: x}), var, also)]
    if not good:
        return None
    data[field] = rng.choice(good)
    return data


# ---- answers and wording ------------------------------------------------------------------
def record_transport(kind: str, data: dict, choice: dict[str, str]) -> None:
    """The released answer fields: the number(s) of the constrained direction(s) only."""
    fam = kind.split("_", 1)[0]
    for var in _direction(kind, data):
        data[f"{var}_{fam}_no"] = choice[var]


def transport_text(kind: str, data: dict) -> str:
    """The query's sentence for ``kind`` (also stored as ``constraint_context``)."""
    mode = kind.split("_", 1)[0]
    rest = kind.split("_", 1)[1]
    m = "train" if mode == "train" else "flight"
    if rest == "seat_class":
        text = (f"Both the outbound and the return {m} must be booked in "
                f"'{data['seat_class']}'; take the cheapest such fare each way.")
    elif rest == "departure_time_range":
        lo, hi = data["dep_time_range"]
        text = (f"The outbound {m} must depart between {lo} and {hi} (then the "
                "cheapest).")
    elif rest == "arrival_time_range":
        lo, hi = data["arr_time_range"]
        text = f"The return {m} must arrive between {lo} and {hi} (then the cheapest)."
    elif rest == "shortest_duration_direct":
        way = "outbound" if data["direction"] == "outbound" else "return"
        text = (f"For the {way} journey, take the direct {m} with the shortest duration "
                "(then the cheapest).")
    elif rest == "cheapest_airline_direct":
        text = (f"For the outbound journey, take the cheapest direct flight of "
                f"'{data['airline']}'.")
    elif rest == "earliest_airline_direct":
        text = (f"For the outbound journey, take the earliest-departing direct flight of "
                f"'{data['airline']}' (then the cheapest).")
    elif rest == "cheapest_manufacturer_direct":
        text = (f"For the outbound journey, take the cheapest direct flight on an aircraft "
                f"made by {data['manufacturer']}.")
    else:
        text = (f"For the outbound journey, take the cheapest direct train of type "
                f"'{data['train_type']}'.")
    data["constraint_context"] = text
    return text
