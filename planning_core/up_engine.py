"""planning_core as a unified-planning engine: a ``OneshotPlanner`` and a ``PlanValidator``.

unified-planning (UP) is the ecosystem's common API; registering here makes
``OneshotPlanner(name="planning_core")`` and ``PlanValidator(name="planning_core")`` work
in any UP program::

    import planning_core.up_engine
    planning_core.up_engine.register()
    from unified_planning.shortcuts import OneshotPlanner, PlanValidator
    with OneshotPlanner(name="planning_core") as planner:
        result = planner.solve(problem, timeout=30)

A UP problem comes in through UP's own ``PDDLWriter`` (PDDL is the interchange format both
sides implement completely; ``pddl/interop.py`` does the same), is parsed and solved or
validated by planning_core, and the answer goes back as UP's ``PlanGenerationResult`` /
``ValidationResult``: a plan is read with UP's ``PDDLReader`` and the writer's name map, so
its action instances are the problem's own objects. Limits are planning_core's
(``planning_core.limits``): ``timeout`` is CPU seconds, a time limit gives ``TIMEOUT`` and a
memory limit ``MEMOUT``; ``UNKNOWN`` from the validator's time budget gives UP's
``UNKNOWN``. UP is imported only here, never on the command line's paths.
"""
from __future__ import annotations

from planning_core.errors import PlanningError, UnsupportedFeature
from planning_core.limits import Limits
from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.result import Status
from planning_core.solve import solve
from planning_core.validate.report import Verdict
from planning_core.validate.simulator import validate_plan

import unified_planning as up
from unified_planning.engines import Engine, OptimalityGuarantee
from unified_planning.engines.mixins import OneshotPlannerMixin, PlanValidatorMixin
from unified_planning.engines.results import (LogLevel, LogMessage, PlanGenerationResult,
                                              PlanGenerationResultStatus, ValidationResult,
                                              ValidationResultStatus)
from unified_planning.io import PDDLReader, PDDLWriter
from unified_planning.model import ProblemKind
from unified_planning.plans import PlanKind

__all__ = ["ENGINE_NAME", "PlanningCoreEngine", "register"]

ENGINE_NAME = "planning_core"
DEFAULT_TIMEOUT_S = 60.0
VALIDATE_TIME_LIMIT_S = 60.0


def register(environment=None) -> None:
    """Add the engine to UP's factory (idempotent) under ``ENGINE_NAME``."""
    env = environment or up.environment.get_environment()
    if ENGINE_NAME not in env.factory.engines:
        env.factory.add_engine(ENGINE_NAME, __name__, "PlanningCoreEngine")


def _kind() -> ProblemKind:
    kind = ProblemKind(version=2)
    kind.set_problem_class("ACTION_BASED")
    for typing in ("FLAT_TYPING", "HIERARCHICAL_TYPING"):
        kind.set_typing(typing)
    for cond in ("NEGATIVE_CONDITIONS", "DISJUNCTIVE_CONDITIONS", "EXISTENTIAL_CONDITIONS",
                 "UNIVERSAL_CONDITIONS", "EQUALITIES"):
        kind.set_conditions_kind(cond)
    for eff in ("CONDITIONAL_EFFECTS", "FORALL_EFFECTS"):
        kind.set_effects_kind(eff)
    kind.set_quality_metrics("ACTIONS_COST")
    kind.set_quality_metrics("PLAN_LENGTH")
    kind.set_actions_cost_kind("STATIC_FLUENTS_IN_ACTIONS_COST")
    kind.set_actions_cost_kind("INT_NUMBERS_IN_ACTIONS_COST")
    # PDDL 2.1 level 2 (numeric fluents) and level 3 (durative actions), and PDDL 2.2's
    # timed initial literals: validated by our validator with VAL's semantics; solved by
    # ENHSP, LPG-td or TAMER (the 'planners' extra), whose plans our validator checks first
    for fluents in ("INT_FLUENTS", "REAL_FLUENTS"):
        kind.set_fluents_type(fluents)
    for problem_type in ("SIMPLE_NUMERIC_PLANNING", "GENERAL_NUMERIC_PLANNING"):
        kind.set_problem_type(problem_type)
    for eff in ("INCREASE_EFFECTS", "DECREASE_EFFECTS", "STATIC_FLUENTS_IN_NUMERIC_ASSIGNMENTS",
                "FLUENTS_IN_NUMERIC_ASSIGNMENTS"):
        kind.set_effects_kind(eff)
    for time in ("CONTINUOUS_TIME", "DURATION_INEQUALITIES", "TIMED_EFFECTS"):
        kind.set_time(time)
    for duration in ("STATIC_FLUENTS_IN_DURATIONS", "FLUENTS_IN_DURATIONS",
                     "INT_TYPE_DURATIONS", "REAL_TYPE_DURATIONS"):
        kind.set_expression_duration(duration)
    for metric in ("FINAL_VALUE", "MAKESPAN"):
        kind.set_quality_metrics(metric)
    for cost in ("FLUENTS_IN_ACTIONS_COST", "REAL_NUMBERS_IN_ACTIONS_COST"):
        kind.set_actions_cost_kind(cost)
    return kind


_SUPPORTED = _kind()


def _ours(problem):
    """(writer, Domain, Problem): the UP problem as planning_core's lifted task."""
    writer = PDDLWriter(problem)
    domain = parse_domain(writer.get_domain(), "up-domain.pddl")
    task = parse_problem(writer.get_problem(), "up-problem.pddl")
    return writer, domain, task


#: Verdicts of a step that cannot be applied: UP's ``INAPPLICABLE_ACTION`` with that step
_INAPPLICABLE = frozenset({Verdict.PRECONDITION_FAILED, Verdict.UNDEFINED_VALUE,
                           Verdict.UNKNOWN_ACTION, Verdict.WRONG_ARITY, Verdict.UNKNOWN_OBJECT,
                           Verdict.TYPE_ERROR})


def _failure(report, plan):
    """``(reason, inapplicable_action)`` of an invalid plan, as UP's own validators fill
    them: the action instance of the failing step, or ``UNSATISFIED_GOALS``."""
    from unified_planning.engines.results import FailedValidationReason

    if report.verdict is Verdict.GOAL_NOT_SATISFIED:
        return FailedValidationReason.UNSATISFIED_GOALS, None
    actions = getattr(plan, "actions", ())
    if report.verdict in _INAPPLICABLE and report.step is not None \
            and 1 <= report.step <= len(actions):
        return FailedValidationReason.INAPPLICABLE_ACTION, actions[report.step - 1]
    return None, None


class PlanningCoreEngine(Engine, OneshotPlannerMixin, PlanValidatorMixin):
    """planning_core's ``solve`` and ``validate`` behind UP's engine interface."""

    def __init__(self, **options) -> None:
        Engine.__init__(self)
        OneshotPlannerMixin.__init__(self)
        self.engine = options.get("engine", "auto")

    @property
    def name(self) -> str:
        return ENGINE_NAME

    @staticmethod
    def supported_kind() -> ProblemKind:
        return _SUPPORTED

    @staticmethod
    def supports(problem_kind: ProblemKind) -> bool:
        return problem_kind <= _SUPPORTED

    @staticmethod
    def supports_plan(plan_kind: PlanKind) -> bool:
        return plan_kind in (PlanKind.SEQUENTIAL_PLAN, PlanKind.TIME_TRIGGERED_PLAN)

    @staticmethod
    def satisfies(optimality_guarantee: OptimalityGuarantee) -> bool:
        return optimality_guarantee in (OptimalityGuarantee.SATISFICING,
                                        OptimalityGuarantee.SOLVED_OPTIMALLY)

    def _solve(self, problem, heuristic=None, timeout=None, output_stream=None):
        optimal = bool(self.optimality_metric_required)
        try:
            writer, domain, task = _ours(problem)
            result = solve(domain, task, optimal=optimal, engine=self.engine,
                           time_limit=DEFAULT_TIMEOUT_S if timeout is None else float(timeout))
        except UnsupportedFeature as err:
            return self._result(PlanGenerationResultStatus.UNSUPPORTED_PROBLEM, None, str(err))
        except PlanningError as err:
            return self._result(PlanGenerationResultStatus.INTERNAL_ERROR, None, str(err))
        metrics = {"engine": result.engine, "time_s": f"{result.time_s:.3f}"}
        if result.status is Status.SOLVED:
            plan = PDDLReader().parse_plan_string(problem, "\n".join(result.plan),
                                                  writer.get_item_named)
            status = (PlanGenerationResultStatus.SOLVED_OPTIMALLY if optimal
                      else PlanGenerationResultStatus.SOLVED_SATISFICING)
            return self._result(status, plan, "", metrics)
        if result.status is Status.UNSOLVABLE:
            return self._result(PlanGenerationResultStatus.UNSOLVABLE_PROVEN, None,
                                result.reason, metrics)
        status = (PlanGenerationResultStatus.MEMOUT if result.reason == "memory limit"
                  else PlanGenerationResultStatus.TIMEOUT)
        return self._result(status, None, result.reason, metrics)

    def _result(self, status, plan, message: str, metrics: dict | None = None):
        logs = [LogMessage(LogLevel.INFO, message)] if message else []
        return PlanGenerationResult(status, plan, self.name, metrics=metrics or {},
                                    log_messages=logs)

    def _validate(self, problem, plan) -> ValidationResult:
        writer, domain, task = _ours(problem)
        report = validate_plan(domain, task, writer.get_plan(plan),
                               budget=Limits(time_s=VALIDATE_TIME_LIMIT_S).budget())
        if report.valid:
            status = ValidationResultStatus.VALID
        elif report.verdict is Verdict.UNKNOWN:
            status = ValidationResultStatus.UNKNOWN
        else:
            status = ValidationResultStatus.INVALID
        logs = [LogMessage(LogLevel.INFO, report.message)] if report.message else []
        reason, inapplicable = _failure(report, plan)
        return ValidationResult(status, self.name, log_messages=logs, reason=reason,
                                inapplicable_action=inapplicable,
                                metrics={"verdict": report.verdict.value,
                                         "cost": "" if report.cost is None else f"{report.cost:g}"})
