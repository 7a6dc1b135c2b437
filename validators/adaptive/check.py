"""Which constraints a proposed plan violates: judged on the whole plan, as the paper's
judges read the whole plan (AdaPlanBench, Section 2.2 and Appendix C.3).

Three verdicts, each on its own:

* **readable**: every line of the answer is a plan step (``(action arg ...)``); the
  constraints are judged on the readable steps anyway;
* **executable** / **solves the task**: the validator (:func:`planning_core.validate`) on
  the task alone: syntax, unknown actions and objects, arity, types, preconditions, the
  task's own PDDL3 constraints, the goal;
* **violations**: every profile constraint, judged on *every* step of the plan whether the
  plan executes or not.

*Step kinds* (``object_unavailable``, ``action_unusable``, ``limited_use``,
``avoid_attribute_use``) are judged on the steps as written: a step that takes an
unavailable object as an argument violates the constraint wherever it stands, after a
failing step too, and even when the step itself cannot execute (an unknown action, a
failed precondition).

*Trajectory kinds* (the PDDL3 user constraints) are judged on the **described
trajectory**: the states the plan describes, where a step that cannot be applied (an
unknown action or object, wrong arity or types, an unsatisfied precondition) is *skipped*:
its effects are not applied, the state after it is the state before it, and the following
steps go on from there (and are skipped in turn when they cannot be applied). For a plan
that executes this is its trajectory. The trajectory is simulated once per plan, in one
pass, with the validator's compiled actions (preconditions, effects, derived predicates)
on the task with the profile's attributes; each constraint is then checked on it by the validator's own compiled
PDDL3 check (VAL's semantics), and the verdict names the step after which it breaks (a
skipped step leaves a copy of the state before it, which none of the PDDL3 operators can
tell from no step at all).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from planning_core.pddl import ast as pddl
from planning_core.pddl.plans import Plan, parse_plan
from planning_core.validate import ValidationReport, Validator, Verdict
from planning_core.validate.constraints import compile_constraint
from planning_core.validate.formulas import UndefinedValue
from planning_core.validators.adaptive.compile import _with_attributes, parse_formal
from planning_core.validators.adaptive.profile import Constraint, Profile

__all__ = ["Violation", "PlanCheck", "ConstraintChecker"]

@dataclass(frozen=True, slots=True)
class Violation:
    """Constraint ``id`` is broken at ``step`` (1-based, in the plan as written; for a
    trajectory kind the state after that step, 0 the initial state)."""

    id: str
    step: int | None
    detail: str


@dataclass(frozen=True, slots=True)
class PlanCheck:
    """The validator's report on the task, how many steps executed before the first failing
    one, the steps the described trajectory skipped (1-based), and the violations."""

    report: ValidationReport
    executed: int
    violations: tuple[Violation, ...]
    skipped: tuple[int, ...] = ()
    steps: int = 0

    @property
    def readable(self) -> bool:
        return self.report.verdict is not Verdict.PLAN_SYNTAX_ERROR

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
    if report.verdict in (Verdict.VALID, Verdict.GOAL_NOT_SATISFIED,
                          Verdict.CONSTRAINT_VIOLATED):
        return len(plan.steps)
    return max(0, (report.step or 1) - 1)


class ConstraintChecker:
    """Checks plans against one task and a set of profile constraints (built once)."""

    def __init__(self, domain: pddl.Domain, problem: pddl.Problem, profile: Profile,
                 constraints: tuple[Constraint, ...]) -> None:
        self.constraints = constraints
        self.task_validator = Validator(domain, problem)
        self.holders = {name: frozenset(objs) for name, objs in profile.attributes}
        dom, prob = _with_attributes(domain, problem, profile)
        dom = replace(dom, constraints=None)
        self._user: dict[str, object] = {}
        for c in constraints:
            if not c.on_steps:
                self._user[c.id] = (compile_constraint(parse_formal(dom, c.formal)),
                                    c.formal)
        # the described trajectory: the task without goal and constraints
        self._free = Validator(dom, replace(prob, goal=pddl.TRUE, constraints=None)) \
            if self._user else None

    def check(self, plan_text: str | Plan) -> PlanCheck:
        plan = parse_plan(plan_text) if isinstance(plan_text, str) else plan_text
        report = self.task_validator.validate(plan)
        readable = Plan(plan.steps)            # the readable steps, judged in any case
        states, skipped = self._described(readable) if self._user else ((), ())
        found = []
        for c in self.constraints:
            v = self._on_steps(c, readable) if c.on_steps else \
                self._user_check(c, readable, states)
            if v is not None:
                found.append(v)
        return PlanCheck(report, _executed(plan, report), tuple(found), skipped,
                         len(plan.steps))

    def _described(self, plan: Plan) -> tuple[list, tuple[int, ...]]:
        """The states of the described trajectory (the initial one, then one after each
        step, a skipped step repeating the state before it) and the skipped steps
        (1-based)."""
        v = self._free
        actions, universe = v.compiled.actions, v.universe
        state = set(v.init)
        full = v._close(state)
        fluents = dict(v.fluents)
        states = [frozenset(full)]
        skipped = []
        for index, step in enumerate(plan.steps, start=1):
            act = actions.get(step.name)
            ok = v._malformed(index, step, act) is None
            if ok:
                binding = dict(zip(act.variables, step.args))
                ok = act.pre(full, binding, universe)
            if ok:
                adds: list = []
                dels: list = []
                incs: list = []
                act.effects(full, binding, universe, fluents, adds, dels, incs)
                ok = not any(isinstance(a, UndefinedValue) for _, a in incs)
            if ok:
                state.difference_update(dels)
                state.update(adds)
                for key, amount in incs:
                    fluents[key] = fluents.get(key, 0.0) + amount
                full = v._close(state)
            else:
                skipped.append(index)
            states.append(frozenset(full))
        return states, tuple(skipped)

    def _on_steps(self, c: Constraint, plan: Plan) -> Violation | None:
        uses = 0
        holders = self.holders.get(c.attribute, frozenset()) \
            if c.kind == "avoid_attribute_use" else frozenset()
        for i, step in enumerate(plan.steps, start=1):
            if c.kind == "action_unusable" and step.name == c.action:
                return Violation(c.id, i, f"step {i} {step} uses the action '{c.action}'")
            if c.kind == "avoid_attribute_use" and (c.target is None or
                                                    c.target in step.args):
                hit = next((a for a in step.args if a in holders and a != c.target), None)
                if hit is not None:
                    on = f" on {c.target}" if c.target else ""
                    return Violation(c.id, i, f"step {i} {step} uses {hit}, which is "
                                              f"{c.attribute},{on}".rstrip(","))
            if c.kind in ("object_unavailable", "limited_use") and c.object in step.args:
                uses += 1
                if c.kind == "object_unavailable":
                    return Violation(c.id, i, f"step {i} {step} uses {c.object}")
                if uses > c.limit:
                    return Violation(c.id, i, f"step {i} {step} uses {c.object} for the "
                                              f"{_ordinal(uses)} time (limit {c.limit})")
        return None

    def _user_check(self, c: Constraint, plan: Plan, states: list) -> Violation | None:
        check, formal = self._user[c.id]
        found = check(states, {}, self._free.universe)
        if found is None:
            return None
        return Violation(c.id, found.state or None, found.describe(plan.steps))


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")
