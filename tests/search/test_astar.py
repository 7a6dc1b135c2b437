"""A* and breadth-first search: optimality against BFS, limits, forbidden facts, determinism."""
import random
import textwrap

import pytest

from heuristics.hand_tasks import make_task
from planning_core.ground.grounder import ground
from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.result import Status
from planning_core.search.astar import HEURISTICS, astar, choose_heuristic, greedy
from planning_core.search.bfs import bfs

GRIPPER = textwrap.dedent("""
    (define (domain gripper) (:requirements :strips)
      (:predicates (room ?r) (ball ?b) (gripper ?g) (at-robby ?r) (at ?b ?r) (free ?g)
                   (carry ?o ?g))
      (:action move :parameters (?from ?to)
        :precondition (and (room ?from) (room ?to) (at-robby ?from))
        :effect (and (at-robby ?to) (not (at-robby ?from))))
      (:action pick :parameters (?obj ?room ?g)
        :precondition (and (ball ?obj) (room ?room) (gripper ?g) (at ?obj ?room)
                           (at-robby ?room) (free ?g))
        :effect (and (carry ?obj ?g) (not (at ?obj ?room)) (not (free ?g))))
      (:action drop :parameters (?obj ?room ?g)
        :precondition (and (ball ?obj) (room ?room) (gripper ?g) (carry ?obj ?g)
                           (at-robby ?room))
        :effect (and (at ?obj ?room) (free ?g) (not (carry ?obj ?g)))))
""")


def gripper(n_balls):
    balls = " ".join(f"b{i}" for i in range(n_balls))
    init = " ".join(f"(ball b{i}) (at b{i} rooma)" for i in range(n_balls))
    goal = " ".join(f"(at b{i} roomb)" for i in range(n_balls))
    problem = (f"(define (problem g{n_balls}) (:domain gripper) (:objects rooma roomb left right {balls})"
               f"(:init (room rooma) (room roomb) (gripper left) (gripper right) (at-robby rooma)"
               f" (free left) (free right) {init}) (:goal (and {goal})))")
    return ground(parse_domain(GRIPPER), parse_problem(problem))


@pytest.mark.parametrize("n,cost", [(1, 3), (2, 5), (3, 9), (4, 11)])
def test_gripper_optimal_costs(n, cost):
    task = gripper(n)
    for h in ("lmcut", "hmax", "blind"):
        out = astar(task, heuristic=h)
        assert out.status is Status.SOLVED and out.cost == cost, h
    assert bfs(task).cost == cost


def _check_plan(task, actions):
    s = task.init
    for a in actions:
        assert a.applicable(s)
        s = task.progress(s, a)
    assert task.is_goal(s)


def random_unit_task(rng):
    facts = [f"f{i}" for i in range(7)]
    actions = []
    for k in range(9):
        pre = rng.sample(facts, rng.randint(0, 2))
        add = rng.sample(facts, rng.randint(1, 2))
        dele = [f for f in rng.sample(facts, rng.randint(0, 2)) if f not in add]
        neg = [f for f in rng.sample(facts, rng.randint(0, 1)) if f not in pre]
        actions.append((f"a{k}", pre, add, dele, 1, neg))
    return make_task(actions, rng.sample(facts, 2), rng.sample(facts, 2), facts=facts)


@pytest.mark.parametrize("seed", range(120))
def test_astar_cost_equals_bfs_cost_on_unit_tasks(seed):
    task = random_unit_task(random.Random(seed))
    reference = bfs(task)
    for h in ("lmcut", "hmax", "blind"):
        out = astar(task, heuristic=h)
        assert out.status is reference.status, (seed, h)
        if out.status is Status.SOLVED:
            assert out.cost == reference.cost == len(out.actions)
            _check_plan(task, out.actions)
    found = greedy(task)
    assert found.status is reference.status
    if found.status is Status.SOLVED:
        _check_plan(task, found.actions)


def test_costs_prefer_cheaper_longer_plan():
    task = make_task([("direct", ["s"], ["g"], [], 10), ("step1", ["s"], ["m"], [], 1),
                      ("step2", ["m"], ["g"], [], 1)], ["s"], ["g"])
    out = astar(task)
    assert out.cost == 2 and [a.name for a in out.actions] == ["step1", "step2"]
    assert bfs(task).cost == 10  # breadth-first search minimises steps, not cost


def test_unsolvable_is_proved_and_limits_give_unknown():
    task = make_task([("a", ["p"], ["q"], ["p"]), ("b", ["q"], ["p"], ["q"])], ["p"],
                     ["p", "q"])
    assert astar(task).status is Status.UNSOLVABLE
    assert astar(task).reason == "search exhausted"
    assert bfs(task).status is Status.UNSOLVABLE
    big = gripper(4)
    limited = astar(big, heuristic="blind", node_limit=5)
    assert limited.status is Status.UNKNOWN and limited.reason == "node limit"
    timed = astar(big, heuristic="blind", time_limit=0.0)
    assert timed.status is Status.UNKNOWN and timed.reason == "time limit"
    assert bfs(big, node_limit=3).status is Status.UNKNOWN


def test_relaxed_dead_start_is_unsolvable_without_search():
    task = make_task([("a", ["x"], ["g"], [])], ["p"], ["g"], facts=["x"])
    out = astar(task)
    assert out.status is Status.UNSOLVABLE and out.expanded == 0


def test_forbidden_prunes_states():
    task = make_task([("via-m", ["s"], ["m"], ["s"]), ("m-g", ["m"], ["g"], []),
                      ("long1", ["s"], ["n"], ["s"]), ("long2", ["n"], ["o"], []),
                      ("long3", ["o"], ["g"], [])], ["s"], ["g"])
    m = 1 << task.facts.id(("m",))
    assert astar(task).cost == 2
    assert astar(task, forbidden=m).cost == 3
    assert bfs(task, forbidden=m).cost == 3


def test_heuristic_choice_by_features():
    assert choose_heuristic(gripper(1)) == "lmcut"
    task = make_task([("a", ["p"], [], [], 1, [], [(["p"], [], ["g"], [])])], ["p"], ["g"])
    assert choose_heuristic(task) == "hmax"
    assert astar(task).cost == 1
    assert set(HEURISTICS) >= {"blind", "hmax", "lmcut", "hadd", "ff"}


def test_deterministic():
    task = gripper(3)
    first = astar(task)
    second = astar(gripper(3))
    assert first.plan == second.plan and first.expanded == second.expanded
