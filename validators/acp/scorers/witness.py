"""Deciding a ``None`` answer (reach, areach, land) by looking for a witness.

``None`` claims that nothing has the asked property: no well-formed atom over the fluent
predicates is unreachable (reach), no well-formed ground action is never applicable
(areach), no non-trivial atom is a landmark (land). A non-empty stored set refutes the
claim at once. An empty stored set is the dataset's claim that nothing was found; it is
checked here by computation unless the caller trusts it (``trust_stored_none``), because
the dev split has stored-empty questions that computation refutes (floor-tile reach:
painted tiles can never be clear again, a relaxation proof; grid-visit-all land: the
robot must stand on every unvisited place, confirmed by brute-force search).

The witness search runs the cheap proofs first (statics, the delete relaxation), by
counting: a predicate or action schema with more well-formed ground forms than the task can
ever make true (or apply) has a witness, the first of which (in sorted order) is found by
enumerating that schema up to it; so a witness is usually found without search, and
without building every candidate (an untyped domain with 4-ary actions has hundreds of
thousands). Then, for reach and areach, one breadth-first exploration from the state covers all
candidates at once (novel states first): it stops as soon as every candidate atom has been true (every candidate
action applicable) in some reached state, which proves ``None`` right; when it exhausts the
reachable states first, an uncovered candidate is a witness (``planner-unsolvable``). For
land, one plan from the state clears every atom it never makes true (that plan avoids it),
and only the atoms on the plan get the delete-relaxation test and then the exact landmark
test; the plan found by each test (one that avoids the tested atom) clears in turn every
candidate it avoids, so a few searches usually decide them all. Everything is bounded by the context's deterministic budget; past it, the remaining
candidates are searched one by one with the scorer's own decision, passed in as ``decide``
(this module imports no scorer). The result is memoised per problem.
"""
from __future__ import annotations

import itertools
from typing import Callable, Iterator

from planning_core.ground.facts import bits
from planning_core.heuristics.landmarks import relaxed_landmarks
from planning_core.pddl import ast as pddl
from planning_core.result import Status

from planning_core.validators.acp.answers.values import GroundName
from planning_core.validators.acp.problem import ProblemInfo
from planning_core.validators.acp.records import Score
from planning_core.validators.acp.scorers.base import (ScoreContext, goal_plan, right, unknown,
                                                       wrong)
from planning_core.validators.acp.scorers.queries import explore, plan_facts

__all__ = ["Decide", "candidate_actions", "candidate_atoms", "explore_actions", "none_verdict"]

Decide = Callable[[ScoreContext, GroundName], Score]
"""A scorer's verdict on one candidate answer (reach: an atom, areach: an action, land: an
atom); right (1) means the candidate is a witness against ``None``."""


def _domains(info: ProblemInfo, params: tuple[pddl.TypedName, ...]) -> list[list[str]]:
    """The sorted objects each parameter may take (its types and their subtypes)."""
    by_type = info.objects_by_type()
    return [sorted(set().union(*(by_type.get(t, ()) for t in p.types))) for p in params]


def _ground(info: ProblemInfo, name: str, params: tuple[pddl.TypedName, ...]
            ) -> Iterator[GroundName]:
    for args in itertools.product(*_domains(info, params)):
        yield GroundName(name, args)


def _count(domains: list[list[str]]) -> int:
    n = 1
    for d in domains:
        n *= len(d)
    return n


def _fits(args: tuple[str, ...], domains: list[set[str]]) -> bool:
    return len(args) == len(domains) and all(a in d for a, d in zip(args, domains))


def _first_missing(info: ProblemInfo, name: str, params, present: set[tuple[str, ...]]
                   ) -> GroundName | None:
    """The first (sorted) well-formed ``name(args)`` whose args are not in ``present``."""
    for args in itertools.product(*_domains(info, params)):
        if args not in present:
            return GroundName(name, args)
    return None


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


def _relaxed_atom_witness(info: ProblemInfo) -> tuple[GroundName | None, dict[int, GroundName]]:
    """The first (sorted) well-formed fluent atom that can never hold by the delete
    relaxation, or None and the fact id -> atom of every well-formed fluent fact that can.

    Counting instead of enumerating: a predicate whose well-formed atoms outnumber its
    possible ones (static or relaxed-reachable) has a witness, found by enumerating that
    predicate only up to it; in an untyped domain every predicate has one early (an atom
    such as ``(on crate0 crate0)``), so the enumeration stops at once instead of building
    every atom (seconds for the 4-ary actions of untyped depots)."""
    task = info.task
    by_pred: dict[str, set[tuple[str, ...]]] = {}
    for atom in task.static_atoms:
        by_pred.setdefault(atom[0], set()).add(tuple(atom[1:]))
    possible: dict[int, tuple] = {}
    for i, atom in enumerate(task.facts.atoms):
        if not task.never_true(atom):
            by_pred.setdefault(atom[0], set()).add(tuple(atom[1:]))
            possible[i] = atom
    sets_of: dict[str, list[set[str]]] = {}   # fluent predicate -> its parameters' objects
    for pred in sorted(info.domain.predicates, key=lambda p: p.name):
        if info.is_static(pred.name):
            continue
        domains = _domains(info, pred.parameters)
        sets = sets_of[pred.name] = [set(d) for d in domains]
        present = {args for args in by_pred.get(pred.name, ()) if _fits(args, sets)}
        if len(present) < _count(domains):
            return _first_missing(info, pred.name, pred.parameters, present), {}
    alive: dict[int, GroundName] = {}
    for i, atom in possible.items():
        sets = sets_of.get(atom[0])
        if sets is not None and atom not in task.static_atoms and _fits(tuple(atom[1:]), sets):
            alive[i] = GroundName(atom[0], tuple(atom[1:]))
    return None, alive


def _relaxed_action_witness(info: ProblemInfo) -> tuple[GroundName | None, list[GroundName]]:
    """The first (sorted) well-formed ground action that is not a ground action of the
    task (never applicable by the delete relaxation or a false static precondition), or
    None and every well-formed ground action, sorted (counting as in
    :func:`_relaxed_atom_witness`)."""
    names: dict[str, set[tuple[str, ...]]] = {}
    for a in info.task.actions:
        names.setdefault(a.name, set()).add(a.args)
    out: list[GroundName] = []
    for action in sorted(info.domain.actions, key=lambda a: a.name):
        domains = _domains(info, action.parameters)
        sets = [set(d) for d in domains]
        present = {args for args in names.get(action.name, ()) if _fits(args, sets)}
        if len(present) < _count(domains):
            return _first_missing(info, action.name, action.parameters, present), []
        out.extend(GroundName(action.name, args) for args in sorted(present))
    return None, out


def _explore(ctx: ScoreContext, covers: Callable[[int, list], int], need: int
             ) -> tuple[int, int, bool]:
    """:func:`~.queries.explore` from the question's state within the context's budget."""
    task = ctx.info.task
    return explore(task, task.init, covers, need, budget=ctx.budget)


def explore_actions(info: ProblemInfo, actions, budget: int) -> tuple[int, int, bool]:
    """One exploration from the state (:func:`~.queries.explore`) until every action of
    ``actions`` (ground names) has been applicable somewhere: ``(never applied: a mask over
    ``actions``, states generated, exhausted)``."""
    bit: dict[int, int] = {}  # id of a ground action -> bit of its name in ``actions``
    for k, action in enumerate(actions):
        for a in info.ground_actions(action):
            bit[id(a)] = bit.get(id(a), 0) | 1 << k

    def covers(_state: int, acts) -> int:
        out = 0
        for a in acts:
            out |= bit.get(id(a), 0)
        return out

    task = info.task
    return explore(task, task.init, covers, (1 << len(actions)) - 1, budget=budget)


def _first(candidates, mask: int):
    """The first (sorted) candidate whose bit is in ``mask``."""
    return candidates[(mask & -mask).bit_length() - 1]


def _reach_witness(ctx: ScoreContext, decide: Decide) -> Score:
    witness, by_fact = _relaxed_atom_witness(ctx.info)  # cheap proofs first
    if witness is not None:
        return wrong(f"{witness} can never hold (delete relaxation)", "relaxed-unreachable")
    need = 0
    for i in by_fact:
        need |= 1 << i
    # an atom is covered by a state where it holds: the state itself is the coverage mask
    left, states, exhausted = _explore(ctx, lambda state, _acts: state, need)
    if not left:
        return right(f"one exploration from the state ({states} states) made every "
                     f"well-formed fluent atom true ({len(by_fact)} that are not static): "
                     "every atom is reachable", "all-checked")
    uncovered = sorted(by_fact[i] for i in bits(left))
    if exhausted:
        return wrong(f"None is wrong: {uncovered[0]} never holds in any of the {states} "
                     "states reachable from the state (exhaustive search)",
                     "planner-unsolvable")
    return _search_each(ctx, uncovered, decide, "atom", "every well-formed atom over the "
                        "fluent predicates is reachable")


def _areach_witness(ctx: ScoreContext, decide: Decide) -> Score:
    witness, actions = _relaxed_action_witness(ctx.info)
    if witness is not None:
        return wrong(f"{witness} can never be applied (delete relaxation or a false "
                     "static precondition)", "relaxed-unreachable")
    left, states, exhausted = explore_actions(ctx.info, actions, ctx.budget)
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


def _land_candidates(ctx: ScoreContext, plan_atoms: int) -> list[tuple[GroundName, int]]:
    """(atom, fact id) of every non-trivial well-formed fluent atom among the facts
    ``plan_atoms``, sorted: on a plan, only these can be landmarks (the plan avoids every
    other atom)."""
    info, task = ctx.info, ctx.info.task
    goal = info.goal_atoms or frozenset()
    out = []
    # derived atoms included: a derived atom can be a landmark (the single-atom scorer
    # accepts one), and the searches forbid it after the axioms are evaluated
    for i in bits(plan_atoms & ~task.init & ~task.goal_pos):
        fact = task.facts.atom(i)
        if info.is_static(fact[0]) or fact in info.init_atoms or fact in goal:
            continue
        name = GroundName(fact[0], tuple(fact[1:]))
        if info.atom_problem(name) is None:
            out.append((name, i))
    return sorted(out)


def _land_witness(ctx: ScoreContext, decide: Decide) -> Score:
    """Landmarks among the atoms on one plan. Every plan found while testing one atom
    (a plan that avoids it) also clears every candidate it avoids, so the candidates
    shrink to the atoms common to all plans found; usually a few searches decide all
    (the exact test of :func:`~.queries.is_landmark` for the rest)."""
    task = ctx.info.task
    relaxed = relaxed_landmarks(task, task.init)
    if relaxed is None:
        return wrong("no plan exists (the goal is unreachable even in the delete "
                     "relaxation), so every atom is (vacuously) a landmark", "planner-unsolvable")
    for atom, _ in _land_candidates(ctx, relaxed):
        # one fixpoint for every fact instead of one relaxed exploration per candidate
        return wrong(f"{atom} is a landmark: without it the goal is unreachable even in "
                     "the delete relaxation", "landmark-test")
    status, plan_atoms = goal_plan(ctx)
    if status is Status.UNSOLVABLE:
        return wrong("no plan exists, so every atom is (vacuously) a landmark",
                     "planner-unsolvable")
    if status is Status.UNKNOWN:
        return unknown(f"deciding whether the task is solvable ran out of "
                       f"{ctx.limit_text()}")
    candidates = _land_candidates(ctx, plan_atoms)  # none is a relaxed landmark (above)
    limited = 0
    checked = len(candidates)
    while candidates:
        (atom, i), candidates = candidates[0], candidates[1:]
        found, along = plan_facts(task, task.init, budget=ctx.budget,
                                  time_limit=ctx.time_limit, forbidden=1 << i)
        if found is Status.SOLVED:
            candidates = [(a, j) for a, j in candidates if along >> j & 1]
        elif found is Status.UNSOLVABLE:
            return wrong(f"None is wrong: every plan makes {atom} true: the task without it "
                         "is unsolvable", "landmark-test")
        else:
            limited += 1
    if limited:
        return unknown(f"{limited} atom(s) could not be decided within {ctx.limit_text()}")
    return right(f"checked all {checked} candidate atoms on a plan: no non-trivial atom is "
                 "a landmark", "all-checked")


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
