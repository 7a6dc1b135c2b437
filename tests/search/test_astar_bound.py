"""A* with a cost bound (nexta's check): the same optimal cost when a plan is within the
bound, UNSOLVABLE (no plan within the bound) otherwise, never more expansions than the
unbounded search; and solved outcomes report their expansions."""
from __future__ import annotations

from pathlib import Path

import pytest

from planning_core.ground.grounder import ground
from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.result import Status
from planning_core.search.astar import astar

DOMAINS = Path(__file__).resolve().parents[2] / "domains"

CASES = [("blocksworld", "p02"), ("gripper", "p01"), ("logistics", "p01"), ("ferry", "p01")]


def _task(name, problem):
    folder = DOMAINS / name
    return ground(parse_domain((folder / "domain.pddl").read_text()),
                  parse_problem((folder / f"{problem}.pddl").read_text()))


@pytest.mark.parametrize("name,problem", CASES)
def test_a_bound_keeps_the_optimum_and_refutes_anything_cheaper(name, problem):
    task = _task(name, problem)
    free = astar(task)
    assert free.status is Status.SOLVED and free.expanded > 0
    at = astar(task, cost_bound=free.cost)
    assert at.status is Status.SOLVED and at.cost == free.cost
    assert at.expanded <= free.expanded
    below = astar(task, cost_bound=free.cost - 1)
    assert below.status is Status.UNSOLVABLE and below.reason == "no plan within the cost bound"
    assert below.expanded <= free.expanded
    assert astar(task, cost_bound=-1).status is Status.UNSOLVABLE
