"""The step-wise setting: given the calls so far, is a proposed next call a good one?

Two questions, as ACPBench Hard's ``nexta`` asks them of a planning state: is the call
*applicable now* (its tool exists and works, its inputs are available, no constraint
breaks), and is it *on some optimal continuation*: with h* the optimal remaining cost
(``planning_core.search.hstar``, on the folded task's ground form), a call ``a`` from state
``s`` is optimal iff ``h*(s) = cost(a) + h*(s')``. h* that hits its limit gives an unknown
answer, never a guess.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from planning_core.errors import PlanningError
from planning_core.search.hstar import h_star
from planning_core.validators.toolplans.calls import Call, parse_output
from planning_core.validators.toolplans.check import execute
from planning_core.validators.toolplans.context import TaskContext
from planning_core.validators.toolplans.faults import Fault

__all__ = ["NextReport", "judge_next"]


@dataclass(frozen=True, slots=True)
class NextReport:
    """``applicable`` (None: the prefix itself is faulty), ``optimal`` (None: unknown or not
    applicable), h* before and after the call, and the fault that makes it inapplicable."""

    applicable: bool | None
    optimal: bool | None
    h_before: float | None = None
    h_after: float | None = None
    fault: Fault | None = None
    message: str = ""

    def to_dict(self) -> dict:
        def num(x):
            return None if x is None else ("inf" if math.isinf(x) else int(x) if float(x).is_integer() else x)
        return {"applicable": self.applicable, "optimal": self.optimal,
                "h_before": num(self.h_before), "h_after": num(self.h_after),
                "fault": self.fault.to_dict() if self.fault else None, "message": self.message}


def _calls(value) -> tuple[Call, ...]:
    if isinstance(value, (list, tuple)) and all(isinstance(c, Call) for c in value):
        return tuple(value)
    parsed = parse_output(value)
    if parsed.error or parsed.refused:
        raise PlanningError(f"not a list of tool calls: {parsed.error or 'a refusal'}")
    return parsed.calls


def judge_next(ctx: TaskContext, prefix, call, *, time_limit: float = 30.0) -> NextReport:
    """Judge ``call`` after ``prefix`` (calls, text or JSON; an empty prefix is ``[]``)."""
    before = _calls(prefix) if prefix not in ("", None, []) else ()
    nxt = _calls(call)
    if len(nxt) != 1:
        raise PlanningError(f"expected one proposed call, found {len(nxt)}")
    ex = execute(ctx, before + nxt, ctx.prefix_validator)
    n = len(before)
    early = [f for f in ex.faults if f.step is not None and f.step <= n]
    if early:
        return NextReport(None, None, fault=early[0],
                          message=f"the prefix is not executable: {early[0].message}")
    here = [f for f in ex.faults if f.step == n + 1]
    if here:
        return NextReport(False, None, fault=here[0], message=here[0].message)
    task = ctx.ground
    state = task.init
    actions = []
    for step in ex.steps:
        a = task.action_by_name(str(step), state)
        actions.append(a)
        state_next = task.progress(state, a)
        if len(actions) <= n:
            state = state_next
    a = actions[-1]
    h0 = h_star(task, state, time_limit=time_limit, cpu_budget=True)
    if h0 is None:
        return NextReport(True, None, message=f"h* hit the {time_limit:g} s limit")
    after = task.progress(state, a)
    h1 = h_star(task, after, time_limit=time_limit, cpu_budget=True)
    if h1 is None:
        return NextReport(True, None, h0, message=f"h* hit the {time_limit:g} s limit")
    if math.isinf(h0):
        return NextReport(True, False, h0, h1, message="no chain completes the request from here")
    if math.isclose(h1 + a.cost, h0):
        return NextReport(True, True, h0, h1, message=f"optimal: h* drops from {h0:g} to {h1:g}")
    if math.isinf(h1):
        return NextReport(True, False, h0, h1, message="the call leads to a dead end")
    return NextReport(True, False, h0, h1, message=f"not optimal: h* is {h0:g} before and "
                                                   f"{h1:g} after a call of cost {a.cost:g}")
