"""PDDL3 trajectory constraints, checked on the sequence of states a plan visits.

The semantics are those of Gerevini & Long (2005), "Plan constraints and preferences in
PDDL3", over the trajectory ``s0, s1, ..., sn`` (``s0`` the initial state, ``sk`` the state
after step ``k``):

* ``(always f)``: ``f`` holds in every ``si``;
* ``(sometime f)``: ``f`` holds in some ``si``;
* ``(at-most-once f)``: ``f`` becomes true at most once (at most one maximal run of
  states where it holds);
* ``(sometime-before f g)``: whenever ``f`` holds in ``si``, ``g`` held in some ``sj``, j < i;
* ``(sometime-after f g)``: whenever ``f`` holds in ``si``, ``g`` holds in some ``sj``, j >= i;
* ``(at end f)``: ``f`` holds in ``sn``;

under ``and`` and ``forall`` over typed objects. Constraints are hard: a plan that breaks
one is invalid. Each constraint is compiled once into a closure over the whole trajectory
that returns the first violation, so the report can name the state where it happened.
"""
from __future__ import annotations

from itertools import product
from typing import Callable

from planning_core.nodes import node
from planning_core.pddl import ast as pddl
from planning_core.validate.formulas import compile_formula, formula_text

__all__ = ["Violation", "compile_constraint"]


@node
class Violation:
    """``constraint`` (ground PDDL text) is broken; ``state`` is the index of the state
    where it shows (0: the initial state, k: after step k), None when no single state is
    to blame (a ``sometime`` that never happened)."""

    constraint: str
    state: int | None
    reason: str

    def where(self, steps) -> str:
        """Where it shows, in words (``steps``: the plan's steps, to name the one after
        which the state comes)."""
        if self.state is None:
            return "along the plan"
        if self.state == 0:
            return "in the initial state"
        return f"in the state after step {self.state} {steps[self.state - 1]}"

    def describe(self, steps) -> str:
        """The one sentence a report gives: which constraint, where, and why."""
        return f"The constraint {self.constraint} is violated {self.where(steps)}: {self.reason}"


Check = Callable[[list, dict, object], "Violation | None"]


def compile_constraint(c, scope: frozenset[str] = frozenset(), file: str | None = None) -> Check:
    """Closure ``(states, binding, universe) -> first Violation or None``."""
    if isinstance(c, pddl.ConstraintAnd):
        parts = tuple(compile_constraint(p, scope, file) for p in c.parts)

        def all_of(states, b, u):
            for part in parts:
                found = part(states, b, u)
                if found is not None:
                    return found
            return None
        return all_of
    if isinstance(c, pddl.ConstraintForall):
        names = tuple(p.name for p in c.parameters)
        types = tuple(p.types for p in c.parameters)
        body = compile_constraint(c.body, scope | set(names), file)

        def for_all(states, b, u):
            for combo in product(*(u.objects_of(t) for t in types)):
                if u.budget is not None:
                    u.budget.tick()
                inner = dict(b)
                inner.update(zip(names, combo))
                found = body(states, inner, u)
                if found is not None:
                    return found
            return None
        return for_all
    if isinstance(c, (pddl.Always, pddl.Sometime, pddl.AtMostOnce, pddl.AtEnd)):
        f = compile_formula(c.body, scope, file)
        kind = type(c)

        def unary(states, b, u):
            truth = [f(s, b, u) for s in states]
            text = constraint_text(c, b)
            if kind is pddl.Always:
                if not all(truth):
                    return Violation(text, truth.index(False), "is false in this state")
            elif kind is pddl.Sometime:
                if not any(truth):
                    return Violation(text, None, "is never true along the plan")
            elif kind is pddl.AtEnd:
                if not truth[-1]:
                    return Violation(text, len(states) - 1, "is false in the final state")
            else:  # at-most-once: a second rising edge breaks it
                runs = 0
                for i, now in enumerate(truth):
                    if now and (i == 0 or not truth[i - 1]):
                        runs += 1
                        if runs == 2:
                            return Violation(text, i, "becomes true for the second time here")
            return None
        return unary
    if isinstance(c, (pddl.SometimeBefore, pddl.SometimeAfter)):
        f = compile_formula(c.body, scope, file)
        other = c.before if isinstance(c, pddl.SometimeBefore) else c.after
        g = compile_formula(other, scope, file)
        before = isinstance(c, pddl.SometimeBefore)

        def binary(states, b, u):
            f_true = [f(s, b, u) for s in states]
            g_true = [g(s, b, u) for s in states]
            text = constraint_text(c, b)
            if before:
                for i, now in enumerate(f_true):
                    if now and not any(g_true[:i]):
                        return Violation(text, i, "its first formula holds here, but the "
                                         "second never held before")
            else:
                last_g = max((i for i, now in enumerate(g_true) if now), default=-1)
                for i, now in enumerate(f_true):
                    if now and i > last_g:
                        return Violation(text, i, "its first formula holds here, but the "
                                         "second never holds from here on")
            return None
        return binary
    raise TypeError(f"not a trajectory constraint: {c!r}")


def constraint_text(c, b: dict) -> str:
    """PDDL text of a constraint with the bound variables replaced."""
    if isinstance(c, pddl.Always):
        return f"(always {formula_text(c.body, b)})"
    if isinstance(c, pddl.Sometime):
        return f"(sometime {formula_text(c.body, b)})"
    if isinstance(c, pddl.AtMostOnce):
        return f"(at-most-once {formula_text(c.body, b)})"
    if isinstance(c, pddl.AtEnd):
        return f"(at end {formula_text(c.body, b)})"
    if isinstance(c, pddl.SometimeBefore):
        return f"(sometime-before {formula_text(c.body, b)} {formula_text(c.before, b)})"
    if isinstance(c, pddl.SometimeAfter):
        return f"(sometime-after {formula_text(c.body, b)} {formula_text(c.after, b)})"
    if isinstance(c, pddl.ConstraintAnd):
        return "(and" + "".join(" " + constraint_text(p, b) for p in c.parts) + ")"
    if isinstance(c, pddl.ConstraintForall):
        params = " ".join(p.name + " - " + p.type for p in c.parameters)
        inner = {k: v for k, v in b.items() if k not in {p.name for p in c.parameters}}
        return f"(forall ({params}) {constraint_text(c.body, inner)})"
    raise TypeError(f"not a trajectory constraint: {c!r}")
