; Two actions whose names differ only in letter case (PDDL names are case-insensitive).
(define (domain case-twin)
  (:requirements :strips)
  (:predicates (a) (b))
  (:action Go :parameters () :precondition (and) :effect (a))
  (:action go :parameters () :precondition (and) :effect (b)))
