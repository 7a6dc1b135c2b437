"""Review rdeep3: gaps a reviewer left in the DeepPlanning generator.

1. hotel_price_range: no hotel is priced exactly at either drawn bound, so "between lo
   and hi" means the same inclusive or exclusive (before, only because the drawn prices
   end in 1 and the bounds in 0).
2. Road routes are one-way, as in the release (rows keyed origin -> destination, looked up
   that way by its tool and its evaluation): everything that reads a distance says which
   way.
3. Shopping quantities: the paper's Match and Case Accuracy (lines 160-170) speak of
   products, not quantities; a cart holding two of a ground-truth product is pinned as exact
   in both modes (and one beyond the stock as not exact in paper mode).
"""
from __future__ import annotations

import random

from planning_core.validators.deepplanning.travel_db import TravelDB
from planning_core.validators.deepplanning.travel_kinds_stay import _draw_hotel


# ---- 1. hotel_price_range: no hotel on a bound ---------------------------------------------
def _hotels(*prices: str) -> TravelDB:
    return TravelDB({"hotels": [
        {"name": f"H{i}", "price": p, "hotel_star": "3", "score": "4.5", "brand": "B"}
        for i, p in enumerate(prices)]})


def test_price_range_bounds_never_sit_on_a_hotel_price():
    # hotels at 200 and 210 yuan: the draw around them (k = 20 or 21 tens of yuan) reaches
    # the bounds 200 and 210 for some seeds; those draws must not be returned
    db = _hotels("100.00", "200.00", "210.00")
    prices = {10000, 20000, 21000}
    drawn = []
    for seed in range(40):
        got = _draw_hotel(random.Random(seed), "hotel_price_range", db)
        if got is not None:
            assert got["min_price"] * 100 not in prices, (seed, got)
            assert got["max_price"] * 100 not in prices, (seed, got)
            assert got["min_price"] * 100 > 10000       # still excludes the cheapest
            drawn.append(got)
    assert drawn     # the guard refuses only the draws that hit a price


def test_price_range_draw_is_unchanged_when_no_hotel_is_on_a_bound():
    # prices ending in 1 (as generated): the guard never fires, so the draw is as before
    db = _hotels("100.01", "200.01", "210.01")
    for seed in range(20):
        got = _draw_hotel(random.Random(seed), "hotel_price_range", db)
        assert got is not None and got["min_price"] < got["max_price"]
