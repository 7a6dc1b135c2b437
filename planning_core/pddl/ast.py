"""Lifted PDDL abstract syntax: frozen, slotted dataclasses.

``@node`` is ``dataclass(frozen=True, slots=True)`` with its methods written ahead of time
(:mod:`planning_core.nodes`); after editing a class here, run
``python -m planning_core.cli.nodes_gen --write``.

Conventions every pass relies on:

* Names (predicates, actions, types, objects, variables) are lower-cased at parse time.
* Terms are plain strings: a variable starts with ``?``, anything else is an object or
  constant. Strings keep the hot loops of the validator and grounder cheap.
* Sequences are tuples, so every node is hashable and can key a cache.
* ``pos`` (line and column in the source) never takes part in equality, so a parse ->
  write -> parse round trip compares equal.

Formulas are a closed set: ``Atom, Equals, Not, And, Or, Imply, Exists, Forall`` and the
numeric ``Comparison`` (PDDL 2.1).
Effects are a closed set: ``Add, Delete, When, ForallEffect, Increase`` and
``NumericEffect`` (``assign``, ``decrease``, ``scale-up``, ``scale-down``; ``increase``
keeps its own class, the action-cost fast path of the grounder).
A durative action (PDDL 2.1) is an :class:`Action` with ``durative`` set: its
``precondition``/``effects`` are the ``at start`` parts, ``over_all``, ``end_condition``
and ``end_effects`` the rest, ``duration`` its duration constraints, ``continuous`` its
linear ``#t`` effects (rates).
PDDL3 trajectory constraints (no time windows, no preferences) are a closed set too:
``Always, Sometime, AtMostOnce, SometimeBefore, SometimeAfter, AtEnd`` under
``ConstraintAnd`` / ``ConstraintForall``.
"""
from __future__ import annotations

from planning_core.nodes import field, node


@node
class Pos:
    line: int
    column: int


def _pos() -> Pos | None:
    return field(default=None, compare=False, repr=False)  # type: ignore[return-value]


def is_variable(term: str) -> bool:
    return term.startswith("?")


# --------------------------------------------------------------------------- names

@node
class TypedName:
    """An object, constant, variable or type with its declared type(s).

    ``types`` has one entry normally and several for ``(either t1 t2)``.
    """

    name: str
    types: tuple[str, ...] = ("object",)
    pos: Pos | None = _pos()

    @property
    def type(self) -> str:
        return self.types[0] if len(self.types) == 1 else "(either " + " ".join(self.types) + ")"


# ------------------------------------------------------------------------- formulas

@node
class Atom:
    predicate: str
    args: tuple[str, ...] = ()
    pos: Pos | None = _pos()

    def __str__(self) -> str:
        return "(" + " ".join((self.predicate,) + self.args) + ")"


@node
class Equals:
    left: str
    right: str
    pos: Pos | None = _pos()

    def __str__(self) -> str:
        return f"(= {self.left} {self.right})"


@node
class Not:
    body: "Formula"
    pos: Pos | None = _pos()


@node
class And:
    parts: tuple["Formula", ...] = ()
    pos: Pos | None = _pos()


@node
class Or:
    parts: tuple["Formula", ...] = ()
    pos: Pos | None = _pos()


@node
class Imply:
    antecedent: "Formula"
    consequent: "Formula"
    pos: Pos | None = _pos()


@node
class Exists:
    parameters: tuple[TypedName, ...]
    body: "Formula"
    pos: Pos | None = _pos()


@node
class Forall:
    parameters: tuple[TypedName, ...]
    body: "Formula"
    pos: Pos | None = _pos()


TRUE = And(())


# ----------------------------------------------------------------- numeric (costs)

@node
class FunctionTerm:
    """A numeric fluent such as ``(total-cost)`` or ``(road-length ?a ?b)``."""

    name: str
    args: tuple[str, ...] = ()
    pos: Pos | None = _pos()

    def __str__(self) -> str:
        return "(" + " ".join((self.name,) + self.args) + ")"


@node
class Number:
    value: float
    pos: Pos | None = _pos()


@node
class BinaryOp:
    """``(+ a b)``, ``(- a b)``, ``(* a b)``, ``(/ a b)`` in metrics and increases."""

    op: str
    left: "NumericExpr"
    right: "NumericExpr"
    pos: Pos | None = _pos()


@node
class NumericVariable:
    """``?duration`` inside a durative action's duration constraint or effects."""

    name: str
    pos: Pos | None = _pos()

    def __str__(self) -> str:
        return self.name


NumericExpr = FunctionTerm | Number | BinaryOp | NumericVariable


@node
class Comparison:
    """``(< a b)``, ``(<= a b)``, ``(= a b)``, ``(>= a b)``, ``(> a b)`` on numbers."""

    op: str
    left: NumericExpr
    right: NumericExpr
    pos: Pos | None = _pos()


Formula = Atom | Equals | Not | And | Or | Imply | Exists | Forall | Comparison


# ------------------------------------------------- what a Comparison means on doubles
# PDDL 2.1's numbers are rationals: `0.1 + 0.1 + 0.1` is `0.3`. Doubles only approximate
# them (`0.30000000000000004`), so a test on a sum of decimal amounts, such as a load
# filled in steps of 0.1 up to a capacity of 0.3, would fail by rounding alone. Two values
# closer than `COMPARE_ROUNDING` relative to the larger (and to 1: sums that cancel, such as
# `0.3 - (0.1 + 0.2)`, are judged against their operands' scale, not their tiny result)
# are therefore the same number; everything farther apart is compared as it is. That keeps
# `>` false at equality and `>=` false a ten-thousandth below, unlike VAL's 0.0001 margin
# (`docs/pddl21.md`, "Comparisons are exact"), while `(= (load) (capacity))` holds after
# three steps of 0.1.

#: far above a double's rounding after thousands of operations (about 1e-16 each), far
#: below any difference a planning task means (VAL's own margin is 1e-4)
COMPARE_ROUNDING = 1e-12


def same_number(x: float, y: float) -> bool:
    """Whether ``x`` and ``y`` differ by rounding only. Two whole numbers never do: doubles
    hold integers exactly up to 2**53, so 2**40 + 1 stays above 2**40."""
    if x == y:
        return True
    if type(x) is float and type(y) is float and x.is_integer() and y.is_integer():
        return False
    return abs(x - y) <= COMPARE_ROUNDING * max(1.0, abs(x), abs(y))


COMPARE = {
    "<": lambda x, y: x < y and not same_number(x, y),
    "<=": lambda x, y: x <= y or same_number(x, y),
    "=": lambda x, y: x == y or same_number(x, y),
    ">=": lambda x, y: x >= y or same_number(x, y),
    ">": lambda x, y: x > y and not same_number(x, y),
}


# -------------------------------------------------------------------------- effects

@node
class Add:
    atom: Atom


@node
class Delete:
    atom: Atom


@node
class When:
    """``(when c e)``. In a durative action's ``end_effects``, ``at_start`` marks PDDL 2.1's
    ``(when (at start c) (at end e))``: ``c`` is read in the state before the action's
    start, ``e`` happens at its end."""

    condition: Formula
    effects: tuple["Effect", ...]
    pos: Pos | None = _pos()
    at_start: bool = False


@node
class ForallEffect:
    parameters: tuple[TypedName, ...]
    effects: tuple["Effect", ...]
    pos: Pos | None = _pos()


@node
class Increase:
    fluent: FunctionTerm
    amount: NumericExpr
    pos: Pos | None = _pos()


@node
class NumericEffect:
    """``(assign f e)``, ``(decrease f e)``, ``(scale-up f e)``, ``(scale-down f e)``."""

    op: str
    fluent: FunctionTerm
    amount: NumericExpr
    pos: Pos | None = _pos()


Effect = Add | Delete | When | ForallEffect | Increase | NumericEffect


@node
class DurationConstraint:
    """``(= ?duration e)``, ``(<= ?duration e)``, ``(>= ?duration e)`` (also ``<``, ``>``);
    ``time`` is ``"start"`` or ``"end"`` for ``(at end (<= ?duration e))``, else ``""``
    (evaluated at the start, as VAL does)."""

    op: str
    value: NumericExpr
    time: str = ""
    pos: Pos | None = _pos()


@node
class TimedLiteral:
    """``(at 10 (p a))`` or ``(at 10 (not (p a)))`` in ``:init`` (PDDL 2.2)."""

    time: float
    atom: Atom
    positive: bool = True
    pos: Pos | None = _pos()


# ---------------------------------------------------- PDDL3 trajectory constraints

@node
class Always:
    body: Formula
    pos: Pos | None = _pos()


@node
class Sometime:
    body: Formula
    pos: Pos | None = _pos()


@node
class AtMostOnce:
    body: Formula
    pos: Pos | None = _pos()


@node
class SometimeBefore:
    """``(sometime-before a b)``: whenever ``a`` becomes true, ``b`` was true strictly before."""

    body: Formula
    before: Formula
    pos: Pos | None = _pos()


@node
class SometimeAfter:
    """``(sometime-after a b)``: whenever ``a`` is true, ``b`` is true then or later."""

    body: Formula
    after: Formula
    pos: Pos | None = _pos()


@node
class AtEnd:
    body: Formula
    pos: Pos | None = _pos()


@node
class ConstraintAnd:
    parts: tuple["Constraint", ...] = ()
    pos: Pos | None = _pos()


@node
class ConstraintForall:
    parameters: tuple[TypedName, ...]
    body: "Constraint"
    pos: Pos | None = _pos()


Constraint = (Always | Sometime | AtMostOnce | SometimeBefore | SometimeAfter | AtEnd |
              ConstraintAnd | ConstraintForall)


# ----------------------------------------------------------------------- structure

@node
class PredicateDef:
    name: str
    parameters: tuple[TypedName, ...] = ()
    pos: Pos | None = _pos()

    @property
    def arity(self) -> int:
        return len(self.parameters)


@node
class FunctionDef:
    name: str
    parameters: tuple[TypedName, ...] = ()
    type: str = "number"
    pos: Pos | None = _pos()


@node
class Action:
    name: str
    parameters: tuple[TypedName, ...] = ()
    precondition: Formula = TRUE
    effects: tuple[Effect, ...] = ()
    pos: Pos | None = _pos()
    durative: bool = False
    duration: tuple[DurationConstraint, ...] = ()
    over_all: Formula = TRUE
    end_condition: Formula = TRUE
    end_effects: tuple[Effect, ...] = ()
    #: PDDL 2.1 level 4, linear: ``(increase f (* #t e))`` as ``Increase(f, e)`` and
    #: ``(decrease f (* #t e))`` as ``NumericEffect("decrease", f, e)``, ``e`` the rate per
    #: time unit, applied while the action runs
    continuous: tuple[Effect, ...] = ()

    @property
    def arity(self) -> int:
        return len(self.parameters)


@node
class DerivedPredicate:
    """``(:derived (p ?x) body)``: p holds exactly when body holds (stratified)."""

    head: PredicateDef
    body: Formula
    pos: Pos | None = _pos()


@node
class Metric:
    direction: str  # "minimize" | "maximize"
    expression: NumericExpr
    pos: Pos | None = _pos()


@node
class NumericInit:
    """``(= (f a b) 3)`` in ``:init``."""

    fluent: FunctionTerm
    value: float
    pos: Pos | None = _pos()


@node
class Domain:
    name: str
    requirements: tuple[str, ...] = ()
    types: tuple[TypedName, ...] = ()          # each type with its parent type(s)
    constants: tuple[TypedName, ...] = ()
    predicates: tuple[PredicateDef, ...] = ()
    functions: tuple[FunctionDef, ...] = ()
    actions: tuple[Action, ...] = ()
    derived: tuple[DerivedPredicate, ...] = ()
    constraints: Constraint | None = None
    pos: Pos | None = _pos()
    filename: str | None = field(default=None, compare=False, repr=False)

    def action(self, name: str) -> Action | None:
        for a in self.actions:
            if a.name == name:
                return a
        return None

    def predicate(self, name: str) -> PredicateDef | None:
        for p in self.predicates:
            if p.name == name:
                return p
        return None


@node
class Problem:
    name: str
    domain_name: str
    requirements: tuple[str, ...] = ()
    objects: tuple[TypedName, ...] = ()
    init: tuple[Atom, ...] = ()
    numeric_init: tuple[NumericInit, ...] = ()
    goal: Formula = TRUE
    metric: Metric | None = None
    constraints: Constraint | None = None
    pos: Pos | None = _pos()
    filename: str | None = field(default=None, compare=False, repr=False)
    # ``(not (p))`` in :init: accepted as FD and VAL do (the closed world already makes an
    # unlisted atom false), kept only so that the checker can warn about each
    negated_init: tuple[Atom, ...] = ()
    timed_literals: tuple[TimedLiteral, ...] = ()


# ----------------------------------------------------------------------- diagnostics

@node
class Diagnostic:
    """A semantic error or warning found by the checker: data, not an exception."""

    severity: str  # "error" | "warning"
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        loc = ":".join(str(x) for x in (self.file or "<input>", self.line, self.column) if x is not None)
        return f"{loc}: {self.severity}: {self.message}"

    def to_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "column": self.column,
                "message": self.message}
