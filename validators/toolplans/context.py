"""Everything derived from one task, computed once on first use and shared by the checks.

A batch checks many chains against few tasks; compiling, grounding and solving a task are
the costly parts, so a :class:`TaskContext` keeps them.
"""
from __future__ import annotations

from dataclasses import replace
from functools import cached_property

from planning_core.pddl import ast as pddl
from planning_core.validate import Validator
from planning_core.validators.toolplans.compile import Compiled, compile_task
from planning_core.validators.toolplans.relevance import relevant_tools
from planning_core.validators.toolplans.spec import ToolTask

__all__ = ["TaskContext"]


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
        return Validator(c.domain, replace(c.problem, goal=pddl.TRUE), self.validator.compiled)

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
