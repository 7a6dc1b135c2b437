"""Refusal verdicts and optimal costs against brute-force search on the tool semantics.

The oracle below does not use PDDL: it runs Dijkstra over states (available data types,
called tools, call counts) straight from the task's JSON meaning. A call is possible when
the tool works, is not forbidden, every data parameter and required type has an item, its
``after`` tools and ``not_before`` tools were called, and no call limit is reached. Which
item an argument takes does not change the state (one output item per tool and type), so
the state space is small. Run on every dataset task and on seeded random small tasks.
"""
from __future__ import annotations

import heapq
import random

import pytest

from planning_core.validators.toolplans import TaskContext, check_output, parse_task
from planning_core.validators.toolplans.dataset import load_dataset

from tests.toolplans.toolplans_fixtures import DATASET


def brute_force(task) -> float | None:
    """Optimal cost of a chain, None when there is none."""
    limits = {c.tool: c.n for c in task.constraints if c.kind == "at_most" and c.tool}
    total = min([c.n for c in task.constraints if c.kind == "at_most" and not c.tool], default=None)
    before = {t.name: set(t.after) for t in task.tools}
    for c in task.constraints:
        if c.kind == "not_before":
            before[c.tool].add(c.until)
    must = {c.tool for c in task.constraints if c.kind == "must_call"}
    usable = [t for t in task.tools if t.name not in task.broken and t.name not in task.forbidden]
    start = (frozenset(i.type for i in task.items), frozenset(), (), 0)
    best = {start: 0}
    heap = [(0, 0, start)]
    tie = 0
    while heap:
        cost, _, state = heapq.heappop(heap)
        if cost > best[state]:
            continue
        have, called, counts, n = state
        if set(task.goal) <= have and must <= called:
            return cost
        counted = dict(counts)
        for t in usable:
            if any(p.data_type not in have for p in t.data_params) or not set(t.requires) <= have:
                continue
            if not before[t.name] <= called:
                continue
            if counted.get(t.name, 0) >= limits.get(t.name, 10**9) or (total is not None and n >= total):
                continue
            new_counts = dict(counted)
            if t.name in limits:
                new_counts[t.name] = counted.get(t.name, 0) + 1
            nxt = (have | set(t.produces), called | {t.name}, tuple(sorted(new_counts.items())),
                   n + 1 if total is not None else 0)
            if nxt not in best or cost + t.cost < best[nxt]:
                best[nxt] = cost + t.cost
                tie += 1
                heapq.heappush(heap, (cost + t.cost, tie, nxt))
    return None


def random_task(seed: int):
    rng = random.Random(seed)
    types = [f"t{k}" for k in range(rng.randint(3, 6))]
    tools = []
    for k in range(rng.randint(2, 6)):
        ins = rng.sample(types, rng.randint(0, 2))
        props = {f"p{j}": {"type": "string", "x-data-type": x} for j, x in enumerate(ins)}
        note = {"produces": rng.sample(types, rng.randint(1, 2))}
        if rng.random() < 0.2:
            note["requires"] = [rng.choice(types)]
        if rng.random() < 0.3:
            note["cost"] = rng.randint(0, 3)
        tools.append({"name": f"tool{k}", "parameters": {"type": "object", "properties": props,
                                                         "required": list(props)},
                      "x-planning": note})
    names = [t["name"] for t in tools]
    items = [{"name": f"i{j}", "type": x} for j, x in enumerate(rng.sample(types, rng.randint(0, 2)))]
    constraints = []
    if rng.random() < 0.4:
        a, b = rng.sample(names, 2)
        constraints.append({"kind": "not_before", "tool": a, "until": b})
    if rng.random() < 0.4:
        constraints.append({"kind": "at_most", "tool": rng.choice(names), "n": rng.randint(0, 2)})
    if rng.random() < 0.3:
        constraints.append({"kind": "at_most", "n": rng.randint(1, 4)})
    if rng.random() < 0.2:
        constraints.append({"kind": "must_call", "tool": rng.choice(names)})
    return parse_task({"id": f"random-{seed}", "tools": tools, "items": items,
                       "goal": rng.sample(types, rng.randint(1, 2)),
                       "broken": rng.sample(names, 1) if rng.random() < 0.3 else [],
                       "forbidden": rng.sample(names, 1) if rng.random() < 0.3 else [],
                       "constraints": constraints})


SMALL = [r.task for r in load_dataset(DATASET)] + [random_task(s) for s in range(150)]


@pytest.mark.parametrize("task", SMALL, ids=lambda t: t.id)
def test_refusal_verdict_and_optimum_agree_with_brute_force(task):
    expected = brute_force(task)
    ctx = TaskContext(task)
    feas = ctx.feasibility(engine="internal", time_limit=30)
    assert feas.solvable is (expected is not None), feas
    assert feas.cost == expected
    assert check_output(ctx, "REFUSE", engine="internal").correct is (expected is None)
    if expected is None:
        assert feas.kind in ("missing_tool", "missing_input", "contradictory_constraints")


def test_random_tasks_cover_both_answers_and_all_kinds():
    answers = [brute_force(t) for t in SMALL[-150:]]
    assert sum(a is None for a in answers) >= 20 and sum(a is not None for a in answers) >= 20
    kinds = {TaskContext(t).feasibility(engine="internal").kind for t in SMALL}
    assert kinds >= {"missing_tool", "missing_input", "contradictory_constraints", None}
