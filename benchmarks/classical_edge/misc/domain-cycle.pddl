; A derived predicate that depends negatively on itself: no stratification exists.
(define (domain cycle)
  (:requirements :strips :derived-predicates :negative-preconditions)
  (:predicates (p) (q) (done))
  (:derived (p) (and (q) (not (p))))
  (:action go :parameters () :precondition (p) :effect (done)))
