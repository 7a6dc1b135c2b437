"""The itinerary's cost, computed from its items in integer cents (paper line 57: "itemized
costs and a final budget summary"; Table 7's cost calculation accuracy).  Shared by the
cost checkpoint and the budget constraint, in both scoring modes.
"""
from __future__ import annotations

from planning_core.validators.deepplanning.travel_plan import Plan, money

__all__ = ["plan_cost", "loose_cents", "positive_int"]


def positive_int(v: object, default: int) -> int:
    """A count from a task's meta (travellers, rooms, days); ``default`` if unreadable."""
    if isinstance(v, bool):
        return default
    try:
        n = int(v)
        return n if 0 < n < 10 ** 6 else default
    except (TypeError, ValueError, OverflowError):
        return default


def plan_cost(plan: Plan, meta: dict, mode: str = "paper") -> tuple[int | None, list[str]]:
    """The trip's cost in cents from the itinerary's items, and what could not be read.

    Paper: every intercity leg x people, each night's room x rooms, meals and tickets x
    people, each local ride x cars (4 people a car); an unreadable or negative cost makes
    the total unknown (``None``).  Released (``check_budget_accuracy``): a cost is whatever
    ``float()`` reads, falsy costs are skipped, unreadable ones too, a day's intercity cost is
    its first leg whose cost reads (if positive), a room price is the first truthy of
    ``price``, ``price_per_night``, ``cost``; an infinite or NaN cost makes the total
    unknown (the released total becomes inf/nan and every comparison with it fails)."""
    people, rooms = positive_int(meta.get("people_number"), 1), positive_int(meta.get("room_number"), 1)
    cars = max(1, (people + 3) // 4)
    total, bad = 0, []
    unknown = False

    def released_value(value: object) -> int | None:
        nonlocal unknown
        if not value:
            return None
        try:
            x = float(value)
        except (TypeError, ValueError, OverflowError):
            return None   # the released bare except skips an integer beyond float too
        if x != x or abs(x) == float("inf") or abs(x) > 1e15:
            unknown = True
            bad.append(f"cost {value!r}")
            return None
        return int(round(x * 100))

    def add(value: object, times: int, what: str) -> None:
        nonlocal total
        if mode == "paper":
            v = money(value)
            if v is None:
                bad.append(f"{what}: cost {value!r}")
                return
        else:
            v = released_value(value)
            if v is None:
                return
        total += v * times

    for i, day in enumerate(plan.days, 1):
        legs = day.of("travel_intercity_public")
        if mode == "paper":
            for leg in legs:
                add(leg.cost, people, f"D{i} intercity")
        else:
            for leg in legs:
                value = leg.details.get("cost", 0)
                try:
                    x = float(value)
                except (TypeError, ValueError, OverflowError):
                    continue
                if x != x or abs(x) == float("inf") or abs(x) > 1e15:
                    unknown = True
                    bad.append(f"D{i} intercity: cost {value!r}")
                elif x > 0:
                    total += int(round(x * 100)) * people
                break
        for a in day.of("meal"):
            add(a.cost, people, f"D{i} {a.name}")
        for a in day.of("attraction"):
            add(a.cost, people, f"D{i} {a.name}")
        for a in day.of("travel_city"):
            add(a.cost, cars, f"D{i} ride")
    for i, day in enumerate(plan.days[:-1], 1):
        acc = day.accommodation or {}
        if mode == "paper":
            price = next((acc.get(k) for k in ("price", "price_per_night", "cost")
                          if acc.get(k) not in (None, "")), None)
        else:
            price = acc.get("price") or acc.get("price_per_night") or acc.get("cost")
        add(price, rooms, f"D{i} hotel")
    if (bad and mode == "paper") or unknown:
        return None, bad
    return total, bad


def loose_cents(v: object) -> int | None:
    """The released reading: anything ``float()`` accepts, rounded to cents."""
    if isinstance(v, bool):
        return None
    try:
        x = float(v)
    except (TypeError, ValueError, OverflowError):
        return None
    x *= 100
    return int(round(x)) if x == x and abs(x) != float("inf") else None
