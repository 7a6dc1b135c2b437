"""VAL's "Plan Repair Advice": what to change so that a failed condition holds.

The advice is a tree built from the failed formula in the state where it failed, with the
rules VAL applies (KCL-Planning/VAL, ``Proposition::getAdviceProp`` and
``getAdviceNegProp``), so the text reads the same as VAL's:

* to make an atom true: ``(Set (p a) to true)``; to make it false: ``(Set (p a) to false)``;
* a conjunction: each of its *false* parts (``(Follow each of:`` ... ``)``);
* a disjunction: one of its parts (``(Follow one of:`` ... ``)``);
* ``not f``: the advice for making ``f`` false, and the dual rules for false-making:
  a conjunction is made false by one of its parts, a disjunction by each true part;
* ``imply a c``: make ``a`` false or ``c`` true;
* ``forall`` / ``exists``: the conjunction / disjunction of their instances over the objects;
* a derived atom: ``(Satisfy derived predicate (p a)!)``.

A group with one member prints as that member; nested groups are indented by four spaces per
level, every member after the first prefixed by ``and`` / ``or``, as VAL does.

Bounds (where this departs from VAL, only on hostile sizes): a ``forall`` over 6 variables and
40 objects has 4e9 instances, so every instance visited ticks the validation's budget (the
universe's, see ``Universe.metered``), and the tree holds at most ``MAX_ADVICE_ITEMS``
leaves: past that the advice ends with ``(... advice cut after N items)``. When the budget
runs out while the advice is built, the verdict stands and the advice says it was cut at
the limit (``advice_lines`` never raises ``LimitReached``).
"""
from __future__ import annotations

from itertools import product

from planning_core.limits import LimitReached
from planning_core.pddl import ast as pddl
from planning_core.validate.formulas import UndefinedValue, atom_text, compile_formula, \
    conjuncts, formula_text, ground_args, numeric_text
from planning_core.validate.report import Verdict

__all__ = ["advice_lines", "precondition_verdict", "unsatisfied_conditions", "MAX_ADVICE_ITEMS"]

#: Leaves of one advice tree at most (a VAL-sized advice is a few dozen).
MAX_ADVICE_ITEMS = 1000


class _Group:
    __slots__ = ("conj", "members")

    def __init__(self, conj: bool, members: list) -> None:
        self.conj, self.members = conj, [m for m in members if m is not None]


class _Literal:
    """``text`` should become ``value``; ``None`` text: the literal already is (no advice)."""

    __slots__ = ("text", "value")

    def __init__(self, text: str | None, value: bool) -> None:
        self.text, self.value = text, value


class _Compare:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class _Derived:
    __slots__ = ("text", "negated")

    def __init__(self, text: str, negated: bool) -> None:
        self.text, self.negated = text, negated


class _Builder:
    """Builds the advice tree; truth is decided by the simulator's own compiled closures."""

    def __init__(self, state: set, universe, derived: frozenset[str]) -> None:
        self.state, self.universe, self.derived = state, universe, derived
        self.leaves = 0
        self.full = False           # MAX_ADVICE_ITEMS leaves built: build no more
        self.budget = getattr(universe, "budget", None)

    def holds(self, f: pddl.Formula, b: dict) -> bool:
        try:
            return compile_formula(f, frozenset(b))(self.state, dict(b), self.universe)
        except UndefinedValue:      # a comparison reading an undefined fluent is not true
            return False

    def instances(self, f: pddl.Exists | pddl.Forall, b: dict):
        domains = [self.universe.objects_of(p.types) for p in f.parameters]
        budget = self.budget
        for combo in product(*domains):
            if self.full:
                return
            if budget is not None:
                budget.tick()
            inner = dict(b)
            inner.update(zip((p.name for p in f.parameters), combo))
            yield inner

    def _comparison(self, f: pddl.Comparison, b: dict, want: bool):
        """VAL's ``AdvicePropositionComp``: ``(Satisfy (fuel t1)[=3] >= 5)``."""
        if self.holds(f, b) == want:
            return None
        self.leaves += 1
        fluents = getattr(self.state, "fluents", {})
        text = (f"{numeric_text(f.left, b, fluents)} {f.op} "
                f"{numeric_text(f.right, b, fluents)}")
        return _Compare(("Satisfy " if want else "Do NOT satisfy ") + text)

    def make_true(self, f: pddl.Formula, b: dict):
        if isinstance(f, (pddl.Atom, pddl.Equals)):
            return self._literal(f, b, True)
        if isinstance(f, pddl.Comparison):
            return self._comparison(f, b, True)
        if isinstance(f, pddl.Not):
            return self.make_false(f.body, b)
        if isinstance(f, pddl.And):
            return _Group(True, [self.make_true(p, b) for p in f.parts if not self.holds(p, b)])
        if isinstance(f, pddl.Or):
            return _Group(False, [self.make_true(p, b) for p in f.parts])
        if isinstance(f, pddl.Imply):
            return _Group(False, [self.make_false(f.antecedent, b),
                                  self.make_true(f.consequent, b)])
        if isinstance(f, pddl.Forall):
            return _Group(True, [self.make_true(f.body, i) for i in self.instances(f, b)
                                 if not self.holds(f.body, i)])
        if isinstance(f, pddl.Exists):
            return _Group(False, [self.make_true(f.body, i) for i in self.instances(f, b)])
        raise TypeError(f"not a formula: {f!r}")

    def make_false(self, f: pddl.Formula, b: dict):
        if isinstance(f, (pddl.Atom, pddl.Equals)):
            return self._literal(f, b, False)
        if isinstance(f, pddl.Comparison):
            return self._comparison(f, b, False)
        if isinstance(f, pddl.Not):
            return self.make_true(f.body, b)
        if isinstance(f, pddl.And):
            return _Group(False, [self.make_false(p, b) for p in f.parts])
        if isinstance(f, pddl.Or):
            return _Group(True, [self.make_false(p, b) for p in f.parts if self.holds(p, b)])
        if isinstance(f, pddl.Imply):
            members = []
            if not self.holds(f.antecedent, b):
                members.append(self.make_true(f.antecedent, b))
            if self.holds(f.consequent, b):
                members.append(self.make_false(f.consequent, b))
            return _Group(True, members)
        if isinstance(f, pddl.Forall):
            return _Group(False, [self.make_false(f.body, i) for i in self.instances(f, b)])
        if isinstance(f, pddl.Exists):
            return _Group(True, [self.make_false(f.body, i) for i in self.instances(f, b)
                                 if self.holds(f.body, i)])
        raise TypeError(f"not a formula: {f!r}")

    def _literal(self, f: pddl.Atom | pddl.Equals, b: dict, want: bool):
        if self.leaves >= MAX_ADVICE_ITEMS:
            self.full = True
            return None
        self.leaves += 1
        text = formula_text(f, b)
        if isinstance(f, pddl.Atom) and f.predicate in self.derived:
            return _Derived(atom_text((f.predicate,) + ground_args(f.args, b)), not want)
        if self.holds(f, b) == want:
            return _Literal(None, want)
        return _Literal(text, want)


def _display(node, indent: int, out: list[str]) -> None:
    """Write ``node`` the way VAL's ``AdviceProposition::display`` lays it out."""
    if isinstance(node, _Literal):
        if node.text is None:
            out.append("(No advice for literal!)\n")
        else:
            out.append(f"(Set {node.text} to {'true' if node.value else 'false'})\n")
        return
    if isinstance(node, _Compare):
        out.append(f"({node.text})\n")
        return
    if isinstance(node, _Derived):
        text = f"(NOT {node.text})" if node.negated else node.text
        out.append(f"(Satisfy derived predicate {text}!)\n")
        return
    word = "conjunction" if node.conj else "disjunction"
    if not node.members:
        out.append(f"(No advice for {word}!)\n")
        return
    if len(node.members) == 1:
        _display(node.members[0], indent, out)
        return
    out.append("(Follow each of:\n" if node.conj else "(Follow one of:\n")
    pad = " " * (indent + 4)
    joiner = "and " if node.conj else "or "
    for i, member in enumerate(node.members):
        out.append(pad)
        if i:
            out.append(joiner)
            if isinstance(member, _Group):
                out.append("\n" + pad)
        _display(member, indent + 4, out)
    out.append(" " * indent + ")\n")


def advice_lines(header: str, condition: pddl.Formula, binding: dict, state: set, universe,
                 derived: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """``header`` followed by the advice for making ``condition`` true in ``state``
    (cut short, and saying so, at ``MAX_ADVICE_ITEMS`` leaves or at the budget's limit)."""
    builder = _Builder(state, universe, derived)
    try:
        tree = builder.make_true(condition, binding)
    except LimitReached as stop:
        return (header, f"(... advice cut at the {stop.limit})")
    out: list[str] = []
    if tree is not None:
        _display(tree, 0, out)
    if builder.full:
        out.append(f"(... advice cut after {MAX_ADVICE_ITEMS} items)\n")
    return (header,) + tuple("".join(out).rstrip("\n").split("\n"))


def unsatisfied_conditions(condition: pddl.Formula, binding: dict, state: set,
                           universe) -> tuple[str, ...]:
    """The false top-level conjuncts of ``condition``, ground, as PDDL text (those found
    before the budget ran out, if it did)."""
    builder = _Builder(state, universe, frozenset())
    found: list[str] = []
    try:
        for c in conjuncts(condition):
            if not builder.holds(c, binding):
                found.append(formula_text(c, binding))
    except LimitReached:
        pass
    return tuple(found)


def precondition_verdict(condition: pddl.Formula, binding: dict, state: set,
                         universe) -> Verdict:
    """``numeric_precondition_failed`` when a false top-level conjunct is a numeric
    comparison, else ``precondition_failed``."""
    for c in conjuncts(condition):
        if isinstance(c, pddl.Comparison):
            try:
                if not compile_formula(c, frozenset(binding))(state, dict(binding), universe):
                    return Verdict.NUMERIC_PRECONDITION_FAILED
            except UndefinedValue:
                return Verdict.NUMERIC_PRECONDITION_FAILED
    return Verdict.PRECONDITION_FAILED
