"""Formula progression for LTLf (Bacchus & Kabanza 2000) on bitmask states.

Progressing ``f`` through position ``i`` of a trace gives the formula that the rest of the
trace, from ``i + 1``, must satisfy; the last position is judged by :meth:`Monitor.final`
instead (there ``X f`` is false, ``WX f`` true, ``f U g`` and ``f R g`` reduce to ``g``,
``F f`` and ``G f`` to ``f``). This is the finite-trace reading of the conventions in
:mod:`planning_core.temporal.ltl`, and the tests check it against the direct semantics of
:mod:`planning_core.temporal.semantics` on random formulas and traces.

Representation. The formula is put in negation normal form (``!X f = WX !f``,
``!(f U g) = !f R !g``, ``f W g = g R (f | g)``) and its subformulas are interned as
integer *nodes*; leaves are a fact bit of the state, an action-pattern bit of the transition
label, or a constant. A progressed formula is kept in disjunctive normal form over nodes:
a set of *clauses*, each the set of obligations (nodes) that the rest of the trace must
meet together, with absorption (a clause that contains another is dropped). Every
obligation that progression creates is a subformula of the original formula (``X f``
leaves ``f``, ``f U g`` leaves itself), so only finitely many progressed formulas exist and
a search over (state, progressed formula) pairs terminates; and the DNF is canonical enough
that equal obligations meet in the duplicate check. Each DNF is interned as an ``int``.

``Monitor.step`` is memoised on (formula, the state's bits that the formula mentions, the
transition's pattern bits), so on a search it mostly costs one dict lookup.

Limits. The DNF can grow exponentially inside *one* step: a conjunction of ``n``
X-shifted disjunctions of ``k`` parts becomes ``k**n`` clauses, and absorption is quadratic
in the clauses. So the DNF algebra is metered, not only the search around it: with a
``budget`` (:class:`planning_core.limits.Budget`, set by the caller) every clause built and
every subset test in absorption is a ticked work item, so a step stops within the CPU
limit; and independently of any budget a progressed formula of more than
``MAX_CLAUSES`` clauses raises ``LimitReached("memory limit")`` before it is built (the
answer is UNKNOWN, never a guess).
"""
from __future__ import annotations

from typing import Iterable, Sequence

from planning_core.limits import Budget, LimitReached
from planning_core.temporal import ltl
from planning_core.temporal.semantics import leaf_matches

__all__ = ["Alphabet", "Monitor", "MAX_CLAUSES"]

#: The most clauses one progressed formula may have (a size cap that holds without a budget).
MAX_CLAUSES = 100_000

# node kinds
CONST, FACT, ACT, AND, OR, NEXT, WNEXT, UNTIL, RELEASE, EVENTUALLY, ALWAYS = range(11)
Clause = frozenset
DNF = frozenset
TRUE_DNF: DNF = frozenset({frozenset()})
FALSE_DNF: DNF = frozenset()


class Alphabet:
    """What a trace is made of: fact ``i`` is bit ``i`` of a state, statics always hold,
    and ``actions[k]`` (``(name, *args)``) is the action with index ``k``."""

    __slots__ = ("facts", "fact_ids", "static", "actions", "_by_predicate")

    def __init__(self, facts: Sequence[tuple], actions: Sequence[tuple] = (),
                 static: Iterable[tuple] = ()) -> None:
        self.facts = tuple(tuple(f) for f in facts)
        self.fact_ids = {f: i for i, f in enumerate(self.facts)}
        self.static = frozenset(tuple(s) for s in static)
        self.actions = tuple(tuple(a) for a in actions)
        by_pred: dict[str, list] = {}
        for i, f in enumerate(self.facts):
            by_pred.setdefault(f[0], []).append((f[1:], i))
        for s in self.static:
            by_pred.setdefault(s[0], []).append((s[1:], None))
        self._by_predicate = by_pred

    @classmethod
    def of_task(cls, task) -> "Alphabet":
        """The alphabet of a ground ``Task``: its facts, statics and actions, in task order."""
        return cls(task.facts.atoms, [(a.name,) + a.args for a in task.actions],
                   task.static_atoms)

    def matches(self, predicate: str, args: tuple[str, ...]) -> tuple[bool, tuple[int, ...]]:
        """(some static atom matches, ids of matching facts) for an atom pattern."""
        static, ids = False, []
        for fargs, i in self._by_predicate.get(predicate, ()):
            if leaf_matches(predicate, args, predicate, fargs):
                if i is None:
                    static = True
                else:
                    ids.append(i)
        return static, tuple(sorted(ids))


class Monitor:
    """One formula compiled against an alphabet; progressed formulas are ``int`` ids.

    ``labels[k]`` is the pattern bitmask of ``alphabet.actions[k]``; ``relevant`` the fact
    bits the formula reads. ``TRUE``/``FALSE`` are the ids of the trivial formulas.
    """

    TRUE = 0
    FALSE = 1

    def __init__(self, formula: ltl.Formula, alphabet: Alphabet,
                 budget: Budget | None = None) -> None:
        self.budget = budget     # meters the DNF algebra (a caller may set it later)
        self.alphabet = alphabet
        self.formula = formula
        self._node_ids: dict[tuple, int] = {}
        self.nodes: list[tuple] = []
        self._patterns: dict[tuple, int] = {}
        self.relevant = 0
        self._dnf_ids: dict[DNF, int] = {}
        self.dnfs: list[DNF] = []
        self._intern_dnf(TRUE_DNF)
        self._intern_dnf(FALSE_DNF)
        self._t = self._node((CONST, True))
        self._f = self._node((CONST, False))
        self.root = self._nnf(formula, True)
        self.init = self._intern_dnf(self._obligation(self.root))
        self.patterns = tuple(sorted(self._patterns, key=self._patterns.__getitem__))
        self.labels = tuple(self.label(a[0], a[1:]) for a in alphabet.actions)
        self._step_memo: dict[tuple, int] = {}
        self._final_memo: dict[tuple, bool] = {}

    # ------------------------------------------------------------------ compilation
    def _node(self, key: tuple) -> int:
        hit = self._node_ids.get(key)
        if hit is None:
            hit = self._node_ids[key] = len(self.nodes)
            self.nodes.append(key)
        return hit

    def _const(self, value: bool) -> int:
        return self._t if value else self._f

    def _junction(self, kind: int, parts: Iterable[int]) -> int:
        unit, zero = (self._t, self._f) if kind == AND else (self._f, self._t)
        flat: set[int] = set()
        for p in parts:
            if p == zero:
                return zero
            if p == unit:
                continue
            node = self.nodes[p]
            flat.update(node[1] if node[0] == kind else (p,))
        if not flat:
            return unit
        if len(flat) == 1:
            return next(iter(flat))
        return self._node((kind, tuple(sorted(flat))))

    def _leaf(self, f, positive: bool) -> int:
        if isinstance(f, ltl.Occurs):
            key = (f.action, f.args)
            k = self._patterns.setdefault(key, len(self._patterns))
            return self._node((ACT, k, positive))
        static, ids = self.alphabet.matches(f.predicate, f.args)
        if static:
            return self._const(positive)
        for i in ids:
            self.relevant |= 1 << i
        lits = [self._node((FACT, i, positive)) for i in ids]
        return self._junction(OR if positive else AND, lits)

    def _nnf(self, f: ltl.Formula, pos: bool) -> int:
        """The node of ``f`` (``pos``) or of ``!f`` (not ``pos``) in negation normal form."""
        if self.budget is not None:
            self.budget.tick()
        if isinstance(f, (ltl.Atom, ltl.Occurs)):
            return self._leaf(f, pos)
        if isinstance(f, ltl.Const):
            return self._const(f.value == pos)
        if isinstance(f, ltl.Not):
            return self._nnf(f.body, not pos)
        if isinstance(f, (ltl.And, ltl.Or)):
            kind = (AND if isinstance(f, ltl.And) else OR) if pos else \
                (OR if isinstance(f, ltl.And) else AND)
            return self._junction(kind, [self._nnf(p, pos) for p in f.parts])
        if isinstance(f, ltl.Implies):
            return self._nnf(ltl.Or((ltl.Not(f.left), f.right)), pos)
        if isinstance(f, ltl.Iff):
            both = ltl.And((f.left, f.right))
            neither = ltl.And((ltl.Not(f.left), ltl.Not(f.right)))
            return self._nnf(ltl.Or((both, neither)), pos)
        if isinstance(f, (ltl.Next, ltl.WeakNext)):
            strong = isinstance(f, ltl.Next) == pos
            return self._temporal(NEXT if strong else WNEXT, self._nnf(f.body, pos))
        if isinstance(f, (ltl.Eventually, ltl.Always)):
            kind = (EVENTUALLY if isinstance(f, ltl.Eventually) else ALWAYS) if pos else \
                (ALWAYS if isinstance(f, ltl.Eventually) else EVENTUALLY)
            return self._temporal(kind, self._nnf(f.body, pos))
        if isinstance(f, (ltl.Until, ltl.Release)):
            kind = (UNTIL if isinstance(f, ltl.Until) else RELEASE) if pos else \
                (RELEASE if isinstance(f, ltl.Until) else UNTIL)
            return self._temporal(kind, self._nnf(f.left, pos), self._nnf(f.right, pos))
        if isinstance(f, ltl.WeakUntil):  # f W g == g R (f | g)
            return self._nnf(ltl.Release(f.right, ltl.Or((f.left, f.right))), pos)
        raise TypeError(f"not an LTL formula: {f!r}")

    def _temporal(self, kind: int, a: int, b: int | None = None) -> int:
        t, f = self._t, self._f
        if kind in (EVENTUALLY, ALWAYS) and a in (t, f):
            return a  # F true, G true, F false, G false
        if kind in (UNTIL, RELEASE) and b in (t, f):
            return b  # f U true, f R true hold now; f U false, f R false never
        return self._node((kind, a) if b is None else (kind, a, b))

    def label(self, name: str, args: tuple[str, ...]) -> int:
        """The pattern bits of the action ``(name args)``."""
        if self.budget is not None:        # patterns x actions: 10^4 x 10^4 is 10^8 tests
            self.budget.tick(len(self._patterns) + 1)
        out = 0
        for (pname, pargs), k in self._patterns.items():
            if leaf_matches(pname, pargs, name, tuple(args)):
                out |= 1 << k
        return out

    # --------------------------------------------------------------------- DNF algebra
    def _intern_dnf(self, d: DNF) -> int:
        hit = self._dnf_ids.get(d)
        if hit is None:
            hit = self._dnf_ids[d] = len(self.dnfs)
            self.dnfs.append(d)
        return hit

    def _obligation(self, node: int) -> DNF:
        """The DNF saying "``node`` holds from the next position on"."""
        kind = self.nodes[node]
        if kind[0] == CONST:
            return TRUE_DNF if kind[1] else FALSE_DNF
        if kind[0] == AND:
            return frozenset({frozenset(kind[1])})
        if kind[0] == OR:
            return frozenset(frozenset((c,)) for c in kind[1])
        return frozenset({frozenset((node,))})

    def _absorb(self, clauses: Iterable[Clause]) -> DNF:
        """Drop every clause that contains another (metered: quadratic in the clauses)."""
        budget = self.budget
        kept: list[Clause] = []
        for c in sorted(set(clauses), key=len):
            if budget is not None:
                budget.tick(len(kept) + 1)
            if not any(k <= c for k in kept):
                kept.append(c)
        return frozenset(kept)

    def _and(self, x: DNF, y: DNF) -> DNF:
        if not x or not y:
            return FALSE_DNF
        if x == TRUE_DNF:
            return y
        if y == TRUE_DNF:
            return x
        if len(x) * len(y) > MAX_CLAUSES:
            raise LimitReached("memory limit", f"a progressed LTL formula would have "
                                               f"{len(x) * len(y)} clauses (at most "
                                               f"{MAX_CLAUSES})")
        budget = self.budget
        if budget is None:
            return self._absorb(a | b for a in x for b in y)

        def product():
            for a in x:
                budget.tick(len(y))
                for b in y:
                    yield a | b
        return self._absorb(product())

    def _or(self, x: DNF, y: DNF) -> DNF:
        if x == TRUE_DNF or y == TRUE_DNF:
            return TRUE_DNF
        if not x:
            return y
        if not y:
            return x
        if len(x) + len(y) > MAX_CLAUSES:
            raise LimitReached("memory limit", f"a progressed LTL formula would have more "
                                               f"than {MAX_CLAUSES} clauses")
        return self._absorb(x | y)

    # --------------------------------------------------------------------- progression
    def _prog(self, n: int, state: int, label: int, memo: dict) -> DNF:
        hit = memo.get(n)
        if hit is not None:
            return hit
        node = self.nodes[n]
        kind = node[0]
        if kind == CONST:
            out = TRUE_DNF if node[1] else FALSE_DNF
        elif kind == FACT:
            out = TRUE_DNF if bool(state >> node[1] & 1) == node[2] else FALSE_DNF
        elif kind == ACT:
            out = TRUE_DNF if bool(label >> node[1] & 1) == node[2] else FALSE_DNF
        elif kind == AND:
            out = TRUE_DNF
            for c in node[1]:
                out = self._and(out, self._prog(c, state, label, memo))
                if not out:
                    break
        elif kind == OR:
            out = FALSE_DNF
            for c in node[1]:
                out = self._or(out, self._prog(c, state, label, memo))
                if out == TRUE_DNF:
                    break
        elif kind in (NEXT, WNEXT):
            out = self._obligation(node[1])
        elif kind == UNTIL:
            out = self._or(self._prog(node[2], state, label, memo),
                           self._and(self._prog(node[1], state, label, memo),
                                     frozenset({frozenset((n,))})))
        elif kind == RELEASE:
            out = self._and(self._prog(node[2], state, label, memo),
                            self._or(self._prog(node[1], state, label, memo),
                                     frozenset({frozenset((n,))})))
        elif kind == EVENTUALLY:
            out = self._or(self._prog(node[1], state, label, memo),
                           frozenset({frozenset((n,))}))
        else:  # ALWAYS
            out = self._and(self._prog(node[1], state, label, memo),
                            frozenset({frozenset((n,))}))
        memo[n] = out
        return out

    def step(self, q: int, state: int, label: int) -> int:
        """Progress formula ``q`` through a position that is not the last one: ``state``
        there, and the transition with pattern bits ``label`` leaving it."""
        key = (q, state & self.relevant, label)
        hit = self._step_memo.get(key)
        if hit is not None:
            return hit
        if q <= 1:
            return q
        memo: dict = {}
        out = FALSE_DNF
        for clause in self.dnfs[q]:
            part = TRUE_DNF
            for n in clause:
                part = self._and(part, self._prog(n, key[1], label, memo))
                if not part:
                    break
            out = self._or(out, part)
            if out == TRUE_DNF:
                break
        hit = self._step_memo[key] = self._intern_dnf(out)
        return hit

    def _final_node(self, n: int, state: int) -> bool:
        node = self.nodes[n]
        kind = node[0]
        if kind == CONST:
            return node[1]
        if kind == FACT:
            return bool(state >> node[1] & 1) == node[2]
        if kind == ACT:
            return not node[2]  # no action leaves the last state
        if kind == AND:
            return all(self._final_node(c, state) for c in node[1])
        if kind == OR:
            return any(self._final_node(c, state) for c in node[1])
        if kind == NEXT:
            return False
        if kind == WNEXT:
            return True
        if kind in (UNTIL, RELEASE):
            return self._final_node(node[2], state)
        return self._final_node(node[1], state)  # F f, G f at the last position

    def final(self, q: int, state: int) -> bool:
        """Whether formula ``q`` holds at the last position of a trace, in ``state``."""
        key = (q, state & self.relevant)
        hit = self._final_memo.get(key)
        if hit is None:
            hit = self._final_memo[key] = any(
                all(self._final_node(n, key[1]) for n in clause) for clause in self.dnfs[q])
        return hit

    def accepts(self, states: Sequence[int], labels: Sequence[int]) -> tuple[bool, int | None]:
        """Check a whole trace: (holds, position where the formula became false or None).

        ``labels[i]`` are the pattern bits of the action leaving ``states[i]``."""
        if len(labels) != len(states) - 1:
            raise ValueError("a trace of n + 1 states has n actions")
        q = self.init
        for i, label in enumerate(labels):
            q = self.step(q, states[i], label)
            if q == self.FALSE:
                return False, i
        if self.final(q, states[-1]):
            return True, None
        return False, len(states) - 1

    def clauses(self, q: int) -> DNF:
        return self.dnfs[q]

    def describe(self, n: int) -> str:
        """A node as text (for messages and debugging)."""
        node = self.nodes[n]
        kind = node[0]
        if kind == CONST:
            return "true" if node[1] else "false"
        if kind == FACT:
            text = "(" + " ".join(self.alphabet.facts[node[1]]) + ")"
            return text if node[2] else "!" + text
        if kind == ACT:
            name, args = self.patterns[node[1]]
            text = "@(" + " ".join((name,) + args) + ")"
            return text if node[2] else "!" + text
        if kind in (AND, OR):
            sep = " & " if kind == AND else " | "
            return "(" + sep.join(self.describe(c) for c in node[1]) + ")"
        names = {NEXT: "X", WNEXT: "WX", EVENTUALLY: "F", ALWAYS: "G"}
        if kind in names:
            return f"{names[kind]} {self.describe(node[1])}"
        op = "U" if kind == UNTIL else "R"
        return f"({self.describe(node[1])} {op} {self.describe(node[2])})"
