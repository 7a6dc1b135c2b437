; either types: in parameters, in objects, in a quantifier.
(define (domain garage)
  (:requirements :strips :typing :quantified-preconditions)
  (:types car bike person place)
  (:predicates (at ?v - (either car bike person) ?p - place) (fixed ?v - (either car bike)))
  (:action repair
    :parameters (?v - (either car bike) ?p - place)
    :precondition (at ?v ?p)
    :effect (fixed ?v))
  (:action ride
    :parameters (?v - bike ?from ?to - place)
    :precondition (at ?v ?from)
    :effect (and (not (at ?v ?from)) (at ?v ?to)))
  (:action close
    :parameters ()
    :precondition (forall (?v - (either car bike)) (fixed ?v))
    :effect (and)))
