"""Tool sets and tool-use tasks as data: the JSON an agent framework already has, read once.

A tool is given in the JSON-schema function format that OpenAI-style tool calling and MCP
share, in any of its three wrappings: ``{"type": "function", "function": {...}}`` (Chat
Completions), ``{"name", "description", "parameters"}`` (flat), or MCP's
``{"name", "description", "inputSchema"}``; a file may hold a list of them or an object
``{"tools": [...]}`` (MCP ``tools/list``). What the schema does not say is added by an
optional annotation, the key ``"x-planning"`` of the tool object:

* ``produces``: the data types the tool returns (``["flight_offer"]``);
* ``requires``: data types that must be available beyond the arguments (an auth token);
* ``after``: tools that must have been called before (a login);
* ``cost``: the price of one call (a whole number from 0 to 10^9, default 1; the optimal plan minimises the sum);
* ``inputs``: ``{"param": "data type"}`` for parameters whose type is not their name.

A parameter's *data type* is ``x-data-type`` in its property schema, else ``inputs[param]``,
else the parameter's own name. A parameter with an ``enum``, or marked ``"x-free": true``,
takes a literal the agent may choose freely; every other parameter needs a data item of its
data type that the user supplied or an earlier call produced.

A task names the available data items (name, data type, value), the required outputs (data
types the plan must end up holding), broken and forbidden tools, and constraints. Faults
are :class:`ToolSpecError` with the file, JSON line:column for text that is not JSON, and a
JSON-pointer path for JSON that breaks this format.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from planning_core.errors import PlanningError
from planning_core import safe_json

__all__ = ["Constraint", "DataItem", "Param", "Tool", "ToolSpecError", "ToolTask",
           "load_json", "parse_task", "parse_tools", "read_task", "read_tools"]

JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object", "null")
CONSTRAINT_KINDS = ("not_before", "at_most", "must_call")
#: the largest cost of one call: costs are summed as floats by the planner, and sums of
#: millions of calls of this size stay exact (below 2**53); 1e308 per call summed to
#: infinity and judged a valid chain invalid, 1e400 raised OverflowError
MAX_COST = 10**9
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_\-]*$")
_RESERVED = frozenset({"object", "either", "number", "item", "and", "or", "not", "exists",
                       "forall", "when", "imply", "define", "domain", "problem"})


class ToolSpecError(PlanningError):
    """A tool set or task that is not JSON, or JSON that breaks the tool-spec format."""

    def __init__(self, message: str, *, file: str | None = None, pointer: str | None = None,
                 line: int | None = None, column: int | None = None) -> None:
        if pointer is not None:
            message = f"at {pointer or '/'}: {message}"
        super().__init__(message, file=file, line=line, column=column)
        self.pointer = pointer


@dataclass(frozen=True, slots=True)
class Param:
    """A tool parameter: JSON type (``None``: any), data type (``None``: a free literal)."""

    name: str
    json_type: str | None
    data_type: str | None
    required: bool
    enum: tuple | None = None


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    params: tuple[Param, ...]
    produces: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    cost: int = 1
    declared: str | None = None     # the name as the tool set spells it (``name`` is lower case)

    @property
    def spelling(self) -> str:
        """The exact name a call must use: APB counts any variation, capitalization
        included, as a call of a non-existent tool (E6; paper line 623, Figure 31)."""
        return self.declared or self.name

    def param(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name:
                return p
        return None

    @property
    def data_params(self) -> tuple[Param, ...]:
        """The required parameters that take a data item: the PDDL action's parameters."""
        return tuple(p for p in self.params if p.required and p.data_type is not None)


@dataclass(frozen=True, slots=True)
class DataItem:
    """A data item the user names; ``accessible`` False: it is an image (or other visual
    input) that failed to load or that no tool can read (APB's inaccessible visual
    evidence, paper lines 487, 499-516), so no call can use it."""

    name: str
    type: str
    value: object
    accessible: bool = True
    modality: str = "text"


@dataclass(frozen=True, slots=True)
class Constraint:
    """``not_before``: ``tool`` not called before ``until`` was; ``at_most``: at most ``n``
    calls of ``tool`` (of all tools when ``tool`` is None); ``must_call``: ``tool`` called."""

    kind: str
    tool: str | None = None
    until: str | None = None
    n: int | None = None

    def describe(self) -> str:
        if self.kind == "not_before":
            return f"do not call {self.tool} before {self.until}"
        if self.kind == "at_most":
            return f"at most {self.n} call(s)" + (f" of {self.tool}" if self.tool else " in all")
        return f"call {self.tool}"


@dataclass(frozen=True, slots=True)
class ToolTask:
    """A request: tools, data items, required output types, broken/forbidden tools."""

    id: str
    tools: tuple[Tool, ...]
    items: tuple[DataItem, ...]
    goal: tuple[str, ...]
    broken: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    constraints: tuple[Constraint, ...] = ()
    request: str = ""
    extraneous: tuple[str, ...] = ()     # distractor tools: any call of one is E5
    intent: tuple[tuple[str, tuple], ...] = ()   # (tool, ((arg, value), ...)): formal E1 goal

    def tool(self, name: str) -> Tool | None:
        for t in self.tools:
            if t.name == name:
                return t
        return None

    @property
    def types(self) -> tuple[str, ...]:
        """Every data type mentioned, sorted."""
        found = {i.type for i in self.items} | set(self.goal)
        for t in self.tools:
            found.update(t.produces)
            found.update(t.requires)
            found.update(p.data_type for p in t.params if p.data_type)
        return tuple(sorted(found))


# ------------------------------------------------------------------------- reading

def load_json(text: str, file: str | None = None):
    """``json.loads`` with a located error (line and column of the first bad character)."""
    try:
        return safe_json.loads(text)
    except json.JSONDecodeError as err:
        raise ToolSpecError(f"not JSON: {err.msg}", file=file, line=err.lineno,
                            column=err.colno) from None


def _read(path: str | Path):
    from planning_core.errors import InputError
    from planning_core.pddl.files import read_bytes

    p = Path(path)
    try:   # the shared bounded reader: a regular file only (a FIFO is refused)
        text = read_bytes(p).decode("utf-8")
    except UnicodeDecodeError as err:
        raise ToolSpecError(f"cannot read: {err}", file=str(p)) from None
    except InputError as err:
        raise ToolSpecError(f"cannot read: {err.message}", file=str(p)) from None
    return load_json(text, str(p))


def read_tools(path: str | Path) -> tuple[Tool, ...]:
    return parse_tools(_read(path), file=str(path))


def read_task(path: str | Path, tools: tuple[Tool, ...] | None = None) -> ToolTask:
    """A task file; its tools come from ``tools`` or from the task's own ``"tools"`` key.
    (The package's ``read_task``, :func:`.dataset.read_task`, also takes ``DATASET.json#ID``.)"""
    return parse_task(_read(path), tools, file=str(path))


class _Reader:
    """Walks parsed JSON keeping the JSON pointer of where it is, for errors."""

    def __init__(self, file: str | None) -> None:
        self.file = file

    def fail(self, pointer: str, message: str):
        raise ToolSpecError(message, file=self.file, pointer=pointer)

    def obj(self, value, pointer: str) -> dict:
        if not isinstance(value, dict):
            self.fail(pointer, f"expected an object, found {_kind(value)}")
        return value

    def arr(self, value, pointer: str) -> list:
        if not isinstance(value, list):
            self.fail(pointer, f"expected a list, found {_kind(value)}")
        return value

    def string(self, value, pointer: str) -> str:
        if not isinstance(value, str) or not value:
            self.fail(pointer, f"expected a non-empty string, found {_kind(value)}")
        return value

    def name(self, value, pointer: str, what: str) -> str:
        text = self.string(value, pointer)
        if not _NAME.match(text):
            self.fail(pointer, f"{what} {text!r} must start with a letter and hold only "
                               "letters, digits, '_' and '-'")
        if text.lower() in _RESERVED:
            self.fail(pointer, f"{what} {text!r} is a reserved word of PDDL")
        return text.lower()

    def names(self, value, pointer: str, what: str) -> tuple[str, ...]:
        items = self.arr(value, pointer)
        return tuple(self.name(v, f"{pointer}/{i}", what) for i, v in enumerate(items))


def _kind(value) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def _esc(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def parse_tools(data, file: str | None = None, pointer: str = "") -> tuple[Tool, ...]:
    """Tools from parsed JSON; ``pointer`` is where ``data`` sits in its file (for errors)."""
    r = _Reader(file)
    base = pointer
    if isinstance(data, dict) and "tools" in data:
        data, base = data["tools"], f"{pointer}/tools"
    entries = r.arr(data, base)
    tools: list[Tool] = []
    seen: dict[str, str] = {}
    for i, entry in enumerate(entries):
        tool = _tool(r, entry, f"{base}/{i}")
        if tool.name in seen:
            r.fail(f"{base}/{i}/name", f"tool {tool.name!r} is defined twice (also at "
                                       f"{seen[tool.name]}; names are compared ignoring case)")
        seen[tool.name] = f"{base}/{i}"
        tools.append(tool)
    for i, tool in enumerate(tools):
        for a in tool.after:
            if a not in seen:
                r.fail(f"{base}/{i}", f"tool {tool.name!r} must come after {a!r}, which is not "
                                      "in the tool set")
    return tuple(tools)


def _tool(r: _Reader, entry, ptr: str) -> Tool:
    obj = r.obj(entry, ptr)
    note_obj = obj
    if obj.get("type") == "function" and "function" in obj:
        ptr = f"{ptr}/function"
        obj = r.obj(obj["function"], ptr)
    if "name" not in obj:
        r.fail(ptr, "a tool needs a 'name'")
    name = r.name(obj["name"], f"{ptr}/name", "tool name")
    desc = obj.get("description", "")
    if not isinstance(desc, str):
        r.fail(f"{ptr}/description", f"expected a string, found {_kind(desc)}")
    key = "parameters" if "parameters" in obj else "inputSchema" if "inputSchema" in obj else None
    schema = r.obj(obj[key], f"{ptr}/{key}") if key else {}
    sptr = f"{ptr}/{key}"
    if key and schema.get("type", "object") != "object":
        r.fail(f"{sptr}/type", f"the parameters schema must be of type 'object', "
                               f"not {schema.get('type')!r}")
    props = r.obj(schema.get("properties", {}), f"{sptr}/properties")
    required = schema.get("required", [])
    r.arr(required, f"{sptr}/required")
    for k, q in enumerate(required):
        if q not in props:
            r.fail(f"{sptr}/required/{k}", f"required parameter {q!r} is not in 'properties'")
    note_ptr = f"{ptr}/x-planning" if "x-planning" in obj else f"{ptr[:-9]}/x-planning"
    note = obj.get("x-planning", note_obj.get("x-planning", {}))
    note = r.obj(note, note_ptr)
    unknown = sorted(set(note) - {"produces", "requires", "after", "cost", "inputs"})
    if unknown:
        r.fail(f"{note_ptr}/{_esc(unknown[0])}", f"unknown annotation {unknown[0]!r} (known: "
                                                 "produces, requires, after, cost, inputs)")
    inputs = r.obj(note.get("inputs", {}), f"{note_ptr}/inputs")
    params = []
    for pname, pschema in props.items():
        pptr = f"{sptr}/properties/{_esc(pname)}"
        params.append(_param(r, pname, pschema, pname in required, inputs, pptr, note_ptr))
    cost = note.get("cost", 1)
    if not isinstance(cost, int) or isinstance(cost, bool) or not 0 <= cost <= MAX_COST:
        r.fail(f"{note_ptr}/cost", f"expected a whole number from 0 to {MAX_COST:,}, "
                                   f"found {str(cost)[:40]}")
    return Tool(name, desc, tuple(params),
                produces=r.names(note.get("produces", []), f"{note_ptr}/produces", "data type"),
                requires=r.names(note.get("requires", []), f"{note_ptr}/requires", "data type"),
                after=r.names(note.get("after", []), f"{note_ptr}/after", "tool name"),
                cost=cost, declared=obj["name"] if obj["name"] != name else None)


def _param(r: _Reader, name: str, schema, required: bool, inputs: dict, ptr: str,
           note_ptr: str) -> Param:
    schema = r.obj(schema, ptr)
    jtype = schema.get("type")
    if isinstance(jtype, list):  # ["string", "null"]: the first non-null one
        jtype = next((t for t in jtype if t != "null"), "null")
    if jtype is not None and jtype not in JSON_TYPES:
        r.fail(f"{ptr}/type", f"unknown JSON type {jtype!r} (known: {', '.join(JSON_TYPES)})")
    enum = schema.get("enum")
    if enum is not None:
        enum = tuple(r.arr(enum, f"{ptr}/enum"))
    free = schema.get("x-free", False)
    if not isinstance(free, bool):
        r.fail(f"{ptr}/x-free", f"expected true or false, found {_kind(free)}")
    if enum is not None or free:
        data_type = None
    elif "x-data-type" in schema:
        data_type = r.name(schema["x-data-type"], f"{ptr}/x-data-type", "data type")
    elif name in inputs:
        data_type = r.name(inputs[name], f"{note_ptr}/inputs/{_esc(name)}", "data type")
    else:
        data_type = r.name(name, ptr, "parameter name (used as its data type)")
    return Param(name, jtype, data_type, required, enum)


def parse_task(data, tools: tuple[Tool, ...] | None = None, file: str | None = None) -> ToolTask:
    r = _Reader(file)
    obj = r.obj(data, "")
    if "tasks" in obj and "goal" not in obj:
        r.fail("", "this is a dataset file with several tasks; name one as FILE#ID")
    if tools is None:
        if "tools" not in obj:
            r.fail("", "the task has no 'tools' and no tool set was given")
        tools = parse_tools(obj["tools"], file, pointer="/tools")
    task_id = str(obj.get("id", Path(file).stem if file else "task"))
    items = []
    seen: set[str] = set()
    for i, raw in enumerate(r.arr(obj.get("items", []), "/items")):
        ptr = f"/items/{i}"
        it = r.obj(raw, ptr)
        for key in ("name", "type"):
            if key not in it:
                r.fail(ptr, f"a data item needs a '{key}'")
        name = r.name(it["name"], f"{ptr}/name", "item name")
        if name in seen:
            r.fail(f"{ptr}/name", f"data item {name!r} is given twice")
        seen.add(name)
        accessible = it.get("accessible", True)
        if not isinstance(accessible, bool):
            r.fail(f"{ptr}/accessible", f"expected true or false, found {_kind(accessible)}")
        modality = it.get("modality", "text")
        if not isinstance(modality, str):
            r.fail(f"{ptr}/modality", f"expected a string, found {_kind(modality)}")
        items.append(DataItem(name, r.name(it["type"], f"{ptr}/type", "data type"),
                              it.get("value", it["name"]), accessible, modality))
    if "goal" not in obj:
        r.fail("", "a task needs a 'goal': the data types the user wants as outputs")
    goal = r.names(obj["goal"], "/goal", "data type")
    if not goal:
        r.fail("/goal", "the goal names no output")
    names = {t.name for t in tools}

    def tool_ref(value, ptr):
        n = r.name(value, ptr, "tool name")
        if n not in names:
            r.fail(ptr, f"no tool {n!r} in the tool set")
        return n
    broken = tuple(tool_ref(v, f"/broken/{i}") for i, v in enumerate(r.arr(obj.get("broken", []), "/broken")))
    forbidden = tuple(tool_ref(v, f"/forbidden/{i}")
                      for i, v in enumerate(r.arr(obj.get("forbidden", []), "/forbidden")))
    constraints = []
    for i, raw in enumerate(r.arr(obj.get("constraints", []), "/constraints")):
        constraints.append(_constraint(r, raw, f"/constraints/{i}", tool_ref))
    request = obj.get("request", "")
    if not isinstance(request, str):
        r.fail("/request", f"expected a string, found {_kind(request)}")
    extraneous = tuple(tool_ref(v, f"/extraneous/{i}")
                       for i, v in enumerate(r.arr(obj.get("extraneous", []), "/extraneous")))
    intent = []
    for i, raw in enumerate(r.arr(obj.get("intent", []), "/intent")):
        it = r.obj(raw, f"/intent/{i}")
        if "tool" not in it:
            r.fail(f"/intent/{i}", "an intent needs a 'tool'")
        args = r.obj(it.get("arguments", {}), f"/intent/{i}/arguments")
        intent.append((tool_ref(it["tool"], f"/intent/{i}/tool"),
                       tuple(sorted((str(k), json.dumps(v)) for k, v in args.items()))))
    return ToolTask(task_id, tuple(tools), tuple(items), goal, broken, forbidden,
                    tuple(constraints), request, extraneous, tuple(intent))


def _constraint(r: _Reader, raw, ptr: str, tool_ref) -> Constraint:
    c = r.obj(raw, ptr)
    kind = c.get("kind")
    if kind not in CONSTRAINT_KINDS:
        r.fail(f"{ptr}/kind", f"expected one of {', '.join(CONSTRAINT_KINDS)}, found {kind!r}")
    if kind == "not_before":
        for key in ("tool", "until"):
            if key not in c:
                r.fail(ptr, f"a not_before constraint needs '{key}'")
        return Constraint(kind, tool_ref(c["tool"], f"{ptr}/tool"), tool_ref(c["until"], f"{ptr}/until"))
    if kind == "must_call":
        if "tool" not in c:
            r.fail(ptr, "a must_call constraint needs 'tool'")
        return Constraint(kind, tool_ref(c["tool"], f"{ptr}/tool"))
    n = c.get("n")
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        r.fail(f"{ptr}/n", f"expected a whole number >= 0, found {n!r}")
    tool = tool_ref(c["tool"], f"{ptr}/tool") if c.get("tool") is not None else None
    return Constraint(kind, tool, None, n)
