"""Delete relaxation: relaxed reachability, h_max, h_add and h_FF with action costs.

The delete relaxation (Bonet & Geffner 2001) drops deletes and negative conditions, so a
fact once reached stays reached and the cheapest way to reach a set of facts decomposes over
facts. Everything here runs on one precompiled structure per task (``RelaxedTask``):

* every ground action becomes one relaxed operator ``pre_pos -> add``; each conditional
  effect becomes an extra operator ``pre_pos + cond_pos -> ce.add`` with the action's cost
  (the usual compilation, as in Fast Downward's relaxation heuristics);
* every axiom becomes a zero-cost operator ``body_pos -> head`` (negated bodies are ignored,
  which over-approximates derived facts and keeps the relaxation sound);
* negative preconditions and negative goals are ignored.

Costs are computed with the generalised Dijkstra algorithm of Knuth (1977) as used for h_max
and h_add by Bonet & Geffner: each operator keeps a counter of unreached preconditions and
fires when it drops to zero, and facts leave a binary heap in cost order. The per-state work
is linear in the size of the task plus the heap operations; the per-task tables are built
once and cached (``relaxed_task``).

``h_ff`` extracts a relaxed plan from h_add best supporters (Keyder & Geffner 2008, the
variant Fast Downward implements) instead of the Graphplan layers of Hoffmann & Nebel (2001);
its value is the cost of the distinct actions in the relaxed plan.

Exclusion (``forbidden``): reachability *without the achievers of some facts* is what the
landmark analysis (Richter, Helmert & Westphal 2008) and the landmark test need. An action
whose unconditional effect adds a forbidden fact is removed with all its operators; a
conditional effect that adds a forbidden fact is removed alone (the action may still be
applied with that condition false). The result over-approximates what a real plan that
never makes a forbidden fact true can reach.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Callable, Sequence

from planning_core.ground.facts import GroundAction, bits
from planning_core.ground.task import Task
from planning_core.pddl.identity_cache import IdentityCache

INF = math.inf


class RelaxedTask:
    """Per-task tables for relaxed exploration (built once, reused for every state)."""

    __slots__ = ("task", "n_facts", "op_pre", "op_npre", "op_add", "op_addmask",
                 "op_killmask", "op_cost", "op_action", "pre_of", "free_ops", "goal_ids",
                 "goal_mask", "n_ops", "op_base", "_excluded", "_hadd_start")

    def __init__(self, task: Task) -> None:
        self.task = task
        self.n_facts = len(task.facts)
        op_pre: list[tuple[int, ...]] = []
        op_add: list[tuple[int, ...]] = []
        op_addmask: list[int] = []
        op_killmask: list[int] = []
        op_cost: list[float] = []
        op_action: list[int] = []
        op_base: list[bool] = []
        for k, a in enumerate(task.actions):
            base_pre = a.pre_pos_ids
            op_pre.append(base_pre)
            op_add.append(a.add_ids)
            op_addmask.append(a.add)
            op_killmask.append(a.add)
            op_cost.append(a.cost)
            op_action.append(k)
            op_base.append(True)
            for ce in a.cond_effects:
                pre = tuple(sorted(set(base_pre) | set(bits(ce.cond_pos))))
                op_pre.append(pre)
                op_add.append(bits(ce.add))
                op_addmask.append(ce.add)
                op_killmask.append(a.add | ce.add)
                op_cost.append(a.cost)
                op_action.append(k)
                op_base.append(False)
        for ax in task.axioms:
            op_pre.append(tuple(ax.body_pos_ids))
            op_add.append((ax.head,))
            op_addmask.append(1 << ax.head)
            op_killmask.append(1 << ax.head)
            op_cost.append(0)
            op_action.append(-1)
            op_base.append(False)
        pre_of: list[list[int]] = [[] for _ in range(self.n_facts)]
        free = []
        for o, pre in enumerate(op_pre):
            if pre:
                for f in pre:
                    pre_of[f].append(o)
            else:
                free.append(o)
        self.op_pre = tuple(op_pre)
        self.op_npre = tuple(len(p) for p in op_pre)
        self.op_add = tuple(op_add)
        self.op_addmask = tuple(op_addmask)
        self.op_killmask = tuple(op_killmask)
        self.op_cost = tuple(op_cost)
        self.op_action = tuple(op_action)
        self.op_base = tuple(op_base)
        self.pre_of = tuple(tuple(x) for x in pre_of)
        self.free_ops = tuple(free)
        self.goal_ids = bits(task.goal_pos)
        self.goal_mask = task.goal_pos
        self.n_ops = len(op_pre)
        self._excluded: dict[int, frozenset[int]] = {}
        self._hadd_start: dict[int, tuple[list[int], tuple[int, ...]]] = {}

    def excluded_ops(self, forbidden: int) -> frozenset[int]:
        """Operators removed when no fact of ``forbidden`` may ever be added (kept per mask:
        a search with a forbidden fact asks once per evaluated state)."""
        if not forbidden:
            return frozenset()
        found = self._excluded.get(forbidden)
        if found is None:
            if len(self._excluded) >= 256:
                self._excluded.clear()
            found = self._excluded[forbidden] = frozenset(
                o for o, m in enumerate(self.op_killmask) if m & forbidden)
        return found


_CACHE: IdentityCache[RelaxedTask] = IdentityCache(64)


def relaxed_task(task: Task) -> RelaxedTask:
    """The cached ``RelaxedTask`` of ``task`` (keyed by identity)."""
    return _CACHE.get(RelaxedTask, task)


# --------------------------------------------------------------------- reachability

@dataclass(frozen=True, slots=True)
class Reachability:
    """Facts (bitmask) and ground actions (indices into ``task.actions``) that the delete
    relaxation reaches from a state."""

    facts: int
    actions: tuple[int, ...]

    def reaches(self, mask: int) -> bool:
        return not (mask & ~self.facts)


def reachable(task: Task, state: int | None = None, *, forbidden: int = 0) -> Reachability:
    """Relaxed reachability from ``state`` (default: the initial state), optionally never
    adding a fact of ``forbidden`` (see the module docstring)."""
    rt = relaxed_task(task)
    state = task.init if state is None else state
    excluded = rt.excluded_ops(forbidden)
    facts, fired = _explore(rt, state, excluded)
    base = rt.op_base
    acts = sorted(rt.op_action[o] for o in fired if base[o])
    return Reachability(facts, tuple(acts))


def _explore(rt: RelaxedTask, state: int, excluded: frozenset[int] | set[int] = frozenset(),
             stop_mask: int = 0) -> tuple[int, list[int]]:
    """Counter-based fixpoint; returns (reached facts mask, fired operators). With
    ``stop_mask``, stops as soon as all of it is reached."""
    unsat = list(rt.op_npre)
    reached = state
    queue = list(bits(state))
    fired: list[int] = []
    op_add, pre_of, addmask = rt.op_add, rt.pre_of, rt.op_addmask

    def fire(o: int) -> None:
        nonlocal reached
        fired.append(o)
        new = addmask[o] & ~reached
        if new:
            reached |= new
            queue.extend(f for f in op_add[o] if new >> f & 1)

    for o in rt.free_ops:
        if o not in excluded:
            fire(o)
    while queue:
        if stop_mask and not (stop_mask & ~reached):
            break
        f = queue.pop()
        for o in pre_of[f]:
            u = unsat[o] - 1
            unsat[o] = u
            if u == 0 and o not in excluded:
                fire(o)
    return reached, fired


# ------------------------------------------------------------------ cost heuristics

def _dijkstra(rt: RelaxedTask, state: int, use_max: bool, goal_ids: Sequence[int],
              excluded: frozenset[int] = frozenset(), want_supporters: bool = False):
    """Generalised Dijkstra; returns (fact costs, supporters or None, firing order or None).

    Stops once every goal fact has left the heap (their costs are then final). The firing
    order numbers operators in the order their last precondition left the heap, which is an
    order in which a relaxed plan built from supporters is executable."""
    n = rt.n_facts
    cost = [INF] * n
    supp = [-1] * n if want_supporters else None
    order = [-1] * rt.n_ops if want_supporters else None
    tick = 0
    unsat = list(rt.op_npre)
    opval = [0] * rt.n_ops
    op_pre_of, op_add, op_cost = rt.pre_of, rt.op_add, rt.op_cost
    heap: list[tuple[float, int]] = []
    push, pop = heapq.heappush, heapq.heappop
    for f in bits(state):
        cost[f] = 0
        heap.append((0, f))
    for o in rt.free_ops:
        if o in excluded:
            continue
        if order is not None:
            order[o] = tick
            tick += 1
        c = op_cost[o]
        for g in op_add[o]:
            if c < cost[g]:
                cost[g] = c
                if supp is not None:
                    supp[g] = o
                heap.append((c, g))
    heapq.heapify(heap)
    goal_left = set(goal_ids)
    remaining = len(goal_left) if goal_left else -1
    done = [False] * n
    while heap:
        c, f = pop(heap)
        if done[f]:
            continue
        done[f] = True
        if f in goal_left:
            goal_left.discard(f)
            remaining -= 1
            if remaining == 0:
                break
        for o in op_pre_of[f]:
            u = unsat[o] - 1
            unsat[o] = u
            if use_max:
                if u:
                    continue
                v = c  # popped in cost order: the last precondition has the max cost
            else:
                v = opval[o] + c
                if u:
                    opval[o] = v
                    continue
            if excluded and o in excluded:
                continue
            if order is not None:
                order[o] = tick
                tick += 1
            nc = v + op_cost[o]
            for g in op_add[o]:
                if nc < cost[g]:
                    cost[g] = nc
                    if supp is not None:
                        supp[g] = o
                    push(heap, (nc, g))
    return cost, supp, order


def h_max(task: Task, state: int | None = None, *, forbidden: int = 0) -> float:
    """h_max (Bonet & Geffner 2001): the costliest goal fact under max-propagation.
    Admissible; ``math.inf`` when the goal is relaxed-unreachable."""
    rt = relaxed_task(task)
    state = task.init if state is None else state
    cost, _, _ = _dijkstra(rt, state, True, rt.goal_ids, rt.excluded_ops(forbidden))
    return max((cost[g] for g in rt.goal_ids), default=0)


def h_add(task: Task, state: int | None = None, *, forbidden: int = 0) -> float:
    """h_add (Bonet & Geffner 2001): the sum of goal fact costs under sum-propagation.
    Informative but not admissible."""
    rt = relaxed_task(task)
    return _h_add(rt, task.init if state is None else state, _hadd_start(rt, forbidden))


def h_add_of(task: Task, forbidden: int = 0) -> Callable[[int], float]:
    """``state -> h_add(task, state, forbidden=forbidden)`` with the per-task tables looked
    up once (a search evaluates thousands of states of one task)."""
    rt = relaxed_task(task)
    start = _hadd_start(rt, forbidden)
    return lambda state: _h_add(rt, state, start)


def _hadd_start(rt: RelaxedTask, forbidden: int) -> tuple[list[int], tuple[int, ...]]:
    """The unreached-precondition counters an h_add computation starts from, an excluded
    operator's set so high that it never fires, and the precondition-free operators that
    are not excluded (kept per mask, as ``excluded_ops``)."""
    found = rt._hadd_start.get(forbidden)
    if found is None:
        excluded = rt.excluded_ops(forbidden)
        unsat = list(rt.op_npre)
        never = rt.n_facts + 1            # more than any operator's preconditions
        for o in excluded:
            unsat[o] = never
        if len(rt._hadd_start) >= 256:
            rt._hadd_start.clear()
        found = rt._hadd_start[forbidden] = (
            unsat, tuple(o for o in rt.free_ops if o not in excluded))
    return found


def _h_add(rt: RelaxedTask, state: int, start: tuple[list[int], tuple[int, ...]]) -> float:
    """h_add of ``state``: ``_dijkstra(rt, state, False, rt.goal_ids, excluded)`` summed
    over the goal, specialised. The same heap entries are pushed and popped in the same
    order, so every fact cost and the sum are the same numbers (also with fractional
    costs); what is saved is per-state overhead: no supporter, order or ``done`` tables (a
    popped entry costlier than its fact's cost is stale, and two entries of one fact never
    share a cost, since a push needs a strictly lower one), excluded operators never fire
    because their counters start too high, and goal facts are counted down by a flag."""
    goal_ids = rt.goal_ids
    if not goal_ids:
        return 0
    unsat0, free = start
    cost = [INF] * rt.n_facts
    unsat = unsat0[:]
    opval = [0] * rt.n_ops
    op_pre_of, op_add, op_cost = rt.pre_of, rt.op_add, rt.op_cost
    heap: list[tuple[float, int]] = []
    for f in bits(state):
        cost[f] = 0
        heap.append((0, f))
    for o in free:
        c = op_cost[o]
        for g in op_add[o]:
            if c < cost[g]:
                cost[g] = c
                heap.append((c, g))
    heapq.heapify(heap)
    pop, push = heapq.heappop, heapq.heappush
    goal_mask = rt.goal_mask
    remaining = len(goal_ids)
    while heap:
        c, f = pop(heap)
        if c > cost[f]:
            continue
        if goal_mask >> f & 1:
            remaining -= 1
            if remaining == 0:
                break
        for o in op_pre_of[f]:
            u = unsat[o] - 1
            unsat[o] = u
            v = opval[o] + c
            if u:
                opval[o] = v
                continue
            nc = v + op_cost[o]
            for g in op_add[o]:
                if nc < cost[g]:
                    cost[g] = nc
                    push(heap, (nc, g))
    return sum(cost[g] for g in goal_ids)


def fact_costs(task: Task, state: int | None = None, *, use_max: bool = True) -> tuple[float, ...]:
    """h_max (or h_add) cost of every fact from ``state`` (``math.inf`` if unreachable)."""
    rt = relaxed_task(task)
    state = task.init if state is None else state
    cost, _, _ = _dijkstra(rt, state, use_max, ())
    return tuple(cost)


@dataclass(frozen=True, slots=True)
class RelaxedPlan:
    """An h_FF relaxed plan: distinct actions in an order that is executable under the
    delete relaxation, and its cost (the h_FF value). ``value`` is ``math.inf`` and
    ``actions`` empty when the goal is relaxed-unreachable."""

    value: float
    actions: tuple[GroundAction, ...]


def relaxed_plan(task: Task, state: int | None = None, *, forbidden: int = 0) -> RelaxedPlan:
    """FF's relaxed plan (Hoffmann & Nebel 2001) with h_add best supporters."""
    rt = relaxed_task(task)
    state = task.init if state is None else state
    cost, supp, order = _dijkstra(rt, state, False, rt.goal_ids, rt.excluded_ops(forbidden),
                           want_supporters=True)
    if any(cost[g] == INF for g in rt.goal_ids):
        return RelaxedPlan(INF, ())
    chosen_ops: set[int] = set()
    marked = 0
    stack = [g for g in rt.goal_ids if not state >> g & 1]
    while stack:
        f = stack.pop()
        if marked >> f & 1:
            continue
        marked |= 1 << f
        o = supp[f]
        if o < 0 or o in chosen_ops:
            continue
        chosen_ops.add(o)
        for p in rt.op_pre[o]:
            if not state >> p & 1 and not marked >> p & 1:
                stack.append(p)
    seen: set[int] = set()
    acts: list[GroundAction] = []
    total = 0.0
    for o in sorted(chosen_ops, key=order.__getitem__):
        k = rt.op_action[o]
        if k < 0 or k in seen:
            continue
        seen.add(k)
        a = task.actions[k]
        acts.append(a)
        total += a.cost
    return RelaxedPlan(total, tuple(acts))


def h_ff(task: Task, state: int | None = None, *, forbidden: int = 0) -> float:
    """h_FF: the cost of a relaxed plan (not admissible; ``math.inf`` on dead ends)."""
    return relaxed_plan(task, state, forbidden=forbidden).value


def goal_relaxed_reachable(task: Task, state: int | None = None, *, forbidden: int = 0) -> bool:
    """Whether the positive goal survives the delete relaxation; False proves that no plan
    exists from ``state`` (that never adds a fact of ``forbidden``)."""
    rt = relaxed_task(task)
    state = task.init if state is None else state
    excluded = rt.excluded_ops(forbidden)
    facts, _ = _explore(rt, state, excluded, stop_mask=rt.goal_mask)
    return not (rt.goal_mask & ~facts)
