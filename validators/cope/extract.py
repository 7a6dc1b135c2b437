"""Finding the plan-shaped parts and the "no plan" verdicts of a model's free-text answer.

Two pieces of :mod:`planning_core.validators.cope.plans` that do not need action heads or objects:

* :func:`find_plan_lists` locates JSON (or Python-literal) lists that hold a plan, wherever
  they sit in the text (inside a markdown fence, after "Plan:", under a ``{"plan": [...]}``
  key), so that line-oriented parsing never sees half a list.
* :func:`no_plan_phrases` tells whether text says that no plan exists, split into *strong*
  verdicts ("no valid plan", "unsolvable", "the task is impossible", "Plan: none") and *weak*
  words ("impossible", "cannot be achieved") that are as often commentary as a verdict.
"""
from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from planning_core import safe_json
from planning_core.limits import tick_active

_STRONG = tuple(re.compile(p, re.IGNORECASE | re.MULTILINE) for p in (
    r"\bno\s+(?:valid\s+|feasible\s+|possible\s+|legal\s+|such\s+|working\s+|correct\s+)?"
    r"(?:plan|solution)s?\b(?!\s+(?:is|was)\s+needed)",
    r"\bunsolvable\b",
    r"\b(?:plan|solution)\s+(?:does\s+not|doesn't|cannot|can't|can\s+not)\s+(?:exist|be\s+found)",
    r"\b(?:task|goal|problem|puzzle|constraints?)\s+(?:is|are)\s+(?:impossible|unsolvable|"
    r"infeasible|unsatisfiable|not\s+(?:possible|achievable|solvable|feasible))",
    r"\bno\s+sequence\s+of\s+actions\b",
    r"^\s*(?:plan\s*:\s*)?(?:none|n/a|null)\s*\.?\s*$",
))
_WEAK = tuple(re.compile(p, re.IGNORECASE) for p in (
    r"\bimpossible\b", r"\binfeasible\b", r"\bunachievable\b", r"\bunsatisfiable\b",
    r"\b(?:cannot|can't|can\s+not)\s+be\s+(?:achieved|accomplished|solved|satisfied|"
    r"completed|done|reached|met)\b",
    r"\bnot\s+(?:possible|achievable|feasible|solvable)\b",
))
_PLAN_KEYS = ("plan", "steps", "actions", "solution")
_NAME_KEYS = ("action", "name", "act", "operator")
_ARG_KEYS = ("args", "arguments", "parameters", "params", "objects")


@dataclass(frozen=True, slots=True)
class ListItem:
    """One element of a plan list: ``name`` is "" when the element is a whole step string."""

    name: str
    args: tuple[str, ...]
    original: str


@dataclass(frozen=True, slots=True)
class PlanList:
    start: int
    end: int
    items: tuple[ListItem, ...]


def no_plan_phrases(lines: Iterable[str]) -> tuple[bool, bool]:
    """(strong, weak): whether the lines contain a strong verdict / a weak no-plan word."""
    text = "\n".join(lines)
    return (any(p.search(text) for p in _STRONG), any(p.search(text) for p in _WEAK))


def _items(value: object) -> tuple[ListItem, ...] | None:
    """The elements of a plan-shaped value, or None when it is not plan-shaped."""
    if isinstance(value, dict):
        for key in _PLAN_KEYS:
            if isinstance(value.get(key), list):
                return _items(value[key])
        return None
    if not isinstance(value, list) or not value:
        return None
    items = []
    for element in value:
        # a Python literal may hold what JSON cannot (bytes, sets): shown by its repr
        original = element if isinstance(element, str) else json.dumps(element, default=repr)
        if isinstance(element, str):
            items.append(ListItem("", (element,), original))
        elif isinstance(element, list) and element and all(isinstance(e, str) for e in element):
            items.append(ListItem(element[0], tuple(element[1:]), original))
        elif isinstance(element, dict):
            name = next((element[k] for k in _NAME_KEYS if isinstance(element.get(k), str)),
                        None)
            args = next((element[k] for k in _ARG_KEYS if isinstance(element.get(k), list)), [])
            if name is None:
                return None
            items.append(ListItem(name, tuple(str(a) for a in args), original))
        else:
            return None
    return tuple(items)


#: Deepest bracket nesting read as a plan list. A plan is ``{"plan": [["a", "x"], ...]}`` at
#: most; deeper structures are not plans, and bounding the depth keeps every reader here
#: linear and free of recursion (``[`` x 2000 used to raise RecursionError in the JSON and
#: literal decoders, and ``[`` x 32k cost a bracket scan to the end from every opening).
MAX_LIST_DEPTH = 16
_OPENING = re.compile(r"[\[{]")


_STRUCTURE = re.compile(r"[\[\]{}'\"]")
_STRING_END = {"'": re.compile(r"\\[\s\S]|'"), '"': re.compile(r'\\[\s\S]|"')}


def matching_bracket(text: str, start: int, quotes: str = "'\"",
                     max_depth: int = MAX_LIST_DEPTH) -> int | None:
    """Index of the bracket closing ``text[start]``, skipping strings quoted with one of
    ``quotes`` (backslash escapes honoured); None when it never closes or the brackets
    nest deeper than ``max_depth``.

    The scan jumps between brackets and quotes with a regular expression, and stops at
    that depth, so the openings scanned far are nested in one another and at most
    ``max_depth`` of them cover any character: trying every opening of a text
    stays linear in the text.
    """
    depth, index = 0, start
    while True:
        found = _STRUCTURE.search(text, index)
        if found is None:
            return None
        char, index = found.group(), found.end()
        if char in "'\"":
            if char not in quotes:
                continue
            while True:   # to the end of the string
                end = _STRING_END[char].search(text, index)
                if end is None:
                    return None
                index = end.end()
                if end.group() == char:
                    break
        elif char in "[{":
            depth += 1
            if depth > max_depth:
                return None
        else:
            depth -= 1
            if depth == 0:
                return found.start()


def _decode(text: str, start: int, decoder: json.JSONDecoder) -> tuple[object, int]:
    """The JSON value at ``start``, else a Python literal (single quotes), else None.

    Only a bracketed span that closes within :data:`MAX_LIST_DEPTH` levels is decoded, so
    no decoder recurses deeply and nothing is decoded twice from one opening.
    """
    close = matching_bracket(text, start)
    if close is None:
        return None, start + 1
    span = text[start:close + 1]   # a failed decode then counts lines in the span only
    try:
        value, end = safe_json.raw_decode(span, strict=decoder.strict)
        return value, start + end
    except json.JSONDecodeError:        # long integers and deep nesting included
        pass
    try:
        return ast.literal_eval(span), close + 1
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None, start + 1


def find_plan_lists(text: str, starts_with_action: Callable[[ListItem], bool]
                    ) -> tuple[PlanList, ...]:
    """Plan-shaped lists in ``text``, left to right, as character spans with their elements.

    A list counts as a plan only when ``starts_with_action`` accepts one of its elements, so
    a list of object names quoted in the prose ("objects: ['b1', 'b2']") is left alone.
    """
    decoder = json.JSONDecoder()
    found: list[PlanList] = []
    position = 0
    while True:
        opening = _OPENING.search(text, position)
        if opening is None:
            return tuple(found)
        start = opening.start()
        tick_active()
        value, end = _decode(text, start, decoder)
        items = _items(value)
        if items is not None and any(starts_with_action(item) for item in items):
            found.append(PlanList(start, end, items))
            position = end
        else:
            position = start + 1


# [^\S\n]: blanks within the line; ``\s*`` crossed lines and was quadratic in blank lines
_FENCE_LINE = re.compile(r"^[^\S\n]*(```|~~~)[\w-]*[^\S\n]*$", re.MULTILINE)


def is_empty_plan(text: str) -> bool:
    """Whether the whole answer is an empty plan: ``[]``, ``{"plan": []}`` (any plan key),
    possibly inside a markdown fence.

    CoPE's planner prompt asks for ``{"plan": [...]}``, and the reference pipeline writes
    that list to a file: an empty list is the empty plan, which counts as "no plan" for a
    pair without one and is validated like any plan otherwise.
    """
    body = _FENCE_LINE.sub("", text or "").strip()
    if not body:
        return False
    value, end = _decode(body, 0, json.JSONDecoder()) if body[0] in "[{" else (None, 0)
    if end != len(body):
        return False
    if value == []:
        return True
    return isinstance(value, dict) and any(value.get(key) == [] for key in _PLAN_KEYS) \
        and not any(value.get(key) for key in _PLAN_KEYS)
