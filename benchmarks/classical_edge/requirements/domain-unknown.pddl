; Declares a requirement no PDDL version defines.
(define (domain req-unknown)
  (:requirements :strips :no-such-requirement)
  (:predicates (on ?x) (lamp ?x))
  (:action switch-on
    :parameters (?x)
    :precondition (and (lamp ?x) (not (on ?x)))
    :effect (on ?x)))
