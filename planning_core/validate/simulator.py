"""Lifted plan simulation: VAL's check of a sequential plan, on the AST, without grounding.

Each step is checked in this order (the first failure is the verdict): the action exists,
it gets as many arguments as it has parameters, every argument is a declared object or
constant, every argument's type fits its parameter (subtypes and ``either`` included), the
precondition holds. Then the effects are collected in the pre-state and applied deletes
first, adds second, derived predicates are recomputed, and ``increase`` effects update the
numeric fluents (action costs). After the last step the goal must hold, and then the PDDL3
trajectory constraints of the domain and problem, checked on the states visited.

Grounding is deliberately absent: the closures of :mod:`.formulas` and :mod:`.effects`
evaluate the lifted action under the step's binding, so a grounder bug cannot make this
validator accept a wrong plan (DESIGN: ``validate`` depends on ``pddl`` only).

Everything that depends only on the domain (compiled actions, type closure, strata) is built
once per domain object, and the problem's objects and initial state once per problem
object; :func:`validate_plan` keeps the last few of both, keyed by identity.
"""
from __future__ import annotations

from planning_core.errors import UnsupportedFeature
from planning_core.limits import Budget, LimitReached
from planning_core.nodes import replace
from planning_core.pddl import ast as pddl
from planning_core.pddl.identity_cache import IdentityCache
from planning_core.pddl.plans import Plan, PlanStep, parse_plan
from planning_core.pddl.wellformed import Fault, ground_faults
from planning_core.pddl.features import is_temporal
from planning_core.validate.effects import NumericUpdate, apply_update, compile_effects, \
    span_key, twice_text, twice_updated
from planning_core.validate.formulas import UndefinedValue, atom_key_fn, atom_text, \
    compile_formula, compile_numeric, fluent_state
from planning_core.validate.report import StepTrace, ValidationReport, Verdict
from planning_core.validate.world import TypeHierarchy, Universe

__all__ = ["CompiledDomain", "Validator", "validate_plan", "validator_for"]


class _Action:
    __slots__ = ("name", "variables", "param_types", "type_names", "precondition", "pre",
                 "effects", "action", "durative", "over_all", "end_pre", "end_effects",
                 "duration", "span", "continuous")

    def __init__(self, action: pddl.Action, file: str | None) -> None:
        self.name = action.name
        self.action = action
        self.variables = tuple(p.name for p in action.parameters)
        self.param_types = tuple(frozenset(p.types) for p in action.parameters)
        self.type_names = tuple(p.type for p in action.parameters)
        scope = frozenset(self.variables)
        self.precondition = action.precondition
        self.pre = compile_formula(action.precondition, scope, file)
        self.durative = action.durative
        if self.durative:    # the timed parts see ?duration, bound per plan step
            scope |= {"?duration"}
            self.over_all = compile_formula(action.over_all, scope, file)
            self.end_pre = compile_formula(action.end_condition, scope, file)
            self.end_effects = compile_effects(action.end_effects, scope, file)
            self.duration = tuple((d, compile_numeric(d.value, scope, file))
                                  for d in action.duration)
            # (increase f (* #t e)): (fluent key, +1 or -1, rate e) while the action runs
            self.continuous = tuple(
                (atom_key_fn(pddl.Atom(e.fluent.name, e.fluent.args)),
                 1.0 if isinstance(e, pddl.Increase) else -1.0,
                 compile_numeric(e.amount, scope, file)) for e in action.continuous)
            # (when (at start c) (at end e)): each c, read at the start
            self.span = tuple((span_key(e), compile_formula(e.condition, scope, file))
                              for e in action.end_effects
                              if isinstance(e, pddl.When) and e.at_start)
        self.effects = compile_effects(action.effects, scope, file)


class CompiledDomain:
    """What validation needs from a domain, computed once: actions, types, derived rules."""

    def __init__(self, domain: pddl.Domain) -> None:
        self.domain = domain
        self.hierarchy = TypeHierarchy.of(domain)
        self.actions = {a.name: _Action(a, domain.filename) for a in domain.actions}
        if any(a.continuous for a in domain.actions):
            _linear_only(domain)
        self.derived = None
        if domain.derived:   # imported when used, as the constraints and the repair advice
            from planning_core.validate.derived import DerivedRules   # are: one call per plan

            self.derived = DerivedRules(domain)
        self.derived_names = self.derived.names if self.derived else frozenset()


_INF = float("inf")


def _linear_only(domain: pddl.Domain) -> None:
    """Continuous change we validate exactly: each rate reads no fluent that changes
    continuously, so every value is linear in time between happenings (VAL solves
    polynomials and exponentials for the rest: a located error here)."""
    changing = {e.fluent.name for a in domain.actions for e in a.continuous}
    for a in domain.actions:
        for e in a.continuous:
            todo = [e.amount]
            while todo:
                x = todo.pop()
                if isinstance(x, pddl.FunctionTerm) and x.name in changing:
                    pos = e.pos
                    raise UnsupportedFeature(
                        f"the rate of the continuous effect on {e.fluent} in '{a.name}' reads "
                        f"({x.name} ...), which changes continuously: only linear change "
                        "is supported; expected a rate of constants and fluents that change "
                        "at happenings only", file=domain.filename,
                        line=pos and pos.line, column=pos and pos.column)
                if isinstance(x, pddl.BinaryOp):
                    todo += [x.left, x.right]


def _happenings_matter(plan: Plan, tolerance: float | None) -> bool:
    """Whether VAL would not run this sequential plan step after step in file order.

    VAL reads every plan as happenings: a ``t:`` stamp is a step's time (an unstamped step
    of a stamped plan is at 1, 2, 3, ... in file order), steps run in time order, and steps
    at one time point (within the tolerance) are one happening, where interfering steps are
    a mutex violation. Time stamps that do not increase by more than the tolerance in file
    order therefore go to the timed simulation, which does all that; plain and strictly
    increasing plans keep the sequential one (the same verdicts, faster).
    """
    if all(step.time is None for step in plan.steps):
        return False
    eps = 0.01 if tolerance is None else tolerance
    last, untimed = None, 0
    for step in plan.steps:
        if step.time is None:
            untimed += 1
            when = float(untimed)
        else:
            when = step.time
        if last is not None and when <= last + eps:
            return True
        last = when
    return False


def _fmt(value: float) -> str:
    return f"{value:g}"


class Validator:
    """Validates any number of plans against one domain and problem."""

    def __init__(self, domain: pddl.Domain, problem: pddl.Problem,
                 compiled: CompiledDomain | None = None) -> None:
        self.compiled = compiled or CompiledDomain(domain)
        self.problem = problem
        self.universe = Universe(self.compiled.hierarchy, domain, problem)
        derived = self.compiled.derived_names
        self.init = frozenset((a.predicate,) + a.args for a in problem.init
                              if a.predicate not in derived)
        self.fluents = {(f.fluent.name,) + f.fluent.args: float(f.value)
                        for f in problem.numeric_init}
        self.goal = compile_formula(problem.goal, frozenset(), problem.filename)
        # numeric comparisons read the fluents through the state (formulas.FluentState);
        # a task without :functions keeps plain sets, the classical fast path
        self.numeric = bool(domain.functions)
        self.temporal = is_temporal(domain, problem)
        self.metric = (compile_numeric(problem.metric.expression, frozenset(), problem.filename)
                       if problem.metric else None)
        given = [(c, source.filename) for source in (domain, problem)
                 if (c := getattr(source, "constraints", None)) is not None]
        if given:
            from planning_core.validate.constraints import compile_constraint

            self.constraints = tuple(compile_constraint(c, frozenset(), filename)
                                     for c, filename in given)
        else:
            self.constraints = ()

    # ------------------------------------------------------------------ the simulation

    def _close(self, base: set) -> set:
        derived = self.compiled.derived
        if not derived:
            return base
        closed = derived.close(base, self.universe)
        fluents = getattr(base, "fluents", None)
        return closed if fluents is None else fluent_state(closed, fluents)

    def validate(self, plan: Plan | str, trace: bool = False,
                 budget: Budget | None = None, tolerance: float | None = None,
                 typecheck_first: bool = False) -> ValidationReport:
        """Simulate ``plan`` from the initial state; ``trace`` records each step's changes.

        ``budget`` (``planning_core.limits``) bounds the CPU time and memory of quantifier
        and derived-predicate evaluation; at its limit the verdict is ``UNKNOWN``, naming it.
        ``tolerance`` is VAL's ``-t`` for timed plans (default 0.01, as VAL's).
        ``typecheck_first``: every step of a sequential plan is checked to be an instance
        of an action (name, arity, objects, types) before any is executed, as VAL's
        ``typecheckPlan`` does (the ``validate`` command asks for it): a malformed step
        after a failing precondition is then the verdict. Without it (the scorers'
        default) the first failure in execution order is, so ``step`` is the first step
        that cannot be applied. Timed plans are always checked whole first.
        """
        if budget is None:
            return self._validate(plan, trace, tolerance, typecheck_first)
        metered = object.__new__(type(self))   # copy.copy(self), without importing copy
        metered.__dict__.update(self.__dict__)  # (and weakref): one validate call per plan
        metered.universe = self.universe.metered(budget)
        try:
            return metered._validate(plan, trace, tolerance, typecheck_first)
        except LimitReached as err:
            return ValidationReport(Verdict.UNKNOWN, limit=err.limit,
                                    message=f"validation stopped at the {err.limit} "
                                            f"({err.detail}); no verdict")

    def _validate(self, plan: Plan | str, trace: bool, tolerance: float | None = None,
                  typecheck_first: bool = False) -> ValidationReport:
        if isinstance(plan, str):
            plan = parse_plan(plan)
        if plan.errors:
            return self._syntax_error(plan)
        if self.temporal or any(a.durative for a in self.compiled.domain.actions) \
                or _happenings_matter(plan, tolerance):
            from planning_core.validate.timed import validate_timed

            return validate_timed(self, plan, trace, tolerance)
        actions, universe = self.compiled.actions, self.universe
        # with typecheck_first, every step is checked to be an instance of an action (name,
        # arity, objects, types) before any is executed, as VAL does (`typecheckPlan` before
        # execution) and as the timed path does: a malformed step anywhere makes the file no
        # plan of the task, a fault of the text reported before any of execution
        if typecheck_first:
            for index, step in enumerate(plan.steps, start=1):
                failure = self._malformed(index, step, actions.get(step.name))
                if failure is not None:
                    return failure
        fluents = dict(self.fluents)
        state = fluent_state(self.init, fluents) if self.numeric else set(self.init)
        full = self._close(state)
        warnings: list[str] = []
        steps: list[StepTrace] = []
        trajectory = [frozenset(full)] if self.constraints else None
        for index, step in enumerate(plan.steps, start=1):
            act = actions.get(step.name)
            failure = None if typecheck_first else self._malformed(index, step, act)
            if failure is None:
                binding = dict(zip(act.variables, step.args))
                try:
                    if not act.pre(full, binding, universe):
                        failure = self._precondition_failed(index, step, act, binding, full)
                except UndefinedValue as err:
                    failure = self._fail(
                        Verdict.UNDEFINED_VALUE, index, step,
                        f"step {index} {step} (line {step.line}): the precondition reads "
                        f"{err.fluent}, which has no value (VAL: 'Attempt to access "
                        "undefined expression')")
            if failure is not None:
                return replace(failure, trace=tuple(steps), warnings=tuple(warnings))
            adds: list = []
            dels: list = []
            incs: list = []
            act.effects(full, binding, universe, fluents, adds, dels, incs)
            twice = twice_updated(incs) if len(incs) > 1 else None
            if twice is not None:
                return replace(self._fail(
                    Verdict.MUTEX_VIOLATED, index, step,
                    f"step {index} {step} (line {step.line}): {twice_text('it', twice)}"),
                    trace=tuple(steps), warnings=tuple(warnings))
            undefined = next((a for _, a in incs if isinstance(a, UndefinedValue)), None)
            if undefined is not None:
                return replace(self._fail(
                    Verdict.UNDEFINED_VALUE, index, step,
                    f"step {index} {step} (line {step.line}): the value of {undefined.fluent}, "
                    f"which the step increases a fluent by, is not defined in the problem's "
                    f":init (VAL refuses such a plan)"), trace=tuple(steps),
                    warnings=tuple(warnings))
            state.difference_update(dels)
            state.update(adds)
            updates = ()
            if incs:
                updates, bad = self._increase(incs, fluents, warnings)
                if bad is not None:
                    return replace(self._fail(
                        Verdict.UNDEFINED_VALUE, index, step,
                        f"step {index} {step} (line {step.line}): {bad}"),
                        trace=tuple(steps), warnings=tuple(warnings))
            if self.compiled.derived:
                full = self._close(state)
            if trajectory is not None:
                trajectory.append(frozenset(full))
            if trace:
                steps.append(StepTrace(index, str(step), self._time(index, step),
                                       tuple(dict.fromkeys(map(atom_text, dels))),
                                       tuple(dict.fromkeys(map(atom_text, adds))), updates))
        try:
            reached = self.goal(full, {}, universe)
        except UndefinedValue as err:
            return ValidationReport(
                Verdict.UNDEFINED_VALUE, trace=tuple(steps), warnings=tuple(warnings),
                message=f"the plan executes, but the goal reads {err.fluent}, which has no "
                        "value")
        if not reached:
            from planning_core.validate.advice import advice_lines, unsatisfied_conditions

            goal = self.problem.goal
            unsatisfied = unsatisfied_conditions(goal, {}, full, universe)
            return ValidationReport(
                Verdict.GOAL_NOT_SATISFIED,
                unsatisfied_goals=unsatisfied,
                advice=advice_lines("The goal is not satisfied", goal, {}, full, universe,
                                    self.compiled.derived_names),
                trace=tuple(steps), warnings=tuple(warnings),
                message="the plan executes, but the goal is not satisfied at its end: "
                        + " ".join(unsatisfied))
        if trajectory is not None:
            violated = self._constraint_violated(plan, trajectory)
            if violated is not None:
                return replace(violated, trace=tuple(steps), warnings=tuple(warnings))
        try:
            cost = self._cost(fluents, len(plan.steps), warnings)
        except UndefinedValue as err:
            return self._metric_undefined(err, tuple(steps), warnings)
        return ValidationReport(Verdict.VALID, cost=cost, trace=tuple(steps),
                                warnings=tuple(warnings))

    @staticmethod
    def _metric_undefined(err: UndefinedValue, steps: tuple,
                          warnings: list[str]) -> ValidationReport:
        """The plan reaches the goal but its metric reads a fluent with no value: VAL stops
        with "Attempt to access undefined expression" and gives no value, so the plan is not
        accepted (the same verdict as an undefined value read anywhere else)."""
        return ValidationReport(Verdict.UNDEFINED_VALUE, trace=steps, warnings=tuple(warnings),
                                message=f"the plan reaches the goal, but the metric reads "
                                        f"{err.fluent}, which has no value, so the plan has "
                                        "no value")

    def _constraint_violated(self, plan: Plan, trajectory: list) -> ValidationReport | None:
        """The first broken trajectory constraint (domain's first, then the problem's)."""
        for check in self.constraints:
            found = check(trajectory, {}, self.universe)
            if found is None:
                continue
            step = plan.steps[found.state - 1] if found.state else None
            advice = found.describe(plan.steps)
            return ValidationReport(
                Verdict.CONSTRAINT_VIOLATED, step=found.state or None,
                action=str(step) if step else None, unsatisfied=(found.constraint,),
                advice=(advice,), line=step.line if step else None,
                column=step.column if step else None,
                time=self._time(found.state, step) if step else None,
                message=f"the plan reaches the goal but breaks the trajectory constraint "
                        f"{found.constraint} {found.where(plan.steps)}: {found.reason}")
        return None

    @staticmethod
    def _time(index: int, step: PlanStep) -> float:
        return step.time if step.time is not None else float(index)

    def _increase(self, incs: list, fluents: dict, warnings: list[str]) -> tuple:
        """Apply the numeric effects (amounts were read in the pre-state): the trace's
        updates, and what went wrong (an undefined amount in a numeric task, a result that
        is not a finite number), or None.

        An undefined amount of an action cost is a warning and the increase is skipped, as
        before PDDL 2.1 support; in a numeric task it stops the plan, as in VAL."""
        updates = []
        for key, amount in incs:
            name = atom_text(key)
            if isinstance(amount, UndefinedValue):
                if self.numeric and (len(key) > 1 or key[0] != "total-cost"):
                    return tuple(updates), (f"the update of {name} reads {amount.fluent}, "
                                            "which has no value")
                msg = f"{amount.fluent} has no value in :init; the increase of {name} is skipped"
                if msg not in warnings:
                    warnings.append(msg)
                continue
            old = fluents.get(key)
            if old is None:
                if not (isinstance(amount, NumericUpdate) and amount.op == "assign"):
                    warnings.append(f"{name} has no initial value in :init; it is taken as 0")
                old = 0.0
            try:
                new, value, op = apply_update(old, amount)
            except UndefinedValue as err:
                return tuple(updates), f"the update of {name} is a {err.fluent[1:-1]}"
            if new != new or new in (_INF, -_INF):
                return tuple(updates), (f"the update of {name} ({op} by {value:g} from "
                                        f"{old:g}) gives {new}, not a finite number")
            fluents[key] = new
            updates.append((name, old, value) if op == "increase" else (name, old, value, op))
        return tuple(updates), None

    def _cost(self, fluents: dict, length: int, warnings: list[str]) -> float | None:
        """The metric's value, or the plan length without a metric (as VAL reports)."""
        if self.metric is None:
            return float(length)
        values = fluents
        if ("total-time",) not in fluents:
            values = dict(fluents)
            values[("total-time",)] = float(length)
        try:
            value = self.metric({}, values)
        except UndefinedValue as err:
            if self.numeric and err.fluent != "(total-cost)":
                raise    # VAL: "Attempt to access undefined expression", no value, no verdict
            warnings.append(f"the metric cannot be evaluated: {err.fluent} has no value")
            return None
        if value != value or value in (_INF, -_INF):
            warnings.append(f"the metric's value is {value}, not a finite number")
            return None
        return value

    # ------------------------------------------------------------------------ failures

    def _malformed(self, index: int, step: PlanStep, act: _Action | None):
        """The checks before the precondition: name, arity, objects, types."""
        faults = ground_faults(step.args, None if act is None else act.param_types,
                               self.universe.types_of)
        if not faults:
            return None
        # an unknown object anywhere is reported before a type fault (as VAL does)
        fault = next((f for f in faults if f.kind is Fault.UNKNOWN_OBJECT), faults[0])
        where = f"step {index} {step} (line {step.line})"
        if fault.kind is Fault.UNKNOWN_NAME:
            return self._fail(Verdict.UNKNOWN_ACTION, index, step,
                              f"{where}: the domain has no action '{step.name}'")
        if fault.kind is Fault.WRONG_ARITY:
            params = " ".join(act.variables) or "no parameters"
            return self._fail(Verdict.WRONG_ARITY, index, step,
                              f"{where}: '{act.name}' takes {len(act.variables)} argument(s) "
                              f"({params}), {len(step.args)} given")
        k = fault.position
        arg = step.args[k]
        if fault.kind is Fault.UNKNOWN_OBJECT:
            hint = ""
            bare = arg.strip(",;.:'\"`")
            if bare != arg and bare in self.universe.types_of:
                # VAL's lexer drops characters such as ',' silently; say what to fix
                hint = (f"; did you mean '{bare}'? Arguments are separated by blank space, "
                        "and PDDL names are letters, digits, '-' and '_'")
            return self._fail(Verdict.UNKNOWN_OBJECT, index, step,
                              f"{where}: '{arg}' is neither an object of the problem "
                              f"nor a constant of the domain{hint}")
        declared = " ".join(self.universe.declared[arg])
        return self._fail(Verdict.TYPE_ERROR, index, step,
                          f"{where}: argument {k + 1} '{arg}' is of type {declared}, "
                          f"but parameter {act.variables[k]} of '{act.name}' is of "
                          f"type {act.type_names[k]}")

    @staticmethod
    def _fail(verdict: Verdict, index: int, step: PlanStep, message: str) -> ValidationReport:
        return ValidationReport(verdict, step=index, action=str(step), message=message,
                                line=step.line, column=step.column,
                                time=Validator._time(index, step))

    def _precondition_failed(self, index: int, step: PlanStep, act: _Action, binding: dict,
                             state: set) -> ValidationReport:
        from planning_core.validate.advice import advice_lines, precondition_verdict, \
            unsatisfied_conditions

        text = str(step)
        time = self._time(index, step)
        unsatisfied = unsatisfied_conditions(act.precondition, binding, state, self.universe)
        header = f"{text} has an unsatisfied precondition at time {_fmt(time)}"
        advice = advice_lines(header, act.precondition, binding, state, self.universe,
                              self.compiled.derived_names)
        return ValidationReport(
            precondition_verdict(act.precondition, binding, state, self.universe),
            step=index, action=text, unsatisfied=unsatisfied,
            advice=advice, line=step.line, column=step.column, time=time,
            message=f"step {index} {text} (line {step.line}): precondition not satisfied: "
                    + " ".join(unsatisfied))

    @staticmethod
    def _syntax_error(plan: Plan) -> ValidationReport:
        first = plan.errors[0]
        index = sum(1 for s in plan.steps if s.line < first.line) + 1
        return ValidationReport(Verdict.PLAN_SYNTAX_ERROR, step=index,
                                message=f"line {first.line}, column {first.column}: "
                                        f"{first.message}",
                                line=first.line, column=first.column,
                                plan_errors=plan.errors)


# ----------------------------------------------------------------------- the cache

_domains: IdentityCache[CompiledDomain] = IdentityCache(16)
_validators: IdentityCache[Validator] = IdentityCache(16)


def _new_validator(domain: pddl.Domain, problem: pddl.Problem) -> Validator:
    return Validator(domain, problem, _domains.get(CompiledDomain, domain))


def validator_for(domain: pddl.Domain, problem: pddl.Problem) -> Validator:
    """A cached :class:`Validator` (keyed by object identity)."""
    return _validators.get(_new_validator, domain, problem)


def validate_plan(domain: pddl.Domain, problem: pddl.Problem, plan: Plan | str,
                  trace: bool = False, budget: Budget | None = None,
                  tolerance: float | None = None,
                  typecheck_first: bool = False) -> ValidationReport:
    """Validate ``plan`` (parsed, or plan-file text) like VAL; see :class:`Validator`
    (``typecheck_first``: VAL's whole-plan type check before execution)."""
    return validator_for(domain, problem).validate(plan, trace=trace, budget=budget,
                                                   tolerance=tolerance,
                                                   typecheck_first=typecheck_first)
