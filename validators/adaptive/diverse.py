"""Diverse plans for profile construction: top-k planning, or iterated solving.

AdaPlanBench derives its constraints from several candidate plans per task. Here they come
from a top-k planner: K* (Katz, Sohrabi, Udrea & Winterer 2018, "A Novel Iterative
Approach to Top-k Planning"), shipped as the ``kstar-planner`` wheel (optional extra
``adaptive``; GPL, run as its own subprocess by that package). K* reads PDDL without
trajectory constraints, so it gets the task with the world constraints compiled in
(:func:`.compile.constrained_task`), and plans breaking a user constraint are filtered out
by the validator afterwards. When K* returns no plan (it does not accept the conditional
effects that ``limited_use`` compiles to, for one), iterated solving takes over.

Without the wheel (or with ``method="iterated"``) plans come from iterated solving with a
forbidden object: each new plan is solved with one more object, taken from the previous
plan by a seeded choice, made unavailable. That gives plans using different tools rather
than K*'s reorderings of one plan; both are deterministic given the seed.
"""
from __future__ import annotations

import random
import tempfile
from pathlib import Path

from planning_core.pddl import ast as pddl
from planning_core.pddl.writer import write_domain, write_problem
from planning_core.result import Status
from planning_core.validators.adaptive.check import ConstraintChecker
from planning_core.validators.adaptive.compile import constrained_task, solve_under
from planning_core.validators.adaptive.profile import Constraint, Profile

__all__ = ["METHODS", "kstar_available", "diverse_plans"]

METHODS = ("auto", "kstar", "iterated")


def kstar_available() -> bool:
    try:
        import kstar_planner.planners  # noqa: F401
    except ImportError:
        return False
    return True


def _kstar(domain: pddl.Domain, problem: pddl.Problem, k: int, timeout: int,
           memo: dict | None = None) -> list[tuple[str, ...]]:
    from kstar_planner import planners

    texts = (write_domain(domain), write_problem(problem))
    key = texts + (k, timeout)
    if memo is not None and key in memo:
        # the same PDDL as an earlier round's (a round that kept nothing leaves the next
        # round's task unchanged): K*'s answer is read again, not recomputed by a new
        # subprocess (about 0.15 s CPU and 0.3 s wall each)
        return list(memo[key])
    with tempfile.TemporaryDirectory(prefix="adaptive-kstar-") as tmp:
        dom, prob = Path(tmp) / "domain.pddl", Path(tmp) / "problem.pddl"
        dom.write_text(texts[0])
        prob.write_text(texts[1])
        found = planners.plan_topk(domain_file=dom, problem_file=prob,
                                   number_of_plans_bound=k, timeout=timeout)
    plans = [tuple(f"({a})" for a in p["actions"]) for p in found.get("plans", [])]
    if memo is not None:
        memo[key] = tuple(plans)
    return plans


def _iterated(domain: pddl.Domain, problem: pddl.Problem, profile: Profile,
              constraints: tuple[Constraint, ...], k: int, rng: random.Random,
              node_limit: int, cache=None) -> list[tuple[str, ...]]:
    plans: list[tuple[str, ...]] = []
    extra: list[Constraint] = []
    goal_objects = {t for a in _atoms(problem.goal) for t in a.args}
    for _ in range(k):
        result = solve_under(domain, problem, profile, constraints + tuple(extra),
                             node_limit=node_limit, cache=cache)
        if result.status is not Status.SOLVED:
            break
        plans.append(result.plan)
        used = sorted({arg for step in result.plan for arg in step.strip("()").split()[1:]}
                      - goal_objects - {c.object for c in extra})
        if not used:
            break
        extra.append(Constraint(f"diverse-{len(extra)}", "object_unavailable",
                                object=rng.choice(used)))
    return plans


def _atoms(f) -> list[pddl.Atom]:
    if isinstance(f, pddl.Atom):
        return [f]
    out = []
    for name in ("parts", "body", "antecedent", "consequent"):
        sub = getattr(f, name, None)
        if isinstance(sub, tuple):
            for p in sub:
                out.extend(_atoms(p))
        elif sub is not None:
            out.extend(_atoms(sub))
    return out


def diverse_plans(domain: pddl.Domain, problem: pddl.Problem, profile: Profile,
                  constraints: tuple[Constraint, ...], *, k: int = 5, method: str = "auto",
                  rng: random.Random | None = None, node_limit: int = 200_000,
                  timeout: int = 60, cache=None,
                  memo: dict | None = None) -> tuple[tuple[str, ...], ...]:
    """Up to ``k`` distinct plans satisfying ``constraints`` (deterministic order);
    ``cache`` (:class:`.compile.GroundCache`) shares ground tasks with the caller, ``memo``
    (a dict the caller keeps) K*'s answers by the PDDL it was given."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    rng = rng or random.Random(0)
    use_kstar = method == "kstar" or (method == "auto" and kstar_available())
    if use_kstar and problem.constraints is None and domain.constraints is None:
        dom, prob = constrained_task(domain, problem, profile,
                                     tuple(c for c in constraints if c.on_steps))
        plans = _kstar(dom, prob, k, timeout, memo)
        if not plans:  # K* found nothing (or failed on this PDDL): fall back
            plans = _iterated(domain, problem, profile, constraints, k, rng, node_limit, cache)
    else:
        plans = _iterated(domain, problem, profile, constraints, k, rng, node_limit, cache)
    checker = ConstraintChecker(domain, problem, profile, constraints)
    kept = []
    for plan in plans:
        check = checker.check("\n".join(plan))
        if check.solves_task and not check.violations and plan not in kept:
            kept.append(plan)
    return tuple(kept)
