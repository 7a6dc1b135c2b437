; Derived predicates: recursive (above), and one with negation over a lower stratum (free).
(define (domain towers)
  (:requirements :strips :typing :negative-preconditions :derived-predicates :quantified-preconditions :conditional-effects)
  (:types block)
  (:predicates (on ?x ?y - block) (ontable ?x - block) (holding ?x - block) (handempty)
               (above ?x ?y - block) (free ?x - block) (top-seen ?x - block))
  (:derived (above ?x ?y - block)
    (or (on ?x ?y) (exists (?z - block) (and (on ?x ?z) (above ?z ?y)))))
  (:derived (free ?x - block)
    (and (not (holding ?x)) (not (exists (?y - block) (on ?y ?x)))))
  (:action pick
    :parameters (?x - block)
    :precondition (and (free ?x) (ontable ?x) (handempty))
    :effect (and (holding ?x) (not (ontable ?x)) (not (handempty))))
  (:action unstack
    :parameters (?x ?y - block)
    :precondition (and (free ?x) (on ?x ?y) (handempty))
    :effect (and (holding ?x) (not (on ?x ?y)) (not (handempty))))
  (:action stack
    :parameters (?x ?y - block)
    :precondition (and (holding ?x) (free ?y) (not (above ?y ?x)))
    :effect (and (on ?x ?y) (handempty) (not (holding ?x))))
  (:action put
    :parameters (?x - block)
    :precondition (holding ?x)
    :effect (and (ontable ?x) (handempty) (not (holding ?x))))
  (:action survey
    :parameters (?x - block)
    :precondition (and)
    :effect (forall (?y - block) (when (and (above ?y ?x) (free ?y) (not (above ?x ?y))) (top-seen ?y)))))
