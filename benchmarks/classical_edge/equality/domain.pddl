; Equality: (= ?x ?y), (not (= ...)), equality with a domain constant.
(define (domain rooms)
  (:requirements :strips :typing :equality)
  (:types room)
  (:constants hall - room)
  (:predicates (at ?r - room) (visited ?r - room) (paired))
  (:action move
    :parameters (?from ?to - room)
    :precondition (and (at ?from) (not (= ?from ?to)))
    :effect (and (not (at ?from)) (at ?to) (visited ?to)))
  (:action stay
    :parameters (?a ?b - room)
    :precondition (and (at ?a) (= ?a ?b))
    :effect (visited ?b))
  (:action leave-hall
    :parameters (?to - room)
    :precondition (and (at hall) (not (= ?to hall)))
    :effect (and (not (at hall)) (at ?to))))
