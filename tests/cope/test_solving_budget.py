"""``cope check``'s solver: engines chosen by a lifted size estimate, Fast Downward given
CPU budgets (wall clock only a guard), and lama-first after lazy-ff (issue 9, item 18)."""
from __future__ import annotations

import pytest

import planning_core.search.fast_downward as fd
from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.result import Status
from planning_core.search.limited_process import WALL_GRACE_S
from planning_core.validate.simulator import validate_plan
from planning_core.validators.cope import solving

from tests.cope.minicope import DOMAIN, PROBLEM


def tower(blocks: int, height: int = 4):
    names = [f"b{i}" for i in range(blocks)]
    init = " ".join(f"(on-table {n}) (clear {n})" for n in names)
    goal = " ".join(f"(on {a} {b})" for a, b in zip(names[:height], names[1:height]))
    text = (f"(define (problem tower) (:domain blocksworld) (:objects {' '.join(names)}) "
            f"(:init {init} (arm-empty)) (:goal (and {goal})))")
    return parse_domain(DOMAIN), parse_problem(text)


def test_estimate_counts_groundings_per_type():
    domain, problem = parse_domain(DOMAIN), parse_problem(PROBLEM)
    # pickup, putdown: 3 each; stack, unstack: 3 * 3 each
    assert solving.estimated_actions(domain, problem) == 3 + 3 + 9 + 9
    assert solving.estimated_actions(*tower(50)) == 50 + 50 + 2500 + 2500


def test_small_tasks_are_solved_in_process():
    result = solving.solve_task(parse_domain(DOMAIN), parse_problem(PROBLEM), time_limit=10)
    assert result.status is Status.SOLVED and result.engine == "internal"


def test_large_tasks_go_to_fast_downward_with_cpu_budgets(monkeypatch):
    calls = []
    real = fd.run_limited

    def spy(cmd, **kwargs):
        calls.append((cmd, kwargs))
        return real(cmd, **kwargs)

    monkeypatch.setattr(fd, "run_limited", spy)
    domain, problem = tower(40)
    result = solving.solve_task(domain, problem, time_limit=20)
    assert result.status is Status.SOLVED and result.engine == "fast-downward"
    assert validate_plan(domain, problem, "\n".join(result.plan)).valid
    assert calls
    for _, kwargs in calls:
        # CPU decides; the wall-clock kill is far beyond it (not limit + grace)
        assert kwargs["wall_limit"] >= fd.CPU_BUDGET_WALL_FACTOR * kwargs["time_limit"]
        assert kwargs["wall_limit"] > kwargs["time_limit"] + WALL_GRACE_S


def test_lazy_ff_and_lama_first_each_get_the_whole_limit(monkeypatch):
    seen = []

    def fake(domain, problem, *, search, optimal, time_limit, cpu_budget):
        seen.append((search, time_limit, cpu_budget))
        if search == "lazy-ff":    # the search (not the translator) ran out
            return fd.SolveResult(Status.UNKNOWN, None, None, fd.ENGINE, 0.0,
                                  (("search", search),), "time limit")
        return fd.SolveResult(Status.SOLVED, ("(pickup b0)",), 1.0, fd.ENGINE, 0.0, (), "")

    monkeypatch.setattr(fd, "run_fast_downward", fake)
    result = solving.solve_task(*tower(50), time_limit=30)
    assert result.status is Status.SOLVED
    assert seen == [("lazy-ff", 30.0, True), ("lama-first", 30.0, True)]


def test_a_translator_stopped_at_a_limit_is_not_run_again(monkeypatch):
    """Both configurations share the translator: when it stops at a limit (no search was
    chosen), the second entry would only spend the same budget again."""
    seen = []

    def fake(domain, problem, *, search, optimal, time_limit, cpu_budget):
        seen.append(search)
        return fd.SolveResult(Status.UNKNOWN, None, None, fd.ENGINE, 0.0,
                              (("translate_wall_s", 1.0),), "memory limit")

    monkeypatch.setattr(fd, "run_fast_downward", fake)
    result = solving.solve_task(*tower(50), time_limit=30)
    assert result.status is Status.UNKNOWN and result.reason == "memory limit"
    assert seen == ["lazy-ff"]


@pytest.mark.parametrize("search", ["lama-first"])
def test_lama_first_is_a_named_configuration(search):
    assert "lm_rhw" in fd.SEARCHES[search] and "lazy_greedy" in fd.SEARCHES[search]


# ----------------------------------------------------- the in-process stage's work budget

def test_in_process_search_stops_at_its_work_budget_not_the_clock():
    """The work budget counts h_FF evaluations times ground actions: the same task stops
    after the same evaluations whatever the CPU limit, and the stop is UNKNOWN."""
    from planning_core.search.astar import greedy
    from planning_core.solve import ground_task

    task = ground_task(*tower(8, height=8))
    outcomes = []
    for time_limit in (5.0, 1000.0):
        metered = solving._Metered(task, 5 * len(task.actions) + len(task.actions) - 1)
        out = greedy(task, heuristic=metered, time_limit=time_limit, node_limit=10**6)
        outcomes.append((out.status, out.reason, out.expanded, out.generated))
    assert outcomes[0] == outcomes[1]
    status, reason, _, generated = outcomes[0]
    assert (status, reason) == (Status.UNKNOWN, "work limit")
    assert generated <= 5          # the initial state's evaluation is the sixth


def test_work_budget_rounds_down_but_allows_one_evaluation():
    from planning_core.limits import LimitReached
    from planning_core.solve import ground_task

    task = ground_task(parse_domain(DOMAIN), parse_problem(PROBLEM))
    metered = solving._Metered(task, 0)
    assert metered(task.init) >= 0
    with pytest.raises(LimitReached, match="work limit"):
        metered(task.init)


def test_conditional_effects_count_as_work():
    """An evaluation scans the relaxed operators: each conditional effect is one."""
    from planning_core.solve import ground_task

    domain = parse_domain("""(define (domain d) (:requirements :conditional-effects)
      (:predicates (p ?x) (q ?x) (r))
      (:action a :parameters (?x) :precondition (p ?x)
        :effect (and (q ?x) (when (q ?x) (r)) (forall (?y) (when (p ?y) (q ?y))))))""")
    problem = parse_problem("(define (problem t) (:domain d) (:objects o1 o2 o3) "
                            "(:init (p o1)) (:goal (r)))")
    task = ground_task(domain, problem)
    size = len(task.actions) + sum(len(a.cond_effects) for a in task.actions)
    assert size > len(task.actions) > 0
    assert solving._Metered(task, 10 * size).left == 10
    assert solving._Metered(task, 10 * size - 1).left == 9


def test_a_task_over_the_work_budget_goes_to_fast_downward(monkeypatch):
    monkeypatch.setattr(solving, "INTERNAL_WORK", 0)
    domain, problem = tower(8, height=8)
    result = solving.solve_task(domain, problem, time_limit=10)
    assert result.status is Status.SOLVED and result.engine == "fast-downward"
    assert validate_plan(domain, problem, "\n".join(result.plan)).valid


def test_relaxed_unreachability_is_proved_whatever_the_work_budget(monkeypatch):
    monkeypatch.setattr(solving, "INTERNAL_WORK", 0)
    # no (arm-empty) and nothing held: no action ever applies, (on a b) is unreachable
    problem = parse_problem("(define (problem stuck) (:domain blocksworld) (:objects a b) "
                            "(:init (on-table a) (on-table b) (clear a) (clear b)) "
                            "(:goal (on a b)))")
    result = solving.solve_task(parse_domain(DOMAIN), problem, time_limit=10)
    assert (result.status, result.engine, result.reason) == \
        (Status.UNSOLVABLE, "internal", "relaxed unreachable")


def test_the_costly_cope_pair_leaves_the_in_process_stage_by_its_work_budget(cope_pairs,
                                                                              monkeypatch):
    """BlocksWorld action/p10/constraint2 ("only 20 pick ups"): greedy h_FF used to spend
    the whole 10 CPU-s limit on it (~2,300 of its 5,000 expansions) before lazy-ff solved
    it in 0.14 s; the work budget stops it after ~1,600 evaluations whatever the limit."""
    from planning_core.search import astar
    from planning_core.validators.cope.groundtruth import GroundTruthCache

    (pair,) = [p for p in cope_pairs[0] if p.key == ("BlocksWorld-100", "action", "p10",
                                                      "constraint2")]
    truth = GroundTruthCache().load(pair)
    seen = []
    real = astar.greedy

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        seen.append((out.status, out.reason))
        return out

    monkeypatch.setattr(astar, "greedy", spy)
    assert solving._internal(truth.domain, truth.problem, 1000.0) is None
    assert seen == [(Status.UNKNOWN, "work limit")]
