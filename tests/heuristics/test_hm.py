"""h^2 reachability (planning_core.heuristics.hm) against brute-force reachability.

Soundness is what matters: every pair of facts of every reachable state must be h^2-
reachable, so h^2 never calls a solvable task unsolvable. Random small tasks (with negative
preconditions and conditional effects) are explored exhaustively and compared."""
from __future__ import annotations

import random

import pytest

from planning_core.ground.facts import bits
from planning_core.heuristics.hm import h2_reachability, h2_unsolvable
from tests.heuristics.hand_tasks import make_task


def reachable_states(task) -> set[int]:
    seen, todo = {task.init}, [task.init]
    while todo:
        state = todo.pop()
        for action in task.applicable(state):
            nxt = task.progress(state, action)
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def random_task(rng: random.Random, n_facts: int = 6, n_actions: int = 7):
    facts = [f"f{i}" for i in range(n_facts)]

    def some(k):
        return rng.sample(facts, rng.randint(0, k))

    actions = []
    for k in range(n_actions):
        pre, add, dele = some(2), some(2), some(2)
        ces = []
        for _ in range(rng.choice((0, 0, 1, 2))):
            ces.append((some(2), some(1), some(2), some(2)))
        actions.append((f"a{k}", pre, add, dele, 1, some(1), ces))
    init = some(3)
    goal = rng.sample(facts, rng.randint(1, 3))
    return make_task(actions, init, goal, facts=facts)


@pytest.mark.parametrize("seed", range(300))
def test_every_reachable_pair_is_h2_reachable(seed):
    task = random_task(random.Random(seed))
    out = h2_reachability(task, stop_mask=0)
    assert out.complete
    for state in reachable_states(task):
        for p in bits(state):
            assert state & ~out.pairs[p] == 0, (seed, task.atoms_of(state))
        assert out.reachable(state)
    solvable = any(task.is_goal(s) for s in reachable_states(task))
    if solvable:
        assert h2_unsolvable(task) is False
        assert out.reachable(task.goal_pos)


def test_random_tasks_include_h2_proofs():
    # the property test above would pass on an analysis that proves nothing: make sure h^2
    # proves unsolvability of some random tasks, and that each is truly unsolvable
    proved = 0
    for seed in range(300):
        task = random_task(random.Random(seed))
        if h2_unsolvable(task):
            proved += 1
            assert not any(task.is_goal(s) for s in reachable_states(task))
    assert proved >= 5


def toggle_task():
    # p and q are each reachable, never together: the delete relaxation misses it
    return make_task([("make-p", [], ["p"], ["q"]), ("make-q", [], ["q"], ["p"])],
                     [], ["p", "q"])


def test_mutex_goal_is_proved_unsolvable_where_relaxation_is_not():
    from planning_core.heuristics.relaxed import goal_relaxed_reachable
    task = toggle_task()
    assert goal_relaxed_reachable(task)
    assert h2_unsolvable(task) is True
    assert not any(task.is_goal(s) for s in reachable_states(task))


def test_conditional_effects_adding_together_are_reachable_together():
    # one action whose two conditional effects fire together: p and q become true at once
    task = make_task([("go", ["s"], [], ["s"], 1, [], [(["s"], [], ["p"], []),
                                                       (["s"], [], ["q"], [])]),
                      ("lose-p", ["p"], [], ["p"]), ("lose-q", ["q"], [], ["q"])],
                     ["s"], ["p", "q"])
    assert h2_unsolvable(task) is False


def test_budget_is_deterministic_and_gives_no_proof():
    task = toggle_task()
    out = h2_reachability(task, work=3)
    assert not out.complete
    assert h2_unsolvable(task, work=3) is None
    assert h2_reachability(task, work=3) == out
    assert h2_reachability(task).work == h2_reachability(task).work
