"""Relaxed reachability as a Datalog fixpoint over the lifted schemas.

The grounder instantiates only what the delete relaxation can reach, as Fast Downward's
translator does (Helmert 2009, section 6: "the relaxed reachability analysis as a logic
program"). Rules, one per normalised construct:

* action variant ``a``:  ``@a(params) :- positive preconditions, types, (in)equalities,
  negated static atoms``;
* effect ``e`` of ``a``: ``atom(e) :- @a(params), positive conditions of e, types``;
* axiom: ``head :- positive body, types, filters``.

Negative literals on fluent predicates do not prune (the relaxation ignores them); negative
literals on *static* predicates (never in any effect, not derived) are exact filters, since
such an atom is true forever iff it is in the initial state. Types are variable domains.

Evaluation is semi-naive with a work queue: a newly reached atom is matched against every
body position of its predicate, and the rest of the body is joined against the atoms
processed so far. The join order is chosen once per (rule, trigger position), greedily:
the atom with most bound arguments first (a full membership test before any scan), static
atoms before fluent ones, as in the join-order heuristics of FD's ``build_model``. Predicates
that no rule derives are loaded once and never trigger. Each index maps the values at a
fixed set of argument positions to the matching argument tuples.

Limits: every newly reached atom ticks the run's ``Budget`` (``planning_core.limits``), so
a fixpoint that explodes (one action with six parameters and no preconditions reaches
millions of instantiations) stops with ``LimitReached`` at the time or memory limit instead
of running on; ``FACT_BYTES`` is the estimated memory of one reached atom.
"""
from __future__ import annotations

from operator import itemgetter
from typing import Callable, Iterable

from planning_core.limits import CHECK_EVERY, Budget

LOOKUP, ENUM, ASSIGN = 0, 1, 2
#: Estimated bytes per reached atom: its tuple, its set slot, its place in ``processed`` and
#: in the indexes (measured: about 230 bytes per atom of six arguments).
FACT_BYTES = 230


class Rule:
    """``head_pred(head_args) :- body`` with typed slots. Templates hold slot ints or
    constant strs. ``filters`` are ``("eq"|"neq", a, b)`` or ``("nstatic", pred, template)``."""

    __slots__ = ("head_pred", "head_args", "body", "domains", "checks", "filters", "nslots",
                 "tag", "plans", "record", "also")

    def __init__(self, head_pred, head_args, body, domains, filters, tag, record=False,
                 universe: frozenset | None = None, also=()):
        self.head_pred = head_pred
        self.head_args = tuple(head_args)
        self.body = tuple(body)
        self.domains = tuple(domains)
        # type tests that cannot fail (the type is every object) are skipped
        self.checks = tuple(None if d == universe else d for d in self.domains)
        self.filters = tuple(filters)
        self.nslots = len(domains)
        self.tag = tag
        self.record = record          # keep full bindings (axioms, for instantiation)
        self.also = tuple(also)       # further heads derived with the first (simple effects)
        self.plans: dict = {}


def _slots(template) -> set[int]:
    return {t for t in template if type(t) is int}


def _filter_slots(flt) -> set[int]:
    if flt[0] == "nstatic":
        return _slots(flt[2])
    return {x for x in flt[1:] if type(x) is int}


class Datalog:
    """Facts, indexes and compiled join plans for one set of rules."""

    def __init__(self, rules: list[Rule], static_preds: frozenset, derived_preds: set[str],
                 budget: Budget | None = None):
        self.rules = rules
        self.budget = budget if budget is not None else Budget()
        self.static_preds = static_preds       # lifted-static: filters for negations
        self.heads = {r.head_pred for r in rules} | {p for r in rules for p, _ in r.also}
        self.facts: dict[str, set] = {}        # every reached atom, by predicate
        self.processed: dict[str, list] = {}   # atoms of derivable predicates already popped
        self.indexes: dict[str, list] = {}     # pred -> [(positions getter, {key: [args]})]
        self._index_of: dict = {}
        self.triggers: dict[str, list] = {}    # pred -> [(rule, body position)]
        self.records: dict[int, list] = {}     # id(rule) -> bindings
        self.queue: list[tuple[str, tuple]] = []
        self.out: list[tuple] = []
        for r in rules:
            for i, (pred, _) in enumerate(r.body):
                if pred in self.heads:
                    self.triggers.setdefault(pred, []).append((r, i))

    # ------------------------------------------------------------------ indexes
    def index(self, pred: str, positions: tuple[int, ...]) -> dict:
        key = (pred, positions)
        found = self._index_of.get(key)
        if found is not None:
            return found
        table: dict = {}
        getter = itemgetter(*positions) if positions else (lambda args: ())
        # sorted: the order of a bucket decides enumeration order downstream, and set order
        # changes with PYTHONHASHSEED; grounding must not
        source = (self.processed.get(pred, ()) if pred in self.heads
                  else sorted(self.facts.get(pred, ())))
        for args in source:
            table.setdefault(getter(args), []).append(args)
        if pred in self.heads:
            self.indexes.setdefault(pred, []).append((getter, table))
        self._index_of[key] = table
        return table

    def _insert(self, pred: str, args: tuple) -> None:
        self.processed.setdefault(pred, []).append(args)
        for getter, table in self.indexes.get(pred, ()):
            k = getter(args)
            bucket = table.get(k)
            if bucket is None:
                table[k] = [args]
            else:
                bucket.append(args)

    # ------------------------------------------------------------------- plans
    def plan(self, rule: Rule, bound: frozenset, skip: int = -1) -> tuple:
        """Join steps for ``rule`` when ``bound`` slots are set and body atom ``skip`` is
        already matched (the trigger)."""
        key = (bound, skip)
        found = rule.plans.get(key)
        if found is not None:
            return found
        bound = set(bound)
        remaining = [i for i in range(len(rule.body)) if i != skip]
        pending = list(rule.filters)
        steps: list = []

        def ready_filters():
            nonlocal pending
            now = [f for f in pending if _filter_slots(f) <= bound]
            pending = [f for f in pending if not _filter_slots(f) <= bound]
            return tuple(self._compile_filter(f) for f in now)

        pre = ready_filters()
        while remaining:
            def score(i):
                pred, tmpl = rule.body[i]
                nb = sum(1 for t in tmpl if type(t) is not int or t in bound)
                return (nb == len(tmpl), nb, pred not in self.heads, -i)
            i = max(remaining, key=score)
            remaining.remove(i)
            pred, tmpl = rule.body[i]
            positions = tuple(p for p, t in enumerate(tmpl) if type(t) is not int or t in bound)
            table = self.index(pred, positions)
            src = tuple(tmpl[p] for p in positions)
            binds, checks, new = [], [], {}
            for p, t in enumerate(tmpl):
                if type(t) is int and t not in bound:
                    if t in new:
                        checks.append((p, new[t]))
                    else:
                        new[t] = p
                        binds.append((p, t, rule.checks[t]))
            bound |= set(new)
            steps.append((LOOKUP, table, _key_builder(src), tuple(binds), tuple(checks),
                          ready_filters()))
            steps.extend(self._assignments(rule, bound, pending, ready_filters))
        for s in range(rule.nslots):
            if s not in bound:
                bound.add(s)
                steps.append((ENUM, s, tuple(sorted(rule.domains[s] or ())), ready_filters()))
                steps.extend(self._assignments(rule, bound, pending, ready_filters))
        result = (pre, tuple(steps))
        rule.plans[key] = result
        return result

    def _assignments(self, rule, bound, pending, ready_filters):
        """``(= ?x ?y)`` with one side bound binds the other without enumeration."""
        out = []
        changed = True
        while changed:
            changed = False
            for f in pending:
                if f[0] != "eq":
                    continue
                a, b = f[1], f[2]
                for src, dst in ((a, b), (b, a)):
                    if type(dst) is int and dst not in bound and (type(src) is not int or src in bound):
                        bound.add(dst)
                        out.append((ASSIGN, dst, src, rule.checks[dst], ready_filters()))
                        changed = True
                        break
                if changed:
                    break
        return out

    def _compile_filter(self, f) -> Callable:
        kind = f[0]
        if kind == "nstatic":
            facts = self.facts.get(f[1], set())
            build = _key_builder(f[2], force_tuple=True)
            return lambda b: build(b) not in facts
        get_a = _value_getter(f[1])
        get_b = _value_getter(f[2])
        if kind == "eq":
            return lambda b: get_a(b) == get_b(b)
        return lambda b: get_a(b) != get_b(b)

    # ------------------------------------------------------------------ running
    def compiled(self, rule: Rule, bound: frozenset, skip: int, terminal: str):
        """The join plan as a chain of closures ending in ``emit`` or ``collect``."""
        key = (bound, skip, terminal)
        found = rule.plans.get(key)
        if found is not None:
            return found
        pre, steps = self.plan(rule, bound, skip)
        nxt = self._emitter(rule) if terminal == "emit" else self._collector()
        for st in reversed(steps):
            nxt = _compile_step(st, nxt)
        result = (pre, nxt)
        rule.plans[key] = result
        return result

    def _emitter(self, rule: Rule):
        facts = self.facts
        heads = [(rule.head_pred, rule.head_args)] + list(rule.also)
        makers = [(pred, _args_maker(tmpl), facts.setdefault(pred, set())) for pred, tmpl in heads]
        records = self.records.setdefault(id(rule), []) if rule.record else None
        queue = self.queue
        triggering = self.heads
        tick = self.budget.tick

        def emit(b):
            if records is not None:
                records.append(tuple(b))
                tick()
            for pred, make, known in makers:
                args = make(b)
                if args not in known:
                    known.add(args)
                    tick()
                    if pred in triggering:
                        queue.append((pred, args))
        return emit

    def _collector(self):
        out = self.out

        def collect(b):
            out.append(tuple(b))
        return collect

    def run(self, init: Iterable[tuple]) -> None:
        """Fixpoint from the initial atoms ``(pred, *args)``; ``LimitReached`` at a limit."""
        self.budget.phase(FACT_BYTES)
        facts = self.facts
        queue = self.queue
        for atom in init:
            pred, args = atom[0], tuple(atom[1:])
            s = facts.setdefault(pred, set())
            if args not in s:
                s.add(args)
                if pred in self.heads:
                    queue.append((pred, args))
        for r in self.rules:
            if not any(p in self.heads for p, _ in r.body):
                b = [None] * r.nslots
                pre, step = self.compiled(r, frozenset(), -1, "emit")
                if all(f(b) for f in pre):
                    step(b)
        triggers = self.triggers
        insert = self._insert
        check = self.budget.check
        # rules tried since the last clock check: a fact triggers every rule whose body
        # names its predicate, and a task of 2,000 copies of one tool tried ~10^6 rules
        # (17 CPU-s) between the few new facts that tick the budget
        tried = 0
        while queue:
            pred, args = queue.pop()
            insert(pred, args)
            triggered = triggers.get(pred, ())
            tried += len(triggered)
            if tried >= CHECK_EVERY:
                tried = 0
                check()
            for rule, pos in triggered:
                b = self._unify(rule, pos, args)
                if b is None:
                    continue
                bound = frozenset([s for s in range(rule.nslots) if b[s] is not None])
                pre, step = self.compiled(rule, bound, pos, "emit")
                if not pre or all(f(b) for f in pre):
                    step(b)

    def _unify(self, rule: Rule, pos: int, args: tuple):
        tmpl = rule.body[pos][1]
        b = [None] * rule.nslots
        checks = rule.checks
        for t, v in zip(tmpl, args):
            if type(t) is int:
                old = b[t]
                if old is None:
                    d = checks[t]
                    if d is not None and v not in d:
                        return None
                    b[t] = v
                elif old != v:
                    return None
            elif t != v:
                return None
        return b

    def query(self, rule: Rule, binding: list) -> list[tuple]:
        """All completions of ``binding`` that satisfy ``rule``'s body over the reached
        facts (used after the fixpoint to instantiate effects)."""
        self.out.clear()
        bound = frozenset([s for s in range(rule.nslots) if binding[s] is not None])
        pre, step = self.compiled(rule, bound, -1, "collect")
        b = list(binding)
        if all(f(b) for f in pre):
            step(b)
        found = list(self.out)
        self.out.clear()
        return found


def _args_maker(tmpl: tuple):
    if not tmpl:
        return lambda b: ()
    if all(type(t) is int for t in tmpl):
        if len(tmpl) == 1:
            s0 = tmpl[0]
            return lambda b: (b[s0],)
        return itemgetter(*tmpl)
    return lambda b: tuple([b[t] if type(t) is int else t for t in tmpl])


def _compile_step(st, nxt):
    """One join step as a closure calling ``nxt`` per extension of the binding ``b``."""
    kind = st[0]
    if kind == LOOKUP:
        _, table, key, binds, checks, filters = st
        get = table.get
        if not binds:                                   # every argument bound: a test
            if filters:
                def test(b):
                    if key(b) in table and all(f(b) for f in filters):
                        nxt(b)
            else:
                def test(b):
                    if key(b) in table:
                        nxt(b)
            return test
        if len(binds) == 1 and not checks and not filters:
            (p, s, dom), = binds
            if dom is None:
                def scan1(b):
                    for args in get(key(b), ()):
                        b[s] = args[p]
                        nxt(b)
                    b[s] = None
            else:
                def scan1(b):
                    for args in get(key(b), ()):
                        v = args[p]
                        if v in dom:
                            b[s] = v
                            nxt(b)
                    b[s] = None
            return scan1

        def scan(b):
            for args in get(key(b), ()):
                for p, s, dom in binds:
                    v = args[p]
                    if dom is not None and v not in dom:
                        break
                    b[s] = v
                else:
                    if all(args[p] == args[q] for p, q in checks) and all(f(b) for f in filters):
                        nxt(b)
            for _, s, _ in binds:
                b[s] = None
        return scan
    if kind == ENUM:
        _, s, values, filters = st

        def enum(b):
            for v in values:
                b[s] = v
                if all(f(b) for f in filters):
                    nxt(b)
            b[s] = None
        return enum
    _, dst, src, dom, filters = st

    def assign(b):
        v = b[src] if type(src) is int else src
        if dom is None or v in dom:
            b[dst] = v
            if all(f(b) for f in filters):
                nxt(b)
        b[dst] = None
    return assign


def _value_getter(x):
    if type(x) is int:
        return itemgetter(x)
    return lambda b: x


def _key_builder(src: tuple, force_tuple: bool = False) -> Callable:
    """Key of an index lookup from a binding: matches ``itemgetter(*positions)`` of args
    (a scalar for one position, a tuple otherwise)."""
    if not src:
        return lambda b: ()
    if all(type(t) is int for t in src):
        if len(src) == 1 and not force_tuple:
            return itemgetter(src[0])
        if len(src) == 1:
            s0 = src[0]
            return lambda b: (b[s0],)
        return itemgetter(*src)
    if len(src) == 1 and not force_tuple:
        c = src[0]
        return lambda b: c
    return lambda b: tuple([b[t] if type(t) is int else t for t in src])
