"""Scorers for reachability: of an atom (reach) and of an action (areach).

The question asks for something that can never happen from the current state (Kokel et
al., "ACPBench Hard", arXiv 2503.24378). An answer is right when it is well formed (see
:mod:`problem`) and provably unreachable; the proofs are tried cheapest first and the
verdict names the one that decided:

1. the stored set of known-unreachable answers (``stored-yes``);
2. static facts: an atom of a predicate no action changes keeps its initial truth, and
   an action with a false static precondition such as ``(sail l0 l0)`` (``not-eq l0 l0``)
   never applies (``static-false``);
3. the delete relaxation: an atom or action the relaxed exploration from the state never
   reaches is unreachable (``relaxed-unreachable``; the grounder grounds exactly the
   relaxed-reachable part, so "not a fact / not a ground action" is this proof);
4. search for a state where the atom holds or the action's precondition holds: a plan
   refutes the answer (``planner-solved``), an exhausted search proves it
   (``planner-unsolvable``), a limit leaves it unknown.

``None`` is right iff no well-formed atom over the fluent predicates (no well-formed ground
action) is unreachable. A non-empty stored set refutes it; an empty one is checked by a
witness search (:mod:`.witness`). The reference scorer accepts None exactly when the
stored set is empty and then rejects every atom or action answer; here such answers are
still judged by computation (see ``docs/acp_semantics.md``).
"""
from __future__ import annotations

from planning_core.result import Status

from planning_core.validators.acp.answers.values import GroundName
from planning_core.validators.acp.problem import atom_key
from planning_core.validators.acp.records import Question, Score
from planning_core.validators.acp.scorers.base import (ScoreContext, memoized_verdict,
                                                       parse_or_score, right, stored_names,
                                                       unknown, wrong)
from planning_core.validators.acp.scorers.plan import simulate
from planning_core.validators.acp.scorers.queries import reach_condition
from planning_core.validators.acp.scorers.witness import none_verdict

__all__ = ["atom_reachability", "action_reachability", "score_areach", "score_reach"]


def atom_reachability(ctx: ScoreContext, atom: GroundName) -> Score:
    """Right (1) when the well-formed ``atom`` can never hold from the state."""
    return memoized_verdict(ctx, ("reach", atom), lambda: _atom_reachability(ctx, atom))


def _atom_reachability(ctx: ScoreContext, atom: GroundName) -> Score:
    info = ctx.info
    fact = atom_key(atom)
    if info.is_static(atom.name):
        if fact in info.init_atoms:
            return wrong(f"{atom} is static and true in every state", "static-true")
        return right(f"{atom} is static and false, so it never holds", "static-false")
    task = info.task
    if task.holds_statically(fact):
        return wrong(f"{atom} holds in every reachable state", "static-true")
    if task.never_true(fact):
        return right(f"{atom} is unreachable even in the delete relaxation",
                     "relaxed-unreachable")
    i = task.facts.id(fact)
    if task.init >> i & 1:
        return wrong(f"{atom} is true in the current state", "in-state")
    status = reach_condition(task, task.init, 1 << i, time_limit=ctx.time_limit)
    if status is Status.SOLVED:
        return wrong(f"a plan makes {atom} true", "planner-solved")
    if status is Status.UNSOLVABLE:
        return right(f"search proves that {atom} never holds", "planner-unsolvable")
    return unknown(f"the search for a state with {atom} hit the {ctx.time_limit:g} s limit")


def score_reach(q: Question, response: object, ctx: ScoreContext) -> Score:
    return _score_claim("reach", "unreachable atom", q, response, ctx,
                        ctx.info.atom_problem, atom_reachability)


def _score_claim(task: str, noun: str, q: Question, response: object, ctx: ScoreContext,
                 problem_of, decide) -> Score:
    """reach and areach judge one claimed item the same way: ``None`` by a witness search,
    a stored item as right, an ill-formed one as wrong, anything else by ``decide``."""
    answer, failed = parse_or_score(task, response)
    if failed:
        return failed
    stored = stored_names(q.answer)
    if answer is None:
        return none_verdict(task, ctx, stored, noun, decide)
    if answer in stored:
        return right(f"{answer} is a known {noun}", "stored-yes")
    problem = problem_of(answer)
    if problem is not None:
        return wrong(problem, "ill-formed")
    return decide(ctx, answer)


def _static_failure(ctx: ScoreContext, action: GroundName) -> str | None:
    """A false static precondition conjunct of ``action`` (as text), if there is one."""
    report = simulate(ctx, (action,))
    for text in report.unsatisfied:
        words = text.replace("(", " ").replace(")", " ").split()
        if words and words[0] == "not":
            words = words[1:]
        if words and (words[0] == "=" or ctx.info.is_static(words[0])):
            return text
    return None


def action_reachability(ctx: ScoreContext, action: GroundName) -> Score:
    """Right (1) when the well-formed ``action`` can never become applicable."""
    return memoized_verdict(ctx, ("areach", action), lambda: _action_reachability(ctx, action))


def _action_reachability(ctx: ScoreContext, action: GroundName) -> Score:
    variants = ctx.info.ground_actions(action)
    if not variants:
        static = _static_failure(ctx, action)
        if static is not None:
            return right(f"{action} needs {static}, which is static and false",
                         "static-false")
        return right(f"{action} is unreachable even in the delete relaxation",
                     "relaxed-unreachable")
    task = ctx.info.task
    if any(a.applicable(task.init) for a in variants):
        return wrong(f"{action} is applicable in the current state", "in-state")
    limited = False
    for a in variants:
        status = reach_condition(task, task.init, a.pre_pos, a.pre_neg,
                                 time_limit=ctx.time_limit)
        if status is Status.SOLVED:
            return wrong(f"a plan reaches a state where {action} is applicable",
                         "planner-solved")
        limited = limited or status is Status.UNKNOWN
    if limited:
        return unknown(f"the search for a state where {action} applies hit the "
                       f"{ctx.time_limit:g} s limit")
    return right(f"search proves that {action} never becomes applicable",
                 "planner-unsolvable")


def score_areach(q: Question, response: object, ctx: ScoreContext) -> Score:
    return _score_claim("areach", "never-applicable action", q, response, ctx,
                        ctx.info.action_problem, action_reachability)
