"""Lifted effects compiled to closures that collect what an action changes.

PDDL's semantics (and VAL's, and Fast Downward's): every condition of a conditional effect
is evaluated in the state *before* the action, the effects that fire are collected first,
then all deletes are applied and after them all adds, so an atom that is both deleted and
added ends up true. The closures here only collect; :mod:`.simulator` applies. ``forall``
effects enumerate the typed objects at run time, like quantified conditions.
"""
from __future__ import annotations

# collections.abc's Callable, from the module it re-exports (already loaded at start-up):
# importing typing or collections costs each validate call ~2 ms (issue 28)
from _collections_abc import Callable

from planning_core.errors import SemanticError
from planning_core.pddl import ast as pddl
from planning_core.validate.formulas import UndefinedValue, atom_key_fn, atom_text, \
    check_terms, compile_formula, compile_numeric

# eff(state, binding, universe, fluents, adds, dels, increases) -> None
EffFn = Callable[[set, dict, object, dict, list, list, list], None]

__all__ = ["EffFn", "NumericUpdate", "apply_update", "compile_effects", "span_key", "twice_text",
           "twice_updated"]


class NumericUpdate:
    """An ``assign``/``decrease``/``scale-up``/``scale-down`` by ``amount`` (read in the
    pre-state); an ``increase`` is a plain number in the list (the action-cost path)."""

    __slots__ = ("op", "amount")

    def __init__(self, op: str, amount: float) -> None:
        self.op, self.amount = op, amount


def apply_update(old: float, value) -> tuple[float, float, str]:
    """The new value of a fluent at ``old`` after ``value`` (a number: increase; else a
    :class:`NumericUpdate`), with the amount and the operation's name, for the trace."""
    if isinstance(value, NumericUpdate):
        op, amount = value.op, value.amount
        if op == "assign":
            return amount, amount, "assignment"
        if op == "decrease":
            return old - amount, amount, "decrease"
        if op == "scale-up":
            return old * amount, amount, "scale-up"
        if amount == 0:
            raise UndefinedValue("(division by zero in scale-down)")
        return old / amount, amount, "scale-down"
    return old + value, value, "increase"


def span_key(e: pddl.When) -> tuple:
    """Where a step's binding keeps whether ``e``'s at-start condition held at its start."""
    return ("at start", e)


def twice_updated(incs: list) -> tuple[str, bool] | None:
    """A fluent one action updates twice when not every update is an ``increase`` or a
    ``decrease`` (which commute), as ``(fluent, whether it is assigned twice)``, or None.
    VAL's ``Ownership::markOwnedEffectFE`` fails such a step: "assigns to expression (x)
    twice" or "both assigns to and updates expression (x)"; PDDL 2.1 applies an action's
    updates all at once, so two of them to one fluent have no order."""
    if len(incs) < 2:
        return None
    seen: dict = {}
    for key, value in incs:
        additive = not isinstance(value, NumericUpdate) or value.op == "decrease"
        if key in seen:
            if not (additive and seen[key]):
                return key, not additive and not seen[key]
        else:
            seen[key] = additive
    return None


def twice_text(who, twice: tuple) -> str:
    """VAL's words for one action updating a fluent twice (not two increases)."""
    key, assigned = twice
    what = "assigns to" if assigned else "both assigns to and updates"
    return (f"{who} {what} expression {atom_text(key)}{' twice' if assigned else ''}: its "
            "updates happen at once, so they have no order (only increase and decrease "
            "of one fluent combine)")


def compile_effects(effects: tuple[pddl.Effect, ...], scope: frozenset[str],
                    file: str | None = None) -> EffFn:
    """One closure running every effect in order."""
    parts = tuple(_compile(e, scope, file) for e in effects)
    if len(parts) == 1:
        return parts[0]

    def run(s, b, u, n, adds, dels, incs):
        for part in parts:
            part(s, b, u, n, adds, dels, incs)
    return run


def _compile(e: pddl.Effect, scope: frozenset[str], file: str | None) -> EffFn:
    if isinstance(e, pddl.Add):
        check_terms(e.atom.args, scope, e.atom, file)
        key_of = atom_key_fn(e.atom)
        return lambda s, b, u, n, adds, dels, incs: adds.append(key_of(b))
    if isinstance(e, pddl.Delete):
        check_terms(e.atom.args, scope, e.atom, file)
        key_of = atom_key_fn(e.atom)
        return lambda s, b, u, n, adds, dels, incs: dels.append(key_of(b))
    if isinstance(e, pddl.When) and e.at_start:
        # (when (at start c) (at end e)): c was read at the start (timed.py stores it in
        # the step's binding under span_key); an end without its start fires nothing
        cond_key = span_key(e)
        body = compile_effects(e.effects, scope, file)

        def when_started(s, b, u, n, adds, dels, incs):
            if b.get(cond_key):
                body(s, b, u, n, adds, dels, incs)
        return when_started
    if isinstance(e, pddl.When):
        cond = compile_formula(e.condition, scope, file)
        body = compile_effects(e.effects, scope, file)

        def when(s, b, u, n, adds, dels, incs):
            if cond(s, b, u):
                body(s, b, u, n, adds, dels, incs)
        return when
    if isinstance(e, pddl.ForallEffect):
        inner_scope = scope | {p.name for p in e.parameters}
        body = compile_effects(e.effects, inner_scope, file)
        return _forall(e.parameters, body)
    if isinstance(e, pddl.Increase):
        check_terms(e.fluent.args, scope, e.fluent, file)
        key_of = atom_key_fn(pddl.Atom(e.fluent.name, e.fluent.args))
        amount = compile_numeric(e.amount, scope, file)

        def increase(s, b, u, n, adds, dels, incs):
            # The amount is read in the pre-state too. An undefined amount is recorded,
            # not raised, so the step's other effects are still collected.
            try:
                value = amount(b, n)
            except UndefinedValue as err:
                value = err
            incs.append((key_of(b), value))
        return increase
    if isinstance(e, pddl.NumericEffect):
        check_terms(e.fluent.args, scope, e.fluent, file)
        key_of = atom_key_fn(pddl.Atom(e.fluent.name, e.fluent.args))
        amount = compile_numeric(e.amount, scope, file)
        op = e.op

        def update(s, b, u, n, adds, dels, incs):
            try:
                value = NumericUpdate(op, amount(b, n))
            except UndefinedValue as err:
                value = err
            incs.append((key_of(b), value))
        return update
    pos = getattr(e, "pos", None)
    raise SemanticError(f"unsupported effect {type(e).__name__}", file=file,
                        line=pos.line if pos else None, column=pos.column if pos else None)


def _forall(params: tuple[pddl.TypedName, ...], body: EffFn) -> EffFn:
    if not params:  # (forall () e) is just e
        return body
    first, rest = params[0], params[1:]
    inner = _forall(rest, body) if rest else body
    var, types = first.name, first.types

    def forall(s, b, u, n, adds, dels, incs):
        missing = object()
        saved = b.get(var, missing)
        try:
            for obj in u.objects_of(types):
                b[var] = obj
                inner(s, b, u, n, adds, dels, incs)
        finally:
            if saved is missing:
                b.pop(var, None)
            else:
                b[var] = saved
    return forall
