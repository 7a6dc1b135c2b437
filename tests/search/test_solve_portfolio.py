"""The ``auto`` portfolio's first step (issue 9, item 16; benchmarks/results/solve_portfolio.md).

airport-adl p21 went to Fast Downward because its lifted problem is big, and FD's translator
took 95 s on a task the internal search solves in 4.7 s: FD's translator is slow on
quantified and conditional (ADL) domains, so a big ADL task is ground and searched
in-process first.
"""
from __future__ import annotations

from textwrap import dedent

from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.result import Status
from planning_core.solve import AUTO_MAX_OBJECTS, auto_route, solve

STRIPS = dedent("""\
    (define (domain hops) (:requirements :strips)
      (:predicates (at ?x) (link ?x ?y))
      (:action hop :parameters (?x ?y) :precondition (and (at ?x) (link ?x ?y))
        :effect (and (at ?y) (not (at ?x)))))
    """)
ADL = dedent("""\
    (define (domain hops) (:requirements :adl)
      (:predicates (at ?x) (link ?x ?y) (seen ?x))
      (:action hop :parameters (?x ?y) :precondition (and (at ?x) (link ?x ?y))
        :effect (and (at ?y) (not (at ?x)) (forall (?z) (when (link ?z ?y) (seen ?z))))))
    """)


def problem(n: int) -> str:
    objs = " ".join(f"n{i}" for i in range(n))
    links = " ".join(f"(link n{i} n{i + 1})" for i in range(n - 1))
    return (f"(define (problem line) (:domain hops) (:objects {objs}) "
            f"(:init (at n0) {links}) (:goal (at n{n - 1})))")


def test_big_adl_tasks_are_searched_in_process_first():
    big = parse_problem(problem(AUTO_MAX_OBJECTS + 50), "p")
    assert auto_route(parse_domain(ADL, "d"), big) == "internal-long"
    assert auto_route(parse_domain(STRIPS, "d"), big) == "fd"
    small = parse_problem(problem(10), "p")
    assert auto_route(parse_domain(ADL, "d"), small) == "internal"


def test_big_adl_task_solved_without_fast_downward():
    domain = parse_domain(ADL, "d")
    result = solve(domain, parse_problem(problem(AUTO_MAX_OBJECTS + 50), "p"),
                   optimal=False, time_limit=120)
    assert result.status is Status.SOLVED and result.engine == "internal"
    assert len(result.plan) == AUTO_MAX_OBJECTS + 49
