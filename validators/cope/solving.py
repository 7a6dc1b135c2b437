"""The one place where CoPE code asks planning_core for a plan.

Both the ground-truth check and the PDDL formalizer solve with the same engine and the same
settings, so that "our solver found a plan" means the same thing everywhere. CoPE asks
whether *a* plan exists and whether a given plan is valid, never for an optimal one, so the
search is satisficing, and its budgets are deterministic or CPU time, never wall-clock
time, so that a verdict does not depend on how busy the machine is (issue 9):

1. a task whose ground size is small by an estimate made on the lifted task (objects
   per parameter type, :func:`estimated_actions`) is ground in-process; relaxed
   unreachability there is a proof, and greedy best-first search with h_FF gets a budget
   of :data:`INTERNAL_NODES` expansions and :data:`INTERNAL_WORK` ground actions scanned
   by h_FF (evaluations times the task's ground actions: an evaluation's cost grows with
   the task, so a plain evaluation count would let a 600-action task run 20 CPU-s), both
   deterministic, so the stage costs under a CPU-second on any pair (most
   CoPE tasks are solved here in milliseconds); when that search leaves the task open,
   h^2 reachability (:mod:`planning_core.heuristics.hm`, a deterministic work budget
   :data:`H2_WORK`) looks for two goal facts that are never true together: a proof the
   delete relaxation misses (BlocksWorld-100 state/p03/constraint3 in 0.02 CPU-s, which
   neither Fast Downward configuration settles in 30 s), then the state equation
   (:mod:`planning_core.heuristics.state_equation`) for counting arguments (state/p12 and
   p13: the table's block count can never drop by two), then exhaustive searches of
   projections on small connected goal subsets, pruned by h^2's mutexes
   (:mod:`planning_core.heuristics.projection`: state/p05/constraint5, a 7-block tower under
   a 4-block cap, in about a CPU-second);
2. everything else, and whatever that search left open, goes to Fast Downward: lazy
   greedy h_FF, then, if it left the question open, ``lama-first`` (FD's standard
   satisficing configuration), each with the *whole* limit as CPU budget (``cpu_budget``;
   the wall-clock kill is only a generous guard). A pair neither solves so costs up to
   twice the limit in CPU.

So a check never solves fewer pairs than ``lama-first`` (or lazy greedy h_FF) at the same
limit: the 50-block
BlocksWorld-100-XL tasks used to go through in-process grounding (5,000 actions, ~3 s
each, and 64 ground tasks kept by the relaxed-task cache: the 2 GB) and then lazy greedy
h_FF under a wall-clock limit, which left three action pairs unknown that ``lama-first``
solves. Unsolvability is still a proof only: relaxed unreachability, an h^2 mutex among the
goal facts, an infeasible state equation, a goal subset unreachable in a mutex-pruned
projection, or an exhausted complete search (FD's translator and search say which);
:func:`proof_kind` names it for the rows of ``cope check``.
"""
from __future__ import annotations

from math import prod

from planning_core.errors import PlanningError, UnsupportedFeature
from planning_core.pddl import ast as pddl
from planning_core.result import SolveResult, Status

DEFAULT_TIME_LIMIT = 60.0
#: Largest estimated number of ground actions ground in-process (as ``solve``'s portfolio).
INTERNAL_MAX_ACTIONS = 3000
#: Expansions of the in-process greedy search before Fast Downward takes over.
INTERNAL_NODES = 5_000
#: Fast Downward's configurations for existence checks, each with its share of the time
#: limit as CPU budget: lazy greedy h_FF first (fast where it works: one 50-block pair
#: takes it 1.4 s and lama-first 20 s), then lama-first. Each gets the *whole* limit: a
#: quarter for lazy-ff lost a BlocksWorld-100-XL pair that it solves in 14 s and
#: lama-first does not solve in 30 s.
FD_PORTFOLIO = (("lazy-ff", 1.0), ("lama-first", 1.0))
#: h_FF evaluations times ground actions (and conditional effects) of the in-process search
#: before Fast Downward takes over: ~0.5 CPU-s at ~0.5 us per action per evaluation.
#: Measured on the CoPE check (378 pairs, limit 10 s): the in-process stage still answers
#: 333 of the 354 pairs it answered with the CPU limit alone, each in at most 0.6 CPU-s; the
#: other 21 (0.6-3.4 CPU-s there) get the same verdicts from lazy-ff in at most 0.15 CPU-s;
#: and no pair now spends more than 0.8 CPU-s in this stage before Fast Downward (one spent
#: the whole 10 s CPU limit, action/p10/constraint2, which lazy-ff solves in 0.14 s).
INTERNAL_WORK = 1_000_000
#: Work units of the h^2 test (:func:`planning_core.heuristics.hm.h2_reachability`: facts
#: tested plus pairs made reachable) run when the greedy search leaves a task open. Measured
#: on the 4 BlocksWorld-100 state pairs labelled unsolvable: 28k-61k units, 0.02-0.04 CPU-s;
#: 10M bounds the test at a few CPU-s on any task the in-process stage grounds.
H2_WORK = 10_000_000
H2_REASON = "h^2 mutex"
STATE_EQUATION_REASON = "state equation infeasible"
PROJECTION_REASON = "projection dead end"


class _Metered:
    """h_FF that stops the search (``LimitReached``: UNKNOWN, handed to Fast Downward) once
    it has scanned ``work`` ground actions, counted as evaluations times the task's ground
    actions plus their conditional effects (each one a relaxed operator of its own: BlocksWorld
    state/p05/constraint5, 812 actions and 1,764 conditional effects, costs 1.1 ms an
    evaluation, where 611 plain actions cost 0.3 ms)."""

    def __init__(self, task, work: int) -> None:
        from planning_core.search.astar import HEURISTICS
        self.h = HEURISTICS["ff"](task, 0)
        self.work = work
        size = len(task.actions) + sum(len(a.cond_effects) for a in task.actions)
        self.left = max(1, work // max(1, size))   # evaluations allowed
        self.__name__ = "ff"

    def __call__(self, state: int) -> float:
        from planning_core.limits import LimitReached
        if self.left <= 0:
            raise LimitReached("work limit", f"{self.work:,} h_FF action scans")
        self.left -= 1
        return self.h(state)


def estimated_actions(domain: pddl.Domain, problem: pddl.Problem) -> int:
    """Upper bound on the ground actions: per action, the product over its parameters of
    the objects whose declared type (or a subtype) fits; cheap, no grounding."""
    parents: dict[str, set[str]] = {}
    for t in domain.types:
        parents.setdefault(t.name, set()).update(t.types)

    def ancestors(name: str) -> set[str]:
        seen, todo = {name, "object"}, [name]
        while todo:
            for parent in parents.get(todo.pop(), ()):
                if parent not in seen:
                    seen.add(parent)
                    todo.append(parent)
        return seen

    counts: dict[str, int] = {}
    for obj in domain.constants + problem.objects:
        for kind in {a for t in obj.types for a in ancestors(t)}:
            counts[kind] = counts.get(kind, 0) + 1
    total = 0
    for action in domain.actions:
        total += prod(sum(counts.get(t, 0) for t in p.types) for p in action.parameters)
    return total


def _internal(domain: pddl.Domain, problem: pddl.Problem, time_limit: float,
              memory_limit: float | None = None) -> SolveResult | UnsupportedFeature | None:
    """In-process grounding and greedy search; None when it leaves the question open.

    Only SOLVED (a plan, validated by the caller) and UNSOLVABLE (relaxed unreachability,
    or greedy search exhausting the reachable states) are kept; whatever stops the search
    early (node or work budget, or the CPU-time guard) hands the task to Fast Downward, whose
    CPU budget then decides. So machine load can change which engine answers, never the
    answer. A feature the grounder does not implement comes back as its error, for the
    caller to raise if Fast Downward cannot take the task either.
    """
    import time

    from planning_core.heuristics.relaxed import goal_relaxed_reachable
    from planning_core.limits import Budget, LimitReached, Limits
    from planning_core.search.astar import greedy
    from planning_core.solve import ground_task

    start = time.perf_counter()
    budget = Budget(Limits(time_s=time_limit, memory_mb=memory_limit))   # CPU s and memory
    try:
        task = ground_task(domain, problem, budget=budget)
    except UnsupportedFeature as err:
        return err
    except LimitReached:
        return None
    stats = (("actions", len(task.actions)), ("facts", len(task.facts)))
    if not goal_relaxed_reachable(task):
        return SolveResult(Status.UNSOLVABLE, None, None, "internal",
                           time.perf_counter() - start, stats, "relaxed unreachable")
    try:
        out = greedy(task, heuristic=_Metered(task, INTERNAL_WORK), time_limit=time_limit,
                     node_limit=INTERNAL_NODES, budget=budget)
    except LimitReached:
        out = None
    if out is None or out.status is Status.UNKNOWN:
        return _h2(task, start, stats)
    return SolveResult(out.status, out.plan, out.cost, "internal", time.perf_counter() - start,
                       stats + (("expanded", out.expanded),), out.reason)


def _h2(task, start: float, stats: tuple) -> SolveResult | None:
    """After the greedy search left the task open: h^2 reachability
    (:mod:`planning_core.heuristics.hm`), under its deterministic work budget
    :data:`H2_WORK`, then the state equation (:mod:`planning_core.heuristics.state_equation`,
    a counting argument; needs SciPy), then projections on goal subsets pruned by h^2's
    mutexes (:mod:`planning_core.heuristics.projection`, a deterministic budget of abstract
    states; the goal facts it refuted go into the result's stats); UNSOLVABLE when one of
    them proves it, else None (Fast Downward's turn). The greedy search goes first so that
    the solvable tasks it solves (nearly all CoPE pairs) never pay for it."""
    import time

    from planning_core.heuristics.hm import h2_unsolvable
    from planning_core.heuristics.projection import projection_unsolvable
    from planning_core.heuristics.state_equation import state_equation_unsolvable

    if h2_unsolvable(task, work=H2_WORK) is True:
        reason = H2_REASON
    elif state_equation_unsolvable(task, work=H2_WORK) is True:
        reason = STATE_EQUATION_REASON
    elif (found := projection_unsolvable(task, work=H2_WORK)) is not None:
        reason = PROJECTION_REASON
        stats += (("projection_goals", " ".join(found.goals)),
                  ("projection_facts", found.facts), ("projection_states", found.states))
    else:
        return None
    return SolveResult(Status.UNSOLVABLE, None, None, "internal", time.perf_counter() - start,
                       stats, reason)


#: How ``reason`` (the proof of an UNSOLVABLE answer) reads in a row's ``proof`` field.
PROOF_KINDS = {
    "relaxed unreachable": "relaxed-unreachable",
    H2_REASON: "h2-mutex",
    STATE_EQUATION_REASON: "state-equation",
    PROJECTION_REASON: "projection",
    "goal violates a mutex": "fd-mutex",
    "goal simplified to false": "fd-goal-false",
    "goal trivially false": "fd-goal-false",
    "search exhausted": "search-exhausted",
}


def proof_kind(result: SolveResult) -> str | None:
    """The kind of proof behind an UNSOLVABLE answer, for reports (None otherwise):
    ``relaxed-unreachable`` (the delete relaxation), ``h2-mutex`` (h^2 reachability),
    ``state-equation`` (no action counts reach the goal, with h^2's mutexes),
    ``projection`` (goal facts never reached together in a projection pruned by h^2's
    mutexes),
    ``fd-mutex`` / ``fd-goal-false`` (Fast Downward's translator), ``search-exhausted``
    (the in-process greedy search or Fast Downward's search ran out of states), or
    ``other`` for a reason not listed here."""
    if result.status is not Status.UNSOLVABLE:
        return None
    return PROOF_KINDS.get(result.reason, "other")


def solve_task(domain: pddl.Domain, problem: pddl.Problem, *,
               time_limit: float = DEFAULT_TIME_LIMIT,
               memory_limit: float | None = None) -> SolveResult:
    """Is there a plan? See the module doc for the two steps and their budgets.

    Raises :class:`planning_core.errors.EngineError` or ``UnsupportedFeature`` when the task
    cannot be handed to an engine at all; limits come back as ``Status.UNKNOWN``.
    ``memory_limit`` (MB) bounds the in-process stage and each Fast Downward run (None:
    the engine's defaults).
    """
    from planning_core.search.fast_downward import run_fast_downward
    from planning_core.solve import solve

    if domain.constraints is not None or problem.constraints is not None:
        from planning_core.limits import Budget, Limits
        return solve(domain, problem, optimal=False, time_limit=time_limit,
                     budget=Budget(Limits(time_s=time_limit, memory_mb=memory_limit)))
    unsupported = None
    if estimated_actions(domain, problem) <= INTERNAL_MAX_ACTIONS:
        found = _internal(domain, problem, time_limit, memory_limit)
        if isinstance(found, UnsupportedFeature):
            unsupported = found
        elif found is not None:
            return found
    from planning_core.pddl.writer import write_domain, write_problem
    result = None
    fd_memory = {} if memory_limit is None else {"memory_limit_mb": max(64, int(memory_limit))}
    try:
        domain_text, problem_text = write_domain(domain), write_problem(problem)
        for search, share in FD_PORTFOLIO:
            result = run_fast_downward(domain_text, problem_text, search=search,
                                       optimal=False, time_limit=max(1.0, share * time_limit),
                                       cpu_budget=True, **fd_memory)
            if result.status is not Status.UNKNOWN:
                return result
            if "search" not in dict(result.stats):
                break   # the translator stopped at a limit: the next entry would redo it
    except PlanningError:
        if unsupported is not None:   # neither engine takes it: name the feature
            raise unsupported from None
        raise
    return result
