"""h^2 reachability (h^m with m = 2, Haslum & Geffner 2000): a proof of unsolvability that
the delete relaxation misses.

The delete relaxation asks whether each fact can be reached; h^2 asks whether each *pair*
of facts can be true together. It computes an over-approximation of the pairs that hold
together in some reachable state, as a fixpoint from the initial state's pairs: an action
whose preconditions are pairwise reachable makes reachable

* every pair of facts it adds, and
* every pair ``(p, q)`` of a fact ``p`` it adds and a fact ``q`` it does not delete, when
  ``q`` is pairwise reachable with every precondition (``q`` may hold beside them and
  survives the action).

When two goal facts never become a reachable pair (an "h^2 mutex"), no reachable state holds
the goal: a proof that the task has no plan, found for instance on BlocksWorld tasks whose
goal asks for two things that exclude each other, where every single goal fact is reachable.

The task model here is the ground task of :mod:`planning_core.ground.task` (STRIPS with
conditional effects, add after delete). What is over-approximated, so that a proof stays a
proof (every pair of every reachable state is found; ``tests/heuristics/test_hm.py``
checks this against brute-force reachability on random tasks):

* negative preconditions, negative effect conditions and negative goals are ignored;
* a conditional effect counts when the action's preconditions and its own condition are
  pairwise reachable; two effects add a pair together when their conditions are pairwise
  reachable with each other; a fact kept beside an effect's add must not be deleted by the
  action or by that effect, but deletes of the action's *other* conditional effects are
  ignored (they may not fire);
* tasks with axioms (derived predicates) are not analysed (:func:`h2_unsolvable` gives
  None): a derived fact is recomputed after every step, which these rules do not model.

The computation has a deterministic budget, a count of work units (one per precondition or
condition fact tested and one per fact pair made reachable), never wall-clock time, so the
answer does not depend on the machine's load. Time is O(passes x task size + pairs).
"""
from __future__ import annotations

from dataclasses import dataclass

from planning_core.ground.facts import bits
from planning_core.ground.task import Task

__all__ = ["H2", "h2_reachability", "h2_unsolvable", "DEFAULT_WORK"]

#: Work units (facts tested plus pairs made reachable) before :func:`h2_reachability`
#: gives up. BlocksWorld state/p05/constraint5 of CoPE (812 actions, 1,764 conditional
#: effects) needs about 1.6M; this is roughly 2 CPU-s.
DEFAULT_WORK = 10_000_000


@dataclass(frozen=True, slots=True)
class H2:
    """The outcome of :func:`h2_reachability`.

    ``pairs[p]`` is the mask of facts ``q`` with ``{p, q}`` h^2-reachable (``p`` itself
    when ``p`` is reachable); ``complete`` is False when the budget ran out first (then the
    masks are an *under*-approximation of the fixpoint and prove nothing) or when the
    computation stopped early because ``stop_mask`` became pairwise reachable; ``work`` is
    the units spent."""

    pairs: tuple[int, ...]
    complete: bool
    goal_reachable: bool
    work: int

    def reachable(self, mask: int) -> bool:
        """Whether the facts of ``mask`` are pairwise (and singly) h^2-reachable."""
        return _pairwise(self.pairs, bits(mask), mask)


def _pairwise(pairs, ids, mask: int) -> bool:
    for x in ids:
        if mask & ~pairs[x]:
            return False
    return True


class _Spent(Exception):
    pass


def h2_reachability(task: Task, *, work: int = DEFAULT_WORK,
                    stop_mask: int | None = None) -> H2:
    """h^2 fixpoint from the initial state (see the module doc). Stops early, incomplete,
    once ``stop_mask``'s facts are pairwise reachable (default: the positive goal), since
    nothing is then proved; None as ``stop_mask`` means the goal, 0 means never stop."""
    goal = task.goal_pos if stop_mask is None else stop_mask
    goal_ids = bits(goal)
    n = len(task.facts)
    pairs = [0] * n
    init = task.init
    for x in bits(init):
        pairs[x] = init
    reached = init   # facts reachable on their own
    ops = []
    for action in task.actions:
        effects = [(0, (), action.add, bits(action.add), action.delete)]
        for ce in action.cond_effects:
            if ce.add:
                effects.append((ce.cond_pos, bits(ce.cond_pos), ce.add, bits(ce.add),
                                action.delete | ce.delete))
        ops.append((action.pre_pos_ids, action.pre_pos, effects))
    left = work

    def add_pairs(p: int, mask: int) -> None:
        # make {p, q} reachable for every q of mask, both ways
        nonlocal left, reached, grew
        new = mask & ~pairs[p]
        if not new:
            return
        grew = True
        pairs[p] |= new
        ids = bits(new)
        left -= len(ids)
        bit = 1 << p
        for q in ids:
            pairs[q] |= bit
        if new & bit:
            reached |= bit

    changed = grew = True
    try:
        while changed:
            if goal and _pairwise(pairs, goal_ids, goal):
                return H2(tuple(pairs), False, True, work - left)
            grew = False
            for pre_ids, pre_mask, effects in ops:
                left -= len(pre_ids) + 1
                if left < 0:
                    raise _Spent
                common = reached
                ok = True
                for x in pre_ids:
                    row = pairs[x]
                    if pre_mask & ~row:
                        ok = False
                        break
                    common &= row
                if not ok:
                    continue
                # the effects that can fire: their condition pairwise reachable with the
                # preconditions and within itself; ``with_`` = facts pairwise reachable with
                # all of the preconditions and the condition
                fired = []
                for cond, cond_ids, add, add_ids, delete in effects:
                    with_ = common
                    if cond:
                        left -= len(cond_ids)
                        if cond & ~common:
                            continue
                        for c in cond_ids:
                            with_ &= pairs[c]
                        if cond & ~with_:
                            continue
                    fired.append((cond, add, add_ids, delete, with_))
                for cond, add, add_ids, delete, with_ in fired:
                    together = add
                    if len(fired) > 1:
                        left -= len(fired)
                        for other_cond, other_add, _, _, _ in fired:
                            if not (other_cond & ~with_):   # conditions pairwise reachable
                                together |= other_add
                    kept = with_ & ~delete
                    for p in add_ids:
                        add_pairs(p, together | kept)
                if left < 0:
                    raise _Spent
            changed = grew
    except _Spent:
        return H2(tuple(pairs), False, False, work - max(left, 0))
    reachable = bool(not goal or _pairwise(pairs, goal_ids, goal))
    return H2(tuple(pairs), True, reachable, work - left)


def h2_unsolvable(task: Task, *, work: int = DEFAULT_WORK) -> bool | None:
    """True when h^2 proves that no plan exists (two goal facts, or one, never reachable
    together); False when the goal is h^2-reachable (nothing proved); None when the budget
    ran out or the task has axioms (not analysed)."""
    if task.axioms:
        return None
    out = h2_reachability(task, work=work)
    if out.goal_reachable:
        return False
    if not out.complete:
        return None
    return True
