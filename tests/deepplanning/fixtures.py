"""Shared generated tasks (cached per session: generation is deterministic in the seed)."""
from __future__ import annotations

import copy
import functools

from planning_core.validators.deepplanning.shopping_gen import generate_case
from planning_core.validators.deepplanning.travel_gen import generate_task


@functools.lru_cache(maxsize=None)
def _travel(seed: int, index: int, days: int | None):
    return generate_task(seed, index, days)


def travel(seed: int = 0, index: int = 3, days: int | None = None):
    """A fresh copy of a generated travel task (entry, db, proof, plan)."""
    t = _travel(seed, index, days)
    return {"entry": copy.deepcopy(t["entry"]), "db": copy.deepcopy(t["db"]),
            "proof": t["proof"], "plan": copy.deepcopy(t["plan"])}


@functools.lru_cache(maxsize=None)
def _travel_with(kinds: tuple[str, ...], seed: int, days: int) -> tuple[int, int, int]:
    for index in range(120):
        hard = _travel(seed, index, days)["entry"]["meta_info"]["hard_constraints"]
        if all(k in hard for k in kinds):
            return seed, index, days
    raise LookupError(f"no generated task of seed {seed} with {kinds}")


def travel_with(*kinds: str, seed: int = 0, days: int = 2):
    """A fresh copy of the first small generated task (``days`` days) that has ``kinds``."""
    return travel(*_travel_with(kinds, seed, days))


@functools.lru_cache(maxsize=None)
def _shopping(seed: int, level: int, index: int):
    return generate_case(seed, level, index)


def shopping(seed: int = 0, level: int = 3, index: int = 0):
    t = _shopping(seed, level, index)
    return {"entry": t["entry"], "spec": copy.deepcopy(t["spec"]),
            "case": copy.deepcopy(t["case"]), "proof": t["proof"],
            "oracle_cart": copy.deepcopy(t["oracle_cart"])}


def write_released_travel(folder) -> None:
    """A small travel database written by hand in the released layout: the released file
    names and column names (``place_name`` for the locations, ``restaurant_id``, attraction
    ``address``), columns in another order than ours, empty cells, a two-segment train
    route, route numbers that sort differently as text (``10`` before ``2``)."""
    from pathlib import Path
    folder = Path(folder)
    tables = {
        "trains/trains.csv": (
            "route_index,segment_index,train_no,train_type,seat_class,seat_status,price,"
            "origin_city,destination_city,dep_date,dep_station_code,dep_station_name,"
            "arr_station_code,arr_station_name,dep_datetime,arr_datetime,duration\n"
            "2,1,G1,High-speed,Second Class Seat,,553.5,Beijing,Shanghai,2025-06-01,BJP,"
            "Beijing South Station,SHH,Shanghai Hongqiao Station,2025-06-01 08:00:00,"
            "2025-06-01 12:30:00,270\n"
            "10,1,D5,Electric Multiple Unit,Second Class Seat,3,300,Beijing,Shanghai,"
            "2025-06-01,BJP,Beijing South Station,NJH,Nanjing South Station,"
            "2025-06-01 09:00:00,2025-06-01 13:00:00,240\n"
            "10,2,D7,Electric Multiple Unit,Second Class Seat,Sold Out,,Beijing,Shanghai,"
            "2025-06-01,NJH,Nanjing South Station,SHH,Shanghai Hongqiao Station,"
            "2025-06-01 13:30:00,2025-06-01 15:00:00,90\n"),
        "hotels/hotels.csv": (
            "name,city,address,latitude,longitude,decoration_time,hotel_star,price,score,"
            "brand,services\n"
            "Bund Inn,Shanghai,1 Bund Road,31.240000,121.490000,2019,4,650,4.6,Jinjiang Inn,"
            "Washer and Dryer;;Gym\n"
            "Quiet House,Shanghai,,31.250000,121.500000,,3,300,4.1,Home Inn,\n"),
        "attractions/attractions.csv": (
            "attraction_id,attraction_name,city,address,latitude,longitude,description,"
            "rating,opening_time,closing_time,closing_dates,min_visit_hours,"
            "max_visit_hours,ticket_price,attraction_type\n"
            "A1,The Bund,Shanghai,Zhongshan East 1st Road,31.240000,121.490000,A riverside "
            "walk,4.8,Open 24 Hours,Open 24 Hours,,1,3,,City Landmark\n"
            "A2,City Museum,Shanghai,,31.230000,121.470000,Art and history,4,09:00,17:00,"
            "Monday,2,4,20,Art Exhibition\n"),
        "restaurants/restaurants.csv": (
            "restaurant_id,restaurant_name,city,latitude,longitude,price_per_person,cuisine,"
            "opening_time,closing_time,nearby_attraction_name,nearby_attraction_coords,"
            "query_latitude,query_longitude,rating,tags\n"
            "R9,Old Noodle,Shanghai,31.241000,121.491000,45,Noodles,10:00,21:00,The Bund,"
            "\"121.490000,31.240000\",31.240000,121.490000,4.5,Must-Eat Top 10;Local\n"
            "R10,River View,Shanghai,31.239000,121.489000,180,,11:00,22:00,The Bund,"
            "\"121.490000,31.240000\",31.240000,121.490000,,\n"),
        "locations/locations_coords.csv": (
            "place_name,latitude,longitude,address,poi_type\n"
            "The Bund,31.240000,121.490000,,attraction\n"
            "Bund Inn,31.240000,121.490000,1 Bund Road,hotel\n"),
        "transportation/distance_matrix.csv": (
            "origin,destination,distance_meters,duration_minutes,cost\n"
            "\"31.240000,121.490000\",\"31.230000,121.470000\",2300,15,12\n"
            "\"31.230000,121.470000\",\"31.240000,121.490000\",2400,16,12\n"),
    }
    for rel, text in tables.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def write_released_shopping(folder) -> None:
    """A small shopping case written by hand in the released layout (``products.jsonl``,
    ``user_info.json``, ``cart.json`` with an item already in it and no ``used_coupons``)."""
    import json
    from pathlib import Path
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    base = {"brand": "Anta", "color": "Black", "size": "M", "thickness": "Thin",
            "elasticity": "Non-stretch", "version_type": "Slim Fit", "collar_type": "Round Neck",
            "suitable_season": "Summer", "target_demographic": "Men",
            "sales_volume": {"monthly": 10, "total": 100},
            "rating": {"average_score": 4.5, "total_reviews": 20},
            "shipping_info": {"origin": "Zhejiang Province", "provider": "SF Express"},
            "applicable_coupons": ["Cross-store: ¥30 off every ¥300"]}
    products = [dict(base, product_id="x1", name="Running Tee", price=199, stock_quantity=5),
                dict(base, product_id="x2", name="Trail Jacket", price=410.5,
                     stock_quantity=2, color="Olive"),
                dict(base, product_id="x3", name="Trail Shorts", price=120, stock_quantity=0)]
    (folder / "products.jsonl").write_text(
        "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in products), encoding="utf-8")
    (folder / "user_info.json").write_text(json.dumps({
        "user_id": "u7", "is_vip": False, "shipping_province": "guangdong",
        "coupons": {"Cross-store: ¥30 off every ¥300": 2, "VIP: ¥200 off every ¥1,000": 1}},
        ensure_ascii=False), encoding="utf-8")
    (folder / "cart.json").write_text(json.dumps({"items": [
        {"product_id": "x2", "name": "Trail Jacket", "quantity": 1, "price": 410.5}],
        "summary": {"total_items_count": 1, "total_price": 410.5}}), encoding="utf-8")
