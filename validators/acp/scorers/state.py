"""Scorers for the one-state tasks: applicability (app) and progression (prog).

The semantics are those of Kokel et al., "ACPBench Hard" (arXiv 2503.24378):

* app -- the answer, read as a set (order and repeats ignored), must equal the set of ground
  actions applicable in the state.
* prog -- the positive effects must be exactly the atoms that become true, and the negative
  effects exactly the atoms that become false, when the action is applied (conditional
  effects evaluated in the state, deletes before adds).

Both are decided from the cheapest sufficient evidence (issue 12). An answer equal to the
stored data is right (``stored-set``): the stored applicable sets and effects equal the
computed ones on every dev question, and ``tests/acp/test_scorers_dev.py`` checks that the
shortcut and the computation agree on every dev answer. Any other answer needs a proof
that it is wrong. For app, one action of the difference checked in the state by the lifted
simulator, without grounding (``lifted-check``: a listed action that does not apply, or a
stored one the answer misses that does apply); when no such witness turns up (the stored
set itself is wrong) the applicable set is computed on the ground task (``computed-set``).
For prog the effects are computed (the question names its action in English, recovered
among the ground applicable actions; the stored effects only break ties, see
:mod:`question_text`).
"""
from __future__ import annotations

from planning_core.validators.acp.answers.values import GroundName
from planning_core.validators.acp.problem import atom_key
from planning_core.validators.acp.question_text import effects_of, prog_action, stored_effects
from planning_core.validators.acp.records import Question, Score
from planning_core.validators.acp.scorers.base import (ScoreContext, listed, parse_or_score,
                                                       right, stored_names, wrong)
from planning_core.validators.acp.scorers.plan import STEP_FAILURES, simulate

__all__ = ["APP_WITNESS_CHECKS", "score_app", "score_prog"]

#: Actions of the difference between an app answer and the stored set checked one by one
#: (lifted, about 0.2 ms each) before the whole applicable set is computed instead.
APP_WITNESS_CHECKS = 16


def _stored_app(q: Question) -> frozenset[tuple[str, ...]]:
    """The stored applicable set as action keys (``Question`` checks that it is a list)."""
    return frozenset(atom_key(n) for n in stored_names(q.answer))


def _app_witness(ctx: ScoreContext, given: set, stored: frozenset) -> Score | None:
    """A wrong verdict proved by one action checked in the state (lifted), or None."""
    extra = sorted(given - stored)
    missing = sorted(stored - given)
    checks = [(a, False) for a in extra] + [(a, True) for a in missing]
    for key, in_stored in checks[:APP_WITNESS_CHECKS]:
        name = GroundName(key[0], key[1:])
        report = simulate(ctx, (name,))
        applies = report.verdict not in STEP_FAILURES
        if in_stored and applies:
            return wrong(f"missing {name}, which is applicable in the state", "lifted-check")
        if not in_stored and not applies:
            why = report.message or report.verdict.value
            return wrong(f"not applicable {name}: {why}", "lifted-check")
    return None


def score_app(q: Question, response: object, ctx: ScoreContext) -> Score:
    answer, failed = parse_or_score("app", response)
    if failed:
        return failed
    given = {atom_key(a) for a in answer}
    stored = _stored_app(q)
    if given == stored:
        return right(f"all {len(stored)} applicable actions, and no other (the stored set)",
                     "stored-set")
    witness = _app_witness(ctx, given, stored)
    if witness is not None:
        return witness
    truth = ctx.info.applicable_names()
    if given == truth:
        return right(f"all {len(truth)} applicable actions, and no other", "computed-set")
    missing, extra = truth - given, given - truth
    parts = []
    if missing:
        parts.append(f"missing {listed(missing)}")
    if extra:
        parts.append(f"not applicable {listed(extra)}")
    return wrong("; ".join(parts), "computed-set")


def score_prog(q: Question, response: object, ctx: ScoreContext) -> Score:
    answer, failed = parse_or_score("prog", response)
    if failed:
        return failed
    pos_given = {atom_key(a) for a in answer[0]}
    neg_given = {atom_key(a) for a in answer[1]}
    if (pos_given, neg_given) == stored_effects(q):
        return right(f"{len(pos_given)} atom(s) made true and {len(neg_given)} made false "
                     "(the stored effects)", "stored-set")
    task = ctx.info.task
    action = prog_action(q, task)
    pos, neg = effects_of(task, task.init, action)
    if pos_given == pos and neg_given == neg:
        return right(f"the effects of {action} are {len(pos)} atom(s) made true and "
                     f"{len(neg)} made false", "computed-set")
    parts = []
    for side, given, truth in (("positive", pos_given, pos), ("negative", neg_given, neg)):
        if truth - given:
            parts.append(f"{side} effects miss {listed(truth - given)}")
        if given - truth:
            parts.append(f"{side} effects wrongly list {listed(given - truth)}")
    return wrong(f"{action}: " + "; ".join(parts), "computed-set")
