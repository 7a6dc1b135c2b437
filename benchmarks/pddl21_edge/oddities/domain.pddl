; Plan-file oddities: comments, missing or extra durations, case, blank lines.
(define (domain edge-oddities)
  (:requirements :strips :typing :durative-actions)
  (:types place)
  (:predicates (at ?p - place) (visited ?p - place))
  (:durative-action move
    :parameters (?from ?to - place)
    :duration (= ?duration 2)
    :condition (at start (at ?from))
    :effect (and (at start (not (at ?from))) (at end (at ?to)) (at end (visited ?to))))
  (:action mark
    :parameters (?p - place)
    :precondition (at ?p)
    :effect (visited ?p))
)
