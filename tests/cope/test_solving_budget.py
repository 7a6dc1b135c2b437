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
