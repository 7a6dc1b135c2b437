"""Hostile inputs for the phase limits (issue 19, items 1-3): small texts that make one
phase explode, built here so each test stays a few seconds long."""
from __future__ import annotations

import itertools

BLOCK_FACTS = tuple([f"(on {x} {y})" for x in "abc" for y in "abc" if x != y]
                    + [f"({p} {x})" for p in ("clear", "holding", "on-table") for x in "abc"])


def x_shifted_disjunctions(n: int) -> str:
    """A conjunction of ``n`` ``X (X^k p | X^k q | X^k !p)``: progressing it once gives
    ``3**n`` clauses of distinct obligations (none absorbs another), inside one step."""
    pairs = list(itertools.combinations(BLOCK_FACTS, 2))
    parts = []
    for i in range(n):
        p, q = pairs[i * 7 % len(pairs)]
        shift = "X " * (i + 1)
        parts.append(f"X ({shift}{p} | {shift}{q} | {shift}!{p})")
    return " & ".join(parts)


QUANTIFIED_DOMAIN = """\
(define (domain q)
  (:requirements :strips :typing :quantified-preconditions :disjunctive-preconditions)
  (:types obj)
  (:predicates (p ?a ?b ?c ?d ?e ?f - obj) (done))
  (:action finish :parameters () :precondition () :effect (done)))
"""


def quantified_problem(objects: int = 40, guard: str = "") -> str:
    """A goal ``forall`` over 6 variables (``objects**6`` instances, 4e9 for 40), each
    instance an unknown fluent atom, so neither grounding nor advice can stop early.
    ``guard`` (e.g. ``"(done)"``) makes every instance true once it holds."""
    names = " ".join(f"o{i}" for i in range(objects))
    body = "(p ?a ?b ?c ?d ?e ?f)" if not guard else f"(or {guard} (p ?a ?b ?c ?d ?e ?f))"
    return (f"(define (problem q1) (:domain q)\n  (:objects {names} - obj)\n  (:init)\n"
            f"  (:goal (and (done) (forall (?a ?b ?c ?d ?e ?f - obj) {body}))))\n")


def many_init_problem(facts: int) -> str:
    """A problem of ``facts`` flat ``:init`` atoms for :data:`QUANTIFIED_DOMAIN`'s world."""
    lines = [f"  (p o{i % 97} o{i // 97 % 97} o1 o1 o1 o1)" for i in range(facts)]
    names = " ".join(f"o{i}" for i in range(97))
    return (f"(define (problem big) (:domain q)\n  (:objects {names} - obj)\n  (:init\n"
            + "\n".join(lines) + "\n  )\n  (:goal (done)))\n")


def many_schemas_domain(schemas: int) -> str:
    """A domain of ``schemas`` action schemas."""
    head = ("(define (domain q)\n  (:requirements :strips :typing :negative-preconditions)\n"
            "  (:types obj)\n  (:predicates (p ?a ?b ?c ?d ?e ?f - obj) (done))\n")
    acts = "".join(f"  (:action a{i} :parameters (?x ?y - obj) :precondition (and "
                   f"(p ?x ?y ?x ?y ?x ?y) (not (done))) :effect (and (done) "
                   f"(not (p ?x ?y ?x ?y ?x ?y))))\n" for i in range(schemas))
    return head + acts + "  (:action finish :parameters () :precondition () :effect (done)))\n"
