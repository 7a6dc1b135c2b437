"""VAL-style text for a :class:`ValidationReport`.

Scripts written for VAL look for its phrases, so they are kept: ``Plan executed
successfully - checking goal``, ``Plan valid``, ``Final value: N``, ``Plan failed because of
unsatisfied precondition in:``, ``Plan failed to execute``, ``Goal not satisfied``,
``Plan invalid`` and ``Plan Repair Advice:`` (plus ``Trajectory constraint violated`` for
PDDL3 constraints, where VAL has no hard-constraint verdict). Unlike VAL, the advice is always shown (VAL
needs ``-e`` or ``-v``), every invalid plan ends with ``Plan invalid``, and the four
failures VAL reports as "Bad plan description!" or a crash get one sentence each that says
which step, which argument, and why.

Verbose output (``-v``) adds VAL's per-step trace: ``Checking next happening (time k)``
followed by ``Deleting (atom)``, ``Adding (atom)`` and ``Updating (f) (old) by x increase``
lines. The trace is recorded only when the plan was validated with ``trace=True``.
"""
from __future__ import annotations

from planning_core.validate.report import ValidationReport, Verdict

__all__ = ["render_text"]


def _num(value: float) -> str:
    """A number as VAL (C++ ``ostream``, 6 significant digits) prints it."""
    return f"{value:g}"


def _trace_lines(report: ValidationReport) -> list[str]:
    lines = ["Plan Validation details", "-----------------------"]
    for step in report.trace:
        lines += ["", f"Checking next happening (time {_num(step.time)})"]
        lines += [f"Deleting {atom}" for atom in step.deleted]
        lines += [f"Adding {atom}" for atom in step.added]
        lines += [f"Updating {u[0]} ({_num(u[1])}) by {_num(u[2])} "
                  f"{u[3] if len(u) > 3 else 'increase'}" for u in step.updates]
    return lines


def _stopped_at_step(report: ValidationReport) -> bool:
    """Whether the plan stopped at ``report.step`` (rather than failing after its end)."""
    return report.verdict not in (Verdict.VALID, Verdict.GOAL_NOT_SATISFIED,
                                  Verdict.CONSTRAINT_VIOLATED, Verdict.PLAN_SYNTAX_ERROR)


def _advice(report: ValidationReport) -> list[str]:
    return ["", "Plan Repair Advice:", "", *report.advice] if report.advice else []


def render_text(report: ValidationReport, plan_path: str | None = None,
                verbose: bool = False) -> str:
    """The report as VAL would print it (``verbose``: as ``Validate -v``)."""
    lines: list[str] = []
    if plan_path is not None:
        lines.append(f"Checking plan: {plan_path}")
    if verbose and report.verdict is not Verdict.PLAN_SYNTAX_ERROR:
        lines += _trace_lines(report)
        if _stopped_at_step(report) and report.time is not None:
            lines += ["", f"Checking next happening (time {_num(report.time)})"]
        else:
            lines.append("")
    verdict = report.verdict
    if verdict is Verdict.VALID:
        lines += ["Plan executed successfully - checking goal", "Plan valid"]
        if report.cost is not None:
            lines.append(f"Final value: {_num(report.cost)}")
    elif verdict is Verdict.GOAL_NOT_SATISFIED:
        lines += ["Plan executed successfully - checking goal", "Goal not satisfied",
                  "Plan invalid", *_advice(report)]
    elif verdict in (Verdict.PRECONDITION_FAILED, Verdict.NUMERIC_PRECONDITION_FAILED):
        lines += ["Plan failed because of unsatisfied precondition in:", report.action or "",
                  "", "Plan failed to execute", *_advice(report), "", "Plan invalid"]
    elif verdict is Verdict.INVARIANT_VIOLATED:
        lines += ["Plan failed because of unsatisfied precondition in:", report.action or "",
                  "", "Plan failed to execute", *_advice(report), "", "Plan invalid"]
    elif verdict is Verdict.MUTEX_VIOLATED:
        lines += ["Mutex violation: " + report.message, "", "Plan failed to execute",
                  *_advice(report), "", "Plan invalid"]
    elif verdict is Verdict.DURATION_VIOLATED:
        lines += ["Failed duration constraint in " + (report.action or ""),
                  "Plan failed because of unsatisfied precondition in:", report.action or "",
                  "", "Plan failed to execute", *_advice(report), "", "Plan invalid"]
    elif verdict is Verdict.UNDEFINED_VALUE:
        lines += ["Plan failed to execute: " + report.message, "", "Plan invalid"]
    elif verdict is Verdict.CONSTRAINT_VIOLATED:
        lines += ["Plan executed successfully - checking goal", "Goal satisfied",
                  "Trajectory constraint violated", "Plan invalid", *_advice(report)]
    elif verdict is Verdict.PLAN_SYNTAX_ERROR:
        lines.append("Bad plan file!")
        lines += [str(e) for e in report.plan_errors] or [report.message]
        lines.append("Plan invalid")
    elif verdict is Verdict.UNKNOWN:
        lines += ["Plan validation stopped without a verdict", report.message]
    else:  # unknown action, wrong arity, unknown object, type error
        lines += ["Bad plan description!", report.message, "", "Plan failed to execute",
                  "", "Plan invalid"]
    lines += [f"Warning: {w}" for w in report.warnings]
    return "\n".join(lines)
