"""A ground tool task split into independent parts, each solved on its own.

A request over several services (a trip booked with the travel tools, a report filed with
the office tools) grounds to one task whose parts share no fact: no call of one part reads
or writes a fact of another. Its states are then the product of the parts' states, a plan is
any interleaving of plans of the parts, and the optimal cost (h*, from any state) is the sum
of the parts' optimal costs. Searching the product directly interleaves the parts' calls in
every order: with an inexact heuristic, A* on a 20-call request over three services
expanded ~10^3-10^5 states where each part alone needs a few dozen. So the feasibility
analysis and the step-wise h* search each part and add up (exact, not an estimate).

Parts are the connected components of the facts, two facts joined when one action (or one
of its conditional effects) mentions both; a part without a goal fact is left out (its
calls serve nothing). A task with axioms is not split (derived facts join parts in ways
the components do not see).
"""
from __future__ import annotations

import math
import time
from collections import OrderedDict

from planning_core.ground.facts import bits
from planning_core.ground.task import Task

__all__ = ["parts", "split_h_star"]

_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 512


def _find(parent: dict, x: int) -> int:
    while parent.setdefault(x, x) != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def parts(task: Task) -> tuple[Task, ...] | None:
    """The independent parts of ``task`` that hold a goal fact, each a :class:`Task` over the
    same facts with its own actions and goal; ``None`` when the task is one part (or has
    axioms). Cached per task object."""
    hit = _CACHE.get(id(task))
    if hit is not None and hit[0] is task:
        return hit[1]
    out = _split(task)
    _CACHE[id(task)] = (task, out)
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return out


def _split(task: Task) -> tuple[Task, ...] | None:
    if task.axioms:
        return None
    parent: dict[int, int] = {}
    owner: list[int | None] = []
    for a in task.actions:
        ids = list(a.pre_pos_ids) + list(a.pre_neg_ids) + list(a.add_ids) + list(a.delete_ids)
        for ce in a.cond_effects:
            ids += bits(ce.cond_pos | ce.cond_neg | ce.add | ce.delete)
        if not ids:
            owner.append(None)
            continue
        root = _find(parent, ids[0])
        for f in ids[1:]:
            r = _find(parent, f)
            if r != root:
                parent[r] = root
        owner.append(ids[0])
    goal_ids = bits(task.goal_pos | task.goal_neg)
    groups: dict[int, int] = {}
    for f in goal_ids:
        r = _find(parent, f)
        groups[r] = groups.get(r, 0) | (1 << f)
    if len(groups) < 2:
        return None
    acts: dict[int, list] = {r: [] for r in groups}
    for a, f in zip(task.actions, owner):
        if f is not None:
            r = _find(parent, f)
            if r in acts:
                acts[r].append(a)
    return tuple(Task(task.facts, tuple(acts[r]), task.init, task.goal_pos & mask,
                      task.goal_neg & mask, static_atoms=task.static_atoms,
                      has_costs=task.has_costs, name=f"{task.name}#part{k + 1}")
                 for k, (r, mask) in enumerate(sorted(groups.items(), key=lambda kv: kv[1])))


def split_h_star(task: Task, state: int | None = None, *, time_limit: float = 30.0,
                 cpu_budget: bool = False) -> float | None:
    """h* of ``state`` (default: the initial state): the sum of the parts' h* when the task
    splits (:func:`parts`), else :func:`planning_core.search.hstar.h_star` itself. ``None``
    when a part's search hits the limit (the parts share ``time_limit``, CPU time)."""
    from planning_core.search.hstar import h_star

    ps = parts(task)
    if ps is None:
        return h_star(task, state, time_limit=time_limit, cpu_budget=cpu_budget)
    s = task.init if state is None else state
    total, t0 = 0.0, time.thread_time()
    for p in ps:
        left = time_limit - (time.thread_time() - t0)
        if left <= 0:
            return None
        h = h_star(p, s, time_limit=left, cpu_budget=cpu_budget)
        if h is None:
            return None
        if math.isinf(h):
            return math.inf
        total += h
    return total


def split_plan(task: Task, *, time_limit: float = 60.0, budget=None):
    """An optimal plan of a task that splits: (status, plan steps, cost, reason), the parts'
    optimal plans one after the other; ``None`` when the task does not split."""
    from planning_core.result import Status
    from planning_core.search.astar import astar

    ps = parts(task)
    if ps is None:
        return None
    steps: list[str] = []
    cost, t0 = 0.0, time.thread_time()
    for p in ps:
        left = time_limit - (time.thread_time() - t0)
        if left <= 0:
            return Status.UNKNOWN, None, None, "time limit"
        out = astar(p, time_limit=left, budget=budget)
        if out.status is not Status.SOLVED:
            return out.status, None, None, out.reason
        steps += [str(a).lower() for a in out.plan]
        cost += out.cost
    return Status.SOLVED, tuple(steps), cost, ""
