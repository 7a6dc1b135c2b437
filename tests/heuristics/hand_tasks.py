"""Build small ground tasks by hand (STRIPS with costs), independent of the grounder."""
from __future__ import annotations

from planning_core.ground.facts import CondEffect, FactIndex, GroundAction, mask_of
from planning_core.ground.task import Task


def make_task(actions, init, goal, *, goal_neg=(), name="hand", facts=()):
    """``actions``: (name, pre, add, delete[, cost[, pre_neg[, cond_effects]]]) with atoms
    as strings; cond_effects: (cond_pos, cond_neg, add, delete) tuples of strings."""
    atoms = set(facts) | set(init) | set(goal) | set(goal_neg)
    for spec in actions:
        atoms |= set(spec[1]) | set(spec[2]) | set(spec[3])
        if len(spec) > 5:
            atoms |= set(spec[5])
        if len(spec) > 6:
            for ce in spec[6]:
                for part in ce:
                    atoms |= set(part)
    index = FactIndex((a,) for a in atoms)

    def ids(xs):
        return tuple(sorted(index.id((x,)) for x in set(xs)))

    built = []
    has_costs = False
    for spec in actions:
        nm, pre, add, dele = spec[:4]
        cost = spec[4] if len(spec) > 4 else 1
        has_costs |= cost != 1
        pre_neg = spec[5] if len(spec) > 5 else ()
        ces = tuple(CondEffect(mask_of(ids(c[0])), mask_of(ids(c[1])), mask_of(ids(c[2])),
                               mask_of(ids(c[3]))) for c in (spec[6] if len(spec) > 6 else ()))
        parts = nm.split()
        built.append(GroundAction(parts[0], tuple(parts[1:]), parts[0],
                                  mask_of(ids(pre)), mask_of(ids(pre_neg)), mask_of(ids(add)),
                                  mask_of(ids(dele)), ids(pre), ids(pre_neg), ids(add),
                                  ids(dele), ces, cost))
    return Task(index, tuple(built), mask_of(ids(init)), mask_of(ids(goal)),
                mask_of(ids(goal_neg)), has_costs=has_costs, name=name)
