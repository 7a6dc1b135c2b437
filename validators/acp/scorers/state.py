"""Scorers for the one-state tasks: applicability (app) and progression (prog).

Both are decided by computation on the ground task of the question's state; the stored
answer is not consulted (except to settle which action a prog question's English names,
see :mod:`question_text`). The semantics are those of Kokel et al., "ACPBench Hard"
(arXiv 2503.24378):

* app -- the answer, read as a set (order and repeats ignored), must equal the set of ground
  actions applicable in the state.
* prog -- the positive effects must be exactly the atoms that become true, and the negative
  effects exactly the atoms that become false, when the action is applied (conditional
  effects evaluated in the state, deletes before adds).
"""
from __future__ import annotations

from planning_core.validators.acp.problem import atom_key
from planning_core.validators.acp.question_text import effects_of, prog_action
from planning_core.validators.acp.records import Question, Score
from planning_core.validators.acp.scorers.base import (ScoreContext, listed, parse_or_score,
                                                       right, wrong)

__all__ = ["score_app", "score_prog"]


def score_app(q: Question, response: object, ctx: ScoreContext) -> Score:
    answer, failed = parse_or_score("app", response)
    if failed:
        return failed
    given = {atom_key(a) for a in answer}
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
