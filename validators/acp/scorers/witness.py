"""Deciding a ``None`` answer (reach, areach, land) by looking for a witness.

``None`` claims that nothing has the asked property: no well-formed atom over the fluent
predicates is unreachable (reach), no well-formed ground action is never applicable
(areach), no non-trivial atom is a landmark (land). A non-empty stored set refutes the
claim at once. An empty stored set is the dataset's claim that nothing was found; it is
checked here by computation unless the caller trusts it (``trust_stored_none``), because
the dev split has stored-empty questions that computation refutes (floor-tile reach:
painted tiles can never be clear again, a relaxation proof; grid-visit-all land: the
robot must stand on every unvisited place, confirmed by brute-force search).

The witness search enumerates the candidates in sorted order and runs the cheap proofs over
all of them first (statics, the delete relaxation), so a witness is usually found without
search. Then, for reach and areach, one breadth-first exploration from the state covers all
candidates at once (novel states first): it stops as soon as every candidate atom has been true (every candidate
action applicable) in some reached state, which proves ``None`` right; when it exhausts the
reachable states first, an uncovered candidate is a witness (``planner-unsolvable``). For
land, one plan from the state clears every atom it never makes true (that plan avoids it),
and only the atoms on the plan get the delete-relaxation test and then the exact landmark
test. Everything is bounded by the context's deterministic budget; past it, the remaining
candidates are searched one by one with the scorer's own decision, passed in as ``decide``
(this module imports no scorer). The result is memoised per problem.
"""
from __future__ import annotations

import itertools
from typing import Callable, Iterator

from planning_core.ground.facts import bits
from planning_core.heuristics.relaxed import goal_relaxed_reachable
from planning_core.pddl import ast as pddl
from planning_core.result import Status

from planning_core.validators.acp.answers.values import GroundName
from planning_core.validators.acp.problem import ProblemInfo
from planning_core.validators.acp.records import Score
from planning_core.validators.acp.scorers.base import (ScoreContext, goal_plan, right, unknown,
                                                       wrong)
from planning_core.validators.acp.scorers.queries import explore

__all__ = ["Decide", "candidate_actions", "candidate_atoms", "none_verdict"]

Decide = Callable[[ScoreContext, GroundName], Score]
"""A scorer's verdict on one candidate answer (reach: an atom, areach: an action, land: an
atom); right (1) means the candidate is a witness against ``None``."""


def _ground(info: ProblemInfo, name: str, params: tuple[pddl.TypedName, ...]
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


def _explore(ctx: ScoreContext, covers: Callable[[int, list], int], need: int
             ) -> tuple[int, int, bool]:
    """:func:`~.queries.explore` from the question's state within the context's budget."""
    task = ctx.info.task
    return explore(task, task.init, covers, need, budget=ctx.budget)


def _first(candidates, mask: int):
    """The first (sorted) candidate whose bit is in ``mask``."""
    return candidates[(mask & -mask).bit_length() - 1]


def _reach_witness(ctx: ScoreContext, decide: Decide) -> Score:
    info, task = ctx.info, ctx.info.task
    atoms = candidate_atoms(info)
    for atom in atoms:  # cheap proofs first
        fact = (atom.name, *atom.args)
        if not task.holds_statically(fact) and task.never_true(fact):
            return wrong(f"{atom} can never hold (delete relaxation)", "relaxed-unreachable")
    by_fact = {task.facts.id((a.name, *a.args)): a for a in atoms
               if not task.holds_statically((a.name, *a.args))}
    need = 0
    for i in by_fact:
        need |= 1 << i
    # an atom is covered by a state where it holds: the state itself is the coverage mask
    left, states, exhausted = _explore(ctx, lambda state, _acts: state, need)
    if not left:
        return right(f"one exploration from the state ({states} states) made every one of "
                     f"the {len(atoms)} well-formed fluent atoms true: every atom is "
                     "reachable", "all-checked")
    uncovered = sorted(by_fact[i] for i in bits(left))
    if exhausted:
        return wrong(f"None is wrong: {uncovered[0]} never holds in any of the {states} "
                     "states reachable from the state (exhaustive search)",
                     "planner-unsolvable")
    return _search_each(ctx, uncovered, decide, "atom", "every well-formed atom over the "
                        "fluent predicates is reachable")


def _areach_witness(ctx: ScoreContext, decide: Decide) -> Score:
    actions = candidate_actions(ctx.info)
    for action in actions:
        if not ctx.info.ground_actions(action):
            return wrong(f"{action} can never be applied (delete relaxation or a false "
                         "static precondition)", "relaxed-unreachable")
    bit: dict[int, int] = {}  # id of a ground action -> bit of its candidate
    for k, action in enumerate(actions):
        for a in ctx.info.ground_actions(action):
            bit[id(a)] = bit.get(id(a), 0) | 1 << k

    def covers(_state: int, acts) -> int:
        out = 0
        for a in acts:
            out |= bit.get(id(a), 0)
        return out

    left, states, exhausted = _explore(ctx, covers, (1 << len(actions)) - 1)
    if not left:
        return right(f"one exploration from the state ({states} states) applied every one "
                     f"of the {len(actions)} well-formed ground actions: every action can "
                     "become applicable", "all-checked")
    if exhausted:
        action = _first(actions, left)
        return wrong(f"None is wrong: {action} applies in none of the {states} states "
                     "reachable from the state (exhaustive search)", "planner-unsolvable")
    return _search_each(ctx, [a for k, a in enumerate(actions) if left >> k & 1], decide,
                        "action", "every well-formed ground action can become applicable")


def _land_witness(ctx: ScoreContext, decide: Decide) -> Score:
    info, task = ctx.info, ctx.info.task
    status, plan_atoms = goal_plan(ctx)
    if status is Status.UNSOLVABLE:
        return wrong("no plan exists, so every atom is (vacuously) a landmark",
                     "planner-unsolvable")
    if status is Status.UNKNOWN:
        return unknown(f"deciding whether the task is solvable ran out of "
                       f"{ctx.limit_text()}")
    facts = []
    for atom in candidate_atoms(info):
        fact = (atom.name, *atom.args)
        i = task.facts.get(fact)
        if i is None or fact in info.init_atoms or task.never_true(fact):
            continue  # never true in a solvable task, or trivial: not a witness
        if task.goal_pos >> i & 1 or (info.goal_atoms is not None and fact in info.goal_atoms):
            continue
        if not plan_atoms >> i & 1:
            continue  # a plan avoids it: not a landmark
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
        return unknown(f"{limited} {what}(s) could not be decided within "
                       f"{ctx.limit_text()}")
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
