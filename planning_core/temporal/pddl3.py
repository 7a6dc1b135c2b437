"""PDDL3 trajectory constraints, solved by compiling them to LTLf.

Gerevini & Long (2005) give the state-trajectory constraints of PDDL3 a temporal-logic
reading; without time windows each one is an LTLf formula on the trace ``s0 .. sn`` of
:mod:`planning_core.temporal.ltl` (the same trajectory the validator checks in
``planning_core/validate/constraints.py``):

==========================  =======================================================
``(always f)``              ``G f``
``(sometime f)``            ``F f``
``(at end f)``              ``F (last & f)``: ``f`` in the final state
``(at-most-once f)``        ``G (f -> WX (f | G !f))``: once a run of ``f`` ends, ``f``
                            never holds again (at most one maximal run)
``(sometime-before f g)``   ``!f W (g & !f)``: ``f`` stays false up to and including the
                            first state with ``g``; so whenever ``f`` holds, ``g`` held
                            strictly before
``(sometime-after f g)``    ``G (f -> F g)``: ``g`` now or later, whenever ``f``
==========================  =======================================================

``and`` becomes a conjunction and ``forall`` one conjunct per tuple of objects (PDDL
quantifiers inside the formulas likewise expand over the problem's objects, equality is
decided at once). Domain and problem constraints are conjoined.

The validator keeps its own direct implementation of these semantics on lifted states
instead of calling this module: ``validate`` depends on ``pddl`` only (DESIGN.md), so a
grounding or compilation bug here cannot hide a validation bug there, and the tests use it
as the oracle for this compilation.

Solving (:func:`solve_constrained`): the task is ground as usual (the grounder ignores the
constraints) and searched in the product with the compiled formula
(:func:`planning_core.temporal.product.plan_ltl`): A* with h_max when ``optimal``, greedy
best-first with h_FF otherwise. Fast Downward has no PDDL3 support, so ``engine="fd"``
raises ``UnsupportedFeature`` instead of returning a plan that ignores the constraints.
"""
from __future__ import annotations

import time
from itertools import product
from typing import Iterator

from planning_core.errors import UnsupportedFeature
from planning_core.ground.task import Task
from planning_core.limits import Budget, LimitReached, Limits, metering, tick_active
from planning_core.pddl import ast as pddl
from planning_core.pddl.types import objects_by_type
from planning_core.result import SolveResult, Status
from planning_core.temporal import ltl
from planning_core.temporal.product import ENGINE, plan_ltl

__all__ = ["has_constraints", "constraint_formula", "compile_constraint", "ground_formula",
           "solve_constrained"]


def has_constraints(domain: pddl.Domain, problem: pddl.Problem) -> bool:
    return domain.constraints is not None or problem.constraints is not None


def _objects(params: tuple[pddl.TypedName, ...], universe: dict) -> Iterator[tuple[str, ...]]:
    """The bindings of ``params``, one at a time, each a work item of the active budget
    (a quantifier over 6 variables and 40 objects has 4e9 of them)."""
    pools = []
    for p in params:
        pool: set[str] = set()
        for t in p.types:
            pool.update(universe.get(t, ()))
        pools.append(sorted(pool))
    for combo in product(*pools):
        tick_active()
        yield combo


def _term(t: str, binding: dict) -> str:
    return binding.get(t, t) if pddl.is_variable(t) else t


def ground_formula(f: pddl.Formula, binding: dict, universe: dict) -> ltl.Formula:
    """A PDDL formula as a propositional LTL formula: quantifiers expanded over
    ``universe`` (type -> objects), variables replaced, equality decided."""
    if isinstance(f, pddl.Atom):
        return ltl.Atom(f.predicate, tuple(_term(t, binding) for t in f.args))
    if isinstance(f, pddl.Equals):
        return ltl.Const(_term(f.left, binding) == _term(f.right, binding))
    if isinstance(f, pddl.Not):
        return ltl.Not(ground_formula(f.body, binding, universe))
    if isinstance(f, (pddl.And, pddl.Or)):
        parts = tuple(ground_formula(p, binding, universe) for p in f.parts)
        if not parts:
            return ltl.Const(isinstance(f, pddl.And))
        return parts[0] if len(parts) == 1 else (ltl.And if isinstance(f, pddl.And) else ltl.Or)(parts)
    if isinstance(f, pddl.Imply):
        return ltl.Implies(ground_formula(f.antecedent, binding, universe),
                         ground_formula(f.consequent, binding, universe))
    if isinstance(f, (pddl.Exists, pddl.Forall)):
        names = [p.name for p in f.parameters]
        parts = tuple(ground_formula(f.body, {**binding, **dict(zip(names, combo))}, universe)
                      for combo in _objects(f.parameters, universe))
        if not parts:
            return ltl.Const(isinstance(f, pddl.Forall))
        return parts[0] if len(parts) == 1 else (ltl.And if isinstance(f, pddl.Forall) else ltl.Or)(parts)
    raise TypeError(f"not a PDDL formula: {f!r}")


def compile_constraint(c: pddl.Constraint, binding: dict, universe: dict) -> ltl.Formula:
    """One PDDL3 constraint as LTLf (the table of the module docstring)."""
    def g(f: pddl.Formula) -> ltl.Formula:
        return ground_formula(f, binding, universe)

    if isinstance(c, pddl.Always):
        return ltl.Always(g(c.body))
    if isinstance(c, pddl.Sometime):
        return ltl.Eventually(g(c.body))
    if isinstance(c, pddl.AtEnd):
        return ltl.Eventually(ltl.And((ltl.LAST, g(c.body))))
    if isinstance(c, pddl.AtMostOnce):
        f = g(c.body)
        return ltl.Always(ltl.Implies(f, ltl.WeakNext(ltl.Or((f, ltl.Always(ltl.Not(f)))))))
    if isinstance(c, pddl.SometimeBefore):
        f, before = g(c.body), g(c.before)
        return ltl.WeakUntil(ltl.Not(f), ltl.And((before, ltl.Not(f))))
    if isinstance(c, pddl.SometimeAfter):
        return ltl.Always(ltl.Implies(g(c.body), ltl.Eventually(g(c.after))))
    if isinstance(c, pddl.ConstraintAnd):
        parts = tuple(compile_constraint(p, binding, universe) for p in c.parts)
        return ltl.TRUE if not parts else parts[0] if len(parts) == 1 else ltl.And(parts)
    if isinstance(c, pddl.ConstraintForall):
        names = [p.name for p in c.parameters]
        parts = tuple(compile_constraint(c.body, {**binding, **dict(zip(names, combo))},
                                         universe)
                      for combo in _objects(c.parameters, universe))
        return ltl.TRUE if not parts else parts[0] if len(parts) == 1 else ltl.And(parts)
    raise TypeError(f"not a trajectory constraint: {c!r}")


def constraint_formula(domain: pddl.Domain, problem: pddl.Problem) -> ltl.Formula:
    """The conjunction of the domain's and the problem's constraints as LTLf (``true``
    when there are none)."""
    universe = objects_by_type(domain, problem)
    parts = tuple(compile_constraint(c, {}, universe)
                  for c in (domain.constraints, problem.constraints) if c is not None)
    return ltl.TRUE if not parts else parts[0] if len(parts) == 1 else ltl.And(parts)


def solve_constrained(domain: pddl.Domain, problem: pddl.Problem, *, optimal: bool = True,
                      time_limit: float = 60.0, engine: str = "auto",
                      task: Task | None = None, budget: Budget | None = None) -> SolveResult:
    """Solve a task with trajectory constraints by product search (see the module doc).

    Raises ``UnsupportedFeature`` for ``engine="fd"`` and when the task cannot be ground
    in-process (no engine here could honour the constraints then)."""
    if engine == "fd":
        raise UnsupportedFeature("Fast Downward does not support PDDL3 trajectory "
                                 "constraints (:constraints); use engine 'internal' or "
                                 "'auto', which compile them to LTLf",
                                 file=problem.filename)
    t0 = time.perf_counter()
    budget = budget if budget is not None else Budget(Limits(time_s=time_limit))
    try:
        with metering(budget):          # the compilation's quantifiers tick it too
            formula = constraint_formula(domain, problem)
        if task is None:
            from planning_core.ground.grounder import ground
            task = ground(domain, problem, ignore_constraints=True,  # compiled into the formula
                          budget=budget)
    except LimitReached as stop:
        return SolveResult(Status.UNKNOWN, None, None, ENGINE, time.perf_counter() - t0,
                           (("limit_detail", stop.detail), ("phase", "grounding")), stop.limit)
    ground_s = time.perf_counter() - t0
    res = plan_ltl(task, formula, search="astar" if optimal else "greedy", budget=budget)
    stats = dict(res.stats, ground_s=round(ground_s, 4), facts=len(task.facts),
                 actions=len(task.actions), constraint_size=ltl.size(formula))
    return SolveResult(res.status, res.plan, res.cost, ENGINE, time.perf_counter() - t0,
                       tuple(sorted(stats.items())), res.reason)
