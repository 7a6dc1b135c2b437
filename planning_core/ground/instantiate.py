"""Reached instantiations -> ground ``Task`` (FD's ``instantiate`` + simplification steps).

After the relaxed fixpoint (``reachability.py``), every reached action head is turned into
ground actions:

* positive preconditions of static predicates are dropped (the join proved them true);
  negated atoms that are unreachable are dropped (they are always false);
* universally quantified residues (``normalize.Residual``) are folded with
  ``ground_formula`` and put in DNF; each disjunct is a ground variant of the action;
* quantified and conditional effects are instantiated by a join over the reached atoms
  with the action's parameters bound; a delete is only instantiated for an atom that can be
  true, so ``forall (?x) (not (p ?x))`` does not produce the cross product of types;
* ground-static atoms (true initially, never added nor deleted by any ground action) leave
  every condition and the fact set, and are kept as ``Task.static_atoms``.

Ground actions are sorted by (name, args, variant order), facts by atom, axioms by layer and
head, which makes two groundings of one task identical.

Every proto action ticks the run's ``Budget`` and every new bit mask is charged its size
(an int mask over ``n`` facts takes ``n / 8`` bytes, so a task with many facts and many
actions needs memory quadratic in its size: 262,144 actions over as many facts need ~8 GB),
so instantiation stops with ``LimitReached`` at the time or memory limit.
"""
from __future__ import annotations

from dataclasses import replace

from planning_core.errors import SemanticError
from planning_core.ground.facts import Axiom, CondEffect, FactIndex, GroundAction
from planning_core.ground.normalize import (DNF_LIMIT, FALSE, _Context, _free_vars,
                                            ground_formula, to_dnf)
from planning_core.ground.reachability import Datalog
from planning_core.ground.residual import AND, ResidualCompiler, _fold, dnf, to_ast
from planning_core.ground.task import Task
from planning_core.limits import Budget
from planning_core.pddl import ast as pddl

#: Estimated bytes of one proto action (its key, literal lists and tuple) and of one
#: GroundAction (object, id tuples); a mask's own bytes are charged separately.
PROTO_BYTES = 600
ACTION_BYTES = 400
UNSATISFIABLE = ("__unsatisfiable-goal",)
GOAL = ("__goal",)


def _maker(pred: str, tmpl: tuple):
    """Compile ``(pred, template)`` into ``binding -> ground atom tuple``."""
    if not tmpl:
        atom = (pred,)
        return lambda b: atom
    if all(type(t) is int for t in tmpl):
        if len(tmpl) == 1:
            s = tmpl[0]
            return lambda b: (pred, b[s])
        return lambda b: (pred,) + tuple([b[s] for s in tmpl])
    return lambda b: (pred,) + tuple([b[t] if type(t) is int else t for t in tmpl])


def _num(expr, b, slots, values: dict, where: str, file: str | None = None) -> float:
    if expr is None:
        return 0
    if isinstance(expr, pddl.Number):
        return expr.value
    if isinstance(expr, pddl.FunctionTerm):
        key = (expr.name,) + tuple(b[slots[t]] if pddl.is_variable(t) else t for t in expr.args)
        if key not in values:
            # as VAL, which refuses a plan using such an action: never a silent cost of 0
            pos = getattr(expr, "pos", None)
            raise SemanticError(f"the cost ({' '.join(key)}) of {where} has no value in the "
                                f"problem's :init", file=file, line=pos and pos.line,
                                column=pos and pos.column)
        return values[key]
    if isinstance(expr, pddl.BinaryOp):
        x = _num(expr.left, b, slots, values, where, file)
        y = _num(expr.right, b, slots, values, where, file)
        if expr.op == "/":
            if not y:
                raise SemanticError(f"division by zero in the cost of {where}")
            return x / y
        return {"+": x + y, "-": x - y, "*": x * y}[expr.op]
    raise SemanticError(f"unsupported cost expression {expr!r} in {where}")


class _Grounding:
    """State of one instantiation run: reached atoms, the truth oracle for folding, and
    fresh axioms made when a folded residue needs a Tseitin atom."""

    def __init__(self, plan, dl: Datalog, init: set) -> None:
        self.plan = plan
        self.dl = dl
        self.reached = dl.facts
        self.objects = plan.nt.objects
        self.static = plan.static
        self.ctx = _Context()
        self.compiler = ResidualCompiler(dl, plan.static, self.objects)
        self._compiled: dict = {}

    def reachable(self, atom: tuple) -> bool:
        s = self.reached.get(atom[0])
        return s is not None and atom[1:] in s

    def truth(self, atom: tuple):
        if atom[0] in self.static:
            return self.reachable(atom)
        return None if self.reachable(atom) else False

    def alternatives(self, residual: tuple, slots: dict, b) -> list[tuple[list, list]] | None:
        """DNF of the folded residues under binding ``b``: [(pos atoms, neg atoms)], or
        ``None`` when they are unsatisfiable."""
        if not residual:
            return [([], [])]
        parts = []
        for r in residual:
            # disjunctive splits share residues between variants: fold each residue once per
            # binding of its free variables
            found = self._compiled.get(id(r))
            if found is None:
                fn, n = self.compiler.compile((r,), slots)
                free = tuple(sorted(slots[v] for v in _free_vars(r) if v in slots))
                found = self._compiled[id(r)] = (fn, n, free, {}, r)
            fn, n, free, memo, _ = found
            key = tuple([b[i] for i in free])
            v = memo.get(key)
            if v is None:
                v = memo[key] = fn(list(b) + [None] * (n - len(b)))
            if v is False:
                return None
            parts.append(v)
        g = _fold(AND, parts)
        if g is False:
            return None
        alts = dnf(g, DNF_LIMIT)
        if alts is None:                          # too large: Tseitin atoms and axioms
            alts = [_split(lits) for _, lits in to_dnf(to_ast(g), {}, self.ctx)]
        return alts or None

    def release(self) -> None:
        """Drop the fixpoint's atoms and indexes (the largest structures) once instantiated."""
        self.dl.facts.clear()
        self.dl.processed.clear()
        self.dl.indexes.clear()
        self.dl._index_of.clear()
        self._compiled.clear()

    def fresh_axioms(self) -> list:
        return [((ax.head.predicate,), *_split(ax.body)) for ax in self.ctx.axioms]


def _split(lits) -> tuple[list, list]:
    pos, neg = [], []
    for lit in lits:
        atom = (lit.atom.predicate,) + lit.atom.args
        (neg if lit.negated else pos).append(atom)
    return pos, neg


def _effects(g: _Grounding, b: tuple, effects, adds, dels, conds) -> None:
    """Instantiate one action's quantified/conditional effects under its binding ``b``."""
    for e, esch, atom, query in effects:
        if query is None:
            continue                              # simple effects: see _protos
        base = list(b) + [None] * (query.nslots - len(b))
        for full in g.dl.query(query, base):
            ground = (atom[0],) + tuple([full[t] if type(t) is int else t for t in atom[1]])
            cpos = [(p,) + tuple([full[t] if type(t) is int else t for t in tm])
                    for p, tm in esch.pos if p not in g.static]
            cneg = [x for x in ((p,) + tuple([full[t] if type(t) is int else t for t in tm])
                                for p, tm in esch.neg) if g.reachable(x)]
            alts = g.alternatives(esch.residual, esch.slots, full)
            for apos, aneg in alts or ():
                p = cpos + apos
                n = cneg + [x for x in aneg]
                if not p and not n:
                    (dels if e.delete else adds).append(ground)
                else:
                    conds.append((tuple(sorted(set(p))), tuple(sorted(set(n))), e.delete, ground))


def _protos(g: _Grounding, budget: Budget) -> tuple[list, list]:
    """Proto actions ``(key, pre_pos, pre_neg, adds, dels, conds, cost)`` and proto axioms
    ``(head, pos, neg)``, all as atom tuples."""
    plan, nt = g.plan, g.plan.nt
    budget.phase(PROTO_BYTES)
    tick = budget.tick
    values = {(ni.fluent.name,) + ni.fluent.args: ni.value for ni in nt.problem.numeric_init}
    protos = []
    for av, head, sch, effects in plan.actions:
        bindings = g.reached.get(head)
        if not bindings:
            continue
        n = len(av.parameters)
        pos_makers = [_maker(p, t) for p, t in sch.pos if p not in g.static]
        neg_makers = [_maker(p, t) for p, t in sch.neg]
        where = f"action {av.name}"
        add_makers = [_maker(atom[0], atom[1]) for e, _, atom, q in effects
                      if q is None and not e.delete]
        del_makers = [_maker(atom[0], atom[1]) for e, _, atom, q in effects
                      if q is None and e.delete]
        complex_effects = [eff for eff in effects if eff[3] is not None]
        reachable = g.reachable
        residual = sch.residual
        no_alternative = [([], [])]
        for b in sorted(bindings):
            if residual:
                alts = g.alternatives(residual, sch.slots, b)
                if alts is None:
                    continue
            else:
                alts = no_alternative
            pre_pos = [m(b) for m in pos_makers]
            pre_neg = [x for x in (m(b) for m in neg_makers) if reachable(x)]
            adds = [m(b) for m in add_makers]
            dels = [x for x in (m(b) for m in del_makers) if reachable(x)]
            conds: list = []
            if complex_effects:
                _effects(g, b, complex_effects, adds, dels, conds)
            cost = (_num(av.cost, b, sch.slots, values,
                         "action (" + " ".join((av.name,) + tuple(b[:n])) + ")",
                         nt.domain.filename)
                    if nt.uses_costs else 1)
            tick(len(alts))
            for k, (apos, aneg) in enumerate(alts):
                key = (av.name, b[:n], av.variant, k, b[n:])
                protos.append((key, pre_pos + apos, pre_neg + aneg, adds, dels, conds, cost))
    axioms = []
    for ax, rule, sch in plan.axioms:
        head_maker = _maker(ax.head.predicate, rule.head_args)
        pos_makers = [_maker(p, t) for p, t in sch.pos if p not in g.static]
        neg_makers = [_maker(p, t) for p, t in sch.neg]
        for b in sorted(set(g.dl.records.get(id(rule), ()))):
            tick()
            neg = [x for x in (m(b) for m in neg_makers) if g.reachable(x)]
            for apos, aneg in g.alternatives(sch.residual, sch.slots, b) or ():
                axioms.append((head_maker(b), [m(b) for m in pos_makers] + apos, neg + aneg))
    return protos, axioms


def _goal(g: _Grounding, axioms: list) -> tuple[list, list]:
    """Goal literals; a disjunctive goal becomes ``(__goal)`` with one axiom per disjunct."""
    folded = ground_formula(g.plan.nt.goal, g.objects, g.truth)
    if folded == FALSE:
        return [UNSATISFIABLE], []
    alts = [_split(lits) for _, lits in to_dnf(folded, {}, g.ctx)]
    if len(alts) == 1:
        return alts[0]
    for pos, neg in alts:
        axioms.append((GOAL, pos, neg))
    return [GOAL], []


def _layers(plan, axioms: list) -> dict:
    """Lifted strata, extended to fresh ground predicates (``__or``, ``__goal``), which
    only sit above what their bodies mention."""
    level = dict(plan.layers())
    fresh = [ax for ax in axioms if ax[0][0] not in level]
    for _ in range(len(fresh) + 1):
        changed = False
        for head, pos, neg in fresh:
            need = max([level.get(head[0], 0)]
                       + [level[a[0]] for a in pos if a[0] in level]
                       + [level[a[0]] + 1 for a in neg if a[0] in level])
            if level.get(head[0]) != need:
                level[head[0]] = need
                changed = True
        if not changed:
            break
    return level


def instantiate(plan, dl: Datalog, init: set, name: str, budget: Budget | None = None) -> Task:
    """Build the ground Task from a finished fixpoint ``dl`` (see module docstring)."""
    budget = budget if budget is not None else Budget()
    g = _Grounding(plan, dl, init)
    goal_axioms: list = []
    goal_pos, goal_neg = _goal(g, goal_axioms)
    protos, axioms = _protos(g, budget)
    axioms += goal_axioms + g.fresh_axioms()
    g.release()
    layers = _layers(plan, axioms)
    derived_preds = set(layers)

    budget.phase(0)                  # the passes below build little: count time only
    tick = budget.tick
    touched: set = set()
    for _, _, _, adds, dels, conds, _ in protos:
        tick()
        touched.update(adds)
        touched.update(dels)
        touched.update(c[3] for c in conds)
    derived_atoms = {h for h, _, _ in axioms}
    static = frozenset(a for a in init if a not in touched and a[0] not in derived_preds)
    fluent = touched | derived_atoms

    gpos = [a for a in goal_pos if a not in static]
    gneg = [a for a in goal_neg if a in fluent]
    if any(a in static for a in goal_neg):
        gpos.append(UNSATISFIABLE)
    budget.check(rss=True)
    facts = FactIndex(fluent | set(gpos))     # unreachable goal atoms stay, never true
    budget.check(rss=True)
    ids = facts._ids

    interned: dict = {}
    charge = budget.charge

    def mask(atoms) -> tuple[int, tuple[int, ...]]:
        # identical masks are shared: a mask over thousands of facts is a big int, and many
        # actions have the same preconditions or effects (satellite: 430k actions)
        fs = tuple(sorted(set(map(ids.__getitem__, atoms))))
        found = interned.get(fs)
        if found is None:
            if fs:
                charge(fs[-1] >> 3)   # before building it: the int takes highest bit / 8 bytes
            m = 0
            for f in fs:
                m |= 1 << f
            found = interned[fs] = (m, fs)
        return found

    protos.sort(key=lambda pr: pr[0])
    budget.check(rss=True)
    budget.phase(ACTION_BYTES)
    tick = budget.tick
    actions: list[GroundAction] = []
    group_key = None
    group: set = set()
    for i, (key, pre_pos, pre_neg, adds, dels, conds, cost) in enumerate(protos):
        protos[i] = None                          # free as we go
        tick()
        if any(a in static for a in pre_neg):
            continue                              # needs a forever-true atom to be false
        pp, ppi = mask(a for a in pre_pos if a not in static)
        pn, pni = mask(pre_neg)
        ad, adi = mask(adds)
        de, dei = mask(dels)
        grouped: dict = {}
        for cpos, cneg, is_del, atom in conds:
            if any(a in static for a in cneg):
                continue
            cp = tuple(a for a in cpos if a not in static)
            grouped.setdefault((cp, cneg), ([], []))[1 if is_del else 0].append(atom)
        ces = tuple(CondEffect(mask(cp)[0], mask(cn)[0], mask(ca)[0], mask(cd)[0])
                    for (cp, cn), (ca, cd) in sorted(grouped.items()))
        nm, args = key[0], tuple(key[1])
        if (nm, args) != group_key:
            group_key, group = (nm, args), set()
        content = (pp, pn, ad, de, ces, cost)
        if content in group:
            continue                              # same action reached through another witness
        group.add(content)
        actions.append(GroundAction(nm, args, nm, pp, pn, ad, de, ppi, pni, adi, dei, ces, cost,
                                    len(group) - 1))

    ground_axioms = []
    for head, pos, neg in sorted({(h, tuple(p), tuple(n)) for h, p, n in axioms}):
        if any(a in static for a in neg):
            continue
        bp, bpi = mask(a for a in pos if a not in static)
        bn, bni = mask(a for a in neg if a in ids)
        ground_axioms.append(Axiom(ids[head], bp, bn, bpi, bni, layers[head[0]]))
    ground_axioms.sort(key=lambda ax: (ax.layer, ax.head, ax.body_pos_ids, ax.body_neg_ids))
    derived_mask, _ = mask(a for a in fluent if a[0] in derived_preds)
    init_mask, _ = mask(a for a in init if a in ids and a[0] not in derived_preds)
    gp, _ = mask(gpos)
    gn, _ = mask(gneg)
    task = Task(facts, tuple(actions), init_mask, gp, gn, tuple(ground_axioms), static,
                plan.nt.uses_costs, name, derived_mask)
    if task.axioms:
        task = replace(task, init=task.evaluate_axioms(task.init))
    return task
