"""Fast folding of universally quantified residues (``normalize.Residual``) per ground action.

``normalize.ground_formula`` substitutes AST nodes object by object, which costs
|objects| allocations per quantifier per ground action (airport: hundreds of segments times
tens of thousands of moves). Here a residue is compiled once per schema into closures over
the binding list, and a quantifier only visits the objects that can matter, found by an
index lookup on a *guard* literal, in the spirit of FD's treatment of universal conditions
as joins (Helmert 2009, section 5.3):

* ``forall x. (... or (not g(x, y)) or ...)``: where ``g`` is false the disjunction is true,
  so only the ``x`` with ``g(x, y)`` reachable (or static-true) need a look;
* ``exists x. (... and g(x, y) and ...)``: only the ``x`` with ``g(x, y)`` reachable can
  satisfy the conjunction.

Static atoms fold to true/false, unreachable atoms to false; what is left is returned as an
and/or of ground literals (``ast`` nodes) for the DNF step.
"""
from __future__ import annotations

import itertools
from operator import itemgetter
from typing import Callable

from planning_core.errors import SemanticError
from planning_core.ground.normalize import FALSE, TRUE, domain_of
from planning_core.pddl import ast as pddl


class ResidualCompiler:
    """Compiles residues for one grounding (``reached`` facts, ``static`` predicates)."""

    def __init__(self, dl, static: frozenset, objects: dict) -> None:
        self.dl = dl
        self.reached = dl.facts
        self.static = static
        self.objects = objects

    def compile(self, formulas: tuple, slots: dict) -> tuple[Callable, int]:
        """-> (evaluate(binding list) -> folded formula, number of slots it needs)."""
        self._next = max(slots.values(), default=-1) + 1
        fn = self._formula(pddl.And(tuple(formulas)), dict(slots))
        return fn, self._next

    # ------------------------------------------------------------------ compiling
    def _term(self, t: str, slots: dict):
        if not pddl.is_variable(t):
            return t
        if t not in slots:
            raise SemanticError(f"undeclared variable {t} in a quantified condition")
        return slots[t]

    def _atom(self, a: pddl.Atom, slots: dict, negated: bool) -> Callable:
        pred = a.predicate
        tmpl = tuple(self._term(t, slots) for t in a.args)
        known = self.reached.setdefault(pred, set())
        static = pred in self.static
        if all(type(t) is int for t in tmpl):
            getter = itemgetter(*tmpl) if len(tmpl) > 1 else (
                (lambda b, s=tmpl[0]: (b[s],)) if tmpl else (lambda b: ()))
        else:
            getter = lambda b: tuple([b[t] if type(t) is int else t for t in tmpl])  # noqa: E731
        yes, no = (False, True) if negated else (True, False)

        def ev(b):
            args = getter(b)
            if args not in known:
                return no
            if static:
                return yes
            return (negated, (pred,) + args)
        return ev

    def _formula(self, f, slots: dict) -> Callable:
        if isinstance(f, pddl.Atom):
            return self._atom(f, slots, False)
        if isinstance(f, pddl.Not):
            if isinstance(f.body, pddl.Atom):
                return self._atom(f.body, slots, True)
            raise TypeError("residues are in negation normal form")
        if isinstance(f, pddl.Equals):
            left, right = self._term(f.left, slots), self._term(f.right, slots)
            gl = (lambda b: b[left]) if type(left) is int else (lambda b: left)
            gr = (lambda b: b[right]) if type(right) is int else (lambda b: right)
            return lambda b: gl(b) == gr(b)
        if isinstance(f, (pddl.And, pddl.Or)):
            parts = [self._formula(p, slots) for p in f.parts]
            kind = AND if isinstance(f, pddl.And) else OR
            return lambda b: _fold(kind, (p(b) for p in parts))
        if isinstance(f, (pddl.Forall, pddl.Exists)):
            return self._quantifier(f, slots)
        raise TypeError(f"not a formula: {f!r}")

    def _quantifier(self, f, slots: dict) -> Callable:
        inner = dict(slots)
        qslots = []
        for p in f.parameters:
            inner[p.name] = self._next
            qslots.append((self._next, tuple(domain_of(p, self.objects))))
            self._next += 1
        body = self._formula(f.body, inner)
        is_forall = isinstance(f, pddl.Forall)
        kind = AND if is_forall else OR
        enumerate_ = self._enumerator(f, inner, qslots, is_forall)

        def quant(b):
            return _fold(kind, (body(b) for _ in enumerate_(b)))
        return quant

    def _enumerator(self, f, slots: dict, qslots: list, is_forall: bool) -> Callable:
        """Generator over bindings of the quantified slots, guarded when possible."""
        qset = {s for s, _ in qslots}
        body = f.body
        parts = body.parts if isinstance(body, (pddl.Or if is_forall else pddl.And)) else (body,)
        guard = None
        for p in parts:
            lit = p.body if is_forall and isinstance(p, pddl.Not) else (p if not is_forall else None)
            if isinstance(lit, pddl.Atom):
                tmpl = tuple(self._term(t, slots) for t in lit.args)
                covered = {t for t in tmpl if type(t) is int} & qset
                if covered and (guard is None or len(covered) > len(guard[2])):
                    guard = (lit.predicate, tmpl, covered)
        domains = {s: d for s, d in qslots}
        if guard is None:
            order = [s for s, _ in qslots]

            def product(b):
                for combo in itertools.product(*(domains[s] for s in order)):
                    for s, v in zip(order, combo):
                        b[s] = v
                    yield
            return product
        pred, tmpl, covered = guard
        positions = tuple(i for i, t in enumerate(tmpl) if not (type(t) is int and t in qset))
        table = self.dl.index(pred, positions)
        key_src = tuple(tmpl[i] for i in positions)
        binders = [(i, t) for i, t in enumerate(tmpl) if type(t) is int and t in qset]
        rest = [s for s, _ in qslots if s not in covered]
        sets = {s: frozenset(d) for s, d in qslots}

        def guarded(b):
            key = tuple([b[t] if type(t) is int else t for t in key_src])
            if len(key) == 1:
                key = key[0]
            for args in table.get(key, ()):
                ok = True
                seen: dict = {}
                for i, s in binders:
                    v = args[i]
                    if v not in sets[s] or seen.setdefault(s, v) != v:
                        ok = False
                        break
                    b[s] = v
                if not ok:
                    continue
                if rest:
                    for combo in itertools.product(*(domains[s] for s in rest)):
                        for s, v in zip(rest, combo):
                            b[s] = v
                        yield
                else:
                    yield
        return guarded


AND, OR = "and", "or"


def _fold(kind: str, results):
    """Fold and/or over results that are True, False, a literal ``(negated, atom)`` or a
    node ``(kind, parts)``. Plain tuples and bools: hashing and comparing stay in C."""
    unit = kind is AND
    out: list = []
    for g in results:
        if g is True or g is False:
            if g is unit:
                continue
            return g
        if g[0] is kind:
            out.extend(g[1])
        else:
            out.append(g)
    if not out:
        return unit
    if len(out) == 1:
        return out[0]
    return (kind, tuple(dict.fromkeys(out)))


def dnf(g, limit: int) -> list[tuple[list, list]] | None:
    """Alternatives ``[(pos atoms, neg atoms)]`` of a folded residue; ``None`` when the DNF
    would pass ``limit`` (the caller then compiles it with Tseitin atoms)."""
    if g is True:
        return [([], [])]
    if g is False:
        return []
    alts = _dnf(g, limit)
    if alts is None:
        return None
    out = []
    for lits in alts:
        pos = [a for neg, a in lits if not neg]
        negs = [a for neg, a in lits if neg]
        if set(pos) & set(negs):
            continue                                  # p and not p: never applicable
        out.append((pos, negs))
    return out


def _dnf(g, limit):
    if type(g[0]) is bool:
        return [(g,)]
    kind, parts = g
    if kind is OR:
        out = []
        for p in parts:
            d = _dnf(p, limit)
            if d is None:
                return None
            out.extend(d)
            if len(out) > limit:
                return None
        return out
    result = [()]
    for p in parts:
        d = _dnf(p, limit)
        if d is None or len(result) * len(d) > limit:
            return None
        result = [r + x for r in result for x in d]
    return result


def to_ast(g) -> pddl.Formula:
    """Back to ``ast`` (for the Tseitin fallback in ``normalize.to_dnf``)."""
    if g is True:
        return TRUE
    if g is False:
        return FALSE
    if type(g[0]) is bool:
        atom = pddl.Atom(g[1][0], g[1][1:])
        return pddl.Not(atom) if g[0] else atom
    cls = pddl.And if g[0] is AND else pddl.Or
    return cls(tuple(to_ast(p) for p in g[1]))
