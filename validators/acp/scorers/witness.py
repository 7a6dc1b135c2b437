"""Deciding a ``None`` answer (reach, areach, land) by looking for a witness.

``None`` claims that nothing has the asked property: no well-formed atom over the fluent
predicates is unreachable (reach), no well-formed ground action is never applicable
(areach), no non-trivial atom is a landmark (land). A non-empty stored set refutes the
claim at once. An empty stored set is the dataset's claim that nothing was found; it is
checked here by computation unless the caller trusts it (``trust_stored_none``), because
the dev split has stored-empty questions that computation refutes (floor-tile reach:
painted tiles can never be clear again, a relaxation proof; grid-visit-all land: the
robot must stand on every unvisited place, confirmed by brute-force search).

The witness search enumerates the candidates in sorted order, runs the cheap proofs over
all of them first (statics, the delete relaxation) and the searches last, so a witness is
usually found without search; when there is none, every candidate needs its search. The
search for one candidate is the scorer's own decision for it, passed in as ``decide`` (this
module imports no scorer). The result is memoised per problem.
"""
from __future__ import annotations

import itertools
from typing import Callable, Iterator

from planning_core.heuristics.relaxed import goal_relaxed_reachable
from planning_core.pddl import ast as A
from planning_core.result import Status

from planning_core.validators.acp.answers.values import GroundName
from planning_core.validators.acp.problem import ProblemInfo
from planning_core.validators.acp.records import Score
from planning_core.validators.acp.scorers.base import ScoreContext, right, unknown, wrong
from planning_core.validators.acp.scorers.queries import reach_condition

__all__ = ["Decide", "candidate_actions", "candidate_atoms", "none_verdict"]

Decide = Callable[[ScoreContext, GroundName], Score]
"""A scorer's verdict on one candidate answer (reach: an atom, areach: an action, land: an
atom); right (1) means the candidate is a witness against ``None``."""


def _ground(info: ProblemInfo, name: str, params: tuple[A.TypedName, ...]
            ) -> Iterator[GroundName]:
    by_type = info.objects_by_type()
    domains = [sorted(set().union(*(by_type.get(t, ()) for t in p.types))) for p in params]
    for args in itertools.product(*domains):
        yield GroundName(name, args)


def candidate_atoms(info: ProblemInfo, *, fluent_only: bool = True) -> tuple[GroundName, ...]:
    """Every well-formed ground atom (over the fluent predicates), sorted."""
    out = []
    for pred in sorted(info.domain.predicates, key=lambda p: p.name):
        if fluent_only and info.is_static(pred.name):
            continue
        out.extend(_ground(info, pred.name, pred.parameters))
    return tuple(out)


def candidate_actions(info: ProblemInfo) -> tuple[GroundName, ...]:
    """Every well-formed ground action, sorted."""
    out = []
    for action in sorted(info.domain.actions, key=lambda a: a.name):
        out.extend(_ground(info, action.name, action.parameters))
    return tuple(out)


def _reach_witness(ctx: ScoreContext, decide: Decide) -> Score:
    info, task = ctx.info, ctx.info.task
    atoms = candidate_atoms(info)
    for atom in atoms:  # cheap proofs first
        fact = (atom.name, *atom.args)
        if not task.holds_statically(fact) and task.never_true(fact):
            return wrong(f"{atom} can never hold (delete relaxation)", "relaxed-unreachable")
    return _search_each(ctx, atoms, decide, "atom",
                        "every well-formed atom over the fluent predicates is reachable")


def _areach_witness(ctx: ScoreContext, decide: Decide) -> Score:
    actions = candidate_actions(ctx.info)
    for action in actions:
        if not ctx.info.ground_actions(action):
            return wrong(f"{action} can never be applied (delete relaxation or a false "
                         "static precondition)", "relaxed-unreachable")
    return _search_each(ctx, actions, decide, "action",
                        "every well-formed ground action can become applicable")


def _land_witness(ctx: ScoreContext, decide: Decide) -> Score:
    info, task = ctx.info, ctx.info.task
    status = reach_condition(task, task.init, task.goal_pos, task.goal_neg,
                             time_limit=ctx.time_limit)
    if status is Status.UNSOLVABLE:
        return wrong("no plan exists, so every atom is (vacuously) a landmark",
                     "planner-unsolvable")
    if status is Status.UNKNOWN:
        return unknown(f"deciding whether the task is solvable hit the {ctx.time_limit:g} s "
                       "limit")
    facts = []
    for atom in candidate_atoms(info):
        fact = (atom.name, *atom.args)
        i = task.facts.get(fact)
        if i is None or fact in info.init_atoms or task.never_true(fact):
            continue  # never true in a solvable task, or trivial: not a witness
        if task.goal_pos >> i & 1 or (info.goal_atoms is not None and fact in info.goal_atoms):
            continue
        if not goal_relaxed_reachable(task, task.init, forbidden=1 << i):
            return wrong(f"{atom} is a landmark: without it the goal is unreachable even in "
                         "the delete relaxation", "landmark-test")
        facts.append(atom)
    return _search_each(ctx, tuple(facts), decide, "atom", "no non-trivial atom is a landmark")


def _search_each(ctx: ScoreContext, candidates, decide: Decide, what: str,
                 all_clear: str) -> Score:
    limited = 0
    for candidate in candidates:
        verdict = decide(ctx, candidate)
        if verdict.value == 1:
            return wrong(f"None is wrong: {verdict.reason}", verdict.evidence)
        if verdict.value is None:
            limited += 1
    if limited:
        return unknown(f"{limited} {what}(s) could not be decided within the limit")
    return right(f"checked all {len(candidates)} candidate {what}s: {all_clear}",
                 "all-checked")


_WITNESS = {"reach": _reach_witness, "areach": _areach_witness, "land": _land_witness}


def none_verdict(task_name: str, ctx: ScoreContext, stored: frozenset[GroundName],
                 what: str, decide: Decide) -> Score:
    """The verdict on a None answer to a reach, areach or land question; ``decide(ctx,
    candidate)`` is the task's verdict on one candidate answer (right = a witness)."""
    if stored:
        first = sorted(stored)[0]
        return wrong(f"there is a right answer, e.g. the stored {first}", "stored-none")
    if ctx.trust_stored_none:
        return right(f"the dataset stores no {what}: None (trusted)", "stored-none")
    found = ctx.info.none_verdicts.get(task_name)
    if found is None:
        found = _WITNESS[task_name](ctx, decide)
        if found.known:
            ctx.info.none_verdicts[task_name] = found
    return found
