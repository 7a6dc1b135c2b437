"""Each of the 21 commonsense checkpoints (paper Table 7) fails on an itinerary that breaks
exactly it, and passes on the oracle's.  The itineraries are a generated task's oracle plan
with one edit; a day is re-laid out minute by minute with the oracle's own layout helper,
and the budget total is recomputed, so that only the intended rule breaks."""
from __future__ import annotations

import pytest

from planning_core.validators.deepplanning.travel_checks import DIMENSIONS
from planning_core.validators.deepplanning.travel_cost import plan_cost
from planning_core.validators.deepplanning.travel_oracle import _Day, _hours
from planning_core.validators.deepplanning.travel_plan import read_plan
from planning_core.validators.deepplanning.travel_score import score_travel
from planning_core.validators.deepplanning.units import fmt_cents
from tests.deepplanning.fixtures import travel

ALL = {n for names in DIMENSIONS.values() for n in names}


def failed(plan, meta, db, mode="paper"):
    v = score_travel(plan, meta, db, mode=mode)
    return {k for k, (ok, _) in v.checkpoints.items() if not ok}, v


def retotal(plan, meta):
    total, bad = plan_cost(read_plan(plan), meta)
    assert total is not None, bad
    plan["budget_summary"]["total_estimated_budget"] = float(fmt_cents(total))


def acts(plan, day, kind):
    return [a for a in plan["daily_plans"][day]["activities"] if a["type"] == kind]


def relayout(t, day_index, seq):
    """Lay out middle day ``day_index`` from ``seq`` of ("attraction", name, minutes|None),
    ("meal", name, earliest), ("hotel",), starting at the hotel at 08:30."""
    db, plan = t["db"], t["plan"]
    hotel = plan["daily_plans"][0]["accommodation"]["name"]
    d = _Day(db, db.route_index(), hotel, 8 * 60 + 30)
    attractions, restaurants = db.by_name("attractions"), db.by_name("restaurants")
    for step in seq:
        if step[0] == "attraction":
            row = attractions[step[1]]
            d.move(step[1])
            d.wait(_hours(row)[0], "waiting for opening")
            minutes = step[2] or int(float(row["min_visit_hours"]) * 60)
            d.add("attraction", d.t, d.t + minutes,
                  {"name": step[1], "city": t["entry"]["meta_info"]["dest"][0],
                   "cost": float(row["ticket_price"])})
        elif step[0] == "meal":
            row = restaurants[step[1]]
            d.move(step[1])
            d.wait(max(d.t, step[2]), "waiting")
            d.add("meal", d.t, d.t + 60, {"meal_type": "meal", "name": step[1],
                                          "cost": float(row["price_per_person"])})
        else:
            d.move(hotel)
            d.add("hotel", d.t, max(d.t + 30, 21 * 60 + 30), {"activity": "rest",
                                                               "name": hotel})
    plan["daily_plans"][day_index]["activities"] = d.acts
    retotal(plan, t["entry"]["meta_info"])


def names(plan, day, kind):
    return [a["details"]["name"] for a in acts(plan, day, kind)]


@pytest.fixture
def t():
    task = travel(0, 3)          # 5 days: day 0 arrival, 1-3 full days, 4 departure
    meta = task["entry"]["meta_info"]
    assert meta["days"] == 5
    return task


def test_the_oracle_plan_passes_every_checkpoint_in_both_modes(t):
    meta = t["entry"]["meta_info"]
    for mode in ("paper", "released"):
        bad, v = failed(t["plan"], meta, t["db"], mode)
        assert bad == set() and v.case_acc == 1 and v.commonsense == 1


def _mutations():
    def trip_days(t):
        t["entry"]["meta_info"]["days"] += 1

    def first_day_not_from_origin(t):
        t["plan"]["daily_plans"][0]["current_city"] = t["entry"]["meta_info"]["dest"][0]

    def middle_day_elsewhere(t):
        t["plan"]["daily_plans"][2]["current_city"] = "Atlantis"

    def hotel_price(t):
        t["plan"]["daily_plans"][0]["accommodation"]["price_per_night"] += 1
        retotal(t["plan"], t["entry"]["meta_info"])

    def ticket_price(t):
        acts(t["plan"], 1, "attraction")[0]["details"]["cost"] += 1
        retotal(t["plan"], t["entry"]["meta_info"])

    def meal_price(t):
        acts(t["plan"], 1, "meal")[0]["details"]["cost"] += 1
        retotal(t["plan"], t["entry"]["meta_info"])

    def leg_price(t):
        acts(t["plan"], 0, "travel_intercity_public")[0]["details"]["cost"] += 1
        retotal(t["plan"], t["entry"]["meta_info"])

    def last_day_accommodation(t):
        t["plan"]["daily_plans"][-1]["accommodation"] = dict(
            t["plan"]["daily_plans"][0]["accommodation"])

    def day_not_ending_at_hotel(t):
        day = t["plan"]["daily_plans"][1]["activities"]
        end = day[-1]["time_slot"].split("-")[1]
        day.append({"time_slot": f"{end}-23:50", "type": "buffer",
                    "details": {"description": "night walk"}})

    def no_dinner(t):
        p = t["plan"]
        a, r = names(p, 2, "attraction"), names(p, 2, "meal")
        relayout(t, 2, [("attraction", a[0], None), ("meal", r[0], 660),
                        ("attraction", a[1], None), ("hotel",)])

    def one_attraction(t):
        p = t["plan"]
        a, r = names(p, 2, "attraction"), names(p, 2, "meal")
        relayout(t, 2, [("attraction", a[0], None), ("meal", r[0], 660),
                        ("meal", r[1], 1020), ("hotel",)])

    def overlap(t):
        day = t["plan"]["daily_plans"][1]["activities"]
        s, e = day[-1]["time_slot"].split("-")
        h, m = map(int, s.split(":"))
        day[-1]["time_slot"] = f"{h:02d}:{m - 1:02d}-{e}" if m else f"{h - 1:02d}:59-{e}"

    def slow_transfer(t):
        day = t["plan"]["daily_plans"][1]["activities"]
        s, e = day[-1]["time_slot"].split("-")
        h, m = map(int, s.split(":"))
        m += 40
        day[-1]["time_slot"] = f"{h + m // 60:02d}:{m % 60:02d}-{e}"

    def closes_early(t):
        name = names(t["plan"], 1, "attraction")[0]
        slot = acts(t["plan"], 1, "attraction")[0]["time_slot"]
        row = t["db"].by_name("attractions")[name]
        row["opening_time"], row["closing_time"] = "08:00", slot.split("-")[1][:4] + "0"
        if row["closing_time"] >= slot.split("-")[1]:
            row["closing_time"] = slot.split("-")[0]

    def restaurant_closes_early(t):
        name = names(t["plan"], 1, "meal")[0]
        slot = acts(t["plan"], 1, "meal")[0]["time_slot"]
        t["db"].by_name("restaurants")[name]["closing_time"] = slot.split("-")[0]

    def closed_that_day(t):
        from planning_core.validators.deepplanning.travel_checks import day_weekday
        days = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
        name = names(t["plan"], 1, "attraction")[0]
        wd = day_weekday(t["entry"]["meta_info"], 1)
        t["db"].by_name("attractions")[name]["closing_dates"] = days[wd - 1]

    def short_visit(t):
        p = t["plan"]
        a, r = names(p, 2, "attraction"), names(p, 2, "meal")
        lo = int(float(t["db"].by_name("attractions")[a[0]]["min_visit_hours"]) * 60)
        relayout(t, 2, [("attraction", a[0], lo - 30), ("meal", r[0], 660),
                        ("attraction", a[1], None), ("meal", r[1], 1020), ("hotel",)])

    def short_meal(t):
        day = t["plan"]["daily_plans"][1]["activities"]
        i = next(k for k, a in enumerate(day) if a["type"] == "meal")
        s, e = day[i]["time_slot"].split("-")
        h, m = map(int, s.split(":"))
        m += 25
        mid = f"{h + m // 60:02d}:{m % 60:02d}"
        day[i]["time_slot"] = f"{s}-{mid}"
        day.insert(i + 1, {"time_slot": f"{mid}-{e}", "type": "buffer",
                           "details": {"description": "coffee"}})

    def wrong_total(t):
        t["plan"]["budget_summary"]["total_estimated_budget"] += 1000

    def same_restaurant_twice(t):
        p = t["plan"]
        a, r = names(p, 2, "attraction"), names(p, 2, "meal")
        relayout(t, 2, [("attraction", a[0], None), ("meal", r[0], 660),
                        ("attraction", a[1], None), ("meal", names(p, 1, "meal")[1], 1020),
                        ("hotel",)])

    def same_attraction_twice(t):
        p = t["plan"]
        a, r = names(p, 2, "attraction"), names(p, 2, "meal")
        relayout(t, 2, [("attraction", a[0], None), ("meal", r[0], 660),
                        ("attraction", names(p, 1, "attraction")[1], None),
                        ("meal", r[1], 1020), ("hotel",)])

    return {
        "valid_trip_duration": (trip_days, set()),
        "closed_loop_route_structure": (first_day_not_from_origin,
                                        {"seamless_intercity_transfers"}),
        "seamless_intercity_transfers": (middle_day_elsewhere, set()),
        "validated_accommodation": (hotel_price, set()),
        "validated_attractions": (ticket_price, set()),
        "validated_meals": (meal_price, set()),
        "validated_transportation": (leg_price, set()),
        "traceable_accommodation": (last_day_accommodation, set()),
        "ends_with_accommodation": (day_not_ending_at_hotel, set()),
        "essential_meal_coverage": (no_dinner, set()),
        "essential_attraction_coverage": (one_attraction, set()),
        "no_time_overlaps": (overlap, set()),
        "reasonable_transfer_time": (slow_transfer, set()),
        "attraction_visit_within_opening_hours": (closes_early, set()),
        "dining_within_service_hours": (restaurant_closes_early, set()),
        "avoidance_of_closure_days": (closed_that_day, set()),
        "reasonable_duration_at_attractions": (short_visit, set()),
        "reasonable_meal_duration": (short_meal, set()),
        "cost_calculation_correctness": (wrong_total, set()),
        "diverse_meal_options": (same_restaurant_twice, set()),
        "diverse_attraction_options": (same_attraction_twice, set()),
    }


MUTATIONS = _mutations()


def test_every_checkpoint_has_a_breaking_itinerary():
    assert set(MUTATIONS) == ALL and len(ALL) == 21


@pytest.mark.parametrize("checkpoint", sorted(MUTATIONS))
def test_breaking_one_rule_fails_exactly_that_checkpoint(t, checkpoint):
    mutate, coupled = MUTATIONS[checkpoint]
    mutate(t)
    bad, v = failed(t["plan"], t["entry"]["meta_info"], t["db"])
    # closed loop cannot break alone: the location chain from the origin then breaks too
    assert bad == {checkpoint} | coupled, v.checkpoints
    dim = next(d for d, ns in DIMENSIONS.items() if checkpoint in ns)
    assert v.dimension_scores[dim] == 0
    assert sum(v.dimension_scores.values()) == 7
    assert v.case_acc == 0


def test_the_commonsense_score_is_the_count_of_whole_dimensions_over_eight(t):
    MUTATIONS["validated_meals"][0](t)
    MUTATIONS["no_time_overlaps"][0](t)
    v = score_travel(t["plan"], t["entry"]["meta_info"], t["db"])
    assert float(v.commonsense) == 6 / 8
    assert float(v.composite) == (6 / 8 + v.personalized_score) / 2


PLAN_ONLY = sorted(k for k in MUTATIONS if k not in {
    "valid_trip_duration", "attraction_visit_within_opening_hours",
    "dining_within_service_hours", "avoidance_of_closure_days"})


@pytest.fixture(scope="module")
def on_disk(tmp_path_factory):
    from planning_core.validators.deepplanning.tasks import Task

    task = travel(0, 3)
    folder = tmp_path_factory.mktemp("dp") / "id_3"
    task["db"].write(folder)
    entry = task["entry"]
    return Task("travel", entry["id"], entry["query"], entry["meta_info"], folder)


@pytest.mark.parametrize("checkpoint", PLAN_ONLY)
def test_an_agent_breaking_one_rule_loses_exactly_that_checkpoint(on_disk, checkpoint):
    """The faulty oracle: it answers through the agent loop with the oracle's itinerary
    broken in one rule."""
    import json as _json

    from planning_core.validators.deepplanning.agent import run_episode, score_episode
    from planning_core.validators.deepplanning.chat_tools import ScriptedToolModel

    t = travel(0, 3)
    mutate, coupled = MUTATIONS[checkpoint]
    mutate(t)
    agent = ScriptedToolModel(lambda m, tools: {"content": _json.dumps(t["plan"])}, "faulty")
    score = score_episode(on_disk, run_episode(agent, on_disk))
    lost = {k for k, v in score["checkpoints"].items() if not v["passed"]}
    assert lost == {checkpoint} | coupled
    assert score["commonsense"] == 7 / 8
