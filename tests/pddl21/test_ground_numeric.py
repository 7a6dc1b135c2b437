"""Grounding PDDL 2.1 tasks (issue 28, item 3): reachability relaxed over propositions,
numeric conditions and effects kept on the ground actions."""
from __future__ import annotations

from pathlib import Path

import pytest

from planning_core.errors import UnsupportedFeature
from planning_core.ground.grounder import ground
from planning_core.ground.numeric import ground_numeric
from planning_core.pddl.parser import parse_domain, parse_domain_file, parse_problem, \
    parse_problem_file
from planning_core.pddl.writer import write_formula

FIXTURES = Path(__file__).resolve().parents[2] / "domains" / "pddl21"
DOMAINS = Path(__file__).resolve().parents[2] / "domains"


def _task(folder: str):
    d = FIXTURES / folder
    return parse_domain_file(d / "domain.pddl"), parse_problem_file(d / "p01.pddl")


def _by_name(nt):
    return {str(g): n for g, n in zip(nt.task.actions, nt.numeric)}


def test_numeric_conditions_and_effects_are_kept_ground():
    nt = ground_numeric(*_task("tanker"))
    parts = _by_name(nt)
    drive = parts["(drive t1 a b)"]
    assert [write_formula(c) for c in drive.conditions] == ["(>= (fuel t1) (distance a b))"]
    assert sorted(str(e.fluent) for e in drive.effects) == ["(fuel t1)", "(fuel-used)"]
    assert [e.op for e in parts["(refuel t1 b)"].effects] == ["assign"]
    assert [write_formula(c) for c in nt.goal_conditions] == ["(<= (demand c) 0)"]
    assert nt.fluents[("fuel", "t1")] == 5
    # reachability is relaxed over propositions: drive b c is reachable although the fuel
    # (5) is below its distance (6) until a refuel
    assert "(drive t1 b c)" in parts


def test_durative_actions_become_snap_actions_with_their_durations():
    nt = ground_numeric(*_task("kitchen"))
    parts = _by_name(nt)
    assert "(boil-start k1)" in parts and "(boil-end k1)" in parts
    assert [(d.op, str(d.value)) for d in parts["(boil-start k1)"].duration] == [
        ("=", "(boil-time k1)")]
    assert [d.op for d in parts["(warm-stove-start)"].duration] == [">=", "<="]
    assert sorted(getattr(e, "op", "increase") for e in parts["(warm-stove-end)"].effects) \
        == ["decrease", "increase"]
    # the timed initial literals are actions, so what they add is reachable
    assert {"(til-0)", "(til-1)"} <= set(parts)
    assert "(buy-milk-end)" in parts


def test_a_comparison_that_cannot_be_kept_is_refused_by_name():
    dom = parse_domain("(define (domain d) (:requirements :numeric-fluents) (:predicates (p))"
                       " (:functions (f)) (:action a :parameters () :precondition "
                       "(or (p) (> (f) 1)) :effect (p)))", "d.pddl")
    prob = parse_problem("(define (problem q) (:domain d) (:init (= (f) 2)) (:goal (p)))")
    with pytest.raises(UnsupportedFeature, match="comparison '>' inside a connective") as info:
        ground_numeric(dom, prob)
    assert info.value.file == "d.pddl" and info.value.line == 1


def test_a_classical_task_grounds_the_same_through_it():
    dom = parse_domain_file(DOMAINS / "costs" / "domain.pddl")
    prob = parse_problem_file(DOMAINS / "costs" / "p01.pddl")
    nt = ground_numeric(dom, prob)
    assert nt.task.actions == ground(dom, prob).actions
    assert not any(n.conditions or n.effects for n in nt.numeric)


def test_grounding_is_deterministic():
    a, b = ground_numeric(*_task("kitchen")), ground_numeric(*_task("kitchen"))
    assert [str(g) for g in a.task.actions] == [str(g) for g in b.task.actions]
    assert [[str(d.value) for d in n.duration] for n in a.numeric] == \
        [[str(d.value) for d in n.duration] for n in b.numeric]
