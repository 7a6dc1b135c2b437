"""Timed plans (PDDL 2.1 level 3, PDDL 2.2 timed initial literals) checked as VAL does.

A plan line ``t: (a x y) [d]`` of a durative action is two snap actions: its start at
``t`` and its end at ``t + d`` (KCL-Planning/VAL, ``Plan::planBuilder::handleDurativeAction``).
A plain action is one instant at ``t`` (steps without a time stamp are at 1, 2, 3, ... in
file order, VAL's ``defaultTime``), a timed initial literal one at its time. The instants
are sorted by time and grouped into *happenings* as VAL groups them (``Plan::Plan``): an
instant joins the current happening when its time is within a tenth of the tolerance of
the happening's first instant (``after``: ``t > time + tolerance / 10`` starts a new one). Each happening, in time order:

1. every instant's condition holds in the state before the happening: ``at start`` (and the
   duration constraint, within the tolerance, as ``DurativeActionElement::confirmPrecondition``
   tests it), ``at end``, or a plain action's precondition;
2. with two or more instants, none interferes with another (VAL's ``Ownership``): one may not
   add what another deletes, nor change an atom or fluent another reads; two may change the
   same fluent only if both ``increase``/``decrease`` it (they commute);
3. the effects of all instants, collected in the state before, are applied (deletes first,
   then adds, then numeric updates);
4. every durative action running across the happening (started at or before it, ending
   after it) has its ``over all`` condition true in the new state: the invariant holds on
   the open interval between its start and its end.

After the last happening (timed initial literals after the plan's last step included,
as VAL applies them) the goal must hold; the plan's value is the metric with
``total-time`` the time of the last happening with a plan step in it (the makespan:
VAL's ``finalInterestingState``, before the happenings ``isAfterPlan``).
"""
from __future__ import annotations

from planning_core.nodes import replace
from planning_core.pddl import ast as pddl
from planning_core.pddl.plans import Plan
from planning_core.validate.effects import NumericUpdate, span_key, twice_text, twice_updated
from planning_core.validate.formulas import UndefinedValue, atom_text, compile_formula, \
    fluent_state, ground_args
from planning_core.validate.report import StepTrace, ValidationReport, Verdict

__all__ = ["DEFAULT_TOLERANCE", "validate_timed"]

#: VAL's default ``-t``
DEFAULT_TOLERANCE = 0.01

_INF = float("inf")


class _Instant:
    """A snap action: a plan step's start, end or whole (plain action), or a timed literal."""

    __slots__ = ("time", "kind", "index", "step", "act", "binding", "til", "start", "end")

    def __init__(self, time, kind, index=0, step=None, act=None, binding=None, til=None):
        self.time, self.kind, self.index, self.step = time, kind, index, step
        self.act, self.binding, self.til = act, binding, til
        self.start = self.end = None

    def text(self) -> str:
        """As VAL names a snap action: ``(boil k1) - start``, ``(boil k1) - end``."""
        if self.til is not None:
            t = self.til
            atom = str(t.atom) if t.positive else f"(not {t.atom})"
            return f"timed initial literal (at {t.time:g} {atom})"
        if self.kind in ("start", "end"):
            return f"{self.step} - {self.kind}"
        return str(self.step)


def _tick(v, n: int = 1) -> None:
    """Count work against the validation's budget (``Universe.metered``), if it has one."""
    budget = v.universe.budget
    if budget is not None:
        budget.tick(n)


def _fmt(x: float) -> str:
    return f"{x:g}"


def validate_timed(v, plan: Plan, trace: bool, tolerance: float | None = None) -> ValidationReport:
    """``plan`` as a timed plan of ``v``'s task (``v`` a ``simulator.Validator``)."""
    tol = DEFAULT_TOLERANCE if tolerance is None else tolerance
    instants, failure = _instants(v, plan)
    if failure is not None:
        return failure
    instants.sort(key=lambda i: i.time)        # stable: file order at equal times
    universe = v.universe
    fluents = dict(v.fluents)
    state = fluent_state(v.init, fluents) if v.numeric else set(v.init)
    full = v._close(state)
    running: list[_Instant] = []                # starts whose end is still to come
    steps: list[StepTrace] = []
    warnings: list[str] = []
    happening = 0
    last_time = 0.0
    prev_time = None
    k, n = 0, len(instants)
    while k < n:
        first = instants[k].time
        j = k + 1
        while j < n and not instants[j].time > first + tol / 10:
            j += 1
        group = instants[k:j]
        if prev_time is not None and any(r.act.continuous for r in running):
            # continuous change (linear) from the last happening to this one
            failure = _flow(v, running, fluents, full, prev_time, first, warnings)
            if failure is not None:
                return replace(failure, trace=tuple(steps), warnings=tuple(warnings))
            full = v._close(state)
        prev_time = first
        k = j
        happening += 1
        if any(i.til is None for i in group):   # the plan's own end: VAL's total-time is
            last_time = first                   # not stretched by a literal after it
        _tick(v, len(group))
        # 1. conditions in the state before the happening
        for inst in group:
            failure = _condition(v, inst, full, first, tol)
            if failure is not None:
                return replace(failure, trace=tuple(steps), warnings=tuple(warnings))
        # 2. interference
        if len(group) > 1:
            failure = _mutex(v, group, full, first)
            if failure is not None:
                return replace(failure, trace=tuple(steps), warnings=tuple(warnings))
        # 3. effects, all read in the state before
        adds: list = []
        dels: list = []
        incs: list = []
        for inst in group:
            if inst.til is not None:
                key = (inst.til.atom.predicate,) + inst.til.atom.args
                (adds if inst.til.positive else dels).append(key)
                continue
            effects = inst.act.end_effects if inst.kind == "end" else inst.act.effects
            if inst.kind == "start" and inst.act.span:
                failure = _read_spanning(v, inst, full, first)
                if failure is not None:
                    return replace(failure, trace=tuple(steps), warnings=tuple(warnings))
            before = len(incs)
            effects(full, inst.binding, universe, fluents, adds, dels, incs)
            twice = twice_updated(incs[before:]) if len(incs) - before > 1 else None
            if twice is not None:
                return replace(_fail(Verdict.MUTEX_VIOLATED, inst, first,
                                     f"{_where(inst, first)}: {twice_text('it', twice)}",
                                     unsatisfied=(f"(expression {atom_text(twice[0])})",),
                                     advice=(f"{inst.text()} has a mutex violation at time "
                                             f"{_fmt(first)}", "Separate these actions!")),
                               trace=tuple(steps), warnings=tuple(warnings))
        undefined = next((a for _, a in incs if isinstance(a, UndefinedValue)), None)
        inst0 = group[0]
        if undefined is not None:
            culprit = next(i for i in group if i.til is None)
            return replace(_fail(Verdict.UNDEFINED_VALUE, culprit, first,
                                 f"{_where(culprit, first)}: an effect reads {undefined.fluent}, "
                                 "which has no value"),
                           trace=tuple(steps), warnings=tuple(warnings))
        state.difference_update(dels)
        state.update(adds)
        updates = ()
        if incs:
            updates, bad = v._increase(incs, fluents, warnings)
            if bad is not None:
                return replace(_fail(Verdict.UNDEFINED_VALUE, inst0, first,
                                     f"happening at time {_fmt(first)}: {bad}"),
                               trace=tuple(steps), warnings=tuple(warnings))
        full = v._close(state)
        if trace:
            steps.append(StepTrace(happening, " ".join(i.text() for i in group), first,
                                   tuple(dict.fromkeys(map(atom_text, dels))),
                                   tuple(dict.fromkeys(map(atom_text, adds))), updates))
        # 4. invariants of the actions running across this happening
        ending = {id(i.start) for i in group if i.kind == "end"}
        running = [r for r in running if id(r) not in ending]
        running.extend(i for i in group if i.kind == "start" and id(i) not in ending)
        for r in running:
            try:
                ok = r.act.over_all(full, r.binding, universe)
            except UndefinedValue as err:
                return replace(_fail(Verdict.UNDEFINED_VALUE, r, first,
                                     f"{_where(r, first)}: its over all condition reads "
                                     f"{err.fluent}, which has no value"),
                               trace=tuple(steps), warnings=tuple(warnings))
            if not ok:
                until = instants[k].time if k < n else r.end.time
                return replace(_invariant_failed(v, r, full, first, until),
                               trace=tuple(steps), warnings=tuple(warnings))
    return _finish(v, plan, full, fluents, last_time, tuple(steps), warnings)


# ------------------------------------------------------------ continuous change

def _flow(v, running: list, fluents: dict, full: set, t0: float, t1: float,
          warnings: list[str]):
    """Run the continuous effects of the actions running from ``t0`` to ``t1``: each
    fluent moves at the sum of its rates (read at ``t0``; a rate reads no continuously
    changing fluent, ``simulator._linear_only``), so it is linear in time. Every ``over
    all`` condition of a running action must hold on the open interval: tested where a
    comparison of it changes truth (its root) and between such points, which is exact for
    linear values. None, or the failure."""
    dt = t1 - t0
    if dt <= 0:
        return None
    rates: dict = {}
    for r in running:
        for key_of, sign, rate in r.act.continuous:
            key = key_of(r.binding)
            try:
                value = rate(r.binding, fluents)
            except UndefinedValue as err:
                return _fail(Verdict.UNDEFINED_VALUE, r, t0,
                             f"{_where(r, r.time)}: the rate of its continuous effect on "
                             f"{atom_text(key)} reads {err.fluent}, which has no value")
            rates[key] = rates.get(key, 0.0) + sign * value
    for key in rates:
        if key not in fluents:
            warnings.append(f"{atom_text(key)} has no initial value in :init; it is taken as 0")
            fluents[key] = 0.0
    base = dict(fluents)

    def values_at(tau: float) -> dict:
        out = dict(base)
        for key, rate in rates.items():
            out[key] = base[key] + rate * (tau - t0)
        return out

    for r in running:
        formula = r.act.action.over_all
        if formula == pddl.TRUE:
            continue
        for tau, since in _interval_points(formula, r.binding, base, values_at(t1), t0, t1):
            at = fluent_state(full, values_at(tau))
            try:
                ok = r.act.over_all(at, r.binding, v.universe)
            except UndefinedValue as err:
                return _fail(Verdict.UNDEFINED_VALUE, r, tau,
                             f"{_where(r, r.time)}: its over all condition reads "
                             f"{err.fluent}, which has no value")
            if not ok:      # false from ``since`` (a root, or the mark before tau) on
                return _invariant_failed(v, r, at, since, t1)
    end = values_at(t1)
    for key in rates:
        fluents[key] = end[key]
    return None


def _interval_points(formula, b: dict, start: dict, end: dict, t0: float, t1: float):
    """Times in the open interval (t0, t1) where a linear condition is tested, in order,
    each with the time from which a failure there holds: the roots of its comparisons (not
    under a quantifier), and the midpoints between them (false from the root before)."""
    from planning_core.validate.formulas import compile_numeric

    scope = frozenset(k for k in b if isinstance(k, str))
    roots = set()
    todo = [formula]
    while todo:
        f = todo.pop()
        if isinstance(f, pddl.Comparison):
            try:
                left = compile_numeric(f.left, scope)
                right = compile_numeric(f.right, scope)
                g0 = left(b, start) - right(b, start)
                g1 = left(b, end) - right(b, end)
            except UndefinedValue:
                continue
            if g0 != g1 and (g0 <= 0 <= g1 or g1 <= 0 <= g0):
                tau = t0 + (t1 - t0) * g0 / (g0 - g1)
                if t0 < tau < t1:
                    roots.add(tau)
        elif isinstance(f, (pddl.And, pddl.Or)):
            todo += f.parts
        elif isinstance(f, pddl.Not):
            todo.append(f.body)
        elif isinstance(f, pddl.Imply):
            todo += [f.antecedent, f.consequent]
    marks = [t0] + sorted(roots) + [t1]
    points = [(tau, tau) for tau in marks[1:-1]]
    points += [((a + c) / 2, a) for a, c in zip(marks, marks[1:])]
    return sorted(points)


# ----------------------------------------------------------------------- building

def _instants(v, plan: Plan) -> tuple[list[_Instant], ValidationReport | None]:
    out: list[_Instant] = []
    actions = v.compiled.actions
    default_time = 1.0      # VAL's planBuilder: untimed steps at 1, 2, 3, ... in file order
    for index, step in enumerate(plan.steps, start=1):
        _tick(v)
        act = actions.get(step.name)
        failure = v._malformed(index, step, act)
        if failure is not None:
            return out, failure
        binding = dict(zip(act.variables, step.args))
        if step.time is not None:
            t = step.time
        else:
            t, default_time = default_time, default_time + 1
        if t in (_INF, -_INF):
            return out, v._fail(Verdict.PLAN_SYNTAX_ERROR, index, step,
                                f"step {index} {step} (line {step.line}): its time stamp is "
                                "beyond any float; expected a finite time")
        if not act.durative:
            out.append(_Instant(t, "instant", index, step, act, binding))
            continue
        d = step.duration
        if d is None:
            return out, v._fail(Verdict.DURATION_VIOLATED, index, step,
                                f"step {index} {step} (line {step.line}): '{step.name}' is a "
                                "durative action; expected its duration '[d]' after it")
        end = t + d
        if d < 0 or end in (_INF, -_INF) or end != end:
            return out, v._fail(Verdict.DURATION_VIOLATED, index, step,
                                f"step {index} {step} (line {step.line}): the duration {d:g} "
                                f"{'is negative' if d < 0 else 'puts its end beyond any time'}")
        binding["?duration"] = float(d)
        start = _Instant(t, "start", index, step, act, binding)
        finish = _Instant(end, "end", index, step, act, binding)
        start.end, finish.start = finish, start
        out += [start, finish]
    for til in v.problem.timed_literals:
        out.append(_Instant(til.time, "til", til=til))
    return out, None


# ----------------------------------------------------------------------- checks

def _read_spanning(v, inst: _Instant, full: set, time: float):
    """At a start, read the condition of each ``(when (at start c) (at end e))`` in the
    state before it, and keep the answer in the step's binding for its end."""
    b = inst.binding
    for key, condition in inst.act.span:
        try:
            b[key] = bool(condition(full, b, v.universe))
        except UndefinedValue as err:
            return _fail(Verdict.UNDEFINED_VALUE, inst, time,
                         f"{_where(inst, time)}: the condition of a conditional effect reads "
                         f"{err.fluent}, which has no value")
    return None


def _where(inst: _Instant, time: float) -> str:
    if inst.step is None:
        return f"{inst.text()} at time {_fmt(time)}"
    what = {"start": "the start of ", "end": "the end of "}.get(inst.kind, "")
    return (f"step {inst.index} {inst.step} (line {inst.step.line}): {what}{inst.step} at "
            f"time {_fmt(time)}")


def _fail(verdict: Verdict, inst: _Instant, time: float, message: str,
          action: str | None = None, **more) -> ValidationReport:
    step = inst.step
    return ValidationReport(verdict, step=inst.index or None, action=action or inst.text(),
                            message=message, line=step.line if step else None,
                            column=step.column if step else None, time=time, **more)


def _condition(v, inst: _Instant, full: set, time: float, tol: float):
    if inst.til is not None:
        return None
    act, b = inst.act, inst.binding
    if inst.kind in ("start", "end"):
        failure = _duration(v, inst, full, time, tol)
        if failure is not None:
            return failure
    condition = act.end_pre if inst.kind == "end" else act.pre
    formula = act.action.end_condition if inst.kind == "end" else act.precondition
    try:
        ok = condition(full, b, v.universe)
    except UndefinedValue as err:
        return _fail(Verdict.UNDEFINED_VALUE, inst, time,
                     f"{_where(inst, time)}: its condition reads {err.fluent}, which has no "
                     "value (VAL: 'Attempt to access undefined expression')")
    if ok:
        return None
    from planning_core.validate.advice import advice_lines, precondition_verdict, \
        unsatisfied_conditions

    unsatisfied = unsatisfied_conditions(formula, b, full, v.universe)
    header = f"{inst.text()} has an unsatisfied precondition at time {_fmt(time)}"
    advice = advice_lines(header, formula, b, full, v.universe, v.compiled.derived_names)
    part = {"start": "at start condition", "end": "at end condition"}.get(inst.kind,
                                                                           "precondition")
    return _fail(precondition_verdict(formula, b, full, v.universe), inst, time,
                 f"{_where(inst, time)}: {part} not satisfied: " + " ".join(unsatisfied),
                 unsatisfied=unsatisfied, advice=advice)


_DURATION_TESTS = {
    # VAL's DurativeActionElement::confirmPrecondition: D the plan's duration, d the bound
    "=": lambda D, d, tol: abs(D - d) < tol,
    "<=": lambda D, d, tol: D - d <= tol,
    ">=": lambda D, d, tol: d - D <= tol,
    "<": lambda D, d, tol: D < d,
    ">": lambda D, d, tol: D > d,
}


def _duration(v, inst: _Instant, full: set, time: float, tol: float):
    when = "end" if inst.kind == "end" else "start"
    fluents = getattr(full, "fluents", v.fluents)
    D = inst.binding["?duration"]
    for constraint, value in inst.act.duration:
        if (constraint.time or "start") != when:
            continue
        try:
            d = value(inst.binding, fluents)
        except UndefinedValue as err:
            return _fail(Verdict.UNDEFINED_VALUE, inst, time,
                         f"{_where(inst, time)}: its duration constraint reads {err.fluent}, "
                         "which has no value")
        if _DURATION_TESTS[constraint.op](D, d, tol):
            continue
        text = f"({constraint.op} ?duration {d:g})"
        # VAL's StartAction::displayDurationAdvice
        if constraint.op in ("<", "<="):
            fix = f"Decrease duration by at least {D - d:g}"
        elif constraint.op in (">", ">="):
            fix = f"Increase duration by at least {d - D:g}"
        else:
            fix = f"Set the duration to {d:g}"
        return _fail(Verdict.DURATION_VIOLATED, inst, time,
                     f"{_where(inst, time)}: the duration {D:g} breaks the duration constraint "
                     f"{text} (tolerance {tol:g})", unsatisfied=(text,),
                     advice=(f"{inst.text()} has an unsatisfied precondition at time "
                             f"{_fmt(time)}", f"Failed duration constraint: {fix}"))
    return None


def _invariant_failed(v, r: _Instant, full: set, time: float,
                      until: float) -> ValidationReport:
    """VAL reports the interval from the happening that broke the invariant to the next
    one (``UnsatInvariant::display``); ``until`` is that next happening's time."""
    from planning_core.validate.advice import advice_lines, unsatisfied_conditions

    formula = r.act.action.over_all
    unsatisfied = unsatisfied_conditions(formula, r.binding, full, v.universe)
    start, end = r.time, r.end.time
    header = (f"Invariant for {r.step} has its condition unsatisfied between time "
              f"{_fmt(time)} to {_fmt(until)}, the condition is satisfied on the empty set.")
    advice = advice_lines(header, formula, r.binding, full, v.universe,
                          v.compiled.derived_names)
    return _fail(Verdict.INVARIANT_VIOLATED, r, time,
                 f"{_where(r, start)}: its over all condition is false after the happening at "
                 f"time {_fmt(time)}, before its end at {_fmt(end)}: " + " ".join(unsatisfied),
                 action=f"Invariant for {r.step}", unsatisfied=unsatisfied, advice=advice)


# ------------------------------------------------------------------------- mutex

class _Touch:
    """What one instant reads and writes in the state before its happening."""

    __slots__ = ("reads", "fluent_reads", "adds", "dels", "writes")

    def __init__(self) -> None:
        self.reads: set = set()
        self.fluent_reads: set = set()
        self.adds: set = set()
        self.dels: set = set()
        self.writes: dict = {}        # fluent -> True when every write is additive


def _touch(v, inst: _Instant, full: set) -> _Touch:
    t = _Touch()
    if inst.til is not None:
        key = (inst.til.atom.predicate,) + inst.til.atom.args
        (t.adds if inst.til.positive else t.dels).add(key)
        return t
    act, b = inst.act, inst.binding
    if inst.kind == "end":
        formula, effects, compiled = act.action.end_condition, act.action.end_effects, act.end_effects
    else:
        formula, effects, compiled = act.precondition, act.action.effects, act.effects
    _reads(formula, dict(b), v.universe, t.reads, t.fluent_reads)
    for constraint, _ in (act.duration if act.durative else ()):
        _numeric_reads(constraint.value, b, t.fluent_reads)
    _effect_reads(effects, dict(b), v.universe, t.reads, t.fluent_reads, full)
    if inst.kind == "start" and act.span:    # read now, for effects at the end
        for e in act.action.end_effects:
            if isinstance(e, pddl.When) and e.at_start:
                _effect_reads((replace(e, at_start=False, effects=()),), dict(b), v.universe,
                              t.reads, t.fluent_reads, full)
    adds: list = []
    dels: list = []
    incs: list = []
    compiled(full, b, v.universe, getattr(full, "fluents", {}), adds, dels, incs)
    t.adds.update(adds)
    t.dels.update(dels)
    for key, value in incs:
        additive = not isinstance(value, NumericUpdate) or value.op == "decrease"
        t.writes[key] = t.writes.get(key, True) and additive
    return t


def _reads(f, b: dict, universe, props: set, fluents: set) -> None:
    """The ground atoms and fluents a condition mentions (VAL's owned preconditions)."""
    if isinstance(f, pddl.Atom):
        props.add((f.predicate,) + ground_args(f.args, b))
    elif isinstance(f, pddl.Comparison):
        _numeric_reads(f.left, b, fluents)
        _numeric_reads(f.right, b, fluents)
    elif isinstance(f, (pddl.And, pddl.Or)):
        for p in f.parts:
            _reads(p, b, universe, props, fluents)
    elif isinstance(f, pddl.Not):
        _reads(f.body, b, universe, props, fluents)
    elif isinstance(f, pddl.Imply):
        _reads(f.antecedent, b, universe, props, fluents)
        _reads(f.consequent, b, universe, props, fluents)
    elif isinstance(f, (pddl.Exists, pddl.Forall)):
        _quantified(f.parameters, f.body, b, universe,
                    lambda inner: _reads(f.body, inner, universe, props, fluents))


def _quantified(params, body, b: dict, universe, visit) -> None:
    if not params:
        visit(b)
        return
    first, rest = params[0], params[1:]
    for obj in universe.objects_of(first.types):
        inner = dict(b)
        inner[first.name] = obj
        _quantified(rest, body, inner, universe, visit)


def _numeric_reads(e, b: dict, fluents: set) -> None:
    todo = [e]
    while todo:
        e = todo.pop()
        if isinstance(e, pddl.FunctionTerm):
            fluents.add((e.name,) + ground_args(e.args, b))
        elif isinstance(e, pddl.BinaryOp):
            todo += [e.left, e.right]


def _effect_reads(effects, b: dict, universe, props: set, fluents: set, state) -> None:
    """What the effects read: their amounts, and the condition of each conditional effect
    that fires in ``state`` (VAL's ``Action::handleEffects`` marks a condition as owned only
    when it holds: a simultaneous delete of a condition that is false is no interference)."""
    for e in effects:
        if isinstance(e, (pddl.Increase, pddl.NumericEffect)):
            _numeric_reads(e.amount, b, fluents)
        elif isinstance(e, pddl.When) and e.at_start:     # its condition was read at start
            if b.get(span_key(e)):
                _effect_reads(e.effects, b, universe, props, fluents, state)
        elif isinstance(e, pddl.When):
            try:
                fires = compile_formula(e.condition, frozenset(
                    k for k in b if isinstance(k, str)))(state, b, universe)
            except UndefinedValue:
                fires = True
            if fires:
                _reads(e.condition, b, universe, props, fluents)
                _effect_reads(e.effects, b, universe, props, fluents, state)
        elif isinstance(e, pddl.ForallEffect):
            _quantified(e.parameters, None, b, universe,
                        lambda inner, e=e: _effect_reads(e.effects, inner, universe, props,
                                                         fluents, state))


def _pair(first: list[int], second: list[int]) -> tuple[int, int] | None:
    """Two different instants ``(x, y)``, ``x`` from ``first`` and ``y`` from ``second``
    (each list without repeats), or None: at most two inner steps per outer one."""
    for i in first:
        for j in second:
            if i != j:
                return i, j
    return None


def _mutex(v, group: list[_Instant], full: set, time: float):
    """The first pair of interfering instants, by VAL's ``Ownership`` rules, in one pass:
    each atom and fluent records who reads, adds, deletes or changes it (as VAL marks
    owners), so 10^5 instants at one time cost 10^5 steps, not 10^10 pairs."""
    readers: dict = {}
    adders: dict = {}
    deleters: dict = {}
    fluent_readers: dict = {}
    writers: dict = {}
    seen: dict = {}       # the same snap action twice touches the same things (one state)
    for idx, inst in enumerate(group):
        _tick(v, 8)
        if inst.step is None:
            t = _touch(v, inst, full)
        else:
            key = (inst.kind, inst.step.name, inst.step.args, inst.binding.get("?duration"))
            t = seen.get(key)
            if t is None:
                t = seen[key] = _touch(v, inst, full)
        for table, keys in ((readers, t.reads), (adders, t.adds), (deleters, t.dels),
                            (fluent_readers, t.fluent_reads)):
            for key in keys:
                table.setdefault(key, []).append(idx)
        for key, additive in t.writes.items():
            writers.setdefault(key, []).append((idx, additive))
    # (first instant of the pair, the other, the instant that changes, what it does)
    found: list[tuple[int, int, int, str]] = []

    def record(pair, changer: int, what: str) -> None:
        x, y = pair
        found.append((min(x, y), max(x, y), changer, what))

    for key in adders.keys() & deleters.keys():
        pair = _pair(adders[key], deleters[key])
        if pair is not None:          # the later one to claim the atom is VAL's violator
            later = max(pair)
            record(pair, later, f"{'adds' if later == pair[0] else 'deletes'} {atom_text(key)}")
    for key in readers.keys() & (adders.keys() | deleters.keys()):
        # VAL marks every condition first, then takes the effects in order: the first
        # instant to change an atom some other instant reads is the one it names
        pair = _pair(sorted(adders.get(key, []) + deleters.get(key, [])), readers[key])
        if pair is not None:
            verb = "adds" if pair[0] in adders.get(key, ()) else "deletes"
            record(pair, pair[0], f"{verb} {atom_text(key)}")
    for key, ws in writers.items():
        who = [i for i, _ in ws]
        pair = _pair(who, fluent_readers.get(key, []))
        changer = pair[0] if pair is not None else None
        if pair is None and len(set(who)) > 1 and not all(a for _, a in ws):
            fixed = next(i for i, a in ws if not a)
            pair = _pair([fixed], who)
            changer = max(pair)
        if pair is not None:
            record(pair, changer, f"expression {atom_text(key)}")
    if not found:
        return None
    i, j, c, what = min(found)
    changer, other = group[c], group[j if c == i else i]
    named = changer if changer.step is not None else other   # a plan step where there is one
    text = f"{changer.text()} ({what}) and {other.text()}"
    return _fail(Verdict.MUTEX_VIOLATED, named, time, text, unsatisfied=(f"({what})",),
                 advice=(f"{changer.text()} has a mutex violation at time {_fmt(time)}",
                         "Separate these actions!"))


# ------------------------------------------------------------------------ the end

def _finish(v, plan: Plan, full: set, fluents: dict, makespan: float, steps: tuple,
            warnings: list[str]) -> ValidationReport:
    try:
        reached = v.goal(full, {}, v.universe)
    except UndefinedValue as err:
        return ValidationReport(Verdict.UNDEFINED_VALUE, trace=steps, warnings=tuple(warnings),
                                message=f"the plan executes, but the goal reads {err.fluent}, "
                                        "which has no value")
    if not reached:
        from planning_core.validate.advice import advice_lines, unsatisfied_conditions

        goal = v.problem.goal
        unsatisfied = unsatisfied_conditions(goal, {}, full, v.universe)
        return ValidationReport(
            Verdict.GOAL_NOT_SATISFIED, unsatisfied_goals=unsatisfied,
            advice=advice_lines("The goal is not satisfied", goal, {}, full, v.universe,
                                v.compiled.derived_names),
            trace=steps, warnings=tuple(warnings),
            message="the plan executes, but the goal is not satisfied at its end: "
                    + " ".join(unsatisfied))
    values = dict(fluents)
    values[("total-time",)] = makespan
    try:
        cost = v._cost(values, len(plan.steps), warnings)
    except UndefinedValue as err:
        return v._metric_undefined(err, steps, warnings)
    return ValidationReport(Verdict.VALID, cost=cost, trace=steps, warnings=tuple(warnings))

