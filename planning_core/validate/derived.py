"""Derived predicates (PDDL 2.2 axioms): stratification and the per-state fixpoint.

A derived atom holds exactly when it follows from the state by the ``:derived`` rules, read
as a stratified logic program (Thiébaux, Hoffmann & Nebel 2005, "In defense of PDDL
axioms"; Apt, Blair & Walker 1988 for stratified negation). Strata come from the dependency
graph: ``p`` depends on every derived predicate in its rules' bodies, positively or, under an
odd number of negations (``not``, the antecedent of ``imply``), negatively. A positive
dependency may stay in the same stratum, a negative one forces a strictly higher stratum; a
cycle through a negative edge has no stratification and is reported as a domain error.

Evaluation is bottom-up, stratum by stratum: within a stratum every rule is tried on every
typed head binding until nothing new is derived (the least fixpoint; the strata below are
complete, so negation only ever looks at finished atoms). Lifted: the head bindings come
from the problem's objects of the head's parameter types, no grounding step.
"""
from __future__ import annotations

from itertools import product

from planning_core.errors import SemanticError
from planning_core.pddl import ast as pddl
from planning_core.validate.formulas import Cond, compile_formula, conjuncts

__all__ = ["DerivedRules", "dependencies", "stratify"]


def dependencies(f: pddl.Formula, derived: frozenset[str], positive: bool = True,
                 out: dict[str, bool] | None = None) -> dict[str, bool]:
    """Derived predicates used in ``f`` -> True if only ever used positively."""
    out = {} if out is None else out
    if isinstance(f, pddl.Atom):
        if f.predicate in derived:
            out[f.predicate] = out.get(f.predicate, True) and positive
    elif isinstance(f, pddl.Not):
        dependencies(f.body, derived, not positive, out)
    elif isinstance(f, (pddl.And, pddl.Or)):
        for p in f.parts:
            dependencies(p, derived, positive, out)
    elif isinstance(f, pddl.Imply):
        dependencies(f.antecedent, derived, not positive, out)
        dependencies(f.consequent, derived, positive, out)
    elif isinstance(f, (pddl.Exists, pddl.Forall)):
        dependencies(f.body, derived, positive, out)
    return out


def stratify(rules: tuple[pddl.DerivedPredicate, ...], file: str | None = None
             ) -> tuple[tuple[str, ...], ...]:
    """Derived predicate names grouped by stratum, lowest first (names sorted inside)."""
    names = frozenset(r.head.name for r in rules)
    edges: dict[str, dict[str, bool]] = {n: {} for n in names}
    for r in rules:
        deps = dependencies(r.body, names)
        for q, pos in deps.items():
            edges[r.head.name][q] = edges[r.head.name].get(q, True) and pos
    level = {n: 0 for n in names}
    changed = True
    while changed:
        changed = False
        for p, deps in edges.items():
            for q, pos in deps.items():
                need = level[q] if pos else level[q] + 1
                if need > level[p]:
                    if need > len(names):
                        rule = next(r for r in rules if r.head.name == p)
                        pos_ = rule.pos
                        raise SemanticError(
                            f"derived predicate {p} depends negatively on itself (through "
                            f"{q}); the :derived rules cannot be stratified", file=file,
                            line=pos_.line if pos_ else None,
                            column=pos_.column if pos_ else None)
                    level[p] = need
                    changed = True
    top = max(level.values(), default=-1)
    return tuple(tuple(sorted(n for n in names if level[n] == k)) for k in range(top + 1))


def _seed_atom(body: pddl.Formula, head: frozenset[str], not_ready: frozenset[str]
               ) -> tuple[pddl.Atom | None, frozenset[str]]:
    """A positive atom every true instance of ``body`` needs, binding most head variables.

    Looks through ``exists`` and nested ``and`` only (where a conjunct must hold), and only
    at predicates already complete when the rule's stratum runs (``not_ready`` holds the
    derived predicates of this stratum and above). Returns the atom and the head variables
    it really refers to (an ``exists`` may rebind a head variable's name).
    """
    while isinstance(body, pddl.Exists):
        head = head - {p.name for p in body.parameters}
        body = body.body
    best, best_vars = None, frozenset()
    for part in conjuncts(body):
        part_vars = head
        if isinstance(part, pddl.Exists):
            part, part_vars = _seed_atom(part, head, not_ready)
        if isinstance(part, pddl.Atom) and part.predicate not in not_ready:
            covered = part_vars & set(part.args)
            if len(covered) > len(best_vars):
                best, best_vars = part, covered
    return best, best_vars


class _Rule:
    """One ``:derived`` rule, with the atom its candidate heads are drawn from (if any).

    Trying every typed head binding costs ``objects ** arity`` body evaluations per
    fixpoint round. When the body needs a positive atom over a predicate that is complete
    (a fluent, or derived in a lower stratum), only the head bindings that atom matches in
    the state can possibly hold; the body still decides each of them, so seeding changes
    the cost and never the answer.
    """

    __slots__ = ("name", "variables", "types", "type_sets", "body", "seed", "seed_slots")

    def __init__(self, rule: pddl.DerivedPredicate, file: str | None,
                 not_ready: frozenset[str]) -> None:
        params = rule.head.parameters
        self.name = rule.head.name
        self.variables = tuple(p.name for p in params)
        self.types = tuple(p.types for p in params)
        self.type_sets = tuple(frozenset(t) for t in self.types)
        self.body: Cond = compile_formula(rule.body, frozenset(self.variables), file)
        self.seed, seed_vars = _seed_atom(rule.body, frozenset(self.variables), not_ready)
        # For each argument of the seed atom: head-variable index, or -1 (anything else).
        self.seed_slots = (tuple(self.variables.index(a) if a in seed_vars else -1
                                 for a in self.seed.args) if self.seed else ())

    def candidates(self, by_predicate: dict, universe):
        """Head bindings worth trying: all typed ones, or those the seed atom matches."""
        domains = [universe.objects_of(t) for t in self.types]
        if self.seed is None:
            yield from product(*domains)
            return
        seen = set()
        consts = [(i, a) for i, a in enumerate(self.seed.args) if not a.startswith("?")]
        for atom in by_predicate.get(self.seed.predicate, ()):
            if len(atom) != len(self.seed_slots) + 1:
                continue
            if any(atom[i + 1] != c for i, c in consts):
                continue
            fixed: list = [None] * len(self.variables)
            consistent = True
            for pos, slot in enumerate(self.seed_slots):
                if slot >= 0:
                    value = atom[pos + 1]
                    if fixed[slot] is not None and fixed[slot] != value:
                        consistent = False
                        break
                    fixed[slot] = value
            if not consistent or any(v is not None and not universe.fits(v, self.type_sets[i])
                                     for i, v in enumerate(fixed)):
                continue
            options = [(v,) if v is not None else domains[i] for i, v in enumerate(fixed)]
            for combo in product(*options):
                if combo not in seen:
                    seen.add(combo)
                    yield combo


class DerivedRules:
    """The domain's rules, compiled and stratified once; :meth:`close` runs per state."""

    __slots__ = ("names", "strata")

    def __init__(self, domain: pddl.Domain) -> None:
        file = domain.filename
        self.names = frozenset(r.head.name for r in domain.derived)
        layers = stratify(domain.derived, file)
        rules_by_name: dict[str, list[pddl.DerivedPredicate]] = {}
        for r in domain.derived:
            rules_by_name.setdefault(r.head.name, []).append(r)
        strata = []
        for k, layer in enumerate(layers):
            not_ready = frozenset(n for upper in layers[k:] for n in upper)
            strata.append(tuple(_Rule(r, file, not_ready)
                                for n in layer for r in rules_by_name[n]))
        self.strata = tuple(strata)

    def close(self, base: set, universe) -> set:
        """``base`` plus every derived atom that follows from it (a new set)."""
        state = set(base)
        budget = getattr(universe, "budget", None)   # a head over 6 variables: 4e9 bindings
        for layer in self.strata:
            by_predicate: dict[str, list[tuple]] = {}
            for atom in state:
                by_predicate.setdefault(atom[0], []).append(atom)
            changed = True
            while changed:
                changed = False
                for rule in layer:
                    name, variables = rule.name, rule.variables
                    for combo in rule.candidates(by_predicate, universe):
                        if budget is not None:
                            budget.tick()
                        atom = (name,) + combo
                        if atom in state:
                            continue
                        if rule.body(state, dict(zip(variables, combo)), universe):
                            state.add(atom)
                            changed = True
        return state
