"""The type hierarchy of a domain and the objects of each type in a problem.

PDDL lets a type be used as a parent without its own declaration (``(:types a b - c)``
declares ``c`` implicitly); ``object`` is the root and always exists. ``either`` types are
unions. These tables are computed once per domain/problem and shared by the checker, the
validator and the grounder.
"""
from __future__ import annotations

from planning_core.nodes import node
from planning_core.pddl import ast as pddl

ROOT = "object"


@node
class TypeHierarchy:
    parents: dict  # type -> tuple of parent types (usually one)
    _ancestors: dict  # type -> frozenset of itself and all supertypes, precomputed

    @classmethod
    def of(cls, domain: pddl.Domain) -> "TypeHierarchy":
        parents: dict[str, tuple[str, ...]] = {ROOT: ()}
        for t in domain.types:
            if t.name == ROOT:
                continue
            parents[t.name] = tuple(dict.fromkeys(parents.get(t.name, ()) + t.types))
            for p in t.types:
                parents.setdefault(p, (ROOT,) if p != ROOT else ())
        return cls(parents, {t: _closure(parents, t) for t in parents})

    def declared(self, name: str) -> bool:
        return name in self.parents

    def ancestors(self, name: str) -> frozenset[str]:
        """The type itself and every supertype (``object`` included)."""
        found = self._ancestors.get(name)
        return found if found is not None else frozenset((name, ROOT))

    def closure(self, types: tuple[str, ...]) -> frozenset[str]:
        """All types of something declared ``- t`` or ``- (either t1 t2)``."""
        if len(types) == 1:
            return self.ancestors(types[0])
        return frozenset().union(*(self.ancestors(t) for t in types))

    def is_subtype(self, sub: tuple[str, ...], sup: tuple[str, ...]) -> bool:
        """Whether every object of type(s) ``sub`` is of type(s) ``sup`` (``either`` = union)."""
        return all(any(s in self.ancestors(t) for s in sup) for t in sub)

    def cycles(self) -> tuple[str, ...]:
        return tuple(sorted(t for t in self.parents
                            if any(t in self.ancestors(p) for p in self.parents[t])))


def _closure(parents: dict, name: str) -> frozenset[str]:
    """The type and all its supertypes; cycles are tolerated (the checker reports them)."""
    seen = {name, ROOT}
    todo = [name]
    while todo:
        for p in parents.get(todo.pop(), ()):
            if p not in seen:
                seen.add(p)
                todo.append(p)
    return frozenset(seen)


def object_types(domain: pddl.Domain, problem: pddl.Problem | None = None) -> dict[str, tuple[str, ...]]:
    """Every constant and object with its declared type(s). A name declared twice (a
    domain constant listed again among the problem's objects, maybe with another type) has
    the types of both declarations, as the validator's universe and VAL give it (Fast
    Downward refuses a name declared twice): the checker once let the later one win, and
    refused a goal that used the constant with its domain type."""
    table = {}
    for obj in domain.constants + (problem.objects if problem is not None else ()):
        known = table.get(obj.name)
        table[obj.name] = obj.types if known is None else tuple(dict.fromkeys(known + obj.types))
    return table


def objects_by_type(domain: pddl.Domain, problem: pddl.Problem | None = None) -> dict[str, tuple[str, ...]]:
    """Type -> sorted objects of that type or any subtype (the universe of a quantifier)."""
    hierarchy = TypeHierarchy.of(domain)
    table: dict[str, set[str]] = {t: set() for t in hierarchy.parents}
    for obj, types in object_types(domain, problem).items():
        for t in types:
            for anc in hierarchy.ancestors(t):
                table.setdefault(anc, set()).add(obj)
    return {t: tuple(sorted(objs)) for t, objs in table.items()}
