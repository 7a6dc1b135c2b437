"""Lifted formulas compiled to closures, evaluated on a set of ground atoms.

A state is a ``set`` of tuples ``(predicate, arg1, ...)``; a binding is a ``dict`` from
variable to object. Each AST node becomes a closure ``f(state, binding, universe) -> bool``
once per domain, so evaluating a precondition is a few tuple look-ups and calls instead of a
walk with ``isinstance`` dispatch at every node. The closures are built from the lifted AST
and evaluated lifted (no grounding): quantifiers enumerate the universe's objects of the
quantified type at evaluation time, binding the variable in place and restoring it after.

The same closures decide truth for the repair advice (:mod:`.advice`), so the verdict and
the advice cannot disagree about what holds.
"""
from __future__ import annotations

# collections.abc's Callable, from the module it re-exports (already loaded at start-up):
# importing typing or collections costs each validate call ~2 ms (issue 28)
from _collections_abc import Callable

from planning_core.errors import SemanticError
from planning_core.pddl import ast as pddl

Cond = Callable[[set, dict, object], bool]
NumFn = Callable[[dict, dict], float]

__all__ = ["Cond", "FluentState", "UndefinedValue", "atom_key_fn", "atom_text", "check_terms",
           "compile_formula", "compile_numeric", "conjuncts", "fluent_state", "formula_text",
           "ground_args", "numeric_text"]


class UndefinedValue(Exception):
    """A numeric fluent read before it was given a value (not in :init)."""

    def __init__(self, fluent: str) -> None:
        super().__init__(fluent)
        self.fluent = fluent


def _unbound(term: str, node, file: str | None) -> SemanticError:
    pos = getattr(node, "pos", None)
    return SemanticError(f"variable {term} is used but not declared (not a parameter nor "
                         "bound by forall/exists)", file=file,
                         line=pos.line if pos else None, column=pos.column if pos else None)


def check_terms(terms, scope: frozenset[str], node, file: str | None) -> None:
    for t in terms:
        if t.startswith("?") and t not in scope:
            raise _unbound(t, node, file)


def atom_key_fn(atom: pddl.Atom):
    """A function binding -> ground tuple, specialised for the common shapes."""
    pred, args = atom.predicate, atom.args
    is_var = [a.startswith("?") for a in args]
    if not any(is_var):
        key = (pred,) + args
        return lambda b: key
    if all(is_var):
        if len(args) == 1:
            (x,) = args
            return lambda b: (pred, b[x])
        if len(args) == 2:
            x, y = args
            return lambda b: (pred, b[x], b[y])
        if len(args) == 3:
            x, y, z = args
            return lambda b: (pred, b[x], b[y], b[z])
    # Mixed variables and constants, e.g. (con ?x side2 ?y ?sy): one getter per argument.
    get = [(lambda b, v=a: b[v]) if var else (lambda b, c=a: c) for var, a in zip(is_var, args)]
    if len(get) == 2:
        g0, g1 = get
        return lambda b: (pred, g0(b), g1(b))
    if len(get) == 3:
        g0, g1, g2 = get
        return lambda b: (pred, g0(b), g1(b), g2(b))
    if len(get) == 4:
        g0, g1, g2, g3 = get
        return lambda b: (pred, g0(b), g1(b), g2(b), g3(b))
    getters = tuple(get)
    return lambda b: (pred,) + tuple(g(b) for g in getters)


def compile_formula(f: pddl.Formula, scope: frozenset[str], file: str | None = None) -> Cond:
    """Closure deciding ``f`` under a binding of (at least) the variables in ``scope``."""
    if isinstance(f, pddl.Atom):
        check_terms(f.args, scope, f, file)
        key_of = atom_key_fn(f)
        if not any(a.startswith("?") for a in f.args):
            key = key_of({})
            return lambda s, b, u: key in s
        return lambda s, b, u: key_of(b) in s
    if isinstance(f, pddl.Equals):
        check_terms((f.left, f.right), scope, f, file)
        left, right = f.left, f.right
        lv, rv = left.startswith("?"), right.startswith("?")
        if lv and rv:
            return lambda s, b, u: b[left] == b[right]
        if lv:
            return lambda s, b, u: b[left] == right
        if rv:
            return lambda s, b, u: left == b[right]
        same = left == right
        return lambda s, b, u: same
    if isinstance(f, pddl.Not):
        body = compile_formula(f.body, scope, file)
        return lambda s, b, u: not body(s, b, u)
    if isinstance(f, pddl.And):
        parts = tuple(compile_formula(p, scope, file) for p in f.parts)
        if len(parts) == 1:
            return parts[0]
        if len(parts) == 2:
            p, q = parts
            return lambda s, b, u: p(s, b, u) and q(s, b, u)

        def conj(s, b, u):
            for p in parts:
                if not p(s, b, u):
                    return False
            return True
        return conj
    if isinstance(f, pddl.Or):
        parts = tuple(compile_formula(p, scope, file) for p in f.parts)

        def disj(s, b, u):
            for p in parts:
                if p(s, b, u):
                    return True
            return False
        return disj
    if isinstance(f, pddl.Imply):
        ante = compile_formula(f.antecedent, scope, file)
        cons = compile_formula(f.consequent, scope, file)
        return lambda s, b, u: (not ante(s, b, u)) or cons(s, b, u)
    if isinstance(f, (pddl.Exists, pddl.Forall)):
        inner = scope | {p.name for p in f.parameters}
        body = compile_formula(f.body, inner, file)
        return _quantifier(f.parameters, body, isinstance(f, pddl.Exists))
    if isinstance(f, pddl.Comparison):
        return _comparison(f, scope, file)
    raise TypeError(f"not a formula: {f!r}")


class FluentState(set):
    """A state of a numeric task: the true atoms (a ``set``, so every closure and the
    classical code read it unchanged) and ``fluents``, the dict of fluent values that
    numeric comparisons read. Only tasks with ``:functions`` use it: the classical path
    keeps plain sets."""

    __slots__ = ("fluents",)


def fluent_state(atoms, fluents: dict) -> FluentState:
    s = FluentState(atoms)
    s.fluents = fluents
    return s


def _comparison(f: pddl.Comparison, scope: frozenset[str], file: str | None) -> Cond:
    """``(op a b)`` read in the state's fluents; an undefined value raises
    :class:`UndefinedValue` (VAL stops on it: "Attempt to access undefined expression")."""
    left = compile_numeric(f.left, scope, file)
    right = compile_numeric(f.right, scope, file)
    test = _COMPARE.get(f.op)
    if test is None:
        raise SemanticError(f"unknown comparison {f.op!r}", file=file)

    def compare(s, b, u):
        n = getattr(s, "fluents", None)
        if n is None:
            n = {}
        return test(left(b, n), right(b, n))
    return compare


_COMPARE = pddl.COMPARE     # exact up to a double's rounding (see pddl.ast)


def _quantifier(params: tuple[pddl.TypedName, ...], body: Cond, exists: bool) -> Cond:
    """``exists``/``forall`` by enumerating the typed objects, one variable at a time."""
    if not params:  # (exists () f) and (forall () f) are just f
        return body
    first, rest = params[0], params[1:]
    inner = _quantifier(rest, body, exists) if rest else body
    var, types = first.name, first.types

    def quantified(s, b, u):
        missing = object()
        saved = b.get(var, missing)
        try:
            for obj in u.objects_of(types):
                b[var] = obj
                if inner(s, b, u) is exists:
                    return exists
            return not exists
        finally:
            if saved is missing:
                b.pop(var, None)
            else:
                b[var] = saved
    return quantified


# ------------------------------------------------------------------------- numbers

def compile_numeric(e: pddl.NumericExpr, scope: frozenset[str], file: str | None = None) -> NumFn:
    """Closure ``(binding, fluent values) -> float``; unknown fluents raise UndefinedValue."""
    if isinstance(e, pddl.Number):
        value = float(e.value)
        return lambda b, n: value
    if isinstance(e, pddl.FunctionTerm):
        check_terms(e.args, scope, e, file)
        key_of = atom_key_fn(pddl.Atom(e.name, e.args))

        def fluent(b, n):
            key = key_of(b)
            value = n.get(key)
            if value is None:
                raise UndefinedValue(atom_text(key))
            return value
        return fluent
    if isinstance(e, pddl.NumericVariable):
        name = e.name

        def variable(b, n):
            value = b.get(name)
            if not isinstance(value, float):
                raise UndefinedValue(name)
            return value
        return variable
    if isinstance(e, pddl.BinaryOp):
        left = compile_numeric(e.left, scope, file)
        right = compile_numeric(e.right, scope, file)
        op = _OPS.get(e.op)
        if op is None:
            raise SemanticError(f"unknown numeric operator {e.op!r}", file=file)
        return lambda b, n: op(left(b, n), right(b, n))
    raise TypeError(f"not a numeric expression: {e!r}")


def _div(x: float, y: float) -> float:
    if y == 0:
        raise UndefinedValue("(division by zero)")
    return x / y



_OPS = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y, "/": _div}


# ------------------------------------------------------------------------ printing

def ground_args(args: tuple[str, ...], b: dict) -> tuple[str, ...]:
    return tuple(b.get(a, a) if a.startswith("?") else a for a in args)


def atom_text(key: tuple) -> str:
    return "(" + " ".join(key) + ")"


def numeric_text(e, b: dict, fluents: dict | None = None) -> str:
    """PDDL text of a numeric expression under ``b``; with ``fluents``, in VAL's advice
    form: infix, each fluent followed by its value, ``(fuel t1)[=3]``."""
    if isinstance(e, pddl.Number):
        return f"{e.value:g}"
    if isinstance(e, pddl.NumericVariable):
        value = b.get(e.name)
        return f"{value:g}" if fluents is not None and isinstance(value, float) else e.name
    if isinstance(e, pddl.FunctionTerm):
        key = (e.name,) + ground_args(e.args, b)
        text = atom_text(key)
        if fluents is None:
            return text
        value = fluents.get(key)
        return f"{text}[={'undefined' if value is None else format(value, 'g')}]"
    if isinstance(e, pddl.BinaryOp):
        left, right = numeric_text(e.left, b, fluents), numeric_text(e.right, b, fluents)
        if fluents is None:
            return f"({e.op} {left} {right})"
        return f"({left} {e.op} {right})"
    return str(e)


def conjuncts(f: pddl.Formula) -> tuple[pddl.Formula, ...]:
    """Top-level conjuncts, nested ``and`` flattened: the conditions VAL lists one by one."""
    if isinstance(f, pddl.And):
        out: list[pddl.Formula] = []
        for p in f.parts:
            out.extend(conjuncts(p))
        return tuple(out)
    return (f,)


def formula_text(f: pddl.Formula, b: dict) -> str:
    """PDDL text of ``f`` with the bound variables replaced by their objects."""
    if isinstance(f, pddl.Atom):
        return atom_text((f.predicate,) + ground_args(f.args, b))
    if isinstance(f, pddl.Equals):
        left, right = ground_args((f.left, f.right), b)
        return f"(= {left} {right})"
    if isinstance(f, pddl.Not):
        return f"(not {formula_text(f.body, b)})"
    if isinstance(f, pddl.And):
        return "(and" + "".join(" " + formula_text(p, b) for p in f.parts) + ")"
    if isinstance(f, pddl.Or):
        return "(or" + "".join(" " + formula_text(p, b) for p in f.parts) + ")"
    if isinstance(f, pddl.Imply):
        return f"(imply {formula_text(f.antecedent, b)} {formula_text(f.consequent, b)})"
    if isinstance(f, pddl.Comparison):
        return f"({f.op} {numeric_text(f.left, b)} {numeric_text(f.right, b)})"
    if isinstance(f, (pddl.Exists, pddl.Forall)):
        word = "exists" if isinstance(f, pddl.Exists) else "forall"
        inner = {k: v for k, v in b.items() if k not in {p.name for p in f.parameters}}
        params = " ".join(p.name + " - " + p.type for p in f.parameters)
        return f"({word} ({params}) {formula_text(f.body, inner)})"
    raise TypeError(f"not a formula: {f!r}")
