"""Tool calls -> plan steps of the compiled task, resolving what each argument refers to.

An argument of a data parameter names a data item:

* a literal equal to the value (or the name) of an item the user supplied, preferring an
  item of the parameter's data type;
* a reference to an earlier call's output: ``$2.offer`` (output ``offer`` of call 2),
  ``$2`` (call 2's output of the parameter's type, or its only output),
  ``$search_flights.offer`` (that tool's output), ``$search_flights`` (as ``$2``, by tool)
  or ``$offer`` (the latest call making an ``offer``, else any tool that makes one, else a
  user item of that type); a tool name wins over a type name;
* the output item's own PDDL name (``offer-of-search_flights``).

APB's holistic answers describe arguments in prose (``parameter_description``, paper line
690: "the list of frames returned from Step 1"). A prose value is matched, in this order,
as far as it is decidable: a ``$`` reference or a value equal to an item, as above; a
mention of exactly one step number (``step 2``, ``call 2``, ``#2``) -> that call's output;
of exactly one tool called earlier that makes the parameter's type -> its output (other
tool names, such as the call's own, are prose); of exactly one user item's value -> that
item; of the parameter's data type (``flight offer``) -> the latest maker's output. What
matches none of these is *undecided* (``StepInfo.undecided``): it is read at the type level
as the item of the parameter's type available at the call (an earlier call's output, else
the user's item, else a later call's, as ``$type``), and whether its value is the one the
user meant stays with a judge (E1/E5 at the level of values).

What names nothing stays as written, so the core validator reports an unknown object (a
hallucinated input). Schema faults that PDDL does not see (unknown or missing argument
names, JSON types, enums, calls of forbidden tools) are found here, per call.
"""
from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from planning_core.pddl.plans import PlanStep
from planning_core.validators.toolplans.calls import Call
from planning_core.validators.toolplans.compile import output_object
from planning_core.validators.toolplans.context import TaskContext
from planning_core.validators.toolplans.faults import Fault
from planning_core.validators.toolplans.spec import Param, Tool

__all__ = ["StepInfo", "to_steps", "tool_called"]


@dataclass(frozen=True, slots=True)
class StepInfo:
    """How call ``index`` was read: its tool (None: unknown), the object each data argument
    resolved to (None: nothing), and the JSON-side faults of the call."""

    index: int
    call: Call
    tool: Tool | None
    objects: dict = field(compare=False)
    faults: tuple[Fault, ...] = ()
    undecided: tuple[str, ...] = ()     # prose arguments read only at the type level


def _json_type_ok(value, jtype: str | None) -> bool:
    if jtype is None:
        return True
    if jtype == "string":
        return isinstance(value, str)
    if jtype == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or \
            (isinstance(value, float) and value.is_integer())
    if jtype == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if jtype == "boolean":
        return isinstance(value, bool)
    if jtype == "array":
        return isinstance(value, list)
    if jtype == "object":
        return isinstance(value, dict)
    return value is None


def _same(a, b) -> bool:
    """Values as a user means them: strings ignoring case and surrounding blanks, numbers by
    value, booleans only as booleans."""
    if isinstance(a, str) and isinstance(b, str):
        return a.strip().casefold() == b.strip().casefold()
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return a == b


def tool_called(task, name: str) -> Tool | None:
    """The tool a call names, spelled exactly as declared (paper line 623: "Tool names must
    match exactly; even slight variations are errors"); None: no such tool (E6)."""
    tool = task.tool(name.lower()) if isinstance(name, str) else None
    return tool if tool is not None and name == tool.spelling else None


class _Resolver:
    def __init__(self, ctx: TaskContext, calls: tuple[Call, ...]) -> None:
        self.ctx = ctx
        self.task = ctx.task
        self.calls = calls
        self.tools = [tool_called(ctx.task, c.name) for c in calls]
        self.outputs = ctx.pddl3.producers
        # per data type, the (1-based, increasing) indices of the calls making it; per tool,
        # its first call: "the latest earlier maker" in log time, so reading stays linear
        self.makers: dict[str, list[int]] = {}
        self.first: dict[str, int] = {}
        for k, t in enumerate(self.tools, start=1):
            if t is not None:
                self.first.setdefault(t.name, k)
                for d in t.produces:
                    self.makers.setdefault(d, []).append(k)

    def _earlier(self, dtype, index: int) -> Tool | None:
        """The latest call before call ``index`` making ``dtype``."""
        ks = self.makers.get(dtype, ())
        j = bisect_left(ks, index)
        return self.tools[ks[j - 1] - 1] if j else None

    def _later(self, dtype, index: int) -> Tool | None:
        """The first call after call ``index`` making ``dtype``."""
        ks = self.makers.get(dtype, ())
        j = bisect_right(ks, index)
        return self.tools[ks[j] - 1] if j < len(ks) else None

    def reference(self, ref: str, p: Param, index: int) -> str | None:
        head, _, tail = ref.strip("{}").partition(".")
        head, tail = head.lower(), tail.lower()
        if head.isdigit():
            k = int(head)
            tool = self.tools[k - 1] if 1 <= k <= len(self.calls) else None
        else:
            tool = self.task.tool(head)
        if tool is not None:
            if tail:
                return output_object(tool.name, tail) if tail in tool.produces else None
            if p.data_type in tool.produces:
                return output_object(tool.name, p.data_type)
            return output_object(tool.name, tool.produces[0]) if len(tool.produces) == 1 else None
        if tail or head.isdigit():
            return None
        # $type: the latest earlier call making it, else a later one, else any maker
        anyone = [t for t in self.task.tools if head in t.produces]
        maker = self._earlier(head, index) or self._later(head, index) or \
            (anyone[0] if anyone else None)
        if maker is not None:
            return output_object(maker.name, head)
        for item in self.task.items:
            if item.type == head:
                return item.name
        return None

    def literal(self, value, p: Param) -> str | None:
        matches = [i for i in self.task.items if _same(i.value, value)]
        if not matches and isinstance(value, str):
            matches = [i for i in self.task.items if i.name == value.strip().lower()]
            if not matches and value.strip().lower() in self.outputs:
                return value.strip().lower()
        for i in matches:
            if i.type == p.data_type:
                return i.name
        return matches[0].name if matches else None

    def resolve(self, value, p: Param, index: int) -> str | None:
        if isinstance(value, str) and value.startswith("$"):
            return self.reference(value[1:], p, index)
        obj = self.literal(value, p)
        if obj is None and isinstance(value, str):
            obj = self.returned.get(value.strip().casefold())
            if obj is None and p.data_type is not None:
                obj = self.placeholder(value, p, index)
        return obj

    @property
    def returned(self) -> dict[str, str]:
        """Values the calls are recorded to have returned (a step-wise prefix's tool
        returns, ``Call.returns``; else ``<type> #<k>``, the value the run's prompt shows
        for output ``type`` of call k): value -> that output item."""
        cached = getattr(self, "_returned", None)
        if cached is None:
            cached = {}
            for k, (c, t) in enumerate(zip(self.calls, self.tools), start=1):
                if t is None:
                    continue
                values = c.returns if c.returns else {x: f"{x} #{k}" for x in t.produces}
                for x, v in values.items():
                    if x in t.produces and isinstance(v, (str, int, float)) \
                            and not isinstance(v, bool):
                        cached.setdefault(str(v).strip().casefold(), output_object(t.name, x))
            self._returned = cached
        return cached

    def placeholder(self, value: str, p: Param, index: int) -> str | None:
        """A clear reference to an earlier call's output written as a value (the step-wise
        prompts give no syntax for it, lines 673-677): ``{{find_contact.contact}}``,
        ``<contact_from_step_1>``, "the contact returned by find_contact", "result of step
        1". Read as prose (steps, earlier tools, the data type) when it is marked as a
        placeholder (braces, angle brackets) or says returned/result/output/from step;
        None otherwise (an unknown literal stays a hallucinated input)."""
        text = value.strip()
        inner = re.fullmatch(r"\{\{\s*(.+?)\s*\}\}|<\s*(.+?)\s*>|\$\{\s*(.+?)\s*\}", text)
        if inner:
            body = next(g for g in inner.groups() if g)
            if re.fullmatch(r"[\w.]+", body) and "." in body:
                obj = self.reference(body, p, index)
                if obj is not None:
                    return obj
            text = body.replace("_", " ")
        elif not _MENTION.search(text):
            return None
        low = text.casefold()
        steps = {int(a or b) for a, b in _STEP.findall(low)}
        if len(steps) == 1:
            k = steps.pop()
            return self.reference(str(k), p, index) if 1 <= k < index else None
        obj, decided = self.prose(text, p, index, exact=False)
        return obj if decided else None

    def prose(self, text: str, p: Param, index: int, *,
              exact: bool = True) -> tuple[str | None, bool]:
        """(object, decided) for a described argument; see the module docstring
        (``exact``: try the value as a reference or an item first)."""
        if exact:
            obj = self.resolve(text, p, index)
            if obj is not None:
                return obj, True
        low = text.casefold()
        steps = {int(a or b) for a, b in _STEP.findall(low)}
        if len(steps) == 1:
            return self.reference(str(steps.pop()), p, index), True
        words = set(re.findall(r"[a-z0-9_\-]+", low))
        named = {t.name for t in self.task.tools if t.name in words
                 and self.first.get(t.name, index) < index and p.data_type in t.produces}
        if len(named) == 1:
            return self.reference(named.pop(), p, index), True
        hits = [i for i in self.task.items if isinstance(i.value, (str, int, float))
                and not isinstance(i.value, bool) and str(i.value).strip()
                and re.search(r"(?<![\w])" + re.escape(str(i.value).casefold()) + r"(?![\w])", low)]
        typed = [i for i in hits if i.type == p.data_type]
        if len(typed) == 1 or (not typed and len(hits) == 1):
            return (typed or hits)[0].name, True
        if p.data_type and (p.data_type in words or p.data_type.replace("_", " ") in low):
            obj = self.reference(p.data_type, p, index)
            if obj is not None:
                return obj, True
        return self.by_type(p, index), False

    def by_type(self, p: Param, index: int) -> str | None:
        """The item of ``p``'s type at call ``index``: an earlier output, a user item, a
        later output, any maker's (None: the type exists nowhere)."""
        earlier = self._earlier(p.data_type, index)
        if earlier is not None:
            return output_object(earlier.name, p.data_type)
        for item in self.task.items:
            if item.type == p.data_type:
                return item.name
        anyone = [t for t in self.task.tools if p.data_type in t.produces]
        maker = self._later(p.data_type, index) or (anyone[0] if anyone else None)
        return output_object(maker.name, p.data_type) if maker is not None else None

    def step(self, index: int) -> tuple[PlanStep, StepInfo]:
        call, tool = self.calls[index - 1], self.tools[index - 1]
        line = call.line or index
        if tool is None:
            # '?' keeps a name that differs from a tool's only in case from naming its action
            args = tuple(str(v) for v in call.arguments.values())
            return (PlanStep("?" + call.name, args, line, 1, call.text()),
                    StepInfo(index, call, None, {}))
        faults: list[Fault] = []
        text = call.text()

        def fault(kind: str, message: str) -> None:
            faults.append(Fault(kind, index, message, text))
        if tool.name in self.task.forbidden:
            fault("forbidden_tool", f"call {index} uses {tool.name}, which the user forbade")
        if tool.name in self.task.extraneous:
            fault("extraneous_tool", f"call {index} uses {tool.name}, a distractor tool that "
                                     "no chain for this request needs")
        known = {p.name for p in tool.params}
        extra = [key for key in call.arguments if key not in known]
        for key in extra:
            faults.append(Fault("wrong_arguments", index, f"call {index}: {tool.name} has no "
                                f"argument {key!r} (it takes {', '.join(sorted(known)) or 'none'})",
                                text, minor=True))
        objects: dict[str, str | None] = {}
        undecided: list[str] = []
        for p in tool.params:
            if p.name not in call.arguments:
                if p.required:
                    fault("wrong_arguments", f"call {index}: {tool.name} needs the argument "
                                             f"{p.name!r}, which is missing")
                continue
            value = call.arguments[p.name]
            is_ref = isinstance(value, str) and value.startswith("$")
            if call.prose and isinstance(value, str) and not is_ref and p.data_type is None:
                # a described literal: its JSON type is not decidable; an enum member named
                # in it is
                if p.enum is not None and not any(
                        _same(value, e) or (isinstance(e, str) and re.search(
                            r"(?<![\w])" + re.escape(e.casefold()) + r"(?![\w])", value.casefold()))
                        for e in p.enum):
                    undecided.append(p.name)
                continue
            if call.prose and isinstance(value, str) and not is_ref:
                pass  # a described data item: no JSON type to check
            elif not is_ref and not _json_type_ok(value, p.json_type):
                fault("wrong_arguments", f"call {index}: argument {p.name}={json.dumps(value)} "
                                         f"is not of JSON type {p.json_type}")
            if p.enum is not None and not any(_same(value, e) for e in p.enum):
                fault("wrong_arguments", f"call {index}: argument {p.name}={json.dumps(value)} "
                                         f"is not one of {json.dumps(list(p.enum))}")
            if p.data_type is not None:
                if call.prose and isinstance(value, str) and not is_ref:
                    objects[p.name], decided = self.prose(value, p, index)
                    if not decided:
                        undecided.append(p.name)
                else:
                    objects[p.name] = self.resolve(value, p, index)
        args = []
        for p in tool.data_params:
            if p.name in call.arguments:
                obj = objects[p.name]
                args.append(obj if obj is not None else _as_text(call.arguments[p.name]))
        return (PlanStep(tool.name, tuple(args), line, 1, text),
                StepInfo(index, call, tool, objects, tuple(faults), tuple(undecided)))


_STEP = re.compile(r"\b(?:step|call)\s*#?\s*(\d+)\b|#(\d+)\b")
_MENTION = re.compile(r"\b(?:returned|result|results|output|outputs|obtained|from (?:step|call))\b",
                      re.IGNORECASE)


def _as_text(value) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def to_steps(ctx: TaskContext, calls: tuple[Call, ...]) -> tuple[tuple[PlanStep, ...], tuple[StepInfo, ...]]:
    r = _Resolver(ctx, calls)
    pairs = [r.step(i) for i in range(1, len(calls) + 1)]
    return tuple(s for s, _ in pairs), tuple(info for _, info in pairs)
