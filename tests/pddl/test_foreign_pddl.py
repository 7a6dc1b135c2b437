"""PDDL that real collections contain and FD and VAL accept (issue 9, items 10-13)."""
from __future__ import annotations

from textwrap import dedent

import pytest

from planning_core.console import main
from planning_core.errors import SemanticError
from planning_core.ground.grounder import ground
from planning_core.pddl.checker import check, errors_of
from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.solve import solve
from planning_core.validate.report import Verdict
from planning_core.validate.simulator import validate_plan

# IPC-2006 storage declares ``area`` twice: under object and under surface
STORAGE = dedent("""\
    (define (domain storage-like)
      (:requirements :strips :typing)
      (:types hoist surface place area - object
              container depot - place
              area crate - surface)
      (:predicates (at ?h - hoist ?a - area) (on ?c - crate ?s - surface) (clear ?s - surface))
      (:action drop
        :parameters (?h - hoist ?c - crate ?a - area)
        :precondition (and (at ?h ?a) (clear ?a))
        :effect (and (on ?c ?a) (not (clear ?a)))))
    """)

STORAGE_PROBLEM = dedent("""\
    (define (problem s1) (:domain storage-like)
      (:objects h - hoist c - crate a - area)
      (:init (at h a) (clear a) (not (on c a)))
      (:goal (on c a))
      (:metric minimize (total-time)))
    """)


def parsed(domain=STORAGE, problem=STORAGE_PROBLEM):
    return parse_domain(domain, "d.pddl"), parse_problem(problem, "p.pddl")


def test_duplicate_type_is_a_warning_and_its_supertypes_combine():
    domain, problem = parsed()
    diags = check(domain, problem)
    assert not errors_of(diags)
    dup = [d for d in diags if "declared twice" in d.message]
    assert len(dup) == 1 and dup[0].severity == "warning" and dup[0].line == 5
    # an area is a surface: (drop h c a) binds ?a (area) where on's ?s is a surface
    assert validate_plan(domain, problem, "(drop h c a)").valid


def test_negative_init_literal_is_accepted_with_a_warning():
    domain, problem = parsed()
    assert problem.init == tuple(a for a in problem.init if a.predicate != "on")
    [warning] = [d for d in check(domain, problem) if "negative literal" in d.message]
    assert warning.severity == "warning" and warning.line == 3
    assert ("on", "c", "a") not in {(a.predicate, *a.args) for a in problem.init}


def test_negative_init_literal_of_an_undeclared_predicate_is_still_an_error():
    domain, problem = parsed(problem=STORAGE_PROBLEM.replace("(not (on c a))", "(not (nope))"))
    assert any("nope" in d.message for d in errors_of(check(domain, problem)))


def test_total_time_metric_in_a_classical_problem_is_the_plan_length():
    domain, problem = parsed()
    diags = check(domain, problem)
    assert any("total-time" in d.message and d.severity == "warning" for d in diags)
    report = validate_plan(domain, problem, "(drop h c a)")
    assert report.valid and report.cost == 1
    result = solve(domain, problem, optimal=True, engine="internal")
    assert result.solved and result.cost == 1


def test_cli_validate_accepts_the_foreign_files(tmp_path, capsys):
    files = {"d.pddl": STORAGE, "p.pddl": STORAGE_PROBLEM, "plan": "(drop h c a)\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    code = main(["validate", *(str(tmp_path / n) for n in files)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "warning: type 'area' is declared twice" in err
    assert "Final value: 1" in out


ROADS = dedent("""\
    (define (domain roads)
      (:requirements :strips :typing :action-costs)
      (:types place)
      (:predicates (at ?p - place))
      (:functions (total-cost) - number (length ?a ?b - place) - number)
      (:action drive :parameters (?a ?b - place)
        :precondition (at ?a)
        :effect (and (not (at ?a)) (at ?b) (increase (total-cost) (length ?a ?b)))))
    """)

ROADS_PROBLEM = dedent("""\
    (define (problem r) (:domain roads)
      (:objects x y - place)
      (:init (at x) (= (total-cost) 0) (= (length x y) 2))
      (:goal (at x))
      (:metric minimize (total-cost)))
    """)


def test_undefined_action_cost_is_a_located_error_when_grounding():
    domain, problem = parsed(ROADS, ROADS_PROBLEM)
    with pytest.raises(SemanticError, match=r"\(length x x\) of action \(drive x x\)") as info:
        ground(domain, problem)
    assert (info.value.file, info.value.line) == ("d.pddl", 8)


def test_undefined_action_cost_refuses_the_plan():
    domain, problem = parsed(ROADS, ROADS_PROBLEM)
    report = validate_plan(domain, problem, "(drive x y)\n(drive y x)")
    assert report.verdict is Verdict.UNDEFINED_VALUE and report.step == 2
