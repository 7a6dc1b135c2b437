; Uses when, forall effects and a typed parameter, but declares only :strips.
(define (domain req-conditional)
  (:requirements :strips)
  (:types lamp)
  (:predicates (on ?x - lamp) (bright))
  (:action switch-all
    :parameters ()
    :precondition (and)
    :effect (forall (?x - lamp) (on ?x)))
  (:action check
    :parameters (?x - lamp)
    :precondition (and)
    :effect (when (on ?x) (bright))))
