"""Databases in the released layout: one written by hand (released file and column names,
empty cells, a two-segment route, a cart file with an item and no coupon list) read and
answered by our tools as the released tools answer it; and what ``deepplanning generate``
writes carries every column the released tools read.  The answers asserted here were
checked against the released tools by ``benchmarks/deepplanning_tools_differential.py``,
which runs them on the same hand-written databases."""
from __future__ import annotations

import csv
import json

from planning_core.validators.deepplanning.shopping_db import Cart, ShoppingCase
from planning_core.validators.deepplanning.shopping_tools import ShoppingTools
from planning_core.validators.deepplanning.travel_db import FILES, TravelDB
from planning_core.validators.deepplanning.travel_tools import TravelTools
from tests.deepplanning.fixtures import travel, write_released_shopping, write_released_travel

#: every column each released travel tool reads, by table (the released tools' sources)
RELEASED_READS = {
    "trains": {"origin_city", "destination_city", "dep_date", "seat_class", "route_index",
               "segment_index", "seat_status", "arr_station_code", "arr_station_name",
               "dep_station_code", "dep_station_name", "duration", "arr_datetime",
               "dep_datetime", "train_type", "train_no", "price"},
    "flights": {"origin_city", "destination_city", "dep_date", "seat_class", "route_index",
                "segment_index", "seat_status", "arr_station_code", "arr_station_name",
                "dep_station_code", "dep_station_name", "duration", "arr_datetime",
                "dep_datetime", "airline", "flight_no", "equip_size", "equip_type",
                "manufacturer", "price"},
    "hotels": {"hotel_star", "brand", "name", "address", "latitude", "longitude",
               "decoration_time", "price", "score", "services"},
    "attractions": {"attraction_name", "attraction_id", "city", "address", "latitude",
                    "longitude", "description", "rating", "opening_time", "closing_time",
                    "closing_dates", "min_visit_hours", "max_visit_hours", "ticket_price",
                    "attraction_type"},
    "restaurants": {"query_latitude", "query_longitude", "restaurant_id", "restaurant_name",
                    "latitude", "longitude", "price_per_person", "cuisine", "opening_time",
                    "closing_time", "nearby_attraction_name", "rating", "tags"},
    "pois": {"poi_name", "latitude", "longitude"},
    "road_routes": {"origin", "destination", "distance_meters", "duration_minutes", "cost"},
}


def test_generated_databases_carry_every_column_the_released_tools_read(tmp_path):
    db = travel(0, 2)["db"]
    db.write(tmp_path)
    for table, rel in FILES.items():
        with (tmp_path / rel).open(encoding="utf-8") as f:
            header = set(next(csv.reader(f)))
        assert RELEASED_READS[table] <= header, (table, RELEASED_READS[table] - header)
    rows = TravelDB.load(tmp_path).rows("restaurants")
    assert all(r["restaurant_id"] for r in rows)
    assert len({r["restaurant_id"] for r in rows}) == len(rows)
    assert all(r["address"] for r in TravelDB.load(tmp_path).rows("attractions"))


def test_a_hand_written_travel_database_is_answered_as_released(tmp_path):
    write_released_travel(tmp_path)
    tools = TravelTools(TravelDB.load(tmp_path))
    trains = json.loads(tools.call("query_train_info", '{"origin": "Beijing", "destination": '
                                   '"Shanghai", "depDate": "2025-06-01"}'))
    # route numbers sort as text ("10" before "2"); each route in a one-element list
    assert [r[0]["Segment 1"]["marketingTransportNo"] for r in trains] == ["D5", "G1"]
    two = trains[0][0]
    assert list(two) == ["Segment 1", "Segment 2", "price"] and two["price"] == 300.0
    assert two["Segment 2"]["depCityName"] == "Nanjing South"   # the station, less " Station"
    assert two["Segment 2"]["Remaining Seats"] == "Sold Out"
    assert two["Segment 1"]["duration"] == 240
    assert trains[1][0]["Segment 1"]["Remaining Seats"] == "Available"   # an empty cell
    assert tools.call("query_flight_info", '{"origin": "Beijing", "destination": "Shanghai", '
                      '"depDate": "2025-06-01"}') == \
        "No information found, please check input parameters"   # no flight table
    hotels = json.loads(tools.call("query_hotel_info", '{"destination": "Shanghai", '
                                   '"checkinDate": "2025-06-01", "checkoutDate": "2025-06-02"}'))
    assert hotels[0]["services"] == ["Washer and Dryer", "", "Gym"]
    assert hotels[1]["address"] == "" and "services" not in hotels[1]
    details = tools.call("query_attraction_details", '{"attraction_name": "The Bund"}')
    assert details.split("\n") == [
        "Attraction ID：A1", "Attraction Name：The Bund", "City：Shanghai",
        "Address：Zhongshan East 1st Road",
        "Coordinates：Latitude 31.240000，Longitude 121.490000",
        "Description：A riverside walk", "Rating：4.8(average visitor rating)",
        "Opening Hours：Open 24 Hours", "Closed Dates：nan",
        "Minimum Visit Duration：1.0 hours", "Maximum Visit Duration：3.0 hours",
        "Ticket Price：0 RMB", "Attraction Type：City Landmark"]
    assert "Opening Hours：09:00 to 17:00" in tools.call(
        "query_attraction_details", '{"attraction_name": "City Museum"}')
    assert json.loads(tools.call("search_location", '{"place_name": "Bund Inn"}')) == {
        "place_name": "Bund Inn", "latitude": "31.240000", "longitude": "121.490000"}
    near = tools.call("recommend_restaurants", '{"latitude": "31.240000", '
                      '"longitude": "121.490000"}')
    assert '"cuisine": NaN' in near   # an empty cell, as pandas gives it to json.dumps
    near = json.loads(near)
    assert near[0]["tags"] == ["Must-Eat Top 10", "Local"] and "id" not in near[0]
    assert near[1]["rating"] == "nan" and "tags" not in near[1]
    assert json.loads(tools.call("query_restaurant_details",
                                 '{"restaurant_name": "River View"}'))["id"] == "R10"
    assert json.loads(tools.call("query_road_route_info", '{"origin": "31.240000,121.490000",'
                                 ' "destination": "31.230000,121.470000"}')) == {
        "origin": "31.240000,121.490000", "destination": "31.230000,121.470000",
        "distance_in_meters": 2300, "duration_in_minutes": 15, "cost": 12}


def test_a_hand_written_shopping_case_is_answered_as_released(tmp_path):
    write_released_shopping(tmp_path)
    tools = ShoppingTools(Cart(ShoppingCase.load(tmp_path)))
    call = lambda n, a: json.loads(tools.call(n, json.dumps(a)))  # noqa: E731
    assert call("get_cart_info", {}) == {
        "items": [{"product_id": "x2", "name": "Trail Jacket", "quantity": 1, "price": 410.5}],
        "summary": {"total_items_count": 1, "total_price": 410.5}}
    cart = call("add_product_to_cart", {"product_id": "x1"})
    assert [i["product_id"] for i in cart["items"]] == ["x2", "x1"]   # the order added
    assert cart["items"][1]["price"] == 199.0 and cart["summary"]["total_price"] == 609.5
    cart = call("add_coupon_to_cart", {"coupon_name": "Cross-store: ¥30 off every ¥300"})
    assert list(cart) == ["items", "summary", "used_coupons"]
    assert cart["summary"]["total_price"] == 579.5
    # a product removed: the released summary is the total before coupons
    cart = call("delete_product_from_cart", {"product_id": "x1"})
    assert cart["summary"]["total_price"] == 410.5 and cart["used_coupons"] == [
        {"coupon_name": "Cross-store: ¥30 off every ¥300", "quantity": 1}]
    assert tools.cart.items == {"x2": 1} and tools.cart.coupons == {
        "Cross-store: ¥30 off every ¥300": 1}
    assert call("add_product_to_cart", {"product_id": "x3"}) == {
        "error": "Insufficient stock: Product 'Trail Shorts' (ID: x3) has 0 in stock, cart "
                 "already has 0, cannot add 1 more"}
    assert call("add_coupon_to_cart", {"coupon_name": "VIP: ¥200 off every ¥1,000"}) == {
        "error": "VIP coupon 'VIP: ¥200 off every ¥1,000' requires VIP status, but user is "
                 "not a VIP"}
    assert call("calculate_transport_time", {"product_id": "x1",
                                             "destination_address": "guangdong"}) == {
        "product_id": "x1", "origin": "Zhejiang Province", "destination": "guangdong",
        "estimated_delivery_days": 1}
    assert call("get_user_info", {"user_id": "u8"}) == {
        "error": "User with user_id 'u8' not found", "user": None}


def test_score_reads_a_released_layout_database_given_by_database(tmp_path, capsys):
    from planning_core.console import main
    write_released_travel(tmp_path / "database_en" / "id_0")
    queries = tmp_path / "q.json"
    queries.write_text(json.dumps([{"id": "0", "query": "q", "meta_info": {
        "org": "Beijing", "dest": ["Shanghai"], "depart_date": "2025-06-01",
        "return_date": "2025-06-02", "days": 2, "people_number": 1,
        "hard_constraints": {"hotel_highest_rated": {"hotel_name": "Bund Inn"}}}}]))
    plans = tmp_path / "plans"
    plans.mkdir()
    (plans / "id_0.json").write_text(json.dumps({"daily_plans": [
        {"day_number": 1, "current_city": "from Beijing to Shanghai",
         "accommodation": {"name": "Bund Inn", "price_per_night": 650},
         "activities": [{"time_slot": "08:00-12:30", "type": "travel_intercity_public",
                         "details": {"mode": "train", "number": "G1", "from":
                                     "Beijing South Station", "to":
                                     "Shanghai Hongqiao Station", "cost": 553.5}}]}],
        "budget_summary": {"total_estimated_budget": 1203.5}}))
    code = main(["deepplanning", "score", "travel", "--queries", str(queries), "--database",
                 str(tmp_path / "database_en"), "--plans", str(plans), "--json"])
    v = json.loads(capsys.readouterr().out.splitlines()[0])
    assert code == 0 and "bad_input" not in v
    assert v["checkpoints"]["validated_accommodation"]["passed"]
    assert v["checkpoints"]["validated_transportation"]["passed"]   # the released columns
