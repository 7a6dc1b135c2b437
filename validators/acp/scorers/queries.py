"""The engine questions the scorers ask, as calls over planning_core's public API.

Every search here is bounded by a deterministic **budget**: a number of expanded states
(:data:`DEFAULT_BUDGET` unless the caller says otherwise), never by wall-clock time, so the
same answer gets the same verdict on a loaded laptop and on an idle server. A search that
runs out of budget answers ``None``/``UNKNOWN`` and the scorer reports an unknown verdict that
names the budget. An optional ``time_limit`` (wall-clock seconds, default off) only protects
a user who wants a run to end; when it is set and hit, the verdict is unknown too.

* :func:`reach_condition` -- is a state satisfying ``pos`` (and none of ``neg``) reachable
  from ``state``? First a short search without heuristic, novel states first
  (:func:`novelty_search`, ``NOVELTY_NODES`` expansions: most reachable conditions of the
  benchmark are a few steps away). Then a short greedy best-first search (h_add,
  :data:`SEARCH_HEURISTIC`) on the task with that goal (``GREEDY_NODES`` expansions):
  reachable conditions are usually found in a few steps. Then breadth-first search, which
  proves unreachability by exhausting the state space; it costs far less per state than
  computing a heuristic (measured with h_FF on the grid questions of the dev set: 60,052 states exhausted in about 2 s by BFS, not within 20 s by greedy
  search). h_add's infinity is a relaxation proof of a dead end, so an exhausted greedy
  search is a proof too.
* :func:`is_landmark` -- does every plan from ``state`` make the fact true? The exact test
  of Kokel et al. (ACPBench Hard, "Answer Evaluation"): the fact is a landmark iff the task
  with the fact forbidden has no plan. The delete relaxation first, then greedy search with
  h_add on the task with the fact forbidden (exhausted = unsolvable = landmark).
* :func:`h_star` -- the optimal plan cost from ``state`` (``math.inf`` for a dead end): a
  short in-process A* (LM-cut), then Fast Downward under a CPU-time limit
  (:data:`HSTAR_FD_CPU_S`; Python's LM-cut costs milliseconds per state, and a depots task
  that Fast Downward solves in 4 s would take hours of budget in-process).
  :func:`h_star_within` asks only whether it is at most a bound (A* pruned above it).
"""
from __future__ import annotations

import dataclasses
import math
from heapq import heappop, heappush

from planning_core.errors import UnsupportedFeature
from planning_core.ground.task import Task
from planning_core.heuristics.relaxed import goal_relaxed_reachable
from planning_core.limits import tick_active
from planning_core.result import Status
from planning_core.validators.acp.defaults import DEFAULT_BUDGET
from planning_core.search.astar import OVER_BOUND, astar, greedy
from planning_core.search.bfs import bfs

__all__ = ["DEFAULT_BUDGET", "GREEDY_NODES", "HSTAR_FD_CPU_S", "HSTAR_INTERNAL_NODES",
           "NOVELTY_NODES", "SEARCH_HEURISTIC", "explore",
           "h_star", "h_star_within",
           "is_landmark",
           "novelty_search", "plan_facts",
           "reach_condition", "with_goal"]

#: The heuristic of the scorers' greedy searches. h_add rather than h_FF: both are infinite
#: exactly on relaxed dead ends (so exhausted searches prove the same things), and on the
#: land questions of the dev split greedy search with h_add found the 40 goal plans with
#: 2,281 evaluations in 0.24 CPU s, h_FF with 3,908 in 0.49 s (h_FF also extracts a relaxed
#: plan per state).
SEARCH_HEURISTIC = "hadd"

#: Expansions of the first phase of :func:`reach_condition`, a search without heuristic.
NOVELTY_NODES = 100

#: Expansions of the greedy phase of :func:`reach_condition` before breadth-first search.
GREEDY_NODES = 2000


def with_goal(task: Task, pos: int, neg: int = 0) -> Task:
    """The same ground task with goal ``pos`` true and ``neg`` false (bitmasks)."""
    if task.goal_pos == pos and task.goal_neg == neg:
        return task
    return dataclasses.replace(task, goal_pos=pos, goal_neg=neg)


def explore(task: Task, state: int, covers, need: int, *, budget: int = DEFAULT_BUDGET
            ) -> tuple[int, int, bool]:
    """One complete exploration from ``state``, novel states first, that stops as soon as
    every candidate is covered.

    ``need`` is a bitmask of candidates; ``covers(state, applicable_actions)`` returns the
    candidates a state covers. Returns ``(uncovered, states, exhausted)``: the candidates
    never covered, the states generated, and whether the reachable states were exhausted
    (then the uncovered candidates are proved unreachable). At most ``budget`` states are
    expanded. Order: a state that makes true a fact no state generated before had is
    expanded before the others (then first come, first served), so coverage grows fast;
    no heuristic is computed, one successor generation per state.
    """
    applicable, progress = task.applicable, task.progress
    seen = {state}
    facts_seen = state
    heap = [(0, 0, state)]
    counter = expanded = 0
    while heap:
        s = heappop(heap)[2]
        tick_active()        # the caller's budget, if one is active (the question generator)
        acts = applicable(s)
        need &= ~covers(s, acts)
        if not need:
            return 0, len(seen), False
        expanded += 1
        if expanded > budget:
            return need, len(seen), False
        for a in acts:
            t = progress(s, a)
            if t not in seen:
                seen.add(t)
                new = t & ~facts_seen
                facts_seen |= t
                counter += 1
                heappush(heap, (0 if new else 1, counter, t))
    return need, len(seen), True


def novelty_search(task: Task, state: int, pos: int, neg: int = 0, *,
                   budget: int = DEFAULT_BUDGET) -> Status:
    """Complete search (:func:`explore`) for a state with ``pos`` and none of ``neg``."""
    left, _, exhausted = explore(
        task, state, lambda s, _acts: int(not (pos & ~s) and not (neg & s)), 1,
        budget=budget)
    if not left:
        return Status.SOLVED
    return Status.UNSOLVABLE if exhausted else Status.UNKNOWN


def reach_condition(task: Task, state: int, pos: int, neg: int = 0, *,
                    budget: int = DEFAULT_BUDGET, time_limit: float | None = None) -> Status:
    """``SOLVED`` when some state reachable from ``state`` has ``pos`` and none of ``neg``;
    ``UNKNOWN`` when ``budget`` expansions (or the optional wall-clock limit) ran out."""
    if not (pos & ~state) and not (neg & state):
        return Status.SOLVED
    quick = novelty_search(task, state, pos, neg, budget=min(NOVELTY_NODES, budget))
    if quick is not Status.UNKNOWN:
        return quick
    goal_task = with_goal(task, pos, neg)
    outcome = greedy(goal_task, state=state, heuristic=SEARCH_HEURISTIC, time_limit=time_limit,
                     node_limit=min(GREEDY_NODES, budget))
    if outcome.status is not Status.UNKNOWN:
        return outcome.status
    if outcome.reason == "time limit":
        return Status.UNKNOWN
    return bfs(goal_task, state=state, time_limit=time_limit, node_limit=budget).status


def is_landmark(task: Task, fact: int, state: int, *, budget: int = DEFAULT_BUDGET,
                time_limit: float | None = None, relaxed_checked: bool = False) -> bool | None:
    """Whether fact ``fact`` (an id of ``task.facts``) holds on every plan from ``state``;
    None when the budget ran out. A fact true in ``state`` is trivially a landmark: callers
    exclude those first. ``relaxed_checked``: the caller already found the goal
    relaxed-reachable from ``state`` without the fact (the first test here), so it is not
    explored again."""
    forbidden = 1 << fact
    if state & forbidden:
        return True
    if not relaxed_checked and not goal_relaxed_reachable(task, state, forbidden=forbidden):
        return True
    out = greedy(task, state=state, heuristic=SEARCH_HEURISTIC, forbidden=forbidden,
                 time_limit=time_limit, node_limit=budget)
    if out.status is Status.SOLVED:
        return False
    if out.status is Status.UNSOLVABLE:
        return True
    return None


def plan_facts(task: Task, state: int, *, budget: int = DEFAULT_BUDGET,
               time_limit: float | None = None, forbidden: int = 0) -> tuple[Status, int]:
    """Whether the goal is reachable from ``state`` (never making a fact of ``forbidden``
    true), and the facts true at some point along one plan (0 when there is none): every
    other fact is avoided by that plan, so it is not a landmark. Greedy search with h_add,
    then breadth-first search (exhausted: no plan)."""
    out = greedy(task, state=state, heuristic=SEARCH_HEURISTIC, forbidden=forbidden,
                 time_limit=time_limit, node_limit=budget)
    if out.status is Status.UNKNOWN and out.reason != "time limit":
        out = bfs(task, state=state, forbidden=forbidden, time_limit=time_limit,
                  node_limit=budget)
    if out.status is not Status.SOLVED:
        return out.status, 0
    seen = s = state
    for a in out.actions:
        s = task.progress(s, a)
        seen |= s
    return Status.SOLVED, seen


#: Expansions of in-process A* (LM-cut: about 1-10 ms each in Python) before an h* question
#: goes to Fast Downward. Most ACPBench states are solved well within this; a depots task of
#: 378 actions took 17 CPU s for 2,000 expansions in-process and 4 s in Fast Downward.
HSTAR_INTERNAL_NODES = 1_000

#: CPU seconds Fast Downward gets for one h* question (a CPU limit, so whether the answer is
#: known does not depend on machine load); past it the verdict is unknown.
HSTAR_FD_CPU_S = 60.0


def _optimal(task: Task, state: int, budget: int, time_limit: float | None,
             bound: float | None) -> tuple[Status, float | None, str]:
    """``(status, cost, reason)`` of an optimal search from ``state`` (A* pruned above
    ``bound`` when given): in-process A* for :data:`HSTAR_INTERNAL_NODES` expansions, then
    Fast Downward (``seq-opt`` LM-cut on the printed ground task) for
    :data:`HSTAR_FD_CPU_S` CPU seconds; a task Fast Downward cannot take (non-integer costs)
    goes on in-process for the rest of ``budget``. A ``budget`` at most the in-process share
    is the whole budget (no planner): a caller asking for a small budget gets unknown."""
    internal = min(budget, HSTAR_INTERNAL_NODES)
    out = astar(task, state=state, time_limit=time_limit, node_limit=internal, cost_bound=bound)
    if out.status is not Status.UNKNOWN or budget <= internal or out.reason == "time limit":
        return out.status, out.cost, out.reason
    from planning_core.search.ground_pddl import solve_ground   # only when it is needed
    limit = HSTAR_FD_CPU_S if time_limit is None else min(HSTAR_FD_CPU_S, time_limit)
    try:
        res = solve_ground(task, state, optimal=True, time_limit=limit, cpu_budget=True)
    except UnsupportedFeature:
        out = astar(task, state=state, time_limit=time_limit, node_limit=budget,
                    cost_bound=bound)
        return out.status, out.cost, out.reason
    if res.status is Status.SOLVED and bound is not None and res.cost > bound + 1e-9:
        return Status.UNSOLVABLE, None, OVER_BOUND
    reason = res.reason or ("no plan (Fast Downward)" if res.status is Status.UNSOLVABLE
                            else "Fast Downward's CPU limit")
    return res.status, res.cost, reason


def h_star_within(task: Task, state: int, bound: float, *, budget: int = DEFAULT_BUDGET,
                  time_limit: float | None = None) -> tuple[float | None, str]:
    """``(h*(state), "")`` when it is at most ``bound``; ``(math.inf, why)`` when it is not
    (``why`` is :data:`~planning_core.search.astar.OVER_BOUND` unless a dead end was
    proved); ``(None, why)`` when the limits ran out. A* pruned at f > bound: never more work
    than :func:`h_star`, and far less when no plan is that cheap (nexta's wrong answers)."""
    status, cost, why = _optimal(task, state, budget, time_limit, bound)
    if status is Status.SOLVED:
        return cost, ""
    if status is Status.UNSOLVABLE:
        return math.inf, why
    return None, why


def h_star(task: Task, state: int, *, budget: int = DEFAULT_BUDGET,
           time_limit: float | None = None) -> float | None:
    """Optimal cost from ``state``; ``math.inf`` when no plan exists; None when the limits
    (see :func:`_optimal`) ran out."""
    return h_star_within(task, state, math.inf, budget=budget, time_limit=time_limit)[0]
