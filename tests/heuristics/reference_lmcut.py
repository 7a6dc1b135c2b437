"""The LM-cut implementation before the issue-24 speed work, kept as a test oracle.

``planning_core.heuristics.lmcut.LMCut`` is tuned for speed (it finds each cut backwards
from the goal zone instead of by a forward pass over every operator); it must give exactly
the values of this version (same cuts, same precondition choices, same order of the
incremental h_max updates).
"""
from __future__ import annotations

import heapq
import math

from planning_core.errors import UnsupportedFeature
from planning_core.ground.facts import bits
from planning_core.ground.task import Task

INF = math.inf


class ReferenceLMCut:
    """LM-cut as planning_core computed it before issue 24 (the oracle of the faster one)."""

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
        add_of, op_eff = self.add_of, self.op_eff
        n = self.n
        while hmax[goal] != 0:
            # goal zone: backwards over zero-cost justification edges
            zone = bytearray(n)
            zone[goal] = 1
            stack = [goal]
            while stack:
                g = stack.pop()
                for o in add_of[g]:
                    p = pcf[o]
                    if p >= 0 and cost[o] == 0 and not zone[p]:
                        zone[p] = 1
                        stack.append(p)
            # forward from the state, never entering the zone; edges into it form the cut
            seen = bytearray(n)
            for f in start:
                seen[f] = 1
            stack = list(start)
            cut: list[int] = []
            in_cut: set[int] = set()
            while stack:
                f = stack.pop()
                for o in children[f]:
                    for e in op_eff[o]:
                        if zone[e]:
                            if o not in in_cut:
                                in_cut.add(o)
                                cut.append(o)
                        elif not seen[e]:
                            seen[e] = 1
                            stack.append(e)
            m = min(cost[o] for o in cut)
            total += m
            for o in cut:
                cost[o] -= m
            self._update(cut, cost, hmax, pcf, opval, children)
        return total
