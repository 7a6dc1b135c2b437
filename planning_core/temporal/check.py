"""Checking a plan's trace against an LTLf formula on a ground task.

The plan is executed in the task (each step must be applicable), which gives the states
``s0 .. sn``; the formula is then judged on that trace by progression
(:class:`~planning_core.temporal.progression.Monitor`), which also names the first position
at which the formula became false. :func:`semantic_trace` gives the same trace as sets of
atoms, for the direct semantics of :mod:`planning_core.temporal.semantics`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from planning_core.errors import PlanningError
from planning_core.ground.facts import GroundAction
from planning_core.ground.task import Task
from planning_core.temporal import ltl
from planning_core.temporal.progression import Monitor
from planning_core.temporal.semantics import Trace

__all__ = ["PlanNotExecutable", "TraceCheck", "execute", "check_plan", "semantic_trace"]


class PlanNotExecutable(PlanningError):
    """A step of the plan is unknown to the task or not applicable where it is taken."""


@dataclass(frozen=True, slots=True)
class TraceCheck:
    """``holds``: the formula is true on the plan's trace; ``position``: where it became
    false (0: in the initial state; n: only the final state settles it), None if it holds.
    ``goal`` says whether the task's goal holds at the end."""

    holds: bool
    position: int | None
    goal: bool
    length: int


def execute(task: Task, plan: Sequence[str]) -> tuple[tuple[int, ...], tuple[GroundAction, ...]]:
    """States ``s0 .. sn`` and ground actions of ``plan`` (steps ``"(name args)"``)."""
    state = task.init
    states, actions = [state], []
    for i, step in enumerate(plan, start=1):
        candidates = task.actions_by_name(step)
        action = next((a for a in candidates if a.applicable(state)), None)
        if action is None:
            why = "is not applicable" if candidates else "is not an action of the task"
            raise PlanNotExecutable(f"step {i} {step} {why}")
        state = task.progress(state, action)
        states.append(state)
        actions.append(action)
    return tuple(states), tuple(actions)


def check_plan(task: Task, formula: ltl.Formula | Monitor, plan: Sequence[str]) -> TraceCheck:
    """Execute ``plan`` and judge ``formula`` on its trace (raises ``PlanNotExecutable``)."""
    from planning_core.temporal.product import monitor_for

    monitor = formula if isinstance(formula, Monitor) else monitor_for(task, formula)
    states, actions = execute(task, plan)
    index = {id(a): k for k, a in enumerate(task.actions)}
    labels = [monitor.labels[index[id(a)]] for a in actions]
    holds, position = monitor.accepts(states, labels)
    return TraceCheck(holds, position, task.is_goal(states[-1]), len(actions))


def semantic_trace(task: Task, plan: Sequence[str]) -> Trace:
    """The plan's trace as sets of ground atoms (statics included) and action tuples."""
    states, actions = execute(task, plan)
    return Trace.of((task.atoms_of(s, with_static=True) for s in states),
                    ((a.name,) + a.args for a in actions))
