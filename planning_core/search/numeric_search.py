"""An in-process planner for simple numeric (PDDL 2.1 level 2) tasks: best-first search
over :func:`planning_core.ground.numeric.ground_numeric`'s ground tasks.

It is what ``solve`` falls back on when no external numeric planner (ENHSP, LPG-td, TAMER:
the ``planners`` extra) is installed; it is meant for small tasks (a counter, a tank, a
few trucks with fuel), not for the IPC numeric tracks, which the external planners solve.

* A state is the pair (true atoms as the ground task's int bitmask, fluent values as a
  tuple). Every ground action's propositional precondition is tested as in the classical
  search, and its numeric comparisons are evaluated *exactly* on the state's values (all
  of an action's amounts are read in the state before it, as the validator does). A
  comparison or amount that reads a fluent with no value, or divides by zero, makes the
  action inapplicable there (the validator would call the plan ``undefined_value``).
* Order: weighted A*, f = g + 2h (``WEIGHT``; greedy, h alone, with ``weight=None``).
* Guidance: h = h_FF of the propositional relaxation (numeric conditions dropped, as in
  the grounding; infinite only when the goal atoms are unreachable even so, a sound
  dead end) plus the number of the goal's comparisons that are false. Ties go to the
  state generated first, so the search is deterministic.
* Budget: at most ``node_limit`` expansions (a count, so the answer does not depend on
  machine load) and the call's CPU/memory budget; either gives ``UNKNOWN``. So does a
  search that runs out of states: it is no proof of unsolvability (a value that can grow
  without end makes the state space infinite, and actions reading undefined values were
  skipped), so this search never answers ``UNSOLVABLE``.

Durative actions are refused (``UnsupportedFeature``): a temporal task needs a temporal
planner (``solve`` only calls this search for numeric tasks). ``solve`` validates every plan found here with the
validator before reporting it.
"""
from __future__ import annotations

import heapq
import time

from planning_core.errors import UnsupportedFeature
from planning_core.limits import Budget, LimitReached
from planning_core.pddl import ast as pddl
from planning_core.result import Status

__all__ = ["NODE_LIMIT", "NumericOutcome", "numeric_gbfs"]

#: expansions before the search gives up (UNKNOWN, "node limit")
NODE_LIMIT = 20_000
#: f = g + WEIGHT * h (weighted A*): on instances 1-3 of the IPC 2002 numeric variants it
#: solved more within 5,000 expansions than greedy (h alone) or weights 1 and 5
#: (benchmarks/results/numeric_search.md)
WEIGHT = 2.0

_COMPARE = pddl.COMPARE     # as the validator compares (see pddl.ast)
_INF = float("inf")


class NumericOutcome:
    """``status``, ``plan`` (``"(name args)"`` strings, or None), ``expanded``, ``reason``."""

    __slots__ = ("status", "plan", "expanded", "generated", "reason", "time_s")

    def __init__(self, status, plan, expanded, generated, reason, time_s) -> None:
        self.status, self.plan, self.expanded = status, plan, expanded
        self.generated, self.reason, self.time_s = generated, reason, time_s


def _key(term: pddl.FunctionTerm) -> tuple:
    return (term.name,) + tuple(term.args)


def _compile(e, index: dict):
    """A function of the value tuple giving ``e``'s value, or None (undefined value or a
    division by zero)."""
    if isinstance(e, pddl.Number):
        value = float(e.value)
        return lambda v: value
    if isinstance(e, pddl.FunctionTerm):
        i = index.get(_key(e))
        if i is None:
            return lambda v: None
        return lambda v: v[i]
    if isinstance(e, pddl.BinaryOp):
        f, g, op = _compile(e.left, index), _compile(e.right, index), e.op

        def binary(v):
            x, y = f(v), g(v)
            if x is None or y is None:
                return None
            if op == "+":
                return x + y
            if op == "-":
                return x - y
            if op == "*":
                return x * y
            return None if y == 0 else x / y
        return binary
    raise UnsupportedFeature(f"the numeric expression {e!r} is not supported by the "
                             "in-process numeric search")


def _fluents_of(e, out: set) -> None:
    if isinstance(e, pddl.FunctionTerm):
        out.add(_key(e))
    elif isinstance(e, pddl.BinaryOp):
        _fluents_of(e.left, out)
        _fluents_of(e.right, out)


def _condition(c: pddl.Comparison, index: dict):
    f, g, test = _compile(c.left, index), _compile(c.right, index), _COMPARE[c.op]

    def holds(v):
        x, y = f(v), g(v)
        return x is not None and y is not None and test(x, y)
    return holds


def _effect(e, index: dict):
    """(slot, op, amount function) of a numeric effect."""
    op = "increase" if isinstance(e, pddl.Increase) else e.op
    return index[_key(e.fluent)], op, _compile(e.amount, index)


def _apply(values: tuple, effects) -> tuple | None:
    """The values after ``effects`` (amounts read before any is applied), or None when one
    reads or changes an undefined value."""
    updates = []
    for slot, op, amount in effects:
        x = amount(values)
        old = values[slot]
        if x is None or (old is None and op != "assign"):
            return None
        updates.append((slot, op, x))
    new = list(values)
    for slot, op, x in updates:
        old = new[slot]
        if op == "assign":
            new[slot] = x
        elif op == "increase":
            new[slot] = old + x
        elif op == "decrease":
            new[slot] = old - x
        elif op == "scale-up":
            new[slot] = old * x
        elif x == 0:                         # scale-down by zero
            return None
        else:
            new[slot] = old / x
    return tuple(new)


def numeric_gbfs(numeric_task, *, budget: Budget | None = None,
                 node_limit: int = NODE_LIMIT, weight: float | None = WEIGHT) -> NumericOutcome:
    """Best-first search over a ``NumericTask`` (module doc): f = g + ``weight`` * h, or h
    alone (greedy) with ``weight=None``."""
    from planning_core.heuristics.relaxed import h_ff

    t0 = time.perf_counter()
    task = numeric_task.task
    budget = Budget.of(budget)
    if any(parts.duration or parts.invariants for parts in numeric_task.numeric):
        raise UnsupportedFeature("the in-process numeric search plans for numeric tasks "
                                 "without durative actions")
    # one slot per fluent that something reads (a condition, the goal, an effect's amount);
    # a fluent only ever written (fuel-used, total-cost: the metric's) cannot change which
    # plans are valid, and tracking it would make every state new
    read: set = set()
    for parts in numeric_task.numeric:
        for c in parts.conditions:
            _fluents_of(c.left, read)
            _fluents_of(c.right, read)
        for e in parts.effects:
            _fluents_of(e.amount, read)
    for c in numeric_task.goal_conditions:
        _fluents_of(c.left, read)
        _fluents_of(c.right, read)
    keys = sorted(read)
    index = {k: i for i, k in enumerate(keys)}
    start_values = tuple(float(numeric_task.fluents[k]) if k in numeric_task.fluents else None
                         for k in keys)
    conditions = [tuple(_condition(c, index) for c in parts.conditions)
                  for parts in numeric_task.numeric]
    effects = [tuple(_effect(e, index) for e in parts.effects if _key(e.fluent) in index)
               for parts in numeric_task.numeric]
    position = {id(a): k for k, a in enumerate(task.actions)}
    goal_tests = tuple(_condition(c, index) for c in numeric_task.goal_conditions)
    expanded = generated = 0

    def outcome(status, plan=None, reason=""):
        return NumericOutcome(status, plan, expanded, generated, reason,
                              time.perf_counter() - t0)

    def h(state, values):
        base = h_ff(task, state)
        if base == _INF:
            return _INF
        return base + sum(not test(values) for test in goal_tests)

    start = (task.init, start_values)
    try:
        h0 = h(*start)
        if h0 == _INF:
            return outcome(Status.UNKNOWN, reason="goal atoms relaxed unreachable")
        parent: dict = {start: None}
        heap = [(h0, 0, 0, start)]
        counter = 0
        while heap:
            _, _, g, node = heapq.heappop(heap)
            state, values = node
            if task.is_goal(state) and all(test(values) for test in goal_tests):
                plan = []
                while parent[node] is not None:
                    node, action = parent[node]
                    plan.append(str(action))
                return outcome(Status.SOLVED, tuple(reversed(plan)))
            expanded += 1
            budget.check()
            if expanded > node_limit:
                return outcome(Status.UNKNOWN, reason="node limit")
            for a in task.applicable(state):
                k = position[id(a)]
                if not all(test(values) for test in conditions[k]):
                    continue
                new_values = _apply(values, effects[k]) if effects[k] else values
                if new_values is None:
                    continue
                child = (task.progress(state, a), new_values)
                if child in parent:
                    continue
                generated += 1
                budget.tick()
                hc = h(*child)
                parent[child] = (node, a)
                if hc == _INF:
                    continue
                counter += 1
                heapq.heappush(heap, (hc if weight is None else g + 1 + weight * hc, counter,
                                      g + 1, child))
        return outcome(Status.UNKNOWN, reason="search space exhausted (no proof with numeric "
                                              "fluents)")
    except LimitReached as stop:
        return outcome(Status.UNKNOWN, reason=stop.limit)
