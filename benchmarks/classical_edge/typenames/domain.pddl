; A type hierarchy (vehicle > truck > tanker) and objects named like types.
(define (domain fleet)
  (:requirements :strips :typing)
  (:types vehicle place - object truck - vehicle tanker - truck)
  (:predicates (at ?v - vehicle ?p - place) (fuelled ?t - tanker) (loaded ?t - truck))
  (:action drive
    :parameters (?v - vehicle ?from ?to - place)
    :precondition (at ?v ?from)
    :effect (and (not (at ?v ?from)) (at ?v ?to)))
  (:action load
    :parameters (?t - truck ?p - place)
    :precondition (at ?t ?p)
    :effect (loaded ?t))
  (:action fuel
    :parameters (?t - tanker)
    :precondition (loaded ?t)
    :effect (fuelled ?t)))
