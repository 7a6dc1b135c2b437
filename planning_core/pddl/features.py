"""Which PDDL 2.1/2.2 features a task uses: numeric conditions and effects, durative
actions, timed initial literals.

The validator picks its numeric or timed simulation from these, and every pass that does
not handle them yet (the grounder) names the first use, located, instead of misreading it.
A classical task has none, and the walk costs one pass over its formulas.
"""
from __future__ import annotations

from planning_core.pddl import ast as pddl

__all__ = ["Pddl21Feature", "comparison_in", "first_pddl21_feature", "is_temporal",
           "numeric_effect_in"]


class Pddl21Feature:
    """A use of a PDDL 2.1/2.2 feature: ``what`` names it, ``pos`` locates it."""

    __slots__ = ("what", "pos", "file")

    def __init__(self, what: str, pos: pddl.Pos | None, file: str | None) -> None:
        self.what, self.pos, self.file = what, pos, file


def _in_formula(f) -> pddl.Comparison | None:
    todo = [f]
    while todo:
        f = todo.pop()
        if isinstance(f, pddl.Comparison):
            return f
        if isinstance(f, (pddl.And, pddl.Or)):
            todo.extend(f.parts)
        elif isinstance(f, (pddl.Not, pddl.Exists, pddl.Forall)):
            todo.append(f.body)
        elif isinstance(f, pddl.Imply):
            todo += [f.antecedent, f.consequent]
    return None


def _in_effects(effects) -> tuple[str, pddl.Pos | None] | None:
    todo = list(effects)
    while todo:
        e = todo.pop()
        if isinstance(e, pddl.NumericEffect):
            return f"the numeric effect '{e.op}'", e.pos
        if isinstance(e, pddl.When):
            c = _in_formula(e.condition)
            if c is not None:
                return f"the numeric comparison '{c.op}'", c.pos
            todo.extend(e.effects)
        elif isinstance(e, pddl.ForallEffect):
            todo.extend(e.effects)
    return None


def first_pddl21_feature(domain: pddl.Domain,
                         problem: pddl.Problem | None = None) -> Pddl21Feature | None:
    """The first durative action, numeric comparison, numeric effect other than
    ``increase``, or timed initial literal of the task, or None for a classical task."""
    for a in domain.actions:
        if a.durative:
            return Pddl21Feature(f"the durative action '{a.name}'", a.pos, domain.filename)
        c = _in_formula(a.precondition)
        if c is not None:
            return Pddl21Feature(f"the numeric comparison '{c.op}'", c.pos, domain.filename)
        found = _in_effects(a.effects)
        if found is not None:
            return Pddl21Feature(found[0], found[1], domain.filename)
    for d in domain.derived:
        c = _in_formula(d.body)
        if c is not None:
            return Pddl21Feature(f"the numeric comparison '{c.op}'", c.pos, domain.filename)
    if problem is not None:
        c = _in_formula(problem.goal)
        if c is not None:
            return Pddl21Feature(f"the numeric comparison '{c.op}'", c.pos, problem.filename)
        if problem.timed_literals:
            til = problem.timed_literals[0]
            return Pddl21Feature("the timed initial literal", til.pos, problem.filename)
    return None


def is_temporal(domain: pddl.Domain, problem: pddl.Problem | None = None) -> bool:
    """Durative actions or timed initial literals: plans are timed (happenings)."""
    return any(a.durative for a in domain.actions) or bool(
        problem is not None and problem.timed_literals)


#: the first comparison inside a formula, or None
comparison_in = _in_formula
#: ``(what, pos)`` of the first numeric effect (other than ``increase``) or comparison in a
#: ``when`` condition inside effects, or None
numeric_effect_in = _in_effects
