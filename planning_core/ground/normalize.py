"""ADL -> conjunctive lifted forms, as a list of named pure passes.

This is the normalisation step of Fast Downward's translator (Helmert 2009, section 5),
re-done so that every pass returns new objects (FD mutates its task in place). The result
(``NormalTask``) has only conjunctions of literals in preconditions, effect conditions, axiom
bodies and goals, which is what the Datalog grounder (``reachability.py``) joins over.

Passes, in order (``FORMULA_PASSES`` is the readable list):

1. ``expand_imply``: ``(imply a b)`` -> ``(or (not a) b)``.
2. ``push_negation``: negation normal form; ``not`` only on atoms and equalities.
3. ``simplify``: constant folding of ``(= a b)`` on objects, true/false under and/or.
4. ``to_dnf``: disjunctive normal form with ``exists`` pulled out (bound variables renamed
   apart). Each disjunct of a precondition becomes an action *variant* (same printed name,
   ``variant`` index); its existential variables become extra, unprinted parameters (FD's
   "external parameters"). When a DNF would exceed ``DNF_LIMIT`` disjuncts, disjunctions are
   compiled into fresh derived predicates instead (one axiom per disjunct, Tseitin style).

Universal quantifiers (``forall``, and ``not exists`` after NNF) are not expanded lifted: a
``forall`` subformula stays in the conjunction as a ``Residual``. The relaxation ignores it
(as FD's does: FD turns it into a negated derived predicate, which its relaxation ignores
too), and the grounder instantiates it per ground action with ``ground_formula``, which
expands the quantifier over the typed objects and folds static atoms, equalities and
unreachable atoms on the way. Expanding lifted would multiply disjunctions per object
(airport's ``forall ?s: blocked-by-static -> not occupied`` has 3^|segments| disjuncts);
grounded, the statics decide almost every disjunction and a plain conjunction of literals
is left, so ground actions stay axiom-free, which scorers, landmarks and LM-cut want.

Effects are flattened (``flatten_effects``): ``forall`` variables and the existential
variables of a ``when`` condition become effect parameters (``exists x. c(x) -> e`` equals
``forall x. c(x) -> e`` when ``e`` does not mention ``x``), each DNF disjunct of a condition
yields its own conditional effect, and ``increase (total-cost)`` becomes the action's cost.

Goals are ground formulas: the grounder folds them with ``ground_formula``; a conjunction of
literals is kept as is, anything else is compiled into a fresh derived atom ``(__goal)`` with
one axiom per disjunct, so no extra action appears in plans (FD adds an axiom too). Derived predicates become one
``NormAxiom`` per DNF disjunct of their body; body variables not in the head are existential.
Equality literals are kept and resolved while grounding.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import Callable

from planning_core.limits import active_budget
from planning_core.errors import UnsupportedFeature
from planning_core.pddl.features import first_pddl21_feature
from planning_core.pddl import ast as pddl
from planning_core.pddl.types import objects_by_type

DNF_LIMIT = 512
FALSE = pddl.Or(())
TRUE = pddl.And(())


# --------------------------------------------------------------------- normal forms

@dataclass(frozen=True, slots=True)
class Literal:
    """``atom`` is an ``A.Atom`` or an ``A.Equals``; ``negated`` flips it."""

    atom: pddl.Atom | pddl.Equals
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Residual:
    """A universally quantified subformula left for the grounder (see module docstring)."""

    formula: pddl.Formula


@dataclass(frozen=True, slots=True)
class NormEffect:
    parameters: tuple[pddl.TypedName, ...]
    condition: tuple[Literal, ...]
    atom: pddl.Atom
    delete: bool


@dataclass(frozen=True, slots=True)
class NormAction:
    name: str
    variant: int
    parameters: tuple[pddl.TypedName, ...]      # printed in plans
    extra: tuple[pddl.TypedName, ...]           # existential precondition variables
    precondition: tuple[Literal, ...]
    effects: tuple[NormEffect, ...]
    cost: pddl.NumericExpr | None

    @property
    def all_parameters(self) -> tuple[pddl.TypedName, ...]:
        return self.parameters + self.extra


@dataclass(frozen=True, slots=True)
class NormAxiom:
    head: pddl.Atom                             # args are distinct variables
    parameters: tuple[pddl.TypedName, ...]      # head variables
    extra: tuple[pddl.TypedName, ...]           # body-only variables
    body: tuple[Literal, ...]


@dataclass(frozen=True, slots=True)
class NormalTask:
    domain: pddl.Domain
    problem: pddl.Problem
    objects: dict                            # type -> sorted objects (A.types.objects_by_type)
    actions: tuple[NormAction, ...]
    axioms: tuple[NormAxiom, ...]
    goal: pddl.Formula                          # NNF, folded per grounding
    uses_costs: bool


# ----------------------------------------------------------------- formula passes

def expand_imply(f: pddl.Formula) -> pddl.Formula:
    if isinstance(f, pddl.Imply):
        return pddl.Or((pddl.Not(expand_imply(f.antecedent)), expand_imply(f.consequent)))
    if isinstance(f, (pddl.And, pddl.Or)):
        return type(f)(tuple(expand_imply(p) for p in f.parts))
    if isinstance(f, pddl.Not):
        return pddl.Not(expand_imply(f.body))
    if isinstance(f, (pddl.Exists, pddl.Forall)):
        return type(f)(f.parameters, expand_imply(f.body))
    return f


def push_negation(f: pddl.Formula, negate: bool = False) -> pddl.Formula:
    if isinstance(f, pddl.Not):
        return push_negation(f.body, not negate)
    if isinstance(f, (pddl.And, pddl.Or)):
        cls = type(f) if not negate else (pddl.Or if isinstance(f, pddl.And) else pddl.And)
        return cls(tuple(push_negation(p, negate) for p in f.parts))
    if isinstance(f, (pddl.Exists, pddl.Forall)):
        cls = type(f) if not negate else (pddl.Forall if isinstance(f, pddl.Exists) else pddl.Exists)
        return cls(f.parameters, push_negation(f.body, negate))
    if isinstance(f, pddl.Imply):
        return push_negation(expand_imply(f), negate)
    return pddl.Not(f) if negate else f


def substitute(f: pddl.Formula, sub: dict) -> pddl.Formula:
    if not sub:
        return f
    if isinstance(f, pddl.Atom):
        return pddl.Atom(f.predicate, tuple(sub.get(t, t) for t in f.args), f.pos)
    if isinstance(f, pddl.Equals):
        return pddl.Equals(sub.get(f.left, f.left), sub.get(f.right, f.right), f.pos)
    if isinstance(f, pddl.Not):
        return pddl.Not(substitute(f.body, sub))
    if isinstance(f, (pddl.And, pddl.Or)):
        return type(f)(tuple(substitute(p, sub) for p in f.parts))
    if isinstance(f, (pddl.Exists, pddl.Forall)):
        inner = {k: v for k, v in sub.items() if k not in {p.name for p in f.parameters}}
        return type(f)(f.parameters, substitute(f.body, inner))
    raise TypeError(f"not a formula: {f!r}")


def domain_of(param: pddl.TypedName, objects: dict) -> tuple[str, ...]:
    """Objects a variable ranges over (``either`` = sorted union)."""
    if len(param.types) == 1:
        return objects.get(param.types[0], ())
    return tuple(sorted({o for t in param.types for o in objects.get(t, ())}))


def simplify(f: pddl.Formula) -> pddl.Formula:
    """Fold ``(= o1 o2)`` on objects; flatten nested and/or; absorb true/false."""
    if isinstance(f, pddl.Equals):
        if not pddl.is_variable(f.left) and not pddl.is_variable(f.right):
            return TRUE if f.left == f.right else FALSE
        return TRUE if f.left == f.right else f
    if isinstance(f, pddl.Not):
        body = simplify(f.body)
        if body == TRUE:
            return FALSE
        if body == FALSE:
            return TRUE
        return pddl.Not(body)
    if isinstance(f, (pddl.And, pddl.Or)):
        unit, zero = (TRUE, FALSE) if isinstance(f, pddl.And) else (FALSE, TRUE)
        parts: list = []
        for p in f.parts:
            p = simplify(p)
            if p == zero:
                return zero
            if p == unit:
                continue
            parts.extend(p.parts if type(p) is type(f) else (p,))
        parts = list(dict.fromkeys(parts))
        return parts[0] if len(parts) == 1 else type(f)(tuple(parts))
    if isinstance(f, (pddl.Exists, pddl.Forall)):
        body = simplify(f.body)
        if body == FALSE and isinstance(f, pddl.Exists):
            return FALSE
        if body == TRUE and isinstance(f, pddl.Forall):
            return TRUE
        return type(f)(f.parameters, body)
    return f


FORMULA_PASSES: tuple[Callable, ...] = (expand_imply, push_negation, simplify)


def normalize_formula(f: pddl.Formula) -> pddl.Formula:
    """Run ``FORMULA_PASSES``: NNF without ``imply``, folded."""
    for p in FORMULA_PASSES:
        f = p(f)
    return f


def ground_formula(f: pddl.Formula, objects: dict, truth: Callable) -> pddl.Formula:
    """Fold a ground NNF formula: quantifiers expanded over their typed objects, atoms
    replaced by ``truth(atom_tuple)`` when that is True/False (None keeps the atom).
    Returns ``TRUE``, ``FALSE``, a literal, or an and/or of those (no quantifiers)."""
    if isinstance(f, pddl.Atom):
        v = truth((f.predicate,) + f.args)
        return f if v is None else (TRUE if v else FALSE)
    if isinstance(f, pddl.Not):
        inner = ground_formula(f.body, objects, truth)
        return FALSE if inner == TRUE else TRUE if inner == FALSE else pddl.Not(inner)
    if isinstance(f, pddl.Equals):
        return TRUE if f.left == f.right else FALSE
    if isinstance(f, (pddl.Forall, pddl.Exists)):
        names = [p.name for p in f.parameters]
        doms = [domain_of(p, objects) for p in f.parameters]
        cls = pddl.And if isinstance(f, pddl.Forall) else pddl.Or
        parts = (substitute(f.body, dict(zip(names, combo))) for combo in itertools.product(*doms))
        return _fold(cls, parts, objects, truth)
    if isinstance(f, (pddl.And, pddl.Or)):
        return _fold(type(f), f.parts, objects, truth)
    raise TypeError(f"not a formula: {f!r}")


def _fold(cls, parts, objects, truth) -> pddl.Formula:
    # a quantifier over 6 variables and 40 objects has 4e9 instances: every one is a work
    # item of the active budget (limits.metering), so folding stops at the CPU or memory
    # limit instead of running for minutes
    budget = active_budget()
    unit, zero = (TRUE, FALSE) if cls is pddl.And else (FALSE, TRUE)
    out: list = []
    for p in parts:
        if budget is not None:
            budget.tick()
        g = ground_formula(p, objects, truth)
        if g == zero:
            return zero
        if g == unit:
            continue
        out.extend(g.parts if type(g) is cls else (g,))
    out = list(dict.fromkeys(out))
    return out[0] if len(out) == 1 else cls(tuple(out))


# ------------------------------------------------------------------------------ DNF

Conjunct = tuple  # (variables: tuple[TypedName], literals: tuple[Literal])


class _Context:
    """Fresh names and the axioms invented while compiling one task (local to the pass)."""

    def __init__(self) -> None:
        self.counter = 0
        self.axioms: list[NormAxiom] = []

    def fresh_var(self, name: str) -> str:
        self.counter += 1
        return f"{name}#{self.counter}"   # '#' cannot occur in a PDDL name: no capture

    def fresh_predicate(self, stem: str) -> str:
        self.counter += 1
        return f"__{stem}{self.counter}"


def _rename(params: tuple[pddl.TypedName, ...], ctx: _Context) -> tuple[tuple, dict]:
    new = tuple(pddl.TypedName(ctx.fresh_var(p.name), p.types) for p in params)
    return new, {p.name: n.name for p, n in zip(params, new)}


def _free_vars(f: pddl.Formula, bound: frozenset = frozenset()) -> set[str]:
    if isinstance(f, pddl.Atom):
        return {t for t in f.args if pddl.is_variable(t) and t not in bound}
    if isinstance(f, pddl.Equals):
        return {t for t in (f.left, f.right) if pddl.is_variable(t) and t not in bound}
    if isinstance(f, pddl.Not):
        return _free_vars(f.body, bound)
    if isinstance(f, (pddl.And, pddl.Or)):
        return set().union(*(_free_vars(p, bound) for p in f.parts)) if f.parts else set()
    if isinstance(f, (pddl.Exists, pddl.Forall)):
        return _free_vars(f.body, bound | {p.name for p in f.parameters})
    return set()


def to_dnf(f: pddl.Formula, scope: dict, ctx: _Context) -> list[Conjunct]:
    """DNF of an NNF formula without ``forall``; ``scope`` maps variables to TypedNames.

    Existential variables are renamed apart and returned with each disjunct. A conjunction
    whose expansion would pass ``DNF_LIMIT`` gets its disjunctive parts replaced by fresh
    derived atoms (an axiom per disjunct), which keeps the size linear.
    """
    if isinstance(f, (pddl.Atom, pddl.Equals)):
        return [((), (Literal(f),))]
    if isinstance(f, pddl.Forall):
        return [((), (Residual(f),))]
    if isinstance(f, pddl.Not):
        return [((), (Literal(f.body, True),))]
    if isinstance(f, pddl.Or):
        out: list[Conjunct] = []
        for p in f.parts:
            out.extend(to_dnf(p, scope, ctx))
        return out
    if isinstance(f, pddl.Exists):
        params, sub = _rename(f.parameters, ctx)
        inner = dict(scope)
        inner.update({p.name: p for p in params})
        return [(params + v, lits) for v, lits in to_dnf(substitute(f.body, sub), inner, ctx)]
    if isinstance(f, pddl.And):
        parts = [(p, to_dnf(p, scope, ctx)) for p in f.parts]
        size = 1
        for _, d in parts:
            size *= max(len(d), 1)
        if size > DNF_LIMIT:
            parts.sort(key=lambda pd: -len(pd[1]))
            compiled = []
            for formula, d in parts:
                if size > DNF_LIMIT and len(d) > 1:
                    size //= len(d)
                    d = [((), (Literal(_compile_disjunction(formula, d, scope, ctx)),))]
                compiled.append((formula, d))
            parts = compiled
        result: list[Conjunct] = [((), ())]
        for _, d in parts:
            result = [(v1 + v2, l1 + l2) for v1, l1 in result for v2, l2 in d]
        return result
    raise TypeError(f"to_dnf expects a normalised formula, got {f!r}")


def _compile_disjunction(formula, dnf, scope, ctx) -> pddl.Atom:
    free = sorted(_free_vars(formula))
    head = pddl.Atom(ctx.fresh_predicate("or"), tuple(free))
    params = tuple(scope.get(v, pddl.TypedName(v)) for v in free)
    for variables, lits in dnf:
        ctx.axioms.append(NormAxiom(head, params, variables, lits))
    return head


def dnf_of(f: pddl.Formula, scope: dict, ctx: _Context) -> list[Conjunct]:
    """Normalise then DNF; a top-level DNF over the limit becomes one derived atom."""
    d = to_dnf(normalize_formula(f), scope, ctx)
    if len(d) > DNF_LIMIT:
        d = [((), (Literal(_compile_disjunction(f, d, scope, ctx)),))]
    return d


# -------------------------------------------------------------------------- effects

def substitute_effect(e: pddl.Effect, sub: dict) -> pddl.Effect:
    if isinstance(e, pddl.Add):
        return pddl.Add(substitute(e.atom, sub))
    if isinstance(e, pddl.Delete):
        return pddl.Delete(substitute(e.atom, sub))
    if isinstance(e, pddl.When):
        return pddl.When(substitute(e.condition, sub), tuple(substitute_effect(x, sub) for x in e.effects),
                         at_start=e.at_start)
    if isinstance(e, pddl.ForallEffect):
        inner = {k: v for k, v in sub.items() if k not in {p.name for p in e.parameters}}
        return pddl.ForallEffect(e.parameters, tuple(substitute_effect(x, inner) for x in e.effects))
    if isinstance(e, pddl.Increase):
        return e if not sub else pddl.Increase(e.fluent, _substitute_num(e.amount, sub), e.pos)
    raise TypeError(f"not an effect: {e!r}")


def _substitute_num(x, sub):
    if isinstance(x, pddl.FunctionTerm):
        return pddl.FunctionTerm(x.name, tuple(sub.get(t, t) for t in x.args), x.pos)
    if isinstance(x, pddl.BinaryOp):
        return pddl.BinaryOp(x.op, _substitute_num(x.left, sub), _substitute_num(x.right, sub), x.pos)
    return x


def flatten_effects(effects, scope: dict, ctx: _Context, file: str | None,
                    params=(), cond=()) -> tuple[list[NormEffect], list]:
    """Flatten nested ``forall``/``when`` into ``NormEffect``s; collect cost increases."""
    out: list[NormEffect] = []
    costs: list = []
    for e in effects:
        if isinstance(e, (pddl.Add, pddl.Delete)):
            out.append(NormEffect(params, cond, e.atom, isinstance(e, pddl.Delete)))
        elif isinstance(e, pddl.When):
            for variables, lits in dnf_of(e.condition, scope, ctx):
                inner = dict(scope)
                inner.update({v.name: v for v in variables})
                o, c = flatten_effects(e.effects, inner, ctx, file, params + variables,
                                       cond + lits)
                out += o
                costs += c
        elif isinstance(e, pddl.ForallEffect):
            new, sub = _rename(e.parameters, ctx)
            inner = dict(scope)
            inner.update({v.name: v for v in new})
            body = tuple(substitute_effect(x, sub) for x in e.effects)
            o, c = flatten_effects(body, inner, ctx, file, params + new, cond)
            out += o
            costs += c
        elif isinstance(e, pddl.Increase):
            pos = e.pos
            if e.fluent.name != "total-cost" or e.fluent.args:
                raise UnsupportedFeature(f"numeric fluent {e.fluent} (only total-cost is supported)",
                                         file=file, line=pos and pos.line, column=pos and pos.column)
            if params or cond:
                raise UnsupportedFeature("a cost increase under forall/when is not supported",
                                         file=file, line=pos and pos.line, column=pos and pos.column)
            costs.append(e.amount)
        else:
            raise TypeError(f"not an effect: {e!r}")
    return out, costs


# ---------------------------------------------------------------------------- tasks

def normalize_action(action: pddl.Action, ctx: _Context,
                     file: str | None = None) -> list[NormAction]:
    scope = {p.name: p for p in action.parameters}
    effects, costs = flatten_effects(action.effects, scope, ctx, file)
    cost = None
    for c in costs:
        cost = c if cost is None else pddl.BinaryOp("+", cost, c)
    return [NormAction(action.name, i, action.parameters, variables, lits, tuple(effects), cost)
            for i, (variables, lits) in enumerate(dnf_of(action.precondition, scope, ctx))]


def normalize_derived(d: pddl.DerivedPredicate, ctx: _Context) -> list[NormAxiom]:
    head = pddl.Atom(d.head.name, tuple(p.name for p in d.head.parameters))
    scope = {p.name: p for p in d.head.parameters}
    return [NormAxiom(head, d.head.parameters, variables, lits)
            for variables, lits in dnf_of(d.body, scope, ctx)]


def normalize(domain: pddl.Domain, problem: pddl.Problem) -> NormalTask:
    """Domain + problem -> ``NormalTask`` (pure: inputs are not touched)."""
    feature = first_pddl21_feature(domain, problem)
    if feature is not None:
        pos = feature.pos
        raise UnsupportedFeature(f"{feature.what} needs numeric fluents or durative actions "
                                 "(PDDL 2.1), which the grounder does not support yet "
                                 "('validate' does)", file=feature.file,
                                 line=pos and pos.line, column=pos and pos.column)
    objects = objects_by_type(domain, problem)
    ctx = _Context()
    actions: list[NormAction] = []
    budget = active_budget()
    for a in domain.actions:
        if budget is not None:
            budget.tick(64)
        actions += normalize_action(a, ctx, domain.filename)
    axioms: list[NormAxiom] = []
    for d in domain.derived:
        axioms += normalize_derived(d, ctx)
    goal = normalize_formula(problem.goal)
    # (:metric minimize (total-time)) in a classical problem: every action takes one time
    # unit, so the cost is the plan length (unit costs), as VAL reports it
    uses_costs = (problem.metric is not None and problem.metric.direction == "minimize"
                  and str(problem.metric.expression) != "(total-time)")
    return NormalTask(domain, problem, objects, tuple(actions), tuple(axioms + ctx.axioms),
                      goal, uses_costs)
