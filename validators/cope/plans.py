"""Normalising a plan written by a model onto a CoPE pair's action-head signatures.

An LLM-as-planner answer (CoPE, Huang et al.) is free text: a JSON list, numbered or bulleted
lines, S-expressions, ``pickup(b1, b2)`` calls or sentences ("Pick up block 3 from the
table."), often wrapped in markdown and prose. :func:`normalize_plan` turns it into canonical
steps ``(name arg ...)`` over the pair's action heads and object names, and records every
change it made as a :class:`Rewrite` with a rule name, so that a scorer can report how much
repair an answer needed. It only normalises form; judging the plan is the validator's job, so
an unknown action or a wrong number of arguments inside a clearly plan-shaped line (an
S-expression, a JSON item) is kept as written for the validator to reject.

Which lines are steps:

* S-expression lines ``(a x) (b y)`` are always steps; S-expressions or calls inside other
  text are steps when their head is a known action.
* JSON (or Python-literal) lists of strings, of ``[name, args...]`` lists or of
  ``{"action": ..., "args": [...]}`` objects give one step per element.
* A list item (``1.``, ``Step 1:``, ``-``, ``*``) is a step when it starts, after a few
  lead-in words ("First,", "Then"), with an action name.
* An unmarked line is a step only when it is *entirely* an action: a known action name
  followed by exactly the head's number of arguments, all of them objects of the problem
  (when objects are known). Prose such as "Take note that ..." therefore stays prose.
* A line holding several actions ("pick up block 1 and stack it on block 2", "a; b",
  "a, then b") is split when every part reads as a step; "it" then means the first
  argument of the previous part.

Words become arguments through :class:`planning_core.validators.cope.naming.ObjectIndex`, which maps
"Block 3", "b3", "3", "block A", "the red block", "living room" or "step 1" onto an object
of the ground-truth problem and never invents a name. Worded steps over typed objects are
put into parameter order by type ("move north from the kitchen to the pantry").

"No plan" claims. ``no_plan_claim`` is True when the answer (outside its step lines) says
that no plan exists, and either no step was extracted, or a *strong* claim ("no valid plan",
"unsolvable", "no solution exists", "the task is impossible", "Plan: none") comes after the
last step, as the verdict of an answer that first tried a plan. Weak words ("impossible",
"cannot be achieved") around real steps are commentary, not a claim: "stacking block 3 first
is impossible, so: 1. ..." is a plan.

Limits: every loop here is linear in the answer, and each ticks the active budget
(:func:`planning_core.limits.tick_active`, a no-op without one): one tick per line, per
token of a step, per S-expression or call, per action-name lookup and per step and rewrite
collected. ``cope eval --method planner`` runs :func:`normalize_plan` under the row's budget,
so a 1 MB answer that takes seconds to read ends as ``unknown`` at the limit.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from planning_core.limits import tick_active
from planning_core.validators.cope.dataset import ActionHead, Pair, pair_objects
from planning_core.validators.cope.extract import ListItem, find_plan_lists, no_plan_phrases
from planning_core.validators.cope.naming import ObjectIndex, squash, type_hint

FILLER = frozenset({
    "the", "a", "an", "on", "onto", "top", "of", "from", "to", "table", "in", "into", "at",
    "with", "towards", "toward", "direction", "block", "blocks", "room", "go", "going",
    "heading", "located", "which", "is", "by", "via", "using", "over", "off", "up", "down",
})
LEAD_IN = frozenset({
    "then", "first", "firstly", "next", "finally", "lastly", "now", "afterwards", "after",
    "that", "second", "secondly", "third", "and", "so", "action", "step", "we", "i", "you",
    "should", "will", "must", "can", "need", "to", "let's", "lets", "let", "us", "please",
    "robot", "agent", "arm",
})

_FENCE = re.compile(r"^\s*(```|~~~)")
_MARKER = re.compile(
    r"^\s*(?:>\s*)*(?:[-*\u2022+]\s+|(?:step|action)\s*(?:#\s*)?\d+\s*[:.)\-\u2013]\s*"
    r"|#?\d+\s*[.):\-\u2013](?!\d)\s*|#\d+\s+|\(\d+\)\s*|\[\d+\]\s*)", re.IGNORECASE)
_SEXPR = re.compile(r"\(([^()]*)\)")
_ONLY_SEXPRS = re.compile(r"\s*(?:\([^()]*\)\s*)+")
_CALL = re.compile(r"(?<![\w-])([A-Za-z][\w-]*)\s*\(([^()]*)\)")
_TOKEN = re.compile(r"[A-Za-z0-9_'-]+|[()]")
_TRAILER = re.compile(r"(?<=[\w)])[.!?](?=\s|$)|\s[-\u2013\u2014]\s|\s#\s|//|\u2014|;")
_SPLIT = re.compile(r";|,?(?<!\s)\s+(?:and\s+)?then\s+|,?(?<!\s)\s+and\s+", re.IGNORECASE)
_LABEL = re.compile(r"^\s*(?:final\s+)?(?:plan|answer|solution)\s*:\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Rewrite:
    """One change made to step ``step_index``: ``original`` became ``result`` by ``rule``."""

    step_index: int
    original: str
    result: str
    rule: str


@dataclass(frozen=True, slots=True)
class NormalizedPlan:
    steps: tuple[str, ...]
    rewrites: tuple[Rewrite, ...]
    no_plan_claim: bool
    unparsed_lines: tuple[tuple[int, str], ...]

    @property
    def text(self) -> str:
        """The steps as a plan file (one ground action per line)."""
        return "".join(step + "\n" for step in self.steps)


@dataclass(frozen=True, slots=True)
class _Step:
    name: str
    args: tuple[str, ...]
    changes: tuple[tuple[str, str, str], ...]  # (original, result, rule)

    def canonical(self) -> str:
        return "(" + " ".join((self.name,) + self.args) + ")"


class _Context:
    """Heads and objects of one call; pure lookups."""

    def __init__(self, heads: tuple[ActionHead, ...], objects: ObjectIndex | None) -> None:
        self.heads = {squash(h.name): h for h in heads}
        self.objects = objects

    def match_action(self, words: list[str]) -> tuple[ActionHead, int] | None:
        tick_active()
        for width in (3, 2, 1):
            if len(words) >= width:
                head = self.heads.get(squash("".join(words[:width])))
                if head is not None:
                    return head, width
        return None

    def hint(self, head: ActionHead | None, position: int) -> str | None:
        if head is None or position >= len(head.params):
            return None
        return type_hint(head.params[position])


def _name_change(raw: str, head: ActionHead | None) -> tuple[str, list[tuple[str, str, str]]]:
    if head is None:
        name = raw.lower()
        return name, ([(raw, name, "action-case")] if name != raw else [])
    if raw == head.name:
        return head.name, []
    rule = "action-case" if raw.lower() == head.name else "action-name-variant"
    return head.name, [(raw, head.name, rule)]


def _structured(ctx: _Context, raw_name: str, raw_args: list[str]) -> _Step:
    """A step written in a formal shape: its arguments are taken one by one, none dropped."""
    head = ctx.heads.get(squash(raw_name))
    name, changes = _name_change(raw_name, head)
    tokens: list[str] = []
    for raw in raw_args:
        if "=" in raw and not raw.startswith("="):
            value = raw.split("=", 1)[1].strip()
            changes.append((raw, value, "keyword-argument"))
            raw = value
        tokens.extend(raw.split())
    args: list[str] = []
    index = 0
    while index < len(tokens):
        tick_active()
        found = None
        if ctx.objects is not None:
            found = ctx.objects.resolve(tokens, index, ctx.hint(head, len(args)))
        if found is None:
            arg = tokens[index].lower()
            if arg != tokens[index]:
                changes.append((tokens[index], arg, "object-case"))
            args.append(arg)
            index += 1
            continue
        if found.rule:
            changes.append((" ".join(tokens[index:index + found.consumed]), found.name,
                            found.rule))
        args.append(found.name)
        index += found.consumed
    return _Step(name, tuple(args), tuple(changes))


_SOURCE, _TARGET = frozenset({"from", "off"}), frozenset({"to", "into", "onto", "towards",
                                                          "toward"})


def _reorder(ctx: _Context, head: ActionHead, args: list[str],
             marks: list[str | None]) -> list[str]:
    """Arguments in parameter order when their types say so ("move north to the pantry").

    Only for typed objects and worded steps, where word order is the writer's, not the
    signature's. Arguments fill the parameters of their type in the order written, except
    that a "from" argument is the first and a "to" argument the last of its type, following
    the heads' convention (``move room1 room2``: from ``room1`` to ``room2``).
    """
    if ctx.objects is None or len(args) != len(head.params):
        return args
    hints = [type_hint(p) for p in head.params]
    kinds = [ctx.objects.type_of(a) for a in args]
    if None in kinds or sorted(kinds) != sorted(hints):
        return args

    def rank(i: int) -> int:
        return 0 if marks[i] in _SOURCE else 2 if marks[i] in _TARGET else 1

    pool = sorted(range(len(args)), key=rank)
    ordered = []
    for hint in hints:
        index = next(i for i in pool if kinds[i] == hint)
        pool.remove(index)
        ordered.append(args[index])
    return ordered


def _worded(ctx: _Context, text: str, strict: bool, pronoun: str | None = None) -> _Step | None:
    """A step written as words: lead-ins, action name, objects among filler words.

    ``pronoun`` is what "it" means here: the first argument of the previous step of the same
    sentence ("pick up block 1 and stack it on block 2"). A parenthesis opened after all
    parameters are filled is a remark and is dropped; one opened earlier holds arguments
    ("move to the pantry (north)").
    """
    changes: list[tuple[str, str, str]] = []
    cut = _TRAILER.search(text)
    if cut:
        dropped = text[cut.start():]
        if re.search(r"\w", dropped):
            changes.append((dropped.strip(), "", "drop-trailing-text"))
        text = text[:cut.start()]
    words = _TOKEN.findall(text)
    start = 0
    while start < min(len(words), 4) and words[start].lower() in LEAD_IN \
            and ctx.match_action(words[start:]) is None:
        start += 1
    found = ctx.match_action(words[start:])
    if found is None:
        return None
    head, width = found
    raw_name = " ".join(words[start:start + width])
    name, name_changes = _name_change(raw_name, head)
    changes[:0] = name_changes
    if start:
        changes.insert(0, (" ".join(words[:start]), "", "drop-lead-in"))
    rest = words[start + width:]
    args: list[str] = []
    marks: list[str | None] = []
    mark: str | None = None
    dropped: list[str] = []
    trailing: str | None = None
    unresolved = 0
    index = 0
    while index < len(rest):
        tick_active()
        found_obj = None
        if ctx.objects is not None:
            found_obj = ctx.objects.resolve(rest, index, ctx.hint(head, len(args)))
        if found_obj is not None:
            original = " ".join(rest[index:index + found_obj.consumed])
            if found_obj.rule:
                changes.append((original, found_obj.name, found_obj.rule))
            args.append(found_obj.name)
            marks.append(mark)
            mark = None
            index += found_obj.consumed
            continue
        token = rest[index].lower()
        if token in "()":
            if token == "(" and ctx.objects is not None and len(args) >= len(head.params):
                trailing = " ".join(rest[index:])
                break
            index += 1
            continue
        if token == "it" and pronoun is not None:
            changes.append((rest[index], pronoun, "resolve-pronoun"))
            args.append(pronoun)
            marks.append(mark)
            mark = None
            index += 1
            continue
        if token in FILLER or (ctx.objects is not None and token in ctx.objects.type_words):
            dropped.append(rest[index])
            mark = token if token in _SOURCE | _TARGET else mark
        elif ctx.objects is not None and len(args) >= len(head.params):
            trailing = " ".join(rest[index:])
            break
        else:
            args.append(token)
            marks.append(mark)
            mark = None
            unresolved += ctx.objects is not None
            if token != rest[index]:
                changes.append((rest[index], token, "object-case"))
        index += 1
    if strict and (unresolved or len(args) != len(head.params)):
        return None
    if dropped:
        changes.append((" ".join(dropped), "", "drop-filler"))
    if trailing:
        changes.append((trailing, "", "drop-trailing-text"))
    ordered = _reorder(ctx, head, args, marks)
    if ordered != args:
        changes.append((" ".join(args), " ".join(ordered), "reorder-by-type"))
    return _Step(name, tuple(ordered), tuple(changes))


def _from_line(ctx: _Context, line: str, marked: bool = False
               ) -> tuple[list[_Step], list[tuple[str, str, str]]]:
    """Steps in one line of text (several for ``(a) (b)`` or "a, then b").

    ``marked`` says the line is known to be a plan step (a JSON element) even without a list
    marker, so the lenient reading of list items applies.
    """
    pre: list[tuple[str, str, str]] = []
    marker = _MARKER.match(line)
    body = line[marker.end():] if marker else line
    if marker:
        pre.append((line.strip(), body.strip(), "strip-list-marker"))
    if "*" in body or "`" in body:
        cleaned = body.replace("*", "").replace("`", "")
        pre.append((body.strip(), cleaned.strip(), "strip-markup"))
        body = cleaned
    body = body.strip()
    if not body:
        return [], pre
    if _ONLY_SEXPRS.fullmatch(body):
        steps = []
        for inner in _SEXPR.findall(body):
            tick_active()
            parts = inner.replace(",", " ").split()
            if parts:
                found = ctx.match_action(parts)
                width = found[1] if found else 1
                steps.append(_structured(ctx, " ".join(parts[:width]), parts[width:]))
        return steps, pre
    labelled = _LABEL.sub("", body)
    if labelled != body:
        pre.append((body, labelled, "strip-label"))
    calls = [m for m in _CALL.finditer(labelled) if squash(m.group(1)) in ctx.heads]
    if calls:
        steps = []
        for call in calls:
            tick_active()
            step = _structured(ctx, call.group(1),
                               [a.strip() for a in call.group(2).split(",") if a.strip()])
            steps.append(_Step(step.name, step.args,
                               ((call.group(0), step.canonical(), "function-call"),)
                               + step.changes))
        return steps, pre
    embedded = [(m.group(0), m.group(1).split()) for m in _SEXPR.finditer(labelled)]
    embedded = [(raw, parts) for raw, parts in embedded if ctx.match_action(parts)]
    # one stripped copy of the line, shared by every step's rewrite: a copy per step made a
    # 56 KB line of 5,000 steps cost 280 MB (issue 19 item 4)
    whole_line = labelled.strip()
    if embedded:
        steps = []
        for raw, parts in embedded:
            tick_active()
            width = ctx.match_action(parts)[1]
            step = _structured(ctx, " ".join(parts[:width]), parts[width:])
            change = (whole_line, raw, "embedded-step")
            steps.append(_Step(step.name, step.args,
                               (change,) + step.changes if raw != whole_line
                               else step.changes))
        return steps, pre
    strict = marker is None and not marked
    pieces = _SPLIT.split(labelled)
    if len(pieces) > 1:
        split: list[_Step | None] = []
        for piece in pieces:
            tick_active()
            before = split[-1] if split else None
            split.append(_worded(ctx, piece, strict,
                                 before.args[0] if before is not None and before.args else None))
        if all(step is not None for step in split):
            return [_Step(step.name, step.args,
                          ((whole_line, piece.strip(), "split-line"),) + step.changes)
                    for step, piece in zip(split, pieces)], pre
    whole = _worded(ctx, labelled, strict)
    return ([whole] if whole is not None else []), pre


def _item_is_action(ctx: _Context, item: ListItem) -> bool:
    if item.name:
        return squash(item.name) in ctx.heads
    words = re.findall(r"[A-Za-z][\w-]*", item.args[0] if item.args else "")
    return any(ctx.match_action(words[i:]) is not None for i in range(min(len(words), 4)))


def _from_item(ctx: _Context, item: ListItem) -> list[tuple[_Step, list[tuple[str, str, str]]]]:
    """Steps of one plan-list element; a string element is read like a list line."""
    if item.name:
        steps, pre = [_structured(ctx, item.name, list(item.args))], []
    else:
        steps, pre = _from_line(ctx, item.args[0], marked=True)
        if not steps:
            parts = item.args[0].replace("(", " ").replace(")", " ").replace(",", " ").split()
            found = ctx.match_action(parts)
            width = found[1] if found else 1
            steps = [_structured(ctx, " ".join(parts[:width]), parts[width:])] if parts else []
    result = []
    for step in steps:
        result.append((step, [(item.original, step.canonical(), "json-item")] + pre))
        pre = []
    return result


def normalize_plan(text: str, pair_or_heads: Pair | Iterable[ActionHead],
                   object_names: Iterable[str] | Mapping[str, str | None] | None = None,
                   description: str | None = None) -> NormalizedPlan:
    """Canonical steps of a model's plan answer, with every rewrite and the no-plan verdict.

    ``pair_or_heads`` is a :class:`Pair` (heads, objects of its ground-truth problem and its
    problem description are then taken from it unless given) or the action heads themselves.
    ``object_names`` may be a mapping name -> type, which enables reordering arguments by type;
    without objects, arguments are only lower-cased.
    """
    if isinstance(pair_or_heads, Pair):
        heads = pair_or_heads.action_heads
        if object_names is None:
            object_names = dict(pair_objects(pair_or_heads)) or None
        if description is None:
            description = pair_or_heads.problem_description
    else:
        heads = tuple(pair_or_heads)
    objects = ObjectIndex(object_names, description) if object_names is not None else None
    ctx = _Context(tuple(heads), objects)

    entries: list[tuple[int, _Step, list[tuple[str, str, str]]]] = []
    blanked = list(text)
    line, counted = 1, 0   # line numbers counted incrementally: linear in the text
    for span in find_plan_lists(text, lambda item: _item_is_action(ctx, item)):
        line += text.count("\n", counted, span.start)
        counted = span.start
        for item in span.items:
            tick_active()
            for step, pre in _from_item(ctx, item):
                entries.append((line, step, pre))
        tick_active(span.end - span.start)
        for index in range(span.start, span.end):
            if blanked[index] != "\n":
                blanked[index] = " "

    unparsed: list[tuple[int, str]] = []
    prose: list[tuple[int, str]] = []
    for number, line in enumerate("".join(blanked).splitlines(), start=1):
        tick_active()
        if not line.strip() or _FENCE.match(line) or line.lstrip().startswith(";"):
            continue
        found, pre = _from_line(ctx, line)
        if not found:
            unparsed.append((number, line.strip()))
            prose.append((number, line))
            continue
        for step in found:
            entries.append((number, step, list(pre)))
            pre = []
    entries.sort(key=lambda entry: entry[0])

    steps: list[str] = []
    rewrites: list[Rewrite] = []
    for index, (_, step, pre) in enumerate(entries):
        tick_active(1 + len(step.args))
        steps.append(step.canonical())
        for original, result, rule in list(pre) + list(step.changes):
            tick_active()
            rewrites.append(Rewrite(index, original, result, rule))

    if steps:
        last = max(entry[0] for entry in entries)
        strong, _ = no_plan_phrases(line for number, line in prose if number > last)
        claim = strong
    else:
        strong, weak = no_plan_phrases(line for _, line in prose)
        claim = strong or weak
    return NormalizedPlan(tuple(steps), tuple(rewrites), claim, tuple(unparsed))
