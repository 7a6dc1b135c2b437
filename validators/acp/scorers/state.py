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
For prog the effects are computed. The question names its action in English
(:mod:`question_text`): the actions over the objects it mentions are simulated in the state
by the lifted simulator and the applicable one it describes is picked as among the ground
applicable actions, with its effects from the simulation (``simulation``; a dev test checks
that this is the ground task's action and effects on every dev question); when that would
take many simulations the ground task decides (``computed-set``).
"""
from __future__ import annotations

import itertools

from planning_core.pddl.plans import Plan, PlanStep
from planning_core.validate.report import Verdict
from planning_core.validate.simulator import validate_plan

from planning_core.validators.acp.answers.values import GroundName
from planning_core.validators.acp.problem import atom_key
from planning_core.validators.acp.question_text import (action_words, choose_action,
                                                       effects_of, prog_action,
                                                       stored_effects)
from planning_core.validators.acp.records import Question, Score
from planning_core.validators.acp.scorers.base import (ScoreContext, listed, parse_or_score,
                                                       right, stored_names, wrong)
from planning_core.validators.acp.scorers.plan import STEP_FAILURES, simulate

__all__ = ["APP_WITNESS_CHECKS", "PROG_LIFTED_CANDIDATES", "lifted_prog_effects",
           "score_app", "score_prog"]

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


#: Ground actions over the objects a prog question mentions that are simulated one by one
#: (lifted, about 0.2 ms each) to find its action; beyond this the task is ground instead.
PROG_LIFTED_CANDIDATES = 64


#: Simulation verdicts after which the one step was applied.
_APPLIED = frozenset({Verdict.VALID, Verdict.GOAL_NOT_SATISFIED})


def _one_step(ctx: ScoreContext, name: GroundName):
    """The effects ``(made true, made false)`` of applying ``name`` in the state by the
    lifted simulator; None when it does not apply, ``...`` when the simulation ends
    otherwise (an undefined cost, a constraint: the ground task must decide)."""
    info = ctx.info
    plan = Plan((PlanStep(name.name, name.args, 1, 1, str(name)),))
    report = validate_plan(info.domain, info.problem, plan, trace=True)
    if report.verdict in STEP_FAILURES:
        return None
    if report.verdict not in _APPLIED or not report.trace:
        return ...
    step = report.trace[0]
    before = info.init_atoms
    deleted = {atom_key(GroundName.from_text(t)) for t in step.deleted}
    added = {atom_key(GroundName.from_text(t)) for t in step.added}
    return (frozenset(a for a in added if a not in before),
            frozenset(a for a in deleted if a in before and a not in added))


def lifted_prog_effects(q: Question, ctx: ScoreContext):
    """``(action, (made true, made false))`` for a prog question's action found without
    grounding: every action over the objects the question mentions is simulated in the
    state, then :func:`~.question_text.choose_action` picks as on the ground task. None
    when that would take more than :data:`PROG_LIFTED_CANDIDATES` simulations, no action
    applies, a simulation ends otherwise than applied or not applicable, or the domain has
    derived predicates (the ground task then decides, or reports the question)."""
    info = ctx.info
    if info.domain.derived:
        return None  # derived atoms change too: Task.progress evaluates the axioms
    text, words = action_words(q)
    by_type = info.objects_by_type()
    names = []
    for schema in info.domain.actions:
        domains = [sorted(words & set().union(*(by_type.get(t, ()) for t in p.types)))
                   for p in schema.parameters]
        count = 1
        for d in domains:
            count *= len(d)
        if len(names) + count > PROG_LIFTED_CANDIDATES:
            return None
        names.extend(GroundName(schema.name, args) for args in itertools.product(*domains))
    found = {}
    for name in sorted(names):
        effects = _one_step(ctx, name)
        if effects is ...:
            return None
        if effects is not None:
            found[name] = effects
    if not found:
        return None
    action = choose_action(q, text, words, list(found), found.__getitem__)
    return action, found[action]


def score_prog(q: Question, response: object, ctx: ScoreContext) -> Score:
    answer, failed = parse_or_score("prog", response)
    if failed:
        return failed
    pos_given = {atom_key(a) for a in answer[0]}
    neg_given = {atom_key(a) for a in answer[1]}
    if (pos_given, neg_given) == stored_effects(q):
        return right(f"{len(pos_given)} atom(s) made true and {len(neg_given)} made false "
                     "(the stored effects)", "stored-set")
    table = ctx.info.prog_actions
    if q.question not in table:
        table[q.question] = lifted_prog_effects(q, ctx)
    lifted = table[q.question]
    if lifted is not None:
        action, (pos, neg) = lifted
        evidence = "simulation"
    else:
        task = ctx.info.task
        action = prog_action(q, task)
        pos, neg = effects_of(task, task.init, action)
        evidence = "computed-set"
    if pos_given == pos and neg_given == neg:
        return right(f"the effects of {action} are {len(pos)} atom(s) made true and "
                     f"{len(neg)} made false", evidence)
    parts = []
    for side, given, truth in (("positive", pos_given, pos), ("negative", neg_given, neg)):
        if truth - given:
            parts.append(f"{side} effects miss {listed(truth - given)}")
        if given - truth:
            parts.append(f"{side} effects wrongly list {listed(given - truth)}")
    return wrong(f"{action}: " + "; ".join(parts), evidence)
