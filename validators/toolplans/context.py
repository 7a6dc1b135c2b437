"""Everything derived from one task, computed once on first use and shared by the checks.

A batch checks many chains against few tasks; compiling, grounding and solving a task are
the costly parts, so a :class:`TaskContext` keeps them. Relevance analysis lives here too:
a tool is *relevant* when, working backwards from the required outputs (and must-call
tools), it produces a relevant data type or must precede a relevant tool; its inputs then
become relevant (backchaining relevance as in Fast Downward's translator, Helmert 2009,
done on the tool graph, which is exact for this compilation because an output item
depends only on its tool). A call of an irrelevant tool is extraneous.
"""
from __future__ import annotations

from dataclasses import replace
from functools import cached_property

from planning_core.pddl import ast as A
from planning_core.validate import Validator
from planning_core.validators.toolplans.compile import Compiled, compile_task
from planning_core.validators.toolplans.spec import ToolTask

__all__ = ["TaskContext", "relevant_tools"]


def relevant_tools(task: ToolTask) -> frozenset[str]:
    """Working, permitted tools that can contribute to a required output; see above."""
    usable = [t for t in task.tools if t.name not in task.broken and t.name not in task.forbidden]
    types = set(task.goal)
    tools = {c.tool for c in task.constraints if c.kind == "must_call"}
    before = {}  # tool -> tools it must come after (annotation and not_before constraints)
    for t in task.tools:
        before[t.name] = set(t.after)
    for c in task.constraints:
        if c.kind == "not_before":
            before[c.tool].add(c.until)
    relevant: set[str] = set()
    changed = True
    while changed:
        changed = False
        for t in usable:
            if t.name in relevant:
                continue
            if t.name in tools or types.intersection(t.produces):
                relevant.add(t.name)
                types.update(p.data_type for p in t.data_params)
                types.update(t.requires)
                tools.update(before[t.name])
                changed = True
    return frozenset(relevant)


class TaskContext:
    """Compiled forms, validators, the ground task and analyses of one :class:`ToolTask`."""

    def __init__(self, task: ToolTask) -> None:
        self.task = task

    @cached_property
    def pddl3(self) -> Compiled:
        return compile_task(self.task, "pddl3")

    @cached_property
    def folded(self) -> Compiled:
        return compile_task(self.task, "folded")

    @cached_property
    def validator(self) -> Validator:
        return Validator(self.pddl3.domain, self.pddl3.problem)

    @cached_property
    def prefix_validator(self) -> Validator:
        """The same task without a goal: checks that a prefix executes and keeps the
        trajectory constraints so far."""
        c = self.pddl3
        return Validator(c.domain, replace(c.problem, goal=A.TRUE), self.validator.compiled)

    @cached_property
    def ground(self):
        from planning_core.ground import ground
        return ground(self.folded.domain, self.folded.problem)

    @cached_property
    def relevant(self) -> frozenset[str]:
        return relevant_tools(self.task)

    def feasibility(self, *, engine: str = "auto", time_limit: float = 60.0):
        key = (engine, time_limit)
        cache = self.__dict__.setdefault("_feasibility", {})
        if key not in cache:
            from planning_core.validators.toolplans.feasibility import analyse
            cache[key] = analyse(self, engine=engine, time_limit=time_limit)
        return cache[key]
