"""Personalized constraints of every released kind, bad input as verdicts, the released
scoring mode's departures, and the units."""
from __future__ import annotations

import copy
import json

import pytest

from planning_core.validators.deepplanning.travel_cost import plan_cost
from planning_core.validators.deepplanning.travel_plan import read_plan
from planning_core.validators.deepplanning.travel_score import (RELEASED_KINDS,
                                                                check_personalized,
                                                                score_travel)
from planning_core.validators.deepplanning.units import cents, clock, fmt_cents, slot
from tests.deepplanning.fixtures import travel


def _plan(numbers=("G1", "G2"), mode="train", hotel="H", meals=("R",), sights=("A",),
          cost=100):
    day = lambda city, acts, acc=True: dict(  # noqa: E731
        current_city=city, activities=acts,
        **({"accommodation": {"name": hotel, "price_per_night": 200}} if acc else {}))
    return {"budget_summary": {"total_estimated_budget": 0}, "daily_plans": [
        day("from X to Y", [{"time_slot": "08:00-09:00", "type": "travel_intercity_public",
                             "details": {"mode": mode, "number": numbers[0], "from": "x",
                                         "to": "y", "cost": cost}}]
            + [{"time_slot": "10:00-11:00", "type": "meal",
                "details": {"name": m, "cost": 50}} for m in meals]
            + [{"time_slot": "12:00-13:00", "type": "attraction",
                "details": {"name": s, "cost": 10}} for s in sights]),
        day("from Y to X", [{"time_slot": "18:00-19:00", "type": "travel_intercity_public",
                             "details": {"mode": mode, "number": numbers[1], "from": "y",
                                         "to": "x", "cost": cost}}], acc=False)]}


def _data(kind):
    fam = kind.split("_", 1)[0]
    return {"flight": {"outbound_flight_no": "G1", "inbound_flight_no": "G2"},
            "train": {"outbound_train_no": "G1", "inbound_train_no": "G2"},
            "hotel": {"hotel_name": "H"}, "restaurant": {"restaurant_name": "R"},
            "attraction": {"attraction_names": ["A"]},
            "budget": {"max_budget": 460}}[fam]


BREAK = {"flight": dict(numbers=("G1", "G9")), "train": dict(numbers=("G9", "G2")),
         "hotel": dict(hotel="H2"), "restaurant": dict(meals=("R2",)),
         "attraction": dict(sights=("B",)), "budget": dict(cost=101)}


@pytest.mark.parametrize("kind", RELEASED_KINDS)
@pytest.mark.parametrize("mode", ("paper", "released"))
def test_every_released_constraint_kind_holds_on_the_reference_and_fails_when_broken(
        kind, mode):
    meta = {"people_number": 1, "room_number": 1}
    fam = kind.split("_", 1)[0]
    kw = {"mode": "flight"} if fam == "flight" else {}
    ok, why = check_personalized(read_plan(_plan(**kw)), kind, _data(kind), meta, mode)
    assert ok is True, why
    ok, why = check_personalized(read_plan(_plan(**kw, **BREAK[fam])), kind, _data(kind),
                                 meta, mode)
    assert ok is False and why


def test_paper_mode_wants_the_outbound_leg_on_day_one_and_the_hotel_every_night():
    meta = {"people_number": 1, "room_number": 1}
    swapped = read_plan(_plan(numbers=("G2", "G1")))
    data = {"outbound_train_no": "G1", "inbound_train_no": "G2"}
    assert check_personalized(swapped, "train_cheapest_direct", data, meta, "paper")[0] is False
    assert check_personalized(swapped, "train_cheapest_direct", data, meta, "released")[0]


def test_an_unknown_constraint_kind_is_undecided_in_paper_mode_and_skipped_in_released():
    t = travel(0, 3)
    meta = t["entry"]["meta_info"]
    meta["hard_constraints"]["weather_sunny"] = {"anything": 1}
    v = score_travel(t["plan"], meta, t["db"])
    assert v.personalized["weather_sunny"][0] is None and v.personalized_score is None
    assert v.case_acc is None and v.composite is None
    r = score_travel(t["plan"], meta, t["db"], mode="released")
    assert r.personalized_score == 1 and r.case_acc == 1


@pytest.mark.parametrize("answer", ["", "I booked everything!", "{not json", "[1, 2]",
                                    '{"daily_plans": 3}', "null"])
def test_an_unreadable_itinerary_is_a_verdict_with_every_checkpoint_failed(answer):
    t = travel(0, 3)
    v = score_travel(answer, t["entry"]["meta_info"], t["db"])
    assert v.parse_error and v.commonsense == 0 and v.case_acc == 0
    assert all(not ok for ok, _ in v.checkpoints.values())
    assert v.to_json()["failed"]


def test_the_itinerary_may_sit_in_a_fenced_block_or_json_tags():
    t = travel(0, 3)
    text = json.dumps(t["plan"])
    for wrapped in (f"Here:\n```json\n{text}\n```", f"<JSON>{text}</JSON>"):
        assert score_travel(wrapped, t["entry"]["meta_info"], t["db"]).case_acc == 1


def _edit(fn, mode="paper"):
    t = travel(0, 3)
    fn(t["plan"])
    v = score_travel(t["plan"], t["entry"]["meta_info"], t["db"], mode=mode)
    return {k for k, (ok, _) in v.checkpoints.items() if not ok}, v


def test_an_unknown_place_fails_sandbox_compliance():
    def fn(p):
        next(a for a in p["daily_plans"][1]["activities"]
             if a["type"] == "attraction")["details"]["name"] = "Hogwarts"
    bad, v = _edit(fn)
    assert "validated_attractions" in bad


@pytest.mark.parametrize("cost", [-5, "abc", None, "12.345", float("nan"), True])
def test_a_negative_or_non_numeric_cost_fails_the_price_and_cost_checks(cost):
    def fn(p):
        next(a for a in p["daily_plans"][1]["activities"]
             if a["type"] == "meal")["details"]["cost"] = cost
    bad, v = _edit(fn)
    assert {"validated_meals", "cost_calculation_correctness"} <= bad
    assert v.to_json()  # serialisable


@pytest.mark.parametrize("time_slot", ["9-10", "25:00-26:00", "", None, 5, "10:61-11:00"])
def test_an_unreadable_time_slot_fails_in_paper_mode(time_slot):
    def fn(p):
        p["daily_plans"][1]["activities"][0]["time_slot"] = time_slot
    bad, _ = _edit(fn)
    assert "no_time_overlaps" in bad
    bad_released, _ = _edit(fn, "released")
    assert "no_time_overlaps" not in bad_released


def test_released_mode_allows_ten_percent_budget_slack_and_150_minute_meals():
    def fn(p):
        p["budget_summary"]["total_estimated_budget"] *= 1.05
    assert "cost_calculation_correctness" in _edit(fn)[0]
    assert "cost_calculation_correctness" not in _edit(fn, "released")[0]
    from planning_core.validators.deepplanning.travel_checks import (Context,
                                                                     reasonable_meal_duration)
    from planning_core.validators.deepplanning.travel_db import TravelDB
    long_meal = _plan()
    long_meal["daily_plans"][0]["activities"][1]["time_slot"] = "10:00-12:10"
    plan = read_plan(long_meal)
    assert reasonable_meal_duration(Context(plan, {}, TravelDB(), "paper"))[0] is False
    assert reasonable_meal_duration(Context(plan, {}, TravelDB(), "released"))[0] is True


def test_released_mode_counts_only_the_first_intercity_leg_of_a_day():
    p = read_plan(_plan())
    doubled = copy.deepcopy(_plan())
    doubled["daily_plans"][0]["activities"].insert(1, dict(
        doubled["daily_plans"][0]["activities"][0], time_slot="09:00-09:30"))
    meta = {"people_number": 2, "room_number": 1}
    assert plan_cost(read_plan(doubled), meta, "paper")[0] == \
        plan_cost(p, meta, "paper")[0] + 20000
    assert plan_cost(read_plan(doubled), meta, "released")[0] == plan_cost(p, meta, "released")[0]


def test_local_rides_cost_per_car_of_four():
    plan = _plan()
    plan["daily_plans"][0]["activities"].append(
        {"time_slot": "13:00-13:10", "type": "travel_city", "details": {"cost": 15}})
    base = plan_cost(read_plan(_plan()), {"people_number": 5, "room_number": 1})[0]
    with_ride = plan_cost(read_plan(plan), {"people_number": 5, "room_number": 1})[0]
    assert with_ride - base == 2 * 1500


def test_units_read_money_in_cents_and_clock_times_in_minutes():
    assert cents("441.0") == 44100 and cents(0.1) == 10 and cents("1,200") == 120000
    assert cents(0.1) + cents(0.2) == cents(0.3)
    for bad in ("12.345", "nan", "inf", "", "¥5", None, True, [1]):
        assert cents(bad) is None
    assert fmt_cents(44100) == "441" and fmt_cents(4410) == "44.1" and fmt_cents(-5) == "-0.05"
    assert clock("24:00") == 1440 and clock("7:05") == 425
    for bad in ("24:01", "12:60", "noon", "", None):
        assert clock(bad) is None
    assert slot("23:00-01:00") == (1380, 1500) and slot("x") is None


def test_released_mode_reads_from_to_case_sensitively_like_the_released_parser():
    t = travel(0, 3)

    def fn(p):
        p["daily_plans"][0]["current_city"] = p["daily_plans"][0]["current_city"].replace(
            "from", "From")
    assert _edit(fn)[0] == set()
    bad, _ = _edit(fn, "released")
    assert "seamless_intercity_transfers" in bad


def _coverage_day(leg_slot, meals, sights, first):
    from planning_core.validators.deepplanning.travel_checks import (
        Context, essential_attraction_coverage, essential_meal_coverage)
    from planning_core.validators.deepplanning.travel_db import TravelDB

    leg = {"time_slot": leg_slot, "type": "travel_intercity_public",
           "details": {"number": "G1", "from": "a", "to": "b", "cost": 1}}
    acts = [{"time_slot": s, "type": "meal", "details": {"name": f"R{i}", "cost": 1}}
            for i, s in enumerate(meals)]
    acts += [{"time_slot": s, "type": "attraction", "details": {"name": f"A{i}", "cost": 1}}
             for i, s in enumerate(sights)]
    day = {"current_city": "from X to Y" if first else "from Y to X",
           "activities": ([leg] + acts) if first else (acts + [leg])}
    other = {"current_city": "Y", "activities": [
        {"time_slot": "12:00-13:00", "type": "meal", "details": {"name": "Z1"}},
        {"time_slot": "18:00-19:00", "type": "meal", "details": {"name": "Z2"}},
        {"time_slot": "09:00-11:00", "type": "attraction", "details": {"name": "B1"}},
        {"time_slot": "14:00-16:00", "type": "attraction", "details": {"name": "B2"}}]}
    days = [day, other] if first else [{"current_city": "from X to Y", "activities": []},
                                        day]
    plan = read_plan({"daily_plans": days})
    out = {}
    for mode in ("paper", "released"):
        ctx = Context(plan, {"org": "X"}, TravelDB(), mode)
        out[mode] = (essential_meal_coverage(ctx)[0],
                     essential_attraction_coverage(ctx)[0])
    return out


def test_coverage_thresholds_paper_follows_the_stated_rules_released_the_code():
    # leaving at 09:30 with one meal: stated rule "before 10:00, no meal"; code "before 9:00"
    r = _coverage_day("09:30-11:00", ["08:00-08:45"], [], first=False)
    assert r["paper"][0] is False and r["released"][0] is True
    # arriving 15:30 with no meal: stated "10:00-16:00 needs one"; code "10:00-15:00"
    r = _coverage_day("13:00-15:30", [], ["16:00-17:00"], first=True)
    assert r["paper"][0] is False and r["released"][0] is True
    # arriving 13:00 without an attraction: stated "before 14:00 needs one"; code "12:00"
    r = _coverage_day("11:00-13:00", ["13:30-14:30"], [], first=True)
    assert r["paper"][1] is False and r["released"][1] is True
    # leaving at 15:00 without an attraction: stated "after 14:00 needs one"; code "16:00"
    r = _coverage_day("15:00-17:00", ["12:00-13:00"], [], first=False)
    assert r["paper"][1] is False and r["released"][1] is True
