"""Which constraints a proposed plan violates, found by the validator.

A plan is first validated against the task alone (:func:`planning_core.validate`): syntax,
unknown actions and objects, arity, types, preconditions, goal, and the task's own PDDL3
constraints. Every profile constraint is then checked on the *executed prefix*: all steps
when the plan executes (whether or not it reaches the goal), the steps before the failing
one otherwise, none for an unreadable plan. All seven constraint kinds are safety
properties (``always``, ``at-most-once``, ``sometime-before``, and the three world kinds
forbid something from happening), so a violation on a prefix is a violation of every plan
that extends it, and checking the prefix never blames a plan wrongly.

World constraints are checked on the steps themselves (an argument or an action name); user
constraints by the validator's own PDDL3 trajectory check, one validator per constraint on
the task with the profile's attributes, the goal dropped and that constraint alone, so the
verdict names the state where it breaks.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from planning_core.pddl import ast as pddl
from planning_core.pddl.plans import Plan, parse_plan
from planning_core.validate import ValidationReport, Validator, Verdict
from planning_core.validators.adaptive.compile import _with_attributes, parse_formal
from planning_core.validators.adaptive.profile import Constraint, Profile

__all__ = ["Violation", "PlanCheck", "ConstraintChecker"]


@dataclass(frozen=True, slots=True)
class Violation:
    """Constraint ``id`` is broken at ``step`` (1-based; the state after that step)."""

    id: str
    step: int | None
    detail: str


@dataclass(frozen=True, slots=True)
class PlanCheck:
    """The validator's report on the task, how many steps executed, and the violations."""

    report: ValidationReport
    executed: int
    violations: tuple[Violation, ...]

    @property
    def executable(self) -> bool:
        return self.report.verdict in (Verdict.VALID, Verdict.GOAL_NOT_SATISFIED)

    @property
    def solves_task(self) -> bool:
        return self.report.valid

    @property
    def violated(self) -> tuple[str, ...]:
        return tuple(v.id for v in self.violations)


def _executed(plan: Plan, report: ValidationReport) -> int:
    if report.verdict is Verdict.PLAN_SYNTAX_ERROR:
        return 0
    if report.verdict in (Verdict.VALID, Verdict.GOAL_NOT_SATISFIED):
        return len(plan.steps)
    if report.verdict is Verdict.CONSTRAINT_VIOLATED:
        return len(plan.steps)  # every step executed; the task's own constraint broke
    return max(0, (report.step or 1) - 1)


class ConstraintChecker:
    """Checks plans against one task and a set of profile constraints (built once)."""

    def __init__(self, domain: pddl.Domain, problem: pddl.Problem, profile: Profile,
                 constraints: tuple[Constraint, ...]) -> None:
        self.constraints = constraints
        self.task_validator = Validator(domain, problem)
        dom, prob = _with_attributes(domain, problem, profile)
        dom = replace(dom, constraints=None)
        self._user: dict[str, Validator] = {}
        for c in constraints:
            if c.type == "user":
                formal = parse_formal(dom, c.formal)
                self._user[c.id] = Validator(dom, replace(prob, goal=pddl.TRUE,
                                                          constraints=formal))

    def check(self, plan_text: str | Plan) -> PlanCheck:
        plan = parse_plan(plan_text) if isinstance(plan_text, str) else plan_text
        report = self.task_validator.validate(plan)
        executed = _executed(plan, report)
        prefix = Plan(tuple(plan.steps[:executed])) if executed < len(plan.steps) else plan
        found = []
        for c in self.constraints:
            v = self._world(c, prefix) if c.type == "world" else self._user_check(c, prefix)
            if v is not None:
                found.append(v)
        return PlanCheck(report, executed, tuple(found))

    @staticmethod
    def _world(c: Constraint, plan: Plan) -> Violation | None:
        uses = 0
        for i, step in enumerate(plan.steps, start=1):
            if c.kind == "action_unusable" and step.name == c.action:
                return Violation(c.id, i, f"step {i} {step} uses the action '{c.action}'")
            if c.kind in ("object_unavailable", "limited_use") and c.object in step.args:
                uses += 1
                if c.kind == "object_unavailable":
                    return Violation(c.id, i, f"step {i} {step} uses {c.object}")
                if uses > c.limit:
                    return Violation(c.id, i, f"step {i} {step} uses {c.object} for the "
                                              f"{_ordinal(uses)} time (limit {c.limit})")
        return None

    def _user_check(self, c: Constraint, plan: Plan) -> Violation | None:
        report = self._user[c.id].validate(plan)
        if report.verdict is not Verdict.CONSTRAINT_VIOLATED:
            return None
        return Violation(c.id, report.step, report.advice[0] if report.advice else
                         report.message)


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")
