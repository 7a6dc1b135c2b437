"""The objects a plan may name, with their types: what quantifiers range over.

Two layers, each computed once and cached by the simulator:

* :class:`~planning_core.pddl.types.TypeHierarchy` (per domain, shared with the checker):
  every type with all its ancestors, ``object`` the root of every type.
* :class:`Universe` (per problem): the domain's constants and the problem's objects, each
  with the closed set of types it belongs to, and ``type -> objects`` tables in declaration
  order (constants first), the order VAL expands quantifiers in, so advice lists instances
  the way VAL does.
"""
from __future__ import annotations

from planning_core.pddl import ast as pddl
from planning_core.pddl.types import TypeHierarchy

__all__ = ["TypeHierarchy", "Universe"]

class Universe:
    """Objects and constants of one problem, by name and by type."""

    __slots__ = ("types_of", "declared", "_by_type", "budget")

    def __init__(self, hierarchy: TypeHierarchy, domain: pddl.Domain, problem: pddl.Problem) -> None:
        self.types_of: dict[str, frozenset[str]] = {}
        self.declared: dict[str, tuple[str, ...]] = {}
        for obj in domain.constants + problem.objects:
            if obj.name in self.types_of:  # declared twice: the types add up
                self.declared[obj.name] = tuple(dict.fromkeys(self.declared[obj.name] + obj.types))
                self.types_of[obj.name] = self.types_of[obj.name] | hierarchy.closure(obj.types)
            else:
                self.declared[obj.name] = obj.types
                self.types_of[obj.name] = hierarchy.closure(obj.types)
        self._by_type: dict[tuple[str, ...], tuple[str, ...]] = {}
        self.budget = None

    def metered(self, budget) -> Universe:
        """The same objects (tables shared) with a ``planning_core.limits.Budget``: every
        quantifier that ranges over objects ticks it, so nested ``exists`` in a derived
        predicate stops at the limit instead of running on (one plan took 131 s). A copy per
        validation, so that validations in other threads keep their own budgets."""
        u = Universe.__new__(Universe)
        u.types_of, u.declared, u._by_type, u.budget = (self.types_of, self.declared,
                                                       self._by_type, budget)
        return u

    def objects_of(self, types: tuple[str, ...]) -> tuple[str, ...]:
        """Objects of any of ``types`` (one type, or the members of an ``either``)."""
        if self.budget is not None:
            self.budget.tick()
        hit = self._by_type.get(types)
        if hit is None:
            wanted = set(types)
            hit = tuple(name for name, ts in self.types_of.items() if not wanted.isdisjoint(ts))
            self._by_type[types] = hit
        return hit

    def fits(self, name: str, types: frozenset[str]) -> bool:
        """Whether object ``name`` may fill a parameter of one of ``types``."""
        own = self.types_of.get(name)
        return own is not None and not own.isdisjoint(types)
