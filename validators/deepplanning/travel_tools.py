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

from planning_core.validators.deepplanning.argcheck import call_arguments
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


def _segments(rows: list[dict[str, str]], number_key: str, extra: tuple[str, ...]) -> list:
    routes: dict[str, list[dict[str, str]]] = {}
    for r in rows:
        routes.setdefault(r.get("route_index", ""), []).append(r)
    out = []
    for key in sorted(routes, key=lambda k: (len(k), k)):
        segs = sorted(routes[key], key=lambda r: r.get("segment_index", ""))
        route: dict[str, Any] = {}
        for i, r in enumerate(segs, 1):
            seg = {"depCityName": r.get("origin_city"), "arrCityName": r.get("destination_city"),
                   "depStationName": r.get("dep_station_name"),
                   "arrStationName": r.get("arr_station_name"),
                   "depDateTime": r.get("dep_datetime"), "arrDateTime": r.get("arr_datetime"),
                   "duration": r.get("duration"), "number": r.get(number_key),
                   "seatClassName": r.get("seat_class"),
                   "remainingSeats": r.get("seat_status") or "Available"}
            for k in extra:
                seg[k] = r.get(k)
            route[f"Segment {i}"] = seg
        route["price"] = segs[0].get("price")
        out.append(route)
    return out


class TravelTools:
    """The tools bound to one task's database; :meth:`call` answers one tool call."""

    def __init__(self, db: TravelDB) -> None:
        self.db = db
        self._impl: dict[str, Callable[[dict], Any]] = {
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
            return json.dumps({"error": f"unknown tool {name!r}"})
        arguments, bad = call_arguments(arguments, _PARAMETERS[name])
        if bad:
            return json.dumps({"error": bad}, ensure_ascii=False)
        # every parameter is a string (checked above); others, unknown to the schema, ignored
        args = {k: v for k, v in arguments.items() if isinstance(v, str)}
        return json.dumps(impl(args), ensure_ascii=False)

    def _transport(self, table: str, a: dict, number_key: str, extra: tuple[str, ...]) -> Any:
        rows = [r for r in self.db.rows(table)
                if r.get("origin_city") == a["origin"]
                and r.get("destination_city") == a["destination"]
                and r.get("dep_date") == a["depDate"]]
        if a.get("seatClassName"):
            rows = [r for r in rows if r.get("seat_class") == a["seatClassName"]]
        if not rows:
            return {"message": f"no {table} from {a['origin']} to {a['destination']} on "
                               f"{a['depDate']}"}
        return _segments(rows, number_key, extra)

    def _trains(self, a: dict) -> Any:
        return self._transport("trains", a, "train_no", ("train_type",))

    def _flights(self, a: dict) -> Any:
        return self._transport("flights", a, "flight_no",
                               ("airline", "equip_type", "equip_size", "manufacturer"))

    def _hotels(self, a: dict) -> Any:
        rows = self.db.rows("hotels")
        if a.get("hotelStar"):
            rows = [r for r in rows if r.get("hotel_star") == a["hotelStar"]]
        if a.get("hotelBrands"):
            rows = [r for r in rows if r.get("brand") == a["hotelBrands"]]
        if not rows:
            return {"message": f"no hotel in {a['destination']} for the given filters"}
        return [{"name": r.get("name"), "address": r.get("address"),
                 "latitude": r.get("latitude"), "longitude": r.get("longitude"),
                 "decorationTime": r.get("decoration_time"), "hotelStar": r.get("hotel_star"),
                 "price": r.get("price"), "score": r.get("score"), "brand": r.get("brand"),
                 "services": [s for s in (r.get("services") or "").split(";") if s]}
                for r in rows]

    def _attraction(self, a: dict) -> Any:
        r = self.db.by_name("attractions").get(a["attraction_name"])
        if r is None:
            return {"message": f"no attraction named {a['attraction_name']!r}"}
        return {k: r.get(k, "") for k in ("attraction_id", "attraction_name", "city",
                                          "latitude", "longitude", "description", "rating",
                                          "opening_time", "closing_time", "closing_dates",
                                          "min_visit_hours", "max_visit_hours",
                                          "ticket_price", "attraction_type")}

    def _recommend_attractions(self, a: dict) -> Any:
        # the released tool returns every attraction of the task's database (no city filter)
        rows = self.db.rows("attractions")
        if a.get("attraction_type"):
            rows = [r for r in rows if r.get("attraction_type") == a["attraction_type"]]
        if not rows:
            return {"message": "no attraction found"}
        return [{"name": r.get("attraction_name"), "description": r.get("description"),
                 "type": r.get("attraction_type")} for r in rows]

    def _location(self, a: dict) -> Any:
        r = self.db.by_name("pois").get(a["place_name"])
        if r is None:
            return {"message": f"no coordinates for {a['place_name']!r}; use the exact name "
                               "another tool returned"}
        return {"place_name": r.get("poi_name"), "latitude": r.get("latitude"),
                "longitude": r.get("longitude")}

    def _route(self, a: dict) -> Any:
        r = self.db.route(a["origin"], a["destination"])
        if r is None:
            return {"message": f"no route from {a['origin']} to {a['destination']}; "
                               "coordinates must be the six-decimal text a tool returned"}
        return {"origin": r["origin"], "destination": r["destination"],
                "distance_in_meters": r.get("distance_meters"),
                "duration_in_minutes": r.get("duration_minutes"), "cost": r.get("cost")}

    def _recommend_restaurants(self, a: dict) -> Any:
        rows = [r for r in self.db.rows("restaurants")
                if r.get("query_latitude") == a["latitude"]
                and r.get("query_longitude") == a["longitude"]]
        if not rows:
            return {"message": f"no restaurant recommended near ({a['latitude']}, "
                               f"{a['longitude']})"}
        return [self._restaurant_row(r) for r in rows]

    @staticmethod
    def _restaurant_row(r: dict) -> dict:
        return {"name": r.get("restaurant_name"), "latitude": r.get("latitude"),
                "longitude": r.get("longitude"), "price_per_person": r.get("price_per_person"),
                "cuisine": r.get("cuisine"), "opening_time": r.get("opening_time"),
                "closing_time": r.get("closing_time"),
                "nearby_attraction_name": r.get("nearby_attraction_name"),
                "rating": r.get("rating"),
                "tags": [t for t in (r.get("tags") or "").split(";") if t]}

    def _restaurant(self, a: dict) -> Any:
        r = self.db.by_name("restaurants").get(a["restaurant_name"])
        if r is None:
            return {"message": f"no restaurant named {a['restaurant_name']!r}"}
        return self._restaurant_row(r)
