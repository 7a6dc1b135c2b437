"""The engine questions the scorers ask, as three calls over planning_core's public API.

* :func:`reach_condition` -- is a state satisfying ``pos`` (and none of ``neg``) reachable
  from ``state``? First a short greedy best-first search with h_FF on the task with that
  goal (``GREEDY_NODES`` expansions): reachable conditions are usually found in a few
  steps. Then breadth-first search, which proves unreachability by exhausting the state
  space; it costs far less per state than computing h_FF, and proofs are what is left
  after the greedy phase (measured on the grid questions of the dev set: 60,052 states
  exhausted in about 2 s by BFS, not within 20 s by greedy search). h_FF's infinity is a
  relaxation proof of a dead end, so an exhausted greedy search is a proof too. Limits
  give ``UNKNOWN``.
* :func:`is_landmark` -- does every plan from ``state`` make the fact true? The exact
  test of Kokel et al. (ACPBench Hard, "Answer Evaluation"): the fact is a landmark iff the
  task with the fact forbidden (it may never become true) has no plan; planning_core's
  ``search.exact_landmarks.is_landmark`` (relaxation first, then search).
* :func:`h_star` -- the optimal plan cost from ``state`` (``math.inf`` for a dead end):
  ``search.hstar.h_star`` (in-process A*, Fast Downward past its budget; cached per state).

``None`` always means "a limit was hit": callers turn it into an unknown score.
"""
from __future__ import annotations

import dataclasses
import time

from planning_core.ground.task import Task
from planning_core.result import Status
from planning_core.search.astar import greedy
from planning_core.search.bfs import bfs
from planning_core.search.exact_landmarks import is_landmark as _engine_is_landmark
from planning_core.search.hstar import h_star as _engine_h_star

__all__ = ["GREEDY_NODES", "h_star", "is_landmark", "reach_condition", "with_goal"]

#: Seconds for a call without a time limit (the engine's functions need one).
DEFAULT_LIMIT = 30.0

#: Expansions of the greedy phase of :func:`reach_condition` before breadth-first search.
GREEDY_NODES = 2000


def with_goal(task: Task, pos: int, neg: int = 0) -> Task:
    """The same ground task with goal ``pos`` true and ``neg`` false (bitmasks)."""
    if task.goal_pos == pos and task.goal_neg == neg:
        return task
    return dataclasses.replace(task, goal_pos=pos, goal_neg=neg)


def reach_condition(task: Task, state: int, pos: int, neg: int = 0, *,
                    time_limit: float | None = None) -> Status:
    """``SOLVED`` when some state reachable from ``state`` has ``pos`` and none of ``neg``."""
    if not (pos & ~state) and not (neg & state):
        return Status.SOLVED
    t0 = time.perf_counter()
    goal_task = with_goal(task, pos, neg)
    outcome = greedy(goal_task, state=state, heuristic="ff", time_limit=time_limit,
                     node_limit=GREEDY_NODES)
    if outcome.status is not Status.UNKNOWN:
        return outcome.status
    left = None if time_limit is None else time_limit - (time.perf_counter() - t0)
    if left is not None and left <= 0:
        return Status.UNKNOWN
    return bfs(goal_task, state=state, time_limit=left).status


def is_landmark(task: Task, fact: int, state: int, *,
                time_limit: float | None = None) -> bool | None:
    """Whether fact ``fact`` (an id of ``task.facts``) holds on every plan from ``state``;
    None at the limit. A fact true in ``state`` is trivially a landmark: callers exclude
    those first."""
    return _engine_is_landmark(task, task.facts.atom(fact), state=state,
                               time_limit=DEFAULT_LIMIT if time_limit is None else time_limit)


def h_star(task: Task, state: int, *, time_limit: float | None = None) -> float | None:
    """Optimal cost from ``state``; ``math.inf`` when no plan exists; None on a limit."""
    return _engine_h_star(task, state,
                          time_limit=DEFAULT_LIMIT if time_limit is None else time_limit)
