"""The specialised h_add (``h_add``, ``h_add_of``: issue 32) gives exactly the value of the
generic generalised-Dijkstra code it replaced (``_dijkstra`` summed over the goal), with and
without forbidden facts, with zero, unit and fractional costs, conditional effects and
axioms; and greedy search with it expands and plans exactly as with the generic code."""
from __future__ import annotations

import random

from conftest import DOMAINS
from heuristics.hand_tasks import make_task
from planning_core.ground.grounder import ground
from planning_core.heuristics.relaxed import _dijkstra, h_add, h_add_of, relaxed_task
from planning_core.pddl.parser import parse_domain_file, parse_problem_file
from planning_core.search.astar import greedy

BUNDLED = ("blocksworld", "logistics", "gripper", "ferry", "grid", "costs", "swap", "coins",
           "adl-showcase", "household")


def _generic(task, state: int, forbidden: int = 0) -> float:
    rt = relaxed_task(task)
    cost, _, _ = _dijkstra(rt, state, False, rt.goal_ids, rt.excluded_ops(forbidden))
    return sum(cost[g] for g in rt.goal_ids)


def _walk(task, rng: random.Random, length: int) -> list[int]:
    states = [task.init]
    for _ in range(length):
        succ = task.applicable(states[-1])
        if not succ:
            break
        states.append(task.progress(states[-1], rng.choice(succ)))
    return states


def _bundled():
    for name in BUNDLED:
        folder = DOMAINS / name
        for problem in sorted(folder.glob("p0[1-2].pddl")):
            yield f"{name}/{problem.stem}", ground(parse_domain_file(folder / "domain.pddl"),
                                                   parse_problem_file(problem))


def test_equal_to_the_generic_code_on_bundled_tasks():
    rng = random.Random(32)
    checked = kinds = 0
    for name, task in _bundled():
        kinds += task.has_conditional_effects or task.has_axioms
        n = len(task.facts)
        masks = [0] + [1 << rng.randrange(n) for _ in range(3)] if n else [0]
        for s in _walk(task, rng, 10):
            for forbidden in masks:
                want = _generic(task, s, forbidden)
                assert h_add(task, s, forbidden=forbidden) == want, (name, s, forbidden)
                assert h_add_of(task, forbidden)(s) == want, (name, s, forbidden)
                checked += 1
    assert checked >= 300
    assert kinds >= 1      # conditional effects or axioms were among them


def test_equal_on_random_tasks_with_zero_and_fractional_costs():
    rng = random.Random(2032)
    facts = [f"f{i}" for i in range(9)]
    checked = 0
    for _ in range(60):
        actions = []
        for k in range(rng.randint(4, 12)):
            pre = rng.sample(facts, rng.randint(0, 3))
            add = rng.sample(facts, rng.randint(1, 3))
            dele = rng.sample(facts, rng.randint(0, 2))
            actions.append((f"a{k}", pre, add, dele, rng.choice([0, 0, 1, 2, 0.1, 0.7, 1.3])))
        init = rng.sample(facts, rng.randint(1, 3))
        goal = rng.sample(facts, rng.randint(0, 3))
        task = make_task(actions, init, goal, facts=facts)
        seen, todo = {task.init}, [task.init]
        while todo and len(seen) < 60:
            s = todo.pop()
            for forbidden in (0, 1 << rng.randrange(len(facts))):
                assert h_add_of(task, forbidden)(s) == _generic(task, s, forbidden), (
                    actions, init, goal, s, forbidden)
                checked += 1
            for a in task.applicable(s):
                t = task.progress(s, a)
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
    assert checked > 1000


def test_greedy_search_expands_and_plans_as_with_the_generic_code():
    rng = random.Random(7)
    for name, task in list(_bundled())[:12]:
        n = len(task.facts)
        for forbidden in (0, 1 << rng.randrange(n)) if n else (0,):
            fast = greedy(task, heuristic="hadd", forbidden=forbidden, node_limit=2000)
            ref = greedy(task, heuristic=lambda s, t=task, m=forbidden: _generic(t, s, m),
                         forbidden=forbidden, node_limit=2000)
            assert (fast.status, fast.plan, fast.cost) == (ref.status, ref.plan, ref.cost), name
            assert (fast.expanded, fast.generated) == (ref.expanded, ref.generated), name


def test_start_tables_are_kept_per_task_and_mask():
    """The per-mask start tables (``_hadd_start``) never leak between masks or tasks, also
    when the table is cleared at its size limit."""
    from planning_core.heuristics import relaxed

    tasks = [task for _, task in _bundled()][:4]
    rng = random.Random(11)
    states = {id(t): _walk(t, rng, 6) for t in tasks}
    for round_ in range(2):
        for task in tasks:
            n = len(task.facts)
            for k in range(min(n, 40)):               # interleaved masks, twice over
                mask = (1 << k) | (1 << ((k * 7 + round_) % n))
                h = h_add_of(task, mask)
                for s in states[id(task)]:
                    assert h(s) == _generic(task, s, mask), (task.name, k)
    rt = relaxed.relaxed_task(tasks[0])
    for k in range(300):                              # past the 256-entry limit
        relaxed._hadd_start(rt, k << 1)
    assert len(rt._hadd_start) <= 256
    s = tasks[0].init
    assert h_add(tasks[0], s, forbidden=2) == _generic(tasks[0], s, 2)
