"""Best-first search over int-bitmask states: A* (optimal) and greedy best-first.

A* (Hart, Nilsson & Raphael 1968) orders the open list by ``f = g + h`` and breaks ties in
favour of larger ``g`` (smaller ``h``), then by insertion order, so two runs expand the same
nodes in the same order. Duplicates are detected on the int state; a cheaper path to a known
state re-opens it, which keeps A* optimal with admissible heuristics that are not consistent
(LM-cut is admissible but not consistent). A heuristic value of ``math.inf`` prunes the state:
every heuristic offered here is a delete relaxation, whose infinity is a proof of a dead end,
so a search that empties its open list has proved the task unsolvable.

Limits: ``node_limit`` counts expansions, ``time_limit`` is CPU seconds of the searching
thread (``planning_core.limits``: a verdict must not depend on machine load) checked before
every expansion and every heuristic evaluation (one LM-cut evaluation on a task with
thousands of actions can take a good fraction of a second); a ``budget`` shared with the
caller (e.g. ``solve``, which grounded under the same one) replaces ``time_limit``. Stored
states are charged to the budget's memory estimate (``STATE_BYTES`` plus the state's own
bits). Hitting any limit gives ``UNKNOWN`` with the limit as reason, never ``UNSOLVABLE``.

``forbidden`` prunes every successor in which a fact of the mask holds. It implements the
landmark test of ACPBench Hard (Kokel et al. 2025) without building a new task: a plan that
never makes the candidate true exists iff the search with the candidate forbidden succeeds.

The heuristic is chosen by task features (``choose_heuristic``): LM-cut when the task has no
conditional effects or axioms, otherwise h_max, blind search as the explicit fallback.
"""
from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass
from typing import Callable

from planning_core.ground.facts import GroundAction
from planning_core.ground.task import Task
from planning_core.heuristics.lmcut import lmcut_for
from planning_core.heuristics.relaxed import h_add_of, h_ff, h_max
from planning_core.limits import Budget, LimitReached
from planning_core.result import Status

INF = math.inf
#: Estimated bytes per stored search state besides its bits (dict slots, parent tuple, heap
#: entry, cached heuristic value).
STATE_BYTES = 300
Heuristic = Callable[[int], float]


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    """What a search over a ground task found: the ground actions of the plan and counters."""

    status: Status
    actions: tuple[GroundAction, ...] | None
    cost: float | None
    expanded: int
    generated: int
    time_s: float
    reason: str = ""
    heuristic: str = ""

    @property
    def plan(self) -> tuple[str, ...] | None:
        """The plan as ``"(name arg ...)"`` strings (lifted names, as a plan file shows)."""
        return None if self.actions is None else tuple(str(a) for a in self.actions)


def _blind(task: Task) -> Heuristic:
    goal_pos, goal_neg = task.goal_pos, task.goal_neg
    cheapest = min((a.cost for a in task.actions), default=0)

    def h(state: int) -> float:
        # admissible and safe: 0 on goal states, the cheapest action cost elsewhere
        return 0 if not (goal_pos & ~state) and not (goal_neg & state) else cheapest
    return h


def _forbid(fn, task: Task, forbidden: int) -> Heuristic:
    return lambda s: fn(task, s, forbidden=forbidden)


HEURISTICS: dict[str, Callable[[Task, int], Heuristic]] = {
    "blind": lambda task, forbidden=0: _blind(task),
    "hmax": lambda task, forbidden=0: _forbid(h_max, task, forbidden),
    "hadd": lambda task, forbidden=0: h_add_of(task, forbidden),
    "ff": lambda task, forbidden=0: _forbid(h_ff, task, forbidden),
    "lmcut": lambda task, forbidden=0: lmcut_for(task),
}
"""Name -> factory ``(task, forbidden) -> state -> estimate``. ``lmcut`` ignores
``forbidden`` (it stays admissible, only weaker)."""

ADMISSIBLE = frozenset({"blind", "hmax", "lmcut"})


def choose_heuristic(task: Task) -> str:
    """LM-cut when the task allows it, otherwise h_max (see the module docstring)."""
    if task.has_conditional_effects or task.has_axioms:
        return "hmax"
    return "lmcut"


def _plan(parent: dict, state: int) -> tuple[GroundAction, ...]:
    steps = []
    while True:
        entry = parent[state]
        if entry is None:
            break
        state, action = entry
        steps.append(action)
    steps.reverse()
    return tuple(steps)


def best_first(task: Task, *, state: int | None = None, heuristic: str | Heuristic | None = None,
               greedy: bool = False, forbidden: int = 0, time_limit: float | None = None,
               node_limit: int | None = None, budget: Budget | None = None,
               cost_bound: float | None = None) -> SearchOutcome:
    """A* (``greedy=False``) or greedy best-first search (``greedy=True``, ordered by h, then
    g) from ``state`` (default: the initial state).

    ``cost_bound`` (A* with an admissible heuristic) prunes every node whose f-value exceeds
    it: the search then finds an optimal plan if one costs at most the bound and otherwise
    ends ``UNSOLVABLE`` with reason ``"no plan within the cost bound"``, having expanded only
    nodes with f <= bound (never more than the unbounded search)."""
    t0 = time.perf_counter()
    budget = Budget.of(budget, time_limit=time_limit)
    start = task.init if state is None else state
    if heuristic is None:
        heuristic = choose_heuristic(task)
    name = heuristic if isinstance(heuristic, str) else getattr(heuristic, "__name__", "custom")
    h = HEURISTICS[heuristic](task, forbidden) if isinstance(heuristic, str) else heuristic
    counts = [0, 0]                                    # expanded, generated

    def outcome(status, actions=None, cost=None, reason=""):
        return SearchOutcome(status, actions, cost, counts[0], counts[1],
                             time.perf_counter() - t0, reason, name)

    if start & forbidden:
        return outcome(Status.UNSOLVABLE, reason="start state has a forbidden fact")
    budget.phase(STATE_BYTES + len(task.facts) // 8)
    try:
        h0 = h(start)
        if h0 == INF:
            return outcome(Status.UNSOLVABLE, reason="relaxed unreachable")
        bound = INF if cost_bound is None else cost_bound + _BOUND_SLACK
        if h0 > bound:
            return outcome(Status.UNSOLVABLE, reason=OVER_BOUND)
        return _search(task, start, h, h0, greedy, forbidden, node_limit, budget, counts,
                       outcome, bound)
    except LimitReached as err:
        return outcome(Status.UNKNOWN, reason=err.limit)


_BOUND_SLACK = 1e-9      # float costs: a plan of exactly the bound must not be pruned
OVER_BOUND = "no plan within the cost bound"


def _search(task, start, h, h0, greedy, forbidden, node_limit, budget, counts, outcome,
            bound=INF):
    """The open-list loop of ``best_first``; ``counts`` receives expansions and generations
    (written before an outcome is built, so a solved outcome reports them too)."""
    best_g: dict[int, float] = {start: 0}
    parent: dict[int, tuple | None] = {start: None}
    hcache: dict[int, float] = {start: h0}
    counter = expanded = generated = 0
    heap = [((h0, 0) if greedy else (h0, h0), 0, 0, start)]
    pop, push = heapq.heappop, heapq.heappush
    is_goal, applicable, progress = task.is_goal, task.applicable, task.progress
    check, tick = budget.check, budget.tick
    try:
        while heap:
            _, _, g, s = pop(heap)
            if g > best_g[s]:
                continue
            if is_goal(s):
                counts[0], counts[1] = expanded, generated
                return outcome(Status.SOLVED, _plan(parent, s), g)
            expanded += 1
            check()
            if node_limit is not None and expanded > node_limit:
                counts[0], counts[1] = expanded, generated
                return outcome(Status.UNKNOWN, reason="node limit")
            for a in applicable(s):
                t = progress(s, a)
                if t & forbidden:
                    continue
                ng = g + a.cost
                old = best_g.get(t)
                if old is not None and old <= ng:
                    continue
                generated += 1
                ht = hcache.get(t)
                if ht is None:
                    check()
                    ht = h(t)
                    hcache[t] = ht
                    tick()
                if ht == INF or ng + ht > bound:
                    continue
                best_g[t] = ng
                parent[t] = (s, a)
                counter += 1
                push(heap, ((ht, ng) if greedy else (ng + ht, ht), counter, ng, t))
        counts[0], counts[1] = expanded, generated
        return outcome(Status.UNSOLVABLE,
                       reason="search exhausted" if bound == INF else OVER_BOUND)
    finally:
        counts[0], counts[1] = expanded, generated


def astar(task: Task, *, state: int | None = None, heuristic: str | Heuristic | None = None,
          forbidden: int = 0, time_limit: float | None = None,
          node_limit: int | None = None, budget: Budget | None = None,
          cost_bound: float | None = None) -> SearchOutcome:
    """Optimal A* search; the heuristic must be admissible (``ADMISSIBLE`` or your own).
    With ``cost_bound``: an optimal plan if one costs at most the bound, else UNSOLVABLE."""
    return best_first(task, state=state, heuristic=heuristic, forbidden=forbidden,
                      time_limit=time_limit, node_limit=node_limit, budget=budget,
                      cost_bound=cost_bound)


def greedy(task: Task, *, state: int | None = None, heuristic: str | Heuristic = "ff",
           forbidden: int = 0, time_limit: float | None = None,
           node_limit: int | None = None, budget: Budget | None = None) -> SearchOutcome:
    """Greedy best-first search (h_FF by default): fast, complete, not optimal."""
    return best_first(task, state=state, heuristic=heuristic, greedy=True, forbidden=forbidden,
                      time_limit=time_limit, node_limit=node_limit, budget=budget)
