; As domain.pddl, but the derived predicate (all-p) is not declared in :predicates.
(define (domain scoping)
  (:requirements :strips :typing :negative-preconditions :quantified-preconditions :conditional-effects :derived-predicates)
  (:types item)
  (:constants hub - item)
  (:predicates (p ?x - item) (q ?x - item) (flag))
  (:derived (all-p) (forall (?x - item) (p ?x)))
  (:action shadow
    :parameters (?x - item)
    :precondition (and (p ?x) (exists (?x - item) (not (p ?x))))
    :effect (forall (?x - item) (when (not (p ?x)) (q ?x))))
  (:action fill
    :parameters (?x - item)
    :precondition (exists () (not (p ?x)))
    :effect (p ?x))
  (:action finish
    :parameters ()
    :precondition (all-p)
    :effect (flag)))
