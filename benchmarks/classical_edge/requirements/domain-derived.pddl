; Uses :derived with only :adl declared.
(define (domain req-derived)
  (:requirements :adl)
  (:predicates (on ?x) (lamp ?x) (dark))
  (:derived (dark) (forall (?x) (imply (lamp ?x) (not (on ?x)))))
  (:action switch-on
    :parameters (?x)
    :precondition (and (lamp ?x) (dark))
    :effect (on ?x)))
