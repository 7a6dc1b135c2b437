"""h*: the optimal plan cost from a state, cached, in-process or by Fast Downward.

Scorers ask for h* of many states of few tasks (ACPBench Hard's ``nexta`` compares the h*
of a state with that of its successors), and the answer never changes, so results are cached
per (task identity, state) in a bounded LRU. The cache holds the task object itself, so an
``id`` cannot be reused by another task while its entries live.

Engine choice (``engine="auto"``) follows the measurements in ``benchmarks/results/hstar.md``:
in-process A* first, for at most ``INTERNAL_BUDGET_S`` seconds on tasks of at most
``INTERNAL_MAX_ACTIONS`` actions (a Fast Downward subprocess costs ~0.35 s before it starts
searching, and most ACPBench states are solved in-process well within that); when that
search hits its budget, Fast Downward gets the rest of the time limit on the ground task
printed as PDDL (``ground_pddl.py``).

The answer is a number, ``math.inf`` when no plan exists (proved), or ``None`` when the
limit ran out: a scorer must treat ``None`` as unknown, never as a value.
"""
from __future__ import annotations

import math
import time
from collections import OrderedDict

from planning_core.errors import UnsupportedFeature
from planning_core.ground.task import Task
from planning_core.result import Status
from planning_core.search.astar import astar

INTERNAL_MAX_ACTIONS = 3000
INTERNAL_BUDGET_S = 1.0
CACHE_SIZE = 100_000

_cache: OrderedDict = OrderedDict()


def clear_cache() -> None:
    _cache.clear()


def _answer(status: Status, cost: float | None) -> float | None:
    if status is Status.SOLVED:
        return cost
    if status is Status.UNSOLVABLE:
        return math.inf
    return None


def h_star(task: Task, state: int | None = None, *, time_limit: float = 30.0,
           engine: str = "auto", cpu_budget: bool = False) -> float | None:
    """Optimal cost from ``state`` (default: initial state); see the module docstring.
    ``engine`` is ``"auto"``, ``"internal"`` or ``"fd"``. Unknown answers are not cached.
    With ``cpu_budget`` Fast Downward's limit is CPU time too (its wall-clock kill only a
    generous guard), so whether the answer is known does not depend on machine load."""
    s = task.init if state is None else state
    key = (id(task), s)
    hit = _cache.get(key)
    if hit is not None and hit[0] is task:
        _cache.move_to_end(key)
        return hit[1]
    value = _compute(task, s, time_limit, engine, cpu_budget)
    if value is not None:
        _cache[key] = (task, value)
        if len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return value


def _compute(task: Task, s: int, time_limit: float, engine: str,
             cpu_budget: bool = False) -> float | None:
    t0 = time.perf_counter()
    if engine != "fd" and (engine == "internal" or len(task.actions) <= INTERNAL_MAX_ACTIONS):
        budget = time_limit if engine == "internal" else min(time_limit, INTERNAL_BUDGET_S)
        out = astar(task, state=s, time_limit=budget)
        value = _answer(out.status, out.cost)
        if value is not None or engine == "internal":
            return value
    remaining = time_limit - (time.perf_counter() - t0)
    if remaining <= 0.05:
        return None
    from planning_core.search.ground_pddl import solve_ground
    try:
        res = solve_ground(task, s, optimal=True, time_limit=remaining, cpu_budget=cpu_budget)
    except UnsupportedFeature:  # e.g. non-integer costs, which FD cannot take
        return None
    return _answer(res.status, res.cost)
