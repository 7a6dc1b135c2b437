"""Breadth-first search: shortest plans by number of steps, and exhaustive exploration.

Breadth-first search with duplicate detection on int states and the goal test at generation
(Russell & Norvig, ch. 3) finds a plan with the fewest actions, which is an optimal plan for
unit-cost tasks. It needs no heuristic, so it serves as the independent oracle that tests of
A* and of the landmark test compare against, and ``reachable_states`` enumerates a small
state space outright.

``forbidden`` prunes successors in which a fact of the mask holds, as in ``astar.py``.
Limits (``time_limit`` in CPU seconds, or a shared ``budget``: ``planning_core.limits``)
give ``UNKNOWN``; an exhausted search proves ``UNSOLVABLE``.
"""
from __future__ import annotations

import time
from collections import deque

from planning_core.ground.task import Task
from planning_core.limits import Budget, LimitReached
from planning_core.result import Status
from planning_core.search.astar import STATE_BYTES, SearchOutcome, _plan

CHECK_EVERY = 512


def bfs(task: Task, *, state: int | None = None, forbidden: int = 0,
        time_limit: float | None = None, node_limit: int | None = None,
        budget: Budget | None = None) -> SearchOutcome:
    """Breadth-first search from ``state`` (default: initial state)."""
    t0 = time.perf_counter()
    start = task.init if state is None else state
    budget = Budget.of(budget, time_limit=time_limit)
    budget.phase(STATE_BYTES + len(task.facts) // 8)
    tick = budget.tick
    expanded = generated = 0

    def outcome(status, actions=None, reason=""):
        cost = None if actions is None else sum(a.cost for a in actions)
        return SearchOutcome(status, actions, cost, expanded, generated,
                             time.perf_counter() - t0, reason, "bfs")

    if start & forbidden:
        return outcome(Status.UNSOLVABLE, reason="start state has a forbidden fact")
    if task.is_goal(start):
        return outcome(Status.SOLVED, ())
    parent: dict[int, tuple | None] = {start: None}
    queue = deque([start])
    is_goal, applicable, progress = task.is_goal, task.applicable, task.progress
    while queue:
        s = queue.popleft()
        expanded += 1
        if expanded % CHECK_EVERY == 0:
            err = budget.exceeded(rss=False)
            if err is not None:
                return outcome(Status.UNKNOWN, reason=err.limit)
        if node_limit is not None and expanded > node_limit:
            return outcome(Status.UNKNOWN, reason="node limit")
        for a in applicable(s):
            t = progress(s, a)
            if t in parent or t & forbidden:
                continue
            generated += 1
            parent[t] = (s, a)
            try:
                tick()
            except LimitReached as err:
                return outcome(Status.UNKNOWN, reason=err.limit)
            if is_goal(t):
                return outcome(Status.SOLVED, _plan(parent, t))
            queue.append(t)
    return outcome(Status.UNSOLVABLE, reason="search exhausted")


def reachable_states(task: Task, *, state: int | None = None, limit: int = 1_000_000) -> frozenset[int]:
    """Every state reachable from ``state``; raises ``OverflowError`` past ``limit`` states."""
    start = task.init if state is None else state
    seen = {start}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        for a in task.applicable(s):
            t = task.progress(s, a)
            if t not in seen:
                seen.add(t)
                if len(seen) > limit:
                    raise OverflowError(f"more than {limit} reachable states")
                queue.append(t)
    return frozenset(seen)
