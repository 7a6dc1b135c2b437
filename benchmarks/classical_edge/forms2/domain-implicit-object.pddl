; (:types thing) without a parent: thing is a subtype of object all the same.
(define (domain tiny)
  (:requirements :strips :typing :action-costs)
  (:types thing)
  (:predicates (done ?x - object) (ready))
  (:functions (total-cost) - number (price ?x - object) - number)
  (:action do
    :parameters (?x - object)
    :precondition (ready)
    :effect (and (done ?x) (increase (total-cost) (price ?x))))
  (:action prepare
    :parameters ()
    :precondition (and)
    :effect (and (ready) (increase (total-cost) 1))))
