; An untyped domain: parameters, constants and objects without types.
(define (domain ferry-untyped)
  (:requirements :strips)
  (:constants ferry)
  (:predicates (at ?x ?p) (place ?p) (car ?c) (on ?c ?f))
  (:action sail
    :parameters (?from ?to)
    :precondition (and (place ?from) (place ?to) (at ferry ?from))
    :effect (and (not (at ferry ?from)) (at ferry ?to)))
  (:action board
    :parameters (?c ?p)
    :precondition (and (car ?c) (at ?c ?p) (at ferry ?p))
    :effect (and (not (at ?c ?p)) (on ?c ferry)))
  (:action debark
    :parameters (?c ?p)
    :precondition (and (on ?c ferry) (at ferry ?p))
    :effect (and (not (on ?c ferry)) (at ?c ?p))))
