"""Lifted AST -> PDDL text.

The output is what Fast Downward and VAL read, and parsing it again gives an equal AST
(positions aside). Requirements are written as declared, so a file that uses features it
never declared round-trips unchanged; :func:`write_domain` with ``requirements=`` lets a
caller (e.g. the Fast Downward bridge) write the requirements a task really needs.
"""
from __future__ import annotations

from planning_core.pddl import ast as pddl

__all__ = ["write_domain", "write_problem", "write_formula", "write_effect", "write_constraint"]


def _num(value: float) -> str:
    if float(value).is_integer():
        return str(int(value))
    text = repr(float(value))
    # PDDL numbers have no exponent: 1e-07 is written out in positional notation
    return text if "e" not in text else format(float(value), ".20f").rstrip("0")


def _typed(items: tuple[pddl.TypedName, ...]) -> str:
    """Group consecutive names of one type: ``a b - t c - u``.

    Untyped lists (everything ``object``) are written bare, as STRIPS planners expect.
    """
    if all(x.types == ("object",) for x in items):
        return " ".join(x.name for x in items)
    parts: list[str] = []
    i = 0
    while i < len(items):
        j = i
        while j + 1 < len(items) and items[j + 1].types == items[i].types:
            j += 1
        names = " ".join(x.name for x in items[i:j + 1])
        types = items[i].types
        spec = types[0] if len(types) == 1 else "(either " + " ".join(types) + ")"
        parts.append(f"{names} - {spec}")
        i = j + 1
    return " ".join(parts)


def write_formula(f: pddl.Formula) -> str:
    if isinstance(f, pddl.Atom):
        return str(f)
    if isinstance(f, pddl.Equals):
        return str(f)
    if isinstance(f, pddl.Comparison):
        return f"({f.op} {write_numeric(f.left)} {write_numeric(f.right)})"
    if isinstance(f, pddl.Not):
        return f"(not {write_formula(f.body)})"
    if isinstance(f, pddl.And):
        return "(and" + "".join(" " + write_formula(p) for p in f.parts) + ")"
    if isinstance(f, pddl.Or):
        return "(or" + "".join(" " + write_formula(p) for p in f.parts) + ")"
    if isinstance(f, pddl.Imply):
        return f"(imply {write_formula(f.antecedent)} {write_formula(f.consequent)})"
    if isinstance(f, pddl.Exists):
        return f"(exists ({_typed(f.parameters)}) {write_formula(f.body)})"
    if isinstance(f, pddl.Forall):
        return f"(forall ({_typed(f.parameters)}) {write_formula(f.body)})"
    raise TypeError(f"not a formula: {f!r}")


def write_numeric(e: pddl.NumericExpr) -> str:
    if isinstance(e, pddl.Number):
        return _num(e.value)
    if isinstance(e, (pddl.FunctionTerm, pddl.NumericVariable)):
        return str(e)
    if isinstance(e, pddl.BinaryOp):
        return f"({e.op} {write_numeric(e.left)} {write_numeric(e.right)})"
    raise TypeError(f"not a numeric expression: {e!r}")


def write_effect(e: pddl.Effect) -> str:
    if isinstance(e, pddl.Add):
        return str(e.atom)
    if isinstance(e, pddl.Delete):
        return f"(not {e.atom})"
    if isinstance(e, pddl.When):
        return f"(when {write_formula(e.condition)} {_effects(e.effects)})"
    if isinstance(e, pddl.ForallEffect):
        return f"(forall ({_typed(e.parameters)}) {_effects(e.effects)})"
    if isinstance(e, pddl.Increase):
        return f"(increase {e.fluent} {write_numeric(e.amount)})"
    if isinstance(e, pddl.NumericEffect):
        return f"({e.op} {e.fluent} {write_numeric(e.amount)})"
    raise TypeError(f"not an effect: {e!r}")


def write_constraint(c: pddl.Constraint) -> str:
    if isinstance(c, pddl.ConstraintAnd):
        return "(and" + "".join(" " + write_constraint(p) for p in c.parts) + ")"
    if isinstance(c, pddl.ConstraintForall):
        return f"(forall ({_typed(c.parameters)}) {write_constraint(c.body)})"
    if isinstance(c, pddl.Always):
        return f"(always {write_formula(c.body)})"
    if isinstance(c, pddl.Sometime):
        return f"(sometime {write_formula(c.body)})"
    if isinstance(c, pddl.AtMostOnce):
        return f"(at-most-once {write_formula(c.body)})"
    if isinstance(c, pddl.SometimeBefore):
        return f"(sometime-before {write_formula(c.body)} {write_formula(c.before)})"
    if isinstance(c, pddl.SometimeAfter):
        return f"(sometime-after {write_formula(c.body)} {write_formula(c.after)})"
    if isinstance(c, pddl.AtEnd):
        return f"(at end {write_formula(c.body)})"
    raise TypeError(f"not a constraint: {c!r}")


def _effects(effects: tuple[pddl.Effect, ...]) -> str:
    return "(and" + "".join(" " + write_effect(e) for e in effects) + ")"


def _duration(d: pddl.DurationConstraint) -> str:
    text = f"({d.op} ?duration {write_numeric(d.value)})"
    return f"(at {d.time} {text})" if d.time else text


def _timed_conditions(when: str, f: pddl.Formula) -> list[str]:
    """``(at start c)`` per conjunct, as the IPC domains write them: LPG-td reads a timed
    ``(and ...)`` wrongly (it started a turn_to deleting what a calibrate needs at start
    at the same instant as the calibrate, on satellite-time-simple p1)."""
    if f == pddl.TRUE:
        return []
    parts = f.parts if isinstance(f, pddl.And) else (f,)
    return [f"({when} {write_formula(p)})" for p in parts]


def _timed_effect(when: str, e: pddl.Effect) -> str:
    """A durative action's effect at ``when``: a conditional one as PDDL 2.1 writes it,
    ``(when (at start c) (at start e))``; a ``forall`` around the timed effect."""
    if isinstance(e, pddl.When):
        if e.at_start:
            return (f"(when (at start {write_formula(e.condition)}) "
                    f"({when} {_effects(e.effects)}))")
        return (f"(when ({when} {write_formula(e.condition)}) "
                f"({when} {_effects(e.effects)}))")
    if isinstance(e, pddl.ForallEffect):
        body = [_timed_effect(when, x) for x in e.effects]
        inner = body[0] if len(body) == 1 else "(and " + " ".join(body) + ")"
        return f"(forall ({_typed(e.parameters)}) {inner})"
    return f"({when} {write_effect(e)})"


def _durative_action(a: pddl.Action) -> str:
    conditions = (_timed_conditions("at start", a.precondition)
                  + _timed_conditions("over all", a.over_all)
                  + _timed_conditions("at end", a.end_condition))
    effects = [_timed_effect("at start", e) for e in a.effects] + \
               [_timed_effect("at end", e) for e in a.end_effects] + \
               [f"({'increase' if isinstance(e, pddl.Increase) else e.op} {e.fluent} "
                f"(* #t {write_numeric(e.amount)}))" for e in a.continuous]
    lines = [f"  (:durative-action {a.name}",
             f"    :parameters ({_typed(a.parameters)})",
             # one constraint bare: unified-planning's reader (TAMER's way in) refuses
             # (and c) around a single one, which PDDL 2.1 allows
             "    :duration " + (_duration(a.duration[0]) if len(a.duration) == 1 else
                                 "(and" + "".join(" " + _duration(d) for d in a.duration) + ")"),
             "    :condition (and" + "".join(" " + c for c in conditions) + ")",
             "    :effect (and" + "".join(" " + e for e in effects) + "))"]
    return "\n".join(lines)


def _action(a: pddl.Action) -> str:
    if a.durative:
        return _durative_action(a)
    lines = [f"  (:action {a.name}",
             f"    :parameters ({_typed(a.parameters)})",
             f"    :precondition {write_formula(a.precondition)}",
             f"    :effect {_effects(a.effects)})"]
    return "\n".join(lines)


def write_domain(d: pddl.Domain, *, requirements: tuple[str, ...] | None = None) -> str:
    reqs = d.requirements if requirements is None else requirements
    out = [f"(define (domain {d.name})"]
    if reqs:
        out.append("  (:requirements " + " ".join(reqs) + ")")
    if d.types:
        out.append(f"  (:types {_typed(d.types)})")
    if d.constants:
        out.append(f"  (:constants {_typed(d.constants)})")
    if d.predicates:
        out.append("  (:predicates")
        out.extend(f"    ({p.name}{' ' if p.parameters else ''}{_typed(p.parameters)})"
                   for p in d.predicates)
        out.append("  )")
    if d.functions:
        out.append("  (:functions")
        out.extend(f"    ({f.name}{' ' if f.parameters else ''}{_typed(f.parameters)}) - {f.type}"
                   for f in d.functions)
        out.append("  )")
    for ax in d.derived:
        head = ax.head
        params = (" " + _typed(head.parameters)) if head.parameters else ""
        out.append(f"  (:derived ({head.name}{params}) {write_formula(ax.body)})")
    if d.constraints is not None:
        out.append(f"  (:constraints {write_constraint(d.constraints)})")
    out.extend(_action(a) for a in d.actions)
    out.append(")")
    return "\n".join(out) + "\n"


def write_problem(p: pddl.Problem) -> str:
    out = [f"(define (problem {p.name})", f"  (:domain {p.domain_name})"]
    if p.requirements:
        out.append("  (:requirements " + " ".join(p.requirements) + ")")
    if p.objects:
        out.append(f"  (:objects {_typed(p.objects)})")
    out.append("  (:init")
    out.extend(f"    {atom}" for atom in p.init)
    out.extend(f"    (= {n.fluent} {_num(n.value)})" for n in p.numeric_init)
    out.extend(f"    (at {_num(t.time)} {t.atom if t.positive else f'(not {t.atom})'})"
               for t in p.timed_literals)
    out.append("  )")
    out.append(f"  (:goal {write_formula(p.goal)})")
    if p.constraints is not None:
        out.append(f"  (:constraints {write_constraint(p.constraints)})")
    if p.metric is not None:
        out.append(f"  (:metric {p.metric.direction} {write_numeric(p.metric.expression)})")
    out.append(")")
    return "\n".join(out) + "\n"
