"""Semantic checks on a parsed domain and problem, reported as data.

Real files are messy: the CoPE ground truth declares only ``:strips`` while using ``when``
and ``or``; IPC problems redeclare domain constants as objects. So the checker separates
*errors* (the file cannot mean anything: an undeclared predicate, a wrong arity, an object
of the wrong type) from *warnings* (it means something, but not what it declares). Each
:class:`~planning_core.pddl.ast.Diagnostic` carries the file, line and column of the name
at fault. Nothing here raises on bad input.
"""
from __future__ import annotations

from planning_core.limits import active_budget
from planning_core.pddl import ast as pddl
from planning_core.pddl.features import is_temporal
from planning_core.pddl.types import ROOT, TypeHierarchy, object_types

__all__ = ["check_domain", "check_problem", "check", "used_requirements", "errors_of",
           "KNOWN_REQUIREMENTS"]

KNOWN_REQUIREMENTS = frozenset({
    ":strips", ":typing", ":negative-preconditions", ":disjunctive-preconditions",
    ":equality", ":existential-preconditions", ":universal-preconditions",
    ":quantified-preconditions", ":conditional-effects", ":adl", ":derived-predicates",
    ":action-costs", ":fluents", ":numeric-fluents", ":object-fluents", ":durative-actions",
    ":duration-inequalities", ":continuous-effects", ":timed-initial-literals",
    ":preferences", ":constraints", ":domain-axioms", ":safety-constraints",
    ":expression-evaluation", ":open-world", ":true-negation", ":ucpop",
})

# what each used feature is covered by (any of the listed requirements)
_COVERED_BY = {
    ":typing": {":typing", ":adl", ":ucpop"},
    ":negative-preconditions": {":negative-preconditions", ":adl", ":ucpop"},
    ":disjunctive-preconditions": {":disjunctive-preconditions", ":adl", ":ucpop"},
    ":equality": {":equality", ":adl", ":ucpop"},
    ":existential-preconditions": {":existential-preconditions", ":quantified-preconditions",
                                   ":adl", ":ucpop"},
    ":universal-preconditions": {":universal-preconditions", ":quantified-preconditions",
                                 ":adl", ":ucpop"},
    ":conditional-effects": {":conditional-effects", ":adl", ":ucpop"},
    ":derived-predicates": {":derived-predicates", ":domain-axioms"},
    ":action-costs": {":action-costs", ":fluents", ":numeric-fluents"},
    ":numeric-fluents": {":numeric-fluents", ":fluents"},
}

#: used without being declared, these are errors, not warnings: a duration inequality
#: changes what a plan may say (VAL refuses the domain)
_REQUIRED = frozenset({":duration-inequalities"})


def errors_of(diagnostics) -> tuple[pddl.Diagnostic, ...]:
    return tuple(d for d in diagnostics if d.severity == "error")


class _Report:
    def __init__(self, filename: str | None) -> None:
        self.filename = filename
        self.items: list[pddl.Diagnostic] = []
        self._seen: set[tuple] = set()
        self._more: dict[tuple, int] = {}
        self._index: dict[tuple, int] = {}

    def add(self, severity: str, message: str, pos: pddl.Pos | None, fault: tuple | None = None) -> None:
        """Record a diagnostic once per fault.

        ``fault`` identifies the underlying mistake (e.g. ``("type", "room")``): a name that
        was never declared is one fault however often it is used, so only its first use is
        reported, with a count of the others.
        """
        key = fault or (severity, message, pos)
        if key in self._seen:
            if fault is not None:
                self._more[fault] += 1
            return
        self._seen.add(key)
        if fault is not None:
            self._more[fault] = 0
            self._index[fault] = len(self.items)
        self.items.append(pddl.Diagnostic(severity, message, self.filename,
                                       pos.line if pos else None, pos.column if pos else None))

    def finish(self) -> tuple[pddl.Diagnostic, ...]:
        for fault, more in self._more.items():
            if more:
                d = self.items[self._index[fault]]
                self.items[self._index[fault]] = pddl.Diagnostic(
                    d.severity, f"{d.message} (and {more} more use{'s' if more > 1 else ''})",
                    d.file, d.line, d.column)
        return tuple(self.items)

    def error(self, message: str, pos: pddl.Pos | None) -> None:
        self.add("error", message, pos)

    def warning(self, message: str, pos: pddl.Pos | None) -> None:
        self.add("warning", message, pos)


# ------------------------------------------------------------------ feature use

def _formula_features(f: pddl.Formula, out: set[str], positive: bool = True) -> None:
    if isinstance(f, pddl.Atom):
        if not positive:
            out.add(":negative-preconditions")
    elif isinstance(f, pddl.Equals):
        out.add(":equality")  # (not (= ?a ?b)) is plain :equality, not a negative precondition
    elif isinstance(f, pddl.Comparison):
        out.add(":numeric-fluents")
    elif isinstance(f, pddl.Not):
        _formula_features(f.body, out, not positive)
    elif isinstance(f, (pddl.And, pddl.Or)):
        # an `or`, or an `and` under negation, is a disjunction
        if isinstance(f, pddl.Or) == positive and len(f.parts) > 1:
            out.add(":disjunctive-preconditions")
        for p in f.parts:
            _formula_features(p, out, positive)
    elif isinstance(f, pddl.Imply):
        out.add(":disjunctive-preconditions")
        _formula_features(f.antecedent, out, not positive)
        _formula_features(f.consequent, out, positive)
    elif isinstance(f, (pddl.Exists, pddl.Forall)):
        out.add(":existential-preconditions" if isinstance(f, pddl.Exists) == positive
                else ":universal-preconditions")
        if any(p.types != (ROOT,) for p in f.parameters):
            out.add(":typing")
        _formula_features(f.body, out, positive)


def _effect_features(effects: tuple[pddl.Effect, ...], out: set[str]) -> None:
    for e in effects:
        if isinstance(e, pddl.When):
            out.add(":conditional-effects")
            _formula_features(e.condition, out)
            _effect_features(e.effects, out)
        elif isinstance(e, pddl.ForallEffect):
            out.add(":conditional-effects")
            _effect_features(e.effects, out)
        elif isinstance(e, pddl.Increase):
            cost = e.fluent.name.lower() == "total-cost" and not e.fluent.args
            out.add(":action-costs" if cost else ":numeric-fluents")
        elif isinstance(e, pddl.NumericEffect):
            out.add(":numeric-fluents")


def used_requirements(domain: pddl.Domain, problem: pddl.Problem | None = None) -> frozenset[str]:
    """The requirements the files really use, whatever they declare."""
    out: set[str] = {":strips"}
    typed = [*domain.types, *domain.constants,
             *(p for pred in domain.predicates for p in pred.parameters),
             *(p for a in domain.actions for p in a.parameters)]
    if problem is not None:
        typed += problem.objects
    if domain.types or any(t.types != (ROOT,) for t in typed):
        out.add(":typing")
    for a in domain.actions:
        _formula_features(a.precondition, out)
        _effect_features(a.effects, out)
        if a.durative:
            out.add(":durative-actions")
            _formula_features(a.over_all, out)
            _formula_features(a.end_condition, out)
            _effect_features(a.end_effects, out)
            if a.continuous:
                out.add(":continuous-effects")
                _effect_features(a.continuous, out)
            if any(d.op != "=" for d in a.duration):
                out.add(":duration-inequalities")
    if domain.derived:
        out.add(":derived-predicates")
        for ax in domain.derived:
            _formula_features(ax.body, out)
    if domain.functions:    # only (total-cost) is action costs; other functions are fluents
        out.add(":action-costs" if all(f.name.lower() == "total-cost" and not f.parameters
                                       for f in domain.functions) else ":numeric-fluents")
    if problem is not None:
        _formula_features(problem.goal, out)
        if problem.timed_literals:
            out.add(":timed-initial-literals")
    if domain.constraints is not None or (problem is not None and problem.constraints is not None):
        out.add(":constraints")
    return frozenset(out)


def _declared_covers(declared: set[str], feature: str) -> bool:
    return bool(_COVERED_BY.get(feature, {feature}) & declared)


def _check_requirements(declared_tuple, used, report: _Report, pos) -> None:
    declared = set(declared_tuple)
    for r in declared_tuple:
        if r not in KNOWN_REQUIREMENTS:
            report.warning(f"unknown requirement {r}", pos)
    for feature in sorted(used):
        if feature in _REQUIRED and not _declared_covers(declared, feature):
            continue     # an error, located at each use (see _Context.durative)
        if feature != ":strips" and not _declared_covers(declared, feature):
            report.warning(f"uses {feature} without declaring it (accepted)", pos)


# ------------------------------------------------------------------- the walker

class _Context:
    """What names mean while walking one domain (and optionally its problem)."""

    def __init__(self, domain: pddl.Domain, problem: pddl.Problem | None, report: _Report) -> None:
        self.domain, self.problem, self.report = domain, problem, report
        self.types = TypeHierarchy.of(domain)
        self.predicates = {p.name: p for p in domain.predicates}
        for ax in domain.derived:
            self.predicates.setdefault(ax.head.name, ax.head)
        self.derived = {ax.head.name for ax in domain.derived}
        self.functions = {f.name: f for f in domain.functions}
        self.objects = object_types(domain, problem)
        self.duration_ok = False    # ?duration may be read (a durative action's effects)

    def check_typed(self, items, what: str, scope: dict | None = None) -> None:
        seen: dict[str, pddl.TypedName] = {}
        for item in items:
            for t in item.types:
                if not self.types.declared(t):
                    self.report.add("error", f"undeclared type '{t}' (of {what} '{item.name}')",
                                    item.pos, fault=("type", t))
            if item.name in seen and what in ("object", "constant"):
                # one object named twice is still one object, with the types of both
                # declarations (pddl.types.object_types); VAL accepts it (Fast Downward
                # refuses it), as it accepts a constant declared again as an object
                types = tuple(dict.fromkeys(seen[item.name].types + item.types))
                self.report.warning(f"{what} '{item.name}' is declared twice; it is one "
                                    f"{what} of type{'s' if len(types) > 1 else ''} "
                                    f"{' '.join(types)}", item.pos)
            elif item.name in seen:
                # names in a predicate's declaration are placeholders: a repeat is harmless
                severity = "warning" if what == "predicate parameter" else "error"
                self.report.add(severity, f"duplicate {what} '{item.name}'", item.pos)
            seen[item.name] = item
            if scope is not None and item.name in scope and what == "variable":
                self.report.warning(f"variable '{item.name}' shadows an outer variable", item.pos)

    def term_types(self, term: str, scope: dict, pos, where: str) -> tuple[str, ...] | None:
        if pddl.is_variable(term):
            if term not in scope:
                self.report.add("error", f"undeclared variable '{term}' in {where}", pos,
                                fault=("variable", term, where))
                return None
            return scope[term]
        if term not in self.objects:
            kind = "constant" if self.problem is None else "object or constant"
            self.report.add("error", f"undeclared {kind} '{term}' in {where}", pos,
                            fault=("object", term))
            return None
        return self.objects[term]

    def check_args(self, name: str, args, params, scope: dict, pos, where: str,
                   kind: str = "predicate") -> None:
        if len(args) != len(params):
            self.report.error(f"{kind} '{name}' takes {len(params)} argument(s), "
                              f"{len(args)} given in {where}", pos)
            return
        for arg, param in zip(args, params):
            types = self.term_types(arg, scope, pos, where)
            if types is None:
                continue
            if self.types.is_subtype(types, param.types):
                continue
            if not pddl.is_variable(arg) and any(
                    self.types.is_subtype((t,), param.types) for t in types):
                # an object of several declared types (declared twice, or `either`) is
                # each of them: it fits where one fits, as the validator's ground_faults say
                continue
            if not all(map(self.types.declared, types + param.types)):
                continue  # the undeclared type is reported once, where it is declared
            message = (f"'{arg}' of type {_show(types)} does not fit parameter {param.name} "
                       f"of type {_show(param.types)} of {kind} '{name}' in {where}")
            # a variable of a wider type is legal PDDL (the atom is simply false for the
            # objects outside the parameter's type); a ground argument of a wrong type is not
            if pddl.is_variable(arg) and self._overlap(types, param.types):
                continue
            if pddl.is_variable(arg):
                self.report.warning(message + " (the atom can never hold)", pos)
            else:
                self.report.error(message, pos)

    def _overlap(self, a: tuple[str, ...], b: tuple[str, ...]) -> bool:
        return self.types.is_subtype(b, a) or self.types.is_subtype(a, b)

    def atom(self, atom: pddl.Atom, scope: dict, where: str) -> None:
        pred = self.predicates.get(atom.predicate)
        if pred is None:
            self.report.add("error", f"undeclared predicate '{atom.predicate}' in {where}",
                            atom.pos, fault=("predicate", atom.predicate))
            for arg in atom.args:
                self.term_types(arg, scope, atom.pos, where)
            return
        self.check_args(atom.predicate, atom.args, pred.parameters, scope, atom.pos, where)

    def formula(self, f: pddl.Formula, scope: dict, where: str) -> None:
        if isinstance(f, pddl.Atom):
            self.atom(f, scope, where)
        elif isinstance(f, pddl.Equals):
            for t in (f.left, f.right):
                self.term_types(t, scope, f.pos, where)
        elif isinstance(f, pddl.Comparison):
            self.numeric(f.left, scope, where)
            self.numeric(f.right, scope, where)
        elif isinstance(f, pddl.Not):
            self.formula(f.body, scope, where)
        elif isinstance(f, (pddl.And, pddl.Or)):
            for p in f.parts:
                self.formula(p, scope, where)
        elif isinstance(f, pddl.Imply):
            self.formula(f.antecedent, scope, where)
            self.formula(f.consequent, scope, where)
        elif isinstance(f, (pddl.Exists, pddl.Forall)):
            self.check_typed(f.parameters, "variable", scope)
            inner = dict(scope)
            inner.update({p.name: p.types for p in f.parameters})
            self.formula(f.body, inner, where)

    def constraint(self, c: pddl.Constraint, scope: dict, where: str) -> None:
        if isinstance(c, pddl.ConstraintAnd):
            for part in c.parts:
                self.constraint(part, scope, where)
        elif isinstance(c, pddl.ConstraintForall):
            self.check_typed(c.parameters, "variable", scope)
            inner = dict(scope)
            inner.update({p.name: p.types for p in c.parameters})
            self.constraint(c.body, inner, where)
        else:
            for f in _constraint_formulas(c):
                self.formula(f, scope, where)

    def fluent(self, ft: pddl.FunctionTerm, scope: dict, where: str) -> None:
        fn = self.functions.get(ft.name)
        if fn is None:
            self.report.add("error", f"undeclared function '{ft.name}' in {where}", ft.pos,
                            fault=("function", ft.name))
            return
        self.check_args(ft.name, ft.args, fn.parameters, scope, ft.pos, where, kind="function")

    def numeric(self, e: pddl.NumericExpr, scope: dict, where: str) -> None:
        todo = [e]
        while todo:
            e = todo.pop()
            if isinstance(e, pddl.FunctionTerm):
                if e.name == "total-time" and not e.args and where == ":metric":
                    continue
                self.fluent(e, scope, where)
            elif isinstance(e, pddl.BinaryOp):
                if e.op == "/" and isinstance(e.right, pddl.Number) and e.right.value == 0:
                    self.report.error(f"division by zero in {where}", e.pos or e.right.pos)
                todo += [e.right, e.left]
            elif isinstance(e, pddl.NumericVariable):
                if e.name == "?duration" and not self.duration_ok:
                    self.report.error(f"?duration in {where}: it may appear only in a "
                                      "durative action's :effect", e.pos)
                elif e.name != "?duration":
                    self.report.error(f"variable {e.name} used as a number in {where}; "
                                      "expected a number or a fluent (parameters are objects)",
                                      e.pos)

    def effects(self, effects, scope: dict, where: str) -> None:
        for e in effects:
            if isinstance(e, (pddl.Add, pddl.Delete)):
                self.atom(e.atom, scope, where)
                if e.atom.predicate in self.derived:
                    self.report.error(f"derived predicate '{e.atom.predicate}' cannot be changed "
                                      f"by an effect in {where}", e.atom.pos)
            elif isinstance(e, pddl.When):
                self.formula(e.condition, scope, where)
                self.effects(e.effects, scope, where)
            elif isinstance(e, pddl.ForallEffect):
                self.check_typed(e.parameters, "variable", scope)
                inner = dict(scope)
                inner.update({p.name: p.types for p in e.parameters})
                self.effects(e.effects, inner, where)
            elif isinstance(e, (pddl.Increase, pddl.NumericEffect)):
                self.fluent(e.fluent, scope, where)
                self.numeric(e.amount, scope, where)

    def durative(self, a: pddl.Action, scope: dict, declared: set) -> None:
        """The parts of a durative action beyond its ``at start`` condition and effects."""
        where = f"durative action '{a.name}'"
        for d in a.duration:
            if d.op != "=" and ":duration-inequalities" not in declared:
                self.report.error(f"duration inequality ({d.op} ?duration ...) in {where} "
                                  "needs (:requirements :duration-inequalities)", d.pos)
            self.numeric(d.value, scope, f"{where} :duration")
        self.formula(a.over_all, scope, f"{where} over all condition")
        self.formula(a.end_condition, scope, f"{where} at end condition")
        self.duration_ok = True
        try:
            self.effects(a.effects, scope, f"{where} at start effect")
            self.effects(a.end_effects, scope, f"{where} at end effect")
            self.effects(a.continuous, scope, f"{where} continuous effect")
        finally:
            self.duration_ok = False


def _constraint_formulas(c: pddl.Constraint) -> tuple[pddl.Formula, ...]:
    if isinstance(c, pddl.SometimeBefore):
        return (c.body, c.before)
    if isinstance(c, pddl.SometimeAfter):
        return (c.body, c.after)
    return (c.body,)


def _show(types: tuple[str, ...]) -> str:
    return types[0] if len(types) == 1 else "(either " + " ".join(types) + ")"


def _duplicates(items, what: str, report: _Report) -> None:
    seen: set[str] = set()
    for item in items:
        if item.name in seen:
            report.error(f"duplicate {what} '{item.name}'", item.pos)
        seen.add(item.name)


def _duplicate_types(types, report: _Report) -> None:
    """A type declared twice is a warning (IPC-2006 storage declares ``area`` under
    ``object`` and again under ``surface``; FD and VAL accept it): its supertypes are
    combined, as ``TypeHierarchy`` does."""
    parents: dict[str, list[str]] = {}
    for item in types:
        if item.name in parents:
            combined = dict.fromkeys(parents[item.name] + list(item.types))
            report.warning(f"type '{item.name}' is declared twice; its supertypes are "
                           f"combined: {', '.join(combined)}", item.pos)
        parents.setdefault(item.name, []).extend(item.types)


def check_domain(domain: pddl.Domain) -> tuple[pddl.Diagnostic, ...]:
    report = _Report(domain.filename)
    ctx = _Context(domain, None, report)
    _check_requirements(domain.requirements, used_requirements(domain), report, domain.pos)
    for t in ctx.types.cycles():
        where = next((d.pos for d in domain.types if d.name == t), domain.pos)
        report.error(f"type '{t}' is its own supertype (cycle in :types)", where)
    _duplicate_types(domain.types, report)
    ctx.check_typed(domain.constants, "constant")
    _duplicates(domain.predicates, "predicate", report)
    _duplicates(domain.functions, "function", report)
    for f in domain.functions:
        if f.type != "number":
            report.error(f"function '{f.name}' has type '{f.type}': object fluents are not "
                         "supported; expected '- number'", f.pos)
        ctx.check_typed(f.parameters, "function parameter")
    _duplicates(domain.actions, "action", report)
    for p in domain.predicates:
        ctx.check_typed(p.parameters, "predicate parameter")
    budget = active_budget()        # 20,000 schemas take seconds (limits.metering)
    for a in domain.actions:
        if budget is not None:
            budget.tick(64)         # a schema is a few dozen nodes to check
        ctx.check_typed(a.parameters, "parameter")
        scope = {p.name: p.types for p in a.parameters}
        if a.durative:
            ctx.formula(a.precondition, scope, f"durative action '{a.name}' at start condition")
            ctx.durative(a, scope, set(domain.requirements))
            continue
        ctx.formula(a.precondition, scope, f"action '{a.name}' precondition")
        ctx.effects(a.effects, scope, f"action '{a.name}' effect")
    if domain.constraints is not None:
        ctx.constraint(domain.constraints, {}, ":constraints")
    for ax in domain.derived:
        if budget is not None:
            budget.tick(len(domain.predicates) + 64)
        ctx.check_typed(ax.head.parameters, "parameter")
        declared = next((p for p in domain.predicates if p.name == ax.head.name), None)
        if declared is None:
            # PDDL 2.2 declares a derived predicate in :predicates like any other; VAL
            # ("Predicate ... not found") and Fast Downward ("Expected logical operator or
            # predicate name") refuse the domain when it is not (benchmarks/classical_edge)
            report.error(f"derived predicate '{ax.head.name}' is not declared in :predicates",
                         ax.head.pos or ax.pos)
        elif declared.arity != ax.head.arity:
            report.error(f"derived predicate '{ax.head.name}' has {ax.head.arity} parameter(s) "
                         f"but is declared with {declared.arity}", ax.pos)
        scope = {p.name: p.types for p in ax.head.parameters}
        ctx.formula(ax.body, scope, f"derived predicate '{ax.head.name}'")
    return report.finish()


def _atom_text(atom: pddl.Atom) -> str:
    return "(" + " ".join((atom.predicate,) + tuple(atom.args)) + ")"


def _is_total_time(expr) -> bool:
    return isinstance(expr, pddl.FunctionTerm) and expr.name == "total-time" and not expr.args


def check_problem(domain: pddl.Domain, problem: pddl.Problem) -> tuple[pddl.Diagnostic, ...]:
    report = _Report(problem.filename)
    ctx = _Context(domain, problem, report)
    if problem.domain_name != domain.name:
        report.error(f"problem '{problem.name}' is for domain '{problem.domain_name}', "
                     f"but the domain is '{domain.name}'", problem.pos)
    _check_requirements(problem.requirements, set(), report, problem.pos)
    constants = {c.name for c in domain.constants}
    ctx.check_typed(problem.objects, "object")
    for o in problem.objects:
        if o.name in constants:
            types = ctx.objects[o.name]
            also = (f" of another type; it has both types ({' '.join(types)})"
                    if set(types) != set(o.types) else "")
            report.warning(f"object '{o.name}' is also a domain constant{also}", o.pos)
    budget = active_budget()        # 10^6 init atoms take seconds (limits.metering)
    for atom in problem.init:
        if budget is not None:
            budget.tick()
        ctx.atom(atom, {}, ":init")
        if atom.predicate in ctx.derived:
            # its value comes from the :derived rules; VAL, Fast Downward, the validator and
            # the grounder all ignore it here, so it is a warning, not a refusal
            report.add("warning", f"derived predicate '{atom.predicate}' in :init is ignored: "
                       "its value comes from its :derived rule", atom.pos,
                       fault=("derived-init", atom.predicate))
    positive = set(problem.init)
    for atom in problem.negated_init:
        ctx.atom(atom, {}, ":init")
        also = " (it is also listed as true, and stays true)" if atom in positive else ""
        report.warning(f"negative literal (not {_atom_text(atom)}) in :init has no effect: "
                       f"atoms not listed are false (closed world){also}", atom.pos)
    for n in problem.numeric_init:
        ctx.fluent(n.fluent, {}, ":init")
    for til in problem.timed_literals:
        ctx.atom(til.atom, {}, f"timed initial literal (at {til.time:g} ...)")
        if til.atom.predicate in ctx.derived:
            report.error(f"derived predicate '{til.atom.predicate}' cannot appear in a timed "
                         "initial literal", til.atom.pos)
    ctx.formula(problem.goal, {}, ":goal")
    if problem.metric is not None and _is_total_time(problem.metric.expression) \
            and "total-time" not in ctx.functions and not is_temporal(domain, problem):
        report.warning("(:metric ... (total-time)) in a problem without durative actions: "
                       "the plan's value is its length", problem.metric.pos)
    elif problem.metric is not None:
        ctx.numeric(problem.metric.expression, {}, ":metric")
    if problem.constraints is not None:
        ctx.constraint(problem.constraints, {}, ":constraints")
    return report.finish()


def check(domain: pddl.Domain, problem: pddl.Problem | None = None) -> tuple[pddl.Diagnostic, ...]:
    out = check_domain(domain)
    if problem is not None:
        out += check_problem(domain, problem)
    return out
