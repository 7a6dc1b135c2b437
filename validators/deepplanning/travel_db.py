"""The travel sandbox: seven sub-databases per task in the released file layout.

The paper lists the seven CSV tables and their fields (lines 389-474: attractions, flights,
trains, hotels, restaurants, pois, road_routes).  The released code reads them per task from
``database_{lang}/id_{N}/`` under these names (``tools_fn_agent.py``), which is the layout we
read and write, so a user with the official databases points ``--database`` at them:

=================  ======================================
table              file under ``id_{N}/``
=================  ======================================
attractions        ``attractions/attractions.csv``
flights            ``flights/flights.csv``
trains             ``trains/trains.csv``
hotels             ``hotels/hotels.csv``
restaurants        ``restaurants/restaurants.csv``
pois               ``locations/locations_coords.csv``
road_routes        ``transportation/distance_matrix.csv``
=================  ======================================

Rows stay strings, as in the CSV (coordinates are compared as text, six decimals, as the
released tools do); :mod:`.units` reads numbers exactly where a check needs them.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from planning_core.errors import InputError

__all__ = ["FILES", "COLUMNS", "TravelDB", "task_dir"]

FILES = {
    "attractions": "attractions/attractions.csv",
    "flights": "flights/flights.csv",
    "trains": "trains/trains.csv",
    "hotels": "hotels/hotels.csv",
    "restaurants": "restaurants/restaurants.csv",
    "pois": "locations/locations_coords.csv",
    "road_routes": "transportation/distance_matrix.csv",
}

_SEGMENT = ["origin_city", "destination_city", "dep_date", "dep_station_code",
            "dep_station_name", "arr_station_code", "arr_station_name", "dep_datetime",
            "arr_datetime", "duration"]
COLUMNS = {  # paper lines 389-474, plus the two the released tools also read (attraction
    # ``address``, ``restaurant_id``: attraction_query_tool.py, restaurant_query_tool.py)
    "attractions": ["city", "attraction_name", "attraction_id", "description",
                    "attraction_type", "address", "latitude", "longitude", "rating", "opening_time",
                    "closing_time", "closing_dates", "min_visit_hours", "max_visit_hours",
                    "ticket_price"],
    "flights": _SEGMENT + ["flight_no", "airline", "seat_class", "seat_status", "equip_type",
                           "equip_size", "manufacturer", "price", "segment_index",
                           "route_index"],
    "trains": _SEGMENT + ["train_no", "train_type", "seat_class", "seat_status", "price",
                          "segment_index", "route_index"],
    "hotels": ["city", "name", "address", "latitude", "longitude", "decoration_time",
               "hotel_star", "price", "score", "brand", "services"],
    "restaurants": ["restaurant_id", "restaurant_name", "city", "latitude", "longitude", "price_per_person",
                    "cuisine", "opening_time", "closing_time", "nearby_attraction_name",
                    "nearby_attraction_coords", "query_latitude", "query_longitude", "rating",
                    "tags"],
    "pois": ["poi_name", "latitude", "longitude", "address", "poi_type"],
    "road_routes": ["origin", "destination", "distance_meters", "duration_minutes", "cost"],
}


def task_dir(database: str | Path, task_id: str) -> Path:
    """``DATABASE/id_{task_id}`` (the released per-task folder)."""
    return Path(database) / f"id_{task_id}"


@dataclass
class TravelDB:
    tables: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    # name indexes, built on first use; keyed by table and its row count so that appending
    # rows rebuilds them (rows edited in place are the indexed objects themselves)
    _names: dict[tuple[str, int], dict[str, dict[str, str]]] = field(
        default_factory=dict, repr=False, compare=False)

    #: each read table's header, in file order (a table built in memory: :data:`COLUMNS`)
    headers: dict[str, list[str]] = field(default_factory=dict)

    def rows(self, table: str) -> list[dict[str, str]]:
        return self.tables.get(table, [])

    def columns(self, table: str) -> list[str]:
        """The table's column names: as read, else the layout's."""
        if table in self.headers:
            return self.headers[table]
        rows = self.rows(table)
        return list(rows[0]) if rows else list(COLUMNS.get(table, []))

    # ---- lookups the tools and the checks share -------------------------------------------
    def by_name(self, table: str) -> dict[str, dict[str, str]]:
        key = {"attractions": "attraction_name", "hotels": "name",
               "restaurants": "restaurant_name", "pois": "poi_name"}[table]
        memo = (table, len(self.rows(table)))
        if memo not in self._names:
            out: dict[str, dict[str, str]] = {}
            for row in self.rows(table):
                out.setdefault((row.get(key) or "").strip(), row)
            self._names[memo] = out
        return self._names[memo]

    def coords(self, name: str) -> tuple[str, str] | None:
        """A place's ``(lat, lon)`` text: pois first, then the other tables."""
        for table in ("pois", "attractions", "hotels", "restaurants"):
            row = self.by_name(table).get(name)
            if row and row.get("latitude") and row.get("longitude"):
                return row["latitude"], row["longitude"]
        return None

    def route(self, origin: str, destination: str) -> dict[str, str] | None:
        """The one-way road route from ``origin`` to ``destination`` (``'lat,lon'`` strings,
        exact text, as released: the way back is a row of its own)."""
        for row in self.rows("road_routes"):
            if row.get("origin") == origin and row.get("destination") == destination:
                return row
        return None

    def route_index(self) -> dict[tuple[str, str], dict[str, str]]:
        return {(r.get("origin", ""), r.get("destination", "")): r
                for r in self.rows("road_routes")}

    def station_city(self) -> dict[str, str]:
        """Station or airport name -> city (from the train and flight tables)."""
        out: dict[str, str] = {}
        for table in ("trains", "flights"):
            for r in self.rows(table):
                out.setdefault(r.get("dep_station_name", ""), r.get("origin_city", ""))
                out.setdefault(r.get("arr_station_name", ""), r.get("destination_city", ""))
        out.pop("", None)
        return out

    # ---- files ----------------------------------------------------------------------------
    @classmethod
    def load(cls, folder: str | Path) -> "TravelDB":
        """Read the tables present under ``folder`` (a missing table is empty; a folder with
        none of them is an error)."""
        folder = Path(folder)
        tables: dict[str, list[dict[str, str]]] = {}
        headers: dict[str, list[str]] = {}
        for table, rel in FILES.items():
            path = folder / rel
            if not path.is_file():
                continue
            try:
                with path.open(encoding="utf-8-sig", newline="") as f:
                    reader = csv.DictReader(f)
                    headers[table] = list(reader.fieldnames or [])
                    tables[table] = [{k: (v if v is not None else "") for k, v in row.items()
                                      if k is not None} for row in reader]
            except (OSError, UnicodeDecodeError, csv.Error) as err:
                raise InputError(f"cannot read the table: {err}", file=str(path)) from None
        # the released location tool also reads a ``place_name`` column (when there is no
        # ``poi_name``): read it as the paper's ``poi_name`` (line 465)
        pois = headers.get("pois", [])
        if "poi_name" not in pois and "place_name" in pois:
            for row in tables["pois"]:
                row["poi_name"] = row.get("place_name", "")
        if not tables:
            raise InputError("no travel table (expected e.g. hotels/hotels.csv)",
                             file=str(folder))
        return cls(tables, headers=headers)

    def write(self, folder: str | Path) -> None:
        folder = Path(folder)
        for table, rel in FILES.items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("w", encoding="utf-8", newline="") as f:
                w = csv.DictWriter(f, fieldnames=COLUMNS[table], extrasaction="ignore")
                w.writeheader()
                for row in self.rows(table):
                    w.writerow(row)
