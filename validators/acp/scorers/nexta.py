"""The next-action scorer (nexta).

Semantics of Kokel et al., "ACPBench Hard" (arXiv 2503.24378), "Answer Evaluation": an
action is right iff it is applicable and on an optimal plan: ``h*(s) = cost(a) + h*(s')``
with ``s'`` the successor (cost 1 in the unit-cost domains of the benchmark). The stored
``opt`` is h*(s) when present; h* values are memoised per state, so several answers to one
question share the searches. Stored ``yes``/``no`` answers are decided without the PDDL, and
an inapplicable action is rejected by one lifted precondition check, without grounding.
"""
from __future__ import annotations

import math

from planning_core.search.astar import OVER_BOUND
from planning_core.validate.report import Verdict

from planning_core.validators.acp.records import Question, Score
from planning_core.validators.acp.scorers.base import (ScoreContext, parse_or_score, right,
                                                       stored_names, unknown, wrong)
from planning_core.validators.acp.scorers.plan import simulate
from planning_core.validators.acp.scorers.queries import (HSTAR_FD_CPU_S, HSTAR_INTERNAL_NODES,
                                                          h_star, h_star_within)

__all__ = ["cached_h_star", "score_nexta"]


def cached_h_star(ctx: ScoreContext, state: int) -> float | None:
    """h*(state), memoised per problem; None when the search hit its limit."""
    table = ctx.info.h_stars
    if state in table:
        return table[state]
    value = h_star(ctx.info.task, state, budget=ctx.budget, time_limit=ctx.time_limit)
    if value is not None:
        table[state] = value
    return value


def _limits(ctx: ScoreContext) -> str:
    """The limits an h* question ran out of (the planner's too when the budget allows it)."""
    text = ctx.limit_text()
    if ctx.budget > HSTAR_INTERNAL_NODES:
        text += f", then Fast Downward's {HSTAR_FD_CPU_S:g} CPU s"
    return text


def _stored_opt(q: Question) -> float | None:
    opt = q.answer.get("opt")
    if opt is None or (isinstance(opt, str) and not opt.strip()):
        return None
    try:
        return float(opt)
    except (TypeError, ValueError):
        return None


def score_nexta(q: Question, response: object, ctx: ScoreContext) -> Score:
    answer, failed = parse_or_score("nexta", response)
    if failed:
        return failed
    if answer in stored_names(q.answer.get("yes")):
        return right(f"{answer} is a known optimal next action", "stored-yes")
    if answer in stored_names(q.answer.get("no")):
        return wrong(f"{answer} is known not to be on an optimal plan", "stored-no")
    problem = ctx.info.action_problem(answer)
    if problem is not None:
        return wrong(problem, "ill-formed")
    if simulate(ctx, (answer,)).verdict is Verdict.PRECONDITION_FAILED:
        # one lifted precondition check: no grounding needed to reject the answer
        return wrong(f"{answer} is not applicable in the current state", "not-applicable")
    task = ctx.info.task
    state = task.init
    applicable = [a for a in ctx.info.ground_actions(answer) if a.applicable(state)]
    if not applicable:
        return wrong(f"{answer} is not applicable in the current state", "not-applicable")
    action = applicable[0]
    here = _stored_opt(q)
    if here is None:
        here = cached_h_star(ctx, state)
        if here is None:
            return unknown(f"computing h* of the state ran out of {_limits(ctx)}")
    if math.isinf(here):
        return wrong("no plan reaches the goal from the state", "h-star")
    # h*(after) + cost >= h*(state) always, so the answer is right iff some plan from the
    # successor costs at most h*(state) - cost: A* pruned above that bound decides it
    successor = task.progress(state, action)
    bound = here - action.cost
    after, why = ctx.info.h_stars.get(successor), ""
    if after is None:
        # the search bound keeps every cost that math.isclose below would still call equal
        # (its relative tolerance is 1e-9), so the verdict is that of the exact h*
        slack = 2e-9 * abs(here)
        after, why = h_star_within(task, successor, bound + slack, budget=ctx.budget,
                                   time_limit=ctx.time_limit)
        if after is None:
            return unknown(f"computing h* after {answer} ran out of {_limits(ctx)}")
        if not math.isinf(after):
            ctx.info.h_stars[successor] = after          # exact: it is at most the bound
    if math.isclose(after + action.cost, here):
        return right(f"h* drops from {here:g} to {after:g} after {answer}", "h-star")
    if math.isinf(after) and why != OVER_BOUND:
        return wrong(f"{answer} leads to a dead end", "h-star")
    if math.isinf(after):
        return wrong(f"h* is {here:g} before and more than {bound:g} after {answer}: not on "
                     "an optimal plan", "h-star")
    return wrong(f"h* is {here:g} before and {after:g} after {answer}: not on an optimal "
                 "plan", "h-star")
