"""What validating a plan found: a :class:`ValidationReport` with a :class:`Verdict`.

A failed validation is a report, not an exception (DESIGN: "Validation failures are
reports"). The verdicts follow VAL's outcomes, plus four that VAL gets wrong or lumps
together ("Bad plan description", or a crash): unknown action, wrong arity, unknown object
and type error, each checked before the precondition of the step; and one for a plan that
reaches the goal but breaks a PDDL3 trajectory constraint (``:constraints``).
"""
from __future__ import annotations

from planning_core.light_enum import LightEnum

from planning_core.nodes import node
from planning_core.pddl.plans import PlanLineError

__all__ = ["StepTrace", "ValidationReport", "Verdict"]


class Verdict(LightEnum):   # an enum.Enum in behaviour (planning_core.light_enum)
    VALID = "valid"
    PRECONDITION_FAILED = "precondition_failed"
    GOAL_NOT_SATISFIED = "goal_not_satisfied"
    UNKNOWN_ACTION = "unknown_action"
    WRONG_ARITY = "wrong_arity"
    UNKNOWN_OBJECT = "unknown_object"
    TYPE_ERROR = "type_error"
    PLAN_SYNTAX_ERROR = "plan_syntax_error"
    CONSTRAINT_VIOLATED = "constraint_violated"
    UNDEFINED_VALUE = "undefined_value"      # a fluent read before it has a value: VAL refuses
    NUMERIC_PRECONDITION_FAILED = "numeric_precondition_failed"   # a false comparison
    INVARIANT_VIOLATED = "invariant_violated"  # an `over all` condition false during the action
    MUTEX_VIOLATED = "mutex_violated"        # interfering actions at one happening
    DURATION_VIOLATED = "duration_violated"  # a `[d]` that breaks the `:duration` constraint
    UNKNOWN = "unknown"                      # the time limit ran out before a verdict


@node
class StepTrace:
    """What one executed step changed, for VAL's verbose (``-v``) output.

    ``deleted`` and ``added`` list the ground atoms of the delete and add effects that
    fired, in the order of the action's effects (an atom may be in both: it ends up true).
    ``updates`` are numeric changes ``(fluent, old value, amount)`` (an increase) or
    ``(fluent, old value, amount, operation)``. In a timed plan a step is a happening:
    ``action`` names its actions, ``time`` its time.
    """

    step: int
    action: str
    time: float
    deleted: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    updates: tuple[tuple[str, float, float], ...] = ()


@node
class ValidationReport:
    """The outcome of simulating a plan.

    ``step`` is the 1-based failing step (for a syntax error: the step the bad line would
    have been) and ``action`` that step written lower-case, ``(a x y)``. ``unsatisfied``
    are the false top-level conjuncts of the failing precondition, ground, as PDDL text;
    ``unsatisfied_goals`` the same for the goal. ``advice`` are VAL's "Plan Repair Advice"
    lines. ``cost`` is the metric's value (plan length without a metric, as VAL does) for a
    valid plan and None otherwise. ``message`` says in one sentence why a plan is invalid,
    ``line``/``column`` locate the failing step or bad line in the plan file, ``time`` is
    the failing step's time (its ``t:`` stamp, else its 1-based index), and ``warnings`` hold
    things worth knowing that do not change the verdict (a cost taken as 0, say);
    ``plan_errors`` every unreadable line of the plan file. For an ``UNKNOWN`` verdict
    ``limit`` names the limit that stopped it (``"time limit"`` or ``"memory limit"``).
    """

    verdict: Verdict
    step: int | None = None
    action: str | None = None
    unsatisfied: tuple[str, ...] = ()
    advice: tuple[str, ...] = ()
    unsatisfied_goals: tuple[str, ...] = ()
    cost: float | None = None
    trace: tuple[StepTrace, ...] = ()
    message: str = ""
    line: int | None = None
    column: int | None = None
    time: float | None = None
    warnings: tuple[str, ...] = ()
    plan_errors: tuple[PlanLineError, ...] = ()
    limit: str | None = None

    @property
    def valid(self) -> bool:
        return self.verdict is Verdict.VALID

    def to_json(self, plan_path: str | None, errors=(), warnings=()) -> dict:
        """The machine-readable answer of ``validate --json``.

        ``errors`` and ``warnings`` come from the caller (checker diagnostics, file errors:
        dicts, or objects with ``to_dict()``); this report's unreadable plan lines are added
        to ``errors`` and its warnings to ``warnings``.
        """
        errs = [_as_dict(e) for e in errors]
        errs.extend(e.to_dict(plan_path) for e in self.plan_errors)
        if self.verdict in _PLAN_INPUT_FAULTS:
            # a step that names no such action/object, or breaks arity or types, is a fault
            # of the plan file itself: say where, as for an unreadable line
            errs.append({"file": plan_path, "line": self.line, "column": self.column,
                         "message": self.message})
        warns = [_as_dict(w) for w in warnings]
        warns.extend({"file": plan_path, "line": None, "column": None, "message": w}
                     for w in self.warnings)
        return {
            "plan": plan_path,
            "valid": self.valid,
            "verdict": self.verdict.value,
            "step": self.step,
            "action": self.action,
            "unsatisfied": list(self.unsatisfied),
            "advice": list(self.advice),
            "unsatisfied_goals": list(self.unsatisfied_goals),
            "cost": _number(self.cost),
            "errors": errs,
            "warnings": warns,
        }


_PLAN_INPUT_FAULTS = frozenset({Verdict.UNKNOWN_ACTION, Verdict.WRONG_ARITY,
                                Verdict.UNKNOWN_OBJECT, Verdict.TYPE_ERROR})


def _as_dict(item) -> dict:
    if isinstance(item, dict):
        return item
    if hasattr(item, "to_dict"):
        return item.to_dict()
    return {"file": None, "line": None, "column": None, "message": str(item)}


def _number(value: float | None):
    """A number for JSON: whole numbers as ints; an overflowed cost (``inf``, ``nan``: two
    steps of 1e308 each) as the string VAL prints, since JSON has no such number and
    ``json.dumps`` would write ``Infinity``, which strict readers refuse."""
    if value is None:
        return None
    if value - value != 0:
        return f"{value:g}"
    return int(value) if float(value).is_integer() else value
