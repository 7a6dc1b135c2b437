; A derived rule whose body has a variable not in its head (?y).
(define (domain free-variable)
  (:requirements :strips :derived-predicates :negative-preconditions)
  (:predicates (link ?x ?y) (marked ?x) (covered ?x))
  (:derived (covered ?x) (and (link ?y ?x) (not (marked ?y))))
  (:action mark :parameters (?x) :precondition (not (covered ?x)) :effect (marked ?x)))
