"""The structured itinerary: the released converted-plan JSON, read into checked values.

The released pipeline has an LLM convert a Markdown plan into JSON (paper line 111; format in
the released ``FORMAT_CONVERT_PROMPT_EN``): ``budget_summary.total_estimated_budget`` and
``daily_plans[]`` with ``current_city`` ("from A to B" on travel days), ``accommodation``
(``name``, ``price_per_night``) and ``activities[]`` of ``time_slot`` "HH:MM-HH:MM",
``type`` (travel_intercity_public, travel_city, attraction, meal, hotel, buffer) and
``details``.  We ask the agent for this JSON directly (no conversion model).

:func:`read_plan` never raises on a model's output: what cannot be read is kept as ``None``
and the checkpoint that needs it fails with a reason.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from planning_core.validators.deepplanning.jsontext import loads
from planning_core.validators.deepplanning.units import cents, slot

__all__ = ["Activity", "Day", "Plan", "read_plan", "extract_json", "from_to"]

_FROM_TO = re.compile(r"from\s+(.+?)\s+to\s+([^,]+?)\s*(?:,|$)", re.IGNORECASE)
_FROM_TO_CASED = re.compile(r"from\s+(.+?)\s+to\s+([^,]+?)\s*(?:,|$)")
_OPEN = re.compile(r"[（(]")
_CLOSE_OR_NEWLINE = re.compile(r"[)）\n]")
#: Longest ``current_city`` read as "from A to B": the pattern backtracks through every
#: ``from`` and blank run (``"from " * 20_000`` took 20 s); a real one is a few words.
MAX_FROM_TO_CHARS = 1000


def _drop_parens(text: str) -> str:
    """``re.sub(r"[（(].*?[)）]", "", text)`` in one pass: that pattern rescanned the rest
    of the line from every unclosed bracket (``"(" * 20_000`` took 3 s)."""
    out, i = [], 0
    while True:
        opening = _OPEN.search(text, i)
        if opening is None:
            out.append(text[i:])
            return "".join(out)
        end = _CLOSE_OR_NEWLINE.search(text, opening.end())
        if end is not None and end.group() != "\n":
            out.append(text[i:opening.start()])
            i = end.end()
        else:   # no bracket closes on this line: every opening up to the newline is text
            stop = end.start() if end is not None else len(text)
            out.append(text[i:stop])
            i = stop
            if end is None:
                return "".join(out)


def from_to(text: object, ignore_case: bool = True) -> tuple[str, str] | None:
    """``'from A to B'`` -> ``('A', 'B')`` (parenthesised parts dropped), else ``None``
    (also for a text over ``MAX_FROM_TO_CHARS``). The released parser is case-sensitive
    (``ignore_case=False``)."""
    if not isinstance(text, str) or len(text) > MAX_FROM_TO_CHARS:
        return None
    m = (_FROM_TO if ignore_case else _FROM_TO_CASED).search(text)
    if not m:
        return None
    return _drop_parens(m.group(1)).strip(), _drop_parens(m.group(2)).strip()


def city(text: object) -> str:
    return _drop_parens(text).strip() if isinstance(text, str) else ""


@dataclass(frozen=True)
class Activity:
    type: str
    time_slot: object            # as written
    span: tuple[int, int] | None  # minutes, None if unreadable
    details: dict[str, Any]

    @property
    def name(self) -> str:
        n = self.details.get("name")
        return n.strip() if isinstance(n, str) else ""

    @property
    def cost(self) -> object:
        return self.details.get("cost")


@dataclass(frozen=True)
class Day:
    current_city: str
    accommodation: dict[str, Any] | None
    accommodation_malformed: bool
    activities: tuple[Activity, ...]
    number: object = None        # day_number as written

    def of(self, kind: str) -> list[Activity]:
        return [a for a in self.activities if a.type == kind]


@dataclass(frozen=True)
class Plan:
    days: tuple[Day, ...]
    total: object                # budget_summary.total_estimated_budget as written
    has_budget_summary: bool

    def all(self, kind: str) -> list[Activity]:
        return [a for d in self.days for a in d.of(kind)]


def _tagged(text: str) -> list[str]:
    """The bodies of ``<JSON>...</JSON>`` blocks, as ``re.findall`` with a lazy body found
    them, in one pass (that pattern rescanned the rest from every unclosed tag)."""
    found, i = [], 0
    while (start := text.find("<JSON>", i)) >= 0:
        end = text.find("</JSON>", start + 6)
        if end < 0:
            break
        found.append(text[start + 6:end])
        i = end + 7
    return found


def _fenced(text: str) -> list[str]:
    """``re.findall(r"```(?:json)?\\s*([\\s\\S]*?)```", text)`` in one pass: there the
    blank run and the lazy body overlapped, so an unclosed fence before blank lines was
    quadratic in them. A later opening cannot close where an earlier one did not."""
    found, i = [], 0
    while (i := text.find("```", i)) >= 0:
        k = i + 3 + 4 * text.startswith("json", i + 3)
        while k < len(text) and text[k].isspace():
            k += 1
        end = text.find("```", k)
        if end < 0:
            break
        found.append(text[k:end])
        i = end + 3
    return found


def extract_json(text: str) -> Any:
    """The JSON object in a model's answer: the whole text, a fenced block, or a
    ``<JSON>...</JSON>`` block.  Raises ``ValueError`` if there is none."""
    candidates = [text]
    candidates += _tagged(text)
    candidates += _fenced(text)
    first, last = text.find("{"), text.rfind("}")
    if 0 <= first < last:
        candidates.append(text[first:last + 1])
    for c in candidates:
        try:
            return loads(c)
        except (json.JSONDecodeError, TypeError):
            continue
    raise ValueError("no JSON object in the answer")


def read_plan(obj: Any) -> Plan:
    """A :class:`Plan` from decoded JSON; raises ``ValueError`` only if ``obj`` is not an
    object with a ``daily_plans`` list."""
    if not isinstance(obj, dict) or not isinstance(obj.get("daily_plans"), list):
        raise ValueError("the itinerary must be a JSON object with a 'daily_plans' list")
    days = []
    for raw in obj["daily_plans"]:
        raw = raw if isinstance(raw, dict) else {}
        acts = []
        raw_acts = raw.get("activities")
        for a in raw_acts if isinstance(raw_acts, list) else []:
            if not isinstance(a, dict):
                acts.append(Activity("", None, None, {}))
                continue
            details = a.get("details") if isinstance(a.get("details"), dict) else {}
            t = a.get("type") if isinstance(a.get("type"), str) else ""
            acts.append(Activity(t.strip(), a.get("time_slot"), slot(a.get("time_slot")),
                                 details))
        accom = raw.get("accommodation")
        malformed = accom is not None and not isinstance(accom, dict) and accom != "-"
        days.append(Day(raw.get("current_city") if isinstance(raw.get("current_city"), str)
                        else "", accom if isinstance(accom, dict) else None, malformed,
                        tuple(acts), raw.get("day_number")))
    summary = obj.get("budget_summary")
    has = isinstance(summary, dict)
    return Plan(tuple(days), summary.get("total_estimated_budget") if has else None, has)


def money(value: object) -> int | None:
    """A cost as written in a plan: a non-negative amount in cents, else ``None``."""
    c = cents(value)
    return c if c is not None and c >= 0 else None
