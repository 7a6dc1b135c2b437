"""Lifted task -> ground ``Task``: normalise, explore reachability, instantiate, simplify.

Pipeline (Helmert 2009, sections 5-6, re-done in pure passes):

1. ``normalize``: conjunctive lifted forms (``normalize.py``).
2. ``build_rules`` + ``Datalog.run``: relaxed reachability from the initial atoms
   (``reachability.py``); only reached action instantiations are grounded.
3. ``instantiate`` (``instantiate.py``): ground actions, effects and axioms; conditional and
   quantified effects are instantiated by a join over the reached atoms, universal residues
   are folded per ground action (``residual.py``); static atoms (never added nor deleted by a
   ground action) leave conditions and the fact set but stay in ``Task.static_atoms``; fact
   ids follow sorted atoms and actions (name, args, variant), so grounding is deterministic.

``ground(domain, problem, init_atoms=state)`` grounds from ``state`` instead of the
problem's ``:init``. This is exact for that state (an action unreachable from the problem's
initial state can be reachable from another one), and it is what scorers that ask about
many states of one problem should do; ``GroundingCache`` memoises by (domain, problem,
state). Normalisation, which does not depend on the state, is shared through the cache too.

Measured against Fast Downward's translator (up-fast-downward wheel, subprocess, default
options); CPU seconds (ours: parse + ground in process) and peak RSS; 2-core machine under
load, so wall times are not comparable:

====================  =========  ========  ========  ========  ==================
task                  ours CPU   FD CPU    ours MB   FD MB     actions (ours/FD)
====================  =========  ========  ========  ========  ==================
satellite p36             14.0      45.9       411      1031   430,159 / 419,935
rovers p40                 1.4      14.8        72       423    32,437 /  26,371
tpp p30                    1.7       7.5        90       204    43,440 /  43,440
airport-adl p50            2.5     112.3       124       930    14,807 /  14,807
miconic-fulladl f30-4      0.7       3.6        39        57     7,031 /   6,688
psr-middle p09            0.05      0.22        27        28        31 /      27
logistics00 15-1          0.05      0.19        27        28       670 /     650
blocks 17-0               0.04      0.24        27        29       612 /     578
====================  =========  ========  ========  ========  ==================

FD has fewer actions where its mutex invariants prove a precondition contradictory; ours
are all relaxed-reachable (``tests/ground/test_ipc.py`` checks the atoms against FD's).

Limits: ``ground(..., budget=...)`` meters the fixpoint and instantiation (CPU time and
estimated memory, ``planning_core.limits``); without a budget the default memory limit
(half the memory this process may use) still holds. Hitting a limit raises ``LimitReached``: a task that
grounds to millions of actions ends UNKNOWN at the limit instead of filling the machine.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Iterable

from planning_core.errors import SemanticError, UnsupportedFeature
from planning_core.ground.normalize import NormalTask, Residual, domain_of, normalize
from planning_core.ground.instantiate import instantiate
from planning_core.ground.reachability import Datalog, Rule
from planning_core.ground.facts import parse_atom
from planning_core.ground.task import Task
from planning_core.limits import Budget, metering
from planning_core.pddl import ast as pddl


# ------------------------------------------------------------------------------ rules

@dataclass(frozen=True, slots=True)
class _Schema:
    """A normalised construct with its variables numbered (slot = position in binding)."""

    slots: dict            # variable name -> slot
    pos: tuple             # ((pred, template), ...) positive atoms
    neg: tuple             # ((pred, template), ...) negated atoms on non-static predicates
    filters: tuple         # equality / inequality / negated static atoms
    residual: tuple        # universally quantified subformulas, folded per instance


def _template(atom: pddl.Atom, slots: dict, where: str) -> tuple:
    out = []
    for t in atom.args:
        if pddl.is_variable(t):
            if t not in slots:
                pos = atom.pos
                raise SemanticError(f"undeclared variable {t} in {where}",
                                    line=pos and pos.line, column=pos and pos.column)
            out.append(slots[t])
        else:
            out.append(t)
    return tuple(out)


def _term(t: str, slots: dict, where: str):
    if pddl.is_variable(t):
        if t not in slots:
            raise SemanticError(f"undeclared variable {t} in {where}")
        return slots[t]
    return t


def _schema(literals: Iterable, slots: dict, static: frozenset, where: str) -> _Schema:
    pos, neg, filters, residual = [], [], [], []
    for lit in literals:
        if isinstance(lit, Residual):
            residual.append(lit.formula)
            continue
        a = lit.atom
        if isinstance(a, pddl.Equals):
            filters.append(("neq" if lit.negated else "eq", _term(a.left, slots, where),
                            _term(a.right, slots, where)))
        elif not lit.negated:
            pos.append((a.predicate, _template(a, slots, where)))
        elif a.predicate in static:
            filters.append(("nstatic", a.predicate, _template(a, slots, where)))
        else:
            neg.append((a.predicate, _template(a, slots, where)))
    return _Schema(slots, tuple(pos), tuple(neg), tuple(filters), tuple(residual))


def _domains(params: tuple[pddl.TypedName, ...], objects: dict) -> list[frozenset]:
    return [frozenset(domain_of(p, objects)) for p in params]


class _Plan:
    """Rules for one normalised task, with what instantiation needs to find them again."""

    def __init__(self, nt: NormalTask) -> None:
        self.nt = nt
        added, touched = set(), set()
        for a in nt.actions:
            for e in a.effects:
                touched.add(e.atom.predicate)
                if not e.delete:
                    added.add(e.atom.predicate)
        self.derived = {ax.head.predicate for ax in nt.axioms}
        preds = {p.name for p in nt.domain.predicates} | {a.predicate for a in nt.problem.init}
        self.static = frozenset(preds - touched - self.derived)
        self.rules: list[Rule] = []
        self.actions: list[tuple] = []      # (NormAction, head predicate, _Schema, effects)
        self.axioms: list[tuple] = []       # (NormAxiom, Rule, _Schema)
        objects = nt.objects
        universe = frozenset(objects.get("object", ()))
        for j, av in enumerate(nt.actions):
            params = av.all_parameters
            slots = {p.name: i for i, p in enumerate(params)}
            where = f"action {av.name}"
            sch = _schema(av.precondition, slots, self.static, where)
            head = f"@{j}"
            doms = _domains(params, objects)
            effects, simple_adds = [], []
            for e in av.effects:
                eslots = dict(slots)
                eslots.update({p.name: len(params) + i for i, p in enumerate(e.parameters)})
                edoms = doms + _domains(e.parameters, objects)
                esch = _schema(e.condition, eslots, self.static, where)
                atom = (e.atom.predicate, _template(e.atom, eslots, where))
                simple = not e.parameters and not e.condition
                if simple and not e.delete:
                    simple_adds.append(atom)       # derived together with the action head
                elif not e.delete:
                    self.rules.append(Rule(atom[0], atom[1],
                                           ((head, tuple(range(len(params)))),) + esch.pos,
                                           edoms, esch.filters, ("effect", j), universe=universe))
                # instantiation query: positive conditions (+ a deleted atom must be reachable)
                body = esch.pos + ((atom,) if e.delete else ())
                query = None if simple else Rule(atom[0], atom[1], body, edoms, esch.filters,
                                                 ("query", j), universe=universe)
                effects.append((e, esch, atom, query))
            self.rules.append(Rule(head, tuple(range(len(params))), sch.pos, doms, sch.filters,
                                   ("action", j), universe=universe, also=simple_adds))
            self.actions.append((av, head, sch, effects))
        for ax in nt.axioms:
            params = ax.parameters + ax.extra
            slots = {p.name: i for i, p in enumerate(params)}
            sch = _schema(ax.body, slots, self.static, f"derived predicate {ax.head.predicate}")
            rule = Rule(ax.head.predicate, _template(ax.head, slots, "derived predicate"),
                        sch.pos, _domains(params, objects), sch.filters, ("axiom",), record=True,
                        universe=universe)
            self.rules.append(rule)
            self.axioms.append((ax, rule, sch))

    def layers(self) -> dict[str, int]:
        """Stratum of each derived predicate (negation must go strictly down)."""
        level = {p: 0 for p in self.derived}
        for _ in range(len(level) + 1):
            changed = False
            for ax, _, sch in self.axioms:
                h = ax.head.predicate
                need = level[h]
                for pred, _ in sch.pos:
                    if pred in level:
                        need = max(need, level[pred])
                for pred, _ in sch.neg:
                    if pred in level:
                        need = max(need, level[pred] + 1)
                for pred in _predicates(sch.residual):
                    if pred in level:
                        need = max(need, level[pred] + 1)
                if need != level[h]:
                    level[h] = need
                    changed = True
            if not changed:
                return level
        raise SemanticError("derived predicates are not stratifiable (negation in a cycle)",
                            file=self.nt.domain.filename)


def _predicates(formulas) -> set[str]:
    out: set[str] = set()
    todo = list(formulas)
    while todo:
        f = todo.pop()
        if isinstance(f, pddl.Atom):
            out.add(f.predicate)
        elif isinstance(f, (pddl.And, pddl.Or)):
            todo.extend(f.parts)
        elif isinstance(f, (pddl.Not, pddl.Exists, pddl.Forall)):
            todo.append(f.body)
    return out


# ------------------------------------------------------------------------------ API

def build_plan(domain: pddl.Domain, problem: pddl.Problem) -> _Plan:
    """Normalisation and rule construction: everything that does not depend on ``:init``."""
    return _Plan(normalize(domain, problem))


def ground(domain: pddl.Domain, problem: pddl.Problem, *, init_atoms: Iterable | None = None,
           ignore_constraints: bool = False, budget: Budget | None = None,
           _plan: _Plan | None = None) -> Task:
    """Ground ``problem`` (or the state ``init_atoms``, which replaces ``:init``) to a Task.

    ``init_atoms`` is a complete state, static atoms included, as ``:init`` would list it
    (tuples ``("on", "a", "b")``, strings ``"(on a b)"`` or ``ast.Atom``). Only actions
    reachable in the delete relaxation from that state are grounded, so the Task is exact for
    that state and its successors, not for states outside them. Measured on ACPBench Hard
    tasks: about 5 ms CPU per grounding, 3.4 ms through ``GroundingCache`` for another state.
    ``budget`` (``planning_core.limits.Budget``) bounds CPU time and memory; at a limit
    ``LimitReached`` is raised.
    """
    if not ignore_constraints and (domain.constraints is not None or problem.constraints is not None):
        # a Task has no place for trajectory constraints: a search on it would return plans
        # that break them. Callers that handle them (planning_core.temporal) say so.
        raise UnsupportedFeature("the task has PDDL3 :constraints, which a ground Task does not "
                                 "represent; solve it with planning_core.solve (which "
                                 "handles them) or pass ignore_constraints=True",
                                 file=problem.filename)
    budget = budget if budget is not None else Budget()
    with metering(budget):             # normalisation and goal folding tick it too
        plan = _plan if _plan is not None else build_plan(domain, problem)
        if init_atoms is None:
            init = {(a.predicate,) + a.args for a in problem.init}
        else:
            init = {parse_atom(a) for a in init_atoms}
        _reset(plan)
        try:
            dl = Datalog(plan.rules, plan.static, plan.derived, budget)
            dl.run(sorted(a for a in init if a[0] not in plan.derived))
            budget.check(rss=True)
            return instantiate(plan, dl, init, problem.name, budget)
        finally:
            _reset(plan)               # compiled joins hold the run's indexes: let them go


def _reset(plan: _Plan) -> None:
    # join plans close over the indexes of one Datalog run; a new run compiles its own
    for r in plan.rules:
        r.plans = {}
    for _, _, _, effects in plan.actions:
        for e in effects:
            if e[3] is not None:
                e[3].plans = {}


class GroundingCache:
    """Memoises normalisation per (domain, problem) and Tasks per initial state (LRU).

    Scorers ask about many states of one problem: each state gets its own exact Task, and
    the normalised rules are built once. Not thread-safe (rules cache their join plans).
    """

    def __init__(self, max_tasks: int = 64) -> None:
        self.max_tasks = max_tasks
        self._plans: dict = {}
        self._tasks: OrderedDict = OrderedDict()

    def task(self, domain: pddl.Domain, problem: pddl.Problem, init_atoms: Iterable | None = None) -> Task:
        init = None if init_atoms is None else frozenset(parse_atom(a) for a in init_atoms)
        key = (domain, problem, init)
        found = self._tasks.get(key)
        if found is not None:
            self._tasks.move_to_end(key)
            return found
        plan = self._plans.get((domain, problem))
        if plan is None:
            plan = self._plans[(domain, problem)] = build_plan(domain, problem)
        task = ground(domain, problem, init_atoms=init, _plan=plan)
        self._tasks[key] = task
        if len(self._tasks) > self.max_tasks:
            self._tasks.popitem(last=False)
        return task
