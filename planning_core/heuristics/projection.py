"""Projections searched exhaustively, with h^2 mutexes pruning them: a proof of
unsolvability for goals whose conflict spans more facts than h^2 (pairs) can see.

Some tasks are unsolvable for a reason that needs a chain of several facts: CoPE
BlocksWorld-100 state/p05/constraint5 caps stacks at 4 blocks (facts ``h1``..``h4`` give a
block's height; ``stack`` needs the lower block's height below 4 and sets the upper one's to
one more), and its goal asks for a 7-block tower. Every pair (and triple) of goal facts is
reachable together; four ``on`` facts of one chain are not, since a block's height can only
change while it is moved, and nothing is moved from under a block. h^2 cannot see this, nor
the state equation, nor a relaxation; a search of the real state space (14 blocks) does not
end.

A *projection* onto a set ``P`` of facts forgets every other fact: an abstract state is the
set of ``P``'s facts that hold. It over-approximates the task (Edelkamp 2001; Culberson &
Schaeffer 1998): every action applicable in a state is applicable in its projection (with
conditions on forgotten facts taken as true), and leads to the projection of the successor.
So when the abstract goal is unreachable from the abstract initial state, no plan exists.
Plain projections are weak here, since forgetting ``on-table b`` lets ``pickup b`` run
while ``b`` still stands on another block. h^2 mutexes (:mod:`planning_core.heuristics.hm`) put
that knowledge back, soundly, because they hold in every reachable state:

* an abstract state holding two facts that h^2 never finds together is dropped (it is the
  projection of no reachable state);
* an action is applied only when every fact of the abstract state is h^2-compatible with
  every precondition (forgotten ones included), since in the real state they hold together;
* a conditional effect whose condition mentions forgotten facts may or may not fire: both
  outcomes are followed (unless a condition fact is mutex with the action's preconditions
  or the state, or is itself a precondition: then the outcome is known).

By induction over a plan, the projection of every state it visits is visited by the
abstract search: a proof, whatever ``P`` is. ``P`` is chosen from the goal: a subset ``G``
of the goal facts, *connected* (each shares an object with another), and the facts the
actions that add or delete a fact of ``G`` test (preconditions, and conditions of the
effects that touch ``G``). Subsets are tried smallest first, each up to :data:`MAX_GOALS`
facts; the first whose abstract goal is unreachable proves the task unsolvable.

Budgets are deterministic, in work units, per subset and in total: one per abstract action
tested on an abstract state, one per abstract successor generated, and one per ground action
and per conditional effect scanned to build a subset's projection (about 0.2 us a unit in CPython: p05 spends 4.7M
units, about a CPU-second); at most :data:`MAX_SUBSETS` subsets are tried. Running out gives
None (nothing proved), never a guess. Tasks with axioms are not analysed (derived facts are
recomputed after every step; a projection would have to model that), nor tasks whose h^2
fixpoint did not complete (its mutexes would be unproved).

``tests/heuristics/test_projection.py`` checks the proofs against brute-force reachability on
random tasks with conditional effects, and on ``domains/towers`` (a tower above its cap).
"""
from __future__ import annotations

from dataclasses import dataclass

from planning_core.ground.facts import bits
from planning_core.ground.task import Task
from planning_core.heuristics.hm import DEFAULT_WORK, h2_reachability

__all__ = ["ProjectionProof", "projection_unsolvable", "MAX_GOALS", "MAX_SUBSETS",
           "SUBSET_WORK", "TOTAL_WORK"]

#: Largest goal subset projected on (the CoPE p05 tower needs 4).
MAX_GOALS = 6
#: Work units (see the module doc) of one subset's search before it gives up.
SUBSET_WORK = 10_000_000
#: Work units over all subsets before the test gives up (about 4 CPU-s).
TOTAL_WORK = 20_000_000
#: Goal subsets tried at most (a goal whose facts all share one object has many).
MAX_SUBSETS = 2_000
#: Largest number of conditional effects of one action whose firing is unknown in a
#: projection (each doubles the successors of that action).
MAX_OPEN_EFFECTS = 8


@dataclass(frozen=True, slots=True)
class ProjectionProof:
    """What :func:`projection_unsolvable` found: the goal facts whose joint reachability
    the projection refuted (names as the task prints them), the number of facts projected
    on, the abstract states reached, and the budget units spent in total (all subsets)."""

    goals: tuple[str, ...]
    facts: int
    states: int
    work: int


class _Spent(Exception):
    pass


def _connected_subsets(goal_ids: list[int], atoms, limit: int, most: int = MAX_SUBSETS):
    """Goal subsets whose facts are connected through shared objects, smallest first, each
    once, in a deterministic order; at most ``most`` of them."""
    objs = {g: set(atoms[g][1:]) for g in goal_ids}
    near = {g: [h for h in goal_ids if h != g and objs[g] & objs[h]] for g in goal_ids}
    level = [frozenset([g]) for g in goal_ids]
    seen = set(level)
    size = 1
    while level and size <= limit and most > 0:
        level = sorted(level, key=sorted)[:most]
        yield from level
        most -= len(level)
        nxt = []
        for subset in level:
            for g in sorted(subset):
                for h in near[g]:
                    grown = subset | {h}
                    if h not in subset and grown not in seen and len(nxt) < most:
                        seen.add(grown)
                        nxt.append(grown)
        level = nxt
        size += 1


def _relevant(task: Task, gmask: int) -> int:
    facts = gmask
    for a in task.actions:
        if (a.add | a.delete) & gmask:
            facts |= a.pre_pos
        for ce in a.cond_effects:
            if (ce.add | ce.delete) & gmask:
                facts |= a.pre_pos | ce.cond_pos
    return facts


def _abstract_ops(task: Task, pairs, P: int) -> list[tuple]:
    """The actions as seen in the projection on ``P``, each once: (preconditions in P,
    negative preconditions in P, facts allowed beside the preconditions, adds, deletes,
    conditional effects as (condition in P, negative condition in P, open?, facts allowed
    beside the condition, adds, deletes))."""
    full = (1 << len(task.facts)) - 1
    ops = set()
    for a in task.actions:
        allow = full
        for q in a.pre_pos_ids:
            allow &= pairs[q]
        if a.pre_pos & ~allow:
            continue                      # two preconditions never hold together
        conds = []
        for ce in a.cond_effects:
            if not ((ce.add | ce.delete) & P):
                continue
            if ce.cond_pos & ~allow or ce.cond_neg & a.pre_pos:
                continue                  # never fires beside the preconditions
            c_allow = allow
            for q in bits(ce.cond_pos):
                c_allow &= pairs[q]
            if ce.cond_pos & ~c_allow:
                continue
            forgotten = (ce.cond_pos & ~P & ~a.pre_pos) | (ce.cond_neg & ~P)
            conds.append((ce.cond_pos & P, ce.cond_neg & P, bool(forgotten), c_allow & P,
                          ce.add & P, ce.delete & P))
        if not ((a.add | a.delete) & P) and not conds:
            continue                      # a self-loop in the projection
        ops.add((a.pre_pos & P, a.pre_neg & P, allow & P, a.add & P, a.delete & P,
                 tuple(sorted(conds))))
    return sorted(ops)


def _search(task: Task, pairs, gmask: int, P: int, ops, budget: list[int],
            subset_work: int) -> int | None:
    """Abstract states reached when the goal is unreachable (a proof); None when the goal
    was reached (nothing proved) or the subset's budget ran out. ``budget[0]`` is the
    shared budget; :class:`_Spent` when it runs out."""
    def valid(s: int) -> bool:
        for x in bits(s):
            if s & ~pairs[x]:
                return False
        return True

    init = task.init & P
    if not valid(init):                   # cannot happen with a sound h^2; be safe
        return None
    seen = {init}
    todo = [init]
    spent = 0
    per_state = len(ops)
    while todo:
        s = todo.pop()
        if not (gmask & ~s):
            return None
        spent += per_state                # the abstract actions tested on this state
        budget[0] -= per_state
        if budget[0] < 0:
            raise _Spent
        if spent > subset_work:
            return None
        for pre, pre_neg, allow, add, delete, conds in ops:
            if pre & ~s or pre_neg & s or s & ~allow:
                continue
            adds, dels, open_ = add, delete, []
            for c_pos, c_neg, forgotten, c_allow, c_add, c_del in conds:
                if c_pos & ~s or c_neg & s or s & ~c_allow:
                    continue
                if forgotten:
                    open_.append((c_add, c_del))
                else:
                    adds |= c_add
                    dels |= c_del
            if len(open_) > MAX_OPEN_EFFECTS:
                return None
            outcomes = [(adds, dels)]
            for c_add, c_del in open_:
                outcomes += [(x | c_add, y | c_del) for x, y in outcomes]
            spent += len(outcomes)
            budget[0] -= len(outcomes)
            if budget[0] < 0:
                raise _Spent
            if spent > subset_work:
                return None
            for x, y in outcomes:
                nxt = (s & ~y) | x
                if nxt not in seen and valid(nxt):
                    seen.add(nxt)
                    todo.append(nxt)
    return len(seen)


def projection_unsolvable(task: Task, *, max_goals: int = MAX_GOALS,
                          subset_work: int = SUBSET_WORK,
                          total_work: int = TOTAL_WORK,
                          work: int = DEFAULT_WORK) -> ProjectionProof | None:
    """A :class:`ProjectionProof` when a projection on a goal subset (see the module doc)
    shows that no plan exists; None when no subset within the budgets does, or the task is
    not analysed (axioms, h^2 over its ``work`` budget)."""
    if task.axioms or not task.goal_pos:
        return None
    h2 = h2_reachability(task, work=work, stop_mask=0)
    if not h2.complete:
        return None
    pairs = h2.pairs
    atoms = task.facts.atoms
    goal_ids = list(bits(task.goal_pos))
    budget = [total_work]
    # building a projection scans every ground action and every conditional effect (an
    # ADL action may have hundreds): one unit each, so the budget bounds the CPU time
    scan = len(task.actions) + sum(len(a.cond_effects) for a in task.actions)
    try:
        for subset in _connected_subsets(goal_ids, atoms, max_goals):
            gmask = 0
            for g in subset:
                gmask |= 1 << g
            budget[0] -= scan                       # building the projection
            if budget[0] < 0:
                raise _Spent
            P = _relevant(task, gmask)
            ops = _abstract_ops(task, pairs, P)
            states = _search(task, pairs, gmask, P, ops, budget, subset_work)
            if states is not None:
                names = tuple(sorted("(" + " ".join(atoms[g]) + ")" for g in subset))
                return ProjectionProof(names, bin(P).count("1"), states,
                                       total_work - budget[0])
    except _Spent:
        return None
    return None
