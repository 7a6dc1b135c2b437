"""A profile's constraints as PDDL: the constrained task the solver proves solvable.

World constraints are compiled into the domain, so the grounder prunes what they forbid:

* ``object_unavailable o``: a static predicate ``(adaptive-unavailable ?x)`` true of the
  unavailable objects, and ``(not (adaptive-unavailable ?p))`` for every parameter of every
  action: no ground action takes ``o`` as an argument.
* ``avoid_attribute_use A`` (a user kind judged on steps, like the world kinds): the
  objects the profile gives attribute ``A`` join the unavailable ones; with a ``target``
  ``o``, a static ``(adaptive-pair ?x ?y)`` true of ``o`` and every object with ``A``, and
  ``(not (adaptive-pair ?p ?q))`` for every ordered pair of parameters of every action (a
  negated static atom, so grounding prunes the pairs without a disjunction).
* ``action_unusable a``: the schema ``a`` is removed.
* ``limited_use o k``: a counter of nullary facts ``(adaptive-count-N-0..k)``; a step that
  takes ``o`` (the static ``(adaptive-mark-N o)``) needs the counter below ``k`` and moves
  it one up by conditional effects evaluated in the pre-state.

The other user constraints are already PDDL3; they become the problem's ``:constraints`` (conjoined
with the task's own), and the profile's attributes become static facts of new predicates.
Solving (:func:`solve_under`) grounds that task and searches the product with the LTLf
compilation of every constraint (:func:`planning_core.temporal.pddl3.constraint_formula`,
:func:`planning_core.temporal.product.plan_ltl`), as ``planning_core.search.solve.solve``
does for PDDL3 tasks, but with a deterministic expansion budget instead of a wall-clock
one, so that which constraints construction keeps does not depend on machine load.
"""
from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import replace
from functools import lru_cache

from planning_core.pddl import ast as pddl
from planning_core.pddl.checker import check
from planning_core.pddl.parser import parse_problem
from planning_core.errors import PlanningError
from planning_core.result import SolveResult, Status
from planning_core.validators.adaptive.profile import Constraint, Profile, ProfileError, \
    ProfileUnsolvable, USER_OPERATOR

__all__ = ["UNAVAILABLE", "parse_formal", "check_profile", "constrained_task", "solve_under",
           "prove_solvable", "DEFAULT_NODE_LIMIT", "DEFAULT_TIME_LIMIT_S", "GroundCache"]

UNAVAILABLE = "adaptive-unavailable"
PAIR = "adaptive-pair"
DEFAULT_NODE_LIMIT = 200_000
#: CPU seconds one :func:`solve_under` call (grounding and search) may use.
DEFAULT_TIME_LIMIT_S = 300.0
_OPERATOR = {pddl.Always: "always", pddl.SometimeBefore: "sometime-before",
             pddl.AtMostOnce: "at-most-once", pddl.Sometime: "sometime",
             pddl.SometimeAfter: "sometime-after", pddl.AtEnd: "at end"}
_PREFIX = "(define (problem adaptive-formal) (:domain {}) (:constraints "


def _wrapper(domain: pddl.Domain, formal: str) -> tuple[str, int]:
    return _wrapper_text(domain.name, formal), len(_PREFIX.format(domain.name))


def _located(err: PlanningError | pddl.Diagnostic, path: str, file: str | None,
             prefix_len: int) -> ProfileError:
    """An error inside the wrapper problem, moved to the formal string of the profile."""
    line, column = err.line, err.column
    if line == 1 and column is not None:
        column = max(1, column - prefix_len)
    where = f" (line {line} of the formal form, column {column})" if line else ""
    return ProfileError(f"{path}.formal: {err.message}{where}", file=file)


def parse_formal(domain: pddl.Domain, formal: str, path: str = "formal",
                 file: str | None = None) -> pddl.Constraint:
    """A PDDL3 constraint from its text; errors name the JSON path and the column."""
    try:
        parsed = _parse_wrapped(domain.name, formal)
    except PlanningError as err:
        raise _located(err, path, file, len(_PREFIX.format(domain.name))) from None
    if parsed is None:
        raise ProfileError(f"{path}.formal: no constraint in {formal!r}", file=file)
    return parsed


@lru_cache(maxsize=4096)
def _parse_wrapped(domain_name: str, formal: str) -> pddl.Constraint | None:
    # the wrapper depends on the domain's name only, and the AST is immutable: profile
    # construction parses the same few hundred formal strings once per solver call, so
    # each is parsed once (errors are raised again on every call: lru_cache keeps none)
    return parse_problem(_wrapper_text(domain_name, formal)).constraints


def _wrapper_text(domain_name: str, formal: str) -> str:
    return _PREFIX.format(domain_name) + formal + "))"


def _attribute_predicates(domain: pddl.Domain, profile: Profile) -> tuple[pddl.PredicateDef, ...]:
    return tuple(pddl.PredicateDef(name, (pddl.TypedName("?x"),)) for name, _ in profile.attributes)


def _with_attributes(domain: pddl.Domain, problem: pddl.Problem, profile: Profile):
    if not profile.attributes:
        return domain, problem
    facts = tuple(pddl.Atom(name, (obj,)) for name, objs in profile.attributes for obj in objs)
    domain = replace(domain, predicates=domain.predicates + _attribute_predicates(domain, profile))
    return domain, replace(problem, init=problem.init + facts)


def check_profile(domain: pddl.Domain, problem: pddl.Problem, profile: Profile) -> None:
    """Check a profile against its task: objects, actions, attributes and every formal
    form (names, arity, types, the PDDL3 operator of its kind). Raises ProfileError."""
    file = profile.filename
    objects = {o.name for o in problem.objects} | {c.name for c in domain.constants}
    predicates = {p.name for p in domain.predicates}
    for name, objs in profile.attributes:
        if name in predicates:
            raise ProfileError(f"attributes.{name}: the domain already has a predicate "
                               f"'{name}'; choose another attribute name", file=file)
        if not re.fullmatch(r"[a-z][a-z0-9_-]*", name):
            raise ProfileError(f"attributes.{name}: not a PDDL name", file=file)
        for obj in objs:
            if obj not in objects:
                raise ProfileError(f"attributes.{name}: unknown object '{obj}'", file=file)
    dom, prob = _with_attributes(domain, problem, profile)
    for i, c in enumerate(profile.constraints):
        path = f"constraints[{i}]"
        if c.kind == "avoid_attribute_use" and c.target and c.target not in objects:
            raise ProfileError(f"{path}.target: the task has no object '{c.target}'", file=file)
        if c.kind in ("object_unavailable", "limited_use") and c.object not in objects:
            raise ProfileError(f"{path}.object: the task has no object '{c.object}'", file=file)
        if c.kind == "action_unusable" and domain.action(c.action) is None:
            raise ProfileError(f"{path}.action: the domain has no action '{c.action}'",
                               file=file)
        if c.kind == "avoid_attribute_use" and c.attribute not in dict(profile.attributes):
            raise ProfileError(f"{path}.attribute: the profile declares no attribute "
                               f"'{c.attribute}'", file=file)
        if c.on_steps:
            continue
        parsed = parse_formal(dom, c.formal, path, file)
        top = _OPERATOR.get(type(parsed), type(parsed).__name__)
        if top != USER_OPERATOR[c.kind]:
            raise ProfileError(f"{path}.formal: a {c.kind} constraint is written with "
                               f"({USER_OPERATOR[c.kind]} ...), not ({top} ...)", file=file)
        text, prefix_len = _wrapper(dom, c.formal)
        wrapped = parse_problem(text)
        wrapped = replace(prob, constraints=wrapped.constraints)
        errors = [d for d in check(dom, wrapped) if d.severity == "error"]
        if errors:
            raise _located(errors[0], path, file, prefix_len)


def _counter(k: int, i: int) -> str:
    return f"adaptive-count-{k}-{i}"


def _compile_world(domain: pddl.Domain, problem: pddl.Problem, world: list[Constraint],
                   attributes: dict):
    unavailable = sorted({c.object for c in world if c.kind == "object_unavailable"}
                         | {o for c in world if c.kind == "avoid_attribute_use"
                            and not c.target for o in attributes.get(c.attribute, ())})
    targeted = [c for c in world if c.kind == "avoid_attribute_use" and c.target]
    unusable = {c.action for c in world if c.kind == "action_unusable"}
    limited = [c for c in world if c.kind == "limited_use"]
    predicates = list(domain.predicates)
    init = list(problem.init)
    if unavailable:
        predicates.append(pddl.PredicateDef(UNAVAILABLE, (pddl.TypedName("?x"),)))
        init.extend(pddl.Atom(UNAVAILABLE, (o,)) for o in unavailable)
    pairs = sorted({(c.target, o) for c in targeted for o in attributes.get(c.attribute, ())
                    if o != c.target})
    if pairs:
        predicates.append(pddl.PredicateDef(PAIR, (pddl.TypedName("?x"),
                                                    pddl.TypedName("?y"))))
        init.extend(pddl.Atom(PAIR, pair) for pair in pairs)
    for k, c in enumerate(limited):
        predicates.append(pddl.PredicateDef(f"adaptive-mark-{k}", (pddl.TypedName("?x"),)))
        predicates.extend(pddl.PredicateDef(_counter(k, i)) for i in range(c.limit + 1))
        init.append(pddl.Atom(f"adaptive-mark-{k}", (c.object,)))
        init.append(pddl.Atom(_counter(k, 0)))
    actions = []
    for action in domain.actions:
        if action.name in unusable:
            continue
        params = [p.name for p in action.parameters]
        pre = [action.precondition]
        effects = list(action.effects)
        if unavailable:
            pre.extend(pddl.Not(pddl.Atom(UNAVAILABLE, (p,))) for p in params)
        if pairs:
            pre.extend(pddl.Not(pddl.Atom(PAIR, (p, q)))
                       for p in params for q in params if p != q)
        for k, c in enumerate(limited):
            if not params:
                continue
            uses = pddl.Or(tuple(pddl.Atom(f"adaptive-mark-{k}", (p,)) for p in params))
            pre.append(pddl.Imply(uses, pddl.Not(pddl.Atom(_counter(k, c.limit)))))
            effects.extend(pddl.When(pddl.And((uses, pddl.Atom(_counter(k, i)))),
                                  (pddl.Delete(pddl.Atom(_counter(k, i))),
                                   pddl.Add(pddl.Atom(_counter(k, i + 1)))))
                           for i in range(c.limit))
        if len(pre) > 1:
            action = replace(action, precondition=pddl.And(tuple(pre)), effects=tuple(effects))
        actions.append(action)
    return (replace(domain, predicates=tuple(predicates), actions=tuple(actions)),
            replace(problem, init=tuple(init)))


_REQUIREMENTS = (":negative-preconditions", ":disjunctive-preconditions",
                 ":conditional-effects", ":constraints")


def constrained_task(domain: pddl.Domain, problem: pddl.Problem, profile: Profile,
                     constraints) -> tuple[pddl.Domain, pddl.Problem]:
    """The task with ``constraints`` (of ``profile``) compiled in (module docstring)."""
    domain, problem = _with_attributes(domain, problem, profile)
    world = [c for c in constraints if c.on_steps]
    user = [c for c in constraints if not c.on_steps]
    if world:
        domain, problem = _compile_world(domain, problem, world, dict(profile.attributes))
    if user:
        parts = [parse_formal(domain, c.formal) for c in user]
        if problem.constraints is not None:
            parts.insert(0, problem.constraints)
        problem = replace(problem, constraints=parts[0] if len(parts) == 1
                          else pddl.ConstraintAnd(tuple(parts)))
    needed = (_REQUIREMENTS[:3] if world else ()) + (_REQUIREMENTS[3:] if user else ())
    extra = tuple(r for r in needed if r not in domain.requirements)
    return replace(domain, requirements=domain.requirements + extra), problem


class GroundCache:
    """The ground tasks of recent constrained tasks, by what grounding reads (LRU).

    Grounding ignores the PDDL3 ``:constraints`` and the requirements, so every user
    candidate of a construction round (the same world constraints, new ``:constraints``)
    grounds to the same Task: the key is the compiled domain without its requirements and
    the problem without its constraints, compared field by field (frozen ASTs). A Task is
    not changed by a search (it only memoises its successor generator), so sharing it gives
    the same plans and the same search statistics.
    """

    def __init__(self, max_tasks: int = 16) -> None:
        self.max_tasks = max_tasks
        self._tasks: OrderedDict = OrderedDict()
        self.hits = self.misses = 0

    def task(self, domain: pddl.Domain, problem: pddl.Problem, budget=None):
        """The ground task, ground under ``budget`` on a miss (``LimitReached`` at its
        limit; nothing is cached then)."""
        from planning_core.ground.grounder import ground

        key = (replace(domain, requirements=()), replace(problem, constraints=None))
        found = self._tasks.get(key)
        if found is not None:
            self.hits += 1
            self._tasks.move_to_end(key)
            return found
        self.misses += 1
        task = self._tasks[key] = ground(domain, problem, ignore_constraints=True,
                                         budget=budget)
        if len(self._tasks) > self.max_tasks:
            self._tasks.popitem(last=False)
        return task


def solve_under(domain: pddl.Domain, problem: pddl.Problem, profile: Profile, constraints, *,
                node_limit: int = DEFAULT_NODE_LIMIT, time_limit: float = DEFAULT_TIME_LIMIT_S,
                cache: GroundCache | None = None) -> SolveResult:
    """Solve the task under ``constraints``: SOLVED with a plan, UNSOLVABLE with a proof,
    UNKNOWN at the expansion budget or at ``time_limit`` CPU seconds (a guard that only
    protects the user). ``cache`` shares ground tasks between calls on one task
    (:class:`GroundCache`).

    Grounding and the search run under one budget: ``time_limit``, or what is left of the
    active budget (:func:`planning_core.limits.metering`; ``adaptive build`` makes one per
    task) when that is less. A task that grounds to millions of actions (thousands of copies
    of one object) stops there as ``UNKNOWN`` instead of grounding for minutes; when it is
    the active budget that ran out, its ``LimitReached`` is raised, so a caller trying one
    candidate after another stops at once instead of getting ``UNKNOWN`` for each of them
    (which would make what it keeps depend on machine speed)."""
    from planning_core.ground.grounder import ground
    from planning_core.limits import Budget, LimitReached, Limits, active_budget
    from planning_core.temporal.pddl3 import constraint_formula
    from planning_core.temporal.product import ENGINE, plan_ltl

    outer = active_budget()
    budget = (outer.sub(time_limit) if outer is not None
              else Budget(Limits(time_s=time_limit)))
    dom, prob = constrained_task(domain, problem, profile, constraints)
    try:
        task = (cache.task(dom, prob, budget) if cache is not None
                else ground(dom, prob, ignore_constraints=True, budget=budget))
    except LimitReached as stop:
        spent = outer.exceeded() if outer is not None else None
        if spent is not None:
            raise spent from None
        return SolveResult(Status.UNKNOWN, None, None, ENGINE, budget.cpu_s(),
                           (("phase", "ground"), ("limit_detail", stop.detail)), stop.limit)
    formula = constraint_formula(dom, prob)
    result = plan_ltl(task, formula, search="greedy", node_limit=node_limit, budget=budget)
    if result.status is Status.UNKNOWN and outer is not None:
        spent = outer.exceeded()
        if spent is not None:
            raise spent
    return result


def proof_of(result: SolveResult) -> dict:
    """What a solver run proved, as JSON: status, reason and search statistics."""
    return {"status": result.status.value, "reason": result.reason, "engine": result.engine,
            **{k: v for k, v in result.stats}}


def prove_solvable(domain: pddl.Domain, problem: pddl.Problem, profile: Profile, tier: str, *,
                   node_limit: int = DEFAULT_NODE_LIMIT) -> SolveResult:
    """Solve ``tier`` of ``profile``; raise :class:`ProfileUnsolvable` with the proof when
    the solver proves it has no plan, ProfileError when the budget leaves it open."""
    result = solve_under(domain, problem, profile, profile.tier_constraints(tier),
                         node_limit=node_limit)
    if result.status is Status.UNSOLVABLE:
        raise ProfileUnsolvable(f"tier {tier!r} leaves the task without a plan: "
                                f"{result.reason}", proof=proof_of(result),
                                file=profile.filename)
    if result.status is Status.UNKNOWN:
        raise ProfileError(f"tier {tier!r}: solvability not settled within the budget "
                           f"({result.reason})", file=profile.filename)
    return result
