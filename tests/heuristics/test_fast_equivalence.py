"""The faster search code gives exactly the values and plans of the code before it (issue 24).

``tests/heuristics/reference_lmcut.py`` keeps the LM-cut implementation as it was before
the speed work; the current one must agree with it on every state of seeded random walks
over bundled and shared IPC tasks (LM-cut's value depends on its tie-breaking, so equal
values also mean the same cuts were found), and A* with either must expand the same
number of nodes and return the same plan.
"""
from __future__ import annotations

import random

import pytest

from conftest import DOMAINS
from heuristics.reference_lmcut import ReferenceLMCut
from shared_files import MISSING, ipc_rows, resolve
from planning_core.ground.grounder import ground
from planning_core.heuristics.lmcut import LMCut
from planning_core.pddl.parser import parse_domain_file, parse_problem_file
from planning_core.search.astar import astar

BUNDLED = ("blocksworld", "logistics", "gripper", "ferry", "grid", "costs", "swap", "coins")
IPC = ("parking-opt11-strips/pfile03-011.pddl", "elevators-opt08-strips/p01.pddl",
       "sokoban-opt08-strips/p01.pddl", "blocks/probBLOCKS-6-0.pddl", "depot/p01.pddl",
       "scanalyzer-opt11-strips/p01.pddl", "tpp/p03.pddl", "floortile-opt11-strips/opt-p01-001.pddl")


def _walk(task, rng: random.Random, length: int) -> list[int]:
    states = [task.init]
    for _ in range(length):
        succ = task.applicable(states[-1])
        if not succ:
            break
        states.append(task.progress(states[-1], rng.choice(succ)))
    return states


def _lmcut_task(task) -> bool:
    return not task.has_conditional_effects and not task.has_axioms


def _bundled():
    for name in BUNDLED:
        folder = DOMAINS / name
        for problem in sorted(folder.glob("p0[1-2].pddl")):
            task = ground(parse_domain_file(folder / "domain.pddl"), parse_problem_file(problem))
            if _lmcut_task(task):
                yield f"{name}/{problem.stem}", task


def _ipc_params():
    rows = {f"{r['domain_dir']}/{r['problem']}": r for r in ipc_rows()}
    return [(rel, rows[rel]["domain_file"]) for rel in IPC if rel in rows] or [(MISSING, "")]


def test_lmcut_equals_the_reference_on_bundled_tasks():
    rng = random.Random(24)
    checked = 0
    for name, task in _bundled():
        fast, ref = LMCut(task), ReferenceLMCut(task)
        for s in _walk(task, rng, 12):
            assert fast(s) == ref(s), name
            checked += 1
    assert checked >= 40


@pytest.mark.parametrize("rel,domain_file", _ipc_params())
def test_lmcut_equals_the_reference_on_ipc_tasks(rel, domain_file):
    if rel == MISSING:
        resolve(MISSING)
    folder = resolve("ipc/" + rel.split("/")[0])
    task = ground(parse_domain_file(folder / domain_file), parse_problem_file(resolve("ipc/" + rel)))
    assert _lmcut_task(task)
    fast, ref = LMCut(task), ReferenceLMCut(task)
    rng = random.Random(rel)
    values = [(fast(s), ref(s)) for s in _walk(task, rng, 8)]
    assert all(a == b for a, b in values), values
    assert any(a > 0 for a, _ in values)


def test_astar_with_lmcut_expands_and_plans_as_with_the_reference():
    for name, task in list(_bundled())[:8]:
        fast = astar(task, heuristic="lmcut", node_limit=3000)
        ref = astar(task, heuristic=ReferenceLMCut(task), node_limit=3000)
        assert (fast.status, fast.plan, fast.cost) == (ref.status, ref.plan, ref.cost), name
        assert (fast.expanded, fast.generated) == (ref.expanded, ref.generated), name


def test_lmcut_equals_the_reference_on_random_tasks_with_zero_costs():
    """Hostile for the cut search: random STRIPS tasks with many zero-cost actions (zero-cost
    cycles, ties of h_max), several goals and shared preconditions, every reachable state."""
    from heuristics.hand_tasks import make_task

    rng = random.Random(2024)
    facts = [f"f{i}" for i in range(9)]
    checked = 0
    for _ in range(60):
        actions = []
        for k in range(rng.randint(4, 12)):
            pre = rng.sample(facts, rng.randint(0, 3))
            add = rng.sample(facts, rng.randint(1, 3))
            dele = rng.sample(facts, rng.randint(0, 2))
            actions.append((f"a{k}", pre, add, dele, rng.choice([0, 0, 1, 2, 5])))
        init = rng.sample(facts, rng.randint(1, 3))
        goal = rng.sample(facts, rng.randint(1, 3))
        task = make_task(actions, init, goal, facts=facts)
        fast, ref = LMCut(task), ReferenceLMCut(task)
        seen, todo = {task.init}, [task.init]
        while todo and len(seen) < 200:
            s = todo.pop()
            assert fast(s) == ref(s), (actions, init, goal, s)
            checked += 1
            for a in task.applicable(s):
                t = task.progress(s, a)
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
    assert checked > 500
