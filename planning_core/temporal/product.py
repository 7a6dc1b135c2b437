"""Planning for "goal and LTLf formula" by search in the product of the task and progression.

A node is a pair (state, progressed formula): the formula that the rest of the trace must
satisfy from that state on (Bacchus & Kabanza 2000, who prune a forward search with it).
Applying action ``a`` in ``s`` progresses the formula through the position (``s``, ``a``)
and moves to ``progress(s, a)``; a node is a goal when the task's goal holds and the formula
holds at the last position (``Monitor.final``). Progressed formulas are canonical ints
(:mod:`.progression`), so duplicate detection works on the pair, and the product is finite,
so every search here is complete: an exhausted open list proves ``UNSOLVABLE``.

Pruning by relaxed reachability. The task part of a node must still reach the goal under the
delete relaxation (Bonet & Geffner 2001), restricted by what each clause of the progressed
formula settles for the whole future: an obligation ``G !p`` forbids every achiever of ``p``
(``forbidden`` in :mod:`planning_core.heuristics.relaxed`), ``G !@(a)`` removes the actions
matching ``a``, and ``F p`` or ``f U p`` adds ``p`` to the facts that must be reached. The
relaxation over-approximates what any real continuation can do, so a node whose every clause
is relaxed-unreachable is a dead end: pruning it keeps ``UNSOLVABLE`` a proof.

Searches (``SEARCHES``):

* ``bfs``: breadth-first, goal test at generation: fewest actions; no heuristic, only the
  pruning above (the blind search the issue asks for);
* ``astar``: A* with h_max of the restricted task (admissible), so optimal for action costs;
* ``greedy``: lazy greedy best-first on h_FF of the restricted task (Hoffmann & Nebel
  2001) with FF's helpful actions as preferred operators (Richter & Helmert 2009): the
  fastest way to *a* plan; ties go to the older entry.

Limits (``time_limit`` in CPU seconds, or a caller's :class:`~planning_core.limits.Budget`
with its memory limit; ``node_limit`` expansions) give ``UNKNOWN``. The budget is checked
at every expansion, for every clause the pruner evaluates, and inside the progression's DNF
algebra (:mod:`.progression`), where one step can blow up exponentially.
"""
from __future__ import annotations

import heapq
import math
import time
from collections import deque

from planning_core.ground.task import Task
from planning_core.heuristics.relaxed import goal_relaxed_reachable, h_max, relaxed_plan
from planning_core.limits import Budget, LimitReached, Limits
from planning_core.result import SolveResult, Status
from planning_core.temporal import ltl
from planning_core.temporal.progression import (ACT, ALWAYS, AND, EVENTUALLY, FACT, UNTIL,
                                                Alphabet, Monitor)

__all__ = ["SEARCHES", "ENGINE", "plan_ltl", "monitor_for"]

SEARCHES = ("greedy", "astar", "bfs")
ENGINE = "ltl-product"
INF = math.inf
CHECK_EVERY = 256
MAX_PROFILES = 32


def monitor_for(task: Task, formula: ltl.Formula, budget: Budget | None = None) -> Monitor:
    """The progression monitor of ``formula`` over ``task``'s facts, statics and actions
    (its compilation ticks ``budget`` too)."""
    return Monitor(formula, Alphabet.of_task(task), budget)


def _subtask(task: Task, actions: tuple, goal_pos: int) -> Task:
    """``task`` with fewer actions and more goal facts (for relaxed analysis only)."""
    return Task(facts=task.facts, actions=actions, init=task.init, goal_pos=goal_pos,
                goal_neg=task.goal_neg, axioms=task.axioms, static_atoms=task.static_atoms,
                has_costs=task.has_costs, name=task.name, derived=task.derived)


class _Pruner:
    """Relaxed-reachability tests and heuristic values of product nodes, per clause profile
    (forbidden facts, forbidden action patterns, facts still needed)."""

    def __init__(self, task: Task, monitor: Monitor, heuristic: str | None,
                 budget: Budget | None = None) -> None:
        self.task, self.monitor, self.heuristic = task, monitor, heuristic
        self.budget = budget
        self._profiles: dict[frozenset, tuple[int, int, int]] = {}
        self._tasks: dict[tuple[int, int], Task] = {(0, 0): task}
        self._values: dict[tuple, float] = {}

    def _literals(self, n: int) -> list[tuple]:
        node = self.monitor.nodes[n]
        if node[0] in (FACT, ACT):
            return [node]
        if node[0] == AND:
            return [self.monitor.nodes[c] for c in node[1]
                    if self.monitor.nodes[c][0] in (FACT, ACT)]
        return []

    def profile(self, clause: frozenset) -> tuple[int, int, int]:
        hit = self._profiles.get(clause)
        if hit is not None:
            return hit
        forbid_facts = forbid_labels = need = 0
        for n in clause:
            node = self.monitor.nodes[n]
            if node[0] == ALWAYS:
                for lit in self._literals(node[1]):
                    if not lit[2]:
                        if lit[0] == FACT:
                            forbid_facts |= 1 << lit[1]
                        else:
                            forbid_labels |= 1 << lit[1]
            elif node[0] in (EVENTUALLY, UNTIL):
                for lit in self._literals(node[-1]):
                    if lit[0] == FACT and lit[2]:
                        need |= 1 << lit[1]
        hit = self._profiles[clause] = (forbid_facts, forbid_labels, need)
        return hit

    def _task_for(self, forbid_labels: int, need: int) -> Task:
        key = (forbid_labels, need)
        hit = self._tasks.get(key)
        if hit is None:
            if len(self._tasks) >= MAX_PROFILES:
                return self.task  # weaker but still sound
            labels = self.monitor.labels
            actions = tuple(a for k, a in enumerate(self.task.actions)
                            if not labels[k] & forbid_labels)
            hit = self._tasks[key] = _subtask(self.task, actions, self.task.goal_pos | need)
        return hit

    def value(self, state: int, q: int) -> float:
        """min over the clauses of ``q`` of the heuristic (0 without one); ``inf`` when
        every clause is relaxed-unreachable (a proven dead end)."""
        return self.evaluate(state, q)[0]

    def evaluate(self, state: int, q: int) -> tuple[float, frozenset]:
        """(value, preferred actions): with h_FF, the ids of the applicable actions of the
        best clause's relaxed plan (FF's helpful actions, Hoffmann & Nebel 2001)."""
        best, preferred = INF, frozenset()
        budget = self.budget
        for clause in self.monitor.clauses(q):
            if budget is not None:
                budget.check()
            ff, fl, need = self.profile(clause)
            key = (state, ff, fl, need)
            hit = self._values.get(key)
            if hit is None:
                t = self._task_for(fl, need)
                if self.heuristic == "ff":
                    rp = relaxed_plan(t, state, forbidden=ff)
                    hit = (rp.value, frozenset(id(a) for a in rp.actions
                                               if a.applicable(state)))
                elif self.heuristic == "max":
                    hit = (h_max(t, state, forbidden=ff), frozenset())
                else:
                    reach = goal_relaxed_reachable(t, state, forbidden=ff)
                    hit = (0.0 if reach else INF, frozenset())
                if len(self._values) > 1_000_000:
                    self._values.clear()
                self._values[key] = hit
            if hit[0] < best:
                best, preferred = hit
            if best == 0:
                break
        return best, preferred


def _plan(parent: dict, key: tuple) -> tuple:
    steps = []
    while True:
        entry = parent[key]
        if entry is None:
            break
        key, action = entry
        steps.append(action)
    steps.reverse()
    return tuple(steps)


class _Run:
    """State shared by the searches: the task, monitor, pruner, limits and counters."""

    def __init__(self, task: Task, monitor: Monitor, pruner: _Pruner | None, search: str,
                 budget: Budget, node_limit: int | None) -> None:
        self.task, self.monitor, self.pruner, self.search = task, monitor, pruner, search
        self.t0 = time.perf_counter()
        self.budget = budget
        self.node_limit = node_limit
        self.label_of = {id(a): monitor.labels[k] for k, a in enumerate(task.actions)}
        self.counters = {"expanded": 0, "generated": 0, "pruned": 0}
        self.parent: dict[tuple, tuple | None] = {}

    def result(self, status: Status, key: tuple | None = None, reason: str = "") -> SolveResult:
        stats = dict(self.counters, search=self.search, formula_states=len(self.monitor.dnfs),
                     formula_nodes=len(self.monitor.nodes))
        actions = None if key is None else _plan(self.parent, key)
        plan = None if actions is None else tuple(str(a) for a in actions)
        cost = None if actions is None else sum(a.cost for a in actions)
        return SolveResult(status, plan, cost, ENGINE, time.perf_counter() - self.t0,
                           tuple(sorted(stats.items())), reason)

    def limit(self) -> SolveResult | None:
        """Count one expansion; the UNKNOWN result when a limit is hit."""
        n = self.counters["expanded"] = self.counters["expanded"] + 1
        found = self.budget.exceeded(rss=n % CHECK_EVERY == 0)
        if found is not None:
            return self.result(Status.UNKNOWN, reason=found.limit)
        if self.node_limit is not None and n > self.node_limit:
            return self.result(Status.UNKNOWN, reason="node limit")
        return None

    def child(self, key: tuple, action) -> tuple | None:
        """The successor of ``key`` by ``action``; None when the formula becomes false."""
        q2 = self.monitor.step(key[1], key[0], self.label_of[id(action)])
        if q2 == Monitor.FALSE:
            return None
        return (self.task.progress(key[0], action), q2)

    def is_goal(self, key: tuple) -> bool:
        return self.task.is_goal(key[0]) and self.monitor.final(key[1], key[0])


def plan_ltl(task: Task, formula: ltl.Formula | Monitor, *, search: str = "greedy",
             time_limit: float | None = 60.0, node_limit: int | None = None,
             prune: bool = True, budget: Budget | None = None) -> SolveResult:
    """A plan that reaches the goal of ``task`` on a trace satisfying ``formula``.

    See the module docstring for the searches and the pruning; ``prune=False`` switches the
    relaxed pruning off (for tests that compare both). The plan is ``"(name args)"`` steps.
    ``time_limit`` is CPU seconds; ``budget``, when given, replaces it (and brings its
    memory limit). Any limit, inside a single progression step too, answers ``UNKNOWN``.
    """
    if search not in SEARCHES:
        raise ValueError(f"search must be one of {SEARCHES}, not {search!r}")
    budget = budget if budget is not None else Budget(Limits(time_s=time_limit))
    budget.phase(0)       # progression ticks are work, not memory: count CPU time only
    t0 = time.perf_counter()
    monitor = None
    try:
        monitor = formula if isinstance(formula, Monitor) else monitor_for(task, formula, budget)
        monitor.budget = budget
        return _plan_ltl(task, monitor, search, node_limit, prune, budget)
    except LimitReached as stop:
        stats = () if monitor is None else (("formula_nodes", len(monitor.nodes)),
                                            ("formula_states", len(monitor.dnfs)),
                                            ("search", search))
        return SolveResult(Status.UNKNOWN, None, None, ENGINE, time.perf_counter() - t0,
                           stats, stop.limit)
    finally:
        if monitor is not None:
            monitor.budget = None


def _plan_ltl(task: Task, monitor: Monitor, search: str, node_limit: int | None, prune: bool,
              budget: Budget) -> SolveResult:
    heuristic = {"greedy": "ff", "astar": "max", "bfs": None}[search] if prune else None
    pruner = _Pruner(task, monitor, heuristic, budget) if prune else None
    run = _Run(task, monitor, pruner, search, budget, node_limit)
    start = (task.init, monitor.init)
    run.parent[start] = None
    if monitor.init == Monitor.FALSE:
        return run.result(Status.UNSOLVABLE, reason="the formula is unsatisfiable")
    if run.is_goal(start):
        return run.result(Status.SOLVED, start)
    h0, preferred = run.pruner.evaluate(*start) if run.pruner else (0.0, frozenset())
    if h0 == INF:
        return run.result(Status.UNSOLVABLE, reason="relaxed unreachable under the formula")
    if search == "bfs":
        return _bfs(run, start)
    if search == "astar":
        return _astar(run, start, h0)
    return _lazy_greedy(run, start, h0, preferred)


def _bfs(run: _Run, start: tuple) -> SolveResult:
    """Breadth-first; goal test at generation, so the plan has the fewest actions."""
    frontier = deque([start])
    parent = run.parent
    while frontier:
        key = frontier.popleft()
        stop = run.limit()
        if stop is not None:
            return stop
        for a in run.task.applicable(key[0]):
            child = run.child(key, a)
            if child is None or child in parent:
                continue
            run.counters["generated"] += 1
            parent[child] = (key, a)
            if run.is_goal(child):
                return run.result(Status.SOLVED, child)
            if run.pruner and run.pruner.value(*child) == INF:
                run.counters["pruned"] += 1
                continue
            frontier.append(child)
    return run.result(Status.UNSOLVABLE, reason="product search exhausted")


def _astar(run: _Run, start: tuple, h0: float) -> SolveResult:
    """A* with h_max (admissible), re-opening on cheaper paths; ties favour deeper nodes."""
    g_of = {start: 0.0}
    frontier = [(h0, 0.0, 0, start)]
    counter = 0
    parent = run.parent
    while frontier:
        _, neg_g, _, key = heapq.heappop(frontier)
        g = -neg_g
        if g > g_of[key]:
            continue  # stale entry
        if run.is_goal(key):
            return run.result(Status.SOLVED, key)
        stop = run.limit()
        if stop is not None:
            return stop
        for a in run.task.applicable(key[0]):
            child = run.child(key, a)
            if child is None:
                continue
            g2 = g + a.cost
            known = g_of.get(child)
            if known is not None and known <= g2:
                continue
            run.counters["generated"] += 1
            parent[child] = (key, a)
            g_of[child] = g2
            h = run.pruner.value(*child) if run.pruner else 0.0
            if h == INF:
                run.counters["pruned"] += 1
                continue
            counter += 1
            heapq.heappush(frontier, (g2 + h, -g2, counter, child))
    return run.result(Status.UNSOLVABLE, reason="product search exhausted")


def _lazy_greedy(run: _Run, start: tuple, h0: float, preferred0: frozenset) -> SolveResult:
    """Greedy best-first with deferred evaluation and a second open list of preferred
    (helpful) actions, boosted whenever the best h value improves (Richter & Helmert 2009,
    "Preferred operators and deferred evaluation in satisficing planning"). An entry is a
    parent node and an action, ordered by the parent's h; the child is generated, checked
    and evaluated when popped. Complete: every node is expanded at most once."""
    regular: list = []
    pref: list = []
    counter = 0
    boost = 0
    best_h = h0
    parent = run.parent
    pruner = run.pruner

    def push(key: tuple, h: float, preferred: frozenset) -> None:
        nonlocal counter
        for a in run.task.applicable(key[0]):
            counter += 1
            entry = (h, counter, key, a)
            heapq.heappush(regular, entry)
            if id(a) in preferred:
                heapq.heappush(pref, entry)

    push(start, h0, preferred0)
    turn = 0
    while regular or pref:
        use_pref = pref and (boost > 0 or turn % 2 == 1 or not regular)
        turn += 1
        if use_pref:
            boost = max(0, boost - 1)
            _, _, key, a = heapq.heappop(pref)
        else:
            _, _, key, a = heapq.heappop(regular)
        child = run.child(key, a)
        if child is None or child in parent:
            continue
        run.counters["generated"] += 1
        parent[child] = (key, a)
        if run.is_goal(child):
            return run.result(Status.SOLVED, child)
        stop = run.limit()
        if stop is not None:
            return stop
        h, preferred = pruner.evaluate(*child) if pruner else (0.0, frozenset())
        if h == INF:
            run.counters["pruned"] += 1
            continue
        if h < best_h:
            best_h, boost = h, boost + 1000
        push(child, h, preferred)
    return run.result(Status.UNSOLVABLE, reason="product search exhausted")
