"""APB's five settings built from tool sets, deterministic by seed, and Table 1 from results.

Line numbers refer to ``/work/shared/seeds/001_25509288ef9c2098.txt`` (the APB paper).

* **holistic** (lines 61-67; 1,109 cases): a request about one tool domain, joined with other
  services' tools when the drawn length needs more calls than the domain has (:func:`_pool`):
  a target length drawn from Table 10's buckets (line 856), required output types added
  (the domain's first) until their chains need that many calls (an output that would
  overshoot the target by more than one call is passed over), the user items an optimal chain needs (backward from the outputs,
  one maker drawn per needed type), a request in one of several user phrasings, sometimes
  a query constraint (:func:`_constrain`); kept only when the solver proves it solvable
  with two or more calls; its optimal chain is the reference.
* **stepwise** (lines 69-79; 900 cases, 300 for each k in {1, 2, 3}): a holistic task, a
  prefix of its reference chain, k.
* every holistic request states the values it names per call (``intent``: the reference
  calls' arguments that are user items), so E1 is decided on these sets.
* **extraneous** (lines 81-83, 709-727; 1,500 cases: 150 holistic and 150 step-wise bases,
  each with n_e in {2, 4, 6, 8, 10} distractors): each distractor copies the inputs of a
  tool of the task (same scenario) under a close name and description and makes a fresh
  data type nothing consumes, so relevance analysis (:func:`.relevance.relevant_tools`)
  proves it useless: the relevant tools are the same with and without the distractors and
  none of them is relevant; a relevant-free call can be dropped from any chain, so no chain
  needs one. The task lists them in ``extraneous``: a call of one is E5 (line 718).
* **broken** (lines 85-87, 696-707; 300 cases): a holistic task, a call j of its reference
  chain whose tool is broken, the prefix ending with that call (it returned an error) and a
  replacement tool: same inputs and outputs, another name (a synonym of the verb, not a
  suffix; Figure 13).
* **unsolvable** (lines 89-91, 479-487; 400 cases: 100 holistic bases times four kinds):
  contradictory constraints (every maker of a required output forbidden), tool removal
  (every maker removed), information missing (the items of a needed input type dropped),
  inaccessible visual evidence (those items kept but marked as unreadable images, Figure
  17). Each variant is kept only when the solver proves it unsolvable *and* names the
  intended kind (:mod:`.feasibility`).

Counts are the paper's times ``scale``; domains are taken round-robin. Checking a case and
Table 1 are in :mod:`.apb_report`.
"""
from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from pathlib import Path

from planning_core.result import Status
from planning_core.validators.toolplans.context import TaskContext
from planning_core.validators.toolplans.feasibility import plan_calls
from planning_core.validators.toolplans.relevance import relevant_tools
from planning_core.validators.toolplans.settings import PAPER_COUNTS, SETTINGS
from planning_core.validators.toolplans.spec import Tool, ToolTask, parse_task, read_tools

__all__ = ["KIND_COLUMNS", "N_E", "extraneous_bases", "PAPER_COUNTS", "SETTINGS", "build_sets", "distractors",
           "holistic_bases", "length_buckets", "load_domains", "replacement_tool", "task_to_json", "tool_to_json",
           "unsolvable_variants"]

#: the solver the generator proves solvability and optima with (in-process A* with LM-cut,
#: each independent service of a request searched alone (:mod:`.split`); 60 s CPU limit per
#: proof; none of 222 requests measured took 2 s, and the full-scale sets take 63 s CPU)
GEN_ENGINE = "internal"
N_E = (2, 4, 6, 8, 10)               # line 83
KIND_COLUMNS = {"contradictory_constraints": "Conf", "missing_input": "Info",
                "missing_tool": "Tool", "visual_missing": "Vis"}   # Table 1


# ------------------------------------------------------------------ JSON round trip

def tool_to_json(t: Tool) -> dict:
    props, required = {}, []
    for p in t.params:
        schema: dict = {}
        if p.json_type:
            schema["type"] = p.json_type
        if p.enum is not None:
            schema["enum"] = list(p.enum)
        elif p.data_type is None:
            schema["x-free"] = True
        else:
            schema["x-data-type"] = p.data_type
        props[p.name] = schema
        if p.required:
            required.append(p.name)
    note: dict = {"produces": list(t.produces)}
    for key, value in (("requires", list(t.requires)), ("after", list(t.after))):
        if value:
            note[key] = value
    if t.cost != 1:
        note["cost"] = t.cost
    return {"name": t.spelling, "description": t.description,
            "parameters": {"type": "object", "properties": props, "required": required},
            "x-planning": note}


def task_to_json(task: ToolTask) -> dict:
    items = []
    for i in task.items:
        d = {"name": i.name, "type": i.type, "value": i.value}
        if not i.accessible:
            d["accessible"] = False
        if i.modality != "text":
            d["modality"] = i.modality
        items.append(d)
    constraints = []
    for c in task.constraints:
        d = {"kind": c.kind}
        if c.tool is not None:
            d["tool"] = c.tool
        if c.until is not None:
            d["until"] = c.until
        if c.n is not None:
            d["n"] = c.n
        constraints.append(d)
    out = {"id": task.id, "request": task.request, "items": items, "goal": list(task.goal),
           "broken": list(task.broken), "forbidden": list(task.forbidden),
           "constraints": constraints, "tools": [tool_to_json(t) for t in task.tools]}
    if task.extraneous:
        out["extraneous"] = list(task.extraneous)
    if task.intent:
        out["intent"] = [{"tool": t, "arguments": {k: json.loads(v) for k, v in a}}
                         for t, a in task.intent]
    return out


def domains_folder():
    """The installed tool domains (package data ``tool_domains``), else the checkout's
    ``domains/toolplans/tools``: a traversable folder of ``*.json`` tool sets."""
    from importlib import resources

    try:
        folder = resources.files("planning_core.validators.toolplans.tool_domains")
        if any(p.name.endswith(".json") for p in folder.iterdir()):
            return folder
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        pass
    return Path(__file__).resolve().parents[2] / "domains" / "toolplans" / "tools"


def load_domains(root: str | Path | None = None) -> dict[str, tuple[Tool, ...]]:
    """Every tool set by file stem: ``root/tools/*.json`` (or ``root/*.json``) when a folder
    is given, else the tool domains installed with the package (:func:`domains_folder`)."""
    if root is None:
        from planning_core.validators.toolplans.spec import parse_tools
        from planning_core import safe_json

        folder = domains_folder()
        files = sorted((p for p in folder.iterdir() if p.name.endswith(".json")),
                       key=lambda p: p.name)
        return {p.name[:-5]: parse_tools(safe_json.loads(p.read_text(encoding="utf-8")),
                                         file=p.name) for p in files}
    base = Path(root, "tools") if Path(root, "tools").is_dir() else Path(root)
    return {p.stem: read_tools(p) for p in sorted(base.glob("*.json"))}


# ------------------------------------------------------------------ holistic tasks

def _input_types(tools) -> set[str]:
    made = {x for t in tools for x in t.produces}
    used = {p.data_type for t in tools for p in t.data_params} | {r for t in tools for r in t.requires}
    return used - made


def _makers(tools, x):
    return [t for t in tools if x in t.produces]


#: Table 10 (line 856): holistic reference lengths, 434 of 1,109 at 1-10 calls, 590 at
#: 11-20, 85 over 20 (mean 12.48); a target length is drawn from these buckets
LENGTH_BUCKETS = ((434, 3, 10), (590, 11, 20), (85, 21, 28))


def target_length(rng: random.Random) -> int:
    r = rng.randrange(sum(n for n, _, _ in LENGTH_BUCKETS))
    for n, lo, hi in LENGTH_BUCKETS:
        if r < n:
            return rng.randint(lo, hi)
        r -= n
    return LENGTH_BUCKETS[-1][2]


def _closure(pool, goal, inputs, rng, fixed: dict) -> tuple[list[str], set[str]]:
    """Tools and input types a chain for ``goal`` needs: backwards, one maker per needed
    type (``fixed``: makers already drawn, shared with the goals before)."""
    need, seen, given, used = [goal], set(), set(), []
    by_name = {t.name: t for t in pool}
    while need:
        x = need.pop()
        if x in seen:
            continue
        seen.add(x)
        if x in inputs:
            given.add(x)
            continue
        makers = _makers(pool, x)
        if not makers:
            continue
        t = by_name[fixed[x]] if x in fixed else rng.choice(makers)
        fixed[x] = t.name
        used.append(t.name)
        need += [p.data_type for p in t.data_params] + list(t.requires)
        for a in t.after:
            u = by_name.get(a)
            if u is not None:
                used.append(u.name)
                need += [p.data_type for p in u.data_params] + list(u.requires)
    return used, given


_ASKS = ("Could you get me the {goals}? Here is what I have: {values}.",
         "I need the {goals}. Use {values}.",
         "Please prepare the {goals} for me, starting from {values}.",
         "Using {values}, I'd like you to produce the {goals}.",
         "Help me with this: I want the {goals}, and I can give you {values}.",
         "My details are {values}. With them, work out the {goals}.",
         "Can you take care of the {goals}? You'll need {values}.",
         "I'm trying to get the {goals} done today; the information I have is {values}.")


def _listing(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def request_text(goal: list[str], items: list[dict], rng: random.Random) -> str:
    """A request as a user writes it: one of several phrasings, the wanted outputs and the
    values the user has."""
    goals = _listing([f"{g.replace('_', ' ')}" for g in goal])
    values = _listing([str(i["value"]) for i in items]) if items else "nothing else"
    return rng.choice(_ASKS).format(goals=goals, values=values)


#: a domain's tools give chains of about this share of its tool count (measured: travel's 18
#: tools give 16 calls, banking's 8 give 6-8): another service is joined while the pool's
#: estimate is below the target length
_CHAIN_SHARE = 0.75


def _pool(domain, domains, rng, target) -> tuple[list[Tool], list[str]]:
    """The tools a request of ``domain`` may use: the domain's own, and other services'
    (drawn in a seeded order) while the pool is too small for a chain of ``target`` calls
    (a service whose tool names clash with the pool's is passed over). The paper's requests
    span several apps (lines 849-890: 590 of 1,109 need 11-20 calls, 85 more than 20),
    longer than any one of our domains allows. A request over several services is solved
    part by part (:mod:`.split`), so proving its optimum stays as cheap as for one."""
    pool, used = list(domains[domain]), [domain]
    others = sorted(set(domains) - {domain})
    rng.shuffle(others)
    for d in others:
        if len(pool) * _CHAIN_SHARE >= target:
            break
        names = {t.name for t in pool}
        if any(t.name in names for t in domains[d]):
            continue
        pool += list(domains[d])
        used.append(d)
    return pool, used


def make_holistic(domain: str, domains, rng: random.Random, case_id: str,
                  tries: int = 20) -> tuple[ToolTask, list[dict]] | None:
    """A solvable request (see the module docstring) and its optimal chain. ``domains``:
    every tool domain by name (or the domain's own tools only). A target length is drawn
    from the paper's distribution (:func:`target_length`); required outputs are added,
    from the domain and then from other services joined to it, until their chains need
    that many calls."""
    if not isinstance(domains, dict):
        domains = {domain: tuple(domains)}
    for _ in range(tries):
        target = target_length(rng)
        pool, services = _pool(domain, domains, rng, target)
        inputs = _input_types(pool)
        own = {t.name for t in domains[domain]}
        # the domain's own outputs first (the request is about its service), then the others'
        candidates = []
        for mine in (True, False):
            part = sorted({x for t in pool for x in t.produces
                           if (t.data_params or t.requires) and (t.name in own) == mine}
                          - set(candidates))
            rng.shuffle(part)
            candidates += part
        if not candidates:
            return None
        goal, used, given, fixed = [], [], set(), {}
        for g in candidates:
            if len(dict.fromkeys(used)) >= target:
                break
            if g in fixed:
                continue    # already made on the way to another output
            trial = dict(fixed)
            more, need = _closure(pool, g, inputs, rng, trial)
            if not more or (goal and len(dict.fromkeys(used + more)) > target + 1):
                continue    # nothing to call, or it would overshoot the drawn length
            fixed = trial
            goal.append(g)
            used += more
            given |= need
        if not goal:
            continue
        spare = sorted(inputs - given)
        if spare and rng.random() < 0.5:
            given.add(rng.choice(spare))     # an item the request mentions but no chain needs
        numeric = {p.data_type for t in pool for p in t.params
                   if p.json_type in ("integer", "number")}
        # numbers distinct within a request, so a withheld one is never another's value
        numbers = rng.sample(range(2, 31), sum(1 for x in given if x in numeric))
        items = [{"name": f"{x}_{k}", "type": x,
                  "value": numbers.pop() if x in numeric
                  else f"{x.replace('_', ' ')} {rng.randint(1, 999)}"}
                 for k, x in enumerate(sorted(given))]
        data = {"id": case_id, "request": request_text(goal, items, rng), "items": items,
                "goal": goal, "tools": [tool_to_json(t) for t in pool]}
        task = parse_task(data)
        ctx = TaskContext(task)
        feas = ctx.feasibility(engine=GEN_ENGINE, time_limit=60)
        if feas.status is not Status.SOLVED or feas.cost is None or len(feas.plan) < 2:
            continue
        task, ctx, feas = _constrain(task, ctx, feas, rng)
        if feas is None:
            continue
        calls = plan_calls(ctx, feas.plan)
        # the values the request names, per call: the goal stated formally (E1 decidable)
        values = {json.dumps(i.value) for i in task.items}
        intent = []
        for c in calls:
            t = task.tool(c["name"])
            args = tuple(sorted((p.name, json.dumps(c["arguments"][p.name])) for p in t.data_params
                                if json.dumps(c["arguments"].get(p.name)) in values))
            if args and (c["name"], args) not in intent:
                intent.append((c["name"], args))
        return replace(task, intent=tuple(intent)), calls
    return None


def _constrain(task, ctx, feas, rng):
    """Query constraints of the kinds the paper names (E3, "time range, data source,
    format, method", line 617; negative constraints such as "Don't use mouse", Figure 43,
    line 767; a mandated method, Figure 16, line 494): sometimes a forbidden alternative
    tool ("do not use X"), an order between two calls of the chain ("do not call Y before
    X"), a mandated tool the optimal chain would not use ("you must use X"), or a limit on
    the calls of a tool. Each is kept only when the request stays solvable; the reference
    is the optimal chain under it. Returns (task, context, feasibility), feasibility None
    when no chain is left."""
    from planning_core.validators.toolplans.spec import Constraint

    plan_tools = [s_.strip("()").split()[0] for s_ in feas.plan]
    alternatives = sorted(ctx.relevant - set(plan_tools))
    r = rng.random()
    if r < 0.2 and alternatives:
        new = replace(task, forbidden=(rng.choice(alternatives),))
    elif r < 0.4 and len(plan_tools) >= 2:
        a, b = sorted(rng.sample(range(len(plan_tools)), 2))
        if plan_tools[a] == plan_tools[b]:
            return task, ctx, feas
        new = replace(task, constraints=task.constraints + (
            Constraint("not_before", plan_tools[b], until=plan_tools[a]),))
    elif r < 0.5 and alternatives:
        new = replace(task, constraints=task.constraints + (
            Constraint("must_call", rng.choice(alternatives)),))
    elif r < 0.6:
        t = rng.choice(plan_tools)
        new = replace(task, constraints=task.constraints + (
            Constraint("at_most", t, n=plan_tools.count(t)),))
    else:
        return task, ctx, feas
    nctx = TaskContext(new)
    nfeas = nctx.feasibility(engine=GEN_ENGINE, time_limit=60)
    if nfeas.status is not Status.SOLVED or nfeas.plan is None or len(nfeas.plan) < 2:
        return task, ctx, feas      # the constraint would leave no chain: not added
    return new, nctx, nfeas


# ------------------------------------------------------------------ distractors

_ASPECTS = ("history", "preview", "statistics", "settings", "audit_log", "metadata", "policy",
            "logo", "template", "changelog", "faq", "usage_quota")
_VIEW = ("get", "view", "check", "export", "download", "list")


def _noun(name: str) -> str:
    parts = name.split("_")
    return "_".join(parts[1:]) if len(parts) > 1 else name


def distractors(task: ToolTask, n: int, rng: random.Random) -> ToolTask:
    """``task`` with ``n`` distractor tools (listed in ``extraneous``); raises ValueError if
    relevance analysis cannot prove them useless (it always can: their outputs are fresh)."""
    names = {t.name for t in task.tools}
    types = set(task.types)
    rel = sorted(relevant_tools(task)) or sorted(names)
    added: list[Tool] = []
    k = 0
    while len(added) < n:
        if k > 50 * (n + len(rel)):
            raise ValueError(f"cannot name {n} distractors for {task.id}")
        base = task.tool(rel[k % len(rel)])
        k += 1
        aspect = rng.choice(_ASPECTS)
        verb = rng.choice(_VIEW)
        name = f"{verb}_{_noun(base.name)}_{aspect}"
        out = f"{_noun(base.name)}_{aspect}"
        if name in names or out in types or len(name) > 60:
            continue
        names.add(name)
        types.add(out)
        desc = (f"{verb.capitalize()} the {aspect.replace('_', ' ')} of "
                f"{_noun(base.name).replace('_', ' ')} (same service as {base.name}: "
                f"{base.description.rstrip('.')}); informational only, it does not perform "
                f"{base.name.replace('_', ' ')}.")
        added.append(Tool(name, desc, base.params, (out,)))
    new = replace(task, tools=task.tools + tuple(added),
                  extraneous=task.extraneous + tuple(t.name for t in added))
    before, after = relevant_tools(task), relevant_tools(new)
    if before != after or after & set(new.extraneous):
        raise ValueError(f"distractors of {task.id} are relevant: {sorted(after - before)}")
    return new


# ------------------------------------------------------------------ broken tools

_SYNONYMS = {"search": "find", "find": "locate", "get": "fetch", "book": "reserve",
             "create": "make", "send": "dispatch", "read": "load", "list": "enumerate",
             "open": "access", "compute": "calculate", "make": "build", "write": "compose",
             "plan": "chart", "detect": "spot", "load": "ingest", "apply": "add",
             "log": "sign", "sign": "log", "login": "signin", "bank": "account",
             "extract": "pull", "summarize": "condense", "draft": "prepare", "forward": "relay",
             "archive": "store", "filter": "narrow", "add": "put", "checkout": "purchase",
             "track": "follow", "categorize": "classify", "transfer": "move", "export": "output",
             "geocode": "locate", "estimate": "predict", "share": "publish", "sample": "grab",
             "classify": "label", "transcribe": "caption", "answer": "respond",
             "propose": "suggest", "set": "configure", "count": "tally", "parse": "decode",
             "split": "divide", "describe": "caption", "ocr": "recognize_text",
             "calculator": "evaluate_total", "translate": "render", "convert": "transform",
             "print": "output", "compress": "pack", "authenticate": "verify", "upload": "push",
             "delete": "remove", "backup": "copy", "query": "ask", "fetch": "retrieve",
             "lookup": "resolve", "run": "execute", "plot": "draw", "check": "verify",
             "pay": "settle", "cancel": "revoke", "rent": "hire", "convert_currency": "exchange"}


def replacement_tool(task: ToolTask, name: str) -> Tool:
    """A replacement for tool ``name``: same inputs, outputs and annotations, another name
    (the verb replaced by a synonym; Figure 13 asks for no suffix or prefix variants)."""
    t = task.tool(name)
    taken = {u.name for u in task.tools}
    parts = t.name.split("_")
    head = _SYNONYMS.get(parts[0], f"{parts[0]}_via")
    candidates = ["_".join([head] + parts[1:]), "_".join([head, *parts[1:], "service"]),
                  f"alternate_{t.name}"]
    new = next(c for c in candidates if c not in taken)
    return Tool(new, f"{t.description} (another provider)", t.params, t.produces, t.requires,
                t.after, t.cost)


# ------------------------------------------------------------------ unsolvable kinds

def _without_tools(task: ToolTask, gone: set[str]) -> ToolTask:
    gone = set(gone)
    changed = True
    while changed:   # a tool that must come after a removed one goes too
        changed = False
        for t in task.tools:
            if t.name not in gone and set(t.after) & gone:
                gone.add(t.name)
                changed = True
    keep = tuple(t for t in task.tools if t.name not in gone)
    cons = tuple(c for c in task.constraints if c.tool not in gone and c.until not in gone)
    return replace(task, tools=keep, forbidden=tuple(f for f in task.forbidden if f not in gone),
                   broken=tuple(b for b in task.broken if b not in gone), constraints=cons,
                   intent=tuple(i for i in task.intent if i[0] not in gone))


def unsolvable_variants(task: ToolTask, rng: random.Random) -> dict[str, ToolTask]:
    """The four unsolvable variants of a solvable task, each proved unsolvable with its kind
    named by :mod:`.feasibility` (a kind whose construction fails is left out)."""
    out: dict[str, ToolTask] = {}
    g = rng.choice(task.goal)
    makers = {t.name for t in task.tools if g in t.produces}
    cands = {"contradictory_constraints": replace(task, id=f"{task.id}-conf",
                                                  forbidden=tuple(sorted(set(task.forbidden) | makers))),
             "missing_tool": replace(_without_tools(task, makers), id=f"{task.id}-tool")}
    ctx = TaskContext(task)
    needed = set()
    for name in ctx.relevant:
        t = task.tool(name)
        needed |= {p.data_type for p in t.data_params} | set(t.requires)
    types = sorted({i.type for i in task.items} & needed)
    rng.shuffle(types)
    for x in types:
        dropped = replace(task, id=f"{task.id}-info", items=tuple(i for i in task.items if i.type != x))
        if TaskContext(dropped).feasibility(engine=GEN_ENGINE, time_limit=60).kind == "missing_input":
            cands["missing_input"] = dropped
            cands["visual_missing"] = replace(task, id=f"{task.id}-vis", items=tuple(
                replace(i, accessible=False, modality="image") if i.type == x else i
                for i in task.items))
            break
    for kind, variant in cands.items():
        feas = TaskContext(variant).feasibility(engine=GEN_ENGINE, time_limit=60)
        if feas.status is Status.UNSOLVABLE and feas.kind == kind:
            out[kind] = variant
    return out


_PRIVATE = ("the {t} I gave you on the phone this morning", "the {t} from our meeting notes",
            "the {t} I mentioned in my last message", "the {t} my manager sent me")


def withhold(base: ToolTask, variant: ToolTask, kind: str) -> tuple[ToolTask, list[dict]]:
    """The request of an information-missing or visual-missing variant rewritten so that it
    never states what the agent cannot know, and the withheld items with their values. The
    paper rewrites the query "so it refers to a specific parameter that the Agent cannot
    know" (Figure 14, lines 487, 493: a private reference such as "the specific restaurant
    we discussed in the morning meeting"); a visual-missing query refers to the image whose
    file is gone (Figure 17, line 516)."""
    kept = {i.name for i in variant.items if i.accessible}
    gone = [i for i in base.items if i.name not in kept]
    text = base.request
    for k, i in enumerate(gone):
        what = i.type.replace("_", " ")
        phrase = (f"the {what} shown in the attached image" if kind == "visual_missing"
                  else _PRIVATE[k % len(_PRIVATE)].format(t=what))
        # as a whole word: a withheld 3 is not the 3 of "city 139"
        text = re.sub(rf"(?<![\w.]){re.escape(str(i.value))}(?![\w])", phrase, text)
    withheld = [{"name": i.name, "type": i.type, "value": i.value} for i in gone]
    return replace(variant, request=text), withheld


def _alter_possible(broken: ToolTask, ref: list[dict], j: int, replacement: str) -> bool:
    """Whether, after the broken call j of ``ref``, some later reference call of another
    tool is a correct next step (the tool-broken judge's Alter)."""
    from planning_core.validators.toolplans.stepwise import judge_prediction

    ctx = TaskContext(broken)
    for c in ref[j + 1:]:
        if c["name"] in (ref[j]["name"], replacement):
            continue
        rep = judge_prediction(ctx, ref[:j + 1], [c], 1, replacement=replacement,
                               time_limit=60)
        if rep.behaviour == "alter":
            return True
    return False


def with_returns(task: ToolTask, calls: list[dict], rng: random.Random) -> list[dict]:
    """Prefix calls with what each returned (line 73: the trajectory "includes the initial
    query, previous actions, and observed tool returns"): one value per output type, a
    short identifier (``flight_offer`` -> ``FO-4821``) that later arguments may name."""
    out = []
    for c in calls:
        tool = task.tool(c["name"])
        values = {}
        for x in tool.produces if tool is not None else ():
            tag = "".join(w[0] for w in x.split("_")).upper()
            values[x] = f"{tag}-{rng.randint(1000, 9999)}"
        out.append({**c, "returns": values})
    return out


# ------------------------------------------------------------------ the sets

def _counts(scale: float) -> dict[str, int]:
    return {s: max(1, round(n * scale)) for s, n in PAPER_COUNTS.items()}


def holistic_bases(domains: dict[str, tuple[Tool, ...]], seed: int,
                   n: int) -> list[tuple[str, ToolTask, list[dict]]]:
    """``n`` holistic requests (domain, task, reference chain), domains taken round-robin;
    deterministic in ``seed`` (the holistic set of :func:`build_sets`)."""
    names = sorted(domains)
    bases: list[tuple[str, ToolTask, list[dict]]] = []
    k = 0
    while len(bases) < n and k <= 4 * n + 40:
        d = names[k % len(names)]
        made = make_holistic(d, domains, random.Random(f"{seed}:h:{k}"), f"h-{d}-{k:04d}")
        k += 1
        if made is not None:
            bases.append((d, *made))
    return bases


def length_buckets(lengths: list[int]) -> tuple[int, int, int]:
    """Table 10's buckets (line 856): chains of 1-10, 11-20 and more than 20 calls."""
    return (sum(1 for n in lengths if n <= 10), sum(1 for n in lengths if 10 < n <= 20),
            sum(1 for n in lengths if n > 20))


def build_sets(domains: dict[str, tuple[Tool, ...]], *, seed: int = 0,
               scale: float = 1.0) -> list[dict]:
    """Cases of the five settings (rows for ``toolplans batch`` without ``output``); each
    holds ``reference``: the calls a perfect agent makes. Deterministic in ``seed``."""
    counts = _counts(scale)
    bases = holistic_bases(domains, seed, counts["holistic"])
    cases: list[dict] = []
    for d, task, ref in bases:
        cases.append({"id": task.id, "setting": "holistic", "domain": d,
                      "task": task_to_json(task), "reference": ref})

    def stepwise_case(i, d, task, ref, k_steps, rng):
        j = rng.randint(0, max(0, len(ref) - k_steps))
        return {"domain": d, "task": task_to_json(task),
                "prefix": with_returns(task, ref[:j], rng), "k": k_steps,
                "reference": ref[j:j + k_steps]}

    def long_enough(i, k_steps):
        """The first base from ``i`` on whose reference has at least k calls left to
        predict (a shorter one would make the case's own reference wrong: E3, k steps)."""
        for j in range(len(bases)):
            base = bases[(i + j) % len(bases)]
            if len(base[2]) >= k_steps:
                return base
        return bases[i % len(bases)]

    for i in range(counts["stepwise"]):
        k_steps = (1, 2, 3)[i % 3]
        d, task, ref = long_enough(i, k_steps)
        case = stepwise_case(i, d, task, ref, k_steps, random.Random(f"{seed}:s:{i}"))
        cases.append({"id": f"s-{i:04d}-{task.id}-k{k_steps}", "setting": "stepwise", **case})
    per_base = len(N_E)
    n_bases = max(1, counts["extraneous"] // per_base)
    for b in range(n_bases):
        stepwise = b % 2 == 1           # half holistic, half step-wise bases (line 83)
        d, task, ref = long_enough(b, 1 + b % 3) if stepwise else bases[b % len(bases)]
        rng = random.Random(f"{seed}:e:{b}")
        base = stepwise_case(b, d, task, ref, 1 + b % 3, rng) if stepwise else None
        for n_e in N_E:
            noisy = distractors(task, n_e, random.Random(f"{seed}:e:{b}:{n_e}"))
            row = {"id": f"e-{b:04d}-{task.id}-n{n_e}", "setting": "extraneous", "domain": d,
                   "base": "stepwise" if stepwise else "holistic", "n_e": n_e,
                   "task": task_to_json(noisy)}
            if stepwise:
                row.update(prefix=base["prefix"], k=base["k"], reference=base["reference"])
            else:
                row["reference"] = ref
            cases.append(row)
    made, i = 0, 0
    while made < counts["broken"] and i < 4 * counts["broken"] + 40:
        d, task, ref = bases[i % len(bases)]
        rng = random.Random(f"{seed}:b:{i}")
        i += 1
        # every other case breaks a call after which another tool can make progress
        # (Alter possible, Figure 36: "another valid tool"), when the chain has one
        want_alter = made % 2 == 0
        order = list(range(len(ref)))
        rng.shuffle(order)
        picked = None
        for j in order[:6]:
            name = ref[j]["name"]
            alt = replacement_tool(task, name)
            broken = replace(task, tools=task.tools + (alt,), broken=(name,))
            if any(name in t.after for t in task.tools) or \
                    TaskContext(broken).feasibility(engine=GEN_ENGINE, time_limit=60).cost != \
                    TaskContext(task).feasibility(engine=GEN_ENGINE, time_limit=60).cost:
                continue   # a tool must come after the broken one: no stand-in
            alter = _alter_possible(broken, ref, j, alt.name)
            if picked is None or (want_alter and alter and not picked[4]):
                picked = (j, name, alt, broken, alter)
            if alter == want_alter or not want_alter:
                break
        if picked is None:
            continue
        j, name, alt, broken, _ = picked
        made += 1
        cases.append({"id": f"b-{made - 1:04d}-{task.id}", "setting": "broken", "domain": d,
                      "task": task_to_json(broken),
                      "prefix": with_returns(task, ref[:j], rng) + [ref[j]], "k": 1,
                      "broken_tool": name, "replacement": alt.name,
                      "error": f"Error: {name} is unavailable (HTTP 503)",
                      "reference": [{"name": alt.spelling, "arguments": ref[j]["arguments"]}]})
    n_uns = max(1, counts["unsolvable"] // 4)
    done = 0
    b = 0
    while done < n_uns and b < len(bases):
        d, task, ref = bases[b]
        b += 1
        variants = unsolvable_variants(task, random.Random(f"{seed}:u:{b}"))
        if len(variants) < 4:
            continue     # every base gives all four kinds, as in the paper
        done += 1
        for kind, v in sorted(variants.items()):
            row = {"id": f"u-{v.id}", "setting": "unsolvable", "domain": d, "kind": kind}
            if kind in ("missing_input", "visual_missing"):
                v, row["withheld"] = withhold(task, v, kind)
            cases.append({**row, "task": task_to_json(v), "reference": ref})
    return cases


def extraneous_bases(cases: list[dict]) -> list[dict]:
    """For each extraneous base (the five cases ``e-BBBB-...-n2`` .. ``-n10`` of one base),
    the same case without its distractors: ``n_e`` 0, id ``e-BBBB-...-n0``. Table 2's CR_B
    is the correctness rate on these (line 173: "correctness rates in base and extraneous
    settings"); the step-wise bases' prefixes differ from the step-wise set's, so the base
    rate is measured on the very cases the distractors were added to."""
    out, seen = [], set()
    for c in cases:
        if c.get("setting") != "extraneous" or not c.get("n_e"):
            continue
        group = str(c.get("id")).rsplit("-n", 1)[0]
        if group in seen:
            continue
        seen.add(group)
        task = dict(c["task"])
        gone = set(task.pop("extraneous", None) or ())
        task["tools"] = [t for t in task.get("tools") or () if t.get("name") not in gone]
        out.append({**c, "id": f"{group}-n0", "n_e": 0, "task": task})
    return out
