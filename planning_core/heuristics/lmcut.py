"""The landmark-cut heuristic (Helmert & Domshlak 2009), admissible, with action costs.

LM-cut repeatedly finds a disjunctive action landmark in the delete relaxation and charges
its cheapest action:

1. compute h_max of every fact under the current (reduced) costs; stop when the goal has
   h_max 0 (or return infinity when it is unreachable);
2. give every operator a *precondition choice function* value: one precondition of maximal
   h_max (here: the one whose h_max became final last, which is deterministic);
3. in the justification graph (edge ``pcf(o) -> e`` for each effect ``e`` of ``o``, weighted
   by the remaining cost of ``o``), the *goal zone* is the set of facts from which the goal is
   reached by zero-cost edges; the cut is every operator with an edge from a fact reachable
   from the state without passing the goal zone into the goal zone;
4. add the cheapest remaining cost ``m`` of the cut to the estimate and subtract ``m`` from
   the cost of every cut operator; repeat.

An artificial fact ``INIT`` is a precondition of operators without preconditions and an
artificial goal operator ``GOAL <- goal`` of cost 0 makes the goal a single fact, as in the
paper. Negative preconditions are ignored (a relaxation, so the estimate stays admissible).
Conditional effects and axioms are not supported by the algorithm as published: the
constructor raises ``UnsupportedFeature`` for such tasks (``h_max`` handles them).

The cut is found from the goal zone rather than by a forward pass over every operator:
its candidates are the operators adding a zone fact, and a candidate's precondition choice
is reached without passing the zone at once when its h_max is below the goal's (a zone
fact's h_max is at least the goal's, and a fact's justification only passes facts of
smaller or equal h_max), else by a backward search over the justification graph,
memoised for the round. It finds the same cut as the forward pass, at a cost that grows
with the zone's achievers instead of with the whole task.

h_max is computed once per state with the counter-based Dijkstra of ``relaxed.py`` and then
updated incrementally after each cut (costs only decrease, so only facts whose value drops
are revisited), as Fast Downward does. Each round zeroes the cost of at least one operator,
so the number of rounds is bounded by the number of operators.
"""
from __future__ import annotations

import heapq
import math

from planning_core.errors import UnsupportedFeature
from planning_core.ground.facts import bits
from planning_core.ground.task import Task
from planning_core.pddl.identity_cache import IdentityCache

INF = math.inf


class LMCut:
    """LM-cut for one task: ``LMCut(task)(state) -> float`` (``math.inf`` on dead ends)."""

    __slots__ = ("task", "n", "init_fact", "goal_fact", "op_pre", "op_npre", "op_eff",
                 "op_cost", "pre_of", "add_of", "goal_op")

    def __init__(self, task: Task) -> None:
        if task.has_conditional_effects:
            raise UnsupportedFeature("LM-cut does not support conditional effects")
        if task.has_axioms:
            raise UnsupportedFeature("LM-cut does not support axioms (derived predicates)")
        self.task = task
        n_facts = len(task.facts)
        self.init_fact = n_facts
        self.goal_fact = n_facts + 1
        self.n = n_facts + 2
        op_pre: list[tuple[int, ...]] = []
        op_eff: list[tuple[int, ...]] = []
        op_cost: list[float] = []
        for a in task.actions:
            op_pre.append(a.pre_pos_ids or (self.init_fact,))
            op_eff.append(a.add_ids)
            op_cost.append(a.cost)
        self.goal_op = len(op_pre)
        op_pre.append(bits(task.goal_pos) or (self.init_fact,))
        op_eff.append((self.goal_fact,))
        op_cost.append(0)
        pre_of: list[list[int]] = [[] for _ in range(self.n)]
        add_of: list[list[int]] = [[] for _ in range(self.n)]
        for o, pre in enumerate(op_pre):
            for f in pre:
                pre_of[f].append(o)
            for e in op_eff[o]:
                add_of[e].append(o)
        self.op_pre = tuple(op_pre)
        self.op_npre = tuple(len(p) for p in op_pre)
        self.op_eff = tuple(op_eff)
        self.op_cost = tuple(op_cost)
        self.pre_of = tuple(tuple(x) for x in pre_of)
        self.add_of = tuple(tuple(x) for x in add_of)

    def _hmax(self, start: tuple[int, ...], cost: list[float]):
        """h_max of every fact, each operator's precondition value (max over its
        preconditions), its precondition choice (-1 while unreached), and for every fact
        the operators that chose it (the justification graph's out-edges)."""
        hmax = [INF] * self.n
        n_ops = len(self.op_pre)
        pcf = [-1] * n_ops
        children: list[set[int]] = [set() for _ in range(self.n)]
        opval = [INF] * n_ops
        unsat = list(self.op_npre)
        pre_of, op_eff = self.pre_of, self.op_eff
        heap = [(0, f) for f in start]
        for f in start:
            hmax[f] = 0
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            c, f = pop(heap)
            if c > hmax[f]:
                continue
            for o in pre_of[f]:
                u = unsat[o] - 1
                unsat[o] = u
                if u == 0:
                    pcf[o] = f
                    children[f].add(o)
                    opval[o] = c
                    nc = c + cost[o]
                    for e in op_eff[o]:
                        if nc < hmax[e]:
                            hmax[e] = nc
                            push(heap, (nc, e))
        return hmax, pcf, opval, children

    def _update(self, cut: list[int], cost: list[float], hmax: list[float], pcf: list[int],
                opval: list[float], children: list[set[int]]) -> None:
        """Incremental h_max after the costs of ``cut`` decreased (values only decrease):
        Dijkstra restarted from the cut's effects; an operator whose chosen precondition got
        cheaper re-picks its costliest precondition (as in Fast Downward's LM-cut)."""
        heap: list[tuple[float, int]] = []
        op_eff, op_pre, pre_of = self.op_eff, self.op_pre, self.pre_of
        push, pop = heapq.heappush, heapq.heappop
        for o in cut:
            nc = opval[o] + cost[o]
            for e in op_eff[o]:
                if nc < hmax[e]:
                    hmax[e] = nc
                    push(heap, (nc, e))
        while heap:
            c, f = pop(heap)
            if c > hmax[f]:
                continue
            mine = children[f]
            for o in tuple(mine):
                best, arg = -1.0, f
                for p in op_pre[o]:
                    v = hmax[p]
                    if v > best:
                        best, arg = v, p
                if arg != f:
                    mine.discard(o)
                    children[arg].add(o)
                    pcf[o] = arg
                if best < opval[o]:
                    opval[o] = best
                    nc = best + cost[o]
                    for e in op_eff[o]:
                        if nc < hmax[e]:
                            hmax[e] = nc
                            push(heap, (nc, e))

    def __call__(self, state: int) -> float:
        start = bits(state) + (self.init_fact,)
        cost = list(self.op_cost)
        goal = self.goal_fact
        hmax, pcf, opval, children = self._hmax(start, cost)
        if hmax[goal] == INF:
            return INF
        total = 0
        add_of = self.add_of
        n = self.n
        while hmax[goal] != 0:
            top = hmax[goal]
            # goal zone: backwards over zero-cost justification edges
            zone = bytearray(n)
            zone[goal] = 1
            zone_facts = [goal]
            stack = [goal]
            while stack:
                g = stack.pop()
                for o in add_of[g]:
                    p = pcf[o]
                    if p >= 0 and cost[o] == 0 and not zone[p]:
                        zone[p] = 1
                        zone_facts.append(p)
                        stack.append(p)
            # the cut: operators adding a zone fact whose precondition choice is outside the
            # zone and reached from the state without entering it. Every fact of h_max below
            # the goal's is so reached (its justification never passes the zone, whose facts
            # all have h_max >= the goal's); the others are looked up backwards over the
            # justification graph (see _reached), not by a forward pass over every operator
            reached = bytearray(n)  # 0 unknown, 1 reached, 2 not reached
            cut: list[int] = []
            in_cut = bytearray(len(pcf))
            for g in zone_facts:
                for o in add_of[g]:
                    p = pcf[o]
                    if p < 0 or zone[p] or in_cut[o]:
                        continue
                    if hmax[p] < top or reached[p] == 1 or (
                            not reached[p]
                            and self._reached(p, top, hmax, pcf, zone, reached)):
                        in_cut[o] = 1
                        cut.append(o)
            m = min(cost[o] for o in cut)
            total += m
            for o in cut:
                cost[o] -= m
            self._update(cut, cost, hmax, pcf, opval, children)
        return total

    def _reached(self, fact: int, top: float, hmax: list[float], pcf: list[int],
                 zone: bytearray, reached: bytearray) -> bool:
        """Whether ``fact`` (h_max >= ``top``, outside the zone) is reached from the state in
        the justification graph without entering the zone: a backward search over edges
        ``pcf(o) -> e`` until a fact below ``top`` (reached) or a fact known reached. A
        search that fails has visited a set closed under predecessors without a reached
        fact, so all of it is unreached; a search that succeeds marks the path it found.
        ``reached`` keeps these answers for the round."""
        if hmax[fact] == INF:
            reached[fact] = 2
            return False
        add_of = self.add_of
        succ = {fact: -1}  # visited fact -> the visited fact it was reached from (backwards)
        stack = [fact]
        while stack:
            e = stack.pop()
            for o in add_of[e]:
                q = pcf[o]
                if q < 0 or zone[q]:
                    continue
                if hmax[q] < top or reached[q] == 1:
                    while e >= 0:  # the path from q down to ``fact`` is reached
                        reached[e] = 1
                        e = succ[e]
                    return True
                if q not in succ and reached[q] != 2:
                    succ[q] = e
                    stack.append(q)
        for e in succ:
            reached[e] = 2
        return False


_CACHE: IdentityCache[LMCut] = IdentityCache(64)


def lmcut_for(task: Task) -> LMCut:
    """The cached ``LMCut`` of ``task`` (by identity), so scorers that ask h* of many
    states of one task build the tables once."""
    return _CACHE.get(LMCut, task)


def lm_cut(task: Task, state: int | None = None) -> float:
    """LM-cut value of ``state`` (default: the initial state)."""
    return lmcut_for(task)(task.init if state is None else state)
