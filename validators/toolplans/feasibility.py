"""Is the request solvable with this tool set, at what optimal cost, and if not, why not.

Order of work: the delete relaxation first (``goal_relaxed_reachable`` on the folded task:
if the required outputs are relaxed-unreachable, no chain exists and no search is needed),
then the core solver (``solve(..., optimal=True)`` on the folded task: in-process A* with an
admissible heuristic, or Fast Downward), which gives the optimal number (or cost) of calls.

When the request is unsolvable, the kind of infeasibility is named by four nested
questions, each answered by relaxed reachability. Without user constraints (forbidden
tools, orders, call limits) the folded task has no deletes and no negative conditions, so
relaxed reachability is exact there:

1. ``missing_tool``: even if the user supplied an item of every input type (a type no
   tool makes), the working tools cannot produce the required outputs (no tool, or only
   broken tools, make something on the way);
2. ``visual_missing``: they can if the inaccessible items (images that failed to load,
   APB's inaccessible visual evidence, paper lines 487 and 499-516) were readable;
3. ``missing_input``: with the items the user really gave, they cannot (some input that
   no tool produces was never supplied);
4. ``contradictory_constraints``: they can, so the user's constraints rule every chain out.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from planning_core.heuristics.relaxed import goal_relaxed_reachable
from planning_core.result import Status
from planning_core.solve import solve
from planning_core.validators.toolplans.compile import compile_task
from planning_core.validators.toolplans.relevance import relevant_tools
from planning_core.validators.toolplans.spec import DataItem, ToolTask

__all__ = ["Feasibility", "INFEASIBILITY_KINDS", "analyse", "plan_calls", "relaxed_solvable"]

INFEASIBILITY_KINDS = ("missing_tool", "visual_missing", "missing_input",
                       "contradictory_constraints")


@dataclass(frozen=True, slots=True)
class Feasibility:
    """``status`` SOLVED (with an optimal ``plan`` of PDDL steps and ``cost``), UNSOLVABLE
    (with ``kind`` and ``detail``) or UNKNOWN (a limit was hit: ``reason``)."""

    status: Status
    cost: float | None = None
    plan: tuple[str, ...] | None = None
    kind: str | None = None
    detail: str = ""
    reason: str = ""
    engine: str = ""

    @property
    def solvable(self) -> bool | None:
        return None if self.status is Status.UNKNOWN else self.status is Status.SOLVED

    def to_dict(self) -> dict:
        return {"status": self.status.value, "optimal_cost": _num(self.cost),
                "optimal_plan": list(self.plan) if self.plan is not None else None,
                "infeasibility": self.kind, "detail": self.detail, "reason": self.reason,
                "engine": self.engine}


def _num(x):
    if x is None or (isinstance(x, float) and math.isinf(x)):
        return None
    return int(x) if float(x).is_integer() else x


def relaxed_solvable(task: ToolTask) -> bool:
    """Relaxed reachability of the required outputs on the folded compilation."""
    from planning_core.ground import ground
    from planning_core.limits import active_budget
    c = compile_task(task, "folded")
    return goal_relaxed_reachable(ground(c.domain, c.problem, budget=active_budget()))


def _with_every_input(task: ToolTask) -> ToolTask:
    """``task`` with one item of every *input type*: a type no tool (working or broken)
    makes and the user does not hold. What a tool should make is never handed out, so a
    broken or absent maker stays a missing tool."""
    made = {x for t in task.tools for x in t.produces}
    held = {i.type for i in task.items if i.accessible}
    names = {i.name for i in task.items}
    extra = []
    for t in task.types:
        if t in held or t in made or t in task.goal:
            continue
        name = f"given-{t}"
        while name in names:
            name += "-x"
        names.add(name)
        extra.append(DataItem(name, t, name))
    return replace(task, items=task.items + tuple(extra))


def _types_reachable(task: ToolTask) -> set[str]:
    """Data types the working tools can make available (delete-free closure, for detail)."""
    have = {i.type for i in task.items if i.accessible}
    called: set[str] = set()
    changed = True
    while changed:
        changed = False
        for t in task.tools:
            if t.name in task.broken or t.name in called:
                continue
            if all(p.data_type in have for p in t.data_params) and set(t.requires) <= have \
                    and set(t.after) <= called:
                called.add(t.name)
                have.update(t.produces)
                changed = True
    return have


def diagnose(task: ToolTask) -> tuple[str, str]:
    """(kind, detail) of an unsolvable task; see the module docstring."""
    free = replace(task, forbidden=(), constraints=())
    open_task = _with_every_input(free)
    if not relaxed_solvable(open_task):
        reach = _types_reachable(open_task)
        needed = set(task.goal)
        for t in task.tools:  # types on some way to the outputs, broken tools included
            needed.update(p.data_type for p in t.data_params)
            needed.update(t.requires)
        causes = []
        for x in sorted(needed - reach):
            makers = sorted(t.name for t in task.tools if x in t.produces)
            if not makers and x in task.goal:
                causes.append(f"no tool makes {x}")
            elif makers and all(m in task.broken for m in makers):
                causes.append(f"{x} is made only by broken {', '.join(makers)}")
        return "missing_tool", "; ".join(causes or [f"no working tool chain produces "
                                                     f"{', '.join(task.goal)}"])
    unseen = [i for i in task.items if not i.accessible]
    if unseen and relaxed_solvable(replace(free, items=tuple(replace(i, accessible=True)
                                                              for i in free.items))):
        return "visual_missing", ("the request needs " + ", ".join(
            f"{i.name} ({i.modality} {i.type})" for i in unseen)
            + ", which no tool can read (the input is missing or inaccessible)")
    if not relaxed_solvable(free):
        have = _types_reachable(free)
        wanted: set[str] = set()
        for name in relevant_tools(free):
            t = free.tool(name)
            wanted.update(p.data_type for p in t.data_params)
            wanted.update(t.requires)
        lacking = sorted(wanted - have - {x for t in free.tools for x in t.produces
                                          if t.name not in free.broken})
        alone = [x for x in lacking if len(lacking) <= 20 and relaxed_solvable(
            replace(free, items=free.items + (DataItem(f"given-{x}", x, x),)))]
        if alone:
            return "missing_input", ("the user never supplied " + " or ".join(alone)
                                     + " (either one would do)" * (len(alone) > 1))
        return "missing_input", ("the user never supplied " + ", ".join(lacking) if lacking
                                 else "required inputs are never available")
    rules = [f"do not call {t}" for t in task.forbidden] + [c.describe() for c in task.constraints]
    return "contradictory_constraints", ("the outputs are reachable, but not under: "
                                         + "; ".join(rules))


def analyse(ctx, *, engine: str = "auto", time_limit: float = 60.0) -> Feasibility:
    """Solvability, optimal cost and infeasibility kind of ``ctx.task`` (``ctx`` a
    :class:`~planning_core.validators.toolplans.context.TaskContext`, which calls this)."""
    c = ctx.folded
    task = ctx.ground if engine != "fd" else None
    if task is not None and not goal_relaxed_reachable(task):
        kind, detail = diagnose(ctx.task)
        return Feasibility(Status.UNSOLVABLE, kind=kind, detail=detail,
                           reason="relaxed unreachable", engine="relaxed")
    # cpu_budget: a verdict must not depend on machine load, so Fast Downward (which auto
    # picks for the largest tool sets) gets a CPU limit, not a wall-clock one
    from planning_core.limits import active_budget, time_left

    row = active_budget()     # the row's budget: the search gets what grounding left of it
    if task is not None:
        # a request over independent services: each part searched alone (split.py)
        from planning_core.validators.toolplans.split import split_plan
        split = split_plan(task, time_limit=time_left(time_limit),
                           budget=row.sub(time_limit) if row is not None else None)
        if split is not None:
            status, plan, cost, reason = split
            if status is Status.SOLVED:
                return Feasibility(Status.SOLVED, cost, plan, engine="internal-split")
            if status is Status.UNSOLVABLE:
                kind, detail = diagnose(ctx.task)
                return Feasibility(Status.UNSOLVABLE, kind=kind, detail=detail,
                                   reason=reason, engine="internal-split")
            return Feasibility(Status.UNKNOWN, reason=reason, engine="internal-split")
    res = solve(c.domain, c.problem, optimal=True, time_limit=time_left(time_limit),
                engine=engine, task=task, cpu_budget=True,
                budget=row.sub(time_limit) if row is not None else None)
    if res.status is Status.SOLVED:
        return Feasibility(Status.SOLVED, res.cost, res.plan, engine=res.engine)
    if res.status is Status.UNSOLVABLE:
        kind, detail = diagnose(ctx.task)
        return Feasibility(Status.UNSOLVABLE, kind=kind, detail=detail, reason=res.reason,
                           engine=res.engine)
    return Feasibility(Status.UNKNOWN, reason=res.reason, engine=res.engine)


_ANY = {"integer": 1, "number": 1, "boolean": True, "array": [], "object": {}, "null": None}


def plan_calls(ctx, plan: tuple[str, ...]) -> list[dict]:
    """PDDL steps as tool calls ``{"name", "arguments"}``: a user item by its value, an
    output item as the reference ``$tool.type``."""
    values = {i.name: i.value for i in ctx.task.items}
    out = []
    for step in plan:
        name, *args = step.strip("()").split()
        tool = ctx.task.tool(name)
        arguments = {}
        for p, a in zip(tool.data_params, args):
            producer = ctx.pddl3.producers.get(a)
            arguments[p.name] = f"${producer}.{ctx.pddl3.item_type[a]}" if producer else values[a]
        for p in tool.params:   # required free literals: the enum's first value, or any
            if p.required and p.data_type is None:
                arguments[p.name] = p.enum[0] if p.enum else _ANY.get(p.json_type, "any")
        out.append({"name": tool.spelling, "arguments": arguments})
    return out
