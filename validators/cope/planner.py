"""Judging an LLM-as-planner answer against a CoPE pair's constrained ground truth.

CoPE's planner metric (Huang et al., "Language Model as Planner and Formalizer under
Constraints"): a plan is correct iff it is valid under the *constrained* ground-truth
domain and problem; for a pair labelled ``plan_exists: false``, the answer is correct iff it
says that no plan exists. The reference pipeline lower-cases the answer, strips hyphens,
rewrites block numbers and string-matches VAL's output; here the answer is normalised by
:func:`planning_core.validators.cope.plans.normalize_plan` (every rewrite recorded) and judged by
planning_core's validator, whose report (failing step, unsatisfied conditions, repair
advice) is kept in the result.

Outcomes (``PLANNER_OUTCOMES``):

``correct``            valid plan for a solvable pair, or "no plan" for an unsolvable one
``plan_invalid``       a plan for a solvable pair that the validator rejects
``no_plan_claimed``    the answer says no plan exists, but the pair is labelled solvable
``plan_given``         the answer gives a plan, but the pair is labelled unsolvable
``unreadable``         no step could be read and no verdict was given
``unknown``            the time or memory limit ran out while reading or validating the
                       answer (``detail.limit`` names it, ``detail.phase`` says where);
                       no verdict, never a guess
``ground_truth_error`` the ground truth does not parse; nothing can be judged

"Says no plan exists" means the normaliser found a no-plan claim, or the answer is empty
(blank, ``[]`` or ``{"plan": []}``). The reference pipeline writes the model's JSON plan
list to a file and, for a pair without a plan, counts an empty file as "no plan"; for a
pair with a plan it validates the file, so an answer without steps or claim is then judged
as the empty plan (correct exactly when the goal holds initially: "no action is needed"),
and otherwise as a no-plan claim (an empty answer) or as ``unreadable`` (prose).

Ground truth that parses but has semantic errors (the CoinCollector typos) is still used:
the validator treats an undeclared predicate as false, which is what the files literally
say. The result records the issues so that a reader can discount such rows.

Limits: normalising the answer and validating its plan run under one budget per row
(``EvalContext.time_limit`` CPU seconds and ``memory_limit``), ticked inside every loop
that is linear in the response (lines, tokens, steps, rewrites) and by the plan reader and
the validator. A 1 MB answer of 86,000 short steps, or one call with 450,000 arguments,
used to take seconds past ``--time-limit 1``; it is now ``unknown`` (docs/limits.md).
"""
from __future__ import annotations

from planning_core.limits import Budget, LimitReached, Limits, metering, tick_active
from planning_core.validate.report import Verdict
from planning_core.validate.simulator import validate_plan
from planning_core.validators.cope.dataset import ActionHead, Pair, pair_objects
from planning_core.validators.cope.extract import is_empty_plan
from planning_core.validators.cope.groundtruth import GroundTruth
from planning_core.validators.cope.naming import squash
from planning_core.validators.cope.plans import NormalizedPlan, normalize_plan
from planning_core.validators.cope.results import (
    GROUND_TRUTH_ERROR,
    EvalContext,
    EvalResult,
    issues_json,
    label_doubt,
    no_plan_outcome,
    plan_outcome,
    report_json,
)

__all__ = ["PLANNER_OUTCOMES", "evaluate_planner", "is_empty_answer"]

PLANNER_OUTCOMES = ("correct", "plan_invalid", "no_plan_claimed", "plan_given", "unreadable",
                    "unknown", GROUND_TRUTH_ERROR)


def is_empty_answer(output: str, plan: NormalizedPlan) -> bool:
    """No steps and nothing else: blank, ``[]`` or ``{"plan": []}``."""
    return not plan.steps and not plan.no_plan_claim and (
        not plan.unparsed_lines or is_empty_plan(output))


def missing_heads(pair: Pair, truth: GroundTruth) -> tuple[ActionHead, ...]:
    """Ground-truth actions that the pair's action-heads file does not list.

    Some constraints introduce an action in their description only (CoinCollector's
    "(open room1 room2 direction reverse-direction)"); a model that uses it must still be
    read, so such actions are added to the heads the answer is normalised against.
    """
    if truth.domain is None:
        return ()
    listed = {squash(head.name) for head in pair.action_heads}
    return tuple(ActionHead(a.name, tuple(p.name.lstrip("?") for p in a.parameters))
                 for a in truth.domain.actions if squash(a.name) not in listed)


#: Characters of a rewrite's ``original``/``result`` kept in a row (an excerpt beyond).
MAX_REWRITE_TEXT = 160
#: Rewrites listed in a row; the rest are counted in ``rewrites_omitted``.
MAX_REWRITES = 2000


def excerpt(text: str, limit: int = MAX_REWRITE_TEXT) -> str:
    """``text``, or its first ``limit`` characters and how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [{len(text) - limit} more characters]"


def _plan_json(plan: NormalizedPlan) -> dict:
    """The normalised plan as row data, linear in the response: a rewrite's text is an
    excerpt (a rule such as ``embedded-step`` names the whole source line, and one line can
    hold thousands of steps: whole lines made a 56 KB response a 225 MB row), and at most
    ``MAX_REWRITES`` rewrites are listed."""
    rewrites = plan.rewrites[:MAX_REWRITES]
    tick_active(len(plan.steps) + len(rewrites) + len(plan.unparsed_lines))
    return {
        "steps": list(plan.steps),
        "no_plan_claim": plan.no_plan_claim,
        "rewrites": [{"step": r.step_index, "original": excerpt(r.original),
                      "result": excerpt(r.result), "rule": r.rule} for r in rewrites],
        "rewrites_omitted": len(plan.rewrites) - len(rewrites),
        "unparsed_lines": [{"line": n, "text": t} for n, t in plan.unparsed_lines],
    }


def evaluate_planner(pair: Pair, output: str, context: EvalContext | None = None
                     ) -> EvalResult:
    """Normalise ``output`` onto the pair's action heads and judge it (see module doc)."""
    context = context or EvalContext()
    truth: GroundTruth = context.truth(pair)
    detail: dict = {"ground_truth_issues": issues_json(truth.errors)}
    if not truth.parsed:
        detail["error"] = "; ".join(str(i) for i in truth.errors)
        return EvalResult.for_pair(pair, False, GROUND_TRUTH_ERROR, detail)
    output = output or ""
    extra = missing_heads(pair, truth)
    detail["heads_added"] = ["(" + " ".join((h.name,) + h.params) + ")" for h in extra]
    # one budget for the row: reading a 1 MB answer and validating its plan are linear,
    # but take seconds (issue 19); a limit is ``unknown``, never a verdict
    budget = Budget(Limits(time_s=context.time_limit, memory_mb=context.memory_limit))
    phase = "normalise"
    try:
        with metering(budget):
            plan = normalize_plan(output, pair.action_heads + extra,
                                  dict(pair_objects(pair)) or None, pair.problem_description)
            phase = "row"
            detail.update(_plan_json(plan))
            phase = "validation"
            empty = is_empty_answer(output, plan)
            report = None
            if plan.steps or (not plan.no_plan_claim and pair.plan_exists is not False):
                report = validate_plan(truth.domain, truth.problem, plan.text, budget=budget)
    except LimitReached as stop:
        return _unknown(pair, detail, phase, stop.limit, stop.detail, budget)
    if report is not None and report.verdict is Verdict.UNKNOWN:
        # the validator caught its own LimitReached: report.limit names it
        detail["validation"] = report_json(report)
        return _unknown(pair, detail, phase, report.limit, report.message, budget)
    valid = report.valid if report is not None else None
    no_plan = plan.no_plan_claim or (empty and not valid)
    detail["validation"] = report_json(report)
    detail["label_doubt"] = label_doubt(pair, context, no_plan, valid)
    if no_plan:
        outcome, correct = no_plan_outcome(pair, "no_plan_claimed")
        return EvalResult.for_pair(pair, correct, outcome, detail)
    if not plan.steps and not valid:
        return EvalResult.for_pair(pair, False, "unreadable", detail)
    outcome, correct = plan_outcome(pair, bool(valid))
    return EvalResult.for_pair(pair, correct, outcome, detail)


def _unknown(pair: Pair, detail: dict, phase: str, limit: str, why: str,
             budget: Budget) -> EvalResult:
    """The row of an answer whose reading or validation ran out of budget: ``unknown``,
    naming the limit and the phase; the partial plan is not kept (it may be what ran out)."""
    for key in ("steps", "rewrites", "rewrites_omitted", "unparsed_lines", "no_plan_claim"):
        detail.pop(key, None)
    detail.update(limit=limit, limit_detail=why, phase=phase,
                  cpu_s=round(budget.cpu_s(), 3))
    return EvalResult.for_pair(pair, False, "unknown", detail)
