; No :requirements at all, with types and a negative precondition.
(define (domain req-none)
  (:types lamp)
  (:predicates (on ?x - lamp))
  (:action switch-on
    :parameters (?x - lamp)
    :precondition (not (on ?x))
    :effect (on ?x)))
