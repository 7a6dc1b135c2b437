; forall / exists in preconditions and goals, imply, nested quantifiers.
(define (domain packing)
  (:requirements :strips :typing :quantified-preconditions :disjunctive-preconditions)
  (:types box room)
  (:predicates (in ?b - box ?r - room) (packed ?b - box) (sealed ?r - room) (robot-in ?r - room))
  (:action pack
    :parameters (?b - box ?r - room)
    :precondition (and (robot-in ?r) (in ?b ?r))
    :effect (packed ?b))
  (:action go
    :parameters (?from ?to - room)
    :precondition (robot-in ?from)
    :effect (and (not (robot-in ?from)) (robot-in ?to)))
  (:action seal
    :parameters (?r - room)
    :precondition (and (robot-in ?r)
                       (forall (?b - box) (imply (in ?b ?r) (packed ?b))))
    :effect (sealed ?r))
  (:action inspect
    :parameters (?r - room)
    :precondition (exists (?b - box) (and (in ?b ?r) (not (packed ?b))))
    :effect (and))
  (:action finish
    :parameters ()
    :precondition (forall (?r - room) (or (sealed ?r) (not (exists (?b - box) (in ?b ?r)))))
    :effect (and)))
