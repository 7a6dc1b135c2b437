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
        """The ground folded task, under the active budget (the row's, ``batch`` and the
        commands set it: :func:`planning_core.limits.metering`): 2,000 copies of one tool
        ground for seconds, and 10,000 ran past 150 s at ``--time-limit 2``. A grounding
        that stops at the limit raises ``LimitReached``, and so does every later use of
        this context (the same limit holds for the task's next row: not tried again)."""
        from planning_core.ground import ground
        from planning_core.limits import LimitReached, active_budget

        stopped = self.__dict__.get("_ground_stop")
        if stopped is not None:
            raise LimitReached(stopped.limit, f"{stopped.detail}; grounding this task stopped "
                               "at the limit for an earlier row, not tried again")
        try:
            return ground(self.folded.domain, self.folded.problem, budget=active_budget())
        except LimitReached as stop:
            self.__dict__["_ground_stop"] = stop
            raise

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
