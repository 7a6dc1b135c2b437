"""One entry point for planning: ``solve(domain, problem) -> SolveResult``.

The portfolio sits above both ``search`` (classical engines) and ``temporal`` (PDDL3
constraints by LTLf product search), which know nothing of each other.

Engines:

* ``internal``: ground in-process, then A* (``optimal=True``; LM-cut, or h_max with
  conditional effects/axioms) or greedy best-first search with h_FF.
* ``fd``: Fast Downward as a subprocess on the PDDL that ``pddl/writer.py`` prints.
* ``auto`` (default): a portfolio, set from measurements (``benchmarks/results/
  solve_portfolio.md``, ``ground.md``). A Fast Downward run costs ~0.35 s before it searches
  (interpreter start and translation; median 359 ms on ACPBench states,
  ``benchmarks/results/hstar.md``), while in-process search answers most ACPBench-sized and
  small IPC tasks well within that. So ``auto`` grounds in-process when the lifted problem
  is small (``AUTO_MAX_OBJECTS``, ``AUTO_MAX_INIT``) and the ground task has at most
  ``AUTO_MAX_ACTIONS`` actions, searches in-process for at most ``AUTO_INTERNAL_BUDGET_S``
  seconds, and hands the rest of the time limit to Fast Downward when that search neither
  found a plan nor proved unsolvability. Every MANIFEST task with a known optimal cost is
  solved this way within 10 s (``tests/search/test_solve.py``).

  Bigger tasks: one h_FF or LM-cut evaluation on tens of thousands of ground actions takes
  milliseconds to seconds in Python (parking p03-011, 4332 actions: 256 A* expansions took
  358 s), where FD's C++ search wins, so a big STRIPS task goes to Fast Downward directly.
  But FD's translator grounds quantified and conditional (ADL) domains slowly: on
  airport-adl it needs 92 s of CPU on p50 where ours grounds in 2.3 s, and on airport-adl
  p21 ``auto`` used to spend 95 s in Fast Downward on a task the internal search solves in
  4.7 s (issue 9). So a big lifted task whose domain has quantifiers, conditional effects,
  disjunctions or derived predicates (``ADL_FEATURES``, read from the domain as
  ``features.py`` does) is ground in-process and searched there for
  ``AUTO_ADL_SHARE`` of the time limit before Fast Downward gets the rest.

``UNSOLVABLE`` is reported only with a proof: the goal is relaxed-unreachable, a complete
search with a safe heuristic exhausted the state space, or Fast Downward proved it. Any limit
gives ``UNKNOWN``. Plans use the lifted action names, ``"(name a b)"``: a disjunctive action
split into variants while grounding prints under its original name.
"""
from __future__ import annotations

import time

from planning_core.errors import EngineError, UnsupportedFeature
from planning_core.ground.task import Task
from planning_core.heuristics.relaxed import goal_relaxed_reachable
from planning_core.limits import Budget, LimitReached, Limits
from planning_core.pddl import ast as pddl
from planning_core.result import SolveResult, Status
from planning_core.search.astar import SearchOutcome, astar, greedy

ENGINES = ("auto", "internal", "fd", "enhsp", "tamer", "lpg")
#: the planner ``auto`` hands a PDDL 2.1 task of each kind to, in order of preference (the
#: first installed one): LPG-td before TAMER for temporal tasks, because TAMER starts
#: interfering actions at one instant, which PDDL 2.1 forbids (all of its plans for the
#: IPC 2002 time tracks fail validation; benchmarks/results/pddl21_differential.md)
PDDL21_ENGINES = {"numeric": ("enhsp", "lpg", "tamer"), "temporal": ("lpg", "tamer")}
#: what to install for each planner (for the message when none is installed)
_PLANNER_NEEDS = {"enhsp": "ENHSP (up-enhsp and a Java runtime)", "lpg": "LPG-td (up-lpg)",
                  "tamer": "TAMER (up-tamer)"}
AUTO_MAX_OBJECTS = 150
AUTO_MAX_INIT = 2000
AUTO_MAX_ACTIONS = 3000
AUTO_INTERNAL_BUDGET_S = 1.0
AUTO_ADL_SHARE = 0.5
ADL_FEATURES = frozenset({"conditional_effects", "quantifiers", "disjunctions",
                          "derived_predicates"})


def ground_task(domain: pddl.Domain, problem: pddl.Problem, budget: Budget | None = None) -> Task:
    """The ground task (the grounder's ``ground``; imported late to keep start-up cheap)."""
    from planning_core.ground.grounder import ground
    return ground(domain, problem, budget=budget)


def internal_search(task: Task, *, optimal: bool = True, time_limit: float = 60.0,
                    state: int | None = None, node_limit: int | None = None,
                    budget: Budget | None = None) -> SearchOutcome:
    """A* with the feature-chosen admissible heuristic, or greedy best-first with h_FF."""
    if optimal:
        return astar(task, state=state, time_limit=time_limit, node_limit=node_limit,
                     budget=budget)
    return greedy(task, state=state, time_limit=time_limit, node_limit=node_limit,
                  budget=budget)


def _from_outcome(out: SearchOutcome, t0: float, extra: dict) -> SolveResult:
    stats = dict(extra, expanded=out.expanded, generated=out.generated, heuristic=out.heuristic)
    return SolveResult(out.status, out.plan, out.cost, "internal", time.perf_counter() - t0,
                       tuple(sorted(stats.items())), out.reason)


def _small_lifted(problem: pddl.Problem) -> bool:
    return len(problem.objects) <= AUTO_MAX_OBJECTS and len(problem.init) <= AUTO_MAX_INIT


def _adl_domain(domain: pddl.Domain) -> bool:
    """Whether the domain uses a feature FD's translator grounds slowly (``ADL_FEATURES``)."""
    from planning_core.pddl.writer import write_domain
    from planning_core.search.features import features_from_text
    return bool(ADL_FEATURES & set(features_from_text(write_domain(domain)).names()))


def auto_route(domain: pddl.Domain, problem: pddl.Problem) -> str:
    """The first step of ``engine="auto"`` for a task: ``"internal"`` (ground in-process,
    search briefly, then Fast Downward), ``"internal-long"`` (ground in-process, search for
    ``AUTO_ADL_SHARE`` of the time) or ``"fd"`` (Fast Downward on the lifted task)."""
    if _small_lifted(problem):
        return "internal"
    return "internal-long" if _adl_domain(domain) else "fd"


def solve_fd(domain: pddl.Domain, problem: pddl.Problem, *, optimal: bool = True,
             time_limit: float = 60.0, cpu_budget: bool = False) -> SolveResult:
    """Fast Downward on the written PDDL (lifted names come back as they are)."""
    if domain.constraints is not None or problem.constraints is not None:
        raise UnsupportedFeature("Fast Downward does not support PDDL3 trajectory constraints "
                                 "(:constraints); solve() compiles them to LTLf instead",
                                 file=problem.filename)
    from planning_core.pddl.writer import write_domain, write_problem
    from planning_core.search.fast_downward import run_fast_downward
    return run_fast_downward(write_domain(domain), write_problem(problem), optimal=optimal,
                             time_limit=max(0.1, time_limit), cpu_budget=cpu_budget)


def solve(domain: pddl.Domain, problem: pddl.Problem, *, optimal: bool = True,
          time_limit: float = 60.0, engine: str = "auto", task: Task | None = None,
          budget: Budget | None = None, cpu_budget: bool = False) -> SolveResult:
    """Solve a parsed task; see the module docstring. ``task`` reuses a grounding.

    ``time_limit`` is CPU seconds for the in-process work (grounding and search) and the
    limit handed to Fast Downward; ``budget`` (``planning_core.limits``), when given,
    replaces it and adds a memory limit (and the command line's wall-clock guard). Any limit
    gives ``UNKNOWN`` with the limit named in ``reason``. With ``cpu_budget`` Fast
    Downward's limit is CPU time as well (its wall-clock kill only a generous guard): what
    scorers and checks use, so that a verdict does not depend on machine load.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
    from planning_core.search.pddl21_planners import pddl21_kind
    kind = pddl21_kind(domain, problem)
    if kind is not None or engine in _PLANNER_NEEDS:
        return solve_pddl21(domain, problem, kind or "classical", engine=engine,
                            time_limit=time_limit, budget=budget, cpu_budget=cpu_budget)
    # PDDL3 trajectory constraints: no engine below honours them, so they are solved by
    # product search with their LTLf compilation (planning_core/temporal/pddl3.py), or
    # refused (engine="fd") with UnsupportedFeature; never ignored.
    if domain.constraints is not None or problem.constraints is not None:
        from planning_core.temporal.pddl3 import solve_constrained
        return solve_constrained(domain, problem, optimal=optimal, time_limit=time_limit,
                                 engine=engine, task=task, budget=budget)
    t0 = time.perf_counter()
    budget = budget if budget is not None else Budget(Limits(time_s=time_limit))

    def left() -> float:
        remaining = budget.remaining_s()
        return time_limit - (time.perf_counter() - t0) if remaining is None else remaining

    def unknown(err: LimitReached, extra: dict) -> SolveResult:
        stats = dict(extra, limit_detail=err.detail)
        return SolveResult(Status.UNKNOWN, None, None, "internal", time.perf_counter() - t0,
                           tuple(sorted(stats.items())), err.limit)

    route = auto_route(domain, problem) if engine == "auto" else engine
    if engine == "fd" or (task is None and route == "fd"):
        return solve_fd(domain, problem, optimal=optimal, time_limit=left(),
                        cpu_budget=cpu_budget)
    try:
        if task is None:
            task = ground_task(domain, problem, budget)
    except UnsupportedFeature as unsupported:
        if engine == "internal":
            raise
        try:
            return solve_fd(domain, problem, optimal=optimal, time_limit=left(),
                            cpu_budget=cpu_budget)
        except EngineError:               # FD refuses it too: the feature is the answer
            raise unsupported from None
    except LimitReached as err:
        return unknown(err, {"phase": "grounding"})
    ground_s = time.perf_counter() - t0
    extra = {"ground_s": round(ground_s, 4), "facts": len(task.facts), "actions": len(task.actions)}
    if not goal_relaxed_reachable(task):
        return SolveResult(Status.UNSOLVABLE, None, None, "internal", time.perf_counter() - t0,
                           tuple(sorted(extra.items())), "relaxed unreachable")
    if route == "internal-long":
        share = left() * AUTO_ADL_SHARE
    elif engine == "auto" and len(task.actions) > AUTO_MAX_ACTIONS:
        return solve_fd(domain, problem, optimal=optimal, time_limit=left(),
                        cpu_budget=cpu_budget)
    else:
        share = AUTO_INTERNAL_BUDGET_S
    stage = budget if engine == "internal" else budget.sub(share)
    out = internal_search(task, optimal=optimal, budget=stage)
    if out.status is not Status.UNKNOWN or engine == "internal":
        return _from_outcome(out, t0, extra)
    if out.reason == "memory limit" or left() <= 0.05:
        return _from_outcome(out, t0, extra)
    res = solve_fd(domain, problem, optimal=optimal, time_limit=left(), cpu_budget=cpu_budget)
    return SolveResult(res.status, res.plan, res.cost, res.engine, time.perf_counter() - t0,
                       res.stats, res.reason)


def _pddl21_engine(kind: str, engine: str, problem: pddl.Problem) -> str:
    from planning_core.search.pddl21_planners import available
    if engine == "internal" and kind == "numeric":
        return "internal"     # the in-process numeric search (search/numeric_search.py)
    if engine in ("internal", "fd"):
        raise UnsupportedFeature(
            f"this is a {kind} (PDDL 2.1) task, which the '{engine}' engine does not plan "
            "for; use --engine auto, enhsp (numeric), lpg or tamer (numeric and temporal), "
            "installed with pip install 'planning-core[planners]' (or internal, for a small "
            "numeric task)", file=problem.filename)
    if engine != "auto":
        if kind == "temporal" and engine == "enhsp":
            raise UnsupportedFeature("ENHSP does not plan with durative actions; use "
                                     "--engine lpg or tamer", file=problem.filename)
        return engine
    choices = PDDL21_ENGINES.get(kind, PDDL21_ENGINES["numeric"])
    for choice in choices:
        if available(choice):
            return choice
    if kind == "numeric":     # no external planner: the in-process search, for small tasks
        return "internal"
    need = " or ".join(_PLANNER_NEEDS[c] for c in choices)
    raise EngineError(f"this is a {kind} (PDDL 2.1) task: planning for it needs {need}; "
                      "install them with pip install 'planning-core[planners]'")


def _numeric_search(domain: pddl.Domain, problem: pddl.Problem, budget: Budget) -> SolveResult:
    """The in-process numeric search on ``ground_numeric``'s task, in this thread's budget
    (so its CPU time is not subtracted again as a child's: ``planner_cpu_s`` is 0)."""
    from planning_core.ground.numeric import ground_numeric
    from planning_core.search import numeric_search
    t0 = time.perf_counter()
    try:
        numeric_task = ground_numeric(domain, problem, budget=budget)
    except LimitReached as err:
        return SolveResult(Status.UNKNOWN, None, None, "internal", time.perf_counter() - t0,
                           (("phase", "grounding"), ("planner_cpu_s", 0.0)), err.limit)
    out = numeric_search.numeric_gbfs(numeric_task, budget=budget,
                                      node_limit=numeric_search.NODE_LIMIT)
    stats = (("expanded", out.expanded), ("generated", out.generated),
             ("planner_cpu_s", 0.0))
    return SolveResult(out.status, out.plan, None, "internal", time.perf_counter() - t0,
                       stats, out.reason)


def solve_pddl21(domain: pddl.Domain, problem: pddl.Problem, kind: str, *, engine: str = "auto",
                 time_limit: float = 60.0, budget: Budget | None = None,
                 cpu_budget: bool = False) -> SolveResult:
    """A numeric or temporal task: an external planner (``search/pddl21_planners.py``)
    plans under this call's time and memory limits, and its plan is reported only after our
    validator accepted it (``SOLVED``, with the metric's value as ``cost``). A plan our
    validator rejects gives ``UNKNOWN`` with the reason, never a wrong plan; so does any
    limit, in the planner or in the validation.

    A timed plan is checked at VAL's default tolerance (0.01); LPG-td's, whose happenings
    are 0.00025 apart, when it fails there, at ``LPG_TOLERANCE`` (0.001): a plan valid only
    there is reported with ``tolerance`` in its stats (``solve`` prints it), the ``-t`` to
    validate it with, as VAL's users do for LPG's plans."""
    from planning_core.pddl.writer import write_domain, write_problem
    from planning_core.search.pddl21_planners import LPG_TOLERANCE, run_planner
    from planning_core.validate.simulator import validate_plan
    from planning_core.validate.report import Verdict
    t0 = time.perf_counter()
    budget = budget if budget is not None else Budget(Limits(time_s=time_limit))
    chosen = _pddl21_engine(kind, engine, problem)
    left = budget.remaining_s()
    left = time_limit if left is None else left
    memory = None if budget.memory_mb is None else int(budget.memory_mb)
    durative = frozenset(a.name.lower() for a in domain.actions
                         if getattr(a, "durative", False)) if kind == "temporal" else None
    if chosen == "internal":
        res = _numeric_search(domain, problem, budget)
    else:
        res = run_planner(chosen, write_domain(domain), write_problem(problem),
                          time_limit=max(0.1, left), memory_limit_mb=memory,
                          cpu_budget=cpu_budget,
                          **({"durative": durative} if chosen == "lpg" else {}))
    stats = dict(res.stats, kind=kind)
    if res.status is not Status.SOLVED:
        return SolveResult(res.status, None, None, chosen, time.perf_counter() - t0,
                           tuple(sorted(stats.items())), res.reason)
    plan = res.plan or ()
    stats["plan_steps"] = len(plan)
    # the planner's CPU time is its child's, which this process's budget does not see
    left = budget.remaining_s()
    left = (time_limit if left is None else left) - float(dict(res.stats).get("planner_cpu_s", 0))
    if left <= 0:
        return SolveResult(Status.UNKNOWN, None, None, chosen, time.perf_counter() - t0,
                           tuple(sorted(stats.items())),
                           f"time limit before validating {chosen}'s plan")
    check = budget.sub(left)
    report = validate_plan(domain, problem, "\n".join(plan), budget=check)
    if chosen == "lpg" and kind == "temporal" and report.verdict not in (Verdict.VALID,
                                                                         Verdict.UNKNOWN):
        report = validate_plan(domain, problem, "\n".join(plan), budget=check,
                               tolerance=LPG_TOLERANCE)
        stats["tolerance"] = LPG_TOLERANCE
    if report.verdict is Verdict.VALID:
        return SolveResult(Status.SOLVED, plan, report.cost, chosen, time.perf_counter() - t0,
                           tuple(sorted(stats.items())), "")
    if report.verdict is Verdict.UNKNOWN:
        reason = f"{report.limit or 'time limit'} while validating {chosen}'s plan"
    else:
        when = f" at time {report.time:g}" if report.time is not None else ""
        if "tolerance" in stats:
            when += f", -t {stats['tolerance']:g}"
        reason = f"{chosen}'s plan is invalid ({report.verdict.value}{when}): {report.message}"
    return SolveResult(Status.UNKNOWN, None, None, chosen, time.perf_counter() - t0,
                       tuple(sorted(stats.items())), reason)
