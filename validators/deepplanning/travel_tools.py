"""The nine travel tools as OpenAI function schemas, answered from a task's :class:`TravelDB`.

Names and parameters are the released ones (paper Table 3, lines 311-339; released
``tool_schema_en.json``); the descriptions are ours.  Matching follows the released tools:
exact text on names, cities, dates and coordinates (six decimals), so a fabricated or
re-typed value finds nothing -- which is the information-acquisition test (paper line 71).
Every answer is a JSON string; a bad call is an ``{"error": ...}`` answer, never an exception.
"""
from __future__ import annotations

import json
from typing import Any, Callable

import jsonschema

from planning_core.validators.deepplanning.travel_db import TravelDB

__all__ = ["TRAVEL_TOOLS", "travel_schemas", "TravelTools"]


def _fn(name: str, description: str, props: dict[str, str], required: list[str]) -> dict:
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object",
                       "properties": {k: {"type": "string", "description": v}
                                      for k, v in props.items()},
                       "required": required}}}


TRAVEL_TOOLS: tuple[dict, ...] = (
    _fn("query_train_info",
        "Train tickets from an origin city to a destination city on a date: train number, "
        "stations, departure/arrival time, duration, seat class, remaining seats, price.",
        {"origin": "origin city name", "destination": "destination city name",
         "depDate": "departure date, YYYY-MM-DD",
         "seatClassName": "optional seat class, e.g. Second Class Seat"},
        ["origin", "destination", "depDate"]),
    _fn("query_flight_info",
        "Flights from an origin city to a destination city on a date: flight number, "
        "airports, times, duration, cabin class, remaining seats, price, aircraft.",
        {"origin": "origin city name", "destination": "destination city name",
         "depDate": "departure date, YYYY-MM-DD",
         "seatClassName": "optional cabin class, e.g. Economy Class"},
        ["origin", "destination", "depDate"]),
    _fn("query_hotel_info",
        "Hotels at a destination for the stay: name, address, coordinates, star, price per "
        "night, score, brand, renovation year, services.",
        {"destination": "destination city or district", "checkinDate": "YYYY-MM-DD",
         "checkoutDate": "YYYY-MM-DD", "hotelStar": "optional star rating 1-5",
         "hotelBrands": "optional single brand name"},
        ["destination", "checkinDate", "checkoutDate"]),
    _fn("query_attraction_details",
        "Details of one attraction by its exact name: coordinates, rating, opening and "
        "closing time, closing days, recommended visit hours, ticket price, type.",
        {"attraction_name": "exact attraction name"}, ["attraction_name"]),
    _fn("recommend_attractions",
        "Attractions of a city (name, description, type), optionally of one type.",
        {"city": "city name or keyword",
         "attraction_type": "optional: Historical and Cultural, Natural Scenery, Art "
                            "Exhibition, City Landmark, Theme Park, Leisure Experience"},
        ["city"]),
    _fn("search_location",
        "Coordinates (six decimals) of a place by its exact name as other tools return it.",
        {"place_name": "exact place name"}, ["place_name"]),
    _fn("query_road_route_info",
        "Distance (m), duration (min) and cost of the one-way road route from origin to "
        "destination (the way back is a route of its own and may differ); walking up to "
        "2 km (cost 0), taxi beyond (cost per car of up to 4 people).",
        {"origin": "latitude,longitude (six decimals)",
         "destination": "latitude,longitude (six decimals)"},
        ["origin", "destination"]),
    _fn("recommend_restaurants",
        "Restaurants near the given coordinates (an attraction's): name, coordinates, price "
        "per person, cuisine, opening/closing time, rating, tags.",
        {"latitude": "latitude, six decimals", "longitude": "longitude, six decimals"},
        ["latitude", "longitude"]),
    _fn("query_restaurant_details",
        "Details of one restaurant by its exact name.",
        {"restaurant_name": "exact restaurant name"}, ["restaurant_name"]),
)

#: each tool's parameter schema, by name: what a call's arguments are checked against
_PARAMETERS = {t["function"]["name"]: t["function"]["parameters"] for t in TRAVEL_TOOLS}


def travel_schemas() -> list[dict]:
    return [json.loads(json.dumps(t)) for t in TRAVEL_TOOLS]


#: what pandas' ``read_csv`` (the released tools read every table with ``dtype=str``) takes
#: for a missing value; such a cell becomes a float NaN there, and so it does here
_NA = frozenset(("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
                 "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a",
                 "nan", "null"))
_NAN = float("nan")
_MISSING = object()

EN = {  # the released tools' English texts (their ``LANG_FIELDS['en']``), by tool
    "no_info_train": "No information found",
    "no_info_flight": "No information found, please check input parameters",
    "not_loaded": "Database not loaded",
}


def _v(row: dict, key: str, default: Any = _MISSING) -> Any:
    """A cell as the released tool sees it: the text, NaN for a missing value, ``default``
    when the column is absent (``Series.get``)."""
    if key not in row:
        if default is _MISSING:
            raise AttributeError(f"'Pandas' object has no attribute '{key}'")
        return default
    value = row[key]
    return _NAN if value is None or value in _NA else value


def _is_nan(v: Any) -> bool:
    return isinstance(v, float) and v != v


def _float_or(v: Any, default: Any) -> Any:
    try:
        return float(v)
    except Exception:   # noqa: BLE001 - the released tool's own catch-all
        return default


class TravelTools:
    """The tools bound to one task's database; :meth:`call` answers one tool call exactly as
    the released tool does on the same database (``docs/deepplanning.md``, "Tool answers")."""

    def __init__(self, db: TravelDB) -> None:
        self.db = db
        self._impl: dict[str, Callable[[dict], str]] = {
            "query_train_info": self._trains, "query_flight_info": self._flights,
            "query_hotel_info": self._hotels,
            "query_attraction_details": self._attraction,
            "recommend_attractions": self._recommend_attractions,
            "search_location": self._location, "query_road_route_info": self._route,
            "recommend_restaurants": self._recommend_restaurants,
            "query_restaurant_details": self._restaurant}

    def call(self, name: str, arguments: str | dict) -> str:
        impl = self._impl.get(name)
        if impl is None:
            return json.dumps({"error": f"tool '{name}' not found"}, ensure_ascii=False)
        if isinstance(arguments, str):
            # the released agent: arguments that are not JSON become no arguments
            try:
                arguments = json.loads(arguments) if arguments else {}
            except Exception:   # noqa: BLE001 - as released (a recursion error included)
                arguments = {}
        try:
            jsonschema.validate(instance=arguments, schema=_PARAMETERS[name])
            return impl(arguments)
        except Exception as err:   # noqa: BLE001 - the released agent answers every failure
            return json.dumps({"error": str(err)}, ensure_ascii=False)

    @staticmethod
    def _dump(result: Any) -> str:
        return json.dumps(result, ensure_ascii=False, indent=2)

    def _table(self, table: str) -> list[dict[str, str]] | None:
        return self.db.tables.get(table)

    def _transport(self, table: str, a: dict, flight: bool) -> str:
        data = self._table(table)
        origin, dest, date = a.get("origin"), a.get("destination"), a.get("depDate")
        if data is None:
            return EN["no_info_flight" if flight else "no_info_train"]
        rows = [r for r in data if _v(r, "origin_city") == origin
                and _v(r, "destination_city") == dest and _v(r, "dep_date") == date]
        seat = a.get("seatClassName", "")
        if seat:
            rows = [r for r in rows if _v(r, "seat_class") == seat]
        if not rows:
            if flight:
                # the released flight tool's not-found text takes four arguments and is
                # given three: its answer is this error (flight_query_tool.py)
                return json.dumps({"error": "FlightQueryTool.<lambda>() missing 1 required "
                                            "positional argument: 'seat'"})
            return f"No train information found from {origin} to {dest} on {date}"
        out = []
        keys: list[Any] = []
        for r in rows:
            k = _v(r, "route_index")
            if not any(k == x or (_is_nan(k) and _is_nan(x)) for x in keys):
                keys.append(k)
        for key in sorted(keys):
            segs = sorted((r for r in rows if _v(r, "route_index") == key),
                          key=lambda r: _v(r, "segment_index"))
            route: dict[str, Any] = {}
            price: Any = None
            prev = None
            for i, r in enumerate(segs, 1):
                status = _v(r, "seat_status")
                if status is None or str(status).strip() == "" or str(status).lower() == "nan":
                    status = "Available"
                if flight or i == 1:
                    dep_city = _v(r, "origin_city")
                else:
                    dep_city = _v(prev, "arr_station_name").split(" Station")[0]
                seg = {"arrCityName": _v(r, "destination_city"),
                       "arrStationCode": _v(r, "arr_station_code"),
                       "arrStationName": _v(r, "arr_station_name"),
                       "depCityName": dep_city,
                       "depStationCode": _v(r, "dep_station_code"),
                       "depStationName": _v(r, "dep_station_name"),
                       "duration": int(_v(r, "duration")),
                       "arrDateTime": _v(r, "arr_datetime"),
                       "depDateTime": _v(r, "dep_datetime"),
                       "marketingTransportName": _v(r, "airline" if flight else "train_type"),
                       "marketingTransportNo": _v(r, "flight_no" if flight else "train_no"),
                       "seatClassName": _v(r, "seat_class"),
                       "Remaining Seats": status}
                if flight:
                    seg.update(equipSize=_v(r, "equip_size"), equipType=_v(r, "equip_type"),
                               manufacturer=_v(r, "manufacturer"))
                route[f"Segment {i}"] = seg
                if i == 1:
                    price = _float_or(_v(r, "price"), None)
                prev = r
            route["price"] = price if price is not None else 0
            out.append(route if flight else [route])
        return self._dump(out)

    def _trains(self, a: dict) -> str:
        return self._transport("trains", a, False)

    def _flights(self, a: dict) -> str:
        return self._transport("flights", a, True)

    def _hotels(self, a: dict) -> str:
        data = self._table("hotels")
        if data is None:
            return EN["not_loaded"]
        rows = data
        if a.get("hotelStar", ""):
            rows = [r for r in rows if _v(r, "hotel_star") == a["hotelStar"]]
        if a.get("hotelBrands", ""):
            rows = [r for r in rows if _v(r, "brand") == a["hotelBrands"]]
        if not rows:
            return (f"No hotel information found in {a.get('destination')} from "
                    f"{a.get('checkinDate')} to {a.get('checkoutDate')}, please check "
                    "parameters or reduce constraints")

        def text(r: dict, k: str) -> str:
            v = _v(r, k, "")
            return "" if v is None or _is_nan(v) else str(v)
        out = []
        for r in rows:
            h = {"name": text(r, "name"), "address": text(r, "address"),
                 "latitude": text(r, "latitude"), "longitude": text(r, "longitude"),
                 "decorationTime": text(r, "decoration_time"),
                 "hotelStar": text(r, "hotel_star"), "price": text(r, "price"),
                 "score": text(r, "score"), "brand": text(r, "brand")}
            services = _v(r, "services", None)
            if isinstance(services, str) and services.strip():
                h["services"] = services.split(";")
            out.append(h)
        return self._dump(out)

    def _attraction(self, a: dict) -> str:
        data = self._table("attractions")
        name = a.get("attraction_name")
        if data is None:
            return EN["not_loaded"]
        r = next((r for r in data if _v(r, "attraction_name") == name), None)
        if r is None:
            return f"Detailed information not found for attraction {name}"

        def num(k: str) -> Any:
            v = _v(r, k, None)
            try:
                return float(v) if v == v else None
            except Exception:   # noqa: BLE001 - as released
                return None

        def text(k: str, default: Any = "") -> str:
            return str(_v(r, k, default))
        rating, lo, hi, ticket = (num(k) for k in ("rating", "min_visit_hours",
                                                   "max_visit_hours", "ticket_price"))
        opening, closing = text("opening_time"), text("closing_time")
        hours = opening if opening == closing else f"{opening} to {closing}"
        lines = [f"Attraction ID：{text('attraction_id')}",
                 f"Attraction Name：{text('attraction_name', name)}",
                 f"City：{text('city')}", f"Address：{text('address')}",
                 f"Coordinates：Latitude {text('latitude')}，Longitude {text('longitude')}",
                 f"Description：{text('description')}",
                 f"Rating：{rating if rating is not None else ''}(average visitor rating)",
                 f"Opening Hours：{hours}", f"Closed Dates：{text('closing_dates')}",
                 f"Minimum Visit Duration：{lo if lo is not None else ''} hours",
                 f"Maximum Visit Duration：{hi if hi is not None else ''} hours",
                 f"Ticket Price：{ticket if ticket is not None else '0'} RMB",
                 f"Attraction Type：{text('attraction_type')}"]
        return "\n".join(lines)

    def _recommend_attractions(self, a: dict) -> str:
        # the released tool returns every attraction of the task's database (no city filter)
        data = self._table("attractions")
        if data is None:
            return EN["not_loaded"]
        rows = data
        if a.get("attraction_type", ""):
            rows = [r for r in rows if _v(r, "attraction_type") == a["attraction_type"]]
        if not rows:
            return "No attraction recommendations found"
        lines = ["Recommended attractions:\n"]
        for r in rows:
            lines.append(f"{_v(r, 'attraction_name', '')}, {_v(r, 'description', '')}. "
                         f"This is a {_v(r, 'attraction_type', '')} type attraction")
        return "\n".join(lines)

    def _location(self, a: dict) -> str:
        data = self._table("pois")
        place = a.get("place_name")
        if data is None:
            return EN["not_loaded"]
        col = "poi_name" if "poi_name" in self.db.columns("pois") else "place_name"
        r = next((r for r in data if _v(r, col, _NAN) == place), None)
        if r is None:
            return (f"Coordinate information not found for location {place}, please check: "
                    "1. Whether the place name comes from other tool results; 2. Whether the "
                    "place name is exactly consistent with tool results, no abbreviation, "
                    "renaming or additional description allowed")
        return self._dump({"place_name": _v(r, "poi_name", _v(r, "place_name", place)),
                           "latitude": str(_v(r, "latitude", "")),
                           "longitude": str(_v(r, "longitude", ""))})

    def _route(self, a: dict) -> str:
        data = self._table("road_routes")
        origin, dest = a.get("origin"), a.get("destination")
        if data is None:
            return EN["not_loaded"]
        known = {_v(r, "origin") for r in data} | {_v(r, "destination") for r in data}
        for coord in (origin, dest):
            if coord not in known:
                return (f"Coordinate {coord} is not in query range, please check:\n"
                        "1. Whether coordinate comes from valid tool query result, not manual "
                        "input or fabrication;\n2. Whether coordinate precision is exactly "
                        "consistent with query result, 6 decimal places")
        r = next((r for r in data if _v(r, "origin") == origin
                  and _v(r, "destination") == dest), None)
        if r is None:
            return f"No transportation information found from {origin} to {dest}"
        return self._dump({"origin": _v(r, "origin", origin),
                           "destination": _v(r, "destination", dest),
                           "distance_in_meters": int(_v(r, "distance_meters", 0)),
                           "duration_in_minutes": int(_v(r, "duration_minutes", 0)),
                           "cost": int(_v(r, "cost", 0))})

    @staticmethod
    def _restaurant_row(r: dict, with_id: bool) -> dict:
        out: dict[str, Any] = {"id": _v(r, "restaurant_id", "")} if with_id else {}
        out.update({"name": _v(r, "restaurant_name", ""),
                    "latitude": str(_v(r, "latitude", 0)),
                    "longitude": str(_v(r, "longitude", 0)),
                    "price_per_person": str(_v(r, "price_per_person", "100" if with_id else 0)),
                    "cuisine": _v(r, "cuisine", ""),
                    "opening_time": _v(r, "opening_time", ""),
                    "closing_time": _v(r, "closing_time", ""),
                    "nearby_attraction_name": _v(r, "nearby_attraction_name", ""),
                    "rating": str(_v(r, "rating", 4.0 if with_id else 4.5))})
        tags = _v(r, "tags", None)
        if tags and isinstance(tags, str) and tags.strip():
            out["tags"] = tags.split(";")
        return out

    def _recommend_restaurants(self, a: dict) -> str:
        data = self._table("restaurants")
        lat, lon = a.get("latitude"), a.get("longitude")
        if data is None:
            return EN["not_loaded"]
        has = {"query_latitude", "query_longitude"} <= set(self.db.columns("restaurants"))
        rows = [r for r in data if str(_v(r, "query_latitude")) == lat
                and str(_v(r, "query_longitude")) == lon] if has else []
        if not rows:
            return (f"No recommended restaurants found near coordinates ({lat}, {lon}), please "
                    "check coordinate source")
        return self._dump([self._restaurant_row(r, False) for r in rows])

    def _restaurant(self, a: dict) -> str:
        data = self._table("restaurants")
        name = a.get("restaurant_name")
        if data is None:
            return self._dump({"message": EN["not_loaded"], "restaurant_name": name})
        r = next((r for r in data if _v(r, "restaurant_name", _NAN) == name), None)
        if r is None:
            return self._dump({"message": f"Detailed information not found for restaurant "
                                          f"{name}", "restaurant_name": name})
        return self._dump(self._restaurant_row(r, True))
