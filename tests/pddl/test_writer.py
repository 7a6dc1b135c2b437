"""Writer: parse -> write -> parse gives an equal AST, and writing is deterministic."""
from __future__ import annotations

import pytest

from planning_core.pddl import ast as pddl
from planning_core.pddl.parser import parse, read_text
from planning_core.pddl.writer import write_domain, write_problem
from shared_files import MALFORMED_SHARED, cope_pddl_files, ipc_pddl_files, resolve


def _write(node) -> str:
    return write_domain(node) if isinstance(node, pddl.Domain) else write_problem(node)


@pytest.mark.parametrize("rel", [f for f in ipc_pddl_files() + cope_pddl_files()
                                 if f not in MALFORMED_SHARED])
def test_round_trip(rel):
    node = parse(read_text(resolve(rel)))
    text = _write(node)
    again = parse(text)
    assert again == node
    assert _write(again) == text  # a fixpoint: writing is deterministic


def test_untyped_lists_are_written_bare_and_either_kept():
    d = parse("(define (domain d) (:requirements :typing) (:types a b) "
              "(:predicates (p ?x) (q ?y - (either a b))))")
    text = write_domain(d)
    assert "(p ?x)" in text and "(q ?y - (either a b))" in text
    assert parse(text) == d


def test_requirements_override():
    d = parse("(define (domain d) (:requirements :strips) (:predicates (p)))")
    assert "(:requirements :adl)" in write_domain(d, requirements=(":adl",))


def test_numbers_written_exactly():
    p = parse("(define (problem p) (:domain d) (:init (= (f) 2.5) (= (g) 3)) (:goal (and)))")
    text = write_problem(p)
    assert "(= (f) 2.5)" in text and "(= (g) 3)" in text


def test_constraints_round_trip():
    text = ("(define (domain d) (:predicates (p ?x) (q)) (:constraints (forall (?x) (always (p ?x)))))")
    d = parse(text)
    assert parse(write_domain(d)) == d
    p = parse("(define (problem x) (:domain d) (:objects a) (:init) (:goal (q)) (:constraints "
              "(and (sometime-before (q) (p a)) (sometime-after (p a) (q)) (at-most-once (q)) "
              "(sometime (q)) (at end (q)))))")
    assert parse(write_problem(p)) == p
