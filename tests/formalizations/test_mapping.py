"""Mapping a plan over the model's names onto the ground truth's signatures."""
from __future__ import annotations

import textwrap

from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.validators.cope.dataset import ActionHead
from planning_core.validators.formalizations.mapping import action_mapping, map_plan

TRUTH = parse_domain(textwrap.dedent("""\
    (define (domain coin)
      (:types room direction item)
      (:predicates (at ?r - room) (connected ?a - room ?b - room ?d - direction)
                   (location ?i - item ?r - room) (taken ?i - item))
      (:action move
        :parameters (?room1 - room ?room2 - room ?direction - direction)
        :precondition (and (at ?room1) (connected ?room1 ?room2 ?direction))
        :effect (and (not (at ?room1)) (at ?room2)))
      (:action take
        :parameters (?item - item ?room - room)
        :precondition (and (at ?room) (location ?item ?room))
        :effect (and (taken ?item) (not (location ?item ?room)))))
    """))
TRUTH_PROBLEM = parse_problem(textwrap.dedent("""\
    (define (problem p) (:domain coin)
      (:objects kitchen living_room - room north south - direction coin - item)
      (:init (at kitchen) (connected kitchen living_room north)
             (connected living_room kitchen south) (location coin living_room))
      (:goal (taken coin)))
    """))
HEADS = (ActionHead("move", ("room1", "room2", "direction")), ActionHead("take",
                                                                         ("item", "room")))


def test_identical_signatures_are_kept():
    source = parse_domain(textwrap.dedent("""\
        (define (domain mine) (:types room direction item)
          (:action move :parameters (?room1 - room ?room2 - room ?direction - direction)
            :effect (and)))
        """))
    mapping = action_mapping(source.action("move"), TRUTH, HEADS)
    assert (mapping.target, mapping.order, mapping.rule) == ("move", (0, 1, 2), "identical")


def test_argument_order_from_types():
    source = parse_domain(textwrap.dedent("""\
        (define (domain mine) (:types room direction item)
          (:action MOVE :parameters (?d - direction ?from - room ?to - room) :effect (and))
          (:action Take :parameters (?r - room ?i - item) :effect (and)))
        """))
    move = action_mapping(source.action("move"), TRUTH, HEADS)
    assert (move.target, move.order, move.rule) == ("move", (1, 2, 0), "identical+reorder-by-type")
    plan = map_plan(("(move north kitchen living-room)", "(take living-room coin)"), source,
                    TRUTH, TRUTH_PROBLEM, HEADS)
    assert plan.steps == ("(move kitchen living_room north)", "(take coin living_room)")
    assert [o.to_json() for o in plan.objects] == [
        {"source": "living-room", "target": "living_room", "rule": "object-separator"}]
    assert plan.changed


def test_argument_order_from_the_action_heads_parameter_names():
    source = parse_domain(textwrap.dedent("""\
        (define (domain mine)
          (:action move :parameters (?room2 ?direction ?room1) :effect (and))
          (:action take-item :parameters (?room ?item) :effect (and)))
        """))
    move = action_mapping(source.action("move"), TRUTH, HEADS)
    assert (move.order, move.rule) == ((2, 0, 1), "identical+reorder-by-parameter-names")
    take = action_mapping(source.action("take-item"), TRUTH, HEADS)
    assert take.target is None and take.rule == "unmapped"


def test_name_variants_and_untyped_parameters_keep_the_written_order():
    source = parse_domain("(define (domain m) (:action Mo_Ve :parameters (?a ?b ?c) "
                          ":effect (and)))")
    mapping = action_mapping(source.action("mo_ve"), TRUTH, HEADS)
    assert (mapping.target, mapping.order, mapping.rule) == ("move", (0, 1, 2), "name-variant")


def test_arity_and_type_clashes_are_noted_not_guessed():
    source = parse_domain(textwrap.dedent("""\
        (define (domain mine) (:types room direction item)
          (:action move :parameters (?a - room ?b - room) :effect (and))
          (:action take :parameters (?i - direction ?r - direction) :effect (and)))
        """))
    move = action_mapping(source.action("move"), TRUTH, HEADS)
    assert move.order == (0, 1) and "arity differs" in move.note
    take = action_mapping(source.action("take"), TRUTH, HEADS)
    assert take.order == (0, 1) and "do not line up" in take.note
    plan = map_plan(("(move kitchen living_room)",), source, TRUTH, TRUTH_PROBLEM)
    assert plan.steps == ("(move kitchen living_room)",)


def test_steps_of_unknown_actions_pass_through():
    source = parse_domain("(define (domain m) (:action fly :parameters (?x) :effect (and)))")
    plan = map_plan(("(fly kitchen)",), source, TRUTH, TRUTH_PROBLEM)
    assert plan.steps == ("(fly kitchen)",)
    assert plan.actions[0].rule == "unmapped"
