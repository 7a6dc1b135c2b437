"""The agent loop: a model calls the task's tools until it answers (paper line 176).

Every turn is kept (the messages, as the OpenAI chat format has them).  At most
``max_tool_calls`` tool calls per task (400 in the paper); a model that wants more ends the
task as ``incomplete``.  Travel ends with the itinerary as JSON in the final message (we
ask for the structured format instead of converting free text with an LLM as the paper does
at line 111); shopping ends with the cart the tools built.  :func:`score_episode` turns an
episode into a verdict.

The oracle agents call a few tools like an agent would, then plan with the solver:
:func:`travel_oracle` and :func:`shopping_oracle` return policies for
:class:`~.chat_tools.ScriptedToolModel`.
"""
from __future__ import annotations

import json
from typing import Any

from planning_core.validators.deepplanning.chat_tools import ToolModel
from planning_core.validators.deepplanning.shopping_db import Cart
from planning_core.validators.deepplanning.shopping_gen import case_problem
from planning_core.validators.deepplanning.shopping_problem import prove_cart
from planning_core.validators.deepplanning.shopping_score import score_cart
from planning_core.validators.deepplanning.shopping_tools import ShoppingTools, shopping_schemas
from planning_core.validators.deepplanning.solver import prove_unique
from planning_core.validators.deepplanning.tasks import Task
from planning_core.validators.deepplanning.travel_oracle import build_plan
from planning_core.validators.deepplanning.travel_problem import travel_problem
from planning_core.validators.deepplanning.travel_score import score_travel
from planning_core.validators.deepplanning.travel_tools import TravelTools, travel_schemas

__all__ = ["TRAVEL_SYSTEM", "SHOPPING_SYSTEM", "run_episode", "score_episode",
           "travel_oracle", "shopping_oracle", "MAX_TOOL_CALLS",
           "RELEASED_MODEL_CALLS", "convert_answer"]

MAX_TOOL_CALLS = 400            # the paper's cap: tool calls per task (line 176)
#: the released agents' cap: model calls per task (``run.py --max-llm-calls`` defaults)
RELEASED_MODEL_CALLS = {"travel": 150, "shopping": 400}

#: the conversion step (paper line 111; the release's ``convert_report.py``), in our words
CONVERT_SYSTEM = """You turn a travel plan written as text into JSON, and do nothing else: \
copy every day, time slot, place, number and price exactly as the text gives it; add, drop \
or reinterpret nothing.  Answer with one JSON object between <JSON> and </JSON>:
{"budget_summary": {"transportation": number, "accommodation": number, "meals": number, \
"attractions_and_tickets": number, "other": number, "total_estimated_budget": number, \
"currency": "CNY"},
 "daily_plans": [{"day_number": number, "current_city": string,
   "accommodation": {"name": string, "price_per_night": number},
   "activities": [{"time_slot": "HH:MM-HH:MM", "type": "travel_intercity_public | \
travel_city | attraction | meal | hotel | buffer", "details": {...}}]}]}
details by type: travel_intercity_public {"mode": "train|flight", "number", "from", "to", \
"cost"}; travel_city {"from", "to", "cost"}; attraction {"name", "city", "cost"}; meal \
{"meal_type", "name", "cost"}; hotel {"activity", "name"}; buffer {"description"}.  A \
field the text does not give is left out."""

TRAVEL_SYSTEM = """You are a travel planning agent. Use the tools to look up every fact you \
use (trains, flights, hotels, attractions, restaurants, coordinates, road routes); never \
invent names, times or prices. Plan a minute-level itinerary: no overlapping activities; \
each move between places is a travel_city activity whose duration is the road route's \
from the place left to the place reached (routes are one-way; waiting is a buffer activity); visit attractions within opening hours, not on their \
closing days, for their recommended duration; meals (30-120 min) within restaurant hours, \
two a full day at least 2 h apart; every night ends at the hotel; no restaurant or \
attraction twice; costs are per person (intercity tickets, meals, tickets), per room and \
night (hotel), per car of 4 (local rides).
When you are done, answer with ONLY this JSON object (no other text):
{"budget_summary": {"total_estimated_budget": number, "currency": "CNY"},
 "daily_plans": [{"day_number": 1, "current_city": "from <origin> to <destination>" or \
"<city>",
   "accommodation": {"name": "...", "price_per_night": number} (omit on the last day),
   "activities": [{"time_slot": "HH:MM-HH:MM", "type": "travel_intercity_public | \
travel_city | attraction | meal | hotel | buffer", "details": {...}}]}]}
details by type: travel_intercity_public {"mode": "train|flight", "number", "from", "to", \
"cost"}; travel_city {"from", "to", "cost"}; attraction {"name", "city", "cost"}; meal \
{"meal_type", "name", "cost"}; hotel {"activity", "name"}; buffer {"description"}."""

SHOPPING_SYSTEM = """You are a shopping agent. Use the tools to find the products the user \
asks for (their sizes and address are in their profile), put exactly the right products \
into the cart with add_product_to_cart and apply coupons with add_coupon_to_cart. The cart \
as the tools leave it is your answer; when it is complete, reply with a short summary \
and no tool call."""


def _setup(task: Task) -> tuple[Any, list[dict], str, Any]:
    if task.domain == "travel":
        db = task.travel_db()
        return TravelTools(db), travel_schemas(), TRAVEL_SYSTEM, db
    case = task.shopping_case()
    cart = Cart(case)
    return ShoppingTools(cart), shopping_schemas(), SHOPPING_SYSTEM, cart


def run_episode(model: ToolModel, task: Task, max_tool_calls: int | None = MAX_TOOL_CALLS,
                max_turns: int | None = None) -> dict[str, Any]:
    """Run one task; returns the episode (messages, counts, status, final answer, cart).

    Caps: ``max_tool_calls`` (the paper's, line 176; ``None``: none) and ``max_turns``
    (model calls, the released agents' cap; default: the tool-call cap + 50)."""
    tools, schemas, system, state = _setup(task)
    messages: list[dict[str, Any]] = [{"role": "system", "content": system},
                                      {"role": "user", "content": task.query}]
    calls = turns = 0
    status, final, note = "incomplete", None, None
    if max_tool_calls is None:
        max_tool_calls = 10 ** 9
    max_turns = max_turns or max_tool_calls + 50
    while turns < max_turns:
        turn = model(messages, schemas)
        turns += 1
        msg: dict[str, Any] = {"role": "assistant", "content": turn.get("content")}
        if turn["tool_calls"]:
            msg["tool_calls"] = [{"id": c["id"], "type": "function",
                                  "function": {"name": c["name"], "arguments": c["arguments"]}}
                                 for c in turn["tool_calls"]]
        messages.append(msg)
        if not turn["tool_calls"]:
            status, final = "answered", turn.get("content") or ""
            break
        room = max_tool_calls - calls
        for c in turn["tool_calls"][:room]:
            messages.append({"role": "tool", "tool_call_id": c["id"],
                             "content": tools.call(c["name"], c["arguments"])})
            calls += 1
        skipped = len(turn["tool_calls"]) - max(room, 0)
        if skipped > 0:
            # calls past the budget are not executed and are recorded once, with their
            # count: the first of them is kept in the turn and answered, the rest dropped
            # (a turn of 10^6 calls stores two messages, not 10^6)
            first = msg["tool_calls"][max(room, 0)]
            msg["tool_calls"] = msg["tool_calls"][:max(room, 0) + 1]
            msg["tool_calls_not_executed"] = skipped
            messages.append({"role": "tool", "tool_call_id": first["id"], "content": json.dumps(
                {"error": f"tool-call budget of {max_tool_calls} exhausted: {skipped} "
                          "call(s) of this turn not executed"})})
            note = f"more than {max_tool_calls} tool calls ({skipped} not executed)"
            break
    else:
        note = f"no answer within {max_turns} turns"
    out = {"task": task.task_id, "domain": task.domain, "level": task.meta.get("level"),
           "status": status, "note": note, "tool_calls": calls, "turns": turns,
           "final": final, "messages": messages}
    if task.domain == "shopping":
        # the cart as the tools left it (the released cart.json document)
        out["cart"] = tools.doc if isinstance(tools.doc, dict) else state.to_json()
    return out


def _tagged_json(text: str) -> Any:
    start, end = text.find("<JSON>"), text.find("</JSON>")
    body = text[start + 6:end] if 0 <= start < end else text
    return json.loads(body)


def convert_answer(model: ToolModel, text: str, attempts: int = 3) -> tuple[Any, list[dict]]:
    """Free text -> itinerary JSON with ``model`` (the paper's conversion step, line 111):
    up to ``attempts`` tries until the reply holds a JSON object (between ``<JSON>`` tags
    or whole).  Returns the object (``None`` if no try gave one) and every try, kept."""
    tries: list[dict] = []
    for n in range(attempts):
        turn = model([{"role": "system", "content": CONVERT_SYSTEM},
                      {"role": "user", "content": text}], [])
        reply = turn.get("content") or ""
        entry: dict[str, Any] = {"attempt": n + 1, "reply": reply}
        try:
            obj = _tagged_json(reply)
            if not isinstance(obj, dict):
                raise ValueError("not a JSON object")
        except (ValueError, RecursionError) as err:
            entry["error"] = str(err)[:300]
            tries.append(entry)
            continue
        entry["ok"] = True
        tries.append(entry)
        return obj, tries
    return None, tries


def score_episode(task: Task, episode: dict[str, Any], mode: str = "paper") -> dict:
    if task.domain == "travel":
        answer = episode.get("final") if episode.get("status") == "answered" else None
        if answer is not None and "converted" in episode:
            # --convert: the converted JSON is the answer (no JSON from it: unparseable)
            answer = episode["converted"] if episode["converted"] is not None else ""
        if answer is None:
            v = score_travel("", task.meta, task.travel_db(), task_id=task.task_id, mode=mode)
            v.parse_error = f"incomplete: {episode.get('note') or episode.get('status')}"
        else:
            v = score_travel(answer, task.meta, task.travel_db(), task_id=task.task_id,
                             mode=mode)
        return v.to_json()
    case = task.shopping_case()
    v = score_cart(episode.get("cart") or {}, case.truth, set(case.by_id),
                   stock={i: p.get("stock_quantity") for i, p in case.by_id.items()},
                   task_id=task.task_id, mode=mode, case=case,
                   completed=episode.get("status") == "answered")
    return dict(v.to_json(), level=task.meta.get("level"),
                cart_valid=cart_valid(task, v.cart_products))


def cart_valid(task: Task, products: list[str]) -> bool | None:
    """Does the cart meet every item's filters, one product per item (then a failed case
    is a missed optimum, taxonomy C)?  ``None`` without a readable structured query."""
    try:
        return _cart_valid(task, products)
    except (KeyError, TypeError, IndexError, AttributeError, ValueError):
        return None   # a spec.json not of our generator's making: the taxonomy stays undecided


def _cart_valid(task: Task, products: list[str]) -> bool | None:
    from planning_core.validators.deepplanning.shopping_gen import _passes

    spec = task.spec()
    if spec is None:
        return None
    case = task.shopping_case()
    by_id = case.by_id
    if len(products) != len(spec["items"]) or any(p not in by_id for p in products):
        return False
    items = list(spec["items"])
    for pid in products:
        match = next((f for f in items if _passes(by_id[pid], f, case.user)), None)
        if match is None:
            return False
        items.remove(match)
    floor = spec.get("floor")
    if floor is not None:
        total = sum(Cart(case).price_of(p) for p in products)
        from planning_core.validators.deepplanning.units import cents
        if total < cents(floor):
            return False
    return True


def _called(messages: list[dict]) -> list[str]:
    return [c["function"]["name"] for m in messages if m.get("role") == "assistant"
            for c in m.get("tool_calls") or []]


def travel_oracle(task: Task):
    """Look up the legs and the hotels, then answer with the solver's itinerary."""
    meta = task.meta
    dest = meta.get("dest")
    if not (isinstance(meta.get("org"), str) and isinstance(dest, list) and dest and
            isinstance(dest[0], str) and isinstance(meta.get("hard_constraints"), dict) and
            all(isinstance(meta.get(k), str) for k in ("depart_date", "return_date"))):
        raise ValueError(f"task {task.task_id}: the oracle needs meta_info with org, dest "
                         "[city], depart_date, return_date and hard_constraints")
    db = task.travel_db()

    def solve():
        try:
            proof = prove_unique(travel_problem(meta, db))
            return build_plan(meta, db, proof.optimum) if proof.optimum else None
        except (KeyError, TypeError, IndexError, AttributeError, ValueError) as err:
            raise ValueError(f"task {task.task_id}: the oracle plans only tasks made by "
                             f"'deepplanning generate' ({type(err).__name__}: {err})"[:300]) \
                from None

    def policy(messages, tools):
        done = _called(messages)
        mode = "query_flight_info" if any(k.startswith("flight_") for k in
                                          meta.get("hard_constraints", {})) \
            else "query_train_info"
        steps = [(mode, {"origin": meta["org"], "destination": meta["dest"][0],
                         "depDate": meta["depart_date"]}),
                 (mode, {"origin": meta["dest"][0], "destination": meta["org"],
                         "depDate": meta["return_date"]}),
                 ("query_hotel_info", {"destination": meta["dest"][0],
                                       "checkinDate": meta["depart_date"],
                                       "checkoutDate": meta["return_date"]})]
        if len(done) < len(steps):
            name, args = steps[len(done)]
            return {"content": None, "tool_calls": [{"id": f"c{len(done)}", "name": name,
                                                     "arguments": json.dumps(args)}]}
        plan = solve()
        return {"content": json.dumps(plan) if plan else "I cannot plan this trip.",
                "tool_calls": []}
    return policy


def shopping_oracle(task: Task):
    """Read the user, then fill the cart with the solver's optimum (needs ``spec.json``)."""
    case = task.shopping_case()
    spec = task.spec()
    if spec is None:
        raise ValueError(f"case {task.task_id} has no spec.json; the oracle needs the "
                         "structured query our generator writes")
    try:
        proof = prove_cart(case_problem(case, spec))
    except (KeyError, TypeError, IndexError, AttributeError, ValueError) as err:
        raise ValueError(f"case {task.task_id}: the oracle needs the spec.json and catalogue "
                         f"'deepplanning generate' writes ({type(err).__name__}: {err})"[:300]) \
            from None
    steps = [("get_user_info", {})]
    if proof.optimum:
        steps += [("add_product_to_cart", {"product_id": p})
                  for p in proof.optimum["products"]]
        steps += [("add_coupon_to_cart", {"coupon_name": c, "quantity": q})
                  for c, q in proof.optimum["coupons"].items()]

    def policy(messages, tools):
        done = _called(messages)
        if len(done) < len(steps):
            name, args = steps[len(done)]
            return {"content": None, "tool_calls": [{"id": f"c{len(done)}", "name": name,
                                                     "arguments": json.dumps(args)}]}
        return {"content": "The cart is complete.", "tool_calls": []}
    return policy
