"""Grounding PDDL 2.1 tasks: numeric fluents and durative actions (issue 28, item 3).

Reachability is relaxed over propositions, and the numeric parts are kept: the lifted task
is first *relaxed* into a classical one, grounded by the classical grounder unchanged (so
the classical path keeps its speed: nothing here runs for a classical task), and each
ground action then gets its numeric conditions and effects back, instantiated with its
arguments:

* a numeric comparison that is a top-level conjunct of a precondition (or of a durative
  action's ``at start``/``over all``/``at end`` condition) is dropped for reachability
  (taken as reachable) and kept on the ground action; one elsewhere (under ``or``, ``not``,
  a quantifier, in a derived predicate) is refused by name, since dropping it would not be
  a relaxation of the ground condition we keep;
* numeric effects (``assign``, ``increase`` of anything but ``total-cost``, ``decrease``,
  ``scale-up``, ``scale-down``) leave the classical action and are kept on the ground one;
  under ``when`` or ``forall`` they are refused by name;
* a durative action becomes two snap actions, ``NAME-start`` (``at start`` and ``over all``
  conditions, ``at start`` effects) and ``NAME-end`` (``at end`` conditions, ``at end``
  effects); the ground start keeps the duration constraints and the ``over all``
  comparisons. An end is reachable when its own condition is (relaxed: its start is not
  required first);
* a timed initial literal ``(at t (p))`` becomes a reachable action ``til-K`` adding or
  deleting ``(p)``, so what it adds counts as reachable; the goal's comparisons are kept
  apart and the metric is kept as an expression.

The result is a :class:`NumericTask`: the classical ``Task`` of the relaxed task plus, per
ground action, its ground comparisons, numeric effects and (for a start) duration
constraints, the initial fluent values, and the goal's comparisons. ``solve`` hands numeric
and temporal tasks to external planners; without one, a numeric task is searched in-process
over this task (:mod:`planning_core.search.numeric_search`).
"""
from __future__ import annotations

from planning_core.errors import UnsupportedFeature
from planning_core.nodes import replace
from planning_core.pddl import ast as pddl
from planning_core.pddl.features import comparison_in, numeric_effect_in

__all__ = ["GroundNumeric", "NumericTask", "ground_numeric", "relax"]

SNAP_START = "-start"
SNAP_END = "-end"


class GroundNumeric:
    """The numeric parts of one ground action, with its arguments substituted: comparisons
    (``pddl.Comparison``), effects (``pddl.Increase``/``pddl.NumericEffect``) and, for the
    start of a durative action, its duration constraints and ``over all`` comparisons."""

    __slots__ = ("conditions", "effects", "duration", "invariants")

    def __init__(self, conditions=(), effects=(), duration=(), invariants=()) -> None:
        self.conditions, self.effects = tuple(conditions), tuple(effects)
        self.duration, self.invariants = tuple(duration), tuple(invariants)


class NumericTask:
    """A grounded PDDL 2.1 task: the relaxed classical ``task``, ``numeric[i]`` for
    ``task.actions[i]``, the initial ``fluents``, the goal's ``goal_conditions`` and the
    ``metric`` (``pddl.Metric`` or None)."""

    __slots__ = ("task", "numeric", "fluents", "goal_conditions", "metric")

    def __init__(self, task, numeric, fluents, goal_conditions, metric) -> None:
        self.task, self.numeric, self.fluents = task, tuple(numeric), dict(fluents)
        self.goal_conditions, self.metric = tuple(goal_conditions), metric


def _refuse(what: str, pos, file) -> UnsupportedFeature:
    return UnsupportedFeature(f"{what} cannot be grounded with reachability relaxed over "
                              "propositions (only top-level conjuncts and unconditional "
                              "numeric effects are kept)", file=file,
                              line=pos and pos.line, column=pos and pos.column)


def _split(f: pddl.Formula, file) -> tuple[pddl.Formula, tuple[pddl.Comparison, ...]]:
    """``f`` without its top-level comparisons, and those comparisons."""
    parts = f.parts if isinstance(f, pddl.And) else (f,)
    kept, numeric = [], []
    for p in parts:
        if isinstance(p, pddl.Comparison):
            numeric.append(p)
        elif isinstance(p, pddl.And):
            rest, more = _split(p, file)
            kept.append(rest)
            numeric.extend(more)
        else:
            inner = comparison_in(p)
            if inner is not None:
                raise _refuse(f"the numeric comparison '{inner.op}' inside a connective or "
                              "quantifier", inner.pos, file)
            kept.append(p)
    return (kept[0] if len(kept) == 1 else pddl.And(tuple(kept))), tuple(numeric)


def _split_effects(effects, file) -> tuple[tuple, tuple]:
    classical, numeric = [], []
    for e in effects:
        if isinstance(e, pddl.NumericEffect) or (
                isinstance(e, pddl.Increase) and (e.fluent.name != "total-cost" or e.fluent.args)):
            numeric.append(e)
        elif isinstance(e, (pddl.When, pddl.ForallEffect)):
            inner = numeric_effect_in(e.effects)
            if inner is not None or _has_numeric_increase(e.effects):
                what, pos = inner or ("a numeric effect", getattr(e, "pos", None))
                raise _refuse(f"{what} under when/forall", pos, file)
            if isinstance(e, pddl.When):
                c = comparison_in(e.condition)
                if c is not None:
                    raise _refuse(f"the numeric comparison '{c.op}' in a when condition",
                                  c.pos, file)
            classical.append(e)
        else:
            classical.append(e)
    return tuple(classical), tuple(numeric)


def _has_numeric_increase(effects) -> bool:
    for e in effects:
        if isinstance(e, pddl.Increase) and (e.fluent.name != "total-cost" or e.fluent.args):
            return True
        if isinstance(e, (pddl.When, pddl.ForallEffect)) and _has_numeric_increase(e.effects):
            return True
    return False


def relax(domain: pddl.Domain, problem: pddl.Problem):
    """The classical relaxation of a PDDL 2.1 task, and what it set aside: ``(domain,
    problem, kept)`` with ``kept[name] = (conditions, effects, duration, invariants)`` per
    classical action name."""
    file = domain.filename
    actions: list[pddl.Action] = []
    kept: dict[str, tuple] = {}
    for a in domain.actions:
        if not a.durative:
            pre, comps = _split(a.precondition, file)
            effs, nums = _split_effects(a.effects, file)
            actions.append(replace(a, precondition=pre, effects=effs))
            kept[a.name] = (comps, nums, (), ())
            continue
        if a.continuous:
            raise _refuse("a continuous effect (#t)", a.continuous[0].pos, file)
        start_pre, start_comps = _split(a.precondition, file)
        inv_pre, inv_comps = _split(a.over_all, file)
        end_pre, end_comps = _split(a.end_condition, file)
        start_effs, start_nums = _split_effects(a.effects, file)
        end_effs, end_nums = _split_effects(a.end_effects, file)
        start = pddl.Action(a.name + SNAP_START, a.parameters,
                            pddl.And((start_pre, inv_pre)), start_effs, a.pos)
        end = pddl.Action(a.name + SNAP_END, a.parameters, end_pre, end_effs, a.pos)
        actions += [start, end]
        kept[start.name] = (start_comps, start_nums, a.duration, inv_comps)
        kept[end.name] = (end_comps, end_nums, tuple(d for d in a.duration if d.time == "end"), ())
    for k, til in enumerate(problem.timed_literals):
        effect = pddl.Add(til.atom) if til.positive else pddl.Delete(til.atom)
        actions.append(pddl.Action(f"til-{k}", (), pddl.TRUE, (effect,), til.pos))
        kept[f"til-{k}"] = ((), (), (), ())
    for d in domain.derived:
        c = comparison_in(d.body)
        if c is not None:
            raise _refuse(f"the numeric comparison '{c.op}' in a derived predicate", c.pos, file)
    goal, goal_comps = _split(problem.goal, problem.filename)
    metric = problem.metric
    costs = metric is not None and isinstance(metric.expression, pddl.FunctionTerm) and \
        metric.expression.name == "total-cost" and not metric.expression.args
    relaxed_domain = replace(domain, actions=tuple(actions))
    relaxed_problem = replace(problem, goal=goal, timed_literals=(),
                              metric=metric if costs else None)
    return relaxed_domain, relaxed_problem, kept, goal_comps


def _bind_numeric(e, sub: dict):
    if isinstance(e, pddl.FunctionTerm):
        return pddl.FunctionTerm(e.name, tuple(sub.get(x, x) for x in e.args), e.pos)
    if isinstance(e, pddl.BinaryOp):
        return pddl.BinaryOp(e.op, _bind_numeric(e.left, sub), _bind_numeric(e.right, sub), e.pos)
    return e


def _bind(x, sub: dict):
    if isinstance(x, pddl.Comparison):
        return pddl.Comparison(x.op, _bind_numeric(x.left, sub), _bind_numeric(x.right, sub), x.pos)
    if isinstance(x, pddl.DurationConstraint):
        return pddl.DurationConstraint(x.op, _bind_numeric(x.value, sub), x.time, x.pos)
    if isinstance(x, pddl.Increase):
        return pddl.Increase(_bind_numeric(x.fluent, sub), _bind_numeric(x.amount, sub), x.pos)
    return pddl.NumericEffect(x.op, _bind_numeric(x.fluent, sub), _bind_numeric(x.amount, sub),
                              x.pos)


def ground_numeric(domain: pddl.Domain, problem: pddl.Problem, *, budget=None) -> NumericTask:
    """Ground a PDDL 2.1 task (see the module docstring); a classical task grounds too,
    with no numeric parts."""
    from planning_core.ground.grounder import ground

    relaxed_domain, relaxed_problem, kept, goal_comps = relax(domain, problem)
    task = ground(relaxed_domain, relaxed_problem, budget=budget)
    schemas = {a.name: a for a in relaxed_domain.actions}
    numeric = []
    for ga in task.actions:
        comps, nums, duration, invariants = kept.get(ga.schema, ((), (), (), ()))
        if not (comps or nums or duration or invariants):
            numeric.append(GroundNumeric())
            continue
        params = schemas[ga.schema].parameters
        sub = {p.name: arg for p, arg in zip(params, ga.args)}
        numeric.append(GroundNumeric((_bind(c, sub) for c in comps),
                                     (_bind(e, sub) for e in nums),
                                     (_bind(d, sub) for d in duration),
                                     (_bind(c, sub) for c in invariants)))
    fluents = {(n.fluent.name,) + n.fluent.args: n.value for n in problem.numeric_init}
    return NumericTask(task, numeric, fluents, goal_comps, problem.metric)
