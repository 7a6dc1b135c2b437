"""Scorers for the plan tasks: validation (val) and justification (just).

Both simulate plans with planning_core's lifted validator (``validate_plan``), which does not
ground, so a grounding bug cannot make these verdicts wrong (Kokel et al., "ACPBench
Hard", arXiv 2503.24378, "Answer Evaluation"):

* val -- the answer is the 0-based index of the first action of the question's sequence
  that cannot be applied (unknown action, wrong arity, unknown object, type error or a
  false precondition, as VAL orders them). When every action applies, the right answer
  is None.
* just -- the answer must be a proper subsequence of the question's plan (strictly
  shorter, order kept) and still a plan: every action applicable and the goal reached.
  Actions are compared case-insensitively (PDDL names are); the reference scorer compares
  the question's spelling with the answer's exactly, so ``(load-truck p0 t1 l1-2)`` is not
  a subsequence of ``(LOAD-TRUCK p0 t1 l1-2) ...`` there.
"""
from __future__ import annotations

from planning_core.pddl.plans import Plan, PlanStep
from planning_core.validate.report import ValidationReport, Verdict
from planning_core.validate.simulator import validate_plan

from planning_core.validators.acp.answers.parsers import parse_index
from planning_core.validators.acp.answers.text import says_none
from planning_core.validators.acp.answers.values import GroundName, UnparseableAnswer
from planning_core.validators.acp.question_text import question_plan
from planning_core.validators.acp.records import Question, Score
from planning_core.validators.acp.scorers.base import ScoreContext, parse_or_score, right, wrong

__all__ = ["STEP_FAILURES", "first_inapplicable", "is_subsequence", "score_just", "score_val",
           "simulate"]

#: Verdicts of a simulation that mean a step cannot be applied.
STEP_FAILURES = frozenset({Verdict.PRECONDITION_FAILED, Verdict.UNKNOWN_ACTION,
                            Verdict.WRONG_ARITY, Verdict.UNKNOWN_OBJECT, Verdict.TYPE_ERROR})


def simulate(ctx: ScoreContext, steps: tuple[GroundName, ...]) -> ValidationReport:
    """Validate ``steps`` from the question's state (memoised per problem)."""
    found = ctx.info.simulations.get(steps)
    if found is None:
        plan = Plan(tuple(PlanStep(s.name, s.args, k + 1, 1, str(s))
                          for k, s in enumerate(steps)))
        found = validate_plan(ctx.info.domain, ctx.info.problem, plan)
        ctx.info.simulations[steps] = found
    return found


def first_inapplicable(q: Question, ctx: ScoreContext) -> int | None:
    """0-based index of the first step of the question's sequence that cannot be applied."""
    report = simulate(ctx, question_plan(q))
    if report.verdict in STEP_FAILURES:
        return report.step - 1
    return None


def score_val(q: Question, response: object, ctx: ScoreContext) -> Score:
    truth = first_inapplicable(q, ctx)
    try:
        given: int | None = parse_index(response)
    except UnparseableAnswer as err:
        if truth is None and isinstance(response, str) and says_none(response):
            return right("every action of the sequence is applicable, and the answer says "
                         "None", "simulation")
        return wrong(f"unparseable answer: {err.reason}", "unparseable")
    if truth is None:
        return wrong(f"every action of the sequence is applicable, but the answer is {given}",
                     "simulation")
    if given == truth:
        return right(f"action {truth} is the first one that cannot be applied", "simulation")
    return wrong(f"the first inapplicable action is at index {truth}, not {given}",
                 "simulation")


def is_subsequence(short: tuple, long: tuple) -> bool:
    """Whether ``short`` is ``long`` with some elements removed (order kept)."""
    rest = iter(long)
    return all(any(x == y for y in rest) for x in short)


def score_just(q: Question, response: object, ctx: ScoreContext) -> Score:
    answer, failed = parse_or_score("just", response)
    if failed:
        return failed
    plan = question_plan(q)
    answer = tuple(answer)
    if len(answer) >= len(plan):
        return wrong(f"the answer has {len(answer)} actions; a simplification of the "
                     f"{len(plan)}-action plan must be shorter", "simulation")
    if not is_subsequence(answer, plan):
        return wrong("the answer is not the question's plan with actions removed (order "
                     "kept)", "simulation")
    report = simulate(ctx, answer)
    if report.valid:
        return right(f"a valid plan of {len(answer)} actions, {len(plan) - len(answer)} "
                     "removed", "simulation")
    return wrong(f"not a plan: {report.message or report.verdict.value}", "simulation")
