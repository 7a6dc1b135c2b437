; Towers: blocks stacked by one hand, with a cap on how high a stack may grow.
; Each block standing somewhere knows its level in its stack; the levels are objects linked
; by the static (next ?low ?high), so a problem sets the cap by the levels it declares.
; Stacking ?b on ?c needs a level above ?c's; a block on the table is at the (bottom) level.
; Written for planning_core (issue 32): a tower taller than the cap is unreachable, but
; only a chain of several facts shows it (every pair of goal facts is reachable together).
(define (domain towers)
  (:requirements :strips :typing)
  (:types block level)
  (:predicates
    (on ?b - block ?c - block)
    (on-table ?b - block)
    (clear ?b - block)
    (holding ?b - block)
    (hand-free)
    (at-level ?b - block ?l - level)
    (bottom ?l - level)
    (next ?low - level ?high - level))

  (:action lift
    :parameters (?b - block ?l - level)
    :precondition (and (on-table ?b) (clear ?b) (hand-free) (at-level ?b ?l))
    :effect (and (holding ?b) (not (on-table ?b)) (not (clear ?b)) (not (hand-free))
                 (not (at-level ?b ?l))))

  (:action drop
    :parameters (?b - block ?l - level)
    :precondition (and (holding ?b) (bottom ?l))
    :effect (and (on-table ?b) (clear ?b) (hand-free) (at-level ?b ?l)
                 (not (holding ?b))))

  (:action stack
    :parameters (?b - block ?c - block ?low - level ?high - level)
    :precondition (and (holding ?b) (clear ?c) (at-level ?c ?low) (next ?low ?high))
    :effect (and (on ?b ?c) (clear ?b) (hand-free) (at-level ?b ?high)
                 (not (holding ?b)) (not (clear ?c))))

  (:action unstack
    :parameters (?b - block ?c - block ?l - level)
    :precondition (and (on ?b ?c) (clear ?b) (hand-free) (at-level ?b ?l))
    :effect (and (holding ?b) (clear ?c) (not (on ?b ?c)) (not (clear ?b))
                 (not (hand-free)) (not (at-level ?b ?l)))))
