; Uses a negative precondition but declares only :strips.
(define (domain req-negative)
  (:requirements :strips)
  (:predicates (on ?x) (lamp ?x))
  (:action switch-on
    :parameters (?x)
    :precondition (and (lamp ?x) (not (on ?x)))
    :effect (on ?x)))
