"""The mutex-pruned projection test of unsolvability: it must never call a solvable task
unsolvable (checked against brute-force reachability on random tasks with conditional
effects), and it proves tasks whose conflict spans more goal facts than h^2 sees."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from planning_core.ground.facts import CondEffect, FactIndex, GroundAction, mask_of
from planning_core.ground.task import Task
from planning_core.heuristics.hm import h2_unsolvable
from planning_core.heuristics.projection import projection_unsolvable
from planning_core.pddl.parser import parse_domain_file, parse_problem_file
from planning_core.solve import ground_task
from tests.heuristics.test_hm import reachable_states

TOWERS = Path(__file__).resolve().parents[2] / "domains" / "towers"


def towers(name: str) -> Task:
    return ground_task(parse_domain_file(TOWERS / "domain.pddl"),
                       parse_problem_file(TOWERS / f"{name}.pddl"))


def test_a_tower_above_the_cap_is_proved_unsolvable_where_h2_is_not():
    task = towers("u01")
    assert not any(task.is_goal(s) for s in reachable_states(task))   # truly unsolvable
    assert h2_unsolvable(task) is False                                # pairs are fine
    proof = projection_unsolvable(task)
    assert proof is not None
    # the refuted goal subset is a chain: three goal facts, none of them a pair h^2 refutes
    assert proof.goals == ("(on b c)", "(on c d)", "(on d a)")
    assert proof.states > 0 and proof.facts >= 3


@pytest.mark.parametrize("name", ["p01", "p02", "p03"])
def test_towers_within_the_cap_are_not_called_unsolvable(name):
    assert projection_unsolvable(towers(name)) is None


def test_a_budget_too_small_proves_nothing():
    assert projection_unsolvable(towers("u01"), total_work=10) is None
    assert projection_unsolvable(towers("u01"), subset_work=10) is None
    assert projection_unsolvable(towers("u01"), max_goals=2) is None


def random_task(rng: random.Random) -> Task:
    """Facts ``(p o)`` and ``(q o o')`` over three objects, so goal facts share objects and
    goal subsets of several facts are projected on; actions with conditional effects (some
    with negative conditions) and negative preconditions."""
    objs = ["a", "b", "c"]
    facts = [("p", o) for o in objs] + [("q", o, o2) for o in objs for o2 in objs if o != o2]
    facts = rng.sample(facts, 7)
    index = FactIndex(facts)

    def some(k):
        return [index.id(f) for f in rng.sample(facts, rng.randint(0, k))]

    actions = []
    for k in range(8):
        pre, add, dele, pre_neg = some(2), some(2), some(2), some(1) if rng.random() < .3 else []
        ces = tuple(CondEffect(mask_of(some(1)), mask_of(some(1) if rng.random() < .3 else []),
                               mask_of(some(1)), mask_of(some(1)))
                    for _ in range(rng.randint(0, 2)))
        actions.append(GroundAction(f"a{k}", (), f"a{k}", mask_of(pre), mask_of(pre_neg),
                                    mask_of(add), mask_of(dele), tuple(sorted(set(pre))),
                                    tuple(sorted(set(pre_neg))), tuple(sorted(set(add))),
                                    tuple(sorted(set(dele))), ces))
    init = mask_of(some(3))
    goal = mask_of([index.id(f) for f in rng.sample(facts, rng.randint(1, 4))])
    return Task(index, tuple(actions), init, goal, 0)


@pytest.mark.parametrize("seed", range(300))
def test_never_calls_a_solvable_task_unsolvable(seed):
    task = random_task(random.Random(seed))
    proof = projection_unsolvable(task)
    if proof is not None:
        assert not any(task.is_goal(s) for s in reachable_states(task)), seed


def test_random_tasks_include_proofs_that_h2_misses():
    proved = beyond_h2 = 0
    for seed in range(300):
        task = random_task(random.Random(seed))
        if projection_unsolvable(task) is not None:
            proved += 1
            beyond_h2 += h2_unsolvable(task) is False
    assert proved >= 10 and beyond_h2 >= 1, (proved, beyond_h2)


def test_goal_subsets_are_connected_smallest_first_and_capped():
    from planning_core.heuristics.projection import _connected_subsets

    # goal facts a-b, b-c, c-d (a chain) and e (alone): connected subsets only
    atoms = [("on", "a", "b"), ("on", "b", "c"), ("on", "c", "d"), ("clear", "e")]
    found = list(_connected_subsets([0, 1, 2, 3], atoms, 4))
    assert [len(s) for s in found] == [1, 1, 1, 1, 2, 2, 3]
    assert frozenset({0, 2}) not in found and frozenset({0, 1, 2}) in found
    assert len(list(_connected_subsets([0, 1, 2, 3], atoms, 4, most=5))) == 5
    # a goal whose facts all share one object: capped, not every subset
    star = [("at", "hub", f"x{i}") for i in range(30)]
    assert len(list(_connected_subsets(list(range(30)), star, 6))) == 2_000


def test_the_budget_counts_the_conditional_effects_scanned():
    """Building a projection scans every conditional effect (an ADL action may have
    hundreds): counted one unit each, or a budget of units would not bound the CPU time."""
    facts = [("goal",)] + [("g", f"o{i}") for i in range(500)]
    index = FactIndex(facts)
    ces = tuple(CondEffect(mask_of([i]), 0, mask_of([i]), 0) for i in range(1, 501))
    action = GroundAction("a", (), "a", 0, 0, 0, 0, (), (), (), (), ces)
    task = Task(index, (action,), 0, mask_of([0]), 0)   # (goal) is never added
    assert projection_unsolvable(task, total_work=100) is None
    proof = projection_unsolvable(task, total_work=1_000)
    assert proof is not None and proof.work >= 501
