"""Diverse plans for profile construction: top-k planning, or iterated solving.

AdaPlanBench derives its constraints from several candidate plans per task. Here they come
from a top-k planner: K* (Katz, Sohrabi, Udrea & Winterer 2018, "A Novel Iterative
Approach to Top-k Planning"), shipped as the ``kstar-planner`` wheel (optional extra
``adaptive``; GPL, its driver run as a subprocess in a folder of its own). K* reads PDDL without
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

import json
import math
import random
import subprocess
import sys
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


#: K*'s search for the top ``k`` plans: the configuration of ``kstar_planner``'s
#: ``plan_topk`` (lmcut heuristic, structural symmetries), plans written to ``plans.json``.
_KSTAR_SYMMETRIES = ("sym=structural_symmetries(time_bound=0,search_symmetries=oss,"
                     "stabilize_initial_state=false,keep_operator_symmetries=true)")
_KSTAR_SEARCH = ("kstar(lmcut(transform=undo_to_origin()), {stop}, "
                 "find_unordered_plans=false, dump_plan_files=false, "
                 "json_file_to_dump=plans.json, symmetries=sym)")


def _plan_topk(domain_file: Path, problem_file: Path, k: int, timeout: int) -> list[dict]:
    """K*'s plans (``{"actions": [...], ...}`` each) for the two files, run in their folder.

    Not ``kstar_planner.planners.plan_topk``: that runs the planner in the caller's working
    directory, where its driver writes ``output.sas`` and deletes and recreates
    ``found_plans/``, so two runs sharing a directory (two workers of a batch, two test
    processes) read each other's translation or delete each other's folder, and one of
    them comes back with no plan (6 of 6 concurrent pairs did). Each run here has the
    folder of its own files."""
    from kstar_planner import planners

    folder = domain_file.parent
    limit = ["--overall-time-limit", f"{timeout}s"] if timeout else []
    stop = f"k={k}, max_time={timeout}" if timeout else f"k={k}"
    cmd = [sys.executable, "-B", "-m", "kstar_planner.driver.main",
           "--build", str(Path(planners.build_dir).absolute()), *limit,
           domain_file.name, problem_file.name, "--symmetries", _KSTAR_SYMMETRIES,
           "--search", _KSTAR_SEARCH.format(stop=stop)]
    subprocess.run(cmd, cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    found = folder / "plans.json"
    try:
        return json.loads(found.read_text(encoding="utf-8")).get("plans", [])
    except (OSError, ValueError, AttributeError):
        return []          # no plan file: no plan (iterated solving takes over)


def _kstar(domain: pddl.Domain, problem: pddl.Problem, k: int, timeout: int,
           memo: dict | None = None) -> list[tuple[str, ...]]:
    texts = (write_domain(domain), write_problem(problem))
    key = texts + (k, timeout)
    if memo is not None and key in memo:
        # the same PDDL as an earlier round's (a round that kept nothing leaves the next
        # round's task unchanged): K*'s answer is read again, not recomputed by a new
        # subprocess (about 0.15 s CPU and 0.3 s wall each)
        return list(memo[key])
    from planning_core.limits import time_left

    with tempfile.TemporaryDirectory(prefix="adaptive-kstar-") as tmp:
        dom, prob = Path(tmp) / "domain.pddl", Path(tmp) / "problem.pddl"
        dom.write_text(texts[0])
        prob.write_text(texts[1])
        # K* runs in a child: it gets at most what the active budget (the task's, in
        # ``adaptive build``) has left, at least a second (0 would mean no limit)
        found = _plan_topk(dom, prob, k, max(1, math.ceil(time_left(timeout)))
                           if timeout else timeout)
    plans = [tuple(f"({a})" for a in p["actions"]) for p in found]
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
