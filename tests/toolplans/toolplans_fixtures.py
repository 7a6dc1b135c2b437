"""A small travel task used across the toolplans tests, and the reference dataset."""
from __future__ import annotations

from pathlib import Path

from planning_core.validators.toolplans import TaskContext, parse_task

DATASET = Path(__file__).resolve().parents[2] / "domains" / "toolplans"


def tool(name, props, required, produces=(), **note):
    return {"type": "function",
            "function": {"name": name, "description": name.replace("_", " "),
                         "parameters": {"type": "object", "properties": props,
                                        "required": required}},
            "x-planning": {"produces": list(produces), **note}}


def s(data_type=None, **extra):
    out = {"type": "string", **extra}
    if data_type:
        out["x-data-type"] = data_type
    return out


TOOLS = [
    tool("login", {"username": s()}, ["username"], ["auth_token"]),
    tool("search", {"origin": s("city"), "destination": s("city"), "date": s()},
         ["origin", "destination", "date"], ["offer"]),
    tool("book", {"offer": s(), "passenger": s(), "seat": s(enum=["aisle", "window"]),
                  "voucher": s()},
         ["offer", "passenger"], ["booking", "fare"], requires=["auth_token"]),
    tool("pay", {"amount": s("fare"), "card": s()}, ["amount", "card"], ["receipt"]),
    tool("old_pay", {"amount": s("fare")}, ["amount"], ["receipt"]),
    tool("weather", {"city": s("city")}, ["city"], ["forecast"]),
    tool("make_voucher", {}, [], ["voucher"]),
]

TASK = {
    "id": "mini",
    "request": "Book the Paris-Rome flight on 1 May for Ana and pay by card.",
    "items": [{"name": "paris", "type": "city", "value": "Paris"},
              {"name": "rome", "type": "city", "value": "Rome"},
              {"name": "may1", "type": "date", "value": "2025-05-01"},
              {"name": "ana", "type": "passenger", "value": "Ana"},
              {"name": "ana_l", "type": "username", "value": "ana.l"},
              {"name": "visa", "type": "card", "value": "4111"}],
    "goal": ["booking", "receipt"],
    "broken": ["weather"],
    "forbidden": ["old_pay"],
    "constraints": [{"kind": "at_most", "tool": "search", "n": 2},
                    {"kind": "not_before", "tool": "pay", "until": "login"}],
    "tools": TOOLS,
}

VALID = ('login(username="ana.l")\nsearch(origin="Paris", destination="Rome", date="2025-05-01")\n'
         'book(offer=$2.offer, passenger="Ana")\npay(amount=$3.fare, card="4111")')


def mini(**changes) -> TaskContext:
    data = dict(TASK)
    data.update(changes)
    return TaskContext(parse_task(data))
